//! M5, explainability: does the answer explain itself as the turn's rubric
//! asks? Needs the judge: the rubric items it says the answer meets
//! (`rubric_hit_items`, kept only when required) and an overall score
//! (`judge_score_1_5`, kept only when in 1 to 5).
//!
//! Formula: required rubric items the judge says are met / required items,
//! summed over the scored turns that have the judge's items (micro); the
//! mean `judge_score_1_5` beside it.
//!
//! Per turn: eligible (§7) when the turn is `ok` and
//! `explainability_rubric_gt` is not empty; scored when the judge gave
//! either part; `not_run` without a verdict; `unscored` when neither part
//! could be read (or their calls failed).
//!
//! Aggregate: `details` has `required_items`, `met_items`,
//! `mean_judge_score_1_5` and `scored_turns` (turns with a score).

use super::unit::{ratio, Aggregate, TurnInput, TurnMetric};
use super::unit::{JUDGE_FAILED, NO_JUDGE, NO_JUDGE_MODEL, UNSCORED};
use crate::dialog::turn_eval::{JudgedPart, MetricRun, TurnEval};
use crate::metric::dialog as lines;
use serde_json::json;

/// M5's unit.
pub const M5: TurnMetric = TurnMetric {
    ty: &lines::M5_EXPLAINABILITY,
    key: "m5",
    run: |r| (r.eligible_m5, r.m5_status),
    aggregate,
    not_run: NO_JUDGE_MODEL,
};

pub(super) fn score(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let rubric = &t.pair.tags.explainability_rubric_gt;
    let rubric_part = t.judged.and_then(|j| j.rubric_hit_items.as_ref());
    let score_part = t.judged.and_then(|j| j.score_1_5.as_ref());
    let rubric_hits: Option<Vec<String>> =
        rubric_part.and_then(|r| r.value.as_ref()).map(|items| {
            rubric
                .iter()
                .filter(|req| items.iter().any(|i| i.trim() == req.trim()))
                .cloned()
                .collect()
        });
    let score = score_part
        .and_then(|s| s.value)
        .filter(|s| (1.0..=5.0).contains(s));
    let eligible = t.ok() && !rubric.is_empty();
    let (status, why) = if rubric.is_empty() {
        (MetricRun::NotEligible, Some("no explainability_rubric_gt"))
    } else {
        let failed = |p: Option<&JudgedPart<_>>| p.is_none_or(|p| p.error.is_some());
        let why = match (rubric_part, score_part) {
            _ if rubric_hits.is_some() || score.is_some() => None,
            (None, None) => Some(NO_JUDGE),
            (r, s) if failed(r) && s.is_none_or(|s| s.error.is_some()) => Some(JUDGE_FAILED),
            _ => Some(UNSCORED),
        };
        let status = match why {
            None => MetricRun::Scored,
            Some(NO_JUDGE) => MetricRun::NotRun,
            Some(_) => MetricRun::Unscored,
        };
        (status, why)
    };
    row.eligible_m5 = eligible;
    row.m5_status = if eligible {
        status
    } else {
        MetricRun::NotEligible
    };
    let ok = t.ok();
    row.rubric_required = rubric.clone();
    row.rubric_hit_items = rubric_hits.filter(|_| ok);
    row.judge_score_1_5 = score.filter(|_| ok);
    why
}

fn aggregate(scored: &[&TurnEval], _rows: &[TurnEval]) -> Aggregate {
    let required: usize = scored
        .iter()
        .filter(|r| r.rubric_hit_items.is_some())
        .map(|r| r.rubric_required.len())
        .sum();
    let met: usize = scored
        .iter()
        .filter_map(|r| r.rubric_hit_items.as_ref())
        .map(Vec::len)
        .sum();
    let scores: Vec<f64> = scored.iter().filter_map(|r| r.judge_score_1_5).collect();
    let mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
    Aggregate {
        value: ratio(met, required),
        details: json!({"required_items": required, "met_items": met, "mean_judge_score_1_5": mean, "scored_turns": scores.len()}),
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::dialog::turn_eval::TurnJudgement;
    use crate::dialog::vocab::ComplianceLabel;
    use std::collections::BTreeMap;

    #[test]
    fn judge_verdicts_plug_in_and_unscored_ones_count_nowhere() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "市场不确定", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                turn(&d, 2, "z", TurnStatus::Ok),
            ],
        );
        let judged = |v: Option<Vec<&str>>| JudgedPart {
            value: v.map(|v| v.into_iter().map(str::to_string).collect()),
            raw: "GRADE: ...".to_string(),
            error: None,
        };
        let mut j = BTreeMap::new();
        j.insert(
            1,
            TurnJudgement {
                risk_tags: Some(judged(Some(vec!["市场不确定性", "汇率风险"]))),
                compliance_label: Some(JudgedPart {
                    value: Some(ComplianceLabel::Compliant),
                    raw: "compliant".into(),
                    error: None,
                }),
                rubric_hit_items: Some(judged(Some(vec!["信息依据", "不在要求里"]))),
                score_1_5: Some(JudgedPart {
                    value: Some(4.0),
                    raw: "4".into(),
                    error: None,
                }),
                detail: BTreeMap::new(),
            },
        );
        j.insert(
            3,
            TurnJudgement {
                rubric_hit_items: Some(judged(None)),
                score_1_5: Some(JudgedPart {
                    value: Some(9.0),
                    raw: "9/10".into(),
                    error: None,
                }),
                ..TurnJudgement::default()
            },
        );
        let rows = score_dialog(&d, &tr, Some(&j), RECALL);
        let r = &rows[0];
        assert!(r.eligible_m3_judge && r.eligible_m4_judge && r.eligible_m5);
        assert_eq!(
            (r.m3_judge_status, r.m4_judge_status, r.m5_status),
            (MetricRun::Scored, MetricRun::Scored, MetricRun::Scored)
        );
        assert_eq!(r.risk_tag_hits_judge, Some(2));
        assert_eq!(
            r.rubric_hit_items.as_deref(),
            Some(&["信息依据".to_string()][..])
        );
        assert_eq!(r.judge_score_1_5, Some(4.0));
        assert_eq!(r.judge_raw.get("score_1_5").map(String::as_str), Some("4"));
        let r = &rows[2];
        assert!(r.eligible_m5, "§7 alone: a rubric is there");
        assert_eq!(
            r.m5_status,
            MetricRun::Unscored,
            "an unscored rubric and an out-of-scale score count nowhere"
        );
        assert_eq!(
            rows[1].m5_status,
            MetricRun::NotEligible,
            "pair 2 has no rubric"
        );
        assert_eq!(r.skip_reasons.get("m5").map(String::as_str), Some(UNSCORED));
        let s = summarize("r", "m", Counters::default(), &rows);
        let m5 = &s.metrics["m5_explainability"];
        assert_eq!(
            (
                m5.status.as_str(),
                m5.eligible_count,
                m5.scored_count,
                m5.unscored_count,
                m5.skipped_count
            ),
            ("ok", 2, 1, 1, 1)
        );
        assert_eq!(m5.value, Some(0.5));
        assert_eq!(s.metrics["m3_risk_disclosure_judge"].value, Some(1.0));
    }
}
