//! The viewer's case table: only the rows in view are in the DOM (fixed row
//! height, spacers above and below), so 100,000 cases scroll as smoothly as
//! ten; a row (click or Enter) opens its drill-down below the table. A row's
//! cells after id, model and status, and the drill-down's view of the case,
//! are the run's kind's (`looks`).

use super::looks;
use crate::state::viewer::Shared;
use evalpage_core::view::ViewData;
use evalpage_core::Lang;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Height of one row, px (the CSS of `.vtable tr` keeps rows to one line).
pub const ROW_HEIGHT: u32 = 30;
/// Height of the scrolling area, px.
pub const VIEW_HEIGHT: u32 = 480;
/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: u32 = 10;

/// The rows to render for a scroll position: [first, end).
pub fn window(scroll_top: u32, total: u32) -> (u32, u32) {
    let first = (scroll_top / ROW_HEIGHT)
        .saturating_sub(OVERSCAN)
        .min(total);
    let end = (first + VIEW_HEIGHT / ROW_HEIGHT + 2 * OVERSCAN).min(total);
    (first, end)
}

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
}

/// The table.
#[component]
pub fn CaseTable(p: &CaseTableProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let scroll = use_state(|| 0u32);
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                scroll.set(el.scroll_top().max(0) as u32);
            }
        })
    };
    // The row with the keyboard focus, by index. Scrolling re-renders the rows and
    // may move or replace the focused one, which drops the focus to <body>; after
    // each render it goes back to that row (or, once the row has left the DOM, to
    // the table), so Tab and the arrow keys keep working in the table.
    let focused = use_mut_ref(|| None::<u32>);
    let area = use_node_ref();
    {
        let (focused, area) = (focused.clone(), area.clone());
        use_effect(move || {
            // Copied out first: focusing the row runs its onfocus, which writes `focused`.
            let row = *focused.borrow();
            restore_focus(row, &area);
        });
    }
    let d = &p.data;
    let total = p.shown.len() as u32;
    let (first, end) = window(*scroll, total);
    let models = d.rows.iter().any(|r| r.model.is_some());
    let row = |i: u32| {
        let r = &d.rows[i as usize];
        let open = {
            let cb = p.on_select.clone();
            let selected = p.selected;
            Callback::from(move |_: MouseEvent| {
                cb.emit(if selected == Some(i) { None } else { Some(i) })
            })
        };
        let key = {
            let cb = p.on_select.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    cb.emit(Some(i));
                }
            })
        };
        let onfocus = {
            let focused = focused.clone();
            Callback::from(move |_: FocusEvent| *focused.borrow_mut() = Some(i))
        };
        // Focus moved on (Tab, a click elsewhere): forget the row. A row taken out
        // of the DOM by a re-render is no longer connected: keep it.
        let onblur = {
            let focused = focused.clone();
            Callback::from(move |e: FocusEvent| {
                let connected = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .is_some_and(|el| el.is_connected());
                if e.related_target().is_some() || connected {
                    *focused.borrow_mut() = None;
                }
            })
        };
        let class = classes!(
            (r.status != "ok").then_some("failed"),
            (p.selected == Some(i)).then_some("selected")
        );
        html! {
            <tr key={i} data-testid="case-row" data-id={r.id.clone()} data-row={i.to_string()} {class} tabindex="0"
                onclick={open} onkeydown={key} {onfocus} {onblur}>
                <td>{&r.id}</td>
                if models { <td>{r.model.clone().unwrap_or_default()}</td> }
                <td>{&r.status}</td>
                { looks::cells(p.lang, d, r) }
            </tr>
        }
    };
    let cols = 2 + looks::columns(d) + usize::from(models);
    html! {
        <>
            <div class="vtable" ref={area} tabindex="0" role="region" aria-label={t("用例表", "Cases table")}
                style={format!("height:{VIEW_HEIGHT}px")} {onscroll}>
                <table class="cases" data-testid="viewer-table">
                    <thead><tr>
                        <th>{"id"}</th>
                        if models { <th>{t("模型", "model")}</th> }
                        <th>{t("状态", "status")}</th>
                        { looks::head(p.lang, d) }
                    </tr></thead>
                    <tbody>
                        <tr class="spacer" aria-hidden="true" style={format!("height:{}px", first * ROW_HEIGHT)}><td colspan={cols.to_string()}></td></tr>
                        { for (first..end).map(|k| row(p.shown[k as usize])) }
                        <tr class="spacer" aria-hidden="true" style={format!("height:{}px", (total - end) * ROW_HEIGHT)}><td colspan={cols.to_string()}></td></tr>
                    </tbody>
                </table>
            </div>
            { p.selected.map(|i| detail(p, i)).unwrap_or_default() }
        </>
    }
}

/// Puts the focus back on row `row` (or on the table, `area`, when the row is
/// not rendered) if a re-render dropped it to <body>; never scrolls.
fn restore_focus(row: Option<u32>, area: &NodeRef) {
    let Some(i) = row else { return };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if doc.active_element().is_some_and(|a| a.tag_name() != "BODY") {
        return;
    }
    let Some(table) = area.cast::<web_sys::HtmlElement>() else {
        return;
    };
    let target = table
        .query_selector(&format!("tr[data-row=\"{i}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        .unwrap_or(table);
    let options = web_sys::FocusOptions::new();
    options.set_prevent_scroll(true);
    let _ = target.focus_with_options(&options);
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
                                <td class="num">{looks::value(r.values[c])}</td>
                                <td><pre class="detail" tabindex="0">{ if detail.is_null() { String::new() } else { serde_json::to_string_pretty(&detail).unwrap_or_default() } }</pre></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </section>
    }
}
