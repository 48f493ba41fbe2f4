//! A spec 001 dialog evaluation opened in the viewer from its files (the
//! page's zip, the CLI's folder, or some of the files): one table row per
//! dialog (its status, its own M1–M5 values as the event log's `case` record
//! gives them, its last answer, time and attempts from its trace line), and
//! the dialog mode's views: the `metrics_summary.json` table and each
//! dialog's conversation with its turns' verdicts.

use super::look::{DialogEntry, DialogLook, Look};
use super::{haystack, summaries_of, Detail, ViewData, ViewRow};
use crate::dialog::artifacts::ReadBack;
use crate::dialog::kind::dialog_metrics;
use crate::dialog::summary::{summarize, METRICS};
use crate::dialog::trace::Counters;
use crate::dialog::{DialogTrace, TurnEval, TurnStatus};
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

fn code<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The dialogs of the files: each trace line with its rows, in trace order,
/// then rows of dialogs the trace does not have (or every dialog's rows, in
/// first-seen order, without a trace).
fn entries(traces: Vec<DialogTrace>, rows: Vec<TurnEval>) -> Vec<DialogEntry> {
    let mut out: Vec<DialogEntry> = traces
        .into_iter()
        .map(|t| DialogEntry {
            trace: Some(t),
            rows: Vec::new(),
        })
        .collect();
    let mut at: HashMap<String, usize> = out
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.trace.as_ref().map(|t| (t.dialog_id.clone(), i)))
        .collect();
    for r in rows {
        let i = match at.get(&r.dialog_id) {
            Some(&i) => i,
            None => {
                at.insert(r.dialog_id.clone(), out.len());
                out.push(DialogEntry {
                    trace: None,
                    rows: Vec::new(),
                });
                out.len() - 1
            }
        };
        out[i].rows.push(r);
    }
    out
}

/// The metric columns of dialogs with these `turn_eval` rows: the M1–M5
/// metrics any of them has a value or a `None` for in its `case` record
/// ([`dialog_metrics`]: M1–M4 for a dialog with rows, the judged ones too
/// when a row was judged), in [`METRICS`] order.
pub fn dialog_columns<'a>(dialogs: impl IntoIterator<Item = &'a [TurnEval]>) -> Vec<String> {
    let (mut scored, mut judged) = (false, false);
    for rows in dialogs {
        scored |= !rows.is_empty();
        judged |= rows.iter().any(|r| !r.judgements.is_empty());
        if judged {
            break;
        }
    }
    const JUDGED: [&str; 3] = [
        "m3_risk_disclosure_judge",
        "m4_compliance_judge",
        "m5_explainability",
    ];
    METRICS
        .iter()
        .filter(|m| scored && (judged || !JUDGED.contains(m)))
        .map(|m| m.to_string())
        .collect()
}

/// A dialog's table row (the dialog mode's live table and the viewer's):
/// its status, its own values of `metrics` ([`dialog_metrics`]), its last
/// answer, the first user message, and the time and attempts of its trace
/// line.
pub fn dialog_row(trace: Option<&DialogTrace>, rows: &[TurnEval], metrics: &[String]) -> ViewRow {
    let values: HashMap<String, Option<f64>> = if rows.is_empty() {
        HashMap::new()
    } else {
        dialog_metrics(rows).into_iter().collect()
    };
    let id = trace
        .map(|t| t.dialog_id.clone())
        .or_else(|| rows.first().map(|r| r.dialog_id.clone()))
        .unwrap_or_default();
    let t = trace;
    let number = |k: &str| t.and_then(|t| t.extra.get(k)).and_then(Value::as_u64);
    let answer = t.and_then(|t| {
        t.turns
            .iter()
            .rev()
            .find_map(|x| x.pred_assistant_text.clone())
    });
    let input = t.and_then(|t| t.turns.first().map(|x| x.user_text.clone()));
    let status = match t {
        Some(t) => code(&t.dialog_status),
        None if rows.iter().any(|r| r.turn_status.is_none()) => "unknown".into(),
        None if rows.iter().all(|r| r.turn_status == Some(TurnStatus::Ok)) => "ok".into(),
        None => "partial".into(),
    };
    let error = t.and_then(|t| t.dialog_error.clone().or_else(|| t.skip_reason.clone()));
    // Scenario and difficulty, as tags to filter by.
    let tags: Vec<String> = t
        .map(|t| [t.scenario_type.clone(), t.difficulty.clone()])
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    ViewRow {
        haystack: haystack(
            &id,
            None,
            &tags,
            answer.as_deref(),
            error.as_deref(),
            input.as_deref(),
        ),
        values: metrics
            .iter()
            .map(|m| values.get(m).copied().flatten())
            .collect(),
        details: vec![Detail::None; metrics.len()],
        tags,
        language: None,
        length: None,
        status,
        error,
        latency_ms: number("elapsed_ms").map(|ms| ms as f64),
        attempts: number("attempts").map(|a| a.min(u32::MAX as u64) as u32),
        answer,
        input,
        id,
        model: None,
    }
}

/// The viewer's table and the dialog mode's views of a dialog evaluation's
/// files, read back (`dialog::artifacts::read_back`). `label` names what was
/// opened (a zip, a folder's files).
pub fn view(label: &str, read: ReadBack) -> ViewData {
    let ReadBack {
        manifest,
        traces,
        rows,
        summary,
        errors,
    } = read;
    let computed = summary.is_none() && !rows.is_empty();
    let summary = summary.or_else(|| {
        computed.then(|| {
            let run_id = rows.first().map(|r| r.run_id.clone()).unwrap_or_default();
            let model = manifest
                .as_ref()
                .map_or_else(String::new, |m| m.model_name.clone());
            summarize(&run_id, &model, Counters::of(&traces, 0), &rows)
        })
    });
    let dialogs = entries(traces, rows);
    let metrics = dialog_columns(dialogs.iter().map(|e| e.rows.as_slice()));
    let table: Vec<ViewRow> = dialogs
        .iter()
        .map(|e| dialog_row(e.trace.as_ref(), &e.rows, &metrics))
        .collect();
    let mut notes: Vec<String> = errors
        .iter()
        .take(20)
        .map(|e| format!("{e} (skipped)"))
        .collect();
    if errors.len() > 20 {
        notes.push(format!(
            "{} more unreadable lines skipped",
            errors.len() - 20
        ));
    }
    if computed {
        notes.push(
            "metrics_summary.json was not given: the summary is computed from turn_eval.jsonl (without the judge's calls)".into(),
        );
    }
    if dialogs.iter().any(|d| d.trace.is_none()) {
        notes.push("dialog_trace.jsonl was not given for every dialog: their conversations cannot be shown".into());
    }
    let run_id = summary
        .as_ref()
        .map(|s| s.run_id.clone())
        .or_else(|| manifest.as_ref().map(|m| m.run_id.clone()));
    let mut data = ViewData {
        source: label.to_string(),
        kind: "dialog".into(),
        dataset: manifest
            .as_ref()
            .map(|m| m.dataset_path.clone())
            .unwrap_or_default(),
        run_id,
        metrics,
        rows: table,
        summaries: Vec::new(),
        breakdowns: Vec::new(),
        notes,
        text: Rc::from(""),
        devices: Vec::new(),
        look: Look::Dialog(Rc::new(DialogLook {
            summary,
            summary_computed: computed,
            manifest,
            dialogs,
        })),
    };
    data.summaries = summaries_of(&data);
    data
}
