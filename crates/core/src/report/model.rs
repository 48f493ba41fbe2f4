//! Report types of spec 003 (`EvaluationResult` and its parts), plus the
//! top-level `metrics` that spec 000's reconciliation reads.

use super::ReportMetrics;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The final report file of every run, whatever its kind: spec 003's
/// `EvaluationResult` plus the top-level counts. Rows carry `model` when a
/// run's models are named (task runs, several models side by side).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluationResult {
    /// Run-level counts (`metrics.cases` reconciles with the log's `cases_total`).
    #[serde(default)]
    pub metrics: ReportMetrics,
    /// One verdict per case × model (task runs; the log's `case` records say the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<CaseVerdict>,
    /// One score per case and metric, in dataset order.
    pub scores: Vec<EvalScore>,
    /// Aggregates.
    pub report: EvaluationReport,
}

impl EvaluationResult {
    /// The models its scores (`detail.model`) and summaries name, in
    /// first-appearance order; none for a run of one unnamed system.
    pub fn models(&self) -> Vec<String> {
        let named = self.scores.iter().filter_map(EvalScore::model).chain(
            self.report
                .summaries
                .iter()
                .filter_map(|s| s.model.as_deref()),
        );
        first_seen(named)
    }

    /// The metrics it has, scored or summarised, in first-appearance order.
    pub fn metric_names(&self) -> Vec<String> {
        let names = self
            .scores
            .iter()
            .map(|s| s.metric.as_str())
            .chain(self.report.summaries.iter().map(|s| s.metric.as_str()));
        first_seen(names)
    }
}

fn first_seen<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.iter().any(|o| o == i) {
            out.push(i.to_string());
        }
    }
    out
}

impl EvalScore {
    /// The model a score names (`detail.model`, written by task runs), if any.
    pub fn model(&self) -> Option<&str> {
        self.detail.get("model").and_then(Value::as_str)
    }
}

/// One metric's score for one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalScore {
    /// Case id.
    pub sample_id: String,
    /// Metric name.
    pub metric: String,
    /// Score in [0, 1].
    pub value: f64,
    /// Case tags.
    pub tags: Vec<String>,
    /// `metadata.language`, if given.
    pub language: Option<String>,
    /// `short`, `medium` or `long`.
    pub length_bucket: Option<String>,
    /// Metric details (answer, matched keypoints, cited documents, reason).
    pub detail: Value,
}

/// The aggregate report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationReport {
    /// What was evaluated and how.
    pub experiment: ExperimentMetadata,
    /// Per-metric mean/std/count.
    pub summaries: Vec<MetricSummary>,
    /// Per-metric, per-dimension buckets.
    pub breakdowns: Vec<MetricBreakdown>,
    /// Cases whose call did not succeed.
    pub error_cases: Vec<ErrorCase>,
    /// One per judged metric (and model): spec 003's `LLMJudgeDetail`.
    pub llm_judge_details: Vec<LlmJudgeDetail>,
    /// Input lines that were skipped, and responses for unknown samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_errors: Option<Vec<crate::dataset::LineError>>,
    /// Tokens, latency and cost per model (see `report::usage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<super::ModelUsage>,
    /// A run that asked each sample several times: how many, the k of
    /// pass@k, and every sample's values per repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<RepeatSummary>,
}

/// The repeats of a run that asked each sample `n` times.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RepeatSummary {
    /// Askings per sample.
    pub n: u32,
    /// The k of pass@k and pass^k.
    pub pass_k: Vec<u32>,
    /// One entry per model and sample, in report order.
    pub samples: Vec<SampleRepeats>,
}

/// One sample's values over its repeats, per metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleRepeats {
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Sample id.
    pub sample_id: String,
    /// Per metric: the value of each repeat in repeat order (null: the
    /// metric could not score that answer).
    pub values: BTreeMap<String, Vec<Option<f64>>>,
    /// Per metric: the mean over the scored repeats (what `compare` pairs).
    pub mean: BTreeMap<String, f64>,
}

/// spec 003's `LLMJudgeDetail` of one judged metric, with the judge's
/// outcomes and agreement figures added (issue 11). The mean is over the
/// scored cases only; `unscored` cases are counted beside it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmJudgeDetail {
    /// The judged model, when the run names its models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Metric name.
    pub metric: String,
    /// Judge prompt id.
    pub prompt_id: String,
    /// Judge prompt version.
    pub prompt_version: String,
    /// The judged samples' language when they share one, else null (spec
    /// 003).
    pub language: Option<String>,
    /// The judge prompt's language (`zh` or `en`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_language: Option<String>,
    /// The criteria shown to the judge.
    pub criteria: Vec<String>,
    /// Samples sent to the judge.
    pub sample_count: usize,
    /// Their ids, in dataset order.
    pub sample_ids: Vec<String>,
    /// The judge model.
    #[serde(default)]
    pub judge_model: Option<String>,
    /// `builtin` or the prompt file.
    #[serde(default)]
    pub prompt_source: Option<String>,
    /// Judgements per case (`samples`).
    #[serde(default)]
    pub samples_per_case: usize,
    /// Cases that passed (pairwise: won).
    #[serde(default)]
    pub pass: usize,
    /// Cases that failed (pairwise: lost; also answers without anything to judge).
    #[serde(default)]
    pub fail: usize,
    /// Pairwise ties (a flipped pair is a tie).
    #[serde(default)]
    pub tie: usize,
    /// Cases whose verdict could not be read (left out of the mean).
    #[serde(default)]
    pub unscored: usize,
    /// Unscored / (pass + fail + tie + unscored).
    #[serde(default)]
    pub unscored_rate: Option<f64>,
    /// Mean value over the scored cases.
    #[serde(default)]
    pub mean: Option<f64>,
    /// Repair requests sent after unreadable verdicts.
    #[serde(default)]
    pub repairs: usize,
    /// Share of cases whose repeats agree (`samples` > 1).
    #[serde(default)]
    pub repeat_agreement: Option<f64>,
    /// Mean per-case standard deviation over repeats (`samples` > 1).
    #[serde(default)]
    pub mean_spread: Option<f64>,
    /// Share of pairs whose verdict flipped with the order (pairwise, both orders).
    #[serde(default)]
    pub flip_rate: Option<f64>,
    /// Cases with both a human label and a scored verdict.
    #[serde(default)]
    pub human_labelled: usize,
    /// Raw agreement with the human labels.
    #[serde(default)]
    pub human_agreement: Option<f64>,
    /// Cohen's kappa with the human labels.
    #[serde(default)]
    pub human_kappa: Option<f64>,
}

/// Whether one model's answer to one case was usable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseVerdict {
    /// Model name.
    pub model: String,
    /// Case id.
    pub sample_id: String,
    /// Which asking of the case (0-based), when the run asked each case
    /// several times: each asking has its own verdict, as its `case` record
    /// in the event log has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// `ok`, `no_response` or `failed`.
    pub status: String,
    /// Answered and read without a parse problem.
    pub passed: bool,
}

/// Dataset × run config × evaluator config, and the run's identity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExperimentMetadata {
    /// The dataset.
    pub dataset: DatasetMetadata,
    /// Backend, model, endpoint, parameters; never a key.
    pub run_config: Value,
    /// Metrics and matching settings.
    pub evaluator_config: Value,
    /// Run id and timings (the only parts that differ between identical runs);
    /// none when nothing was run (answers scored from a file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunTimes>,
    /// The language `report.md` was written in, so `evalpage report` renders
    /// it again as it was; none in a report written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_language: Option<crate::Lang>,
}

/// The report's `run`: the run's id and timings (what differs between identical runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunTimes {
    /// Run id.
    pub run_id: String,
    /// Start, ms since the epoch.
    pub started_at_ms: u64,
    /// Wall time, ms.
    pub elapsed_ms: u64,
    /// `done` or `cancelled`.
    pub status: String,
    /// Latency and output speed per model: timings, so they live here with
    /// the other parts that differ between identical runs (tokens and cost
    /// are in `report.usage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<super::ModelLatency>,
}

/// Spec 003 `DatasetMetadata`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DatasetMetadata {
    /// Dataset id (the file name without extension).
    pub dataset_id: String,
    /// Version, when known.
    pub version: String,
    /// File name.
    pub name: Option<String>,
    /// `sample_count` (`metadata.json`'s when it gives one), `line_errors`.
    pub counts: Map<String, Value>,
    /// Cases per `metadata.language` (`metadata.json`'s when it gives them).
    pub languages: BTreeMap<String, usize>,
    /// Cases per tag (`metadata.json`'s when it gives them).
    pub tags: BTreeMap<String, usize>,
    /// Where the data came from (from `metadata.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Value>,
    /// Creation time as written in `metadata.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// Commit of the generator code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator_commit: Option<String>,
    /// Preprocessing and filter settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Value>,
    /// Sampling strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Value>,
    /// Every other key of `metadata.json`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    /// The data's own `sample_count`, `languages` and `tags` where they
    /// differ from what `metadata.json` says (which the fields above keep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<Map<String, Value>>,
}

/// Spec 003 `MetricSummary`, with the model when the run names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Metric name.
    pub metric: String,
    /// Mean score.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
    /// Cases counted.
    pub sample_count: usize,
    /// Cases the metric could not score (task metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<usize>,
    /// Aggregate components (`mae`, `hit_rate`, `precision`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<BTreeMap<String, f64>>,
    /// pass@k by k (a 0/1 metric of a run that asked each sample several
    /// times): the mean over samples of `1 − C(n−c,k)/C(n,k)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_at_k: Option<BTreeMap<String, f64>>,
    /// pass^k by k: the mean over samples of `C(c,k)/C(n,k)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_hat_k: Option<BTreeMap<String, f64>>,
}

impl MetricSummary {
    /// A named figure of the summary: a component (`mae`), or `pass@k` /
    /// `pass^k` for a k the run asked for.
    pub fn figure(&self, name: &str) -> Option<f64> {
        let of = |m: &Option<BTreeMap<String, f64>>, k: &str| m.as_ref()?.get(k).copied();
        match (name.strip_prefix("pass@"), name.strip_prefix("pass^")) {
            (Some(k), _) => of(&self.pass_at_k, k),
            (_, Some(k)) => of(&self.pass_hat_k, k),
            _ => of(&self.components, name),
        }
    }

    /// The names of its figures: components in name order, then `pass@k`
    /// and `pass^k` by k.
    pub fn figure_names(&self) -> Vec<String> {
        let keys = |m: &Option<BTreeMap<String, f64>>| -> Vec<String> {
            let mut ks: Vec<&String> = m.iter().flat_map(|m| m.keys()).collect();
            ks.sort_by_key(|k| k.parse::<u64>().unwrap_or(u64::MAX));
            ks.into_iter().cloned().collect()
        };
        let mut out: Vec<String> = self
            .components
            .iter()
            .flat_map(|c| c.keys().cloned())
            .collect();
        out.extend(
            keys(&self.pass_at_k)
                .into_iter()
                .map(|k| format!("pass@{k}")),
        );
        out.extend(
            keys(&self.pass_hat_k)
                .into_iter()
                .map(|k| format!("pass^{k}")),
        );
        out
    }
}

/// Spec 003 `MetricBreakdown`, with the model when the run names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricBreakdown {
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Metric name.
    pub metric: String,
    /// `tag`, `language` or `length`.
    pub dimension: String,
    /// Bucket within the dimension.
    pub bucket: String,
    /// Mean score.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
    /// Cases counted.
    pub sample_count: usize,
}

/// Spec 003 `ErrorCase`, with the model when the run names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorCase {
    /// Model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Case id.
    pub sample_id: String,
    /// `error`, `timeout` or `cancelled`.
    pub status: String,
    /// `run_id/case_id`.
    pub trace_id: String,
    /// Error message.
    pub message: Option<String>,
    /// Time spent on the case, ms.
    pub latency_ms: Option<f64>,
    /// Backend name.
    pub backend: Option<String>,
    /// HTTP status, if any.
    pub status_code: Option<u16>,
    /// Attempts made.
    pub attempts: u32,
}
