//! The judge of a task run (issue 11): the model that answers the judge
//! calls of the task's `llm_judge` metrics, on its own pool (its own
//! concurrency limit, retries and 429 step-down), after the answer it judges.
//! The order of the calls, the repairs and the scores are `judge::flow`'s;
//! this file ties them to a task's samples and results.
//!
//! A run whose task has `llm_judge` metrics needs a judge: without one those
//! metrics skip every sample as "not judged" (the shells refuse to start such
//! a run, see [`missing_judge`]).

use super::score::SampleResult;
use crate::dataset::sample::Sample;
use crate::judge::prompt::JudgePrompt;
use crate::metric::judge_flow::{self as flow, Case, Setup};
use crate::metric::llm_judge::PromptRef;
use crate::position::InputError;
use crate::provider::{Answer, ChatMessage, ModelSettings};
use crate::run::{JobOutcome, RunSettings};
use crate::schema::ParsedAnswer;
use crate::task::contract::Task;
use std::collections::BTreeMap;

/// The judged metrics of a task: (metric index, name, prompt file if any).
pub fn judged_metrics(task: &Task) -> Vec<(usize, &str, Option<&str>)> {
    task.metrics
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let j = m.metric.judge()?;
            let file = match &j.prompt {
                PromptRef::File(f) => Some(f.as_str()),
                PromptRef::Builtin(_) => None,
            };
            Some((i, m.name.as_str(), file))
        })
        .collect()
}

/// Resolves every judged metric's prompt: built-in ones directly, files from
/// `files` (read by the shell, keyed by the `judge` value as written). Errors
/// name the metric's key (`metrics[2].judge`) and what is expected.
pub fn setups(
    task: &Task,
    files: &BTreeMap<String, JudgePrompt>,
) -> Result<Vec<Setup>, Vec<InputError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, name, _) in judged_metrics(task) {
        let Some(cfg) = task.metrics[i].metric.judge() else {
            continue;
        };
        let prompt = match &cfg.prompt {
            PromptRef::Builtin(p) => (**p).clone(),
            PromptRef::File(f) => match files.get(f) {
                Some(p) => p.clone(),
                None => {
                    errors.push(InputError::at(
                        format!("metrics[{i}].judge"),
                        format!("the judge prompt file `{f}` was not read"),
                    ));
                    continue;
                }
            },
        };
        if let Err(e) = cfg.check_against(&prompt) {
            errors.push(e.under(&format!("metrics[{i}]")));
            continue;
        }
        out.push(Setup {
            metric: i,
            name: name.to_string(),
            cfg: cfg.clone(),
            prompt,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The judge model of a task run and the judged metrics it serves.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskJudge {
    /// The judge model as called (no key).
    pub model: ModelSettings,
    /// Its pool's scheduling.
    pub settings: RunSettings,
    /// The judged metrics, prompts resolved (`judge::flow::setups`).
    pub setups: Vec<Setup>,
}

/// The errors of a task whose judged metrics have no judge: one per metric,
/// at its `type` key, saying what is expected.
pub fn missing_judge(task: &Task) -> Vec<InputError> {
    judged_metrics(task)
        .into_iter()
        .map(|(i, name, _)| {
            InputError::at(
                format!("metrics[{i}].type"),
                format!(
                    "`{name}` is an llm_judge metric and needs a judge model: give one \
                     (`--judge NAME`, a model registry entry, or `--judge mock`)"
                ),
            )
        })
        .collect()
}

/// Places errors found in a task file (key paths such as `metrics[1].judge`)
/// on the file's lines, as `Task::parse` does.
pub fn located(
    file: &str,
    yaml: &str,
    errors: Vec<InputError>,
) -> crate::task::contract::TaskErrors {
    crate::task::contract::TaskErrors(
        errors
            .into_iter()
            .map(|mut e| {
                e.file = file.to_string();
                e.line = crate::task::contract::yaml::locate(yaml, &e.path);
                e
            })
            .collect(),
    )
}

/// The question as the model saw it: the prompt's last user message.
pub fn question(prompt: &[ChatMessage]) -> &str {
    prompt
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map_or("", |m| m.content.as_str())
}

impl TaskJudge {
    fn case<'a>(
        &'a self,
        sample: &'a Sample,
        question: &'a str,
        answer: Option<&ParsedAnswer>,
    ) -> Case<'a> {
        Case {
            sample,
            question,
            judged: self
                .setups
                .iter()
                .map(|s| flow::prepare(s, sample, answer))
                .collect(),
        }
    }

    /// The next judge call's messages after the answers so far (the model's
    /// answer first), or `None` when the case is fully judged.
    pub fn next_call(
        &self,
        task: &Task,
        sample: &Sample,
        question: &str,
        answers: &[Answer],
    ) -> Option<Vec<ChatMessage>> {
        let (first, judge_answers) = answers.split_first()?;
        let parsed = task.parse_answer(&first.text);
        let case = self.case(sample, question, Some(&parsed));
        flow::walk(&self.setups, &case, judge_answers)
            .next
            .map(|(_, m)| m)
    }

    /// The judge answers of a case as an earlier run's `case` record kept
    /// them (`judgements`: each judged metric's slots and attempts), in call
    /// order, when they complete the case's judging exactly; `None` when the
    /// case must be judged again (a slot ended by a failed judge call, a
    /// metric missing, or answers that do not fit this run's judged metrics
    /// and repairs). A case whose model call failed needs none.
    pub fn prior_answers(
        &self,
        task: &Task,
        sample: &Sample,
        question: &str,
        answer: Option<&Answer>,
        judgements: Option<&std::collections::BTreeMap<String, serde_json::Value>>,
    ) -> Option<Vec<Answer>> {
        use serde_json::Value;
        let Some(answer) = answer else {
            return Some(Vec::new());
        };
        let mut out = Vec::new();
        for setup in &self.setups {
            let Some(slots) = judgements
                .and_then(|j| j.get(&setup.name))
                .and_then(|m| m.get("detail"))
                .and_then(|d| d.get("judgements"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            for slot in slots {
                if slot.get("error").is_some_and(|e| !e.is_null()) {
                    return None;
                }
                for a in slot.get("attempts")?.as_array()? {
                    out.push(Answer {
                        text: a.get("raw")?.as_str()?.to_string(),
                        usage: a
                            .get("usage")
                            .and_then(|u| serde_json::from_value(u.clone()).ok()),
                        ..Answer::default()
                    });
                }
            }
        }
        let parsed = task.parse_answer(&answer.text);
        let case = self.case(sample, question, Some(&parsed));
        let progress = flow::walk(&self.setups, &case, &out);
        let used: usize = progress.done.iter().map(|s| s.attempts.len()).sum();
        (progress.next.is_none() && used == out.len()).then_some(out)
    }

    /// Replaces the judged metrics' scores of a settled case with the
    /// judgements of its calls.
    pub fn apply(
        &self,
        sample: &Sample,
        question: &str,
        outcome: &JobOutcome,
        r: &mut SampleResult,
    ) {
        let answered = r.status.answered() && !outcome.answers.is_empty();
        let parsed = r.parsed.clone();
        let case = self.case(sample, question, answered.then_some(&parsed));
        let judge_answers = outcome.answers.get(1..).unwrap_or_default();
        let error = if answered {
            outcome.error.as_ref()
        } else {
            None
        };
        let slots = flow::finish(flow::walk(&self.setups, &case, judge_answers), error);
        for (k, setup) in self.setups.iter().enumerate() {
            let of: Vec<&flow::SlotJudgement> = slots.iter().filter(|s| s.setup == k).collect();
            let score = flow::score(setup, &case.judged[k], &of, sample, &self.model.name);
            if let Some(entry) = r.scores.get_mut(setup.metric) {
                entry.1 = score;
            }
        }
    }
}
