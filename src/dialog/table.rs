//! The dialog mode's live table of dialogs, on the page's one virtual table
//! (issue 12): one row per settled dialog, the viewer's row of a saved dialog
//! run (its status, its own M1–M5 values as its event-log `case` record, its
//! time, its last answer or its error: the core's `view::dialog_row`); only
//! the rows in view are in the DOM, so a long run does not re-render every
//! dialog at each flush. A row (click, Enter or Space) opens the dialog's
//! conversation below the table.

use super::conversation::DialogCard;
use crate::components::metric_cells;
use crate::components::virtual_table::{settled, Geometry, VirtualTable};
use crate::dialog::state::ShownDialog;
use crate::viewer::state::Shared;
use evalpage_core::view::{dialog_columns, dialog_row};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Row height (one line) and view height, px: the viewer's.
pub const GEOMETRY: Geometry = Geometry {
    row_height: 30,
    view_height: 480,
};

/// Dialog table props.
#[derive(Properties, PartialEq)]
pub struct DialogTableProps {
    /// Language.
    pub lang: Lang,
    /// Each dialog once settled, by job (compared by identity: a new snapshot
    /// re-renders the table, the same one does not).
    pub dialogs: Shared<Vec<Option<Rc<ShownDialog>>>>,
}

/// The table and the conversation of the dialog opened.
#[component]
pub fn DialogTable(p: &DialogTableProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let selected = use_state_eq(|| None::<u32>);
    let settled = settled(&p.dialogs);
    let metrics = Rc::new(dialog_columns(
        p.dialogs.iter().flatten().map(|d| d.rows.as_slice()),
    ));
    let row = {
        let (dialogs, settled, open, metrics) = (
            p.dialogs.clone(),
            settled.clone(),
            *selected,
            metrics.clone(),
        );
        Callback::from(move |k: u32| {
            let Some(&i) = settled.get(k as usize) else {
                return html! {};
            };
            let Some(Some(d)) = dialogs.get(i as usize) else {
                return html! {};
            };
            let r = dialog_row(Some(&d.trace), &d.rows, &metrics);
            let class = classes!(
                (r.status != "ok").then_some("failed"),
                (open == Some(i)).then_some("selected")
            );
            html! {
                <tr key={i} data-testid="case-row" data-id={r.id.clone()} data-row={i.to_string()} {class} tabindex="0">
                    <td>{&r.id}</td>
                    <td>{&r.status}</td>
                    { metric_cells::cells(&r) }
                </tr>
            }
        })
    };
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |i: Option<u32>| selected.set(i))
    };
    let head = html! {
        <tr><th>{"id"}</th><th>{t("状态", "status")}</th>{ metric_cells::head(lang, &metrics) }</tr>
    };
    let cols = 2 + metric_cells::columns(metrics.len());
    let detail = selected
        .and_then(|i| p.dialogs.get(i as usize).cloned().flatten())
        .map(|dialog| {
            let close = {
                let selected = selected.clone();
                Callback::from(move |_: MouseEvent| selected.set(None))
            };
            let key = dialog.trace.dialog_id.clone();
            html! {
                <section class="case-detail" data-testid="case-detail" aria-label={t("对话详情", "Dialog detail")}>
                    <h3>{&dialog.trace.dialog_id}<button class="link" onclick={close}>{t("关闭", "Close")}</button></h3>
                    <DialogCard {key} {lang} {dialog} open={true} />
                </section>
            }
        })
        .unwrap_or_default();
    html! {
        <>
            <VirtualTable label={t("对话表", "Dialogs table")} testid="dialog-table" class="fit"
                geometry={GEOMETRY} total={settled.len() as u32} cols={cols as u32} {head} {row}
                selected={*selected} {on_select} />
            {detail}
        </>
    }
}
