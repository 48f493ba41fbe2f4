//! A `report.json` read for the viewer without building a JSON tree for
//! each score's `detail`: details stay slices of the file's text
//! (`serde_json`'s `RawValue`) until a row is opened, and only the few
//! fields the table shows (model, answer, unscored) are read from them.
//! Opening a 100,000-case report is then one pass over the text instead of
//! 200,000 trees allocated and dropped. Any report the typed reader
//! (`EvaluationResult`) accepts, this one accepts too; the viewer falls
//! back to the typed reader otherwise.

use super::{Builder, Detail, ViewData};
use crate::report::{ErrorCase, ExperimentMetadata, MetricBreakdown, MetricSummary};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

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
    let mut b = Builder::new(
        &r.report.summaries,
        r.scores.iter().map(|s| s.metric.as_str()),
    );
    let base = text.as_ptr() as usize;
    for s in r.scores {
        let raw = s.detail.get();
        let shown: Shown = serde_json::from_str(raw).unwrap_or_default();
        let start = (raw.as_ptr() as usize).saturating_sub(base);
        let c = b.col(&s.metric);
        let (tags, language, length) = (s.tags, s.language, s.length_bucket);
        let row = b.row(shown.model.clone(), &s.sample_id, || {
            (tags, language, length)
        });
        if let Some(c) = c {
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
    let report = crate::report::EvaluationReport {
        experiment: r.report.experiment,
        summaries: r.report.summaries,
        breakdowns: r.report.breakdowns,
        error_cases: r.report.error_cases,
        llm_judge_details: Vec::new(),
        line_errors: None,
        usage: Vec::new(),
    };
    b.finish(&report, source, std::rc::Rc::from(text))
}
