//! Spec 001 §2: the five files of a dialog evaluation, rendered as text
//! (`run_manifest.json`, `dialog_trace.jsonl`, `turn_eval.jsonl`,
//! `metrics_summary.json`, `progress_{run_id}.jsonl`); the shells write them.
//!
//! Decisions where the spec is silent:
//! - All five go into one output directory (the spec's `eval/runs/{run_id}/`
//!   and `eval/logs/` are the caller's choice of directory).
//! - A progress line is `{trace_version, run_id, ts, event, done, total}`
//!   plus the dialog's `dialog_id`, `dataset_index`, `dialog_status` and
//!   turn counts; events `run_started`, `dialog_skipped`, `dialog_finished`,
//!   `run_finished`. `ts` is ISO 8601 UTC with milliseconds.

use super::score::TurnEval;
use super::summary::MetricsSummary;
use super::trace::{DialogTrace, RunManifest, TRACE_VERSION};
use super::vocab::{DialogStatus, TurnStatus};
use crate::timefmt::rfc3339_ms;
use serde::{Deserialize, Serialize};

/// One line of `progress_{run_id}.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgressEvent {
    /// `v1`.
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// ISO 8601 UTC.
    pub ts: String,
    /// `run_started`, `dialog_skipped`, `dialog_finished` or `run_finished`.
    pub event: String,
    /// Dialogs settled so far (skipped ones included).
    pub done: usize,
    /// Dialogs in the dataset.
    pub total: usize,
    /// The dialog, for dialog events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_id: Option<String>,
    /// Its position in the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_index: Option<usize>,
    /// Its status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_status: Option<DialogStatus>,
    /// Its answered turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_ok: Option<usize>,
    /// Its turn pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_total: Option<usize>,
}

impl ProgressEvent {
    /// A run-level event.
    pub fn run(run_id: &str, event: &str, done: usize, total: usize, now_ms: u64) -> ProgressEvent {
        ProgressEvent {
            trace_version: TRACE_VERSION.into(),
            run_id: run_id.into(),
            ts: rfc3339_ms(now_ms),
            event: event.into(),
            done,
            total,
            dialog_id: None,
            dataset_index: None,
            dialog_status: None,
            turns_ok: None,
            turns_total: None,
        }
    }

    /// A dialog event (`dialog_skipped` or `dialog_finished`).
    pub fn dialog(t: &DialogTrace, done: usize, total: usize, now_ms: u64) -> ProgressEvent {
        let event = if t.valid_dialog {
            "dialog_finished"
        } else {
            "dialog_skipped"
        };
        ProgressEvent {
            dialog_id: Some(t.dialog_id.clone()),
            dataset_index: Some(t.dataset_index),
            dialog_status: Some(t.dialog_status),
            turns_ok: Some(
                t.turns
                    .iter()
                    .filter(|x| x.turn_status == TurnStatus::Ok)
                    .count(),
            ),
            turns_total: Some(t.turns.len()),
            ..ProgressEvent::run(&t.run_id, event, done, total, now_ms)
        }
    }

    /// The event as one JSONL line (no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Everything a dialog evaluation leaves behind.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifacts {
    /// `run_manifest.json`.
    pub manifest: RunManifest,
    /// `dialog_trace.jsonl`, in dataset order.
    pub traces: Vec<DialogTrace>,
    /// `turn_eval.jsonl`.
    pub rows: Vec<TurnEval>,
    /// `metrics_summary.json`.
    pub summary: MetricsSummary,
    /// `progress_{run_id}.jsonl`.
    pub progress: Vec<ProgressEvent>,
}

/// The name of the progress file of a run.
pub fn progress_file(run_id: &str) -> String {
    format!("progress_{run_id}.jsonl")
}

/// The names of the five files, in the order [`render`] gives them.
pub fn file_names(run_id: &str) -> [String; 5] {
    [
        "run_manifest.json".into(),
        "dialog_trace.jsonl".into(),
        "turn_eval.jsonl".into(),
        "metrics_summary.json".into(),
        progress_file(run_id),
    ]
}

fn jsonl<T: Serialize>(items: &[T]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for item in items {
        out.push_str(&serde_json::to_string(item)?);
        out.push('\n');
    }
    Ok(out)
}

/// The five files as (name, text).
pub fn render(a: &Artifacts) -> Result<Vec<(String, String)>, serde_json::Error> {
    let [m, t, e, s, p] = file_names(&a.manifest.run_id);
    let progress: String = a.progress.iter().map(|p| p.line() + "\n").collect();
    Ok(vec![
        (m, serde_json::to_string_pretty(&a.manifest)? + "\n"),
        (t, jsonl(&a.traces)?),
        (e, jsonl(&a.rows)?),
        (s, serde_json::to_string_pretty(&a.summary)? + "\n"),
        (p, progress),
    ])
}
