//! M3, risk disclosure: does the answer disclose the risks the turn
//! requires? Two units over the same requirement, scored apart: by the
//! lexicon ([`M3`]) and by the judge ([`M3_JUDGE`]).
//!
//! Formula: required tags found / required tags, summed over the scored
//! turns (micro). The required tags are `risk_disclosure_required_gt`
//! mapped to the canonical set (`risk_required_tags`; a name outside it is
//! kept as written, in `risk_required_unknown`, and only a judge can find
//! it). The lexicon's tags are `risk_pred_tags` (`risk_pred_source:
//! "lexicon"`), found in the answer by `vocab::predict_tags`; the judge's are
//! `risk_pred_tags_judge`, canonical (`null` without a verdict).
//!
//! Per turn: eligible (§7) when the turn is `ok` and a tag is required, for
//! both. By the lexicon an eligible turn is always scored; by the judge it
//! is `not_run` without a verdict, `unscored` when the verdict could not be
//! read or the call failed.
//!
//! Aggregate: `details` has `required_tags`, `hit_tags`,
//! `full_coverage_turns` (scored turns with every required tag found) and
//! `full_coverage_rate`.

use super::unit::NO_JUDGE_MODEL;
use super::unit::{judge_skip, judged_status, ratio, Aggregate, TurnInput, TurnMetric};
use crate::dialog::turn_eval::{MetricRun, TurnEval};
use crate::dialog::vocab::{canonical_tag, predict_tags};
use crate::metric::dialog as lines;
use serde_json::json;

/// M3 by the lexicon.
pub const M3: TurnMetric = TurnMetric {
    ty: &lines::M3_RISK_DISCLOSURE,
    key: "m3",
    run: |r| (r.eligible_m3, r.m3_status),
    aggregate: |scored, _| aggregate_by(scored, |r| r.risk_tag_hits),
    not_run: "",
};

/// M3 by the judge.
pub const M3_JUDGE: TurnMetric = TurnMetric {
    ty: &lines::M3_RISK_DISCLOSURE_JUDGE,
    key: "m3_judge",
    run: |r| (r.eligible_m3_judge, r.m3_judge_status),
    aggregate: |scored, _| aggregate_by(scored, |r| r.risk_tag_hits_judge.unwrap_or(0)),
    not_run: NO_JUDGE_MODEL,
};

const NO_REQUIRED: &str = "no risk_disclosure_required_gt";

/// The required tags, canonical where the set knows them, each once; and
/// the names outside the set, as written.
fn required_tags(raw: &[String]) -> (Vec<String>, Vec<String>) {
    let mut required: Vec<String> = Vec::new();
    let mut unknown = Vec::new();
    for raw in raw {
        let tag = match canonical_tag(raw) {
            Some(t) => t.to_string(),
            None => {
                unknown.push(raw.trim().to_string());
                raw.trim().to_string()
            }
        };
        if !required.contains(&tag) {
            required.push(tag);
        }
    }
    (required, unknown)
}

/// How many of the required tags are among the predicted ones.
fn count_hits(required: &[String], pred: &[String]) -> usize {
    required.iter().filter(|t| pred.contains(t)).count()
}

pub(super) fn score(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let raw = &t.pair.tags.risk_disclosure_required_gt;
    let (required, unknown) = required_tags(raw);
    let predicted = if t.ok() {
        predict_tags(t.answer)
    } else {
        Vec::new()
    };
    let eligible = t.ok() && !required.is_empty();
    row.eligible_m3 = eligible;
    row.m3_status = if eligible {
        MetricRun::Scored
    } else {
        MetricRun::NotEligible
    };
    row.risk_tag_hits = count_hits(&required, &predicted);
    row.risk_required_raw = raw.clone();
    row.risk_required_unknown = unknown;
    row.risk_pred_tags = predicted;
    row.risk_pred_source = "lexicon".into();
    let none = required.is_empty();
    row.risk_required_tags = required;
    none.then_some(NO_REQUIRED)
}

pub(super) fn score_judge(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let (required, _) = required_tags(&t.pair.tags.risk_disclosure_required_gt);
    let part = t.judged.and_then(|j| j.risk_tags.as_ref());
    let judge_tags: Option<Vec<String>> = part.and_then(|p| p.value.as_ref()).map(|tags| {
        let mut out: Vec<String> = Vec::new();
        for tag in tags {
            let c = canonical_tag(tag).map_or_else(|| tag.trim().to_string(), str::to_string);
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    });
    let eligible = t.ok() && !required.is_empty();
    row.eligible_m3_judge = eligible;
    row.m3_judge_status = judged_status(eligible, judge_tags.is_some(), part);
    let ok = t.ok();
    row.risk_tag_hits_judge = judge_tags
        .as_deref()
        .filter(|_| ok)
        .map(|p| count_hits(&required, p));
    row.risk_pred_tags_judge = judge_tags.filter(|_| ok);
    if required.is_empty() {
        Some(NO_REQUIRED)
    } else {
        judge_skip(part)
    }
}

/// Either unit's aggregate, with its count of tags found in a row.
fn aggregate_by(scored: &[&TurnEval], hits: fn(&TurnEval) -> usize) -> Aggregate {
    let required: usize = scored.iter().map(|r| r.risk_required_tags.len()).sum();
    let found: usize = scored.iter().map(|r| hits(r)).sum();
    let full = scored
        .iter()
        .filter(|r| hits(r) == r.risk_required_tags.len())
        .count();
    Aggregate {
        value: ratio(found, required),
        details: json!({"required_tags": required, "hit_tags": found, "full_coverage_turns": full,
            "full_coverage_rate": ratio(full, scored.len())}),
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn m3_maps_required_tags_and_counts_lexicon_hits_unknown_tags_stay_unhit() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![turn(
                &d,
                0,
                "市场存在不确定性，以上仅供参考。",
                TurnStatus::Ok,
            )],
        );
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert_eq!(row.risk_required_tags, ["market_uncertainty", "汇率风险"]);
        assert_eq!(row.risk_required_unknown, ["汇率风险"]);
        assert_eq!(
            row.risk_pred_tags,
            [
                "market_uncertainty",
                "not_investment_advice",
                "risk_disclosure_present"
            ]
        );
        assert_eq!((row.risk_tag_hits, row.eligible_m3), (1, true));
        assert!(row.eligible_m3_judge, "§7 alone: the ground truth is there");
        assert_eq!(row.m3_judge_status, MetricRun::NotRun, "no judge ran");
        assert_eq!(
            row.risk_tag_hits_judge, None,
            "no judge: no judged value, not a 0"
        );
    }
}
