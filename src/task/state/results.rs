//! What the result tables show, computed from the settled results: one
//! summary column per model (answered, failed, parse problems, each metric's
//! mean and components), and per sample × model the parsed fields with their
//! status, the parse problems and the metric values. Aggregates come from the
//! task's own metrics, so the page shows what `report.json` will say.

use evalpage_core::task::{aggregate, parse_problems, SampleResult, Task};
use evalpage_core::truncate_chars;
use evalpage_core::Aggregate;
use evalpage_core::ParseStatus;
use evalpage_core::Sample;
use std::rc::Rc;

/// Results by model, then by sample (`None` while unsettled).
pub type ResultGrid = Vec<Vec<Option<Rc<SampleResult>>>>;

/// A sample's labels as shown: `(field, compact JSON)`.
pub type Labels = Rc<Vec<(String, String)>>;

/// One model's column of the summary table.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelColumn {
    /// Model name.
    pub model: String,
    /// Samples settled so far.
    pub settled: usize,
    /// Answered calls.
    pub answered: usize,
    /// Failed calls (after retries), prompt errors and cancelled calls.
    pub failed: usize,
    /// Answered with a parse problem.
    pub parse_problems: usize,
    /// Each task metric's aggregate over the settled samples, in task order.
    pub metrics: Vec<(String, Aggregate)>,
}

/// The summary columns, one per model.
pub fn summarize(task: &Task, models: &[String], grid: &ResultGrid) -> Vec<ModelColumn> {
    models
        .iter()
        .zip(grid)
        .map(|(model, results)| {
            let settled: Vec<&SampleResult> = results.iter().flatten().map(Rc::as_ref).collect();
            let metrics = aggregate(task, settled.iter().copied());
            ModelColumn {
                model: model.clone(),
                settled: settled.len(),
                answered: settled.iter().filter(|r| r.status.answered()).count(),
                failed: settled.iter().filter(|r| !r.status.answered()).count(),
                parse_problems: settled.iter().filter(|r| r.has_parse_problem()).count(),
                metrics,
            }
        })
        .collect()
}

/// Every component name of a metric across the models, sorted.
pub fn component_names(columns: &[ModelColumn], metric: usize) -> Vec<String> {
    let mut names: Vec<String> = columns
        .iter()
        .filter_map(|c| c.metrics.get(metric))
        .flat_map(|(_, a)| a.components.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// One parsed field as shown in a cell.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldView {
    /// Field name.
    pub field: String,
    /// The value metrics saw, as compact JSON.
    pub value: String,
    /// `parsed`, `coerced`, `clamped` or `defaulted`.
    pub status: &'static str,
    /// Why, for every status but `parsed`.
    pub reason: Option<String>,
}

/// One sample × model cell.
#[derive(Clone, Debug, PartialEq)]
pub struct CellView {
    /// `ok`, `failed` or `no_response`.
    pub status: &'static str,
    /// The parsed fields.
    pub fields: Vec<FieldView>,
    /// `field: status (reason)` lines and the JSON extraction error.
    pub problems: Vec<String>,
    /// Metric name and value (`None` when skipped).
    pub metrics: Vec<(String, Option<f64>)>,
    /// The error of a failed call, with its attempts.
    pub error: Option<String>,
    /// The raw answer, for free-text tasks and for answers with no JSON.
    pub answer: Option<String>,
    /// The model's reasoning, kept apart from the answer (shown collapsed).
    pub reasoning: Option<String>,
    /// The answer was cut off at `max_tokens`.
    pub truncated: bool,
    /// The function calls the answer made: name and arguments
    /// (pretty-printed when they are JSON, as sent when not).
    pub calls: Vec<(String, String)>,
    /// Why a metric failed, when it says (a tool call's error type and
    /// message: `metric: type: message`; a trajectory's unmatched calls:
    /// `metric: problem`).
    pub why: Vec<String>,
    /// An agent's trajectory, step by step (a run's agent case, or a saved
    /// conversation); its calls are then shown there, not in `calls`.
    pub steps: Vec<evalpage_core::ShownStep>,
    /// The agent case ended at its step limit.
    pub step_limit: bool,
}

/// The cell of one settled result.
pub fn cell(r: &SampleResult) -> CellView {
    let status = r.status.code();
    let fields = r
        .parsed
        .fields
        .iter()
        .map(|f| FieldView {
            field: f.field.clone(),
            value: serde_json::to_string(&f.value).unwrap_or_default(),
            status: status_name(f.status),
            reason: f.reason.clone(),
        })
        .collect();
    let ok = r.status.answered();
    let error = r.error.as_ref().map(|e| {
        let attempts = r.attempts.unwrap_or(0);
        format!("{} ({attempts} attempt(s))", e.cause)
    });
    let show_answer = ok
        && (r.parsed.fields.is_empty() || r.parsed.json_error.is_some())
        && !(r.parsed.calls.is_some()
            && r.raw_answer.as_deref().is_some_and(|a| a.trim().is_empty()));
    let (steps, step_limit) = match &r.parsed.trajectory {
        Some(t) => evalpage_core::shown_steps(t, r.agent.as_deref()),
        None => (Vec::new(), false),
    };
    let calls = r
        .parsed
        .calls
        .iter()
        .filter(|_| steps.is_empty())
        .flatten()
        .map(|c| (c.name.clone(), c.arguments_pretty()))
        .collect();
    let why = r
        .scores
        .iter()
        .flat_map(|(name, s)| {
            let error = s
                .detail
                .get("error_type")
                .and_then(|t| t.as_str())
                .map(|t| {
                    let message = s
                        .detail
                        .get("errors")
                        .and_then(|e| e.get(0))
                        .and_then(|e| e.as_str())
                        .unwrap_or("");
                    format!("{name}: {t}: {message}")
                });
            // a trajectory's unmatched calls (`trajectory_match`)
            let problems = s
                .detail
                .get("problems")
                .and_then(|p| p.as_array())
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_str())
                .map(move |p| format!("{name}: {p}"));
            error.into_iter().chain(problems)
        })
        .collect();
    CellView {
        status,
        fields,
        problems: if ok { parse_problems(r) } else { Vec::new() },
        metrics: r
            .scores
            .iter()
            .map(|(name, s)| (name.clone(), s.value))
            .collect(),
        error,
        answer: show_answer.then(|| r.raw_answer.clone()).flatten(),
        reasoning: r.reasoning.clone(),
        truncated: r.truncated(),
        calls,
        why,
        steps,
        step_limit,
    }
}

fn status_name(s: ParseStatus) -> &'static str {
    match s {
        ParseStatus::Parsed => "parsed",
        ParseStatus::Coerced => "coerced",
        ParseStatus::Clamped => "clamped",
        ParseStatus::Defaulted => "defaulted",
    }
}

/// The labels a sample's metrics compare with, as `(field, compact JSON)`,
/// each cut at 80 characters; in task order, each field once.
pub fn labels(task: &Task, sample: &Sample) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for field in task.raw.metrics.iter().filter_map(|m| m.label_field()) {
        if out.iter().any(|(f, _)| f == field) {
            continue;
        }
        let shown = sample.get(field).map_or("—".to_string(), |v| {
            truncate_chars(&serde_json::to_string(v).unwrap_or_default(), 80)
        });
        out.push((field.to_string(), shown));
    }
    out
}

/// True when a row deserves a look: a failed call, a parse problem, or a
/// metric below 1 for any model.
pub fn row_has_problem(cells: &[Option<Rc<SampleResult>>]) -> bool {
    cells.iter().flatten().any(|r| {
        !r.status.answered()
            || r.has_parse_problem()
            || r.scores
                .iter()
                .any(|(_, s)| s.value.is_some_and(|v| v < 1.0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::task::{aggregate, load_dataset as load, preset, score_call, DatasetFormat};
    use evalpage_core::{CallError, ErrorKind};

    fn grid() -> (Task, ResultGrid) {
        let task = preset("event_eval").expect("preset");
        let text = concat!(
            "{\"sample_id\":\"S1\",\"news_items\":[],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"ai\"]}\n",
            "{\"sample_id\":\"S2\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[\"x\"]}\n",
        );
        let data = load("d.jsonl", text.as_bytes(), DatasetFormat::Samples, None);
        let right = Ok(evalpage_core::Answer::from(
            r#"{"sentiment":"positive","impact_score":9,"keywords":["ai"]}"#,
        ));
        let failed = Err(CallError::new(ErrorKind::Http, "HTTP 500"));
        let a = score_call(&task, &data.samples[0], 0, &right, 1, 5);
        let b = score_call(&task, &data.samples[1], 1, &failed, 3, 9);
        let grid = vec![vec![Some(Rc::new(a)), None], vec![None, Some(Rc::new(b))]];
        (task, grid)
    }

    #[test]
    fn columns_count_settled_results_per_model() {
        let (task, grid) = grid();
        let cols = summarize(&task, &["m1".into(), "m2".into()], &grid);
        assert_eq!(
            (
                cols[0].settled,
                cols[0].answered,
                cols[0].failed,
                cols[0].parse_problems
            ),
            (1, 1, 0, 1)
        );
        assert_eq!((cols[1].answered, cols[1].failed), (0, 1));
        assert_eq!(cols[0].metrics[0].0, "sentiment_acc");
        assert_eq!(cols[0].metrics[0].1.mean, 1.0);
        let impact = component_names(&cols, 1);
        assert!(impact.contains(&"mae".to_string()), "{impact:?}");
    }

    #[test]
    fn columns_aggregate_as_the_report_does() {
        let (task, grid) = grid();
        let cols = summarize(&task, &["m1".into(), "m2".into()], &grid);
        for (col, results) in cols.iter().zip(&grid) {
            let owned: Vec<SampleResult> =
                results.iter().flatten().map(|r| (**r).clone()).collect();
            assert_eq!(col.metrics, aggregate(&task, &owned));
        }
    }

    #[test]
    fn a_trajectory_that_does_not_match_says_why_in_its_cell() {
        let task = Task::parse(
            "t.yaml",
            "name: t\nversion: v1\nprompt_template: support_qa\nmetrics:\n  - type: trajectory_match\n    mode: superset\n",
        )
        .expect("task");
        let text = r#"{"sample_id":"S1","question":"q","expected_trajectory":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"w","arguments":"{\"city\":\"Oslo\"}"}}]}]}"#;
        let data = load("d.jsonl", text.as_bytes(), DatasetFormat::Samples, None);
        let mut answer = evalpage_core::Answer::from("");
        answer.calls = Some(vec![evalpage_core::Call::new("w", r#"{"city":"Paris"}"#)]);
        let r = score_call(&task, &data.samples[0], 0, &Ok(answer), 1, 5);
        let c = cell(&r);
        assert_eq!(
            c.why,
            [r#"trajectory_match: expected call w({"city":"Oslo"}) not matched"#]
        );
        assert_eq!(c.calls[0].0, "w");
    }

    #[test]
    fn cells_show_status_reasons_and_errors() {
        let (_, grid) = grid();
        let Some(a) = &grid[0][0] else {
            panic!("settled")
        };
        let c = cell(a);
        assert_eq!(c.status, "ok");
        let impact = &c.fields[1];
        assert_eq!((impact.value.as_str(), impact.status), ("5", "clamped"));
        assert!(impact.reason.is_some());
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(c.problems[0].starts_with("impact_score: clamped"));
        assert_eq!(c.answer, None);
        let Some(b) = &grid[1][1] else {
            panic!("settled")
        };
        let c = cell(b);
        assert_eq!(c.status, "failed");
        assert_eq!(c.error.as_deref(), Some("HTTP 500 (3 attempt(s))"));
        assert!(c.fields.iter().all(|f| f.status == "defaulted"));
        assert!(c.problems.is_empty());
        assert!(row_has_problem(&[grid[0][0].clone(), grid[1][0].clone()]));
    }

    #[test]
    fn labels_follow_the_metrics() {
        let (task, _) = grid();
        let Ok(serde_json::Value::Object(fields)) =
            serde_json::from_str(r#"{"gt_sentiment":"positive","gt_keywords":["ai"]}"#)
        else {
            panic!("object")
        };
        let shown = labels(&task, &Sample::new("s", fields));
        assert_eq!(
            shown,
            vec![
                ("gt_sentiment".to_string(), "\"positive\"".to_string()),
                ("gt_impact_score".to_string(), "—".to_string()),
                ("gt_keywords".to_string(), "[\"ai\"]".to_string()),
            ]
        );
    }
}
