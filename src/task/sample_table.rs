//! The per-sample table of a task run: one row per sample, one column group
//! per model with the call's status, each parsed field with its parse status
//! (parsed / coerced / clamped / defaulted and why), parse problems
//! highlighted, the metric values, and the error of a failed call. Rows are
//! compared by pointer, so a settled row does not re-render; a filter keeps
//! only the rows with a problem.

use super::summary::TaskRunProps;
use crate::state::task_results::{cell, row_has_problem, CellView, Labels};
use evalpage_core::task_run::SampleResult;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
struct RowProps {
    id: String,
    labels: Labels,
    cells: Vec<Option<Rc<SampleResult>>>,
}

impl PartialEq for RowProps {
    fn eq(&self, o: &Self) -> bool {
        self.id == o.id
            && Rc::ptr_eq(&self.labels, &o.labels)
            && self.cells.len() == o.cells.len()
            && self.cells.iter().zip(&o.cells).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            })
    }
}

#[component]
fn Row(p: &RowProps) -> Html {
    let class = if row_has_problem(&p.cells) {
        "problem"
    } else {
        ""
    };
    html! {
        <tr data-testid="sample-row" data-sample={p.id.clone()} {class}>
            <td class="sample-id">{&p.id}
                <ul class="labels">{ for p.labels.iter().map(|(f, v)| html!{
                    <li data-testid="sample-label"><span class="name">{f}</span>{": "}<code>{v}</code></li>
                }) }</ul>
            </td>
            { for p.cells.iter().map(|c| match c {
                Some(r) => cell_html(&cell(r)),
                None => html!{ <td class="sample-cell pending muted">{"…"}</td> },
            }) }
        </tr>
    }
}

/// One sample × model cell: status, parsed fields with their parse status,
/// parse problems, the answer, reasoning and metric values.
pub fn cell_html(c: &CellView) -> Html {
    let status_class = format!("status {}", c.status);
    html! {
        <td data-testid="sample-cell" class="sample-cell">
            <div class={status_class} data-testid="cell-status">{c.status}</div>
            if let Some(e) = &c.error { <div class="error" data-testid="cell-error">{e}</div> }
            if !c.fields.is_empty() {
                <ul class="fields">{ for c.fields.iter().map(|f| html!{
                    <li data-testid="parsed-field" data-status={f.status} class={format!("field {}", f.status)}
                        title={f.reason.clone().unwrap_or_default()}>
                        <span class="name">{&f.field}</span>{": "}<code>{&f.value}</code>
                        if f.status != "parsed" { <span class="why">{format!(" {}", f.status)}</span> }
                    </li>
                }) }</ul>
            }
            { for c.problems.iter().map(|x| html!{ <div class="parse-problem" data-testid="parse-problem">{x}</div> }) }
            if let Some(a) = &c.answer { <div class="answer clip" tabindex="0">{a}</div> }
            if c.truncated { <div class="bad" data-testid="cell-truncated">{"truncated (max_tokens)"}</div> }
            if let Some(r) = &c.reasoning {
                <details class="reasoning" data-testid="cell-reasoning"><summary>{"reasoning"}</summary><div class="clip" tabindex="0">{r}</div></details>
            }
            <div class="metrics-line">{ for c.metrics.iter().map(|(name, v)| {
                let (class, text) = match v {
                    Some(v) if *v >= 1.0 => ("mv hit", format!("{v:.2}")),
                    Some(v) => ("mv miss", format!("{v:.2}")),
                    None => ("mv skipped", "—".to_string()),
                };
                html!{ <span {class} data-testid="cell-metric" data-metric={name.clone()}>{format!("{name} {text}")}</span> }
            }) }</div>
        </td>
    }
}

/// The table.
#[component]
pub fn TaskSampleTable(p: &TaskRunProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let only_problems = use_state(|| false);
    let Some(run) = &p.run else { return html! {} };
    let toggle = {
        let s = only_problems.clone();
        Callback::from(move |_: Event| s.set(!*s))
    };
    let rows: Vec<(usize, Vec<Option<Rc<SampleResult>>>)> = (0..run.data.samples.len())
        .map(|i| {
            let cells: Vec<Option<Rc<SampleResult>>> = run
                .results
                .iter()
                .map(|m| m.get(i).cloned().flatten())
                .collect();
            (i, cells)
        })
        .filter(|(_, cells)| !*only_problems || row_has_problem(cells))
        .collect();
    html! {
        <section class="panel">
            <h2>{t("逐样本结果", "Per-sample results")}</h2>
            <label class="check"><input type="checkbox" data-testid="only-problems" checked={*only_problems} onchange={toggle} />
                {t("只显示有问题的样本（调用失败、解析问题或指标低于 1）", "Only samples with a problem (failed call, parse problem, or a metric below 1)")}</label>
            <div class="sample-scroll" tabindex="0" role="region" aria-label={t("逐样本结果表", "Per-sample results table")}>
                <table class="cases samples" data-testid="task-samples">
                    <thead><tr><th>{t("样本 · 标签", "Sample · labels")}</th>
                        { for run.models.iter().map(|m| html!{ <th>{m}</th> }) }</tr></thead>
                    <tbody>
                        { for rows.into_iter().map(|(i, cells)| {
                            let id = run.data.samples[i].sample.id.clone();
                            let labels = run.labels.get(i).cloned().unwrap_or_default();
                            html!{ <Row key={i} {id} {labels} {cells} /> }
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
