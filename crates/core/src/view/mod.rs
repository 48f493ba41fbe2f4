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
pub(crate) mod look;
pub use device::DeviceCard;
mod markdown;
pub use dialog::{dialog_columns, dialog_row};
pub use lite::Slices;
pub use markdown::{report_md, Rendered};
pub(crate) mod query;
pub(crate) mod task;
mod timing;

use crate::events::ReadLog;
use crate::report::{EvaluationResult, MetricBreakdown, MetricSummary};
use crate::RunKind;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use chart::{bar, histogram, Bar};
pub use compare::{
    compare_views, manifest_url, read_manifest, Manifest, ManifestFile, ManifestRun,
};
pub use look::{
    rag_case, rag_cases, retrieval_means, retrieval_row, DialogEntry, DialogLook, Look,
    SampleInput, TaskLook,
};
pub use query::{Outcome, Query, Sort};

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
        let kind = kind_of(exp);
        ViewData {
            look: look_of(&kind, exp),
            source: source.to_string(),
            kind,
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

/// The kind of a report's run: the one reader's ([`RunKind::read`]), else
/// (another producer's report) its run config's `kind` or `mode`, or `run`.
fn kind_of(exp: &crate::report::ExperimentMetadata) -> String {
    let rc = &exp.run_config;
    match RunKind::read(&[rc, &exp.evaluator_config], &[]) {
        Some(k) => k.tag().into(),
        None => text_of(rc, &["kind"])
            .or_else(|| text_of(rc, &["mode"]))
            .unwrap_or_else(|| "run".into()),
    }
}

/// The live views of a kind of run.
fn look_of(kind: &str, exp: &crate::report::ExperimentMetadata) -> Look {
    match kind {
        "rag" => Look::Rag,
        "task" => Look::Task(Default::default()),
        "retrieval" => {
            let k = [&exp.run_config, &exp.evaluator_config]
                .iter()
                .find_map(|c| c.get("k").and_then(Value::as_u64))
                .unwrap_or(5);
            Look::Retrieval { k: k as usize }
        }
        _ => Look::Generic,
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

/// The viewer's table of an event log: one row per `case` record (the last
/// record of a case × model counts), summaries computed from the rows.
pub fn from_log(log: &ReadLog, source: &str) -> ViewData {
    let meta = log.of_type("meta").next();
    let mut metrics: Vec<String> = Vec::new();
    let mut latest: BTreeMap<(Option<String>, String), (usize, &Value)> = BTreeMap::new();
    for (n, r) in log.of_type("case").enumerate() {
        let Some(id) = r.get("case_id").and_then(Value::as_str) else {
            continue;
        };
        let model = r.get("model").and_then(Value::as_str).map(str::to_string);
        let id = answer_id(id, r.get("repeat"));
        if let Some(Value::Object(m)) = r.get("metrics") {
            for k in m.keys() {
                if !metrics.contains(k) {
                    metrics.push(k.clone());
                }
            }
        }
        latest.insert((model, id), (n, r));
    }
    if metrics.is_empty() {
        metrics = ["accuracy", "citation"].map(String::from).to_vec();
    }
    let mut ordered: Vec<(usize, Option<String>, String, &Value)> = latest
        .into_iter()
        .map(|((m, id), (n, r))| (n, m, id, r))
        .collect();
    ordered.sort_by_key(|(n, ..)| *n);
    let kind = log_kind(meta, &metrics);
    let rows: Vec<ViewRow> = ordered
        .into_iter()
        .map(|(_, model, id, r)| {
            let values = metrics
                .iter()
                .map(|m| match r.get("metrics").and_then(|x| x.get(m)) {
                    Some(v) => v.as_f64(),
                    None => match m.as_str() {
                        "accuracy" => r.get("accuracy").and_then(Value::as_bool).map(f64::from),
                        "citation" => r.get("citation").and_then(Value::as_bool).map(f64::from),
                        _ => None,
                    }
                    .map(|v| if v > 0.0 { 1.0 } else { 0.0 }),
                })
                .collect();
            let ok = r
                .get("llm_call_ok")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let error = text_of(r, &["error"]);
            let tags = r
                .get("tags")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .or_else(|| text_of(r, &["bucket"]).map(|b| vec![b]))
                .unwrap_or_default();
            let answer = text_of(r, &["answer", "answer_snippet"]);
            let input = text_of(r, &["query"]);
            let mut details = vec![Detail::None; metrics.len()];
            if kind == "retrieval" {
                // What the retrieval mode's row shows, as the report's detail.
                if let Some(d) = details.first_mut() {
                    *d = Detail::Value(serde_json::json!({
                        "query": r.get("query"),
                        "expected_sources": r.get("expected_sources"),
                        "topk": r.get("topk"),
                        "listed": ok,
                    }));
                }
            }
            ViewRow {
                haystack: haystack(
                    &id,
                    model.as_deref(),
                    &tags,
                    answer.as_deref(),
                    error.as_deref(),
                    input.as_deref(),
                ),
                values,
                tags,
                language: text_of(r, &["language"]),
                length: text_of(r, &["length_bucket"]),
                status: if ok { "ok" } else { "failed" }.into(),
                error,
                latency_ms: r.get("elapsed_ms").and_then(Value::as_f64),
                attempts: r
                    .get("attempts")
                    .and_then(Value::as_u64)
                    .map(|a| a.min(u32::MAX as u64) as u32),
                answer,
                input,
                details,
                id,
                model,
            }
        })
        .collect();
    let mut notes = Vec::new();
    if log.truncated_tail {
        notes.push("the last record was cut off and is ignored".to_string());
    }
    if !log.skipped.is_empty() {
        notes.push(format!(
            "{} unreadable records were skipped",
            log.skipped.len()
        ));
    }
    let look = match kind.as_str() {
        "rag" => Look::Rag,
        "task" => Look::Task(Default::default()),
        "retrieval" => Look::Retrieval {
            k: meta
                .and_then(|m| m.get("k"))
                .and_then(Value::as_u64)
                .unwrap_or(5) as usize,
        },
        _ => Look::Generic,
    };
    let mut data = ViewData {
        source: source.to_string(),
        kind,
        look,
        dataset: meta
            .and_then(|m| text_of(m, &["dataset"]))
            .unwrap_or_default(),
        run_id: meta.and_then(|m| text_of(m, &["run_id"])),
        metrics,
        rows,
        summaries: Vec::new(),
        breakdowns: Vec::new(),
        notes,
        text: std::rc::Rc::from(""),
        devices: Vec::new(),
    };
    data.summaries = summaries_of(&data);
    data
}

/// The kind of a log's run: the one reader's ([`RunKind::read`]) over its
/// `meta` record and its metrics, else `run`.
fn log_kind(meta: Option<&Value>, metrics: &[String]) -> String {
    let meta = meta.unwrap_or(&Value::Null);
    RunKind::read(&[meta], metrics)
        .map_or("run", RunKind::tag)
        .to_string()
}

/// Opens a saved run given as several files (a run's zip or folder, or
/// files picked together), `label` naming them: a dialog evaluation's files
/// (`dialog_trace.jsonl`, `turn_eval.jsonl`, `metrics_summary.json`, ...)
/// open as one; else its report (`report.json`, or spec 000's
/// `eval_rag_report.json` / `eval_retrieval_report.json`; with `results.jsonl`
/// for the task grid's view), else its event log. One file opens as
/// [`load`] reads it.
pub fn open_files(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, String> {
    if let Some(read) = crate::dialog::artifacts::read_back(files) {
        return Ok(dialog::view(label, read));
    }
    let pick = |want: &str| {
        files
            .iter()
            .find(|(n, _)| crate::dataset::file_name(n) == want)
    };
    let main = crate::report::REPORT_FILES
        .iter()
        .chain(&crate::report::EVENT_LOG_FILES)
        .find_map(|want| pick(want));
    let (name, bytes) = match (main, files) {
        (Some(f), _) => f,
        (None, [one]) => one,
        (None, _) => {
            return Err(format!(
                "{label}: no report.json (eval_rag_report.json, eval_retrieval_report.json), event log or dialog evaluation files (it has: {})",
                files
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    let mut data = load(name, bytes)?;
    match (&data.look, pick("results.jsonl")) {
        (Look::Task(_), Some((results, text))) => task::attach(&mut data, results, text),
        (_, Some((results, text))) => timing::attach(&mut data, results, text),
        _ => {}
    }
    Ok(data)
}

/// Whether a file is another evaluator's (promptfoo, Inspect AI, lm-eval,
/// OpenAI Evals), which the viewer opens through the import
/// (`crate::import`): an Inspect `.eval` is a zip, but not a run's zip.
pub fn is_import(name: &str, bytes: &[u8]) -> bool {
    crate::import::detect(name, bytes).is_some()
}

/// Another evaluator's run ([`is_import`]), imported and shown as a report,
/// with what the import noted (parts it could not read, where the source's
/// own figures differ, what it could not carry) among the notes. Apart from
/// [`open_files`], so that a page links the importers only where it asks for
/// them (the viewer's split point `import`).
pub fn open_import(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, String> {
    open_import_first(label, files, None)
}

/// [`open_import`] of the first `limit` samples (a first look at a big file).
pub fn open_import_first(
    label: &str,
    files: &[(String, Vec<u8>)],
    limit: Option<usize>,
) -> Result<ViewData, String> {
    let groups = crate::import::group(files).map_err(|e| e.to_string())?;
    if groups.len() > 1 {
        return Err(format!(
            "{label}: {} runs; open one run at a time (an lm-evaluation-harness output's samples and results files, or an Evals API run and its output items, are one run)",
            groups.len()
        ));
    }
    let parts: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let imported = crate::import::import_first(&parts, limit).map_err(|e| e.to_string())?;
    let r = &imported.report;
    let ec = &r.report.experiment.evaluator_config;
    let mut notes = Vec::new();
    if let Some(n) = limit.filter(|n| r.cases.len() >= *n) {
        notes.push(format!(
            "the first {n} samples, while the rest of the file is read"
        ));
    }
    notes.push(format!(
        "imported from {} {}",
        imported.tool.name(),
        r.report.experiment.run_config["tool_version"]
            .as_str()
            .unwrap_or_default()
    ));
    for e in r.report.line_errors.iter().flatten().take(20) {
        notes.push(format!("{e} (skipped)"));
    }
    for (key, prefix) in [
        ("differences", "differs from the source"),
        ("not_carried", "not carried"),
    ] {
        for d in ec[key].as_array().into_iter().flatten() {
            notes.push(format!("{prefix}: {}", d.as_str().unwrap_or_default()));
        }
    }
    let mut data = from_report_owned(imported.report, label);
    data.notes.extend(notes);
    Ok(data)
}

/// Reads a saved run: a `report.json` (spec 003's `EvaluationResult`) or an
/// event log (JSONL or RFC 7464 json-seq, a cut-off last record tolerated).
/// The error names the file and what was expected.
pub fn load(name: &str, bytes: &[u8]) -> Result<ViewData, String> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let log_name = name.ends_with(".jsonl") || name.ends_with(".json-seq");
    if first == Some(0x1e) || log_name {
        return log_view(name, bytes);
    }
    if first != Some(b'{') {
        return Err(format!(
            "{name}: expected a report.json (a JSON object) or an event log (.jsonl / .json-seq)"
        ));
    }
    // Read as text once: every typed reader below then shares one
    // instantiation of serde_json's reader (a `from_slice` beside the
    // `from_str`s doubled each report type's deserializer in the viewer).
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text at byte {}: expected a report.json",
            e.valid_up_to()
        )
    })?;
    if let Ok(r) = serde_json::from_str::<lite::Report<'_>>(text) {
        return Ok(lite::view(text, r, name));
    }
    match serde_json::from_str::<EvaluationResult>(text) {
        Ok(r) => Ok(from_report(&r, name)),
        Err(e) => {
            // One JSON object per line with `record_type`: an event log.
            let line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
            let record = serde_json::from_slice::<Value>(line)
                .ok()
                .is_some_and(|v| v.get("record_type").is_some());
            if record {
                log_view(name, bytes)
            } else {
                Err(format!(
                    "{name}: not a report.json of evalpage ({e}); open a report.json, an event log or a run's zip"
                ))
            }
        }
    }
}

fn log_view(name: &str, bytes: &[u8]) -> Result<ViewData, String> {
    let log = crate::events::read(bytes);
    if log.of_type("meta").next().is_none() && log.of_type("case").next().is_none() {
        return Err(format!(
            "{name}: no `meta` or `case` record: not an evalpage event log"
        ));
    }
    Ok(from_log(&log, name))
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
mod tests {
    use super::*;
    use crate::events::read;

    const SAMPLE: &str = r#"{"metrics": {"cases": 2, "passed_cases": 1, "failed_calls": 1},
        "scores": [
            {"sample_id": "a", "metric": "acc", "value": 1.0, "tags": ["t"], "language": "zh",
             "length_bucket": "short", "detail": {"model": "m", "answer": "甲 \"answer\" [x]", "keypoints": [1, 2]}},
            {"sample_id": "a", "metric": "judge", "value": 0.0, "tags": ["t"], "language": "zh",
             "length_bucket": "short", "detail": {"model": "m", "unscored": true}},
            {"sample_id": "b", "metric": "acc", "value": 0.0, "tags": [], "language": null,
             "length_bucket": null, "detail": {"model": "m", "answer": 42}}
        ],
        "report": {
            "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl", "counts": {},
                "languages": {}, "tags": {}}, "run_config": {"kind": "task", "note": "scores: [not this]"}, "evaluator_config": {}},
            "summaries": [{"model": "m", "metric": "acc", "mean": 0.5, "std": 0.5, "sample_count": 2}],
            "breakdowns": [],
            "error_cases": [{"model": "m", "sample_id": "b", "status": "failed", "trace_id": "x",
                "message": "HTTP 500", "latency_ms": 12.0, "backend": null, "status_code": 500, "attempts": 3}],
            "llm_judge_details": []
        }}"#;

    #[test]
    fn the_fast_reader_gives_the_typed_readers_table() {
        let text = SAMPLE.to_string();
        let fast = load("r.json", text.as_bytes()).expect("fast");
        let typed: EvaluationResult = serde_json::from_str(&text).expect("typed");
        let slow = from_report(&typed, "r.json");
        assert!(
            !fast.text.is_empty() && slow.text.is_empty(),
            "the fast reader was used"
        );
        assert_eq!(fast.metrics, slow.metrics);
        assert_eq!(fast.rows.len(), 2);
        for (f, s) in fast.rows.iter().zip(&slow.rows) {
            assert_eq!(
                (
                    &f.id,
                    &f.model,
                    &f.values,
                    &f.status,
                    &f.error,
                    &f.answer,
                    &f.haystack
                ),
                (
                    &s.id,
                    &s.model,
                    &s.values,
                    &s.status,
                    &s.error,
                    &s.answer,
                    &s.haystack
                )
            );
            for c in 0..fast.metrics.len() {
                assert_eq!(fast.detail(f, c), slow.detail(s, c));
            }
        }
        assert_eq!(
            fast.rows[0].values,
            vec![Some(1.0), None],
            "an unscored judgement has no value"
        );
        assert_eq!(fast.rows[0].answer.as_deref(), Some("甲 \"answer\" [x]"));
        assert_eq!(
            fast.rows[1].answer, None,
            "a non-text answer is not searched"
        );
        assert_eq!(
            fast.detail(&fast.rows[0], 0)["keypoints"],
            serde_json::json!([1, 2])
        );
    }

    #[test]
    fn a_report_read_in_slices_gives_the_one_pass_table() {
        let typed: EvaluationResult = serde_json::from_str(SAMPLE).expect("typed");
        let pretty = serde_json::to_string_pretty(&typed).expect("pretty");
        for text in [SAMPLE.to_string(), pretty] {
            let whole = load("r.json", text.as_bytes()).expect("one pass");
            let mut s = Slices::start("r.json", std::rc::Rc::from(text.as_str())).expect("slices");
            assert!(
                !s.step(1).expect("first"),
                "three scores: not done after one"
            );
            let first = s.view();
            assert!(
                first.rows[0].id == "a" && first.rows[0].values[0] == Some(1.0),
                "the first row shows at once"
            );
            while !s.step(1).expect("step") {}
            let sliced = s.finish();
            assert_eq!(sliced.metrics, whole.metrics);
            assert_eq!(sliced.rows.len(), whole.rows.len());
            for (a, b) in sliced.rows.iter().zip(&whole.rows) {
                assert_eq!(
                    (&a.id, &a.values, &a.status, &a.answer),
                    (&b.id, &b.values, &b.status, &b.answer)
                );
                for c in 0..sliced.metrics.len() {
                    assert_eq!(sliced.detail(a, c), whole.detail(b, c));
                }
            }
        }
        assert!(Slices::start("x", std::rc::Rc::from("{\"scores\": 3}")).is_none());
        let broken = SAMPLE.replacen("\"value\": 0.0", "\"value\": nope", 1);
        let mut s = Slices::start("b.json", std::rc::Rc::from(broken.as_str())).expect("starts");
        let e = loop {
            match s.step(10) {
                Ok(true) => panic!("a broken score must be an error"),
                Ok(false) => continue,
                Err(e) => break e,
            }
        };
        assert!(
            e.starts_with("b.json: a score cannot be read at byte"),
            "{e}"
        );
    }

    #[test]
    fn load_tells_reports_from_logs_and_refuses_the_rest() {
        assert!(load("x.txt", b"hello")
            .unwrap_err()
            .contains("x.txt: expected a report.json"));
        assert!(load("r.json", b"{\"a\": 1}")
            .unwrap_err()
            .contains("not a report.json"));
        let line = "{\"record_type\":\"case\",\"case_id\":\"a\",\"metrics\":{\"m\":1.0}}\n";
        assert_eq!(
            load("events.json", line.as_bytes())
                .expect("log")
                .rows
                .len(),
            1
        );
        let seq = format!("\u{1e}{line}");
        assert_eq!(load("e", seq.as_bytes()).expect("json-seq").rows.len(), 1);
        assert!(load("e.jsonl", b"{\"x\":1}\n")
            .unwrap_err()
            .contains("no `meta` or `case`"));
    }

    #[test]
    fn a_cut_log_gives_its_settled_cases_and_says_so() {
        let log = concat!(
            "{\"record_type\":\"meta\",\"run_id\":\"r1\",\"dataset\":\"d.jsonl\"}\n",
            "{\"record_type\":\"case\",\"case_id\":\"a\",\"llm_call_ok\":true,\"metrics\":{\"m\":1.0},\"elapsed_ms\":12,\"answer\":\"Hello\"}\n",
            "{\"record_type\":\"case\",\"case_id\":\"b\",\"llm_call_ok\":false,\"metrics\":{\"m\":0.0},\"error\":\"HTTP 500\"}\n",
            "{\"record_type\":\"case\",\"case_id\":\"c\",\"llm_ca"
        );
        let v = from_log(&read(log.as_bytes()), "x.jsonl");
        assert_eq!(v.rows.len(), 2);
        assert_eq!(v.metrics, vec!["m"]);
        assert_eq!(v.rows[1].status, "failed");
        assert_eq!(v.rows[0].latency_ms, Some(12.0));
        assert_eq!(v.notes.len(), 1);
        assert_eq!(v.summaries[0].mean, 0.5);
        assert!(v.rows[0].haystack.contains("hello"));
    }
}
