//! A `report.json` read for the viewer without building a JSON tree for
//! each score's `detail`: details stay slices of the file's text
//! (`serde_json`'s `RawValue`) until a row is opened, and only the few
//! fields the table shows (model, answer, unscored) are read from them.
//! Opening a 100,000-case report is then one pass over the text instead of
//! 200,000 trees allocated and dropped. Any report the typed reader
//! (`EvaluationResult`) accepts, this one accepts too; the viewer falls
//! back to the typed reader otherwise.

use super::{haystack, Detail, ViewData, ViewRow};
use crate::report::{ErrorCase, ExperimentMetadata, MetricBreakdown, MetricSummary};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

#[derive(Deserialize)]
pub(super) struct Report<'a> {
    #[serde(borrow)]
    scores: Vec<Score<'a>>,
    report: Body,
}

#[derive(Deserialize)]
struct Score<'a> {
    sample_id: String,
    metric: String,
    value: f64,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    length_bucket: Option<String>,
    #[serde(borrow)]
    detail: &'a RawValue,
}

#[derive(Deserialize)]
struct Body {
    experiment: ExperimentMetadata,
    summaries: Vec<MetricSummary>,
    #[serde(default)]
    breakdowns: Vec<MetricBreakdown>,
    #[serde(default)]
    error_cases: Vec<ErrorCase>,
}

/// The fields of a detail the table reads.
#[derive(Default, Deserialize)]
struct Shown {
    model: Option<String>,
    answer: Option<Value>,
    response: Option<Value>,
    raw_answer: Option<Value>,
    skipped: Option<IgnoredAny>,
    unscored: Option<IgnoredAny>,
}

/// The viewer's table of a report read this way.
pub(super) fn view(text: &str, r: Report<'_>, source: &str) -> ViewData {
    let mut metrics: Vec<String> = r
        .report
        .summaries
        .iter()
        .map(|s| s.metric.clone())
        .collect();
    for s in &r.scores {
        if !metrics.contains(&s.metric) {
            metrics.push(s.metric.clone());
        }
    }
    let mut seen = BTreeSet::new();
    metrics.retain(|m| seen.insert(m.clone()));
    let col: HashMap<String, usize> = metrics
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, m)| (m, i))
        .collect();
    let base = text.as_ptr() as usize;
    let mut index: HashMap<(Option<String>, String), usize> = HashMap::new();
    let mut rows: Vec<ViewRow> = Vec::new();
    for s in r.scores {
        let raw = s.detail.get();
        let shown: Shown = serde_json::from_str(raw).unwrap_or_default();
        let start = (raw.as_ptr() as usize).saturating_sub(base);
        let key = (shown.model.clone(), s.sample_id.clone());
        let i = match index.get(&key) {
            Some(&i) => i,
            None => {
                rows.push(ViewRow {
                    id: s.sample_id,
                    model: shown.model.clone(),
                    values: vec![None; metrics.len()],
                    tags: s.tags,
                    language: s.language,
                    length: s.length_bucket,
                    status: "ok".into(),
                    error: None,
                    latency_ms: None,
                    attempts: None,
                    answer: None,
                    details: vec![Detail::None; metrics.len()],
                    haystack: String::new(),
                });
                index.insert(key, rows.len() - 1);
                rows.len() - 1
            }
        };
        let row = &mut rows[i];
        if let Some(&c) = col.get(&s.metric) {
            let unscored = shown.skipped.is_some() || shown.unscored.is_some();
            row.values[c] = (!unscored).then_some(s.value);
            row.details[c] = Detail::Raw(start, start + raw.len());
        }
        if row.answer.is_none() {
            row.answer = [&shown.answer, &shown.response, &shown.raw_answer]
                .into_iter()
                .find_map(|v| v.as_ref().and_then(Value::as_str).map(str::to_string));
        }
    }
    for e in &r.report.error_cases {
        let key = (e.model.clone(), e.sample_id.clone());
        let i = match index.get(&key) {
            Some(&i) => i,
            None => {
                rows.push(ViewRow {
                    id: e.sample_id.clone(),
                    model: e.model.clone(),
                    values: vec![None; metrics.len()],
                    tags: Vec::new(),
                    language: None,
                    length: None,
                    status: String::new(),
                    error: None,
                    latency_ms: None,
                    attempts: None,
                    answer: None,
                    details: vec![Detail::None; metrics.len()],
                    haystack: String::new(),
                });
                index.insert(key, rows.len() - 1);
                rows.len() - 1
            }
        };
        let row = &mut rows[i];
        row.status = e.status.clone();
        row.error = e.message.clone();
        row.latency_ms = e.latency_ms;
        row.attempts = Some(e.attempts);
    }
    for row in &mut rows {
        row.haystack = haystack(
            &row.id,
            row.model.as_deref(),
            &row.tags,
            row.answer.as_deref(),
            row.error.as_deref(),
        );
    }
    let exp = &r.report.experiment;
    let rc = &exp.run_config;
    let text_of = |k: &str| rc.get(k).and_then(Value::as_str).map(str::to_string);
    ViewData {
        source: source.to_string(),
        kind: text_of("kind")
            .or_else(|| text_of("mode"))
            .unwrap_or_else(|| "run".into()),
        dataset: exp
            .dataset
            .name
            .clone()
            .unwrap_or_else(|| exp.dataset.dataset_id.clone()),
        run_id: exp
            .run
            .as_ref()
            .map(|x| x.run_id.clone())
            .or_else(|| text_of("run_id")),
        metrics,
        rows,
        summaries: r.report.summaries,
        breakdowns: r.report.breakdowns,
        notes: Vec::new(),
        text: std::rc::Rc::from(text),
    }
}
