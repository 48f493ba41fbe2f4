//! The page's one virtual list: only the rows in view are in the DOM. Every
//! row has the same height, and the space of the rows not rendered is kept
//! above and below them, so 100,000 rows scroll like ten and a live run's
//! flush renders a window of rows however long the run is.
//!
//! [`use_window`] is the window and its scroll state, for any list (the RAG
//! check's console uses it); [`VirtualTable`] is the table on it (the
//! viewer's cases, the RAG check's cases, a task run's samples): spacer rows,
//! and the CSS of `.vtable` clips its cells to the `--row-h` it sets.
//!
//! The table's caller renders one row per position (`row`): a `<tr>` with a
//! `key`, a `data-row` (the value `on_select` gets back) and `tabindex="0"`.
//! The table does the rest for every row: click toggles the row's
//! drill-down, Enter or Space opens it, and the keyboard focus stays on its
//! row (or the table) while scrolling re-renders the rows; a Tab pressed in
//! the moment a re-render has dropped the focus moves on from that row.

use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows rendered beyond the visible ones, above and below.
const OVERSCAN: u32 = 10;

/// A table's fixed sizes, px.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Height of every row.
    pub row_height: u32,
    /// Height of the scrolling area (its most: a short table is shorter).
    pub view_height: u32,
}

impl Geometry {
    /// The rows to render when the row at the top of the view is `top`, of
    /// `total`: [first, end).
    pub fn window(self, top: u32, total: u32) -> (u32, u32) {
        let first = top.saturating_sub(OVERSCAN).min(total);
        let visible = self.view_height / self.row_height.max(1);
        let end = first.saturating_add(visible + 2 * OVERSCAN).min(total);
        (first, end)
    }

    /// The height of `rows` rows, px (a spacer's).
    pub fn height(self, rows: u32) -> u64 {
        u64::from(rows) * u64::from(self.row_height)
    }

    /// The row at the top of the view when the area is scrolled by `scroll_top` px.
    pub fn top(self, scroll_top: i32) -> u32 {
        scroll_top.max(0) as u32 / self.row_height.max(1)
    }
}

/// The positions of the settled entries of a live run's list (`Some`), in
/// order: the rows of its table (a case shows once it settles).
pub fn settled<T>(entries: &[Option<T>]) -> std::rc::Rc<Vec<u32>> {
    std::rc::Rc::new(
        entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_some())
            .map(|(i, _)| i as u32)
            .collect(),
    )
}

/// Virtual table props.
#[derive(Properties, PartialEq)]
pub struct VirtualTableProps {
    /// Name of the scrolling region, for assistive technology.
    pub label: AttrValue,
    /// The `<table>`'s `data-testid`.
    pub testid: AttrValue,
    /// The `<table>`'s classes (`cases` and the table's own).
    #[prop_or_default]
    pub class: Classes,
    /// Row and view heights.
    pub geometry: Geometry,
    /// Number of rows.
    pub total: u32,
    /// Number of columns (the spacers span them).
    pub cols: u32,
    /// The header row(s), inside `<thead>`.
    pub head: Html,
    /// Renders the row at a position (`0..total`).
    pub row: Callback<u32, Html>,
    /// The `data-row` of the row drilled into.
    pub selected: Option<u32>,
    /// A row was opened (`Some(data-row)`) or closed (`None`).
    pub on_select: Callback<Option<u32>>,
}

/// The `data-row` of the row `e` happened in (when `exact`, only of an event
/// on the row itself, not on something inside it).
fn row_of(e: &Event, exact: bool) -> Option<u32> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    let row = if exact {
        target.has_attribute("data-row").then_some(target)?
    } else {
        target.closest("tr[data-row]").ok()??
    };
    row.get_attribute("data-row")?.parse().ok()
}

/// The rows of a scrolling list to render, and what keeps them current.
pub struct Window {
    /// First row to render.
    pub first: u32,
    /// One past the last row to render.
    pub end: u32,
    /// The scrolling element's `scroll` handler.
    pub onscroll: Callback<Event>,
}

/// The window of `total` rows of height `g.row_height` to render in a
/// scrolling element of at most `g.view_height`; re-renders only when the
/// row at the top of the view changes.
#[hook]
pub fn use_window(g: Geometry, total: u32) -> Window {
    let top = use_state_eq(|| 0u32);
    let onscroll = {
        let top = top.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                top.set(g.top(el.scroll_top()));
            }
        })
    };
    let (first, end) = g.window(*top, total);
    Window {
        first,
        end,
        onscroll,
    }
}

/// The table.
#[component]
pub fn VirtualTable(p: &VirtualTableProps) -> Html {
    let g = p.geometry;
    let total = p.total;
    let Window {
        first,
        end,
        onscroll,
    } = use_window(g, total);
    // The row with the keyboard focus, by `data-row`. Scrolling re-renders the
    // rows and may move or replace the focused one, which drops the focus to
    // <body>: at once, or (Chromium) at its next rendering step, after this
    // render's effects ran. Either way it goes back to that row (or, once the
    // row has left the DOM, to the table), so Tab and the arrow keys keep
    // working. The user leaves the row by moving the focus somewhere (a
    // `focusout` with a `relatedTarget`) or by pressing a pointer anywhere.
    let focused = use_mut_ref(|| None::<u32>);
    let area = use_node_ref();
    {
        let (focused, area) = (focused.clone(), area.clone());
        use_effect(move || {
            // Copied out first: focusing the row runs its focusin, which writes `focused`.
            let row = *focused.borrow();
            restore_focus(row, &area);
        });
    }
    {
        let (focused, area) = (focused.clone(), area.clone());
        use_effect_with((), move |()| {
            let listeners = web_sys::window().and_then(|w| w.document()).map(|doc| {
                let capture = gloo_events::EventListenerOptions::run_in_capture_phase;
                let on_press = focused.clone();
                [
                    // A press anywhere: the user is choosing where the focus goes.
                    gloo_events::EventListener::new_with_options(
                        &doc,
                        "pointerdown",
                        capture(),
                        move |_| *on_press.borrow_mut() = None,
                    ),
                    // A Tab pressed while a re-render has dropped the focus
                    // to <body> (before it is put back) moves on from the
                    // row the focus was on, as it would have from the row.
                    gloo_events::EventListener::new_with_options(
                        &doc,
                        "keydown",
                        capture(),
                        move |e| tab_from_dropped_row(e, *focused.borrow(), &area),
                    ),
                ]
            });
            move || drop(listeners)
        });
    }
    let onclick = {
        let (cb, selected) = (p.on_select.clone(), p.selected);
        Callback::from(move |e: MouseEvent| {
            if let Some(i) = row_of(&e, false) {
                cb.emit((selected != Some(i)).then_some(i));
            }
        })
    };
    let onkeydown = {
        let cb = p.on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() != "Enter" && e.key() != " " {
                return;
            }
            if let Some(i) = row_of(&e, true) {
                e.prevent_default();
                cb.emit(Some(i));
            }
        })
    };
    let onfocusin = {
        let focused = focused.clone();
        Callback::from(move |e: FocusEvent| {
            if let Some(i) = row_of(&e, true) {
                *focused.borrow_mut() = Some(i);
            }
        })
    };
    // Focus moved on to another element (Tab, a click on a control): forget
    // the row. Focus dropped to <body> (a re-render moved the row or took it
    // out, or the window lost the focus): keep it, and put the focus back
    // once this event is done with, if it is still on <body>.
    let onfocusout = {
        let (focused, area) = (focused.clone(), area.clone());
        Callback::from(move |e: FocusEvent| {
            if e.related_target().is_some() {
                *focused.borrow_mut() = None;
                return;
            }
            let (focused, area) = (focused.clone(), area.clone());
            crate::effects::spawn(async move {
                let row = *focused.borrow();
                restore_focus(row, &area);
            });
        })
    };
    let cols = p.cols.to_string();
    let spacer = |rows: u32| {
        html! {
            <tr class="spacer" aria-hidden="true" style={format!("height:{}px", g.height(rows))}><td colspan={cols.clone()}></td></tr>
        }
    };
    html! {
        <div class="vtable" ref={area} tabindex="0" role="region" aria-label={p.label.clone()}
            style={format!("max-height:{}px;--row-h:{}px", g.view_height, g.row_height)} {onscroll}>
            <table class={classes!("cases", p.class.clone())} data-testid={p.testid.clone()}>
                <thead>{p.head.clone()}</thead>
                <tbody {onclick} {onkeydown} {onfocusin} {onfocusout}>
                    {spacer(first)}
                    { for (first..end).map(|k| p.row.emit(k)) }
                    {spacer(total - end)}
                </tbody>
            </table>
        </div>
    }
}

/// While the focus is on <body> because a re-render dropped it from `row`:
/// a Tab (Shift+Tab) focuses the row after (before) it, as the browser
/// would have from the row. Anything else, or a row with no neighbour
/// rendered, is left to the browser.
fn tab_from_dropped_row(e: &Event, row: Option<u32>, area: &NodeRef) {
    let (Some(key), Some(i)) = (e.dyn_ref::<KeyboardEvent>(), row) else {
        return;
    };
    if key.key() != "Tab" || key.alt_key() || key.ctrl_key() || key.meta_key() {
        return;
    }
    let body_has_focus = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .is_none_or(|a| a.tag_name() == "BODY");
    let next = if key.shift_key() {
        i.checked_sub(1)
    } else {
        i.checked_add(1)
    };
    let (true, Some(next), Some(table)) =
        (body_has_focus, next, area.cast::<web_sys::HtmlElement>())
    else {
        return;
    };
    let target = table
        .query_selector(&format!("tr[data-row=\"{next}\"]"))
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(target) = target {
        e.prevent_default();
        let _ = target.focus();
    }
}

/// Puts the focus back on the row whose `data-row` is `row` (or on the table,
/// `area`, when the row is not rendered) if a re-render dropped it to <body>;
/// never scrolls.
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

#[cfg(test)]
mod tests {
    use super::Geometry;

    const G: Geometry = Geometry {
        row_height: 30,
        view_height: 480,
    };

    #[test]
    fn the_window_is_the_rows_in_view_and_the_overscan() {
        assert_eq!(G.window(0, 100_000), (0, 36));
        assert_eq!(G.window(1000, 100_000), (990, 1026));
        assert_eq!(G.window(99_990, 100_000), (99_980, 100_000));
        assert_eq!(G.window(0, 5), (0, 5));
        assert_eq!(
            G.window(50, 5),
            (5, 5),
            "past the end after the rows shrank"
        );
        assert_eq!(G.top(30 * 1000 + 29), 1000);
        assert_eq!(G.top(-4), 0, "an overscrolled area is at the top");
        assert_eq!(
            G.height(u32::MAX),
            u64::from(u32::MAX) * 30,
            "a spacer never overflows"
        );
    }
}
