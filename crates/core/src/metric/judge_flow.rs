//! The judge calls of one case and the score they give (issue 11).
//!
//! A judged case is one job of the run: the model's answer first, then the
//! judge calls, each on the judge's pool, in a fixed order of *slots*: for
//! each `llm_judge` metric (task order), each repeat (`samples`), each order
//! (one for single prompts; for pairwise prompts the answer shown first, then,
//! with `both_orders` (default), the baseline shown first). The next call is
//! a pure function of the answers so far ([`walk`]): each judge answer is read
//! with `judge::verdict::read`; an unreadable one is asked again, up to
//! `max_repairs` times, in the same conversation (the judge's reply and a
//! short repair message appended); after that the slot stays unscored.
//!
//! Decisions where the issue is silent:
//! - a pairwise pair whose verdict flips when the order is swapped is a
//!   **tie** (value ½; the usual convention of pairwise judge studies),
//!   counted in `flips`; a pair with one unreadable order is unscored (one
//!   order alone would bring the position bias back);
//! - a case's outcome over repeats: single prompts pass when more than half
//!   of the scored repeats pass; pairwise cases win when the mean value is
//!   above ½, lose below, tie at ½; the value is the mean of the scored
//!   repeats, and the case is unscored only when no repeat was scored;
//! - a judge call that fails (after its retries) ends the case's judging:
//!   that slot and the later ones are unscored with the error as reason, and
//!   the model's answer is still scored by the other metrics;
//! - a human label (`human_label_field`) is read as an outcome: `true` /
//!   `false`, `pass` / `fail` / `tie` (also `win` / `loss`, `yes` / `no`),
//!   or a value of the prompt's scale (single prompts); anything else is left
//!   out of the agreement and said in the detail.

use super::llm_judge::LlmJudge;
use super::SampleScore;
use crate::dataset::sample::Sample;
use crate::judge::agreement::Pick;
use crate::judge::prompt::{code, JudgePrompt, Mode};
use crate::judge::verdict::{read, Scale, Verdict};
use crate::provider::{Answer, CallError, ChatMessage};
use crate::schema::ParsedAnswer;
use crate::stats::mean_std;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// One judged metric of a run, its prompt resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// Index of the metric in the task.
    pub metric: usize,
    /// The metric's report name.
    pub name: String,
    /// The metric's keys.
    pub cfg: LlmJudge,
    /// Its prompt.
    pub prompt: JudgePrompt,
}

/// Which answer is shown first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// A single answer.
    Single,
    /// Pairwise: the judged answer as `A`.
    AnswerFirst,
    /// Pairwise: the baseline as `A`.
    BaselineFirst,
}

/// What one metric judges in a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// Ready to judge.
    Ready {
        /// The judged answer.
        answer: String,
        /// The reference, when the metric has one.
        reference: Option<String>,
        /// Pairwise: the other answer.
        baseline: Option<String>,
    },
    /// The model gave no answer to judge: a fail, without a judge call.
    NoAnswer(String),
    /// The sample lacks what the judge needs: skipped, without a judge call.
    Skip(String),
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What `setup` judges in a case (`answer` is `None` when the call failed).
pub fn prepare(setup: &Setup, sample: &Sample, answer: Option<&ParsedAnswer>) -> Judged {
    let cfg = &setup.cfg;
    let Some(parsed) = answer else {
        return Judged::NoAnswer("the model call failed: no answer to judge".into());
    };
    let pred = parsed
        .get(&cfg.pred_field)
        .filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()));
    let Some(pred) = pred else {
        return Judged::NoAnswer(format!("the answer has no `{}` to judge", cfg.pred_field));
    };
    let reference = match &cfg.reference_field {
        Some(f) => match sample.get(f) {
            Some(v) => Some(text_of(v)),
            None => return Judged::Skip(format!("reference `{f}` is missing")),
        },
        None => None,
    };
    let baseline = match &cfg.baseline_field {
        Some(f) => match sample.get(f) {
            Some(v) => Some(text_of(v)),
            None => return Judged::Skip(format!("baseline `{f}` is missing")),
        },
        None => None,
    };
    Judged::Ready {
        answer: text_of(pred),
        reference,
        baseline,
    }
}

/// One judge call's answer and how its verdict was read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    /// The judge's raw answer.
    pub raw: String,
    /// The verdict read from it.
    pub verdict: Verdict,
    /// The judge call's token counts, when the endpoint gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::provider::Usage>,
}

/// One slot's judgement: every attempt (the first and its repairs) and the
/// error that ended it, if one did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotJudgement {
    /// Index into the run's setups.
    #[serde(skip)]
    pub setup: usize,
    /// Repeat number, from 0.
    pub repeat: usize,
    /// Order of the answers.
    pub order: Order,
    /// Attempts in order.
    pub attempts: Vec<Attempt>,
    /// Why the slot has no (further) attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl SlotJudgement {
    /// The final verdict's value, when it was read.
    pub fn value(&self) -> Option<&str> {
        match self.attempts.last().map(|a| &a.verdict) {
            Some(Verdict::Scored { value, .. }) if self.error.is_none() => Some(value),
            _ => None,
        }
    }

    /// Why the slot is unscored.
    pub fn reason(&self) -> String {
        if let Some(e) = &self.error {
            return e.clone();
        }
        match self.attempts.last().map(|a| &a.verdict) {
            Some(Verdict::Unscored { reason }) => reason.clone(),
            _ => "no judgement".into(),
        }
    }
}

/// One case: the judged things of every setup and the question.
#[derive(Clone, Debug)]
pub struct Case<'a> {
    /// The dataset sample.
    pub sample: &'a Sample,
    /// The question as the model saw it (the prompt's last user message).
    pub question: &'a str,
    /// What each setup judges, in setup order.
    pub judged: Vec<Judged>,
}

/// Where the calls of a case stand.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Finished slots.
    pub done: Vec<SlotJudgement>,
    /// The slot whose call is due, with its messages.
    pub next: Option<(SlotJudgement, Vec<ChatMessage>)>,
    /// Slots after the due one.
    pub rest: Vec<SlotJudgement>,
}

fn slots(setups: &[Setup], case: &Case<'_>) -> Vec<SlotJudgement> {
    let mut out = Vec::new();
    for (k, s) in setups.iter().enumerate() {
        if !matches!(case.judged.get(k), Some(Judged::Ready { .. })) {
            continue;
        }
        let orders: &[Order] = match (s.prompt.mode, s.cfg.both_orders) {
            (Mode::Single, _) => &[Order::Single],
            (Mode::Pairwise, true) => &[Order::AnswerFirst, Order::BaselineFirst],
            (Mode::Pairwise, false) => &[Order::AnswerFirst],
        };
        for repeat in 0..s.cfg.samples {
            for order in orders {
                out.push(SlotJudgement {
                    setup: k,
                    repeat,
                    order: *order,
                    attempts: Vec::new(),
                    error: None,
                });
            }
        }
    }
    out
}

/// The first messages of a slot's judge call.
pub fn messages(
    setup: &Setup,
    case: &Case<'_>,
    k: usize,
    order: Order,
) -> Result<Vec<ChatMessage>, String> {
    let Some(Judged::Ready {
        answer,
        reference,
        baseline,
    }) = case.judged.get(k)
    else {
        return Err("nothing to judge".into());
    };
    let criteria = setup
        .cfg
        .criteria
        .clone()
        .unwrap_or_else(|| setup.prompt.criteria.clone());
    let mut vars = Map::new();
    vars.insert("question".into(), json!(case.question));
    vars.insert("answer".into(), json!(answer));
    if let Some(r) = reference {
        vars.insert("reference".into(), json!(r));
    }
    vars.insert("criteria".into(), json!(criteria));
    vars.insert("rubric".into(), json!(setup.cfg.rubric));
    let base = baseline.clone().unwrap_or_default();
    let (a, b) = match order {
        Order::BaselineFirst => (base, answer.clone()),
        _ => (answer.clone(), base),
    };
    vars.insert("answer_a".into(), json!(a));
    vars.insert("answer_b".into(), json!(b));
    setup.prompt.render(case.sample, &vars)
}

/// One judge answer taken into a judgement: its verdict read against the
/// prompt's scale and kept with the raw answer; when it is unscored and
/// repairs are left (`max_repairs`), the answer and a short repair message
/// join the conversation. True when the judge is asked again. Every judge
/// (a task's metrics, a dialog's parts) reads its answers this way.
pub fn take(
    prompt: &JudgePrompt,
    max_repairs: usize,
    attempts: &mut Vec<Attempt>,
    conversation: &mut Vec<ChatMessage>,
    a: &Answer,
) -> bool {
    let verdict = read(&a.text, &prompt.scale);
    let repair = match &verdict {
        Verdict::Unscored { reason } if attempts.len() < max_repairs => Some(prompt.repair(reason)),
        _ => None,
    };
    attempts.push(Attempt {
        raw: a.text.clone(),
        verdict,
        usage: a.usage.clone(),
    });
    match repair {
        Some(message) => {
            conversation.push(ChatMessage::new("assistant", a.text.clone()));
            conversation.push(ChatMessage::new("user", message));
            true
        }
        None => false,
    }
}

/// Walks the judge answers of a case (in call order) through its slots: the
/// finished slots, the call that is due next and the slots after it.
pub fn walk(setups: &[Setup], case: &Case<'_>, answers: &[Answer]) -> Progress {
    let mut done = Vec::new();
    let mut it = answers.iter();
    let mut all = slots(setups, case).into_iter();
    while let Some(mut slot) = all.next() {
        let setup = &setups[slot.setup];
        let mut conversation = match messages(setup, case, slot.setup, slot.order) {
            Ok(m) => m,
            Err(e) => {
                slot.error = Some(format!("the judge prompt could not be rendered: {e}"));
                done.push(slot);
                continue;
            }
        };
        loop {
            let Some(a) = it.next() else {
                return Progress {
                    done,
                    next: Some((slot, conversation)),
                    rest: all.collect(),
                };
            };
            let max = setup.cfg.max_repairs;
            if !take(&setup.prompt, max, &mut slot.attempts, &mut conversation, a) {
                break;
            }
        }
        done.push(slot);
    }
    Progress {
        done,
        next: None,
        rest: Vec::new(),
    }
}

/// Every slot's judgement once the case settled; `error` is the judge call's
/// failure that ended it, if one did.
pub fn finish(progress: Progress, error: Option<&CallError>) -> Vec<SlotJudgement> {
    let mut out = progress.done;
    if let Some((mut slot, _)) = progress.next {
        slot.error = Some(match error {
            Some(e) => format!("the judge call failed: {}", e.message),
            None => "the run ended before this judgement".into(),
        });
        out.push(slot);
    }
    out.extend(progress.rest.into_iter().map(|mut s| {
        s.error = Some("not judged: an earlier judge call of this case failed".into());
        s
    }));
    out
}

/// An outcome as a number: pass 1, fail 0, tie ½ (kappa reads them as categories).
fn outcome_name(v: f64) -> &'static str {
    if v > 0.75 {
        "pass"
    } else if v < 0.25 {
        "fail"
    } else {
        "tie"
    }
}

fn pick(label: &str) -> Option<Pick> {
    match label {
        "A" => Some(Pick::First),
        "B" => Some(Pick::Second),
        "TIE" => Some(Pick::Tie),
        _ => None,
    }
}

/// The judged answer's value from one order's pick: 1 win, 0 loss, ½ tie.
fn win_value(order: Order, p: Pick) -> f64 {
    match (order, p) {
        (_, Pick::Tie) => 0.5,
        (Order::BaselineFirst, Pick::Second)
        | (Order::AnswerFirst | Order::Single, Pick::First) => 1.0,
        _ => 0.0,
    }
}

/// A human label as an outcome number.
pub fn human_outcome(v: &Value, prompt: &JudgePrompt) -> Result<f64, String> {
    let single = prompt.mode == Mode::Single;
    match v {
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        Value::String(s) => {
            let t = s.trim().to_ascii_lowercase();
            match t.as_str() {
                "pass" | "win" | "yes" | "true" | "correct" => return Ok(1.0),
                "fail" | "loss" | "no" | "false" | "incorrect" => return Ok(0.0),
                "tie" if !single => return Ok(0.5),
                _ => {}
            }
            match prompt.scale.value_of(s.trim()) {
                Some(value) if single => {
                    let x = prompt.value(&value).unwrap_or(0.0);
                    Ok(f64::from(u8::from(x >= prompt.pass_value() - 1e-9)))
                }
                _ => Err(format!(
                    "human label `{s}` is not pass, fail{} or a value of the scale",
                    if single { "" } else { ", tie" }
                )),
            }
        }
        Value::Number(n) if single => match prompt.scale.value_of(&n.to_string()) {
            Some(value) => {
                let x = prompt.value(&value).unwrap_or(0.0);
                Ok(f64::from(u8::from(x >= prompt.pass_value() - 1e-9)))
            }
            None if n.as_f64() == Some(1.0) => Ok(1.0),
            None if n.as_f64() == Some(0.0) => Ok(0.0),
            None => Err(format!("human label {n} is not a value of the scale")),
        },
        other => Err(format!("human label {other} is not pass / fail")),
    }
}

/// One metric's score of a case from its slots' judgements.
pub fn score(
    setup: &Setup,
    judged: &Judged,
    slots: &[&SlotJudgement],
    sample: &Sample,
    judge_model: &str,
) -> SampleScore {
    let p = &setup.prompt;
    let prompt_info = json!({
        "id": p.id, "version": p.version, "language": code(p.language), "source": p.source,
    });
    // the scale the judge answered on, so a reviewer labels on it (the viewer's review)
    let scale = match &p.scale {
        Scale::Labels(labels) => json!({ "labels": labels, "pass": p.pass }),
        Scale::Range { lo, hi } => json!({ "range": [lo, hi], "pass_from": p.pass_from }),
        Scale::Tags(tags) => json!({ "tags": tags }),
    };
    let base = |s: SampleScore| {
        s.detail("judge_prompt", prompt_info.clone())
            .detail("judge_model", judge_model)
            .detail(
                "criteria",
                json!(setup
                    .cfg
                    .criteria
                    .clone()
                    .unwrap_or_else(|| p.criteria.clone())),
            )
            .detail("judge_samples", setup.cfg.samples)
            .detail("scale", scale.clone())
    };
    let ready = match judged {
        Judged::Skip(why) => return SampleScore::skipped(why.clone()),
        Judged::NoAnswer(why) => {
            return base(SampleScore::new(0.0).with("fail", 1.0))
                .detail("outcome", "fail")
                .detail(
                    "reason",
                    format!("{why}; not sent to the judge, counted as a fail"),
                )
        }
        Judged::Ready { .. } => true,
    };
    debug_assert!(ready);
    // per repeat: (value, verdict key), or the reason it is unscored
    let mut repeats: Vec<Result<(f64, String), String>> = Vec::new();
    let (mut pairs, mut flips) = (0usize, 0usize);
    for r in 0..setup.cfg.samples {
        let of: Vec<&&SlotJudgement> = slots.iter().filter(|s| s.repeat == r).collect();
        let result = match p.mode {
            Mode::Single => match of.first() {
                Some(s) => match s.value() {
                    Some(v) => Ok((p.value(v).unwrap_or(0.0), v.to_string())),
                    None => Err(s.reason()),
                },
                None => Err("no judgement".into()),
            },
            Mode::Pairwise => {
                let picks: Vec<Result<(Order, Pick), String>> = of
                    .iter()
                    .map(|s| match s.value().and_then(pick) {
                        Some(pk) => Ok((s.order, pk)),
                        None => Err(s.reason()),
                    })
                    .collect();
                match picks.as_slice() {
                    [Ok((o1, p1)), Ok((o2, p2))] => {
                        pairs += 1;
                        let (v1, v2) = (win_value(*o1, *p1), win_value(*o2, *p2));
                        if (v1 - v2).abs() < 1e-9 {
                            Ok((v1, outcome_name(v1).to_string()))
                        } else {
                            flips += 1;
                            Ok((0.5, "tie".to_string()))
                        }
                    }
                    [Ok((o, pk))] => {
                        let v = win_value(*o, *pk);
                        Ok((v, outcome_name(v).to_string()))
                    }
                    _ => Err(picks
                        .iter()
                        .filter_map(|x| x.as_ref().err().cloned())
                        .collect::<Vec<_>>()
                        .join("; ")),
                }
            }
        };
        repeats.push(result);
    }
    let values: Vec<f64> = repeats
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|x| x.0))
        .collect();
    let keys: Vec<&str> = repeats
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|x| x.1.as_str()))
        .collect();
    let unscored_reasons: Vec<String> = repeats
        .iter()
        .filter_map(|r| r.as_ref().err().cloned())
        .collect();
    let judgements = json!(slots);
    let repairs: usize = slots
        .iter()
        .map(|s| s.attempts.len().saturating_sub(1))
        .sum();
    let mut s = if values.is_empty() {
        SampleScore::skipped(format!("unscored: {}", unscored_reasons.join("; ")))
            .with("unscored", 1.0)
            .detail("outcome", "unscored")
    } else {
        let (mean, std) = mean_std(&values);
        let outcome = match p.mode {
            Mode::Single => {
                let passing = values
                    .iter()
                    .filter(|v| **v >= p.pass_value() - 1e-9)
                    .count();
                if passing * 2 > values.len() {
                    "pass"
                } else {
                    "fail"
                }
            }
            Mode::Pairwise => outcome_name(if mean > 0.5 + 1e-9 {
                1.0
            } else if mean < 0.5 - 1e-9 {
                0.0
            } else {
                0.5
            }),
        };
        let code = match outcome {
            "pass" => 1.0,
            "fail" => 0.0,
            _ => 0.5,
        };
        let mut s = SampleScore::new(mean)
            .with(outcome, 1.0)
            .with("judge_outcome", code)
            .detail("outcome", outcome);
        if p.mode == Mode::Single {
            // the judge's own label: its repeats' most common (the first on a tie)
            let label = keys
                .iter()
                .max_by_key(|k| {
                    let n = keys.iter().filter(|x| x == k).count();
                    let first = keys.iter().position(|x| x == *k).unwrap_or(0);
                    (n, std::cmp::Reverse(first))
                })
                .copied()
                .unwrap_or_default();
            s = s.detail("verdict", label);
        }
        if values.len() > 1 {
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            s = s
                .with("spread", std)
                .with(
                    "repeats_agree",
                    f64::from(u8::from(keys.iter().all(|k| *k == keys[0]))),
                )
                .detail(
                    "spread",
                    json!({"std": std, "min": lo, "max": hi, "values": values}),
                );
        }
        s
    };
    if pairs > 0 {
        s = s.with("pairs", pairs as f64).with("flips", flips as f64);
    }
    s = s
        .with("repeats_scored", values.len() as f64)
        .detail("judgements", judgements)
        .detail("repairs", repairs);
    if !unscored_reasons.is_empty() {
        s = s.detail("unscored_repeats", json!(unscored_reasons));
    }
    if let Some(field) = &setup.cfg.human_label_field {
        match sample.get(field).map(|v| human_outcome(v, p)) {
            Some(Ok(h)) => {
                s = s.detail(
                    "human_label",
                    sample.get(field).cloned().unwrap_or(Value::Null),
                );
                if s.value.is_some() {
                    s = s.with("human_outcome", h);
                }
            }
            Some(Err(why)) => s = s.detail("human_label_problem", why),
            None => s = s.detail("human_label_problem", format!("`{field}` is missing")),
        }
    }
    base(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    #[test]
    fn win_values_follow_the_order_shown() {
        assert_eq!(win_value(Order::AnswerFirst, Pick::First), 1.0);
        assert_eq!(win_value(Order::BaselineFirst, Pick::First), 0.0);
        assert_eq!(win_value(Order::BaselineFirst, Pick::Second), 1.0);
        assert_eq!(win_value(Order::AnswerFirst, Pick::Tie), 0.5);
    }

    #[test]
    fn human_labels_read_as_outcomes() {
        let c = crate::judge::prompt::builtin("correctness", Lang::En).expect("builtin");
        assert_eq!(human_outcome(&json!(true), &c), Ok(1.0));
        assert_eq!(human_outcome(&json!("INCORRECT"), &c), Ok(0.0));
        assert_eq!(human_outcome(&json!("fail"), &c), Ok(0.0));
        assert!(human_outcome(&json!("maybe"), &c).is_err());
        let r = crate::judge::prompt::builtin("rubric", Lang::En).expect("builtin");
        assert_eq!(human_outcome(&json!(4), &r), Ok(1.0));
        assert_eq!(human_outcome(&json!(2), &r), Ok(0.0));
        let p = crate::judge::prompt::builtin("pairwise", Lang::En).expect("builtin");
        assert_eq!(human_outcome(&json!("tie"), &p), Ok(0.5));
    }
}
