//! The dataset of a task run, whatever its format, as one list of samples with
//! the three breakdown dimensions of spec 003 already derived.
//!
//! The format follows the task's prompt template, because the template decides
//! which fields the task reads:
//! - `support_qa` (template or task name): spec 003 `TestSampleRecord` lines
//!   (`id`, `messages`, `expected`, `tags`, `metadata`), read by
//!   `dataset::test_sample`; language = `metadata.language`, length bucket from
//!   all message contents;
//! - `rag_qa`: spec 002 RAG lines (`q`, `gold`, `doc_hint`, optional `id`,
//!   `tags`, `metadata`), read by `dataset::rag` (ids default to `Q<n>`);
//!   length bucket from `q`;
//! - anything else: spec 004 generic samples (`sample_id` + any fields), read by
//!   `dataset::sample`, or the OpenAI Evals registry's samples (`input`
//!   messages, `ideal`), read by `dataset::evals` as such samples; tags from a `tags` array of strings, language from
//!   `language` or `metadata.language`; no length bucket when read (there is
//!   no single question text to measure): it is set once the prompt template
//!   is known, from the fields the template reads
//!   (`prompts::measure_lengths`, which the run engine and `evalpage score`
//!   call).

use crate::dataset::sample::{self, Sample};
use crate::dataset::{rag, spec003, LineError};
use crate::report::metadata::{report_metadata, DatasetMetadataFile as MetadataFile};
use crate::report::{self, length_bucket};
use crate::task::contract::Task;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Which reader a task's dataset needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasetFormat {
    /// Spec 004 JSONL samples (`sample_id` + fields, `gt_*` labels).
    Samples,
    /// Spec 003 `TestSampleRecord` JSONL.
    TestSamples,
    /// Spec 002 RAG JSONL (`q`, `gold`, `doc_hint`).
    Rag,
    /// A BFCL question file (`BFCL_v4_<category>.json`: `id`, `question`,
    /// `function`) with its possible answers.
    Bfcl,
}

impl DatasetFormat {
    /// The format a task reads (see the module doc).
    pub fn for_task(task: &Task) -> DatasetFormat {
        match (task.prompt_template.as_str(), task.name.as_str()) {
            ("support_qa", _) | (_, "support_qa") => DatasetFormat::TestSamples,
            ("rag_qa", _) | (_, "rag_qa") => DatasetFormat::Rag,
            ("bfcl", _) | (_, "bfcl") => DatasetFormat::Bfcl,
            _ => DatasetFormat::Samples,
        }
    }

    /// A short description for messages and reports.
    pub fn describe(self) -> &'static str {
        match self {
            DatasetFormat::Samples => "spec 004 samples (sample_id + fields, gt_* labels)",
            DatasetFormat::TestSamples => {
                "spec 003 TestSampleRecord (id, messages, expected, tags, metadata)"
            }
            DatasetFormat::Rag => "RAG questions (q, gold, doc_hint)",
            DatasetFormat::Bfcl => {
                "a BFCL question file BFCL_v4_<category>.json (id, question, function) with possible_answer/ beside it"
            }
        }
    }
}

/// One sample with its breakdown dimensions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalSample {
    /// The sample templates and metrics read.
    pub sample: Sample,
    /// Tags for the breakdown by tag.
    pub tags: Vec<String>,
    /// Language for the breakdown by language.
    pub language: Option<String>,
    /// `short`, `medium` or `long`: from the question text of the formats
    /// that have one; for generic samples set by `prompts::measure_lengths`
    /// (`None` until then).
    pub length_bucket: Option<String>,
}

/// A loaded dataset: valid samples, skipped lines and the report's dataset block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskDataset {
    /// File name as given.
    pub name: String,
    /// The reader used.
    pub format: DatasetFormat,
    /// Valid samples in file order.
    pub samples: Vec<EvalSample>,
    /// One entry per skipped line.
    pub errors: Vec<LineError>,
    /// Spec 003 `DatasetMetadata` for the report.
    pub metadata: report::DatasetMetadata,
}

/// Reads `bytes` in `format`; `meta` is the optional `metadata.json`.
pub fn load(
    name: &str,
    bytes: &[u8],
    format: DatasetFormat,
    meta: Option<&MetadataFile>,
) -> TaskDataset {
    load_first(name, bytes, format, meta, None)
}

/// Like [`load`], keeping only the first `max` valid samples (`--max-samples`);
/// the report's dataset block counts what is kept. Line errors are all kept:
/// a bad line is reported wherever it is.
pub fn load_first(
    name: &str,
    bytes: &[u8],
    format: DatasetFormat,
    meta: Option<&MetadataFile>,
    max: Option<usize>,
) -> TaskDataset {
    let (samples, errors) = match format {
        DatasetFormat::Samples => generic(name, bytes),
        DatasetFormat::TestSamples => spec_003(name, bytes),
        DatasetFormat::Rag => rag_cases(name, bytes),
        DatasetFormat::Bfcl => bfcl_entries(name, bytes),
    };
    finish(name, format, samples, errors, meta, max)
}

/// Reads a BFCL question file with its possible answers (`answers`: the
/// file's name and bytes, `None` when there is none, which is an error for
/// the categories checked against them). Like [`load_first`] otherwise.
pub fn load_bfcl(
    name: &str,
    bytes: &[u8],
    answers: Option<(&str, &[u8])>,
    meta: Option<&MetadataFile>,
    max: Option<usize>,
) -> Result<TaskDataset, String> {
    let (samples, errors) = bfcl_samples(bfcl_read(name, bytes, answers)?);
    Ok(finish(
        name,
        DatasetFormat::Bfcl,
        samples,
        errors,
        meta,
        max,
    ))
}

/// A BFCL question file and its possible answers, each as UTF-8 text.
fn bfcl_read(
    name: &str,
    bytes: &[u8],
    answers: Option<(&str, &[u8])>,
) -> Result<crate::toolcall::data::Read, String> {
    fn text<'a>(file: &str, b: &'a [u8]) -> Result<&'a str, String> {
        std::str::from_utf8(b).map_err(|e| format!("{file}: not UTF-8 text: {e}"))
    }
    let answers = match answers {
        Some((file, b)) => Some((file, text(file, b)?)),
        None => None,
    };
    crate::toolcall::data::read(name, text(name, bytes)?, answers)
}

/// A BFCL question file read without a possible-answer file: a file that
/// cannot be read at all is one problem on its first line.
fn bfcl_entries(name: &str, bytes: &[u8]) -> (Vec<EvalSample>, Vec<LineError>) {
    match bfcl_read(name, bytes, None) {
        Ok(read) => bfcl_samples(read),
        Err(message) => (
            Vec::new(),
            vec![LineError {
                file: name.to_string(),
                line: 1,
                field: None,
                message,
            }],
        ),
    }
}

fn bfcl_samples(read: crate::toolcall::data::Read) -> (Vec<EvalSample>, Vec<LineError>) {
    let samples = read
        .entries
        .iter()
        .map(|e| EvalSample {
            sample: Sample {
                id: e.id.clone(),
                line: e.line,
                fields: e.to_sample(),
            },
            tags: vec![e.category.clone()],
            language: None,
            length_bucket: None,
        })
        .collect();
    (samples, read.problems)
}

fn finish(
    name: &str,
    format: DatasetFormat,
    mut samples: Vec<EvalSample>,
    errors: Vec<LineError>,
    meta: Option<&MetadataFile>,
    max: Option<usize>,
) -> TaskDataset {
    if let Some(max) = max {
        samples.truncate(max);
    }
    let tallies = samples
        .iter()
        .map(|s| (s.language.as_deref(), s.tags.as_slice()));
    let metadata = report_metadata(meta, name, tallies, errors.len());
    TaskDataset {
        name: name.to_string(),
        format,
        samples,
        errors,
        metadata,
    }
}

fn generic(name: &str, bytes: &[u8]) -> (Vec<EvalSample>, Vec<LineError>) {
    // The OpenAI Evals registry's samples (`input`, `ideal`) are read as they are.
    let set = if crate::dataset::evals::looks_like(bytes) {
        crate::dataset::evals::parse(name, bytes)
    } else {
        sample::parse(name, bytes)
    };
    let samples = set
        .samples
        .into_iter()
        .map(|s| EvalSample {
            tags: string_list(s.get("tags")),
            language: s
                .get("language")
                .or_else(|| s.get("metadata.language"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
            length_bucket: None,
            sample: s,
        })
        .collect();
    (samples, set.errors)
}

fn spec_003(name: &str, bytes: &[u8]) -> (Vec<EvalSample>, Vec<LineError>) {
    let set = spec003::parse(name, bytes);
    let samples = set
        .records
        .iter()
        .map(|r| EvalSample {
            sample: r.to_sample(),
            tags: r.tags.clone(),
            language: r.language().map(str::to_string),
            length_bucket: Some(r.length_bucket().to_string()),
        })
        .collect();
    (samples, set.errors)
}

fn rag_cases(name: &str, bytes: &[u8]) -> (Vec<EvalSample>, Vec<LineError>) {
    let set = rag::parse(name, bytes);
    (set.cases.iter().map(rag_sample).collect(), set.errors)
}

/// A spec 002 RAG case as the `rag_qa` task's sample: its fields (`id`, `q`,
/// `gold`, `doc_hint`, `tags`, `metadata`) and the breakdown dimensions
/// (language from `metadata.language`, length bucket from `q`).
pub fn rag_sample(c: &rag::RagCase) -> EvalSample {
    let mut fields = Map::new();
    fields.insert("id".into(), json!(c.id));
    fields.insert("q".into(), json!(c.q));
    fields.insert("gold".into(), json!(c.gold));
    fields.insert("doc_hint".into(), json!(c.doc_hint));
    fields.insert("tags".into(), json!(c.tags));
    fields.insert("metadata".into(), Value::Object(c.metadata.clone()));
    let language = c.metadata.get("language").and_then(Value::as_str);
    EvalSample {
        tags: c.tags.clone(),
        language: language.map(str::to_string),
        length_bucket: Some(length_bucket(&c.q).to_string()),
        sample: Sample {
            id: c.id.clone(),
            line: c.line,
            fields,
        },
    }
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::contract::preset;

    fn format_of(name: &str) -> DatasetFormat {
        DatasetFormat::for_task(&preset(name).expect("preset"))
    }

    #[test]
    fn presets_pick_their_readers() {
        assert_eq!(format_of("event_eval"), DatasetFormat::Samples);
        assert_eq!(format_of("support_qa"), DatasetFormat::TestSamples);
        assert_eq!(format_of("rag_qa"), DatasetFormat::Rag);
    }

    #[test]
    fn generic_samples_get_tags_and_language_but_no_length() {
        let text = "{\"sample_id\":\"a\",\"tags\":[\"x\",1],\"metadata\":{\"language\":\"en\"}}\nnot json\n";
        let d = load("dir/d.jsonl", text.as_bytes(), DatasetFormat::Samples, None);
        assert_eq!(d.samples.len(), 1);
        assert_eq!(d.samples[0].tags, vec!["x"]);
        assert_eq!(d.samples[0].language.as_deref(), Some("en"));
        assert_eq!(d.samples[0].length_bucket, None);
        assert_eq!(d.errors[0].line, 2);
        assert_eq!(d.metadata.dataset_id, "d");
        assert_eq!(d.metadata.counts["line_errors"], json!(1));
        assert_eq!(d.metadata.languages.get("en"), Some(&1));
    }

    #[test]
    fn spec_003_and_rag_records_get_all_three_dimensions() {
        let line = r#"{"id":"t1","messages":[{"role":"user","content":"hi"}],"expected":"yo","tags":["toy"],"metadata":{"language":"ko"}}"#;
        let d = load("t.jsonl", line.as_bytes(), DatasetFormat::TestSamples, None);
        let s = &d.samples[0];
        assert_eq!((s.sample.id.as_str(), s.tags.len()), ("t1", 1));
        assert_eq!(s.language.as_deref(), Some("ko"));
        assert_eq!(s.length_bucket.as_deref(), Some("short"));
        let line =
            r#"{"q":"why?","gold":["because"],"doc_hint":["a.md"],"metadata":{"language":"zh"}}"#;
        let d = load("r.jsonl", line.as_bytes(), DatasetFormat::Rag, None);
        let s = &d.samples[0];
        assert_eq!(s.sample.id, "Q1");
        assert_eq!(s.sample.get("gold"), Some(&json!(["because"])));
        assert_eq!(s.language.as_deref(), Some("zh"));
    }
}
