//! A row's metric cells as the tables of saved and live runs show them when
//! their kind has no cells of its own (a task run saved, a dialog run live
//! or saved): each metric's value, the time in ms, and the answer or the
//! error on one clipped line.

use evalpage_core::view::ViewRow;
use evalpage_core::Lang;
use yew::prelude::*;

/// A metric value: three decimals, `–` when there is none.
pub fn value(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |x| format!("{x:.3}"))
}

/// The time cell.
pub fn latency(r: &ViewRow) -> Html {
    html! { <td class="num">{r.latency_ms.map(|l| format!("{l:.0}")).unwrap_or_default()}</td> }
}

/// The header cells of [`cells`].
pub fn head(lang: Lang, metrics: &[String]) -> Html {
    html! {
        <>
            { for metrics.iter().map(|m| html!{ <th>{m}</th> }) }
            <th>{"ms"}</th>
            <th>{lang.pick("回答 / 错误", "answer / error")}</th>
        </>
    }
}

/// How many cells [`cells`] gives for `metrics` columns.
pub fn columns(metrics: usize) -> usize {
    metrics + 2
}

/// Each value, the time, and the error or else the answer.
pub fn cells(r: &ViewRow) -> Html {
    html! {
        <>
            { for r.values.iter().map(|v| html!{ <td class="num">{value(*v)}</td> }) }
            { latency(r) }
            <td class="clip-line">{r.error.clone().or_else(|| r.answer.clone()).unwrap_or_default()}</td>
        </>
    }
}
