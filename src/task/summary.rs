//! The side-by-side summary of a task run: one column per model; rows for
//! samples settled, answered, failed and parse problems, then each metric's
//! mean (± std, n) and its components (MAE, hit rate, precision, ...).

use crate::task::state::results::{component_names, summarize, ModelColumn};
use crate::task::state::TaskSnapshot;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Props of the task result views (summary and sample table). The snapshot is
/// compared by pointer: the runner sends a new one with every update, and
/// edits elsewhere keep the same one.
#[derive(Properties)]
pub struct TaskRunProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<TaskSnapshot>>,
}

impl PartialEq for TaskRunProps {
    fn eq(&self, o: &Self) -> bool {
        self.lang == o.lang
            && match (&self.run, &o.run) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// The summary table.
#[component]
pub fn TaskSummary(p: &TaskRunProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let Some(run) = &p.run else { return html! {} };
    let cols = summarize(&run.task.task, &run.models, &run.results);
    let total = run.data.samples.len() * run.repeats.max(1) as usize;
    let count_row = |testid: &'static str, label: &'static str, f: fn(&ModelColumn) -> usize| {
        html! {
            <tr data-testid={testid}><th>{label}</th>
                { for cols.iter().map(|c| html!{ <td data-model={c.model.clone()}>{f(c)}</td> }) }</tr>
        }
    };
    let metric_rows = run.task.task.metrics.iter().enumerate().map(|(k, m)| {
        let comps = component_names(&cols, k);
        html! {
            <>
            <tr data-testid="summary-metric" data-metric={m.name.clone()} class="metric-row">
                <th>{&m.name}<span class="muted">{format!(" {}", m.kind)}</span></th>
                { for cols.iter().map(|c| mean_cell(c, k)) }
            </tr>
            { for comps.iter().map(|name| html!{
                <tr class="component-row"><th>{format!("· {name}")}</th>
                    { for cols.iter().map(|c| {
                        let v = c.metrics.get(k).and_then(|(_, a)| a.components.get(name));
                        html!{ <td data-model={c.model.clone()}>{v.map_or("—".to_string(), |v| format!("{v:.3}"))}</td> }
                    }) }</tr>
            }) }
            </>
        }
    });
    html! {
        <section class="panel">
            <h2>{t("模型对比", "Models side by side")}</h2>
            <table class="cases summary" data-testid="task-summary">
                <thead><tr><th><span class="visually-hidden">{t("项目", "Row")}</span></th>
                    { for cols.iter().map(|c| html!{ <th data-testid="summary-model">{&c.model}</th> }) }
                </tr></thead>
                <tbody>
                    <tr><th>{t("已完成 / 样本", "Settled / samples")}</th>
                        { for cols.iter().map(|c| html!{ <td>{format!("{}/{total}", c.settled)}</td> }) }</tr>
                    {count_row("summary-answered", t("已回答", "Answered"), |c| c.answered)}
                    {count_row("summary-failed", t("调用失败", "Failed calls"), |c| c.failed)}
                    {count_row("summary-parse-problems", t("解析问题", "Parse problems"), |c| c.parse_problems)}
                    { for metric_rows }
                </tbody>
            </table>
        </section>
    }
}

fn mean_cell(c: &ModelColumn, k: usize) -> Html {
    let Some((_, a)) = c.metrics.get(k) else {
        return html! { <td>{"—"}</td> };
    };
    if a.sample_count == 0 {
        return html! { <td data-model={c.model.clone()}>{"—"}</td> };
    }
    let skipped = if a.skipped > 0 {
        format!(", {} skipped", a.skipped)
    } else {
        String::new()
    };
    html! {
        <td data-model={c.model.clone()}><strong>{format!("{:.3}", a.mean)}</strong>
            <span class="muted">{format!(" ± {:.3} (n={}{skipped})", a.std, a.sample_count)}</span></td>
    }
}
