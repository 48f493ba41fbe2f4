//! Spec 001 §7's summary, `metrics_summary.json`: per metric its value and
//! `eligible_count`, `skipped_count`, `failed_count`, and a status that says
//! whether it was computed at all.
//!
//! Decisions where the spec is silent:
//! - Every `turn_eval.jsonl` row falls in exactly one of the three counts of
//!   each metric: `failed` (its `turn_status` is not `ok`), `eligible` (§7,
//!   the row's `eligible_*`), or `skipped` (ok but not eligible;
//!   `skipped_reasons` counts why). An eligible row is `scored` (the value
//!   is over these rows alone), `not_run` (nothing predicted it: no judge
//!   verdict, no trace `compliance`) or `unscored` (the judge's verdict could
//!   not be read after the repairs, or its call failed); never a pass or a
//!   fail. `skipped_reasons` counts the not-run and unscored rows' reasons
//!   too. M1 of a turn without a recall trace is eligible and `not_run`
//!   (see `metrics/m1_memory.rs`): `details.turns_without_recall` counts
//!   those turns and `reason` says so whenever there is one, even beside a
//!   value.
//! - `status`: `ok` (a value over ≥1 scored turn), `no_eligible` (no turn
//!   qualifies), `not_run` (eligible turns, none predicted: `reason` says
//!   what is missing), `unscored` (eligible turns, every verdict unreadable).
//!   `value` is null unless `ok`: never a made-up 0 or 1. The summary's
//!   `judge` names the judge model, each part's prompt id and version, and
//!   the judge's calls, repairs and tokens over the rows (and their cost
//!   when the judge has a price).
//! - Values and details: each metric's own aggregate, in its unit
//!   (`metrics/`, one file per metric with its formula), iterated in
//!   `metrics::REGISTRY` order; the counts and the status are the same for
//!   every metric, here. M1 = hit keys / resolvable keys of scored turns
//!   (micro); M2 = eligible turns with a contradiction / eligible turns
//!   (lower is better); M3 = required tags found / required tags (micro);
//!   M4 = turns whose predicted label equals the ground truth / eligible
//!   turns; M5 = required rubric items met / required items, with the mean
//!   `judge_score_1_5` beside it.

use super::judge::{JudgeInfo, Part};
use super::metrics::{Aggregate, TurnMetric, NAMES, REGISTRY};
use super::trace::{Counters, TRACE_VERSION};
use super::turn_eval::{MetricRun, TurnEval};
use super::vocab::TurnStatus;
use crate::metric::dialog as lines;
use crate::report::LlmJudgeDetail;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One metric of the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialogMetric {
    /// `ok`, `no_eligible`, `not_run` or `unscored`.
    pub status: String,
    /// The value (`null` unless `status` is `ok`).
    pub value: Option<f64>,
    /// Rows eligible by §7.
    pub eligible_count: usize,
    /// Eligible rows scored: the value's rows.
    #[serde(default)]
    pub scored_count: usize,
    /// Eligible rows nothing predicted (no judge verdict, no trace `compliance`).
    #[serde(default)]
    pub not_run_count: usize,
    /// Eligible rows whose judge verdict could not be read or whose judge
    /// call failed (never a pass or a fail).
    #[serde(default)]
    pub unscored_count: usize,
    /// Rows of ok turns not counted.
    pub skipped_count: usize,
    /// Rows of failed turns.
    pub failed_count: usize,
    /// What the value means.
    pub definition: String,
    /// Why the metric did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Skipped, not-run and unscored rows by reason.
    pub skipped_reasons: BTreeMap<String, usize>,
    /// Numerator, denominator and the metric's own extras.
    pub details: Map<String, Value>,
}

/// `metrics_summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricsSummary {
    /// `v1`.
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// The model evaluated.
    pub model_name: String,
    /// Dialog counts (as in the manifest).
    pub counters: Counters,
    /// Rows of `turn_eval.jsonl`.
    pub turn_rows: usize,
    /// Judge verdicts were given for at least one turn.
    pub judge_used: bool,
    /// By metric name (`m1_memory_recall`, ...).
    pub metrics: BTreeMap<String, DialogMetric>,
    /// The judge of the judged metrics, when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSummary>,
    /// Spec 003's `LLMJudgeDetail` of each judged part (M3 and M4 by the
    /// judge, M5's rubric items and its 1-5 score), when a judge ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub llm_judge_details: Vec<LlmJudgeDetail>,
}

/// The judge of a summary: who judged with which prompts, and its calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeSummary {
    /// Model, prompts, repairs allowed, `workers_judge`.
    #[serde(flatten)]
    pub info: JudgeInfo,
    /// Judge calls answered (attempts over the rows, repairs included).
    pub calls: usize,
    /// Repairs asked.
    pub repairs: usize,
    /// Parts whose judge call failed.
    pub failed_calls: usize,
    /// Parts judged: scored and unscored.
    pub scored_parts: usize,
    /// Parts left unscored (unreadable, or the call failed).
    pub unscored_parts: usize,
    /// Judge prompt tokens, over the calls that carried `usage`.
    pub prompt_tokens: u64,
    /// Judge completion tokens, as above.
    pub completion_tokens: u64,
    /// The judging's cost, when the judge has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

impl JudgeSummary {
    fn of(info: &JudgeInfo, rows: &[TurnEval]) -> JudgeSummary {
        let mut s = JudgeSummary {
            info: info.clone(),
            calls: 0,
            repairs: 0,
            failed_calls: 0,
            scored_parts: 0,
            unscored_parts: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost: None,
        };
        for part in rows.iter().flat_map(|r| r.judgements.values()) {
            let n = |k: &str| part.get(k).and_then(Value::as_u64).unwrap_or(0);
            let attempts = part.get("attempts").and_then(Value::as_array);
            s.calls += attempts.map_or(0, Vec::len);
            s.repairs += n("repairs") as usize;
            match part.get("outcome").and_then(Value::as_str) {
                Some("scored") => s.scored_parts += 1,
                Some("failed") => {
                    s.failed_calls += 1;
                    s.unscored_parts += 1;
                }
                _ => s.unscored_parts += 1,
            }
            for a in attempts.into_iter().flatten() {
                let u = |k: &str| {
                    a.get("usage")
                        .and_then(|u| u.get(k))
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                };
                s.prompt_tokens += u("prompt_tokens");
                s.completion_tokens += u("completion_tokens");
            }
        }
        if let (Some(p_in), Some(p_out)) = (info.price_in_per_mtok, info.price_out_per_mtok) {
            s.cost = Some(
                s.prompt_tokens as f64 * p_in / 1e6 + s.completion_tokens as f64 * p_out / 1e6,
            );
        }
        s
    }
}

/// The metric names, in order: the dialog metrics' registry
/// (`metrics::REGISTRY`, their `metric::dialog` lines' order), whose
/// descriptions are each one's `definition`.
pub const METRICS: [&str; NAMES.len()] = NAMES;

struct Tally<'a> {
    /// The scored rows.
    scored: Vec<&'a TurnEval>,
    eligible_count: usize,
    not_run: usize,
    unscored: usize,
    skipped: usize,
    failed: usize,
    reasons: BTreeMap<String, usize>,
}

fn tally<'a>(rows: &'a [TurnEval], m: &TurnMetric) -> Tally<'a> {
    let mut t = Tally {
        scored: Vec::new(),
        eligible_count: 0,
        not_run: 0,
        unscored: 0,
        skipped: 0,
        failed: 0,
        reasons: BTreeMap::new(),
    };
    for r in rows {
        if r.turn_status.is_some_and(|s| s != TurnStatus::Ok) {
            t.failed += 1;
            continue;
        }
        let (eligible, status) = (m.run)(r);
        if eligible {
            t.eligible_count += 1;
            match status {
                MetricRun::Scored => {
                    t.scored.push(r);
                    continue;
                }
                MetricRun::Unscored => t.unscored += 1,
                _ => t.not_run += 1,
            }
        } else {
            t.skipped += 1;
        }
        let why = r.skip_reasons.get(m.key).cloned().unwrap_or_default();
        *t.reasons.entry(why).or_default() += 1;
    }
    t
}

/// A metric over the scored rows of `t`, with its aggregate `a`; `m.not_run`
/// says what a metric that nothing predicted lacked, and the aggregate's own
/// reason, when it gives one, is the metric's.
fn metric(t: Tally<'_>, a: Aggregate, m: &TurnMetric) -> DialogMetric {
    let (status, reason) = if !t.scored.is_empty() {
        ("ok", None)
    } else if t.eligible_count == 0 {
        ("no_eligible", None)
    } else if t.not_run == t.eligible_count {
        ("not_run", Some(m.not_run.to_string()))
    } else {
        ("unscored", None)
    };
    DialogMetric {
        status: status.into(),
        value: a.value.filter(|_| !t.scored.is_empty()),
        eligible_count: t.eligible_count,
        scored_count: t.scored.len(),
        not_run_count: t.not_run,
        unscored_count: t.unscored,
        skipped_count: t.skipped,
        failed_count: t.failed,
        definition: m.ty.description.into(),
        reason: a.reason.or(reason),
        skipped_reasons: t.reasons,
        details: a.details.as_object().cloned().unwrap_or_default(),
    }
}

/// The summary of these rows, without a judge (judged metrics are `not_run`
/// unless verdicts were given for some rows).
pub fn summarize(
    run_id: &str,
    model_name: &str,
    counters: Counters,
    rows: &[TurnEval],
) -> MetricsSummary {
    summarize_judged(run_id, model_name, counters, rows, None)
}

/// The summary of these rows; with `judge`, the judged metrics ran.
pub fn summarize_judged(
    run_id: &str,
    model_name: &str,
    counters: Counters,
    rows: &[TurnEval],
    judge: Option<&JudgeInfo>,
) -> MetricsSummary {
    let judge_used = judge.is_some() || rows.iter().any(|r| !r.judge_raw.is_empty());
    let metrics = REGISTRY
        .iter()
        .map(|m| {
            let t = tally(rows, m);
            let a = (m.aggregate)(&t.scored, rows);
            (m.ty.name.to_string(), metric(t, a, m))
        })
        .collect();
    MetricsSummary {
        trace_version: TRACE_VERSION.into(),
        run_id: run_id.into(),
        model_name: model_name.into(),
        counters,
        turn_rows: rows.len(),
        judge_used,
        metrics,
        judge: judge.map(|j| JudgeSummary::of(j, rows)),
        llm_judge_details: judge.map(|j| judge_details(j, rows)).unwrap_or_default(),
    }
}

/// The metric a judged part scores, and the criteria it is shown.
fn part_metric(part: Part) -> (&'static str, &'static str) {
    match part {
        Part::RiskTags => (
            lines::M3_RISK_DISCLOSURE_JUDGE.name,
            "which of the turn's required risk tags the answer discloses",
        ),
        Part::ComplianceLabel => (
            lines::M4_COMPLIANCE_JUDGE.name,
            "the answer's compliance label",
        ),
        Part::RubricHitItems => (
            lines::M5_EXPLAINABILITY.name,
            "which of the turn's rubric items the answer meets",
        ),
        Part::Score1To5 => (
            lines::M5_EXPLAINABILITY.name,
            "how well the answer explains itself, 1 to 5",
        ),
    }
}

/// Spec 003's `LLMJudgeDetail` of each part the judge was asked about: its
/// prompt, the turns judged (`dialog_id#turn_pair_id`), and how many of
/// them came back scored. Dialogs carry no language, so `language` is null;
/// the prompt's language is `prompt_language`.
fn judge_details(judge: &JudgeInfo, rows: &[TurnEval]) -> Vec<LlmJudgeDetail> {
    Part::ALL
        .iter()
        .filter_map(|&part| {
            let judged: Vec<(&TurnEval, &Value)> = rows
                .iter()
                .filter_map(|r| r.judgements.get(part.key()).map(|v| (r, v)))
                .collect();
            let prompt = judge.prompts.get(part.key());
            if judged.is_empty() && prompt.is_none() {
                return None;
            }
            let (metric, criteria) = part_metric(part);
            let scored = judged
                .iter()
                .filter(|(_, v)| v.get("outcome").and_then(Value::as_str) == Some("scored"))
                .count();
            let unscored = judged.len() - scored;
            Some(LlmJudgeDetail {
                model: None,
                metric: metric.to_string(),
                prompt_id: prompt
                    .map_or(part.prompt_id(), |p| p.id.as_str())
                    .to_string(),
                prompt_version: prompt.map(|p| p.version.clone()).unwrap_or_default(),
                language: None,
                prompt_language: prompt.map(|p| p.language.clone()),
                criteria: vec![criteria.to_string()],
                sample_count: judged.len(),
                sample_ids: judged
                    .iter()
                    .map(|(r, _)| format!("{}#{}", r.dialog_id, r.turn_pair_id))
                    .collect(),
                judge_model: Some(judge.model.clone()),
                prompt_source: prompt.map(|p| p.source.clone()),
                samples_per_case: 1,
                unscored,
                unscored_rate: (!judged.is_empty()).then(|| unscored as f64 / judged.len() as f64),
                repairs: judged
                    .iter()
                    .filter_map(|(_, v)| v.get("repairs").and_then(Value::as_u64))
                    .sum::<u64>() as usize,
                ..LlmJudgeDetail::default()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::metrics::m1_memory::NO_RESOLVABLE_KEY;
    use super::super::metrics::testing::*;

    #[test]
    fn the_summary_counts_every_row_once_per_metric_and_reports_judged_metrics_not_run() {
        let d = dialog();
        let mut t2 = turn(&d, 2, "", TurnStatus::Error);
        t2.pred_assistant_text = None;
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "您是稳健型，市场不确定", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                t2,
            ],
        );
        let rows = score_dialog(&d, &tr, None, CONVERSATION);
        let s = summarize("r", "m", Counters::default(), &rows);
        for (name, m) in &s.metrics {
            assert_eq!(
                m.eligible_count + m.skipped_count + m.failed_count,
                3,
                "{name}"
            );
            assert_eq!(m.failed_count, 1, "{name}");
        }
        let m1 = &s.metrics["m1_memory_recall"];
        assert_eq!(
            (
                m1.status.as_str(),
                m1.eligible_count,
                m1.scored_count,
                m1.unscored_count,
                m1.value
            ),
            ("ok", 2, 1, 1, Some(1.0))
        );
        assert_eq!(m1.skipped_reasons.get(NO_RESOLVABLE_KEY), Some(&1));
        let m3 = &s.metrics["m3_risk_disclosure"];
        assert_eq!(
            m3.value,
            Some(0.5),
            "1 of 2 required tags (the unknown one cannot be hit)"
        );
        let m4 = &s.metrics["m4_compliance"];
        assert_eq!(
            (
                m4.status.as_str(),
                m4.value,
                m4.eligible_count,
                m4.not_run_count
            ),
            ("not_run", None, 2, 2),
            "the ground truth is there, the trace has no compliance"
        );
        for name in [
            "m3_risk_disclosure_judge",
            "m4_compliance_judge",
            "m5_explainability",
        ] {
            let m = &s.metrics[name];
            assert_eq!(
                (m.status.as_str(), m.value, m.scored_count),
                ("not_run", None, 0),
                "{name}"
            );
            assert_eq!(m.not_run_count, m.eligible_count, "{name}");
            assert!(m.reason.as_deref().unwrap_or_default().contains("judge"));
        }
        assert!(!s.judge_used);
    }
}
