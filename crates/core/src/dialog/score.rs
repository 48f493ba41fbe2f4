//! Spec 001 §5 and §7: one `turn_eval.jsonl` row ([`TurnEval`]) per aligned
//! turn pair of a valid dialog, from the dataset's ground truth, the
//! trace's predictions and optional judge verdicts. Each metric scores the
//! turn in its own unit (`metrics/`: M1 memory recall, M2 constraint
//! contradiction, M3 risk disclosure by the lexicon and by the judge, M4
//! compliance from the trace and by the judge, M5 explainability);
//! [`score_turn`] runs every unit of `metrics::REGISTRY` over the turn and
//! adds what is no metric's: the row's identity and the judge's raw answers.
//!
//! §7: `eligible_m*` is the spec's alone: a turn whose `turn_status` is not
//! `ok` gets a row with every `eligible_*` false (each unit's skip reason
//! is then the turn's status), and an empty requirement list (or no ground
//! truth for the metric) is not eligible. Whether an eligible metric was
//! scored is apart, in `m1_status` .. `m5_status`, `m3_judge_status`,
//! `m4_judge_status`: `scored`, `not_run` (nothing predicted it: no judge,
//! no trace `compliance`, no recall trace), `unscored` (the judge's verdict
//! could not be read, or its call failed; for M1, no key resolves) or
//! `not_eligible`. `skip_reasons` says, per metric, why a turn is not
//! eligible or not scored.

use super::dataset::{Dialog, TurnPair};
use super::metrics::m2_constraint::forbidden_terms;
use super::metrics::{TurnInput, REGISTRY, SCORERS};
use super::trace::{DialogTrace, TurnTrace, TRACE_VERSION};
use super::turn_eval::{Judgements, ScoreOptions, TurnEval, TurnJudgement};
use super::vocab::TurnStatus;
use std::collections::BTreeMap;

/// Scores one turn pair of a valid dialog: its ground truth `pair`, the
/// trace's `turn` (`None`: the trace has no such turn, scored as failed) and
/// the judge's verdict.
#[cfg(test)]
pub fn score_turn(
    dialog: &Dialog,
    pair: &TurnPair,
    trace: &DialogTrace,
    turn: Option<&TurnTrace>,
    judged: Option<&TurnJudgement>,
    options: ScoreOptions,
) -> TurnEval {
    let forbidden = forbidden_terms(&dialog.profile_gt);
    score_pair(dialog, &forbidden, pair, trace, (turn, judged), options)
}

/// [`score_turn`] with the profile's forbidden terms (M2) read once per
/// dialog by the caller.
fn score_pair(
    dialog: &Dialog,
    forbidden: &[String],
    pair: &TurnPair,
    trace: &DialogTrace,
    (turn, judged): (Option<&TurnTrace>, Option<&TurnJudgement>),
    options: ScoreOptions,
) -> TurnEval {
    let status = turn.map_or(TurnStatus::Error, |t| t.turn_status);
    let input = TurnInput {
        dialog,
        forbidden,
        pair,
        trace,
        turn,
        judged,
        options,
        status,
        answer: turn
            .and_then(|t| t.pred_assistant_text.as_deref())
            .unwrap_or(""),
    };
    let mut row = TurnEval {
        trace_version: TRACE_VERSION.into(),
        run_id: trace.run_id.clone(),
        dialog_id: dialog.dialog_id.clone(),
        turn_pair_id: pair.turn_pair_id,
        turn_status: Some(status),
        judge_raw: judge_raw(judged),
        judgements: judged.map(|j| j.detail.clone()).unwrap_or_default(),
        ..TurnEval::default()
    };
    for (metric, score) in REGISTRY.iter().zip(SCORERS) {
        let why = score(&input, &mut row);
        let why = match input.ok() {
            true => why.map(str::to_string),
            false => Some(format!("turn_status is {}", status_name(status))),
        };
        if let Some(why) = why {
            row.skip_reasons.insert(metric.key.to_string(), why);
        }
    }
    row
}

/// The judge's raw answers, by part (an empty answer is left out).
fn judge_raw(judged: Option<&TurnJudgement>) -> BTreeMap<String, String> {
    let mut judge_raw = BTreeMap::new();
    if let Some(j) = judged {
        let parts: [(&str, Option<&String>); 4] = [
            ("risk_tags", j.risk_tags.as_ref().map(|p| &p.raw)),
            (
                "compliance_label",
                j.compliance_label.as_ref().map(|p| &p.raw),
            ),
            (
                "rubric_hit_items",
                j.rubric_hit_items.as_ref().map(|p| &p.raw),
            ),
            ("score_1_5", j.score_1_5.as_ref().map(|p| &p.raw)),
        ];
        for (k, raw) in parts {
            if let Some(raw) = raw.filter(|r| !r.is_empty()) {
                judge_raw.insert(k.to_string(), raw.clone());
            }
        }
    }
    judge_raw
}

fn status_name(s: TurnStatus) -> &'static str {
    match s {
        TurnStatus::Ok => "ok",
        TurnStatus::Timeout => "timeout",
        TurnStatus::Error => "error",
    }
}

/// The rows of every valid dialog (§7: a dialog with `valid_dialog: false`
/// has none), in dataset order. `traces` are matched to `dialogs` by
/// `dialog_id`; a valid dialog without a trace has no rows (the caller
/// records it as failed, see `run_traces`).
pub fn score_dialogs(
    dialogs: &[Dialog],
    traces: &[DialogTrace],
    judgements: &Judgements,
    options: ScoreOptions,
) -> Vec<TurnEval> {
    let by_id: BTreeMap<&str, &DialogTrace> =
        traces.iter().map(|t| (t.dialog_id.as_str(), t)).collect();
    let mut rows = Vec::new();
    for d in dialogs {
        let Some(trace) = by_id.get(d.dialog_id.as_str()) else {
            continue;
        };
        rows.extend(score_dialog(
            d,
            trace,
            judgements.get(&d.dialog_id),
            options,
        ));
    }
    rows
}

/// The rows of one dialog: one per aligned pair when the trace marks the
/// dialog valid, none otherwise (§7).
pub fn score_dialog(
    dialog: &Dialog,
    trace: &DialogTrace,
    judged: Option<&BTreeMap<usize, TurnJudgement>>,
    options: ScoreOptions,
) -> Vec<TurnEval> {
    if !trace.valid_dialog || dialog.skip_reason().is_some() {
        return Vec::new();
    }
    let forbidden = forbidden_terms(&dialog.profile_gt);
    dialog
        .pairs()
        .iter()
        .map(|p| {
            let turn = trace
                .turns
                .iter()
                .find(|t| t.turn_pair_id == p.turn_pair_id);
            let j = judged.and_then(|m| m.get(&p.turn_pair_id));
            score_pair(dialog, &forbidden, p, trace, (turn, j), options)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::metrics::testing::*;
    use super::Judgements;

    #[test]
    fn section_7_failed_turns_and_empty_lists_are_not_eligible_and_invalid_dialogs_have_no_rows() {
        let d = dialog();
        let mut t2 = turn(&d, 2, "", TurnStatus::Timeout);
        t2.pred_assistant_text = None;
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "x", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                t2,
            ],
        );
        let rows = score_dialog(&d, &tr, None, RECALL);
        let r = &rows[2];
        assert_eq!(r.turn_status, Some(TurnStatus::Timeout));
        assert!(
            !(r.eligible_m1 || r.eligible_m2 || r.eligible_m3 || r.eligible_m4 || r.eligible_m5)
        );
        assert_eq!(
            r.skip_reasons.get("m3").map(String::as_str),
            Some("turn_status is timeout")
        );
        assert!(r.key_hit_flags.is_empty(), "a failed turn is not searched");
        assert_eq!(r.m5_status, MetricRun::NotEligible);
        // pair 2 has empty risk and rubric lists
        assert!(!rows[1].eligible_m3 && !rows[1].eligible_m5);
        assert_eq!(
            rows[1].skip_reasons.get("m3").map(String::as_str),
            Some("no risk_disclosure_required_gt")
        );
        // a missing trace turn is a failed turn
        let short = trace(&d, vec![turn(&d, 0, "x", TurnStatus::Ok)]);
        let rows = score_dialog(&d, &short, None, RECALL);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].turn_status, Some(TurnStatus::Error));
        // invalid dialog: no rows
        let mut invalid = tr.clone();
        invalid.valid_dialog = false;
        assert!(score_dialog(&d, &invalid, None, RECALL).is_empty());
        assert!(score_dialogs(
            std::slice::from_ref(&d),
            &[invalid],
            &Judgements::new(),
            RECALL
        )
        .is_empty());
    }
}
