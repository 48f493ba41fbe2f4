//! The per-sample table of a task run, on the page's one virtual table
//! (`components::virtual_table`): only the samples in view are in the DOM,
//! one row of fixed height per sample with its labels and one cell per model
//! (the call's status, the metric values, each parsed field with its parse
//! status, parse problems highlighted, the error of a failed call), clipped
//! to two lines. A row (click or Enter) opens the sample below the table as
//! a whole row: every model's whole cell (`cell_html`, which the viewer's
//! drill-down of a task run shows too), with the answer and its reasoning. Rows are compared by pointer, so a settled row does not
//! re-render; a filter keeps only the rows with a problem.

use super::summary::TaskRunProps;
use crate::components::virtual_table::{Geometry, VirtualTable};
use crate::task::state::results::{cell, row_has_problem, CellView, Labels};
use crate::task::state::TaskSnapshot;
use evalpage_core::task::SampleResult;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Row height (two lines of text, see `table.live` in the CSS) and view height, px.
pub const GEOMETRY: Geometry = Geometry {
    row_height: 52,
    view_height: 624,
};

type Cells = Vec<Option<Rc<SampleResult>>>;

#[derive(Properties)]
struct RowProps {
    index: usize,
    id: String,
    labels: Labels,
    cells: Cells,
    selected: bool,
}

impl PartialEq for RowProps {
    fn eq(&self, o: &Self) -> bool {
        self.index == o.index
            && self.id == o.id
            && self.selected == o.selected
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
    let class = classes!(
        row_has_problem(&p.cells).then_some("problem"),
        p.selected.then_some("selected")
    );
    html! {
        <tr data-testid="sample-row" data-sample={p.id.clone()} data-row={p.index.to_string()} {class} tabindex="0">
            <td class="sample-id"><div class="clip2"><strong>{&p.id}</strong>{" "}
                <ul class="labels">{ for p.labels.iter().map(|(f, v)| html!{
                    <li data-testid="sample-label"><span class="name">{f}</span>{": "}<code>{v}</code></li>
                }) }</ul>
            </div></td>
            { for p.cells.iter().map(|c| match c {
                Some(r) => compact_cell(&cell(r)),
                None => html!{ <td class="sample-cell pending muted">{"…"}</td> },
            }) }
        </tr>
    }
}

fn metrics(c: &CellView) -> Html {
    html! { <>{ for c.metrics.iter().map(|(name, v)| {
        let (class, text) = match v {
            Some(v) if *v >= 1.0 => ("mv hit", format!("{v:.2}")),
            Some(v) => ("mv miss", format!("{v:.2}")),
            None => ("mv skipped", "—".to_string()),
        };
        html!{ <span {class} data-testid="cell-metric" data-metric={name.clone()}>{format!("{name} {text}")}</span> }
    }) }</> }
}

/// A cell as its row shows it: two lines, the rest in the drill-down.
fn compact_cell(c: &CellView) -> Html {
    html! {
        <td data-testid="sample-cell" class="sample-cell"><div class="clip2">
            <span class={format!("status {}", c.status)} data-testid="cell-status">{c.status}</span>{" "}
            if c.truncated { <span class="bad" data-testid="cell-truncated">{"truncated "}</span> }
            if let Some(e) = &c.error { <span class="error" data-testid="cell-error">{e}</span>{" "} }
            {metrics(c)}
            { for c.calls.iter().map(|(name, _)| html!{ <code class="call" data-testid="cell-call">{format!("{name}() ")}</code> }) }
            if !c.steps.is_empty() {
                <span class="muted" data-testid="cell-steps">{format!("{} steps, {} calls ", c.steps.len(), c.steps.iter().map(|s| s.calls.len()).sum::<usize>())}</span>
            }
            { fields(c) }
            { for c.problems.iter().map(|x| html!{ <span class="parse-problem" data-testid="parse-problem">{format!("{x} ")}</span> }) }
        </div></td>
    }
}

/// A cell's parsed fields, each with its parse status (and why, on hover).
fn fields(c: &CellView) -> Html {
    if c.fields.is_empty() {
        return html! {};
    }
    html! {
        <ul class="fields">{ for c.fields.iter().map(|f| html!{
            <li data-testid="parsed-field" data-status={f.status} class={format!("field {}", f.status)}
                title={f.reason.clone().unwrap_or_default()}>
                <span class="name">{&f.field}</span>{": "}<code>{&f.value}</code>
                if f.status != "parsed" { <span class="why">{format!(" {}", f.status)}</span> }
            </li>
        }) }</ul>
    }
}

/// One whole sample × model cell: status, parsed fields with their parse
/// status, parse problems, the answer, reasoning and metric values.
pub fn cell_html(c: &CellView) -> Html {
    let status_class = format!("status {}", c.status);
    html! {
        <td data-testid="sample-cell" class="sample-cell">
            <div class={status_class} data-testid="cell-status">{c.status}</div>
            if let Some(e) = &c.error { <div class="error" data-testid="cell-error">{e}</div> }
            { fields(c) }
            { for c.problems.iter().map(|x| html!{ <div class="parse-problem" data-testid="parse-problem">{x}</div> }) }
            if let Some(a) = &c.answer { <div class="answer clip" tabindex="0">{a}</div> }
            if !c.calls.is_empty() {
                <ol class="calls" data-testid="cell-calls">{ for c.calls.iter().map(|(name, args)| html!{
                    <li data-testid="cell-call"><code class="name">{name}</code><pre class="args">{args}</pre></li>
                }) }</ol>
            }
            if !c.steps.is_empty() { { trajectory_html(&c.steps, c.step_limit) } }
            { for c.why.iter().map(|w| html!{ <div class="error" data-testid="cell-why">{w}</div> }) }
            if c.truncated { <div class="bad" data-testid="cell-truncated">{"truncated (max_tokens)"}</div> }
            if let Some(r) = &c.reasoning {
                <details class="reasoning" data-testid="cell-reasoning"><summary>{"reasoning"}</summary><div class="clip" tabindex="0">{r}</div></details>
            }
            <div class="metrics-line">{metrics(c)}</div>
        </td>
    }
}

/// Characters of a tool's answer shown before it is folded.
const FOLD_CHARS: usize = 160;

/// An agent's trajectory, step by step: the model's text, each call with its
/// arguments and what the tool answered (folded when long), faults and wrong
/// calls marked, calls left unexecuted at the step limit said.
/// Also the viewer's, for a saved or imported run's trajectory.
pub fn trajectory_html(steps: &[evalpage_core::ShownStep], step_limit: bool) -> Html {
    let last = steps.len().saturating_sub(1);
    html! {
        <ol class="trajectory" data-testid="cell-trajectory">{ for steps.iter().enumerate().map(|(i, s)| html!{
            <li data-testid="trajectory-step">
                <span class="muted">{format!("step {} ", i + 1)}</span>
                if !s.text.trim().is_empty() { <div class="answer clip" tabindex="0" data-testid="step-text">{&s.text}</div> }
                <ul class="calls">{ for s.calls.iter().map(|k| html!{
                    <li data-testid="step-call" class={if k.is_error { "error-result" } else { "" }}>
                        <code class="name">{&k.name}</code>
                        if let Some(f) = k.fault { {" "}<span class="bad" data-testid="step-fault">{format!("fault: {f}")}</span> }
                        if let Some(p) = &k.problem { {" "}<span class="bad" data-testid="step-problem">{p}</span> }
                        if let Some(ms) = k.latency_ms { {" "}<span class="muted" data-testid="step-latency">{format!("{ms} ms")}</span> }
                        <pre class="args">{&k.arguments}</pre>
                        { match &k.result {
                            Some(r) if r.chars().count() > FOLD_CHARS => html!{
                                <details data-testid="step-result"><summary>{format!("→ {}", evalpage_core::truncate_chars(r, FOLD_CHARS))}</summary><pre>{r}</pre></details>
                            },
                            Some(r) => html!{ <pre data-testid="step-result">{format!("→ {r}")}</pre> },
                            None if step_limit && i == last => html!{ <div class="bad" data-testid="step-unexecuted">{"not executed: the step limit was reached"}</div> },
                            None => html!{},
                        } }
                    </li>
                }) }</ul>
            </li>
        }) }</ol>
    }
}

/// The results of every model on sample `i`, in model order.
fn cells_of(run: &TaskSnapshot, i: usize) -> Cells {
    run.results
        .iter()
        .map(|m| m.get(i).cloned().flatten())
        .collect()
}

/// The table and the drill-down of the sample opened.
#[component]
pub fn TaskSampleTable(p: &TaskRunProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let only_problems = use_state(|| false);
    let selected = use_state_eq(|| None::<u32>);
    {
        // Another run (a new start, a resume) closes the drill-down.
        let selected = selected.clone();
        let run_of = p.run.as_ref().map(|r| Rc::as_ptr(&r.data) as usize);
        use_effect_with(run_of, move |_| selected.set(None));
    }
    let Some(run) = &p.run else { return html! {} };
    let toggle = {
        let s = only_problems.clone();
        Callback::from(move |_: Event| s.set(!*s))
    };
    // The answers shown (a sample's repeats after it), in dataset order.
    let per = run.repeats.max(1) as usize;
    let shown: Rc<Vec<u32>> = Rc::new(
        (0..run.data.samples.len() * per)
            .filter(|&i| !*only_problems || row_has_problem(&cells_of(run, i)))
            .map(|i| i as u32)
            .collect(),
    );
    let row = {
        let (run, shown, open) = (run.clone(), shown.clone(), *selected);
        Callback::from(move |k: u32| {
            let Some(&i) = shown.get(k as usize) else {
                return html! {};
            };
            let Some((id, labels)) = answer_of(&run, i as usize) else {
                return html! {};
            };
            let cells = cells_of(&run, i as usize);
            html! { <Row key={i} index={i as usize} {id} {labels} {cells} selected={open == Some(i)} /> }
        })
    };
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |i: Option<u32>| selected.set(i))
    };
    let close = {
        let selected = selected.clone();
        Callback::from(move |_: MouseEvent| selected.set(None))
    };
    let head = html! {
        <tr><th>{t("样本 · 标签", "Sample · labels")}</th>
            { for run.models.iter().map(|m| html!{ <th>{m}</th> }) }</tr>
    };
    html! {
        <section class="panel">
            <h2>{t("逐样本结果", "Per-sample results")}</h2>
            <label class="check"><input type="checkbox" data-testid="only-problems" checked={*only_problems} onchange={toggle} />
                {t("只显示有问题的样本（调用失败、解析问题或指标低于 1）", "Only samples with a problem (failed call, parse problem, or a metric below 1)")}</label>
            <VirtualTable label={t("逐样本结果表", "Per-sample results table")} testid="task-samples" class="live samples"
                geometry={GEOMETRY} total={shown.len() as u32} cols={1 + run.models.len() as u32} {head} {row}
                selected={*selected} {on_select} />
            { selected.and_then(|i| detail(p.lang, run, i as usize, close)).unwrap_or_default() }
        </section>
    }
}

/// Answer `i`'s id and its sample's labels: the sample id, and `#r` for a
/// repeat (as in results.jsonl's `trace_id` and the viewer).
fn answer_of(run: &TaskSnapshot, i: usize) -> Option<(String, Labels)> {
    let per = run.repeats.max(1) as usize;
    let sample = run.data.samples.get(i / per)?;
    let repeat = (per > 1).then(|| serde_json::Value::from(i % per));
    let id = evalpage_core::view::answer_id(&sample.sample.id, repeat.as_ref());
    Some((id, run.labels.get(i / per).cloned().unwrap_or_default()))
}

/// The drill-down of answer `i` (a sample, or one repeat of it): its whole row.
fn detail(lang: Lang, run: &TaskSnapshot, i: usize, close: Callback<MouseEvent>) -> Option<Html> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let (id, labels) = answer_of(run, i)?;
    Some(html! {
        <section class="case-detail" data-testid="sample-detail" aria-label={t("样本详情", "Sample detail")}>
            <h3>{id}<button class="link" onclick={close}>{t("关闭", "Close")}</button></h3>
            if !labels.is_empty() {
                <p class="muted">{ labels.iter().map(|(f, v)| format!("{f}: {v}")).collect::<Vec<_>>().join(" · ") }</p>
            }
            <div class="sample-scroll">
                <table class="cases samples">
                    <thead><tr>{ for run.models.iter().map(|m| html!{ <th>{m}</th> }) }</tr></thead>
                    <tbody><tr>{ for cells_of(run, i).iter().map(|c| match c {
                        Some(r) => cell_html(&cell(r)),
                        None => html!{ <td class="sample-cell pending muted">{"…"}</td> },
                    }) }</tr></tbody>
                </table>
            </div>
        </section>
    })
}
