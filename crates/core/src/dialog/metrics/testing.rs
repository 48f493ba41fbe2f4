//! The dialog the metric units' tests score, and a trace of it.

pub(crate) use crate::dialog::dataset::{parse, Dialog};
pub(crate) use crate::dialog::score::{score_dialog, score_dialogs, score_turn};
pub(crate) use crate::dialog::summary::summarize;
pub(crate) use crate::dialog::trace::{Counters, DialogTrace, TurnTrace};
pub(crate) use crate::dialog::turn_eval::{MetricRun, ScoreOptions};
pub(crate) use crate::dialog::vocab::TurnStatus;

/// M1 only from recall traces (the default).
pub(crate) const RECALL: ScoreOptions = ScoreOptions {
    m1_from_conversation: false,
};
/// M1 from the conversation when a turn has no recall trace.
pub(crate) const CONVERSATION: ScoreOptions = ScoreOptions {
    m1_from_conversation: true,
};

pub(crate) const DIALOG: &str = r#"{"dialog_id":"d1","profile_gt":{"risk_level_gt":"稳健","horizon_gt":"3年","liquidity_need_gt":"高","constraints_gt":["不投资加密货币","最大回撤不超过10%"],"preferences_gt":["债券基金"]},"turns":[
{"role":"user","content":"我的风险偏好是稳健"},
{"role":"assistant","content":"明白","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.risk_level_gt","profile_gt.constraints_gt[5]","history_turn_index:1"],"risk_disclosure_required_gt":["市场不确定性","汇率风险"],"compliance_label_gt":"compliant","explainability_rubric_gt":["信息依据","边界声明"]}},
{"role":"user","content":"推荐点什么"},
{"role":"assistant","content":"债券基金","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.nope"],"risk_disclosure_required_gt":[],"compliance_label_gt":"minor_violation","explainability_rubric_gt":[]}},
{"role":"user","content":"还有呢"},
{"role":"assistant","content":"没有了","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.horizon_gt"],"risk_disclosure_required_gt":["波动风险"],"compliance_label_gt":"severe_violation","explainability_rubric_gt":["信息依据"]}}]}"#;

pub(crate) fn dialog() -> Dialog {
    let set = parse("d.jsonl", DIALOG.replace('\n', "").as_bytes());
    assert!(set.errors.is_empty(), "{:?}", set.errors);
    set.dialogs.into_iter().next().expect("one dialog")
}

pub(crate) fn turn(d: &Dialog, k: usize, answer: &str, status: TurnStatus) -> TurnTrace {
    let p = &d.pairs()[k];
    let mut t = crate::dialog::kind::failed_turn(p, status, String::new());
    t.error = None;
    t.pred_assistant_text = Some(answer.into());
    t
}

pub(crate) fn trace(d: &Dialog, turns: Vec<TurnTrace>) -> DialogTrace {
    let mut t = crate::dialog::kind::skipped_trace("r", d, "");
    t.valid_dialog = true;
    t.skip_reason = None;
    t.dialog_status = crate::dialog::vocab::DialogStatus::Ok;
    t.turns = turns;
    t
}
