//! Task metrics: the eight metric types of spec 004, spec 003's
//! `keyword_coverage` and `llm_judge` (a judge model's verdict, issue 11), the two RAG scorers of spec 002 wrapped as task
//! metrics, and SQuAD's `token_f1`. A metric type is one file plus one line in
//! [`REGISTRY`]: its file declares the type's name, description, YAML keys
//! (each with a one-line description) and an example entry ([`MetricType`]),
//! and reads its keys itself from the entry as written ([`RawMetric`]). The task
//! validator (unknown types and keys, each type's keys in its errors) and any
//! list of types or keys shown to people read them from there.
//!
//! A metric is built from its YAML entry against the task's schema ([`build`]
//! refuses keys the type does not declare), then scores one sample at a time
//! ([`Metric::score`]: a value in [0, 1], or none when the sample cannot be
//! scored, plus named raw components and details) and aggregates the scores
//! ([`Metric::aggregate`]). Failed calls are scored too (their fields are
//! defaulted), so they count in every mean.

pub mod claim_evidence_overlap;
pub mod custom_ratio;
pub mod dialog;
pub mod exact_match;
pub mod field_completeness;
pub mod final_state;
pub mod judge_flow;
pub mod keyword_coverage;
pub mod list_overlap;
pub mod llm_judge;
pub mod numeric_error;
pub mod rag_accuracy;
pub mod rag_citation;
pub mod raw;
pub mod reasoning_consistency;
pub mod reference_rouge;
pub mod retrieval;
pub mod token_f1;
pub mod tool_call;
pub mod trajectory_match;

pub use raw::RawMetric;

use crate::dataset::sample::Sample;
use crate::position::KeyError;
use crate::schema::{ParsedAnswer, Schema, RAW_ANSWER};
use crate::stats::mean_std;
use crate::RunKind;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// What a metric reads for one sample.
#[derive(Clone, Copy, Debug)]
pub struct ScoreInput<'a> {
    /// The dataset sample (labels live here).
    pub sample: &'a Sample,
    /// The model's answer read against the schema.
    pub answer: &'a ParsedAnswer,
}

impl<'a> ScoreInput<'a> {
    /// A predicted value (schema field or `raw_answer`); `null` counts as absent.
    pub fn pred(&self, field: &str) -> Option<&'a Value> {
        self.answer.get(field).filter(|v| !v.is_null())
    }

    /// A label value at a sample path; `null` counts as absent.
    pub fn label(&self, path: &str) -> Option<&'a Value> {
        self.sample.get(path)
    }
}

/// One metric's verdict on one sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SampleScore {
    /// The score in [0, 1]; `None` when the sample could not be scored (the
    /// reason is in `detail.skipped`), e.g. its label is missing.
    pub value: Option<f64>,
    /// Named raw numbers behind the value (`precision`, `abs_error`, ...).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub components: BTreeMap<String, f64>,
    /// Details for people: inputs as compared, matches, reasons.
    pub detail: Map<String, Value>,
}

impl SampleScore {
    /// A score; NaN becomes 0 and the value is limited to [0, 1].
    pub fn new(value: f64) -> SampleScore {
        let value = if value.is_nan() {
            0.0
        } else {
            value.clamp(0.0, 1.0)
        };
        SampleScore {
            value: Some(value),
            ..Default::default()
        }
    }

    /// A sample that cannot be scored, and why.
    pub fn skipped(reason: impl Into<String>) -> SampleScore {
        SampleScore::default().detail("skipped", reason.into())
    }

    /// Adds a raw component.
    pub fn with(mut self, key: &str, value: f64) -> SampleScore {
        self.components.insert(key.to_string(), value);
        self
    }

    /// Adds a detail entry.
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> SampleScore {
        self.detail.insert(key.to_string(), value.into());
        self
    }
}

/// One metric's aggregate over the scored samples.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Aggregate {
    /// Mean of the values.
    pub mean: f64,
    /// Population standard deviation of the values.
    pub std: f64,
    /// Samples with a value.
    pub sample_count: usize,
    /// Samples without one.
    pub skipped: usize,
    /// Named aggregates (`mae`, `hit_rate`, `micro_f1`, ...).
    pub components: BTreeMap<String, f64>,
}

impl Aggregate {
    /// Mean and std of the values, and for each component the mean over the
    /// scored samples that have it.
    pub fn of(scores: &[SampleScore]) -> Aggregate {
        let values: Vec<f64> = scores.iter().filter_map(|s| s.value).collect();
        let (mean, std) = mean_std(&values);
        let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for s in scores.iter().filter(|s| s.value.is_some()) {
            for (k, v) in &s.components {
                let e = sums.entry(k.clone()).or_default();
                *e = (e.0 + v, e.1 + 1);
            }
        }
        Aggregate {
            mean,
            std,
            sample_count: values.len(),
            skipped: scores.len() - values.len(),
            components: sums
                .into_iter()
                .map(|(k, (s, n))| (k, s / n as f64))
                .collect(),
        }
    }
}

/// A built metric.
pub trait Metric: fmt::Debug + Send + Sync {
    /// Scores one sample.
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore;

    /// Aggregates scores of this metric (default: [`Aggregate::of`]).
    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        Aggregate::of(scores)
    }

    /// The judge settings of an `llm_judge` metric (its calls are made by
    /// the run, not by [`Metric::score`]); `None` for every other type.
    fn judge(&self) -> Option<&llm_judge::LlmJudge> {
        None
    }

    /// True when a sample's value is a pass (1) or a fail (0) by the
    /// metric's definition (an exact match, a hit): pass@k and pass^k are
    /// given for it when a run asks each sample several times. An F1 or a
    /// ROUGE score that happens to be 0 or 1 is not a pass.
    fn pass_fail(&self) -> bool {
        false
    }
}

/// Builds a metric of one type from its YAML entry and the task schema.
pub type BuildFn = fn(&RawMetric, &Schema) -> Result<Arc<dyn Metric>, KeyError>;

/// One YAML key a metric type reads, besides `type` and `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricKey {
    /// The key as written in the YAML.
    pub name: &'static str,
    /// One line in English: what it holds and its default.
    pub description: &'static str,
}

/// The registry line of a metric another kind computes (no keys, no
/// example: a task cannot name it).
const fn fixed(
    name: &'static str,
    kind: RunKind,
    description: &'static str,
    description_zh: &'static str,
    needs: &'static str,
) -> MetricType {
    MetricType {
        name,
        kind,
        description,
        description_zh,
        needs,
        keys: &[],
        example: "",
    }
}

/// One registry line: a metric of any kind, declared in its own file (a
/// task metric type) or beside the kind that computes it.
#[derive(Clone, Copy)]
pub struct MetricType {
    /// The metric's name: a task's `type:`, or the name in a retrieval
    /// report or a dialog run's `metrics_summary.json`.
    pub name: &'static str,
    /// Which kind computes it.
    pub kind: RunKind,
    /// One-line description in English (a dialog metric's is its
    /// `definition` in `metrics_summary.json`).
    pub description: &'static str,
    /// The same in Chinese (the page shows the one of its language).
    pub description_zh: &'static str,
    /// What it needs from the data and the run, in one line.
    pub needs: &'static str,
    /// The keys a task type reads (besides `type` and `name`); any other is
    /// refused. None for the other kinds.
    pub keys: &'static [MetricKey],
    /// A `metrics` entry of a task type, as YAML (block style, no leading
    /// dash); empty for the other kinds.
    pub example: &'static str,
}

impl MetricType {
    /// True when the type declares `key`.
    pub fn accepts(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k.name == key)
    }

    /// The declared key names, in declaration order.
    pub fn key_names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }
}

impl fmt::Debug for MetricType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricType")
            .field("name", &self.name)
            .finish()
    }
}

/// Every metric of every kind, in documentation order: the task metric
/// types, then the retrieval and the dialog metrics. The page's metric
/// panels, `task check` and the guide's metrics table (docs/guide/metrics.md) read this list.
pub const REGISTRY: &[MetricType] = &[
    field_completeness::TYPE,
    reference_rouge::TYPE,
    custom_ratio::TYPE,
    exact_match::TYPE,
    numeric_error::TYPE,
    list_overlap::TYPE,
    reasoning_consistency::TYPE,
    claim_evidence_overlap::TYPE,
    keyword_coverage::TYPE,
    rag_accuracy::TYPE,
    rag_citation::TYPE,
    token_f1::TYPE,
    llm_judge::TYPE,
    tool_call::TYPE,
    tool_call::F1_TYPE,
    trajectory_match::TYPE,
    final_state::TYPE,
    retrieval::HIT_AT_K,
    retrieval::RECALL_AT_K,
    retrieval::MRR,
    retrieval::NDCG_AT_K,
    dialog::M1_MEMORY_RECALL,
    dialog::M2_CONSTRAINT_CONTRADICTION,
    dialog::M3_RISK_DISCLOSURE,
    dialog::M3_RISK_DISCLOSURE_JUDGE,
    dialog::M4_COMPLIANCE,
    dialog::M4_COMPLIANCE_JUDGE,
    dialog::M5_EXPLAINABILITY,
];

/// The registry lines of one kind, in registry order.
pub fn of_kind(kind: RunKind) -> impl Iterator<Item = &'static MetricType> {
    REGISTRY.iter().filter(move |t| t.kind == kind)
}

/// The RAG check's accuracy type's description (English, Chinese), read
/// from its registry line at compile time: a caller that shows only this
/// (the page's metrics panel) does not link every type's constructor, as a
/// look-up in [`REGISTRY`] would.
pub const RAG_ACCURACY_DESCRIPTION: (&str, &str) = (
    rag_accuracy::TYPE.description,
    rag_accuracy::TYPE.description_zh,
);

/// The RAG check's citation type's description (English, Chinese), as
/// [`RAG_ACCURACY_DESCRIPTION`].
pub const RAG_CITATION_DESCRIPTION: (&str, &str) = (
    rag_citation::TYPE.description,
    rag_citation::TYPE.description_zh,
);

/// The task metric types' constructors, by type name: the one place that
/// names every constructor. Kept apart from [`REGISTRY`], which only describes,
/// so a caller that lists the types (the page's metric panels) does not link
/// them, and through `llm_judge` the judge prompts' YAML and Jinja.
const CONSTRUCTORS: &[(&str, BuildFn)] = &[
    (field_completeness::TYPE.name, field_completeness::build),
    (reference_rouge::TYPE.name, reference_rouge::build),
    (custom_ratio::TYPE.name, custom_ratio::build),
    (exact_match::TYPE.name, exact_match::build),
    (numeric_error::TYPE.name, numeric_error::build),
    (list_overlap::TYPE.name, list_overlap::build),
    (
        reasoning_consistency::TYPE.name,
        reasoning_consistency::build,
    ),
    (
        claim_evidence_overlap::TYPE.name,
        claim_evidence_overlap::build,
    ),
    (keyword_coverage::TYPE.name, keyword_coverage::build),
    (rag_accuracy::TYPE.name, rag_accuracy::build),
    (rag_citation::TYPE.name, rag_citation::build),
    (token_f1::TYPE.name, token_f1::build),
    (llm_judge::TYPE.name, llm_judge::build),
    (tool_call::TYPE.name, tool_call::build),
    (tool_call::F1_TYPE.name, tool_call::build_f1),
    (trajectory_match::TYPE.name, trajectory_match::build),
    (final_state::TYPE.name, final_state::build),
];

/// The constructor of a task metric type; None for a metric a task cannot
/// name (a retrieval or dialog metric) or an unknown name.
fn constructor(name: &str) -> Option<BuildFn> {
    CONSTRUCTORS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, build)| *build)
}

/// The registry line of a type name.
pub fn metric_type(name: &str) -> Option<&'static MetricType> {
    REGISTRY.iter().find(|t| t.name == name)
}

/// Builds a metric: checks the type exists and that only its keys are set.
pub fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let kind = raw.kind.trim();
    let task_types = || {
        let names: Vec<&str> = of_kind(RunKind::Task).map(|t| t.name).collect();
        names.join(", ")
    };
    let t = metric_type(kind).ok_or_else(|| {
        KeyError::new(
            "type",
            format!(
                "unknown metric type `{kind}`; expected one of {}",
                task_types()
            ),
        )
    })?;
    let Some(build) = constructor(t.name) else {
        return Err(KeyError::new(
            "type",
            format!(
                "`{kind}` is computed by a {} run, not by a task; a task's metric types are {}",
                t.kind.tag(),
                task_types()
            ),
        ));
    };
    if let Some(key) = raw.set_keys().find(|k| !t.accepts(k)) {
        let keys = match t.key_names() {
            names if names.is_empty() => "none".to_string(),
            names => names.join(", "),
        };
        return Err(KeyError::new(
            key,
            format!("`{key}` does not apply to {kind} (its keys: {keys})"),
        ));
    }
    build(raw, schema)
}

/// Checks that `name` (set at `key`) is a schema field of one of `types` (any
/// type when empty), or `raw_answer` when a string is acceptable.
pub(crate) fn schema_field(
    schema: &Schema,
    key: &str,
    name: &str,
    types: &[&str],
) -> Result<String, KeyError> {
    if name == RAW_ANSWER && (types.is_empty() || types.contains(&"str")) {
        return Ok(name.to_string());
    }
    let spec = schema.get(name).ok_or_else(|| {
        let known: Vec<&str> = schema.fields.iter().map(|f| f.field.as_str()).collect();
        let known = if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        };
        KeyError::new(
            key,
            format!("`{name}` is not a parse_schema field (fields: {known}; or `{RAW_ANSWER}`)"),
        )
    })?;
    let t = spec.kind.type_name();
    match types.is_empty() || types.contains(&t) {
        true => Ok(name.to_string()),
        false => Err(KeyError::new(
            key,
            format!(
                "`{name}` is of type {t}; this metric needs {}",
                types.join(" or ")
            ),
        )),
    }
}

/// Precision, recall and F1 from counts. Both sets empty gives (1, 1, 1); one
/// empty set gives zeros (no credit for predicting nothing, none for predicting
/// against an empty label), as scikit-learn does with `zero_division=0`.
pub fn prf(tp: usize, n_pred: usize, n_gold: usize) -> (f64, f64, f64) {
    if n_pred == 0 && n_gold == 0 {
        return (1.0, 1.0, 1.0);
    }
    let p = if n_pred == 0 {
        0.0
    } else {
        tp as f64 / n_pred as f64
    };
    let r = if n_gold == 0 {
        0.0
    } else {
        tp as f64 / n_gold as f64
    };
    (p, r, f1(p, r))
}

/// Harmonic mean of precision and recall, 0 when both are 0.
pub fn f1(p: f64, r: f64) -> f64 {
    if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the metric tests: a task schema from YAML and a scorer.
    use super::*;
    use crate::schema::{FieldSpec, RawField};

    /// A schema from `parse_schema` YAML.
    pub fn schema(yaml: &str) -> Schema {
        let raw: Vec<RawField> = serde_yaml_ng::from_str(yaml).expect("schema yaml");
        let fields = raw
            .iter()
            .map(FieldSpec::try_from)
            .collect::<Result<_, _>>();
        Schema {
            fields: fields.expect("valid schema"),
        }
    }

    /// Builds the metric from YAML and scores one (sample, answer) pair.
    pub fn score(metric_yaml: &str, schema: &Schema, sample: Value, answer: &str) -> SampleScore {
        let m = built(metric_yaml, schema);
        let Value::Object(fields) = sample else {
            panic!("sample must be an object")
        };
        let sample = Sample::new("s", fields);
        m.score(&ScoreInput {
            sample: &sample,
            answer: &schema.parse_answer(answer),
        })
    }

    /// Builds the metric from YAML; a build error fails the test with its message.
    pub fn built(metric_yaml: &str, schema: &Schema) -> Arc<dyn Metric> {
        let raw: RawMetric = serde_yaml_ng::from_str(metric_yaml).expect("metric yaml");
        match build(&raw, schema) {
            Ok(m) => m,
            Err(e) => panic!("{}: {}", e.key, e.message),
        }
    }

    /// The build error for a metric YAML.
    pub fn build_error(metric_yaml: &str, schema: &Schema) -> KeyError {
        let raw: RawMetric = serde_yaml_ng::from_str(metric_yaml).expect("metric yaml");
        match build(&raw, schema) {
            Ok(m) => panic!("expected an error, built {m:?}"),
            Err(e) => e,
        }
    }

    /// Scores one (sample, read answer) pair with a built metric.
    pub fn score_parsed(m: &Arc<dyn Metric>, sample: Value, answer: &ParsedAnswer) -> SampleScore {
        let Value::Object(fields) = sample else {
            panic!("sample must be an object")
        };
        let sample = Sample::new("s", fields);
        m.score(&ScoreInput {
            sample: &sample,
            answer,
        })
    }

    /// Asserts two floats agree to 1e-9.
    pub fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_rag_descriptions_are_the_registry_s() {
        for (name, (en, zh)) in [
            ("rag_accuracy", super::RAG_ACCURACY_DESCRIPTION),
            ("rag_citation", super::RAG_CITATION_DESCRIPTION),
        ] {
            let t = super::metric_type(name).expect(name);
            assert_eq!((t.description, t.description_zh), (en, zh));
        }
    }

    use super::testing::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_s_metrics_are_registered_and_a_task_cannot_name_another_kind_s() {
        let names = |k| of_kind(k).map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(
            names(RunKind::Retrieval),
            crate::retrieval::METRICS.to_vec()
        );
        assert_eq!(
            names(RunKind::Dialog),
            crate::dialog::summary::METRICS.to_vec()
        );
        assert!(REGISTRY
            .iter()
            .all(|t| !t.needs.is_empty() && !t.description_zh.is_empty()));
        assert!(REGISTRY
            .iter()
            .all(|t| constructor(t.name).is_some() == (t.kind == RunKind::Task)));
        assert_eq!(CONSTRUCTORS.len(), of_kind(RunKind::Task).count());
        let s = schema("[{field: a, type: str}]");
        let e = build_error("{type: hit_at_k}", &s);
        assert_eq!(e.key, "type");
        assert!(
            e.message.contains("computed by a retrieval run"),
            "{}",
            e.message
        );
        assert!(e.message.contains("exact_match"), "{}", e.message);
    }

    #[test]
    fn registry_names_are_unique_and_documented() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
        assert!(REGISTRY
            .iter()
            .all(|t| !t.description.is_empty() && !t.description.contains('\n')));
        for spec_type in [
            "field_completeness",
            "reference_rouge",
            "custom_ratio",
            "exact_match",
            "numeric_error",
            "list_overlap",
            "reasoning_consistency",
            "claim_evidence_overlap",
        ] {
            assert!(metric_type(spec_type).is_some(), "{spec_type}");
        }
    }

    /// The fields the registry's examples read.
    const EXAMPLE_SCHEMA: &str = "[{field: sentiment, type: enum, values: [positive, neutral, negative]},
        {field: impact_score, type: int}, {field: keywords, type: list}, {field: summary, type: str},
        {field: claims, type: list_raw}, {field: steps, type: list}, {field: final_answer, type: str}]";

    #[test]
    fn every_type_declares_distinct_documented_keys_and_a_working_example() {
        let s = schema(EXAMPLE_SCHEMA);
        for t in of_kind(RunKind::Task) {
            let mut names = t.key_names();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), t.keys.len(), "{}: repeated key", t.name);
            for k in t.keys {
                assert!(!matches!(k.name, "type" | "name"), "{}", t.name);
                assert!(!k.description.is_empty() && !k.description.contains('\n'));
            }
            let raw: RawMetric = serde_yaml_ng::from_str(t.example)
                .unwrap_or_else(|e| panic!("{} example: {e}", t.name));
            assert_eq!(raw.kind, t.name);
            assert!(raw.set_keys().all(|k| t.accepts(k)), "{}", t.name);
            built(t.example, &s);
        }
    }

    #[test]
    fn unknown_types_and_foreign_keys_are_errors() {
        let s = schema("[{field: a, type: str}]");
        let e = build_error("{type: exact_matc}", &s);
        assert_eq!(e.key, "type");
        assert!(e
            .message
            .starts_with("unknown metric type `exact_matc`; expected one of field_completeness"));
        let e = build_error(
            "{type: exact_match, pred_field: a, label_field: b, tolerance: 1}",
            &s,
        );
        assert_eq!(e.key, "tolerance");
        assert_eq!(
            e.message,
            "`tolerance` does not apply to exact_match (its keys: pred_field, label_field)"
        );
        let e = build_error("{type: exact_match, pred_field: zz, label_field: b}", &s);
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            (
                "pred_field",
                "`zz` is not a parse_schema field (fields: a; or `raw_answer`)"
            )
        );
        assert_eq!(
            build_error("{type: exact_match, pred_field: a}", &s).key,
            "label_field"
        );
    }

    #[test]
    fn aggregate_skips_unscored_samples() {
        let scores = vec![
            SampleScore::new(1.0).with("x", 2.0),
            SampleScore::new(0.0).with("x", 4.0),
            SampleScore::skipped("no label"),
        ];
        let a = Aggregate::of(&scores);
        assert_eq!((a.sample_count, a.skipped), (2, 1));
        close(a.mean, 0.5);
        close(a.std, 0.5);
        assert_eq!(a.components.get("x"), Some(&3.0));
        assert_eq!(SampleScore::new(f64::NAN).value, Some(0.0));
        assert_eq!(SampleScore::new(1.5).value, Some(1.0));
        assert_eq!(scores[2].detail.get("skipped"), Some(&json!("no label")));
    }

    #[test]
    fn prf_edge_cases() {
        assert_eq!(prf(0, 0, 0), (1.0, 1.0, 1.0));
        assert_eq!(prf(0, 0, 3), (0.0, 0.0, 0.0));
        assert_eq!(prf(0, 2, 0), (0.0, 0.0, 0.0));
        let (p, r, f) = prf(1, 2, 4);
        close(p, 0.5);
        close(r, 0.25);
        close(f, 1.0 / 3.0);
    }
}
