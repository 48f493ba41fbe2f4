//! The viewer's comparison of two opened runs (or two models of one): the
//! core's paired comparison (`crate::compare`: paired bootstrap intervals,
//! McNemar's exact test, the per-case diff) over the rows the viewer has,
//! whatever file each run came from (a report, a log, a zip). And the
//! `manifest.json` of a published folder (`?eval=`): the runs, datasets and
//! tasks it lists, their paths resolved against the manifest's URL.

use super::ViewData;
use crate::compare::{compare, CompareError, Comparison, Options};
use crate::report::{
    EvalScore, EvaluationReport, EvaluationResult, ExperimentMetadata, ReportMetrics,
};
use serde::Deserialize;
use serde_json::{json, Value};

/// The scores of a viewed run as a report the comparison reads: one score
/// per row and scored metric (an unscored value is not paired), the model in
/// the detail as task reports write it.
pub fn as_report(d: &ViewData) -> EvaluationResult {
    let scores = d
        .rows
        .iter()
        .flat_map(|r| {
            d.metrics.iter().zip(&r.values).filter_map(move |(m, v)| {
                Some(EvalScore {
                    sample_id: r.id.clone(),
                    metric: m.clone(),
                    value: (*v)?,
                    tags: Vec::new(),
                    language: None,
                    length_bucket: None,
                    detail: {
                        let mut d = serde_json::Map::new();
                        if let Some(model) = &r.model {
                            d.insert("model".into(), json!(model));
                        }
                        if let Some(input) = &r.input {
                            d.insert(
                                "input_sha256".into(),
                                json!(crate::dataset::fingerprint::input_hash(input)),
                            );
                        }
                        Value::Object(d)
                    },
                })
            })
        })
        .collect();
    EvaluationResult {
        metrics: ReportMetrics::default(),
        cases: Vec::new(),
        scores,
        report: EvaluationReport {
            experiment: ExperimentMetadata {
                dataset: Default::default(),
                run_config: Value::Null,
                evaluator_config: Value::Null,
                run: None,
                report_language: None,
            },
            summaries: Vec::new(),
            breakdowns: Vec::new(),
            error_cases: Vec::new(),
            llm_judge_details: Vec::new(),
            line_errors: None,
            usage: Vec::new(),
            repeats: None,
        },
    }
}

/// Compares two viewed runs.
pub fn compare_views(
    base: &ViewData,
    new: &ViewData,
    opts: &Options,
) -> Result<Comparison, CompareError> {
    compare(&as_report(base), &as_report(new), opts)
}

/// A published folder's `manifest.json`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Manifest {
    /// Title shown above the list.
    #[serde(default)]
    pub title: Option<String>,
    /// Saved runs to view and compare.
    #[serde(default)]
    pub runs: Vec<ManifestRun>,
    /// Datasets to evaluate.
    #[serde(default)]
    pub datasets: Vec<ManifestFile>,
    /// Task files.
    #[serde(default)]
    pub tasks: Vec<ManifestFile>,
}

/// A saved run of a manifest: a `report.json`, an event log or a zip.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ManifestRun {
    /// Name shown.
    pub name: String,
    /// Path of the file, relative to the manifest (or a full URL).
    pub path: String,
    /// A line about it.
    #[serde(default)]
    pub description: Option<String>,
}

/// A dataset or task file of a manifest.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ManifestFile {
    /// Name shown.
    pub name: String,
    /// Path, relative to the manifest (or a full URL).
    pub path: String,
}

/// Where a manifest is: `?eval=` names a folder (ending in `/`) or the
/// manifest file itself.
pub fn manifest_url(eval: &str) -> String {
    let e = eval.trim();
    if e.ends_with(".json") {
        e.to_string()
    } else if e.ends_with('/') {
        format!("{e}manifest.json")
    } else {
        format!("{e}/manifest.json")
    }
}

/// Why a manifest could not be read: each names the manifest's address and
/// what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ManifestError {
    /// Not JSON of a manifest's shape.
    #[error("{url}: not a manifest ({reason}); expected {{\"title\", \"runs\": [{{\"name\", \"path\"}}], \"datasets\": [...], \"tasks\": [...]}}")]
    NotAManifest {
        /// The manifest's address.
        url: String,
        /// What the JSON reader said, with the line and column.
        reason: String,
    },
    /// A run without a path.
    #[error("{url}: runs[{index}].path is empty")]
    EmptyRunPath {
        /// The manifest's address.
        url: String,
        /// The run's index in `runs`.
        index: usize,
    },
}

/// Reads a manifest; the error says what was expected.
pub fn read_manifest(url: &str, bytes: &[u8]) -> Result<Manifest, ManifestError> {
    let m: Manifest = serde_json::from_slice(bytes).map_err(|e| ManifestError::NotAManifest {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    match m.runs.iter().position(|r| r.path.trim().is_empty()) {
        Some(index) => Err(ManifestError::EmptyRunPath {
            url: url.to_string(),
            index,
        }),
        None => Ok(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{Detail, ViewRow};

    fn view(values: &[(&str, Option<f64>)]) -> ViewData {
        ViewData {
            metrics: vec!["acc".into()],
            rows: values
                .iter()
                .map(|(id, v)| ViewRow {
                    id: id.to_string(),
                    model: None,
                    values: vec![*v],
                    tags: vec![],
                    language: None,
                    length: None,
                    status: "ok".into(),
                    error: None,
                    latency_ms: None,
                    attempts: None,
                    answer: None,
                    input: None,
                    details: vec![Detail::None],
                    haystack: String::new(),
                })
                .collect(),
            ..ViewData::default()
        }
    }

    #[test]
    fn two_viewed_runs_are_compared_case_by_case() {
        let base = view(&[
            ("a", Some(1.0)),
            ("b", Some(1.0)),
            ("c", Some(0.0)),
            ("d", None),
            ("e", Some(1.0)),
        ]);
        let new = view(&[
            ("a", Some(0.0)),
            ("b", Some(1.0)),
            ("c", Some(1.0)),
            ("d", Some(1.0)),
            ("f", Some(1.0)),
        ]);
        let c = compare_views(&base, &new, &Options::default()).expect("compared");
        let row = &c.rows[0];
        assert_eq!(row.metric, "acc");
        assert_eq!(
            row.n, 3,
            "a, b, c are paired; d is unscored in base; e and f are on one side"
        );
        assert_eq!((row.regressions, row.improvements), (1, 1));
        assert_eq!(row.mcnemar.as_ref().map(|m| (m.b, m.c)), Some((1, 1)));
    }

    #[test]
    fn manifests_are_found_and_read() {
        assert_eq!(
            manifest_url("https://x/evals/"),
            "https://x/evals/manifest.json"
        );
        assert_eq!(manifest_url("evals"), "evals/manifest.json");
        assert_eq!(manifest_url("evals/m.json"), "evals/m.json");
        let m = read_manifest(
            "m",
            br#"{"title":"t","runs":[{"name":"a","path":"a/report.json"}]}"#,
        )
        .expect("read");
        assert_eq!(m.runs[0].path, "a/report.json");
        let not = read_manifest("m", b"[1]").unwrap_err();
        assert!(matches!(&not, ManifestError::NotAManifest { url, .. } if url == "m"));
        assert!(not.to_string().starts_with("m: not a manifest ("), "{not}");
        let empty = read_manifest("m", br#"{"runs":[{"name":"a","path":" "}]}"#).unwrap_err();
        assert_eq!(
            empty,
            ManifestError::EmptyRunPath {
                url: "m".into(),
                index: 0
            }
        );
        assert_eq!(empty.to_string(), "m: runs[0].path is empty");
    }
}
