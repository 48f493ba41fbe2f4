//! M4, compliance: is the turn's compliance label the ground truth's? Two
//! units over the same ground truth, scored apart: the label read from the
//! trace's `compliance` ([`M4`], `pred_compliance_source:
//! "trace_compliance"`, see [`label_of_compliance`]) and the judge's label
//! ([`M4_JUDGE`], `pred_compliance_label_judge`).
//!
//! Formula: turns whose predicted label equals `compliance_label_gt` /
//! scored turns.
//!
//! Per turn: eligible (§7) when the turn is `ok` and has a
//! `compliance_label_gt`, for both. From the trace an eligible turn is
//! `not_run` when the trace gives no label for it; by the judge, `not_run`
//! without a verdict, `unscored` when the verdict could not be read or the
//! call failed.
//!
//! Aggregate: `details` has `agree_turns` and `confusion_gt_to_pred`
//! (`<gt>-><pred>` counts, `none` for a missing label).

use super::unit::NO_JUDGE_MODEL;
use super::unit::{judge_skip, judged_status, ratio, Aggregate, TurnInput, TurnMetric};
use crate::dialog::trace::Compliance;
use crate::dialog::turn_eval::{MetricRun, TurnEval};
use crate::dialog::vocab::ComplianceLabel;
use crate::metric::dialog as lines;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// M4 from the trace's `compliance`.
pub const M4: TurnMetric = TurnMetric {
    ty: &lines::M4_COMPLIANCE,
    key: "m4",
    run: |r| (r.eligible_m4, r.m4_status),
    aggregate: |scored, _| aggregate_by(scored, |r| r.pred_compliance_label),
    not_run: "the trace has no compliance for any eligible turn",
};

/// M4 by the judge.
pub const M4_JUDGE: TurnMetric = TurnMetric {
    ty: &lines::M4_COMPLIANCE_JUDGE,
    key: "m4_judge",
    run: |r| (r.eligible_m4_judge, r.m4_judge_status),
    aggregate: |scored, _| aggregate_by(scored, |r| r.pred_compliance_label_judge),
    not_run: NO_JUDGE_MODEL,
};

const NO_GT: &str = "no compliance_label_gt";

/// The label a trace's `compliance` implies: an explicit valid `label` or
/// `compliance_label` field; else `compliant` when `is_compliant` is true and
/// there are no violations; `severe_violation` when a violation says so
/// (`severity`/`level` `severe`, `high`, `critical`, or the text `严重`);
/// otherwise `minor_violation` when `is_compliant` is false or violations are
/// listed. `None` when it says nothing (no `is_compliant`, no violations).
pub fn label_of_compliance(c: &Compliance) -> Option<ComplianceLabel> {
    for k in ["label", "compliance_label"] {
        if let Some(l) = c
            .extra
            .get(k)
            .and_then(Value::as_str)
            .and_then(ComplianceLabel::parse)
        {
            return Some(l);
        }
    }
    let severe = c.violations.iter().any(|v| {
        let words = match v {
            Value::String(s) => s.to_lowercase(),
            Value::Object(o) => ["severity", "level"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase(),
            _ => String::new(),
        };
        ["severe", "high", "critical", "严重"]
            .iter()
            .any(|w| words.contains(w))
    });
    match (c.is_compliant, c.violations.is_empty()) {
        (Some(true), true) => Some(ComplianceLabel::Compliant),
        (_, false) if severe => Some(ComplianceLabel::SevereViolation),
        (Some(false), _) | (_, false) => Some(ComplianceLabel::MinorViolation),
        (None, true) => None,
    }
}

pub(super) fn score(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let gt = t.pair.tags.compliance_label_gt;
    let label = t
        .turn
        .and_then(|t| t.compliance.as_ref())
        .and_then(label_of_compliance);
    let eligible = t.ok() && gt.is_some();
    row.eligible_m4 = eligible;
    row.m4_status = match (eligible, label.is_some()) {
        (true, true) => MetricRun::Scored,
        (true, false) => MetricRun::NotRun,
        _ => MetricRun::NotEligible,
    };
    row.pred_compliance_label = label;
    row.pred_compliance_source = label.map(|_| "trace_compliance".to_string());
    row.gt_compliance_label = gt;
    if gt.is_none() {
        Some(NO_GT)
    } else if label.is_none() {
        Some("the trace has no compliance for this turn")
    } else {
        None
    }
}

pub(super) fn score_judge(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let gt = t.pair.tags.compliance_label_gt;
    let part = t.judged.and_then(|j| j.compliance_label.as_ref());
    let label = part.and_then(|l| l.value);
    let eligible = t.ok() && gt.is_some();
    row.eligible_m4_judge = eligible;
    row.m4_judge_status = judged_status(eligible, label.is_some(), part);
    row.pred_compliance_label_judge = label;
    if gt.is_none() {
        Some(NO_GT)
    } else {
        judge_skip(part)
    }
}

/// Either unit's aggregate, with its predicted label of a row.
fn aggregate_by(scored: &[&TurnEval], pred: fn(&TurnEval) -> Option<ComplianceLabel>) -> Aggregate {
    let agree = scored
        .iter()
        .filter(|r| pred(r) == r.gt_compliance_label)
        .count();
    let mut confusion: BTreeMap<String, usize> = BTreeMap::new();
    for r in scored {
        let name = |l: Option<ComplianceLabel>| l.map_or("none", |l| l.as_str());
        *confusion
            .entry(format!(
                "{}->{}",
                name(r.gt_compliance_label),
                name(pred(r))
            ))
            .or_default() += 1;
    }
    Aggregate {
        value: ratio(agree, scored.len()),
        details: json!({"agree_turns": agree, "confusion_gt_to_pred": confusion}),
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn m4_reads_the_trace_compliance_and_needs_it() {
        let c = |v: serde_json::Value| serde_json::from_value::<Compliance>(v).ok();
        let label = |v| c(v).as_ref().and_then(label_of_compliance);
        assert_eq!(
            label(json!({"is_compliant": true, "violations": []})),
            Some(ComplianceLabel::Compliant)
        );
        assert_eq!(
            label(json!({"is_compliant": false, "violations": []})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(
            label(json!({"violations": ["承诺收益"]})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(
            label(
                json!({"is_compliant": false, "violations": [{"rule": "x", "severity": "severe"}]})
            ),
            Some(ComplianceLabel::SevereViolation)
        );
        assert_eq!(
            label(json!({"is_compliant": true, "violations": ["严重误导"]})),
            Some(ComplianceLabel::SevereViolation)
        );
        assert_eq!(
            label(json!({"label": "minor_violation", "is_compliant": true})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(label(json!({"needs_modification": false})), None);

        let d = dialog();
        let mut t1 = turn(&d, 1, "ok", TurnStatus::Ok);
        t1.compliance = c(json!({"is_compliant": true, "violations": []}));
        let t0 = turn(&d, 0, "ok", TurnStatus::Ok);
        let tr = trace(&d, vec![t0, t1]);
        let rows = score_dialog(&d, &tr, None, RECALL);
        assert!(rows[0].eligible_m4, "§7 alone: the ground truth is there");
        assert_eq!(
            rows[0].m4_status,
            MetricRun::NotRun,
            "no compliance in the trace"
        );
        assert_eq!(rows[0].pred_compliance_label, None);
        assert!(rows[1].eligible_m4);
        assert_eq!(rows[1].m4_status, MetricRun::Scored);
        assert_eq!(
            (rows[1].pred_compliance_label, rows[1].gt_compliance_label),
            (
                Some(ComplianceLabel::Compliant),
                Some(ComplianceLabel::MinorViolation)
            )
        );
        assert_eq!(
            rows[1].pred_compliance_source.as_deref(),
            Some("trace_compliance")
        );
    }
}
