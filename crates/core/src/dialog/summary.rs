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
//!   (see `score.rs`): `details.turns_without_recall` counts those turns and
//!   `reason` says so whenever there is one, even beside a value.
//! - `status`: `ok` (a value over ≥1 scored turn), `no_eligible` (no turn
//!   qualifies), `not_run` (eligible turns, none predicted: `reason` says
//!   what is missing), `unscored` (eligible turns, every verdict unreadable).
//!   `value` is null unless `ok`: never a made-up 0 or 1. The summary's
//!   `judge` names the judge model, each part's prompt id and version, and
//!   the judge's calls, repairs and tokens over the rows (and their cost
//!   when the judge has a price).
//! - Values: M1 = hit keys / resolvable keys of scored turns (micro);
//!   M2 = eligible turns with a contradiction / eligible turns (lower is
//!   better); M3 = required tags found / required tags (micro); M4 = turns
//!   whose predicted label equals the ground truth / eligible turns; M5 =
//!   required rubric items met / required items, with the mean
//!   `judge_score_1_5` beside it.

use super::judge::{JudgeInfo, Part};
use super::score::{MetricRun, TurnEval, NO_RECALL};
use super::trace::{Counters, TRACE_VERSION};
use super::vocab::TurnStatus;
use crate::metric::kinds;
use crate::report::LlmJudgeDetail;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
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

/// The metric names, in order: their registry lines' (`metric::kinds`),
/// whose descriptions are each one's `definition`.
pub const METRICS: [&str; 7] = [
    kinds::M1_MEMORY_RECALL.name,
    kinds::M2_CONSTRAINT_CONTRADICTION.name,
    kinds::M3_RISK_DISCLOSURE.name,
    kinds::M3_RISK_DISCLOSURE_JUDGE.name,
    kinds::M4_COMPLIANCE.name,
    kinds::M4_COMPLIANCE_JUDGE.name,
    kinds::M5_EXPLAINABILITY.name,
];

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

fn tally<'a>(
    rows: &'a [TurnEval],
    key: &str,
    eligible: fn(&TurnEval) -> bool,
    status: fn(&TurnEval) -> MetricRun,
) -> Tally<'a> {
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
        if eligible(r) {
            t.eligible_count += 1;
            match status(r) {
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
        let why = r.skip_reasons.get(key).cloned().unwrap_or_default();
        *t.reasons.entry(why).or_default() += 1;
    }
    t
}

fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// A metric over the scored rows of `t`; `missing` says what a metric that
/// nothing predicted lacked.
fn metric(
    t: Tally<'_>,
    value: Option<f64>,
    definition: &str,
    details: Value,
    missing: &str,
) -> DialogMetric {
    let (status, reason) = if !t.scored.is_empty() {
        ("ok", None)
    } else if t.eligible_count == 0 {
        ("no_eligible", None)
    } else if t.not_run == t.eligible_count {
        ("not_run", Some(missing.to_string()))
    } else {
        ("unscored", None)
    };
    DialogMetric {
        status: status.into(),
        value: value.filter(|_| !t.scored.is_empty()),
        eligible_count: t.eligible_count,
        scored_count: t.scored.len(),
        not_run_count: t.not_run,
        unscored_count: t.unscored,
        skipped_count: t.skipped,
        failed_count: t.failed,
        definition: definition.into(),
        reason,
        skipped_reasons: t.reasons,
        details: details.as_object().cloned().unwrap_or_default(),
    }
}

const NO_JUDGE: &str = "no judge model: this metric needs a judge's verdicts and none were given";

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
    let mut metrics = BTreeMap::new();

    let t = tally(rows, "m1", |r| r.eligible_m1, |r| r.m1_status);
    let without_recall = rows
        .iter()
        .filter(|r| r.m1_status == MetricRun::NotRun)
        .count();
    let hit: usize = t
        .scored
        .iter()
        .map(|r| {
            r.key_hit_flags
                .iter()
                .map(|f| usize::from(*f))
                .sum::<usize>()
        })
        .sum();
    let resolvable: usize = t.scored.iter().map(|r| r.key_hit_flags.len()).sum();
    let unresolvable: usize = t
        .scored
        .iter()
        .map(|r| r.resolved_keys.iter().filter(|k| !k.resolvable).count())
        .sum();
    let src = |f: fn(&TurnEval) -> usize| -> usize { t.scored.iter().map(|r| f(r)).sum() };
    let details = json!({
        "hit_keys": hit, "resolvable_keys": resolvable, "unresolvable_keys": unresolvable,
        "turns_without_recall": without_recall,
        "source_hits": {"short_term": src(|r| r.m1_source_hits.short_term),
                        "long_term": src(|r| r.m1_source_hits.long_term),
                        "profile": src(|r| r.m1_source_hits.profile)},
    });
    let v = ratio(hit, resolvable);
    let mut m1 = metric(
        t,
        v,
        kinds::M1_MEMORY_RECALL.description,
        details,
        NO_RECALL,
    );
    if without_recall > 0 {
        m1.reason = Some(format!(
            "{without_recall} eligible turn(s) had no recall trace: {NO_RECALL}"
        ));
    }
    metrics.insert(METRICS[0].to_string(), m1);

    let t = tally(rows, "m2", |r| r.eligible_m2, |r| r.m2_status);
    let bad = t
        .scored
        .iter()
        .filter(|r| r.constraint_contradiction == 1)
        .count();
    let v = ratio(bad, t.scored.len());
    let details = json!({"contradiction_turns": bad});
    metrics.insert(
        METRICS[1].to_string(),
        metric(
            t,
            v,
            kinds::M2_CONSTRAINT_CONTRADICTION.description,
            details,
            "",
        ),
    );

    let m3 = |t: Tally<'_>, hits: fn(&TurnEval) -> usize, def: &str, missing: &str| {
        let required: usize = t.scored.iter().map(|r| r.risk_required_tags.len()).sum();
        let found: usize = t.scored.iter().map(|r| hits(r)).sum();
        let full = t
            .scored
            .iter()
            .filter(|r| hits(r) == r.risk_required_tags.len())
            .count();
        let details = json!({"required_tags": required, "hit_tags": found, "full_coverage_turns": full,
            "full_coverage_rate": ratio(full, t.scored.len())});
        let v = ratio(found, required);
        metric(t, v, def, details, missing)
    };
    let t = tally(rows, "m3", |r| r.eligible_m3, |r| r.m3_status);
    metrics.insert(
        METRICS[2].to_string(),
        m3(
            t,
            |r| r.risk_tag_hits,
            kinds::M3_RISK_DISCLOSURE.description,
            "",
        ),
    );
    let t = tally(
        rows,
        "m3_judge",
        |r| r.eligible_m3_judge,
        |r| r.m3_judge_status,
    );
    let m = m3(
        t,
        |r| r.risk_tag_hits_judge.unwrap_or(0),
        kinds::M3_RISK_DISCLOSURE_JUDGE.description,
        NO_JUDGE,
    );
    metrics.insert(METRICS[3].to_string(), m);

    let m4 = |t: Tally<'_>,
              pred: fn(&TurnEval) -> Option<super::vocab::ComplianceLabel>,
              def: &str,
              missing: &str| {
        let agree = t
            .scored
            .iter()
            .filter(|r| pred(r) == r.gt_compliance_label)
            .count();
        let mut confusion: BTreeMap<String, usize> = BTreeMap::new();
        for r in &t.scored {
            let name = |l: Option<super::vocab::ComplianceLabel>| l.map_or("none", |l| l.as_str());
            *confusion
                .entry(format!(
                    "{}->{}",
                    name(r.gt_compliance_label),
                    name(pred(r))
                ))
                .or_default() += 1;
        }
        let details = json!({"agree_turns": agree, "confusion_gt_to_pred": confusion});
        let v = ratio(agree, t.scored.len());
        metric(t, v, def, details, missing)
    };
    let t = tally(rows, "m4", |r| r.eligible_m4, |r| r.m4_status);
    metrics.insert(
        METRICS[4].to_string(),
        m4(
            t,
            |r| r.pred_compliance_label,
            kinds::M4_COMPLIANCE.description,
            "the trace has no compliance for any eligible turn",
        ),
    );
    let t = tally(
        rows,
        "m4_judge",
        |r| r.eligible_m4_judge,
        |r| r.m4_judge_status,
    );
    let m = m4(
        t,
        |r| r.pred_compliance_label_judge,
        kinds::M4_COMPLIANCE_JUDGE.description,
        NO_JUDGE,
    );
    metrics.insert(METRICS[5].to_string(), m);

    let t = tally(rows, "m5", |r| r.eligible_m5, |r| r.m5_status);
    let required: usize = t
        .scored
        .iter()
        .filter(|r| r.rubric_hit_items.is_some())
        .map(|r| r.rubric_required.len())
        .sum();
    let met: usize = t
        .scored
        .iter()
        .filter_map(|r| r.rubric_hit_items.as_ref())
        .map(Vec::len)
        .sum();
    let scores: Vec<f64> = t.scored.iter().filter_map(|r| r.judge_score_1_5).collect();
    let mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
    let details = json!({"required_items": required, "met_items": met, "mean_judge_score_1_5": mean, "scored_turns": scores.len()});
    let v = ratio(met, required);
    let m = metric(
        t,
        v,
        kinds::M5_EXPLAINABILITY.description,
        details,
        NO_JUDGE,
    );
    metrics.insert(METRICS[6].to_string(), m);

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
            kinds::M3_RISK_DISCLOSURE_JUDGE.name,
            "which of the turn's required risk tags the answer discloses",
        ),
        Part::ComplianceLabel => (
            kinds::M4_COMPLIANCE_JUDGE.name,
            "the answer's compliance label",
        ),
        Part::RubricHitItems => (
            kinds::M5_EXPLAINABILITY.name,
            "which of the turn's rubric items the answer meets",
        ),
        Part::Score1To5 => (
            kinds::M5_EXPLAINABILITY.name,
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
