//! The one report builder: every kind of run (the RAG check, task runs, and
//! the kinds to come) hands over its rows per model, and this file assembles
//! spec 003's `EvaluationResult` from them the same way: scores in case order
//! model by model, one summary per model and metric, breakdowns by tag,
//! language and length, error cases, and the run's counts.

use super::aggregate::breakdowns;
use super::*;
use crate::dataset::LineError;

/// One model's part of a report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelRows {
    /// The model's name on every row; `None` for a run whose one model is
    /// described in `run_config` only (the RAG check).
    pub model: Option<String>,
    /// Its scores, case by case, metrics in order.
    pub scores: Vec<EvalScore>,
    /// Its summary per metric, in metric order (the kind aggregates: a mean
    /// of 0/1 verdicts, or a metric's own aggregate with its components).
    pub summaries: Vec<MetricSummary>,
    /// Its cases whose call did not succeed.
    pub errors: Vec<ErrorCase>,
    /// Its tokens, latency and cost.
    pub usage: Option<ModelUsage>,
}

/// What a kind hands to the builder.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportParts {
    /// Run-level counts.
    pub metrics: ReportMetrics,
    /// One verdict per case × model, when the kind gives them.
    pub cases: Vec<CaseVerdict>,
    /// The models' rows, in report order.
    pub models: Vec<ModelRows>,
    /// Metric names in report order (breakdowns follow it).
    pub metric_names: Vec<String>,
    /// Dataset, run config, evaluator config, run identity.
    pub experiment: ExperimentMetadata,
    /// Skipped input lines, when the kind reports them in `report.json`.
    pub line_errors: Option<Vec<LineError>>,
    /// One per judged metric and model (none for kinds without a judge).
    pub llm_judge_details: Vec<LlmJudgeDetail>,
}

/// Assembles the final report.
pub fn assemble(parts: ReportParts) -> EvaluationResult {
    let names: Vec<&str> = parts.metric_names.iter().map(String::as_str).collect();
    let mut scores = Vec::new();
    let mut summaries = Vec::new();
    let mut breakdown_rows = Vec::new();
    let mut error_cases = Vec::new();
    let mut usage = Vec::new();
    for m in parts.models {
        usage.extend(m.usage);
        let model = m.model;
        let tag = |x: Option<String>| x.or_else(|| model.clone());
        breakdown_rows.extend(
            breakdowns(&m.scores, &names)
                .into_iter()
                .map(|b| MetricBreakdown {
                    model: tag(b.model.clone()),
                    ..b
                }),
        );
        summaries.extend(m.summaries.into_iter().map(|s| MetricSummary {
            model: tag(s.model.clone()),
            ..s
        }));
        error_cases.extend(m.errors.into_iter().map(|e| ErrorCase {
            model: tag(e.model.clone()),
            ..e
        }));
        scores.extend(m.scores);
    }
    let mut experiment = parts.experiment;
    if let Some(run) = &mut experiment.run {
        run.latency = usage.iter().map(ModelLatency::from).collect();
    }
    EvaluationResult {
        metrics: parts.metrics,
        cases: parts.cases,
        scores,
        report: EvaluationReport {
            experiment,
            summaries,
            breakdowns: breakdown_rows,
            error_cases,
            llm_judge_details: parts.llm_judge_details,
            line_errors: parts.line_errors,
            usage,
            repeats: None,
        },
    }
}
