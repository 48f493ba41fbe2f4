//! Spec 001 §7's summary, `metrics_summary.json`: per metric its value and
//! `eligible_count`, `skipped_count`, `failed_count`, and a status that says
//! whether it was computed at all.
//!
//! Decisions where the spec is silent:
//! - Every `turn_eval.jsonl` row falls in exactly one of the three counts of
//!   each metric: `failed` (its `turn_status` is not `ok`), `eligible`, or
//!   `skipped` (ok but not eligible; `skipped_reasons` counts why).
//! - `status`: `ok` (a value over ≥1 eligible turn), `no_eligible` (the
//!   metric could run but no turn qualifies: `value` null), `not_run` (a
//!   judged metric and no judge verdict at all: `value` null, `eligible_count`
//!   0, `reason` says so). Never a made-up 0 or 1.
//! - With a judge (`summarize_judged`), judged metrics are never `not_run`;
//!   a turn whose verdict is unscored (unreadable after the repairs, or the
//!   judge call failed) is skipped, out of the denominator, and counted in
//!   the metric's `unscored_count`. The summary's `judge` names the judge
//!   model, each part's prompt id and version, and the judge's calls,
//!   repairs and tokens over the rows (and their cost when the judge has a
//!   price).
//! - Values: M1 = hit keys / resolvable keys of eligible turns (micro);
//!   M2 = eligible turns with a contradiction / eligible turns (lower is
//!   better); M3 = required tags found / required tags (micro); M4 = turns
//!   whose predicted label equals the ground truth / eligible turns; M5 =
//!   required rubric items met / required items, with the mean
//!   `judge_score_1_5` beside it.

use super::judge::JudgeInfo;
use super::score::TurnEval;
use super::trace::{Counters, TRACE_VERSION};
use super::vocab::TurnStatus;
use crate::metric::kinds;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One metric of the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialogMetric {
    /// `ok`, `no_eligible` or `not_run`.
    pub status: String,
    /// The value (`null` unless `status` is `ok`).
    pub value: Option<f64>,
    /// Rows counted.
    pub eligible_count: usize,
    /// Rows of ok turns not counted.
    pub skipped_count: usize,
    /// Rows of failed turns.
    pub failed_count: usize,
    /// What the value means.
    pub definition: String,
    /// Why the metric did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Skipped rows by reason.
    pub skipped_reasons: BTreeMap<String, usize>,
    /// Judged metrics: skipped rows whose verdict is unscored (never a pass
    /// or a fail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unscored_count: Option<usize>,
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
    eligible: Vec<&'a TurnEval>,
    skipped: usize,
    failed: usize,
    reasons: BTreeMap<String, usize>,
}

fn tally<'a>(rows: &'a [TurnEval], key: &str, eligible: fn(&TurnEval) -> bool) -> Tally<'a> {
    let mut t = Tally {
        eligible: Vec::new(),
        skipped: 0,
        failed: 0,
        reasons: BTreeMap::new(),
    };
    for r in rows {
        if r.turn_status != TurnStatus::Ok {
            t.failed += 1;
        } else if eligible(r) {
            t.eligible.push(r);
        } else {
            t.skipped += 1;
            let why = r.skip_reasons.get(key).cloned().unwrap_or_default();
            *t.reasons.entry(why).or_default() += 1;
        }
    }
    t
}

fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

fn metric(t: Tally<'_>, value: Option<f64>, definition: &str, details: Value) -> DialogMetric {
    let status = if t.eligible.is_empty() {
        "no_eligible"
    } else {
        "ok"
    };
    DialogMetric {
        status: status.into(),
        value: value.filter(|_| !t.eligible.is_empty()),
        eligible_count: t.eligible.len(),
        skipped_count: t.skipped,
        failed_count: t.failed,
        definition: definition.into(),
        reason: None,
        unscored_count: None,
        skipped_reasons: t.reasons,
        details: details.as_object().cloned().unwrap_or_default(),
    }
}

/// A judged metric without any judge verdict: not run.
fn not_run(mut m: DialogMetric) -> DialogMetric {
    m.status = "not_run".into();
    m.value = None;
    m.skipped_count += m.eligible_count;
    m.eligible_count = 0;
    m.reason =
        Some("no judge model: this metric needs a judge's verdicts and none were given".into());
    m
}

/// Counts a judged metric's unscored rows.
fn with_unscored(mut m: DialogMetric) -> DialogMetric {
    let n = m
        .skipped_reasons
        .iter()
        .filter(|(why, _)| why.starts_with("unscored"))
        .map(|(_, n)| n)
        .sum();
    m.unscored_count = Some(n);
    m
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
    let ran = |part: &str| judge.is_some() || rows.iter().any(|r| r.judge_raw.contains_key(part));
    let mut metrics = BTreeMap::new();

    let t = tally(rows, "m1", |r| r.eligible_m1);
    let hit: usize = t
        .eligible
        .iter()
        .map(|r| {
            r.key_hit_flags
                .iter()
                .flatten()
                .map(|f| usize::from(*f))
                .sum::<usize>()
        })
        .sum();
    let resolvable: usize = t
        .eligible
        .iter()
        .map(|r| r.key_hit_flags.iter().flatten().count())
        .sum();
    let unresolvable: usize = t
        .eligible
        .iter()
        .map(|r| r.key_hit_flags.iter().filter(|f| f.is_none()).count())
        .sum();
    let src = |f: fn(&TurnEval) -> usize| -> usize { t.eligible.iter().map(|r| f(r)).sum() };
    let details = json!({
        "hit_keys": hit, "resolvable_keys": resolvable, "unresolvable_keys": unresolvable,
        "source_hits": {"short_term": src(|r| r.m1_source_hits.short_term),
                        "long_term": src(|r| r.m1_source_hits.long_term),
                        "profile": src(|r| r.m1_source_hits.profile)},
    });
    let v = ratio(hit, resolvable);
    metrics.insert(
        METRICS[0].to_string(),
        metric(t, v, kinds::M1_MEMORY_RECALL.description, details),
    );

    let t = tally(rows, "m2", |r| r.eligible_m2);
    let bad = t
        .eligible
        .iter()
        .filter(|r| r.constraint_contradiction == 1)
        .count();
    let v = ratio(bad, t.eligible.len());
    let details = json!({"contradiction_turns": bad});
    metrics.insert(
        METRICS[1].to_string(),
        metric(
            t,
            v,
            kinds::M2_CONSTRAINT_CONTRADICTION.description,
            details,
        ),
    );

    let m3 = |t: Tally<'_>, hits: fn(&TurnEval) -> usize, def: &str| {
        let required: usize = t.eligible.iter().map(|r| r.risk_required_tags.len()).sum();
        let found: usize = t.eligible.iter().map(|r| hits(r)).sum();
        let full = t
            .eligible
            .iter()
            .filter(|r| hits(r) == r.risk_required_tags.len())
            .count();
        let details = json!({"required_tags": required, "hit_tags": found, "full_coverage_turns": full,
            "full_coverage_rate": ratio(full, t.eligible.len())});
        let v = ratio(found, required);
        metric(t, v, def, details)
    };
    let t = tally(rows, "m3", |r| r.eligible_m3);
    metrics.insert(
        METRICS[2].to_string(),
        m3(
            t,
            |r| r.risk_tag_hits,
            kinds::M3_RISK_DISCLOSURE.description,
        ),
    );
    let t = tally(rows, "m3_judge", |r| r.eligible_m3_judge);
    let m = m3(
        t,
        |r| r.risk_tag_hits_judge.unwrap_or(0),
        kinds::M3_RISK_DISCLOSURE_JUDGE.description,
    );
    metrics.insert(
        METRICS[3].to_string(),
        if ran("risk_tags") {
            with_unscored(m)
        } else {
            not_run(m)
        },
    );

    let m4 = |t: Tally<'_>,
              pred: fn(&TurnEval) -> Option<super::vocab::ComplianceLabel>,
              def: &str| {
        let agree = t
            .eligible
            .iter()
            .filter(|r| pred(r) == r.gt_compliance_label)
            .count();
        let mut confusion: BTreeMap<String, usize> = BTreeMap::new();
        for r in &t.eligible {
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
        let v = ratio(agree, t.eligible.len());
        metric(t, v, def, details)
    };
    let t = tally(rows, "m4", |r| r.eligible_m4);
    metrics.insert(
        METRICS[4].to_string(),
        m4(
            t,
            |r| r.pred_compliance_label,
            kinds::M4_COMPLIANCE.description,
        ),
    );
    let t = tally(rows, "m4_judge", |r| r.eligible_m4_judge);
    let m = m4(
        t,
        |r| r.pred_compliance_label_judge,
        kinds::M4_COMPLIANCE_JUDGE.description,
    );
    metrics.insert(
        METRICS[5].to_string(),
        if ran("compliance_label") {
            with_unscored(m)
        } else {
            not_run(m)
        },
    );

    let t = tally(rows, "m5", |r| r.eligible_m5);
    let required: usize = t
        .eligible
        .iter()
        .filter(|r| r.rubric_hit_items.is_some())
        .map(|r| r.rubric_required.len())
        .sum();
    let met: usize = t
        .eligible
        .iter()
        .filter_map(|r| r.rubric_hit_items.as_ref())
        .map(Vec::len)
        .sum();
    let scores: Vec<f64> = t
        .eligible
        .iter()
        .filter_map(|r| r.judge_score_1_5)
        .collect();
    let mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
    let details = json!({"required_items": required, "met_items": met, "mean_judge_score_1_5": mean, "scored_turns": scores.len()});
    let v = ratio(met, required);
    let mut m = metric(t, v, kinds::M5_EXPLAINABILITY.description, details);
    if m.value.is_none() && mean.is_some() {
        m.status = "ok".into();
    }
    let judged5 = ran("rubric_hit_items") || ran("score_1_5");
    metrics.insert(
        METRICS[6].to_string(),
        if judged5 {
            with_unscored(m)
        } else {
            not_run(m)
        },
    );

    MetricsSummary {
        trace_version: TRACE_VERSION.into(),
        run_id: run_id.into(),
        model_name: model_name.into(),
        counters,
        turn_rows: rows.len(),
        judge_used,
        metrics,
        judge: judge.map(|j| JudgeSummary::of(j, rows)),
    }
}
