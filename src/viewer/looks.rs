//! A saved run shown as its live mode showed it (issue 12), through the live
//! modes' own views: the table stays the viewer's one virtual table, and
//! each kind ([`Look`]) adds its cells to a row, its contents to the
//! drill-down, and its panels around the table.
//!
//! - RAG check: a row's accuracy and citation as √/× with the question and
//!   the reasons (the RAG page's `mark` and `console::reasons`); the
//!   drill-down is the RAG page's row (question, answer with its reasoning
//!   and truncation, √/×, reasons, attempts and time); above the table its
//!   metrics panel and error summary with the Notes.
//! - Task run: the drill-down is the task grid's cell (parsed fields with
//!   their parse status, problems, metric values) when `results.jsonl` was
//!   opened with the report.
//! - Retrieval: a row is the retrieval mode's row; above the table its
//!   per-bucket means.
//! - Dialogs: above the table the dialog mode's M1–M5 summary with its
//!   counts; a row is the dialog mode's row (its own M1–M5 values, time,
//!   last answer or error) and its drill-down is its conversation, open.
//!
//! A row stays one line (fixed height): long text is cut, the drill-down has
//! it whole.

use crate::components::metric_cells;
use crate::dialog::conversation::DialogCard;
use crate::dialog::results::summary_table;
use crate::dialog::state::ShownDialog;
use crate::rag::case_table::{answer_cell, mark, reason_cell};
use crate::rag::error_summary::ErrorSummary;
use crate::rag::metrics::MetricsPanel;
use crate::retrieval::{case_cells, case_head, means_table};
use crate::state::Provider;
use crate::task::sample_table::cell_html;
use crate::task::state::results::cell;
use crate::viewer::state::{rag_view, Shared};
use evalpage_core::rag::reasons;
use evalpage_core::view::{
    rag_case, retrieval_means, retrieval_row, Look, SampleInput, ViewData, ViewRow,
};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Above this many rows the RAG summary (every case read back) waits for a
/// click, so opening a huge report stays fast.
const RAG_SUMMARY_AT_ONCE: usize = 20_000;

fn rag_label(lang: Lang, metric: &str) -> Option<&'static str> {
    match metric {
        "accuracy" => Some(lang.pick("准确率", "Accuracy")),
        "citation" => Some(lang.pick("引用率", "Citation")),
        _ => None,
    }
}

/// The header cells after id, model and status.
pub fn head(lang: Lang, d: &ViewData) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    match &d.look {
        Look::Rag => html! {
            <>
                { for d.metrics.iter().map(|m| html!{ <th>{rag_label(lang, m).unwrap_or(m)}</th> }) }
                <th>{"ms"}</th>
                <th>{t("问题", "Question")}</th>
                <th>{t("原因", "Reason")}</th>
            </>
        },
        Look::Retrieval { k } => html! {
            <>{ case_head(lang, *k) }<th>{"ms"}</th></>
        },
        Look::Generic | Look::Task(_) | Look::Dialog(_) => metric_cells::head(lang, &d.metrics),
    }
}

/// How many cells [`cells`] gives.
pub fn columns(d: &ViewData) -> usize {
    match &d.look {
        Look::Rag => d.metrics.len() + 3,
        Look::Retrieval { .. } => 8,
        Look::Generic | Look::Task(_) | Look::Dialog(_) => metric_cells::columns(d.metrics.len()),
    }
}

/// A row's cells after id, model and status.
pub fn cells(lang: Lang, d: &ViewData, r: &ViewRow) -> Html {
    match &d.look {
        Look::Rag => {
            let why = rag_case(d, r)
                .map(|(case, result)| reasons(lang, &case, &result).join(" / "))
                .or_else(|| r.error.clone())
                .unwrap_or_default();
            html! {
                <>
                    { for d.metrics.iter().zip(&r.values).map(|(m, v)| match (m.as_str(), v) {
                        ("accuracy", Some(v)) => html!{ <td data-testid="case-accuracy">{mark(*v >= 1.0)}</td> },
                        ("citation", Some(v)) => html!{ <td data-testid="case-citation">{mark(*v >= 1.0)}</td> },
                        _ => html!{ <td class="num">{metric_cells::value(*v)}</td> },
                    }) }
                    { metric_cells::latency(r) }
                    <td class="q">{r.input.clone().unwrap_or_default()}</td>
                    <td class="reason" data-testid="case-reason">{why}</td>
                </>
            }
        }
        Look::Retrieval { .. } => html! {
            <>{ case_cells(&retrieval_row(d, r)) }{ metric_cells::latency(r) }</>
        },
        Look::Generic | Look::Task(_) | Look::Dialog(_) => metric_cells::cells(r),
    }
}

/// True when the drill-down of row `i` shows the answer itself (the
/// generic answer block is then left out).
pub fn shows_answer(d: &ViewData, i: usize) -> bool {
    let Some(r) = d.rows.get(i) else { return false };
    match &d.look {
        Look::Rag => rag_case(d, r).is_some(),
        Look::Task(_) => d.task_result(i).is_some(),
        Look::Dialog(_) => d.dialog(i).is_some_and(|e| e.trace.is_some()),
        Look::Generic | Look::Retrieval { .. } => false,
    }
}

/// The live mode's view of row `i` in its drill-down.
pub fn drill(lang: Lang, d: &ViewData, i: usize) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let Some(r) = d.rows.get(i) else {
        return html! {};
    };
    match &d.look {
        Look::Rag => match rag_case(d, r) {
            Some((case, result)) => {
                let time = match (r.attempts, r.latency_ms) {
                    (Some(a), Some(ms)) => format!("{a} · {ms:.0} ms"),
                    _ => t("（报告未记录）", "(not in the report)").to_string(),
                };
                html! {
                    <table class="cases" data-testid="rag-case">
                        <thead><tr>
                            <th>{"id"}</th><th>{t("问题", "Question")}</th><th>{t("回答", "Answer")}</th>
                            <th>{t("准确率", "Accuracy")}</th><th>{t("引用率", "Citation")}</th><th>{t("原因", "Reason")}</th>
                            <th>{t("尝试 · 耗时", "Attempts · time")}</th>
                        </tr></thead>
                        <tbody>
                            <tr class={if result.passed() { "pass" } else { "fail" }}>
                                <td>{&case.id}</td>
                                <td class="q">{&case.q}</td>
                                { answer_cell(lang, &result) }
                                <td data-testid="case-accuracy">{mark(result.accurate())}</td>
                                <td data-testid="case-citation">{mark(result.cited())}</td>
                                { reason_cell(lang, &case, &result) }
                                <td class="muted">{time}</td>
                            </tr>
                        </tbody>
                    </table>
                }
            }
            None => html! {
                <p class="muted">{t("事件日志不含问题与预期文档：原因见 report.json。",
                    "An event log holds neither the question nor the expected documents: open the run's report.json for the reasons.")}</p>
            },
        },
        Look::Task(look) => match d.task_result(i) {
            Some(result) => html! {
                <>
                { d.task_input(i).map(|input| sample_input(lang, input)).unwrap_or_default() }
                <div class="sample-scroll">
                    <table class="cases samples" data-testid="task-cell">
                        <thead><tr><th>{r.model.clone().unwrap_or_else(|| t("结果", "result").to_string())}</th></tr></thead>
                        <tbody><tr>{ cell_html(&cell(result)) }</tr></tbody>
                    </table>
                </div>
                </>
            },
            None if look.source.is_none() => html! {
                <p class="muted">{t("解析出的字段在 results.jsonl 中：打开运行的 zip，或同时选择 report.json 与 results.jsonl。",
                    "The parsed fields are in results.jsonl: open the run's zip, or pick report.json and results.jsonl together.")}</p>
            },
            None => html! {},
        },
        Look::Dialog(_) => match d.dialog(i).and_then(|e| e.trace.clone()) {
            Some(trace) => {
                let rows = d.dialog(i).map(|e| e.rows.clone()).unwrap_or_default();
                let dialog = Rc::new(ShownDialog { trace, rows });
                html! { <DialogCard {lang} {dialog} open={true} /> }
            }
            None => html! {},
        },
        Look::Generic | Look::Retrieval { .. } => html! {},
    }
}

/// Look props.
#[derive(Properties, PartialEq)]
pub struct LookProps {
    /// Language.
    pub lang: Lang,
    /// The run.
    pub data: Shared<ViewData>,
}

/// The live mode's panels above the table: the RAG page's metrics and error
/// summary with the Notes, the retrieval mode's per-bucket means, the dialog
/// mode's summary.
#[component]
pub fn LookSummary(p: &LookProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let asked = use_state(|| false);
    let d = &p.data;
    let big = d.rows.len() > RAG_SUMMARY_AT_ONCE && !*asked;
    let rag = use_memo((d.clone(), lang, big), |(d, lang, big)| {
        (!*big).then(|| rag_view(d, *lang)).flatten()
    });
    match &d.look {
        Look::Rag if big => {
            let ask = {
                let asked = asked.clone();
                Callback::from(move |_: MouseEvent| asked.set(true))
            };
            html! {
                <section class="panel">
                    <button data-testid="rag-summary-compute" onclick={ask}>{format!("{} ({} {})",
                        t("显示整体指标、错误汇总与 Notes", "Show the metrics, error summary and Notes"), d.rows.len(), t("个用例", "cases"))}</button>
                </section>
            }
        }
        Look::Rag => match &*rag {
            Some(v) => html! {
                <div data-testid="rag-look">
                    <MetricsPanel {lang} run={Some(v.run.clone())} />
                    <ErrorSummary {lang} run={Some(v.run.clone())} artifacts={None::<Rc<crate::rag::state::Artifacts>>}
                        provider={Provider::Demo} base_url={String::new()} notes={Some(v.notes.clone())} />
                </div>
            },
            None => html! {},
        },
        Look::Retrieval { k } => html! {
            <section class="panel" data-testid="retrieval-summary">
                <h2>{t("指标", "Metrics")}</h2>
                { means_table(lang, *k, &retrieval_means(d)) }
            </section>
        },
        Look::Dialog(look) => html! {
            <section class="panel" data-testid="dialog-results">
                <h2>{t("结果", "Results")}</h2>
                if let Some(s) = &look.summary {
                    { summary_table(lang, s) }
                }
                if look.summary_computed {
                    <p class="muted">{t("未提供 metrics_summary.json：汇总由 turn_eval.jsonl 计算。",
                        "metrics_summary.json was not given: the summary is computed from turn_eval.jsonl.")}</p>
                }
                <p class="muted">{t("下表每行是一个对话自身的指标值（与事件日志的 case 记录相同）；上面的汇总按轮次计算（spec 001 §7）。",
                    "Each table row holds one dialog's own values (as the event log's case record); the summary above is over all turns (spec 001 §7).")}</p>
            </section>
        },
        Look::Generic | Look::Task(_) => html! {},
    }
}

/// A task sample's input (its fields as read) and the prompt the template
/// rendered for it, as `results.jsonl` records them.
fn sample_input(lang: Lang, input: &SampleInput) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let fields = serde_json::to_string_pretty(&input.fields).unwrap_or_default();
    html! {
        <>
            <details open=true data-testid="task-input">
                <summary>{t("输入（样本字段）", "Input (the sample's fields)")}</summary>
                <div class="message"><pre tabindex="0">{fields}</pre></div>
            </details>
            <details open=true data-testid="task-prompt">
                <summary>{t("渲染后的提示词", "Rendered prompt")}</summary>
                { match (&input.messages, &input.prompt_error) {
                    (Some(messages), _) => html! { <>{ for messages.iter().map(|m| html!{
                        <div class="message" data-testid="prompt-message" data-role={m.role.clone()}>
                            <span class="role">{&m.role}</span>
                            <pre tabindex="0">{&m.content}</pre>
                        </div>
                    }) }</> },
                    (None, Some(e)) => html! { <p class="error">{format!("{} {e}", t("提示词无法渲染：", "The prompt could not be rendered:"))}</p> },
                    (None, None) => html! { <p class="muted">{t("此 results.jsonl 未记录提示词。", "This results.jsonl does not record the prompt.")}</p> },
                } }
            </details>
        </>
    }
}
