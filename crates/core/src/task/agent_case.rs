//! An agent task's case on the task engine: the loop of `agent` replayed
//! over the job's answers to find its next model call, and its outcome
//! scored when it ends (the final answer, with the whole trajectory for the
//! trajectory metrics and every call of it for `tool_call_f1`).

use super::engine::{Job, TaskKind};
use super::events::TaskRecord;
use super::judging::question;
use super::score::{score_call, AnswerStatus, SampleResult};
use crate::agent::{offered_names, replay, scripted, AgentEnd, AgentRecord, Environment, Progress};
use crate::events::PriorCall;
use crate::provider::{Answer, CallError, ChatMessage, ErrorKind, Usage};
use crate::run::JobOutcome;
use crate::run::{Kind, Pipeline};
use crate::toolcall::Call;

impl TaskKind {
    /// The key of a job's case for seeded faults: sample id and repeat
    /// (every model meets the same faults on the same case).
    fn fault_key(&self, j: Job) -> String {
        format!("{}#{}", self.samples[j.sample].sample.id, j.repeat)
    }

    /// The loop of agent job `j` over its answers so far; `None` for a task
    /// that is not an agent's, `Err` when the case's tools cannot be had.
    pub(super) fn agent_progress(
        &self,
        j: Job,
        answers: &[Answer],
    ) -> Option<Result<Progress, CallError>> {
        let spec = self.task.agent.as_deref()?;
        let sample = &self.samples[j.sample].sample;
        let unusable = |why: String| {
            CallError::new(
                ErrorKind::Prompt,
                format!("the tools could not be offered, nothing was sent: {why}"),
            )
        };
        let tools = match self.task.tools_for(sample) {
            Ok(t) => t,
            Err(why) => return Some(Err(unusable(why))),
        };
        let Environment::Scripted(scripts) = &spec.env;
        let results = match scripts.for_sample(sample) {
            Ok(r) => r,
            Err(why) => return Some(Err(unusable(why))),
        };
        let offered = offered_names(tools.as_ref());
        Some(Ok(replay(
            spec,
            &self.fault_key(j),
            &offered,
            answers,
            |c| scripted::answer(&results, c),
        )))
    }

    /// Scores an agent job's outcome, judges its final answer when the task
    /// has a judge, and returns its record.
    pub(super) fn settle_agent_judged(
        &mut self,
        j: Job,
        job: usize,
        outcome: JobOutcome,
        now_ms: u64,
    ) -> Vec<TaskRecord> {
        let k = self.settle_agent(j, job, &outcome);
        let slot = j.slot(self.cfg.repeats.n);
        if let (Some(judge), Ok(prompt), Some(Some(r)), Some(last)) = (
            &self.judge,
            &self.prompts[j.sample],
            self.results[j.model].get_mut(slot),
            k.checked_sub(1),
        ) {
            let judged = JobOutcome {
                answers: outcome.answers.get(last..).unwrap_or_default().to_vec(),
                ..outcome
            };
            let sample = &self.samples[j.sample].sample;
            judge.apply(sample, question(prompt), &judged, r);
        }
        self.restored(job, now_ms).into_iter().collect()
    }

    /// Scores an agent job's outcome and keeps it; the number of the
    /// model's answers (the rest are a judge's).
    fn settle_agent(&mut self, j: Job, job: usize, outcome: &JobOutcome) -> usize {
        let progress = match self.agent_progress(j, &outcome.answers) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                self.settle_call(job, &Err(e), outcome.attempts, outcome.elapsed_ms);
                return 0;
            }
            None => return 0,
        };
        let k = progress.model_answers();
        let model_calls = &outcome.calls[..k.min(outcome.calls.len())];
        let attempts = model_calls.iter().map(|c| c.0).sum::<u32>().max(1);
        let elapsed = model_calls.iter().map(|c| c.1).sum::<u64>();
        let ended = progress
            .end
            .zip(k.checked_sub(1).and_then(|i| outcome.answers.get(i)));
        let result = match ended {
            Some((end, last)) => {
                let answer = Answer {
                    calls: trajectory_calls(&progress.trajectory),
                    usage: summed_usage(&outcome.answers[..k]),
                    ..last.clone()
                };
                let latencies: Vec<u64> = model_calls.iter().map(|c| c.1).collect();
                Some((Ok(answer), end, AgentRecord::of(&progress, &latencies)))
            }
            None => None,
        };
        let (answer, end, record) = match result {
            Some((a, end, record)) => (a, Some(end), record),
            None => (
                Err(outcome.error.clone().unwrap_or_else(|| {
                    CallError::new(ErrorKind::InvalidResponse, "the agent's loop did not end")
                })),
                None,
                None,
            ),
        };
        let sample = &self.samples[j.sample];
        let mut r: SampleResult =
            score_call(&self.task, sample, j.sample, &answer, attempts, elapsed);
        r.parsed.trajectory = Some(progress.trajectory);
        if end == Some(AgentEnd::StepLimit) {
            r.status = AnswerStatus::StepLimit;
        }
        if r.status.answered() {
            r.scores = self.task.score(&sample.sample, &r.parsed);
        }
        r.agent = record.map(Box::new);
        self.keep(j, r);
        k
    }

    /// The `step` record of an agent job's latest answer (none for another
    /// kind of task, or a judge's answer).
    pub(super) fn step_record(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Option<TaskRecord> {
        let j = self.job(job)?;
        let progress = self.agent_progress(j, answers)?.ok()?;
        let n = answers.len();
        if progress.model_answers() != n {
            return None;
        }
        let step = progress.steps.last()?;
        let (attempts, elapsed_ms) = calls.get(n - 1).copied().unwrap_or((1, 0));
        let sample = &self.samples[j.sample].sample;
        Some(crate::events::Record::Step(crate::events::StepRecord {
            run_id: self.cfg.run.run_id.clone(),
            ts_ms: now_ms,
            case_id: sample.id.clone(),
            case_index: j.sample,
            model: Some(self.cfg.models[j.model].name.clone()),
            repeat: self.cfg.repeats.several().then_some(j.repeat),
            step: n,
            answer: answers[n - 1].clone(),
            attempts,
            elapsed_ms,
            tools: step.tools.clone(),
            end: progress.end,
            restarted: n == 1 && self.restarted.contains(&job),
        }))
    }
}

impl Pipeline<TaskKind> {
    /// Takes over an agent case an earlier run settled: its model answers
    /// rebuilt from the `trajectory` its `case` record kept, replayed
    /// against the same environment and scored again (its judgements, when
    /// judged, taken over as any task's). A case with no trajectory, one
    /// that does not replay to its end, or one whose judging is incomplete
    /// is left to run again from its first step. Whether it was taken.
    pub(super) fn restore_agent(&mut self, call: PriorCall) -> bool {
        let Some(j) = self.job(call.job) else {
            return false;
        };
        let answers: Vec<Answer> = match (&call.outcome, &call.trajectory) {
            (Err(_), _) => Vec::new(),
            (Ok(last), Some(t)) => answers_of(t, last),
            (Ok(_), None) => return false,
        };
        let k = self.kind();
        if call.outcome.is_ok() {
            match k.agent_progress(j, &answers) {
                Some(Ok(p)) if p.end.is_some() && p.model_answers() == answers.len() => {}
                _ => return false,
            }
        }
        let later = match (&k.judge, &k.prompts[j.sample], answers.last()) {
            (Some(judge), Ok(prompt), Some(last)) => match judge.prior_answers(
                &k.task,
                &k.samples[j.sample].sample,
                question(prompt),
                Some(last),
                call.judgements.as_ref(),
            ) {
                Some(later) => later,
                None => return false,
            },
            _ => Vec::new(),
        };
        if !self.restore_job(call.job, call.attempts) {
            return false;
        }
        let k = self.kind_mut();
        let Err(e) = &call.outcome else {
            let mut all = answers;
            all.extend(later);
            let outcome = JobOutcome {
                answers: all,
                error: None,
                attempts: call.attempts,
                elapsed_ms: call.elapsed_ms,
                calls: Vec::new(),
                worker: None,
            };
            k.settle_agent_judged(j, call.job, outcome, 0);
            let slot = j.slot(k.cfg.repeats.n);
            if let Some(Some(r)) = k.results[j.model].get_mut(slot) {
                // the figures as measured when it ran
                r.attempts = Some(call.attempts);
                r.elapsed_ms = Some(call.elapsed_ms);
                r.agent = call.agent.clone().map(Box::new).or(r.agent.take());
            }
            return true;
        };
        k.settle_call(call.job, &Err(e.clone()), call.attempts, call.elapsed_ms)
            .is_some()
    }
}

/// The model's answers of a kept trajectory: each assistant message's text
/// and calls, in order; the case's usage (its record's, summed over the
/// case) on the last, as the final answer carried it.
fn answers_of(trajectory: &[ChatMessage], last: &Answer) -> Vec<Answer> {
    let mut out: Vec<Answer> = trajectory
        .iter()
        .filter(|m| m.role == "assistant")
        .map(|m| Answer {
            text: m.content.clone(),
            calls: m.tool_calls.clone().filter(|c| !c.is_empty()),
            ..Answer::default()
        })
        .collect();
    if let Some(a) = out.last_mut() {
        a.usage = last.usage.clone();
        a.reasoning = last.reasoning.clone();
        a.finish_reason = last.finish_reason.clone();
        a.cached = last.cached.clone();
    }
    out
}

/// Every call of a trajectory's assistant messages, in order (`None` when
/// it made none).
fn trajectory_calls(trajectory: &[ChatMessage]) -> Option<Vec<Call>> {
    let calls: Vec<Call> = trajectory
        .iter()
        .filter(|m| m.role == "assistant")
        .flat_map(|m| m.tool_calls.iter().flatten().cloned())
        .collect();
    (!calls.is_empty()).then_some(calls)
}

/// The model calls' usage summed (`None` when no call said).
fn summed_usage(answers: &[Answer]) -> Option<Usage> {
    answers
        .iter()
        .filter_map(|a| a.usage.as_ref())
        .fold(None, |sum: Option<Usage>, u| {
            let mut s = sum.unwrap_or_default();
            s.prompt_tokens += u.prompt_tokens;
            s.completion_tokens += u.completion_tokens;
            s.reasoning_tokens = match (s.reasoning_tokens, u.reasoning_tokens) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            };
            Some(s)
        })
}
