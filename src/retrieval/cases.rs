//! The retrieval mode's live per-case table on the page's one virtual table:
//! only the settled cases in view are in the DOM, one line each; click or
//! Enter opens the case below the table (the whole query, the ranked list or
//! why there is none, the expected sources).

use super::{case_cells, case_head};
use crate::components::virtual_table::{settled, Geometry, VirtualTable};
use evalpage_core::retrieval::Row;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Row height (one line) and view height, px.
pub const GEOMETRY: Geometry = Geometry {
    row_height: 30,
    view_height: 480,
};

/// Cases table props.
#[derive(Properties, PartialEq)]
pub struct CasesProps {
    /// Language.
    pub lang: Lang,
    /// The run's rows (a case is `None` until it settles), shared by the snapshot.
    pub rows: Rc<Vec<Option<Row>>>,
    /// The run's k.
    pub k: usize,
}

/// The table and the drill-down of the case opened.
#[component]
pub fn RetrievalCases(p: &CasesProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let selected = use_state_eq(|| None::<u32>);
    let settled = settled(&p.rows);
    let row = {
        let (rows, settled, open) = (p.rows.clone(), settled.clone(), *selected);
        Callback::from(move |k: u32| {
            let Some(&i) = settled.get(k as usize) else {
                return html! {};
            };
            let Some(Some(r)) = rows.get(i as usize) else {
                return html! {};
            };
            let class = classes!(
                (!r.score.hit_at_k).then_some("miss"),
                (open == Some(i)).then_some("selected")
            );
            html! {
                <tr key={i} data-testid="case-row" data-row={i.to_string()} {class} tabindex="0">
                    <td>{&r.case.case_id}</td>
                    { case_cells(r) }
                </tr>
            }
        })
    };
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |i: Option<u32>| selected.set(i))
    };
    let head = html! { <tr><th>{"case_id"}</th>{ case_head(p.lang, p.k) }</tr> };
    let detail = selected
        .and_then(|i| p.rows.get(i as usize).cloned().flatten())
        .map(|r| {
            let close = {
                let selected = selected.clone();
                Callback::from(move |_: MouseEvent| selected.set(None))
            };
            html! {
                <section class="case-detail" data-testid="retrieval-case-detail" aria-label={t("用例详情", "Case detail")}>
                    <h3>{&r.case.case_id}<button class="link" onclick={close}>{t("关闭", "Close")}</button></h3>
                    <dl>
                        <dt>{"query"}</dt><dd>{&r.case.query}</dd>
                        <dt>{format!("top-{}", p.k)}</dt>
                        <dd>{ match r.error() {
                            Some(e) => html!{ <span class="error">{&e.message}</span> },
                            None => html!{ <ol>{ for r.score.topk.iter().map(|s| html!{ <li>{s}</li> }) }</ol> },
                        } }</dd>
                        <dt>{"expected"}</dt><dd>{r.case.expected_sources.join(", ")}</dd>
                    </dl>
                </section>
            }
        })
        .unwrap_or_default();
    html! {
        <>
            <VirtualTable label={t("逐条结果表", "Cases table")} testid="retrieval-cases"
                geometry={GEOMETRY} total={settled.len() as u32} cols={8} {head} {row}
                selected={*selected} {on_select} />
            {detail}
        </>
    }
}
