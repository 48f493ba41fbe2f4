//! The per-case table: question, answer (its reasoning collapsed under it,
//! a truncated answer marked), √/× per metric (as spec 002 writes them),
//! and the reasons.

use crate::state::RunSnapshot;
use evalpage_core::console::reasons;
use evalpage_core::run::CaseResult;
use evalpage_core::Lang;
use evalpage_core::RagCase;
use std::rc::Rc;
use yew::prelude::*;

/// Case table props.
#[derive(Properties, PartialEq)]
pub struct CaseTableProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<RunSnapshot>>,
}

/// One row's props: compared by pointer, so finished rows do not re-render.
#[derive(Properties)]
struct RowProps {
    lang: Lang,
    case: Rc<Vec<RagCase>>,
    index: usize,
    result: Rc<CaseResult>,
}

impl PartialEq for RowProps {
    fn eq(&self, o: &Self) -> bool {
        self.lang == o.lang
            && self.index == o.index
            && Rc::ptr_eq(&self.result, &o.result)
            && Rc::ptr_eq(&self.case, &o.case)
    }
}

/// √ or ×, as spec 002 writes them.
pub fn mark(ok: bool) -> Html {
    if ok {
        html! {<span class="ok">{"\u{221a}"}</span>}
    } else {
        html! {<span class="bad">{"\u{00d7}"}</span>}
    }
}

/// The answer cell: the answer (a truncated one marked) with its reasoning
/// collapsed under it.
pub fn answer_cell(lang: Lang, r: &CaseResult) -> Html {
    let answer = r.answer.clone().unwrap_or_default();
    let truncated = r.truncated().then(|| {
        html! {<span class="bad" data-testid="case-truncated">{lang.pick(" [已截断]", " [truncated]")}</span>}
    });
    let reasoning = r.reasoning.as_ref().map(|text| {
        html! {
            <details data-testid="case-reasoning">
                <summary class="muted">{lang.pick("推理过程（不计分）", "Reasoning (not scored)")}</summary>
                <div class="clip" tabindex="0">{text.clone()}</div>
            </details>
        }
    });
    html! {
        <td class="answer"><div class="clip" tabindex="0">{answer}{truncated}</div>{reasoning}</td>
    }
}

/// The reason cell: why accuracy and citation failed, one line each.
pub fn reason_cell(lang: Lang, case: &RagCase, r: &CaseResult) -> Html {
    html! {
        <td class="reason">{ for reasons(lang, case, r).into_iter().map(|s| html!{ <div>{s}</div> }) }</td>
    }
}

#[component]
fn Row(p: &RowProps) -> Html {
    let case = &p.case[p.index];
    let r = &p.result;
    html! {
        <tr data-testid="case-row" class={if r.passed() { "pass" } else { "fail" }}>
            <td>{&case.id}</td>
            <td class="q">{&case.q}</td>
            { answer_cell(p.lang, r) }
            <td data-testid="case-accuracy">{mark(r.accurate())}</td>
            <td data-testid="case-citation">{mark(r.cited())}</td>
            { reason_cell(p.lang, case, r) }
            <td class="muted">{format!("{} · {} ms", r.attempts, r.elapsed_ms)}</td>
        </tr>
    }
}

/// The case table.
#[component]
pub fn CaseTable(p: &CaseTableProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let Some(run) = &p.run else { return html! {} };
    html! {
        <section class="panel">
            <h2>{t("单例结果", "Per-case results")}</h2>
            <table class="cases">
                <thead><tr>
                    <th>{"id"}</th><th>{t("问题", "Question")}</th><th>{t("回答", "Answer")}</th>
                    <th>{t("准确率", "Accuracy")}</th><th>{t("引用率", "Citation")}</th><th>{t("原因", "Reason")}</th>
                    <th>{t("尝试 · 耗时", "Attempts · time")}</th>
                </tr></thead>
                <tbody>
                    { for run.results.iter().enumerate().filter_map(|(i, r)| r.clone().map(|result| html!{
                        <Row key={i} lang={p.lang} case={run.cases.clone()} index={i} {result} />
                    })) }
                </tbody>
            </table>
        </section>
    }
}
