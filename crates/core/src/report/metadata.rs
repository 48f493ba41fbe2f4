//! Spec 003 `DatasetMetadata` (`DatasetMetadataFile` here), read from an optional `metadata.json` beside a
//! dataset: `dataset_id` and `version` (required strings), optional `name`,
//! `source`, `created_at`, `generator_commit`, `filters`, `sampling`, `counts`,
//! `languages`, `tags`, and `extra`. Keys the spec does not name are kept in
//! `extra` (merged with an explicit `extra` object) so nothing the generator
//! wrote is lost.
//!
//! `report::DatasetMetadata` is the smaller shape the report carries;
//! [`report_metadata`] builds it from this file (when given) and the records,
//! whose counts, languages and tags are always recounted from the data.

use crate::dataset::kind;
use crate::position::{InputError, KeyError, PathLabel, Position};
use crate::report;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The `metadata.json` of a dataset.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DatasetMetadataFile {
    /// Dataset id.
    pub dataset_id: String,
    /// Dataset version.
    pub version: String,
    /// Display name.
    pub name: Option<String>,
    /// Where the data came from.
    pub source: Option<Value>,
    /// Creation time as written.
    pub created_at: Option<String>,
    /// Commit of the generator code.
    pub generator_commit: Option<String>,
    /// Preprocessing and filter settings.
    pub filters: Option<Value>,
    /// Sampling strategy.
    pub sampling: Option<Value>,
    /// Counts such as `sample_count`.
    pub counts: Option<Value>,
    /// Language distribution.
    pub languages: Option<Value>,
    /// Tag distribution.
    pub tags: Option<Value>,
    /// Every other key.
    pub extra: Map<String, Value>,
}

/// Why a `metadata.json` could not be read: the file with the line and column
/// of a JSON syntax error (`m.json:2:17: not valid JSON: ...`), or the key at
/// fault (`m.json: key `name`: expected a string, found a number`).
pub type MetadataError = InputError;

/// Parses `metadata.json` from raw bytes.
pub fn parse(file: &str, bytes: &[u8]) -> Result<DatasetMetadataFile, MetadataError> {
    let mut keys = Keys {
        file,
        obj: read_object(file, bytes)?,
    };
    let dataset_id = keys.required("dataset_id")?;
    let version = keys.required("version")?;
    let name = keys.string("name")?;
    let created_at = keys.string("created_at")?;
    let generator_commit = keys.string("generator_commit")?;
    let (source, filters, sampling) = (
        keys.any("source"),
        keys.any("filters"),
        keys.any("sampling"),
    );
    let (counts, languages, tags) = (keys.any("counts"), keys.any("languages"), keys.any("tags"));
    let mut extra = match keys.any("extra") {
        None => Map::new(),
        Some(Value::Object(m)) => m,
        Some(v) => {
            return Err(keys.error("extra", format!("expected an object, found {}", kind(&v))))
        }
    };
    extra.extend(keys.obj);
    Ok(DatasetMetadataFile {
        dataset_id,
        version,
        name,
        source,
        created_at,
        generator_commit,
        filters,
        sampling,
        counts,
        languages,
        tags,
        extra,
    })
}

fn read_object(file: &str, bytes: &[u8]) -> Result<Map<String, Value>, MetadataError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let in_file = |e: KeyError| e.at(Position::new(file, None), PathLabel::Key);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        in_file(KeyError::new(
            "(file)",
            format!(
                "not valid UTF-8 (bad byte at offset {}); save the file as UTF-8",
                e.valid_up_to()
            ),
        ))
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let at = crate::dataset::json_error_at(text, 0, &e);
        let position = Position::new(file, Some(at.line)).with_column(Some(at.column));
        MetadataError::new(position, format!("not valid JSON: {}", at.message))
    })?;
    match value {
        Value::Object(obj) => Ok(obj),
        other => Err(in_file(KeyError::new(
            "(top level)",
            format!("expected a JSON object, found {}", kind(&other)),
        ))),
    }
}

/// The keys of the file not yet taken.
struct Keys<'a> {
    file: &'a str,
    obj: Map<String, Value>,
}

impl Keys<'_> {
    fn error(&self, key: &str, message: String) -> MetadataError {
        KeyError::new(key, message).at(Position::new(self.file, None), PathLabel::Key)
    }

    /// A required id-like string (a number is accepted and written as text).
    fn required(&mut self, key: &str) -> Result<String, MetadataError> {
        match self.obj.remove(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(v) => Err(self.error(
                key,
                format!("expected a non-empty string, found {}", kind(&v)),
            )),
            None => Err(self.error(key, "missing: spec 003 requires it".into())),
        }
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, MetadataError> {
        match self.obj.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.error(key, format!("expected a string, found {}", kind(&v)))),
        }
    }

    fn any(&mut self, key: &str) -> Option<Value> {
        self.obj.remove(key).filter(|v| !v.is_null())
    }
}

/// The report's dataset block: id, version and name from `meta` when given
/// (else the file stem, `unversioned` and the file name); `counts`
/// (`sample_count`, `line_errors`), `languages` and `tags` as `meta` gives
/// them (a `languages` or `tags` that is not a map of counts is counted
/// instead), else counted from the samples, each given as its `(language,
/// tags)`; `counted` holds the data's own figures where they differ from
/// `meta`'s. Every dataset format (RAG
/// cases, spec 003 records, spec 004 samples) builds its block here.
pub fn report_metadata<'a>(
    meta: Option<&DatasetMetadataFile>,
    file_name: &str,
    samples: impl IntoIterator<Item = (Option<&'a str>, &'a [String])>,
    line_errors: usize,
) -> report::DatasetMetadata {
    let mut languages: BTreeMap<String, usize> = BTreeMap::new();
    let mut tags: BTreeMap<String, usize> = BTreeMap::new();
    let mut sample_count = 0;
    for (language, sample_tags) in samples {
        sample_count += 1;
        if let Some(l) = language {
            *languages.entry(l.to_string()).or_default() += 1;
        }
        for t in sample_tags {
            *tags.entry(t.clone()).or_default() += 1;
        }
    }
    // metadata.json's own `sample_count`, `languages` and `tags` are kept as
    // it gives them; what the data holds is counted beside them, in
    // `counted`, when it differs (a filtered or sampled file, a stale
    // metadata.json). `line_errors` is always this run's.
    let own_map = |v: Option<&Value>| -> Option<BTreeMap<String, usize>> {
        v.and_then(|v| serde_json::from_value(v.clone()).ok())
    };
    let mut counts = meta
        .and_then(|m| m.counts.as_ref())
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut counted = Map::new();
    match counts.get("sample_count").and_then(Value::as_u64) {
        Some(n) if n != sample_count as u64 => {
            counted.insert("sample_count".into(), json!(sample_count));
        }
        Some(_) => {}
        None => {
            counts.insert("sample_count".into(), json!(sample_count));
        }
    }
    counts.insert("line_errors".into(), json!(line_errors));
    let mut keep = |key: &str,
                    own: Option<BTreeMap<String, usize>>,
                    data: BTreeMap<String, usize>| {
        match own {
            Some(own) => {
                if own != data {
                    counted.insert(key.into(), json!(data));
                }
                own
            }
            None => data,
        }
    };
    let languages = keep(
        "languages",
        own_map(meta.and_then(|m| m.languages.as_ref())),
        languages,
    );
    let tags = keep("tags", own_map(meta.and_then(|m| m.tags.as_ref())), tags);
    let base = crate::dataset::file_name(file_name);
    let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
    report::DatasetMetadata {
        dataset_id: meta.map_or(stem.to_string(), |m| m.dataset_id.clone()),
        version: meta.map_or("unversioned".into(), |m| m.version.clone()),
        name: meta
            .and_then(|m| m.name.clone())
            .or(Some(file_name.to_string())),
        counts,
        languages,
        tags,
        source: meta.and_then(|m| m.source.clone()),
        created_at: meta.and_then(|m| m.created_at.clone()),
        generator_commit: meta.and_then(|m| m.generator_commit.clone()),
        filters: meta.and_then(|m| m.filters.clone()),
        sampling: meta.and_then(|m| m.sampling.clone()),
        extra: meta.map(|m| m.extra.clone()).unwrap_or_default(),
        counted: (!counted.is_empty()).then_some(counted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::spec003;

    const SPEC: &str = r#"{"dataset_id":"toy_support_qa","version":"v1","name":"Toy Support QA",
"created_at":"2025-11-23T07:52:40Z","counts":{"sample_count":3},"languages":{"ko":2,"en":1},
"tags":{"toy":3},"owner":"qa-team","extra":{"note":"x"}}"#;

    #[test]
    fn reads_the_spec_example_and_keeps_unknown_keys_in_extra() {
        let m = parse("metadata.json", SPEC.as_bytes()).expect("valid");
        assert_eq!(m.dataset_id, "toy_support_qa");
        assert_eq!(m.version, "v1");
        assert_eq!(m.name.as_deref(), Some("Toy Support QA"));
        assert_eq!(m.counts, Some(json!({"sample_count": 3})));
        assert_eq!(m.extra.get("owner"), Some(&json!("qa-team")));
        assert_eq!(m.extra.get("note"), Some(&json!("x")));
    }

    #[test]
    fn the_report_block_keeps_every_field_metadata_json_gives() {
        let text = r#"{"dataset_id":"d","version":"v2","source":{"repo":"x"},
"created_at":"2025-11-23T07:52:40Z","generator_commit":"abc123","filters":{"min_len":5},
"sampling":{"seed":7},"counts":{"sample_count":99,"raw_rows":120},"owner":"qa"}"#;
        let m = parse("metadata.json", text.as_bytes()).expect("valid");
        let tags = vec!["t".to_string()];
        let block = report_metadata(Some(&m), "d.jsonl", [(Some("en"), tags.as_slice())], 1);
        let v = serde_json::to_value(&block).expect("json");
        assert_eq!(v["source"], json!({"repo": "x"}));
        assert_eq!(v["created_at"], "2025-11-23T07:52:40Z");
        assert_eq!(v["generator_commit"], "abc123");
        assert_eq!(v["filters"], json!({"min_len": 5}));
        assert_eq!(v["sampling"], json!({"seed": 7}));
        assert_eq!(v["extra"], json!({"owner": "qa"}));
        assert_eq!(
            v["counts"],
            json!({"sample_count": 99, "raw_rows": 120, "line_errors": 1}),
            "metadata.json's own sample_count is kept"
        );
        assert_eq!(
            v["counted"],
            json!({"sample_count": 1}),
            "what the data holds, beside it"
        );
        let bare = report_metadata(None, "d.jsonl", [(None, tags.as_slice())], 0);
        let v = serde_json::to_value(&bare).expect("json");
        assert!(v.get("source").is_none() && v.get("extra").is_none());
        assert!(v.get("counted").is_none(), "nothing to differ from");
        assert_eq!(v["counts"]["sample_count"], 1);
    }

    #[test]
    fn the_spec_example_languages_and_tags_are_kept_and_the_counted_ones_given_when_they_differ() {
        let m = parse("metadata.json", SPEC.as_bytes()).expect("valid");
        let (toy, other) = (vec!["toy".to_string()], vec!["other".to_string()]);
        let same = [
            (Some("ko"), toy.as_slice()),
            (Some("ko"), toy.as_slice()),
            (Some("en"), toy.as_slice()),
        ];
        let block = report_metadata(Some(&m), "toy.jsonl", same, 0);
        assert_eq!(block.counted, None, "the data is what metadata.json says");
        assert_eq!(block.languages.get("ko"), Some(&2));
        let filtered = [(Some("en"), other.as_slice())];
        let block = report_metadata(Some(&m), "toy.jsonl", filtered, 0);
        let v = serde_json::to_value(&block).expect("json");
        assert_eq!(v["languages"], json!({"ko": 2, "en": 1}));
        assert_eq!(v["tags"], json!({"toy": 3}));
        assert_eq!(v["counts"]["sample_count"], 3);
        assert_eq!(
            v["counted"],
            json!({"sample_count": 1, "languages": {"en": 1}, "tags": {"other": 1}})
        );
    }

    #[test]
    fn errors_name_the_key_or_the_position() {
        let e = parse("m.json", br#"{"version":"v1"}"#).expect_err("no id");
        assert_eq!(
            e.to_string(),
            "m.json: key `dataset_id`: missing: spec 003 requires it"
        );
        let e = parse("m.json", br#"{"dataset_id":"a","version":"v1","name":3}"#)
            .expect_err("bad name");
        assert_eq!(
            e.to_string(),
            "m.json: key `name`: expected a string, found a number"
        );
        let e = parse("m.json", b"{\n  \"dataset_id\": x\n}").expect_err("bad json");
        assert!(
            e.to_string().starts_with("m.json:2:17: not valid JSON"),
            "{e}"
        );
        assert!(parse("m.json", b"[]").is_err());
    }

    fn tallies(
        records: &[spec003::TestSampleRecord],
    ) -> impl Iterator<Item = (Option<&str>, &[String])> {
        records.iter().map(|r| (r.language(), r.tags.as_slice()))
    }

    #[test]
    fn report_block_keeps_metadata_json_s_figures_and_counts_the_records_beside_them() {
        let data = "{\"id\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}],\"tags\":[\"t\"],\"metadata\":{\"language\":\"ko\"}}\n{\"id\":\"b\",\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}";
        let set = spec003::parse("toy.jsonl", data.as_bytes());
        let meta = parse("metadata.json", SPEC.as_bytes()).ok();
        let r = report_metadata(meta.as_ref(), "toy.jsonl", tallies(&set.records), 0);
        assert_eq!(
            (r.dataset_id.as_str(), r.version.as_str()),
            ("toy_support_qa", "v1")
        );
        assert_eq!(r.counts.get("sample_count"), Some(&json!(3)));
        assert_eq!(r.languages.get("ko"), Some(&2));
        let counted = r.counted.unwrap_or_default();
        assert_eq!(counted.get("sample_count"), Some(&json!(2)));
        assert_eq!(counted.get("languages"), Some(&json!({"ko": 1})));
        let bare = report_metadata(None, "toy.jsonl", tallies(&set.records), 1);
        assert_eq!(
            (bare.dataset_id.as_str(), bare.version.as_str()),
            ("toy", "unversioned")
        );
    }
}
