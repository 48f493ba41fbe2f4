//! The per-case table of the RAG check, on the page's one virtual table
//! (`components::virtual_table`): only the settled cases in view are in the
//! DOM, each in a row of fixed height: the question, the answer (a truncated
//! one marked) and the reasons clipped to two lines, √/× per metric (as spec
//! 002 writes them). A row (click or Enter) opens the case below the table
//! as a whole row: the question, the answer with its reasoning collapsed, the
//! reasons (the cells the viewer's drill-down of a RAG run shows too).

use crate::components::virtual_table::{settled, Geometry, VirtualTable};
use crate::rag::state::RunSnapshot;
use evalpage_core::rag::{reasons, CaseResult, RagCase};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Row height (two lines of text, see `table.live` in the CSS) and view height, px.
pub const GEOMETRY: Geometry = Geometry {
    row_height: 52,
    view_height: 520,
};

/// Case table props.
#[derive(Properties, PartialEq)]
pub struct CaseTableProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<RunSnapshot>>,
}

/// One row's props: compared by pointer, so settled rows do not re-render.
#[derive(Properties)]
struct RowProps {
    lang: Lang,
    cases: Rc<Vec<RagCase>>,
    index: usize,
    result: Rc<CaseResult>,
    selected: bool,
}

impl PartialEq for RowProps {
    fn eq(&self, o: &Self) -> bool {
        self.lang == o.lang
            && self.index == o.index
            && self.selected == o.selected
            && Rc::ptr_eq(&self.result, &o.result)
            && Rc::ptr_eq(&self.cases, &o.cases)
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

/// The whole answer cell: the answer (a truncated one marked) with its
/// reasoning collapsed under it.
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

/// The whole reason cell: why accuracy and citation failed, one line each.
pub fn reason_cell(lang: Lang, case: &RagCase, r: &CaseResult) -> Html {
    html! {
        <td class="reason">{ for reasons(lang, case, r).into_iter().map(|s| html!{ <div>{s}</div> }) }</td>
    }
}

/// The truncation mark of a row's clipped answer.
fn truncated(lang: Lang, r: &CaseResult) -> Option<&'static str> {
    r.truncated()
        .then(|| lang.pick("[已截断] ", "[truncated] "))
}

#[component]
fn Row(p: &RowProps) -> Html {
    let Some(case) = p.cases.get(p.index) else {
        return html! {};
    };
    let r = &p.result;
    let class = classes!(
        if r.passed() { "pass" } else { "fail" },
        p.selected.then_some("selected")
    );
    html! {
        <tr data-testid="case-row" data-row={p.index.to_string()} {class} tabindex="0">
            <td>{&case.id}</td>
            <td class="q"><div class="clip2">{&case.q}</div></td>
            <td class="answer"><div class="clip2">
                if let Some(t) = truncated(p.lang, r) { <span class="bad" data-testid="case-truncated">{t}</span> }
                {r.answer.clone().unwrap_or_default()}
            </div></td>
            <td data-testid="case-accuracy">{mark(r.accurate())}</td>
            <td data-testid="case-citation">{mark(r.cited())}</td>
            <td class="reason" data-testid="case-reason"><div class="clip2">{reasons(p.lang, case, r).join(" / ")}</div></td>
            <td class="muted">{format!("{} · {} ms", r.attempts, r.elapsed_ms)}</td>
        </tr>
    }
}

/// The case table and the drill-down of the case opened.
#[component]
pub fn CaseTable(p: &CaseTableProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let selected = use_state_eq(|| None::<u32>);
    {
        // Another run (a new start, a resume) closes the drill-down.
        let selected = selected.clone();
        let run_of = p.run.as_ref().map(|r| Rc::as_ptr(&r.cases) as usize);
        use_effect_with(run_of, move |_| selected.set(None));
    }
    let Some(run) = &p.run else { return html! {} };
    // The settled cases, in dataset order (a case shows once it settles).
    let settled = settled(&run.results);
    let row = {
        let (run, settled, lang, open) = (run.clone(), settled.clone(), p.lang, *selected);
        Callback::from(move |k: u32| {
            let Some(&i) = settled.get(k as usize) else {
                return html! {};
            };
            let Some(Some(result)) = run.results.get(i as usize) else {
                return html! {};
            };
            html! {
                <Row key={i} {lang} cases={run.cases.clone()} index={i as usize} result={result.clone()}
                    selected={open == Some(i)} />
            }
        })
    };
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |i: Option<u32>| selected.set(i))
    };
    let head = html! {
        <tr>
            <th>{"id"}</th><th>{t("问题", "Question")}</th><th>{t("回答", "Answer")}</th>
            <th>{t("准确率", "Accuracy")}</th><th>{t("引用率", "Citation")}</th><th>{t("原因", "Reason")}</th>
            <th>{t("尝试 · 耗时", "Attempts · time")}</th>
        </tr>
    };
    let close = {
        let selected = selected.clone();
        Callback::from(move |_: MouseEvent| selected.set(None))
    };
    html! {
        <section class="panel">
            <h2>{t("单例结果", "Per-case results")}</h2>
            <VirtualTable label={t("单例结果表", "Per-case results table")} testid="case-table" class="live"
                geometry={GEOMETRY} total={settled.len() as u32} cols={7} {head} {row}
                selected={*selected} {on_select} />
            { selected.and_then(|i| detail(p.lang, run, i as usize, close)).unwrap_or_default() }
        </section>
    }
}

/// The drill-down of case `i`, once it settled: its whole row.
fn detail(lang: Lang, run: &RunSnapshot, i: usize, close: Callback<MouseEvent>) -> Option<Html> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let case = run.cases.get(i)?;
    let r = run.results.get(i)?.as_ref()?;
    Some(html! {
        <section class="case-detail" data-testid="case-detail" aria-label={t("用例详情", "Case detail")}>
            <h3>{&case.id}<button class="link" onclick={close}>{t("关闭", "Close")}</button></h3>
            <table class="cases">
                <thead><tr>
                    <th>{t("问题", "Question")}</th><th>{t("回答", "Answer")}</th>
                    <th>{t("准确率", "Accuracy")}</th><th>{t("引用率", "Citation")}</th><th>{t("原因", "Reason")}</th>
                    <th>{t("尝试 · 耗时", "Attempts · time")}</th>
                </tr></thead>
                <tbody><tr class={if r.passed() { "pass" } else { "fail" }}>
                    <td class="q">{&case.q}</td>
                    { answer_cell(lang, r) }
                    <td>{mark(r.accurate())}</td>
                    <td>{mark(r.cited())}</td>
                    { reason_cell(lang, case, r) }
                    <td class="muted">{format!("{} · {} ms", r.attempts, r.elapsed_ms)}</td>
                </tr></tbody>
            </table>
        </section>
    })
}
