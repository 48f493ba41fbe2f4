//! `scores.jsonl` and `report.json` of a task run, shaped as spec 003's
//! `EvalScore` and `EvaluationResult` with one addition for several models.
//!
//! Shape choice: summaries, breakdowns and error cases keep spec 003's fields
//! (`metric` is the task's metric name, unprefixed) and add a `model` field,
//! so a reader filters by model instead of splitting `<model>/<metric>`
//! strings. Summaries also carry `skipped` (samples the metric could not score,
//! e.g. a missing label) and the metric's aggregate `components` (`mae`,
//! `hit_rate`, `precision`, ...). Each `EvalScore.detail` holds the metric's
//! detail plus `model` and the per-sample `components`. A sample a metric
//! skipped has no `EvalScore` (spec 003's `value` is a number); it is in
//! `results.jsonl` with its reason.

use super::data::{EvalSample, TaskDataset};
use super::score::{ModelRun, SampleResult, Scored};
use crate::dataset::LineError;
use crate::report::{
    assemble, CaseVerdict, ErrorCase, EvalScore, EvaluationResult, ExperimentMetadata,
    MetricSummary, ModelRows, ReportMetrics, ReportParts,
};
use crate::task::contract::Task;
use serde::Serialize;
use serde_json::{json, Value};

/// Name, version and origin of the task and its prompt template.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TaskInfo {
    /// Task name.
    pub name: String,
    /// Task version.
    pub version: String,
    /// `preset` or the task file as given.
    pub source: String,
    /// Prompt template name.
    pub prompt_name: String,
    /// Prompt template version.
    pub prompt_version: String,
    /// `builtin` or the template file.
    pub prompt_source: String,
}

/// Everything `report.json` is built from.
#[derive(Clone, Copy, Debug)]
pub struct ReportInput<'a> {
    /// The validated task.
    pub task: &'a Task,
    /// Its names and versions.
    pub info: &'a TaskInfo,
    /// The dataset.
    pub data: &'a TaskDataset,
    /// Where the answers came from.
    pub source: &'a AnswerSource,
    /// The scores.
    pub scored: &'a Scored,
    /// Every skipped input line (dataset and responses) and unknown sample.
    pub line_errors: &'a [LineError],
    /// Start and end of a run that called models, ms (the report's run
    /// identity and latency); `None` for answers scored from a file.
    pub times: Option<(u64, u64)>,
}

/// Where a task run's answers came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum AnswerSource {
    /// `evalpage score`: answers produced elsewhere, read from this file.
    Score {
        /// The responses file as given.
        responses: String,
    },
    /// The models were called in this run.
    Run(RunDescription),
}

/// A run that called models: identity, backend, models and scheduling. No key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunDescription {
    /// Run id (the event log's `run_id`).
    pub run_id: String,
    /// `mock` or `openai`.
    pub backend: String,
    /// Every model as called.
    pub models: Vec<ModelSettings>,
    /// Scheduling.
    pub settings: crate::run::RunSettings,
}

pub(crate) use crate::provider::ModelSettings;

impl AnswerSource {
    /// One line for reports: the responses file, or the backend and run id.
    pub fn describe(&self) -> String {
        match self {
            AnswerSource::Score { responses } => responses.clone(),
            AnswerSource::Run(r) => format!("{} run {}", r.backend, r.run_id),
        }
    }
}

/// Counts over every sample × model (the event log's `summary.metrics`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskMetrics {
    /// Samples × models.
    pub cases: usize,
    /// Answered and read without a parse problem.
    pub passed_cases: usize,
    /// Model calls that failed (run) or samples without a response (score).
    pub failed_calls: usize,
    /// Answered with a parse problem.
    pub parse_problem_cases: usize,
    /// Answers cut off at `max_tokens`.
    pub truncated_cases: usize,
    /// Calls not sent because the run stopped at a fatal answer.
    pub not_run_cases: usize,
    /// Agent cases ended at their step limit (agent tasks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_limit_cases: Option<usize>,
    /// Tool calls faulted on purpose (agent tasks only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faulted_calls: Option<usize>,
}

impl From<TaskMetrics> for ReportMetrics {
    fn from(m: TaskMetrics) -> ReportMetrics {
        ReportMetrics {
            cases: m.cases,
            counts: crate::report::Counts {
                passed_cases: m.passed_cases,
                failed_calls: m.failed_calls,
                parse_problem_cases: Some(m.parse_problem_cases),
                truncated_cases: m.truncated_cases,
                not_run_cases: m.not_run_cases,
                step_limit_cases: m.step_limit_cases,
                faulted_calls: m.faulted_calls,
                ..Default::default()
            },
        }
    }
}

impl TaskMetrics {
    /// The counts of these runs.
    pub fn of(models: &[ModelRun]) -> TaskMetrics {
        TaskMetrics::counting(models.iter().flat_map(|m| &m.results))
    }

    /// The counts of these results (every model's).
    pub fn counting<'a>(results: impl Iterator<Item = &'a SampleResult>) -> TaskMetrics {
        let mut m = TaskMetrics::default();
        for r in results {
            m.cases += 1;
            m.truncated_cases += usize::from(r.truncated());
            m.not_run_cases += usize::from(
                r.error
                    .as_ref()
                    .is_some_and(|e| e.kind == crate::provider::ErrorKind::NotRun),
            );
            if let Some(a) = &r.agent {
                *m.step_limit_cases.get_or_insert(0) +=
                    usize::from(a.end == crate::agent::AgentEnd::StepLimit);
                *m.faulted_calls.get_or_insert(0) += a.faults;
            }
            if !r.status.answered() {
                m.failed_calls += 1;
            } else if r.has_parse_problem() {
                m.parse_problem_cases += 1;
            } else {
                m.passed_cases += 1;
            }
        }
        m
    }
}

/// The task run's report: the one report builder over each model's rows.
pub type TaskReport = EvaluationResult;

/// Builds `report.json`.
pub fn build(input: &ReportInput<'_>) -> EvaluationResult {
    let scored = input.scored;
    let samples = &input.data.samples;
    let errors = error_cases(input);
    let models = scored
        .models
        .iter()
        .map(|m| ModelRows {
            model: Some(m.model.clone()),
            scores: eval_scores(samples, m, input.info),
            summaries: summaries_of(input.task, m, &scored.repeats.ks()),
            errors: errors
                .iter()
                .filter(|e| e.model.as_deref() == Some(m.model.as_str()))
                .cloned()
                .collect(),
            usage: Some(usage_of(m)),
        })
        .collect();
    let cases = scored
        .models
        .iter()
        .flat_map(|m| {
            m.results.iter().filter_map(move |r| {
                Some(CaseVerdict {
                    model: m.model.clone(),
                    sample_id: samples.get(r.index)?.sample.id.clone(),
                    repeat: r
                        .repeat
                        .filter(|_| !crate::planted::on(crate::planted::Bug::RepeatsFolded)),
                    status: r.status.code().to_string(),
                    passed: r.status.answered() && !r.has_parse_problem(),
                })
            })
        })
        .collect();
    let mut report = assemble(ReportParts {
        metrics: TaskMetrics::of(&scored.models).into(),
        cases,
        models,
        metric_names: input.task.metrics.iter().map(|m| m.name.clone()).collect(),
        experiment: experiment(input),
        line_errors: Some(input.line_errors.to_vec()),
        llm_judge_details: judge_details(input),
    });
    report.report.repeats = super::repeats::summary(
        &scored.repeats,
        &scored.models,
        samples,
        &input
            .task
            .metrics
            .iter()
            .map(|m| m.name.clone())
            .collect::<Vec<_>>(),
    );
    if let Some(u) = judge_usage(scored) {
        if let Some(run) = &mut report.report.experiment.run {
            run.latency.push(crate::report::ModelLatency::from(&u));
        }
        report.report.usage.push(u);
    }
    report
}

/// The judge model's usage row: every judge call's tokens (the attempts
/// the judged metrics' details keep), priced at `scored.judge_price`;
/// `None` when no case was sent to a judge.
fn judge_usage(scored: &Scored) -> Option<crate::report::ModelUsage> {
    let mut name: Option<String> = None;
    let mut calls = Vec::new();
    for r in scored.models.iter().flat_map(|m| &m.results) {
        for (_, s) in &r.scores {
            let Some(slots) = s.detail.get("judgements").and_then(Value::as_array) else {
                continue;
            };
            if name.is_none() {
                name = s
                    .detail
                    .get("judge_model")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            for a in slots
                .iter()
                .filter_map(|slot| slot.get("attempts").and_then(Value::as_array))
                .flatten()
            {
                calls.push(crate::report::CallStat {
                    answered: true,
                    truncated: false,
                    elapsed_ms: None,
                    usage: a
                        .get("usage")
                        .and_then(|u| serde_json::from_value(u.clone()).ok()),
                    cached: false,
                });
            }
        }
    }
    if calls.is_empty() {
        return None;
    }
    let mut row = crate::report::ModelUsage::of(&name.unwrap_or_else(|| "judge".into()), calls);
    row.role = Some("judge".into());
    if let Some(p) = scored.judge_price {
        row.price(p);
    }
    Some(row)
}

/// spec 003's `LLMJudgeDetail` of every judged metric, per model: the
/// prompt and criteria from the judged cases' detail, the outcome counts and
/// agreement figures from the metric's aggregate. A metric no case was sent
/// to a judge for (answers scored from a file) has none.
fn judge_details(input: &ReportInput<'_>) -> Vec<crate::report::LlmJudgeDetail> {
    let samples = &input.data.samples;
    let mut out = Vec::new();
    for (k, tm) in input.task.metrics.iter().enumerate() {
        let Some(cfg) = tm.metric.judge() else {
            continue;
        };
        for m in &input.scored.models {
            let judged: Vec<(&EvalSample, &crate::metric::SampleScore)> = m
                .results
                .iter()
                .filter_map(|r| {
                    let s = &r.scores.get(k)?.1;
                    let sample = samples.get(r.index)?;
                    s.detail.contains_key("judgements").then_some((sample, s))
                })
                .collect();
            let Some((_, first)) = judged.first() else {
                continue;
            };
            let prompt = first.detail.get("judge_prompt");
            let text = |key: &str| {
                prompt
                    .and_then(|p| p.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            let criteria = first
                .detail
                .get("criteria")
                .and_then(|c| serde_json::from_value(c.clone()).ok())
                .unwrap_or_default();
            let agg = m.aggregates.get(k).map(|(_, a)| a);
            let comp = |key: &str| agg.and_then(|a| a.components.get(key).copied());
            let count = |key: &str| comp(key).unwrap_or(0.0) as usize;
            let repairs = judged
                .iter()
                .filter_map(|(_, s)| s.detail.get("repairs").and_then(Value::as_u64))
                .sum::<u64>() as usize;
            out.push(crate::report::LlmJudgeDetail {
                model: Some(m.model.clone()),
                metric: tm.name.clone(),
                prompt_id: text("id").unwrap_or_default(),
                prompt_version: text("version").unwrap_or_default(),
                language: shared_language(judged.iter().map(|(s, _)| s.language.as_deref())),
                prompt_language: text("language"),
                criteria,
                sample_count: judged.len(),
                sample_ids: judged.iter().map(|(s, _)| s.sample.id.clone()).collect(),
                judge_model: first
                    .detail
                    .get("judge_model")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                prompt_source: text("source"),
                samples_per_case: cfg.samples,
                pass: count("pass"),
                fail: count("fail"),
                tie: count("tie"),
                unscored: count("unscored"),
                unscored_rate: comp("unscored_rate"),
                mean: agg.filter(|a| a.sample_count > 0).map(|a| a.mean),
                repairs,
                repeat_agreement: comp("repeat_agreement"),
                mean_spread: comp("mean_spread"),
                flip_rate: comp("flip_rate"),
                human_labelled: count("human_labelled"),
                human_agreement: comp("human_agreement"),
                human_kappa: comp("human_kappa"),
            });
        }
    }
    out
}

/// Spec 003's `LLMJudgeDetail.language`: the judged samples' language when
/// they all have the same one, else (mixed, or one without) null.
pub fn shared_language<'a>(mut langs: impl Iterator<Item = Option<&'a str>>) -> Option<String> {
    let first = langs.next()??;
    langs.all(|l| l == Some(first)).then(|| first.to_string())
}

/// One model's tokens, latency and cost (its calls in this run; answers
/// scored from a file carry none).
fn usage_of(m: &ModelRun) -> crate::report::ModelUsage {
    let calls = m.results.iter().map(|r| crate::report::CallStat {
        answered: r.status.answered(),
        truncated: r.truncated(),
        elapsed_ms: r.elapsed_ms,
        usage: r.usage.clone(),
        cached: r.cached.is_some(),
    });
    let mut row = crate::report::ModelUsage::of(&m.model, calls);
    if let Some(p) = m.price {
        row.price(p);
    }
    row
}

/// One model's `EvalScore`s, sample by sample, metrics in task order.
pub fn eval_scores(samples: &[EvalSample], run: &ModelRun, info: &TaskInfo) -> Vec<EvalScore> {
    let mut out = Vec::new();
    for r in &run.results {
        let Some(s) = samples.get(r.index) else {
            continue;
        };
        for (metric, score) in &r.scores {
            let Some(value) = score.value else { continue };
            let mut detail = score.detail.clone();
            detail.insert("model".into(), json!(run.model));
            if let Some(k) = r.repeat {
                detail.insert("repeat".into(), json!(k));
            }
            detail.insert("prompt".into(), json!(info.prompt_name));
            detail.insert("prompt_version".into(), json!(info.prompt_version));
            detail.extend(crate::report::answer_extras(
                r.reasoning.as_deref(),
                r.finish_reason.as_deref(),
                r.usage.clone(),
                r.truncated(),
                r.cached.as_ref(),
            ));
            if !score.components.is_empty() {
                detail.insert("components".into(), json!(score.components));
            }
            out.push(EvalScore {
                sample_id: s.sample.id.clone(),
                metric: metric.clone(),
                value,
                tags: s.tags.clone(),
                language: s.language.clone(),
                length_bucket: s.length_bucket.clone(),
                detail: Value::Object(detail),
            });
        }
    }
    out
}

fn summaries_of(task: &Task, run: &ModelRun, ks: &[u32]) -> Vec<MetricSummary> {
    let mut out: Vec<MetricSummary> = run
        .aggregates
        .iter()
        .map(|(metric, agg)| MetricSummary {
            model: Some(run.model.clone()),
            metric: metric.clone(),
            mean: agg.mean,
            std: agg.std,
            sample_count: agg.sample_count,
            skipped: Some(agg.skipped),
            components: Some(agg.components.clone()),
            pass_at_k: None,
            pass_hat_k: None,
        })
        .collect();
    let pass_fail: Vec<bool> = task.metrics.iter().map(|m| m.metric.pass_fail()).collect();
    super::repeats::add_pass_k(&pass_fail, run, &mut out, ks);
    out
}

fn error_cases(input: &ReportInput<'_>) -> Vec<ErrorCase> {
    let mut out = Vec::new();
    for m in &input.scored.models {
        for r in m.results.iter().filter(|r| !r.status.answered()) {
            let Some(s) = input.data.samples.get(r.index) else {
                continue;
            };
            let (status, message, backend) = match (&r.error, input.source) {
                (Some(e), AnswerSource::Run(run)) => {
                    let status = match e.kind {
                        crate::provider::ErrorKind::Timeout => "timeout",
                        crate::provider::ErrorKind::Cancelled => "cancelled",
                        _ => "error",
                    };
                    (
                        status.to_string(),
                        e.cause.clone(),
                        Some(run.backend.clone()),
                    )
                }
                _ => (
                    "no_response".to_string(),
                    format!(
                        "{} in {}",
                        super::score::NO_RESPONSE,
                        input.source.describe()
                    ),
                    None,
                ),
            };
            out.push(ErrorCase {
                model: Some(m.model.clone()),
                sample_id: s.sample.id.clone(),
                status,
                trace_id: format!("{}/{}", m.model, s.sample.id),
                message: Some(message),
                latency_ms: r.elapsed_ms.map(|ms| ms as f64),
                backend,
                status_code: r.error.as_ref().and_then(|e| e.status_code),
                attempts: r.attempts.unwrap_or(0),
            });
        }
    }
    out
}

/// A run whose unfinished calls were settled as cancelled.
fn cancelled(input: &ReportInput<'_>) -> bool {
    input
        .scored
        .models
        .iter()
        .flat_map(|m| &m.results)
        .any(|r| {
            r.error
                .as_ref()
                .is_some_and(|e| e.kind == crate::provider::ErrorKind::Cancelled)
        })
}

fn experiment(input: &ReportInput<'_>) -> ExperimentMetadata {
    let task = input.task;
    let info = input.info;
    let models: Vec<&str> = input
        .scored
        .models
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    let metrics: Vec<Value> = task
        .metrics
        .iter()
        .map(|m| json!({"type": m.kind, "name": m.name}))
        .collect();
    ExperimentMetadata {
        report_language: None, // set where report.md is rendered
        run: match (input.source, input.times) {
            (AnswerSource::Run(r), Some((started, ended))) => Some(crate::report::RunTimes {
                run_id: r.run_id.clone(),
                started_at_ms: started,
                elapsed_ms: ended.saturating_sub(started),
                status: if cancelled(input) {
                    "cancelled"
                } else {
                    "done"
                }
                .into(),
                latency: Vec::new(),
            }),
            _ => None,
        },
        dataset: input.data.metadata.clone(),
        run_config: match input.source {
            AnswerSource::Score { responses } => json!({
                "kind": crate::RunKind::Task.tag(),
                "mode": "score",
                "responses": responses,
                "models": models,
            }),
            AnswerSource::Run(run) => json!({
                "kind": crate::RunKind::Task.tag(),
                "mode": "run",
                "run_id": run.run_id,
                "backend": run.backend,
                "models": models,
                "model_settings": run.models,
                "settings": run.settings,
            }),
        },
        evaluator_config: json!({
            "task": {"name": info.name, "version": info.version, "source": info.source},
            "prompt_template": {
                "name": info.prompt_name,
                "version": info.prompt_version,
                "source": info.prompt_source,
            },
            "dataset_format": input.data.format,
            "metrics": metrics,
            "parse_schema": task.schema,
            "default_params": Value::Object(task.default_params.clone()),
            "breakdown": {"dimensions": ["tag", "language", "length"]},
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn the_judge_detail_language_is_the_samples_when_they_share_one() {
        let of = |langs: &[Option<&str>]| shared_language(langs.iter().copied());
        assert_eq!(of(&[Some("ko"), Some("ko")]), Some("ko".into()));
        assert_eq!(of(&[Some("ko"), Some("en")]), None, "mixed");
        assert_eq!(of(&[Some("ko"), None]), None, "one without");
        assert_eq!(of(&[]), None);
    }

    #[test]
    fn report_has_a_model_on_every_aggregate_and_breakdowns_by_tag() {
        let f = fixture();
        let input = f.input();
        let r = build(&input);
        let s = &r.report.summaries[0];
        assert_eq!(
            (s.model.as_deref(), s.metric.as_str()),
            (Some("m1"), "sentiment_acc")
        );
        let v = serde_json::to_value(&r).expect("json");
        let first = &v["report"]["summaries"][0];
        assert_eq!(first["model"], "m1");
        assert_eq!(first["metric"], "sentiment_acc");
        assert!(first["components"].is_object());
        assert_eq!(
            v["report"]["experiment"]["run_config"]["models"],
            json!(["m1", "m2"])
        );
        assert_eq!(
            v["report"]["experiment"]["evaluator_config"]["prompt_template"]["name"],
            "ie_json"
        );
        let tag_rows: Vec<&crate::report::MetricBreakdown> = r
            .report
            .breakdowns
            .iter()
            .filter(|b| b.dimension == "tag")
            .collect();
        assert!(!tag_rows.is_empty());
        assert_eq!(r.report.error_cases.len(), 1);
        assert_eq!(r.report.error_cases[0].trace_id, "m2/S2");
        assert_eq!(r.scores[0].detail["model"], "m1");
        assert_eq!(
            crate::report::outputs::scores_jsonl(&r.scores)
                .lines()
                .count(),
            r.scores.len()
        );
    }
}
