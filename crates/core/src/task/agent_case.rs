//! An agent task's case on the task engine: the loop of `agent` replayed
//! over the job's answers to find its next model call, and its outcome
//! scored when it ends (the final answer, with the whole trajectory for the
//! trajectory metrics and every call of it for `tool_call_f1`).

use super::engine::{Job, TaskKind};
use super::events::TaskRecord;
use super::judging::question;
use super::score::{read_call, AnswerStatus, SampleResult};
use crate::agent::{
    mcp, offered_names, scripted, walk, AgentEnd, AgentRecord, Env, Environment, FaultKind, Next,
    Walk,
};
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

    /// The pool of the task's MCP server: after the models and the judge
    /// (`None` unless the task's tools are an MCP server's).
    pub fn mcp_pool(&self) -> Option<usize> {
        let spec = self.task.agent.as_deref()?;
        matches!(spec.env, Environment::Mcp(_))
            .then(|| self.cfg.models.len() + usize::from(self.judge.is_some()))
    }

    /// The loop of agent job `j` walked over its answers so far; `None` for
    /// a task that is not an agent's, `Err` when the case's tools cannot be
    /// offered (a sample's tools or scripts unreadable: nothing was sent).
    /// An MCP server out of protocol is the walk's [`Walk::failed`], its
    /// cause naming the server.
    pub(super) fn agent_walk(&self, j: Job, answers: &[Answer]) -> Option<Result<Walk, CallError>> {
        let spec = self.task.agent.as_deref()?;
        let sample = &self.samples[j.sample].sample;
        let prompt = self.prompts[j.sample].as_deref().unwrap_or_default();
        let unusable = |why: String| {
            CallError::new(
                ErrorKind::Prompt,
                format!("the tools could not be offered, nothing was sent: {why}"),
            )
        };
        let key = self.fault_key(j);
        let walked = match &spec.env {
            Environment::Scripted(scripts) => {
                let tools = match self.task.tools_for(sample) {
                    Ok(t) => t,
                    Err(why) => return Some(Err(unusable(why))),
                };
                let read = match self.scripts.get(j.sample) {
                    Some(read) => read.clone(),
                    None => scripts.for_sample(sample),
                };
                let results = match read {
                    Ok(r) => r,
                    Err(why) => return Some(Err(unusable(why))),
                };
                let offered = offered_names(tools.as_ref());
                let mut execute = |c: &Call| scripted::answer(&results, c);
                let env = Env::Scripted {
                    offered: &offered,
                    execute: &mut execute,
                };
                walk(spec, &key, prompt, env, answers)
            }
            Environment::Mcp(server) => {
                let env = Env::Mcp {
                    wants_state: self.task.metrics.iter().any(|m| m.kind == "final_state"),
                };
                let mut w = walk(spec, &key, prompt, env, answers);
                w.failed = w.failed.map(|e| format!("{e} ({})", server.label()));
                w
            }
        };
        Some(Ok(walked))
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
        let ended = self.settle_agent(j, job, &outcome);
        let slot = j.slot(self.cfg.repeats.n);
        if let (Some(judge), Ok(prompt), Some(Some(r)), Some((last, read))) = (
            &self.judge,
            &self.prompts[j.sample],
            self.results[j.model].get_mut(slot),
            ended,
        ) {
            // the judge's answers follow the loop's; it reads the final one
            let mut answers: Vec<Answer> = outcome.answers.get(last).cloned().into_iter().collect();
            answers.extend(
                outcome
                    .answers
                    .get(read..)
                    .unwrap_or_default()
                    .iter()
                    .cloned(),
            );
            let judged = JobOutcome { answers, ..outcome };
            let sample = &self.samples[j.sample].sample;
            judge.apply(sample, question(prompt), &judged, r);
        }
        self.restored(job, now_ms).into_iter().collect()
    }

    /// Scores an agent job's outcome and keeps it; once its loop ended, the
    /// index of its final answer and how many answers the loop read (the
    /// rest are a judge's).
    fn settle_agent(&mut self, j: Job, job: usize, outcome: &JobOutcome) -> Option<(usize, usize)> {
        let w = match self.agent_walk(j, &outcome.answers) {
            Some(Ok(w)) => w,
            Some(Err(e)) => {
                self.settle_call(job, &Err(e), outcome.attempts, outcome.elapsed_ms);
                return None;
            }
            None => return None,
        };
        // the case's attempts and time are its model calls' (as a judged
        // task's are its model call's): each step's, and the call that failed
        // for good when it was the model's (the next the loop asked); never
        // the MCP server's calls
        let failed_model_call = (outcome.error.is_some()
            && w.failed.is_none()
            && matches!(w.next, Some(Next::Model(_))))
        .then_some(outcome.answers.len());
        let model_calls: Vec<(u32, u64)> = w
            .model_at
            .iter()
            .copied()
            .chain(failed_model_call)
            .filter_map(|i| outcome.calls.get(i).copied())
            .collect();
        let attempts = model_calls.iter().map(|c| c.0).sum::<u32>();
        let elapsed = model_calls.iter().map(|c| c.1).sum::<u64>();
        let last = w.model_at.last().copied();
        // ended, with everything the loop reads (the world's state) read
        let ended = w
            .progress
            .end
            .filter(|_| w.next.is_none() && w.failed.is_none())
            .zip(last.and_then(|i| outcome.answers.get(i)));
        // the record of a loop that ended, kept also when the case failed
        // after it (its world could not be read), so the steps are seen
        let latencies: Vec<u64> = model_calls.iter().map(|c| c.1).collect();
        let record = AgentRecord::of(&w.progress, &latencies).map(|mut r| {
            w.time_tools(&mut r.steps, |i| outcome.calls.get(i).map(|c| c.1));
            if w.listed.is_some() {
                r.tools = w.offered.clone();
            }
            r.state = w.state.clone();
            r
        });
        let (answer, end) = match ended {
            Some((end, final_answer)) => {
                let model: Vec<Answer> = w
                    .model_at
                    .iter()
                    .filter_map(|&i| outcome.answers.get(i).cloned())
                    .collect();
                let answer = Answer {
                    calls: trajectory_calls(&w.progress.trajectory),
                    usage: summed_usage(&model),
                    ..final_answer.clone()
                };
                (Ok(answer), Some(end))
            }
            None => {
                let e = match (&w.failed, &outcome.error) {
                    (Some(why), _) => server_fault(why),
                    (None, Some(e)) => e.clone(),
                    (None, None) => {
                        CallError::new(ErrorKind::InvalidResponse, "the agent's loop did not end")
                    }
                };
                (Err(e), None)
            }
        };
        let sample = &self.samples[j.sample];
        // scored once: an answered case with its trajectory and the world's
        // state, a failed one as its call's outcome says
        let mut r: SampleResult = read_call(&self.task, j.sample, &answer, attempts, elapsed);
        if end == Some(AgentEnd::StepLimit) {
            r.status = AnswerStatus::StepLimit;
        }
        let answered = r.status.answered();
        if !answered {
            r.scores = self.task.score(&sample.sample, &r.parsed);
        }
        r.parsed.trajectory = Some(w.progress.trajectory);
        r.parsed.state = w.state;
        if answered {
            r.scores = self.task.score(&sample.sample, &r.parsed);
        }
        r.agent = record.map(Box::new);
        self.keep(j, r);
        end.and(last).map(|l| (l, w.read))
    }

    /// The `step` record of an agent job's latest answer, when it completes
    /// a step (the model's answer with every call of it answered); none for
    /// another kind of task, or a judge's answer.
    pub(super) fn step_record(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Option<TaskRecord> {
        let j = self.job(job)?;
        let walked = self.agent_walk(j, answers);
        self.step_record_walked((job, j), walked.as_ref(), answers, calls, now_ms)
    }

    /// [`step_record`](Self::step_record) given the job's loop walked over
    /// `answers` (`None` for a task that is not an agent's).
    pub(super) fn step_record_walked(
        &self,
        (job, j): (usize, Job),
        walked: Option<&Result<Walk, CallError>>,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Option<TaskRecord> {
        let w = walked?.as_ref().ok().filter(|w| w.failed.is_none())?;
        let n = answers.len();
        if w.step_end.last() != Some(&(n.checked_sub(1)?)) {
            return None;
        }
        let s = w.progress.steps.len();
        let mut steps = w.progress.steps.clone();
        w.time_tools(&mut steps, |i| calls.get(i).map(|c| c.1));
        let step = steps.last()?;
        let at = *w.model_at.get(s - 1)?;
        let (attempts, elapsed_ms) = calls.get(at).copied().unwrap_or((1, 0));
        let sample = &self.samples[j.sample].sample;
        Some(crate::events::Record::Step(crate::events::StepRecord {
            run_id: self.cfg.run.run_id.clone(),
            ts_ms: now_ms,
            case_id: sample.id.clone(),
            case_index: j.sample,
            model: Some(self.cfg.models[j.model].name.clone()),
            repeat: self.cfg.repeats.several().then_some(j.repeat),
            step: s,
            answer: answers[at].clone(),
            attempts,
            elapsed_ms,
            tools: step.tools.clone(),
            end: w.progress.end,
            restarted: s == 1 && self.restarted.contains(&job),
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
        let k = self.kind();
        let answers: Vec<Answer> = match (&call.outcome, &call.trajectory) {
            (Err(_), _) => Vec::new(),
            (Ok(last), Some(t)) => {
                match recorded_answers(t, last, call.agent.as_ref(), k.mcp_pool().is_some()) {
                    Some(a) => a,
                    None => return false,
                }
            }
            (Ok(_), None) => return false,
        };
        let mut final_answer = None;
        if call.outcome.is_ok() {
            match k.agent_walk(j, &answers) {
                Some(Ok(w))
                    if w.progress.end.is_some()
                        && w.next.is_none()
                        && w.failed.is_none()
                        && w.read == answers.len() =>
                {
                    final_answer = w.model_at.last().and_then(|&i| answers.get(i));
                }
                _ => return false,
            }
        }
        let later = match (&k.judge, &k.prompts[j.sample], final_answer) {
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
        if k.settle_call(call.job, &Err(e.clone()), call.attempts, call.elapsed_ms)
            .is_none()
        {
            return false;
        }
        // what a failed case's loop did before it failed, as it was logged
        let slot = j.slot(k.cfg.repeats.n);
        if let Some(Some(r)) = k.results[j.model].get_mut(slot) {
            r.parsed.trajectory = call.trajectory.clone();
            r.agent = call.agent.clone().map(Box::new);
        }
        true
    }
}

/// The error of a case whose MCP server answered out of protocol (`why`,
/// [`Walk::failed`]): an invalid response, not the model's.
pub(super) fn server_fault(why: &str) -> CallError {
    CallError::new(ErrorKind::InvalidResponse, why)
}

/// The answers of a kept trajectory, as the loop read them: the model's
/// (see [`answers_of`]) and, for an MCP server's case, the server's, made
/// again from what its record kept (the tools listed, each answer the model
/// was told, the state read); `None` when the record is missing.
fn recorded_answers(
    trajectory: &[ChatMessage],
    last: &Answer,
    record: Option<&AgentRecord>,
    mcp: bool,
) -> Option<Vec<Answer>> {
    let model = answers_of(trajectory, last);
    if !mcp {
        return Some(model);
    }
    let r = record?;
    let server = |v: serde_json::Value| Answer::from(v.to_string());
    let mut out = vec![server(mcp::listed(&r.tools))];
    for (k, a) in model.into_iter().enumerate() {
        out.push(a);
        for t in r
            .steps
            .get(k)
            .map(|s| s.tools.as_slice())
            .unwrap_or_default()
        {
            if t.problem.is_some() || matches!(t.fault, Some(FaultKind::Error | FaultKind::Timeout))
            {
                continue; // not sent
            }
            // a malformed answer kept its first half: the half of it twice is it
            let content = match t.fault {
                Some(FaultKind::Malformed) => t.content.repeat(2),
                _ => t.content.clone(),
            };
            out.push(server(mcp::answered(&content, t.is_error)));
        }
    }
    if let Some(state) = &r.state {
        out.push(server(mcp::stated(state)));
    }
    Some(out)
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
