//! The viewer's model of a saved run (issue 12): one table of cases built
//! from a `report.json` (spec 003's `EvaluationResult`, any kind of run) or
//! from an event log (spec 000, a cut-off last record tolerated), and the
//! queries the viewer runs over it (full-text search, filters by metric
//! outcome, tag, language, length bucket, model and status, sort by any
//! column), with the query kept in the page URL. Pure: the page reads the
//! files and renders; every number and every filter is decided here, so it
//! is tested natively.
//!
//! A row is one case × model. Its metric values are the report's `scores`
//! (or the log's `case.metrics`); a metric passes at a value of at least 0.5
//! (decision: every metric is in [0, 1] and the 0/1 metrics pass at 1; a
//! graded metric's "pass" filter is "at least half"). A row's status is
//! `ok`, or the report's error status (`failed`, `no_response`, ...).

pub(crate) mod chart;
pub(crate) mod compare;
mod device;
pub(crate) mod dialog;
mod lite;
mod log;
pub(crate) mod look;
pub use device::DeviceCard;
mod markdown;
mod open;
pub use dialog::{dialog_columns, dialog_row};
pub use lite::{SliceError, Slices};
pub use markdown::{report_md, Rendered};
pub(crate) mod query;
mod rag;
mod retrieval;
pub(crate) mod task;
mod timing;

use crate::events::ReadLog;
use crate::report::{EvaluationResult, MetricBreakdown, MetricSummary};
use crate::RunKind;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use chart::{bar, histogram, Bar};
pub use compare::{
    compare_views, manifest_url, read_manifest, Manifest, ManifestError, ManifestFile, ManifestRun,
};
pub use log::from_log;
use log::log_view;
pub use look::{DialogEntry, DialogLook, Look, SampleInput, TaskLook};
pub use open::{is_import, load, open_files, open_import, open_import_first, OpenError};
pub use query::{Outcome, Query, Sort};
pub use rag::{rag_case, rag_cases};
pub use retrieval::{retrieval_means, retrieval_row};

/// One case × model of a saved run.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewRow {
    /// Case id.
    pub id: String,
    /// The model, when the run names its models.
    pub model: Option<String>,
    /// Value of each metric of [`ViewData::metrics`], in that order.
    pub values: Vec<Option<f64>>,
    /// Tags (the bucket of a retrieval case).
    pub tags: Vec<String>,
    /// Language, if known.
    pub language: Option<String>,
    /// `short`, `medium` or `long`, if known.
    pub length: Option<String>,
    /// `ok`, or the error status.
    pub status: String,
    /// The error message, if the case failed.
    pub error: Option<String>,
    /// Time of the call(s), ms, if known.
    pub latency_ms: Option<f64>,
    /// Attempts, if known.
    pub attempts: Option<u32>,
    /// The answer (or its start), if known.
    pub answer: Option<String>,
    /// What the case asked (a RAG question, a retrieval query, a dialog's
    /// first user message), if known.
    pub input: Option<String>,
    /// Each metric's detail, as the report gives it (for the drill-down;
    /// read with [`ViewData::detail`]).
    pub details: Vec<Detail>,
    /// Lower-cased text the search looks in: id, model, tags, answer, error,
    /// input.
    pub haystack: String,
}

/// A metric's detail for the drill-down: kept as the slice of the file it
/// was read from (parsed only when a row is opened, so a 100,000-case report
/// never builds 200,000 JSON trees), or as a value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Detail {
    /// None.
    #[default]
    None,
    /// A value.
    Value(Value),
    /// Bytes `start..end` of [`ViewData::text`].
    Raw(usize, usize),
}

/// A saved run as the viewer shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewData {
    /// Where it came from (`report.json`, an event log).
    pub source: String,
    /// Kind of run, when the report says (`rag`, `task`, `retrieval`, ...).
    pub kind: String,
    /// Dataset name.
    pub dataset: String,
    /// Run id, if known.
    pub run_id: Option<String>,
    /// Metric names, in report order.
    pub metrics: Vec<String>,
    /// Every case × model.
    pub rows: Vec<ViewRow>,
    /// The report's summaries (built from the rows for a log).
    pub summaries: Vec<MetricSummary>,
    /// The report's breakdowns (none for a log).
    pub breakdowns: Vec<MetricBreakdown>,
    /// Notes on what was read (a cut-off last record, skipped lines).
    pub notes: Vec<String>,
    /// The report's text, which [`Detail::Raw`] slices point into.
    pub text: std::rc::Rc<str>,
    /// Which live mode's views show this run.
    pub look: Look,
    /// Where each model file ran in the page (none for an endpoint).
    pub devices: Vec<DeviceCard>,
}

impl ViewData {
    /// Distinct values of a dimension over the rows, sorted.
    pub fn facets(&self) -> Facets {
        let mut f = Facets::default();
        for r in &self.rows {
            f.tags.extend(r.tags.iter().cloned());
            f.languages.extend(r.language.iter().cloned());
            f.lengths.extend(r.length.iter().cloned());
            f.models.extend(r.model.iter().cloned());
            f.statuses.insert(r.status.clone());
        }
        f
    }

    /// A metric's detail of a row (`Null` when there is none).
    pub fn detail(&self, row: &ViewRow, metric: usize) -> Value {
        match row.details.get(metric) {
            Some(Detail::Value(v)) => v.clone(),
            Some(Detail::Raw(a, b)) => self
                .text
                .get(*a..*b)
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null),
            _ => Value::Null,
        }
    }

    /// The index of a metric.
    pub fn metric_index(&self, name: &str) -> Option<usize> {
        self.metrics.iter().position(|m| m == name)
    }
}

/// The values each filter can take.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facets {
    /// Tags.
    pub tags: BTreeSet<String>,
    /// Languages.
    pub languages: BTreeSet<String>,
    /// Length buckets.
    pub lengths: BTreeSet<String>,
    /// Models.
    pub models: BTreeSet<String>,
    /// Statuses.
    pub statuses: BTreeSet<String>,
}

fn haystack(
    id: &str,
    model: Option<&str>,
    tags: &[String],
    answer: Option<&str>,
    error: Option<&str>,
    input: Option<&str>,
) -> String {
    let mut h = String::with_capacity(
        id.len() + answer.map_or(0, str::len) + input.map_or(0, str::len) + 16,
    );
    for part in [Some(id), model, answer, error, input]
        .into_iter()
        .flatten()
    {
        h.push_str(&part.to_lowercase());
        h.push('\n');
    }
    for t in tags {
        h.push_str(&t.to_lowercase());
        h.push('\n');
    }
    h
}

impl ViewData {
    /// Each row's index by its model and case id.
    fn row_index(&self) -> HashMap<(Option<&str>, &str), usize> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.model.as_deref(), r.id.as_str()), i))
            .collect()
    }
}

/// The notes of a file read beside a report: its first 20 unreadable lines
/// (file, line, field), how many more, and how many lines name `what` the
/// report does not have.
fn note_lines(
    data: &mut ViewData,
    file: &str,
    errors: &[crate::dataset::LineError],
    unknown: usize,
    what: &str,
) {
    for e in errors.iter().take(20) {
        data.notes.push(format!("{e} (skipped)"));
    }
    if errors.len() > 20 {
        data.notes.push(format!(
            "{file}: {} more unreadable lines skipped",
            errors.len() - 20
        ));
    }
    if unknown > 0 {
        data.notes.push(format!(
            "{file}: {unknown} lines name {what} the report does not have (ignored)"
        ));
    }
}

fn text_of(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// A report's rows being built: one per case × model in first-seen order,
/// with a column per metric (the summaries' order, then any other metric of
/// the scores). The typed reader and the fast one (`lite`) share it.
#[derive(Clone)]
pub(super) struct Builder {
    metrics: Vec<String>,
    col: HashMap<String, usize>,
    index: HashMap<(Option<String>, String), usize>,
    rows: Vec<ViewRow>,
}

impl Builder {
    /// The columns of a report's summaries and scores' metrics.
    pub(super) fn new<'a>(
        summaries: &'a [MetricSummary],
        scores: impl Iterator<Item = &'a str>,
    ) -> Builder {
        let mut metrics: Vec<String> = Vec::new();
        let names = summaries.iter().map(|s| s.metric.as_str()).chain(scores);
        for m in names {
            if !metrics.iter().any(|x| x == m) {
                metrics.push(m.to_string());
            }
        }
        let col = metrics
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, m)| (m, i))
            .collect();
        Builder {
            metrics,
            col,
            index: HashMap::new(),
            rows: Vec::new(),
        }
    }

    /// The row of a case × model, made when first seen with these
    /// dimensions.
    pub(super) fn row(
        &mut self,
        model: Option<String>,
        id: &str,
        dims: impl FnOnce() -> (Vec<String>, Option<String>, Option<String>),
    ) -> &mut ViewRow {
        let key = (model, id.to_string());
        let n = self.metrics.len();
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let (tags, language, length) = dims();
                self.rows.push(ViewRow {
                    id: key.1.clone(),
                    model: key.0.clone(),
                    values: vec![None; n],
                    tags,
                    language,
                    length,
                    status: "ok".into(),
                    error: None,
                    latency_ms: None,
                    attempts: None,
                    answer: None,
                    input: None,
                    details: vec![Detail::None; n],
                    haystack: String::new(),
                });
                self.index.insert(key, self.rows.len() - 1);
                self.rows.len() - 1
            }
        };
        &mut self.rows[i]
    }

    /// A metric met while reading scores: a new column when it is new (rows
    /// read before it get no value for it).
    pub(super) fn add_metric(&mut self, metric: &str) {
        if self.col.contains_key(metric) {
            return;
        }
        self.col.insert(metric.to_string(), self.metrics.len());
        self.metrics.push(metric.to_string());
        for r in &mut self.rows {
            r.values.push(None);
            r.details.push(Detail::None);
        }
    }

    /// Puts the summaries' metrics first, in their order (columns met while
    /// reading scores keep theirs after them), as the one-pass readers do.
    pub(super) fn order(&mut self, summaries: &[MetricSummary]) {
        let mut names: Vec<String> = Vec::new();
        let known = self.metrics.clone();
        for m in summaries.iter().map(|s| s.metric.clone()).chain(known) {
            if !names.contains(&m) {
                names.push(m);
            }
        }
        for m in &names {
            self.add_metric(m);
        }
        let old: Vec<usize> = names
            .iter()
            .filter_map(|m| self.col.get(m).copied())
            .collect();
        for r in &mut self.rows {
            r.values = old.iter().map(|&c| r.values[c]).collect();
            r.details = old.iter().map(|&c| r.details[c].clone()).collect();
        }
        self.col = names
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, m)| (m, i))
            .collect();
        self.metrics = names;
    }

    /// The column of a metric.
    pub(super) fn col(&self, metric: &str) -> Option<usize> {
        self.col.get(metric).copied()
    }

    /// The report's error cases on their rows, the search text of every row,
    /// and the run's identity: the viewer's table.
    pub(super) fn finish(
        mut self,
        report: &crate::report::EvaluationReport,
        source: &str,
        text: std::rc::Rc<str>,
    ) -> ViewData {
        for e in &report.error_cases {
            let row = self.row(e.model.clone(), &e.sample_id, Default::default);
            row.status = e.status.clone();
            row.error = e.message.clone();
            row.latency_ms = e.latency_ms;
            row.attempts = Some(e.attempts);
        }
        for row in &mut self.rows {
            row.haystack = haystack(
                &row.id,
                row.model.as_deref(),
                &row.tags,
                row.answer.as_deref(),
                row.error.as_deref(),
                row.input.as_deref(),
            );
        }
        let exp = &report.experiment;
        let rc = &exp.run_config;
        let described_by = [rc, &exp.evaluator_config];
        let run_kind = RunKind::read(&described_by, &[]);
        ViewData {
            look: Look::of(run_kind, &described_by),
            source: source.to_string(),
            kind: kind_of(run_kind, rc),
            dataset: exp
                .dataset
                .name
                .clone()
                .unwrap_or_else(|| exp.dataset.dataset_id.clone()),
            run_id: exp
                .run
                .as_ref()
                .map(|x| x.run_id.clone())
                .or_else(|| text_of(rc, &["run_id"])),
            metrics: self.metrics,
            rows: self.rows,
            summaries: report.summaries.clone(),
            breakdowns: report.breakdowns.clone(),
            notes: Vec::new(),
            text,
            devices: device::cards(exp),
        }
    }
}

/// The kind of a report's run as shown: its tag, else (another producer's
/// report) its run config's `kind` or `mode`, or `run`.
fn kind_of(kind: Option<RunKind>, rc: &Value) -> String {
    match kind {
        Some(k) => k.tag().into(),
        None => text_of(rc, &["kind"])
            .or_else(|| text_of(rc, &["mode"]))
            .unwrap_or_else(|| "run".into()),
    }
}

/// A row's id: the sample id, with `#r` for one answer of a run that asked
/// each sample several times (`repeat` of its score, record or line; the
/// `trace_id` of `results.jsonl` says the same).
pub fn answer_id(sample_id: &str, repeat: Option<&Value>) -> String {
    match repeat.and_then(Value::as_u64) {
        Some(r) => format!("{sample_id}#{r}"),
        None => sample_id.to_string(),
    }
}

/// The viewer's table of a `report.json`.
pub fn from_report(r: &EvaluationResult, source: &str) -> ViewData {
    let mut b = Builder::new(
        &r.report.summaries,
        r.scores.iter().map(|s| s.metric.as_str()),
    );
    for s in &r.scores {
        add_score(&mut b, s, s.detail.clone());
    }
    b.finish(&r.report, source, std::rc::Rc::from(""))
}

/// [`from_report`] of a report the caller gives up: each score's detail is
/// moved into its row, not copied (an import of 200,000 samples).
pub fn from_report_owned(r: EvaluationResult, source: &str) -> ViewData {
    let mut b = Builder::new(
        &r.report.summaries,
        r.scores.iter().map(|s| s.metric.as_str()),
    );
    for mut s in r.scores {
        let detail = std::mem::take(&mut s.detail);
        add_score(&mut b, &s, detail);
    }
    b.finish(&r.report, source, std::rc::Rc::from(""))
}

/// One score into its row (its detail given apart, moved or copied).
fn add_score(b: &mut Builder, s: &crate::report::EvalScore, detail: Value) {
    let model = detail
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    let c = b.col(&s.metric);
    let id = answer_id(&s.sample_id, detail.get("repeat"));
    let row = b.row(model, &id, || {
        (s.tags.clone(), s.language.clone(), s.length_bucket.clone())
    });
    if row.answer.is_none() {
        row.answer = text_of(&detail, &["answer", "response", "raw_answer"]);
    }
    if row.input.is_none() {
        row.input = text_of(&detail, &["question", "query"]);
    }
    if let Some(c) = c {
        let unscored = detail.get("skipped").is_some() || detail.get("unscored").is_some();
        row.values[c] = (!unscored).then_some(s.value);
        row.details[c] = Detail::Value(detail);
    }
}

/// Mean, standard deviation and count of each metric over the rows (per
/// model when the rows name models); unscored values are left out.
pub fn summaries_of(data: &ViewData) -> Vec<MetricSummary> {
    let models: Vec<Option<String>> = {
        let set: BTreeSet<Option<String>> = data.rows.iter().map(|r| r.model.clone()).collect();
        set.into_iter().collect()
    };
    let mut out = Vec::new();
    for model in &models {
        for (c, metric) in data.metrics.iter().enumerate() {
            let values: Vec<f64> = data
                .rows
                .iter()
                .filter(|r| &r.model == model)
                .filter_map(|r| r.values[c])
                .collect();
            let n = values.len();
            let mean = if n == 0 {
                0.0
            } else {
                values.iter().sum::<f64>() / n as f64
            };
            let var = if n == 0 {
                0.0
            } else {
                values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64
            };
            out.push(MetricSummary {
                model: model.clone(),
                metric: metric.clone(),
                mean,
                std: var.sqrt(),
                sample_count: n,
                skipped: None,
                components: None,
                pass_at_k: None,
                pass_hat_k: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
