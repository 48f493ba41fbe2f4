//! A `report.json` read for the viewer without building a JSON tree for
//! each score's `detail`: details stay slices of the file's text
//! (`serde_json`'s `RawValue`) until a row is opened, and only the few
//! fields the table shows (model, answer, question or query, unscored) are read from them.
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
    question: Option<Value>,
    query: Option<Value>,
    skipped: Option<IgnoredAny>,
    unscored: Option<IgnoredAny>,
}

/// One score into the table: its value, its detail as a slice of the text
/// (`base` is where the text starts) and the fields the table shows.
fn add(b: &mut Builder, base: usize, s: Score<'_>) {
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
    if row.input.is_none() {
        row.input = [&shown.question, &shown.query]
            .into_iter()
            .find_map(|v| v.as_ref().and_then(Value::as_str).map(str::to_string));
    }
}

fn body(r: Body) -> crate::report::EvaluationReport {
    crate::report::EvaluationReport {
        experiment: r.experiment,
        summaries: r.summaries,
        breakdowns: r.breakdowns,
        error_cases: r.error_cases,
        llm_judge_details: Vec::new(),
        line_errors: None,
        usage: Vec::new(),
        repeats: None,
    }
}

/// The viewer's table of a report read this way.
pub(super) fn view(text: &str, r: Report<'_>, source: &str) -> ViewData {
    let mut b = Builder::new(
        &r.report.summaries,
        r.scores.iter().map(|s| s.metric.as_str()),
    );
    let base = text.as_ptr() as usize;
    for s in r.scores {
        add(&mut b, base, s);
    }
    b.finish(&body(r.report), source, std::rc::Rc::from(text))
}

/// Everything of a report but its `scores`.
#[derive(Deserialize)]
struct Rest {
    report: Body,
}

/// Where the top-level array `key` of a JSON object opens: the index of its
/// `[`. A scan that skips strings (and their escapes) and counts nesting,
/// stopping at the array (so it reads only what comes before it); `None` when
/// the text has no such array at depth 1.
fn top_level_array(text: &str, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    let quoted = format!("\"{key}\"");
    let (mut depth, mut i) = (0usize, 0usize);
    let mut after_key = false;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                after_key = depth == 1 && text.get(start..=i) == Some(quoted.as_str());
            }
            b'[' if after_key && depth == 1 => return Some(i),
            b'[' | b'{' => {
                after_key = false;
                depth += 1;
            }
            b']' | b'}' => {
                after_key = false;
                depth = depth.checked_sub(1)?;
            }
            b':' => {}
            c if c.is_ascii_whitespace() => {}
            _ => after_key = false,
        }
        i += 1;
    }
    None
}

/// Why a report read a slice at a time could not be read: each names the
/// file and where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SliceError {
    /// A score that is not a score object.
    #[error("{file}: a score cannot be read at byte {at} ({reason})")]
    BadScore {
        /// The file.
        file: String,
        /// The byte where the score starts.
        at: usize,
        /// What the JSON reader said.
        reason: String,
    },
    /// The file ends inside the scores.
    #[error("{file}: the scores end without their `]`")]
    Unclosed {
        /// The file.
        file: String,
    },
    /// The rest of the file is not an evalpage report.
    #[error("{file}: not a report.json of evalpage ({reason})")]
    NotAReport {
        /// The file.
        file: String,
        /// What the JSON reader said.
        reason: String,
    },
}

/// A report read a slice of scores at a time, so the page stays responsive
/// while a 100,000-case report is read (and can show the first rows at once).
pub struct Slices {
    text: std::rc::Rc<str>,
    source: String,
    begin: usize,
    pos: usize,
    builder: Builder,
    /// Everything but the scores, read once the scores' `]` is found.
    report: Option<crate::report::EvaluationReport>,
}

impl Slices {
    /// Starts reading `text`: `None` when it is not a report whose `scores`
    /// can be read this way (the one-pass readers then take it).
    pub fn start(source: &str, text: std::rc::Rc<str>) -> Option<Slices> {
        let open = top_level_array(&text, "scores")?;
        Some(Slices {
            source: source.to_string(),
            begin: open + 1,
            pos: open + 1,
            builder: Builder::new(&[], std::iter::empty()),
            report: None,
            text,
        })
    }

    /// Reads up to `n` more scores; `Ok(true)` once every score is read (and
    /// the rest of the report after them).
    pub fn step(&mut self, n: usize) -> Result<bool, SliceError> {
        if self.report.is_some() {
            return Ok(true);
        }
        let text = self.text.clone();
        let base = text.as_ptr() as usize;
        for _ in 0..n {
            let rest = &text[self.pos..];
            let skip = rest
                .find(|c: char| !(c.is_ascii_whitespace() || c == ','))
                .unwrap_or(rest.len());
            self.pos += skip;
            if text[self.pos..].starts_with(']') {
                return self.read_rest(&text).map(|()| true);
            }
            let mut it =
                serde_json::Deserializer::from_str(&text[self.pos..]).into_iter::<Score<'_>>();
            match it.next() {
                Some(Ok(s)) => {
                    self.builder.add_metric(&s.metric);
                    add(&mut self.builder, base, s);
                    self.pos += it.byte_offset();
                }
                Some(Err(e)) => {
                    return Err(SliceError::BadScore {
                        file: self.source.clone(),
                        at: self.pos,
                        reason: e.to_string(),
                    })
                }
                None => {
                    return Err(SliceError::Unclosed {
                        file: self.source.clone(),
                    })
                }
            }
        }
        Ok(false)
    }

    /// Everything of the report but the scores (after the scores' `]` at
    /// `self.pos`), and the summaries' metric order for the columns.
    fn read_rest(&mut self, text: &str) -> Result<(), SliceError> {
        let rest = format!("{}[]{}", &text[..self.begin - 1], &text[self.pos + 1..]);
        let r: Rest = serde_json::from_str(&rest).map_err(|e| SliceError::NotAReport {
            file: self.source.clone(),
            reason: e.to_string(),
        })?;
        let report = body(r.report);
        self.builder.order(&report.summaries);
        self.report = Some(report);
        Ok(())
    }

    /// How far, in [0, 1]: bytes of the scores read, of all.
    pub fn progress(&self) -> f64 {
        let total = self.text.len().saturating_sub(self.begin).max(1);
        self.pos.saturating_sub(self.begin) as f64 / total as f64
    }

    /// The table of what is read so far.
    pub fn view(&self) -> ViewData {
        let report = self.report.clone().unwrap_or_default();
        self.builder
            .clone()
            .finish(&report, &self.source, self.text.clone())
    }

    /// The table once every score is read.
    pub fn finish(self) -> ViewData {
        let report = self.report.unwrap_or_default();
        self.builder.finish(&report, &self.source, self.text)
    }
}
