//! The files of every finished run, rendered in memory by one function that
//! the CLI (which writes them into `--out`) and the page (which offers them as
//! downloads and one zip) both call. A kind supplies what is its own (its
//! report, Markdown, `results.jsonl` lines, run metadata and model snapshot);
//! the file set, the names and `scores.jsonl` / `summary.csv` are the same
//! for every kind.
//!
//! `summary.json`: spec 003's `EvaluationReport` alone (the report's
//! `report`: experiment, summaries, breakdowns, error cases, judge details),
//! as spec 003's file list names it; the report file holds it with the
//! scores.
//!
//! `summary.csv`: one row per model, written with the `csv` crate. Columns:
//! `model`, `samples` (dataset samples; unanswered ones included), then for
//! each metric in report order `tm_<metric>` (the mean over the samples the
//! metric scored) followed by `tm_<metric>_<component>` for each aggregate
//! component in name order, then `tm_<metric>_pass@k` and `tm_<metric>_pass^k`
//! for a run that asked each sample several times. A component one model
//! lacks is an empty cell.
//! Numbers are written in Rust's shortest round-trip form. Then the model's
//! usage (`report.usage`): `truncated`, `prompt_tokens`, `completion_tokens`,
//! `reasoning_tokens`, `latency_p50_ms`, `latency_p95_ms`,
//! `output_tokens_per_s`, and `cost` when a model has a price. The last
//! columns name what was run (a task and its prompt template with their
//! versions).

use super::{EvalScore, EvaluationResult, MetricSummary};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeSet;
use thiserror::Error;

/// The files of every run whose report is `report.json` (a task run, `evalpage
/// score`), in the order they are written. A RAG check and a retrieval run
/// write the same files with their report under spec 000's name
/// ([`RAG_NAMES`], [`RETRIEVAL_NAMES`]).
pub const FILES: [&str; 9] = [
    "results.jsonl",
    "scores.jsonl",
    "summary.csv",
    "report.md",
    "report.json",
    "summary.json",
    "run_meta.json",
    "dataset_fingerprint.json",
    "model_snapshot.json",
];

/// The names of a run's final report and of its two event logs, which spec
/// 000 names after the report: `<stem>.events.jsonl` and
/// `<stem>.events.json-seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportNames {
    /// The final report (the source of truth), as the log's `summary` names it.
    pub report: &'static str,
    /// The JSONL event log.
    pub jsonl: &'static str,
    /// The RFC 7464 json-seq event log.
    pub json_seq: &'static str,
}

impl ReportNames {
    /// Both event logs: JSONL, then json-seq.
    pub const fn events(&self) -> [&'static str; 2] {
        [self.jsonl, self.json_seq]
    }
}

/// A task run's (and `evalpage score`'s) names.
pub const TASK_NAMES: ReportNames = ReportNames {
    report: "report.json",
    jsonl: "report.events.jsonl",
    json_seq: "report.events.json-seq",
};

/// The files a run writes besides its event logs, its report named `report`.
pub fn files(report: &'static str) -> [&'static str; 9] {
    let mut names = FILES;
    names[4] = report;
    names
}

/// What `run_meta.json` records besides the task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunMeta {
    /// Tool name (`evalpage-cli`).
    pub tool: String,
    /// Tool version.
    pub version: String,
    /// The command line as given.
    pub argv: Vec<String>,
    /// Dataset file as given.
    pub dataset: String,
    /// `metadata.json` as given, if any.
    pub metadata: Option<String>,
    /// Start, ms since the Unix epoch.
    pub started_at_ms: u64,
    /// End, ms since the Unix epoch.
    pub ended_at_ms: u64,
}

/// The CSV could not be produced.
#[derive(Debug, Error)]
#[error("cannot write summary.csv: {0}")]
pub struct CsvError(#[from] csv::Error);

/// Everything the files are rendered from.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// The final report.
    pub report: EvaluationResult,
    /// Its file name (`report.json`, or spec 000's name for a RAG check or a
    /// retrieval run).
    pub report_file: &'static str,
    /// `report.md`.
    pub markdown: String,
    /// `results.jsonl` (one `RunRecord` line per sample and model).
    pub results_jsonl: String,
    /// Dataset samples (the `samples` column).
    pub samples: usize,
    /// The model name of rows that carry none (a one-model run).
    pub default_model: String,
    /// The last `summary.csv` columns: (header, value).
    pub identity: Vec<(String, String)>,
    /// `run_meta.json`.
    pub run_meta: Value,
    /// `dataset_fingerprint.json`.
    pub fingerprint: Value,
    /// `model_snapshot.json`.
    pub model_snapshot: Value,
}

/// Renders [`files`] of `o.report_file` as `(name, contents)`, in that order
/// (`o` is taken: its rendered texts move into the files, uncopied).
pub fn render(o: Outputs) -> Result<Vec<(&'static str, String)>, CsvError> {
    let summary_csv = summary_csv(&o)?;
    let scores = scores_jsonl(&o.report.scores);
    let report = pretty(&o.report);
    let summary = pretty(&o.report.report);
    Ok(vec![
        ("results.jsonl", o.results_jsonl),
        ("scores.jsonl", scores),
        ("summary.csv", summary_csv),
        ("report.md", o.markdown),
        (o.report_file, report),
        ("summary.json", summary),
        ("run_meta.json", pretty(&o.run_meta)),
        ("dataset_fingerprint.json", pretty(&o.fingerprint)),
        ("model_snapshot.json", pretty(&o.model_snapshot)),
    ])
}

/// One `scores.jsonl` line per score.
pub fn scores_jsonl(scores: &[EvalScore]) -> String {
    let mut out = Vec::with_capacity(scores.len() * 160);
    for s in scores {
        // a score is plain data: it always serializes
        if serde_json::to_writer(&mut out, s).is_ok() {
            out.push(b'\n');
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Pretty JSON and a newline.
pub fn pretty<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

/// One `tm_` column: a metric, and a component of it or its mean.
struct Column {
    metric: String,
    component: Option<String>,
}

impl Column {
    fn header(&self) -> String {
        match &self.component {
            Some(c) => format!("tm_{}_{c}", self.metric),
            None => format!("tm_{}", self.metric),
        }
    }

    fn cell(&self, rows: &[&MetricSummary]) -> String {
        let Some(s) = rows.iter().find(|s| s.metric == self.metric) else {
            return String::new();
        };
        let value = match &self.component {
            None if s.sample_count == 0 => None,
            None => Some(s.mean),
            Some(c) => s.figure(c),
        };
        value.map(|v| v.to_string()).unwrap_or_default()
    }
}

/// First-appearance order without repeats.
fn ordered<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn columns(summaries: &[MetricSummary]) -> Vec<Column> {
    let mut out = Vec::new();
    for m in ordered(summaries.iter().map(|s| s.metric.as_str())) {
        out.push(Column {
            metric: m.to_string(),
            component: None,
        });
        let comps: BTreeSet<&String> = summaries
            .iter()
            .filter(|s| s.metric == m)
            .flat_map(|s| s.components.iter().flat_map(|c| c.keys()))
            .collect();
        out.extend(comps.into_iter().map(|c| Column {
            metric: m.to_string(),
            component: Some(c.clone()),
        }));
        // then pass@k and pass^k by k (a run with repeats)
        let mut pass: Vec<String> = Vec::new();
        for s in summaries.iter().filter(|s| s.metric == m) {
            for name in s.figure_names() {
                if name.starts_with("pass") && !pass.contains(&name) {
                    pass.push(name);
                }
            }
        }
        out.extend(pass.into_iter().map(|c| Column {
            metric: m.to_string(),
            component: Some(c),
        }));
    }
    out
}

/// The usage columns of `summary.csv`, after the metric columns.
const USAGE_COLUMNS: [&str; 7] = [
    "truncated",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "latency_p50_ms",
    "latency_p95_ms",
    "output_tokens_per_s",
];

fn usage_cells(u: Option<&super::ModelUsage>) -> Vec<String> {
    let Some(u) = u else {
        return vec![String::new(); USAGE_COLUMNS.len()];
    };
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    vec![
        u.truncated.to_string(),
        u.prompt_tokens.to_string(),
        u.completion_tokens.to_string(),
        u.reasoning_tokens.to_string(),
        opt(u.latency_p50_ms),
        opt(u.latency_p95_ms),
        u.output_tokens_per_s
            .map(|v| v.to_string())
            .unwrap_or_default(),
    ]
}

/// Renders `summary.csv` (see the module doc for the columns).
pub fn summary_csv(o: &Outputs) -> Result<String, CsvError> {
    let summaries = &o.report.report.summaries;
    let model_of = |s: &MetricSummary| s.model.clone().unwrap_or_else(|| o.default_model.clone());
    let models: Vec<String> = ordered(
        summaries
            .iter()
            .map(|s| s.model.as_deref().unwrap_or(&o.default_model)),
    )
    .into_iter()
    .map(String::from)
    .collect();
    let cols = columns(summaries);
    let usage = &o.report.report.usage;
    let priced = usage.iter().any(|u| u.cost.is_some());
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["model".to_string(), "samples".to_string()];
    header.extend(cols.iter().map(Column::header));
    header.extend(USAGE_COLUMNS.iter().map(|c| c.to_string()));
    if priced {
        header.push("cost".into());
    }
    header.extend(o.identity.iter().map(|(h, _)| h.clone()));
    w.write_record(&header)?;
    for model in &models {
        let rows: Vec<&MetricSummary> =
            summaries.iter().filter(|s| &model_of(s) == model).collect();
        let mut row = vec![model.clone(), o.samples.to_string()];
        row.extend(cols.iter().map(|c| c.cell(&rows)));
        let u = usage
            .iter()
            .find(|u| &u.model == model || (usage.len() == 1 && models.len() == 1));
        row.extend(usage_cells(u));
        if priced {
            row.push(
                u.and_then(|u| u.cost)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
            );
        }
        row.extend(o.identity.iter().map(|(_, v)| v.clone()));
        w.write_record(&row)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
