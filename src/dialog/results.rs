//! What a dialog run or a scored trace shows: progress, the trace's problems,
//! the per-metric summary of `metrics_summary.json` (value, status and the
//! eligible / skipped / failed counts; a metric that did not run with its
//! reason), the downloads, and the table of dialogs (`table`), each row
//! opening its conversation.

use super::table::DialogTable;
use crate::components::zip_button::ZipButton;
use crate::dialog::state::{DialogResults, DialogState};
use crate::effects::download;
use crate::state::RunStatus;
use crate::viewer::state::Shared;
use evalpage_core::dialog::MetricsSummary;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Name of the zip download.
pub const ZIP_NAME: &str = "evalpage-dialog-run.zip";

/// Results props.
#[derive(Properties, PartialEq)]
pub struct DialogResultsProps {
    /// Language.
    pub lang: Lang,
    /// The mode's state.
    pub state: UseReducerHandle<DialogState>,
}

/// Progress, summary, downloads and conversations.
#[component]
pub fn DialogResultsView(p: &DialogResultsProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let s = &*p.state;
    let progress = s.snapshot.as_ref().map(|snap| {
        let (code, status) = match snap.status {
            RunStatus::Running => ("running", t("进行中", "running")),
            RunStatus::Done => ("done", t("完成", "done")),
            RunStatus::Cancelled => ("cancelled", t("已取消", "cancelled")),
            _ => ("", ""),
        };
        html! {
            <p data-testid="dialog-progress">
                <span class="visually-hidden" data-testid="run-status">{code}</span>
                {format!("{}/{} {} · {status}", snap.progress.done, snap.progress.total, t("个对话", "dialogs"))}
                if let Some(why) = &snap.progress.stopped { {format!(" · {}", why.message)} }
            </p>
        }
    });
    let (dialogs, body) = match &s.results {
        Some(Ok(r)) => (Some(r.dialogs.clone()), finished(lang, r)),
        Some(Err(e)) => (
            None,
            html! { <p class="error" role="alert">{e.to_string()}</p> },
        ),
        None => (
            s.snapshot.as_ref().map(|snap| snap.dialogs.clone()),
            html! {},
        ),
    };
    let settled = dialogs
        .as_ref()
        .map_or(0, |d| d.iter().filter(|d| d.is_some()).count());
    if progress.is_none() && s.results.is_none() {
        return html! {};
    }
    html! {
        <>
            <section class="panel" data-testid="dialog-results">
                <h2>{t("结果", "Results")}</h2>
                { progress.unwrap_or_default() }
                if s.running() {
                    <p class="muted">{t("各指标汇总在运行结束时给出；已完成的对话见下方。",
                        "The metric summary comes when the run ends; settled dialogs are below.")}</p>
                }
                { body }
            </section>
            if let Some(dialogs) = dialogs.filter(|_| settled > 0) {
                <section class="panel" data-testid="dialog-conversations">
                    <h2>{format!("{} ({settled})", t("对话", "Conversations"))}</h2>
                    <p class="muted">{t("每行是一个对话自身的指标值；点击一行（或按 Enter）查看每轮的用户消息、参考答案与标签、模型回答和评分。",
                        "Each row holds one dialog's own values; open a row (click or Enter) to see each turn's user message, ground truth and tags, model answer and verdicts.")}</p>
                    <DialogTable {lang} dialogs={Shared(dialogs)} />
                </section>
            }
        </>
    }
}

/// The summary, the trace's problems and the downloads of finished results.
fn finished(lang: Lang, r: &Rc<DialogResults>) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let summary_download = {
        let r = r.clone();
        Callback::from(move |_: MouseEvent| {
            let text = r.file("metrics_summary.json").unwrap_or_default();
            if let Err(e) = download::save("metrics_summary.json", "application/json", text) {
                web_sys::console::error_1(&format!("download failed: {e}").into());
            }
        })
    };
    html! {
        <>
            if let Some(file) = &r.scored_from {
                <p data-testid="dialog-scored">{format!("{} {file} · {}", t("已为轨迹打分：", "Scored"),
                    t("未调用任何模型", "no model was called"))}</p>
            }
            if !r.problems.is_empty() {
                <ul class="line-errors" data-testid="dialog-trace-problems" tabindex="0">
                    { for r.problems.iter().map(|e| html!{ <li>{e.to_string()}</li> }) }
                </ul>
            }
            { summary_table(lang, &r.summary) }
            <div class="downloads">
                <ZipButton name={ZIP_NAME} files={r.files.clone()} ended_at_ms={r.ended_at_ms} {lang} />
                <button data-testid="download-dialog-summary" onclick={summary_download}>{"metrics_summary.json"}</button>
            </div>
        </>
    }
}

/// The counters and the per-metric summary of `metrics_summary.json`.
pub fn summary_table(lang: Lang, s: &MetricsSummary) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let c = &s.counters;
    html! {
        <>
            <p data-testid="dialog-counters">{format!(
                "{} · {} {} · {} {} · {} {} · {} {} · {} {} · {} {}",
                s.model_name,
                c.total_dialogs, t("个对话", "dialogs"),
                c.valid_dialogs, t("有效", "valid"),
                c.skipped_dialogs, t("跳过", "skipped"),
                c.failed_dialogs, t("失败", "failed"),
                c.partial_dialogs, t("部分完成", "partial"),
                s.turn_rows, t("个轮次行", "turn rows"),
            )}</p>
            <table class="cases" data-testid="dialog-summary">
                <thead><tr>
                    <th>{t("指标", "metric")}</th><th>{t("状态", "status")}</th><th>{t("值", "value")}</th>
                    <th>{t("计入", "eligible")}</th><th>{t("跳过", "skipped")}</th><th>{t("失败", "failed")}</th>
                    <th>{t("说明", "meaning")}</th>
                </tr></thead>
                <tbody>
                    { for s.metrics.iter().map(|(name, m)| {
                        let reasons: Vec<String> = m.skipped_reasons.iter()
                            .filter(|(why, _)| !why.is_empty())
                            .map(|(why, n)| format!("{why} ×{n}")).collect();
                        html!{
                            <tr data-testid="dialog-metric" data-metric={name.clone()}
                                class={if m.status == "ok" { "" } else { "miss" }}>
                                <td><code>{name}</code></td>
                                <td>{&m.status}</td>
                                <td>{m.value.map_or("—".to_string(), |v| format!("{v:.3}"))}</td>
                                <td>{m.eligible_count}</td>
                                <td>{m.skipped_count}</td>
                                <td>{m.failed_count}</td>
                                <td class="muted">
                                    {&m.definition}
                                    if let Some(why) = &m.reason { <br /><span class="why">{why}</span> }
                                    if !reasons.is_empty() { <br /><span>{format!("{} {}", t("跳过原因：", "skipped:"), reasons.join("; "))}</span> }
                                </td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </>
    }
}
