//! The viewer's case table: the page's one virtual table
//! (`components::virtual_table`: only the rows in view are in the DOM), so
//! 100,000 cases scroll as smoothly as ten; a row (click or Enter) opens its
//! drill-down below the table. A row's cells after id, model and status, and
//! the drill-down's view of the case, are the run's kind's (`looks`).

use super::looks;
use crate::components::metric_cells;
use crate::components::virtual_table::{Geometry, VirtualTable};
use crate::viewer::state::Shared;
use evalpage_core::view::{ViewData, ViewRow};
use evalpage_core::Lang;
use yew::prelude::*;

/// Row height (the CSS of `.vtable` keeps rows to one line) and view height, px.
const GEOMETRY: Geometry = Geometry {
    row_height: 30,
    view_height: 480,
};

/// Table props.
#[derive(Properties, PartialEq)]
pub struct CaseTableProps {
    /// Language.
    pub lang: Lang,
    /// The run.
    pub data: Shared<ViewData>,
    /// Rows to show (indices), in order.
    pub shown: Shared<Vec<u32>>,
    /// The row drilled into.
    pub selected: Option<u32>,
    /// A row was opened or closed.
    pub on_select: Callback<Option<u32>>,
    /// The runs compared with this one (their trajectories of the opened
    /// case are shown beside its own).
    #[prop_or_default]
    pub others: Vec<Shared<ViewData>>,
}

/// The table.
#[component]
pub fn CaseTable(p: &CaseTableProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let d = &p.data;
    let models = d.rows.iter().any(|r| r.model.is_some());
    let row = {
        let (d, shown, selected, lang) = (d.clone(), p.shown.clone(), p.selected, p.lang);
        Callback::from(move |k: u32| {
            let Some(&i) = shown.get(k as usize) else {
                return html! {};
            };
            let Some(r) = d.rows.get(i as usize) else {
                return html! {};
            };
            let class = classes!(
                (r.status != "ok").then_some("failed"),
                (selected == Some(i)).then_some("selected")
            );
            html! {
                <tr key={i} data-testid="case-row" data-id={r.id.clone()} data-row={i.to_string()} {class} tabindex="0">
                    <td>{&r.id}</td>
                    if models { <td>{r.model.clone().unwrap_or_default()}</td> }
                    <td>{&r.status}</td>
                    { looks::cells(lang, &d, r) }
                </tr>
            }
        })
    };
    let cols = 2 + looks::columns(d) + usize::from(models);
    let head = html! {
        <tr>
            <th>{"id"}</th>
            if models { <th>{t("模型", "model")}</th> }
            <th>{t("状态", "status")}</th>
            { looks::head(p.lang, d) }
        </tr>
    };
    html! {
        <>
            <VirtualTable label={t("用例表", "Cases table")} testid="viewer-table" geometry={GEOMETRY}
                total={p.shown.len() as u32} cols={cols as u32} {head} {row}
                selected={p.selected} on_select={p.on_select.clone()} />
            { p.selected.map(|i| detail(p, i)).unwrap_or_default() }
        </>
    }
}

fn detail(p: &CaseTableProps, i: u32) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let d = &p.data;
    let Some(r) = d.rows.get(i as usize) else {
        return html! {};
    };
    let close = p.on_select.reform(|_: MouseEvent| None);
    html! {
        <section class="panel case-detail" data-testid="case-detail" aria-label={t("用例详情", "Case detail")}>
            <h3>{format!("{}{}", r.id, r.model.as_ref().map(|m| format!(" · {m}")).unwrap_or_default())}
                <button class="link" onclick={close}>{t("关闭", "Close")}</button></h3>
            <p>{format!("{}: {}", t("状态", "status"), r.status)}
                if let Some(a) = r.attempts { {format!(" · {} {a}", t("尝试", "attempts"))} }
                if let Some(l) = r.latency_ms { {format!(" · {l:.0} ms")} }
                if !r.tags.is_empty() { {format!(" · {}", r.tags.join(", "))} }
            </p>
            if let Some(e) = &r.error { <p class="error">{e}</p> }
            { looks::drill(p.lang, d, i as usize) }
            { imported_trajectory(d, r) }
            { compared_trajectories(p, r, i as usize) }
            if !looks::shows_answer(d, i as usize) {
                if let Some(a) = &r.answer { <pre class="answer" tabindex="0">{a}</pre> }
            }
            <table class="cases">
                <thead><tr><th>{t("指标", "metric")}</th><th>{t("值", "value")}</th><th>{t("详情", "detail")}</th></tr></thead>
                <tbody>
                    { for d.metrics.iter().enumerate().map(|(c, m)| {
                        let detail = d.detail(r, c);
                        html!{
                            <tr>
                                <td>{m}</td>
                                <td class="num">{metric_cells::value(r.values[c])}</td>
                                <td><pre class="detail" tabindex="0">{ if detail.is_null() { String::new() } else { serde_json::to_string_pretty(&detail).unwrap_or_default() } }</pre></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </section>
    }
}

/// An imported agent run's trajectory (another tool's log with tool calls,
/// kept in a score's `trajectory`), step by step as the task cells show it.
fn imported_trajectory(d: &ViewData, r: &ViewRow) -> Html {
    let found = (0..d.metrics.len())
        .map(|c| d.detail(r, c))
        .find_map(|detail| detail.get("trajectory").cloned());
    match found.and_then(|t| serde_json::from_value::<Vec<evalpage_core::ChatMessage>>(t).ok()) {
        Some(messages) => {
            let (steps, limit) = evalpage_core::shown_steps(&messages, None);
            crate::task::sample_table::trajectory_html(&steps, limit)
        }
        None => html! {},
    }
}

/// A trajectory's steps and whether it ended at the step limit.
type Shown = (Vec<evalpage_core::ShownStep>, bool);

/// The opened case's trajectory beside the same case's in each compared run
/// (the same id and model), when it has one.
fn compared_trajectories(p: &CaseTableProps, r: &ViewRow, i: usize) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let steps_of = |d: &ViewData, j: usize| {
        d.task_result(j).and_then(|res| {
            Some(evalpage_core::shown_steps(
                res.parsed.trajectory.as_ref()?,
                res.agent.as_deref(),
            ))
        })
    };
    let Some(base) = steps_of(&p.data, i) else {
        return html! {};
    };
    let others: Vec<(String, Option<Shown>)> = p
        .others
        .iter()
        .map(|o| {
            let j = o
                .rows
                .iter()
                .position(|x| x.id == r.id && x.model == r.model);
            (o.source.clone(), j.and_then(|j| steps_of(o, j)))
        })
        .collect();
    if others.is_empty() {
        return html! {};
    }
    html! {
        <table class="cases samples" data-testid="compare-trajectories">
            <thead><tr>
                <th>{p.data.source.clone()}</th>
                { for others.iter().map(|(name, _)| html!{ <th>{name.clone()}</th> }) }
            </tr></thead>
            <tbody><tr>
                <td data-testid="compared-trajectory">{ crate::task::sample_table::trajectory_html(&base.0, base.1) }</td>
                { for others.iter().map(|(_, steps)| match steps {
                    Some((s, limit)) => html!{ <td data-testid="compared-trajectory">{ crate::task::sample_table::trajectory_html(s, *limit) }</td> },
                    None => html!{ <td class="muted" data-testid="compared-trajectory">{t("（此运行没有这个用例的轨迹）", "(no trajectory of this case in this run)")}</td> },
                }) }
            </tr></tbody>
        </table>
    }
}
