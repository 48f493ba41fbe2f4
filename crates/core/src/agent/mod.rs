//! Agent runs: a case is several steps. The model is asked; when it answers
//! with tool calls, each call goes to the task's tool environment and the
//! results go back as `role: tool` messages (with the `tool_call_id` they
//! answer), and the model is asked again. The case ends with a text answer,
//! or when `max_steps` model calls were made and the last still called tools
//! (`step_limit`: those calls are not executed).
//!
//! Sans-IO and replayed: [`replay`] rebuilds a case's conversation from its
//! prompt and the model's answers so far, executing the calls again each
//! time. A scripted environment is a pure function of the call, and a seeded
//! fault a pure function of (seed, case, step, call) ([`Faults::at`]), so the
//! same answers give the same trajectory at any concurrency, and a case run
//! again from its first step (a resumed run) meets the same world.

pub mod mcp;
pub(crate) mod scripted;
mod shown;

pub use scripted::{ScriptedResult, Scripts};
pub use shown::{shown_steps, ShownCall, ShownStep};

use crate::provider::Answer;
use crate::rng::SplitMix64;
use crate::toolcall::message::ChatMessage;
use crate::toolcall::Call;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Model calls a case may make when the task does not say.
pub const DEFAULT_MAX_STEPS: u32 = 10;

/// The most model calls a task may allow per case (a typo like 1000 would
/// multiply the bill).
pub const MAX_STEPS: u32 = 100;

/// An agent task's loop: its environment, its step budget, its faults.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSpec {
    /// Model calls per case, at most.
    pub max_steps: u32,
    /// Where the calls go.
    pub env: Environment,
    /// Faults injected into the tools' answers, when asked for.
    pub faults: Option<Faults>,
}

/// A task's tool environment.
#[derive(Clone, Debug, PartialEq)]
pub enum Environment {
    /// Results written down beforehand: no server at all.
    Scripted(Scripts),
    /// An MCP server: its tools listed, its tools called, one session per
    /// case.
    Mcp(mcp::McpServer),
}

/// A kind of injected fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The tool answers an error.
    Error,
    /// The tool does not answer in time.
    Timeout,
    /// The tool's answer is cut short (not the JSON it should be).
    Malformed,
}

impl FaultKind {
    /// The kind of its name.
    pub fn from_name(name: &str) -> Option<FaultKind> {
        Some(match name {
            "error" => FaultKind::Error,
            "timeout" => FaultKind::Timeout,
            "malformed" => FaultKind::Malformed,
            _ => return None,
        })
    }
}

/// Seeded tool faults: each call that reaches a tool is faulted with
/// probability `rate`, its kind drawn from `kinds`, both a function of
/// (seed, case, step, call) only.
#[derive(Clone, Debug, PartialEq)]
pub struct Faults {
    /// The seed.
    pub seed: u64,
    /// The share of calls faulted, 0 to 1.
    pub rate: f64,
    /// The kinds drawn from (at least one).
    pub kinds: Vec<FaultKind>,
}

impl Faults {
    /// The fault of call `call` (0-based, in the answer's order) of model
    /// step `step` (0-based) of case `case`, if it is faulted.
    pub fn at(&self, case: &str, step: usize, call: usize) -> Option<FaultKind> {
        if self.kinds.is_empty() {
            return None;
        }
        // FNV-1a of the case's key: the same on every platform and build
        let mut rng = SplitMix64::new(self.seed ^ crate::demo::fnv1a(case));
        // one draw per place, so a case's faults do not depend on how many
        // calls came before in another order
        let mut place = SplitMix64::new(
            rng.next_u64() ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ call as u64,
        );
        place.next_u64();
        (place.next_unit() < self.rate).then(|| self.kinds[place.below(self.kinds.len())])
    }
}

/// One tool call of a step and what came back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolStep {
    /// The call's id (the model's, or `call_<step>_<i>` when it gave none).
    pub id: String,
    /// The tool called.
    pub name: String,
    /// The arguments as sent.
    pub arguments: String,
    /// What the model was told: the tool's answer, or why there was none.
    pub content: String,
    /// The answer is an error (the tool's, a fault, or the call's own).
    pub is_error: bool,
    /// The fault injected, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultKind>,
    /// The call itself was wrong: a tool the environment does not have, or
    /// arguments that are not a JSON object (the model is told so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Time from sending the call to its answer, ms (a call an MCP server
    /// answered; none for scripted results, wrong or faulted calls not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

/// One model call of a case and the tool calls it made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentStep {
    /// Tokens of the call (prompt and completion), when the endpoint said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Time from send to answer, ms, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    /// The calls executed, in the order given (none for the final answer,
    /// and none for calls left unexecuted at the step limit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolStep>,
}

/// How a case's loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentEnd {
    /// The model gave a text answer.
    Answered,
    /// The last allowed model call still called tools.
    StepLimit,
}

/// A case's loop as far as its answers go.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// The messages after the prompt: each assistant answer (with its calls)
    /// and the tools' answers, the final answer last once ended.
    pub trajectory: Vec<ChatMessage>,
    /// One per model call answered whose tool calls were all answered.
    pub steps: Vec<AgentStep>,
    /// How it ended, once it has: the final answer is the last step's.
    pub end: Option<AgentEnd>,
}

impl Progress {
    /// How many of the answers are the model's.
    pub fn model_answers(&self) -> usize {
        self.steps.len()
    }
}

/// What one call meets: the environment's answer to it.
pub struct ToolAnswer {
    /// The text the model is given.
    pub content: String,
    /// It is an error.
    pub is_error: bool,
}

/// Where a walk's tool calls are answered.
pub enum Env<'a> {
    /// By a pure function of the call (scripted results), the tools offered
    /// named.
    Scripted {
        /// The names of the tools the request carries.
        offered: &'a [String],
        /// The answer to a call.
        execute: &'a mut dyn FnMut(&Call) -> ToolAnswer,
    },
    /// By an MCP server, whose answers are among the case's answers: the
    /// first is its `tools/list`, then one per call sent, then (when
    /// `wants_state`) its `resources/read` of the world's state.
    Mcp {
        /// The world's state is read at the end (a `final_state` metric).
        wants_state: bool,
    },
}

/// What a case's loop asks next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// The model, these messages (the prompt, then the trajectory).
    Model(Vec<ChatMessage>),
    /// The MCP server, this JSON-RPC request.
    Server(serde_json::Value),
}

/// A case's loop walked over its answers (the model's and the server's, in
/// the order they were asked).
#[derive(Clone, Debug, PartialEq)]
pub struct Walk {
    /// The loop so far.
    pub progress: Progress,
    /// What to ask next; `None` once the case has ended (and its state, when
    /// wanted, is read).
    pub next: Option<Next>,
    /// The tools the request carries, when the server listed them (MCP).
    pub listed: Option<Arc<serde_json::Value>>,
    /// The names of the tools offered.
    pub offered: Vec<String>,
    /// Each step's model answer: its index among the answers.
    pub model_at: Vec<usize>,
    /// Each step's last answer read (its model answer, or the server's
    /// answer to its last call): a step is complete when this is read.
    pub step_end: Vec<usize>,
    /// The answers the loop read; those after are a judge's.
    pub read: usize,
    /// The world's state read at the end (MCP, when wanted).
    pub state: Option<serde_json::Value>,
    /// Each call a server answered: (its step, its place among the step's
    /// calls, its answer's index among the answers).
    pub tool_at: Vec<(usize, usize, usize)>,
    /// Why the case cannot go on: the MCP server answered out of protocol
    /// (its tools unusable, a call's answer not JSON-RPC, its state
    /// unreadable), an infrastructure failure that is the case's cause. The
    /// walk stops at that answer (`next` is `None`) and keeps what it read
    /// before it (the trajectory, the steps completed).
    pub failed: Option<String>,
}

impl Walk {
    /// Sets the latency of each call a server answered in `steps` (the
    /// walk's steps, or a record's), `elapsed(i)` being the time answer `i`
    /// took, ms.
    pub fn time_tools(&self, steps: &mut [AgentStep], elapsed: impl Fn(usize) -> Option<u64>) {
        for &(s, t, at) in &self.tool_at {
            if let Some(tool) = steps.get_mut(s).and_then(|s| s.tools.get_mut(t)) {
                tool.latency_ms = elapsed(at);
            }
        }
    }
}

/// The case's loop replayed over the model's `answers` against a pure
/// environment (scripted results): see [`walk`].
#[cfg(test)]
pub(crate) fn replay(
    spec: &AgentSpec,
    case: &str,
    offered: &[String],
    answers: &[Answer],
    mut execute: impl FnMut(&Call) -> ToolAnswer,
) -> Progress {
    let env = Env::Scripted {
        offered,
        execute: &mut execute,
    };
    // a scripted environment reads none of the answers as its own: it
    // never fails
    walk(spec, case, &[], env, answers).progress
}

/// The case's loop walked over its `answers` (a judge's answers after the
/// end are not read): `case` is its key for faults (sample id and repeat),
/// `prompt` its rendered messages, `env` where its calls go. When the MCP
/// server answered out of protocol (its tools unusable, its state
/// unreadable), [`Walk::failed`] says so: an infrastructure failure, the
/// case's cause; the walk keeps what came before.
///
/// A faulted call of kind `error` or `timeout` is not sent (the tool
/// failed); one of kind `malformed` is, and its answer is cut short on the
/// way back.
pub fn walk(
    spec: &AgentSpec,
    case: &str,
    prompt: &[ChatMessage],
    env: Env<'_>,
    answers: &[Answer],
) -> Walk {
    let mut w = Walk {
        progress: Progress {
            trajectory: Vec::new(),
            steps: Vec::new(),
            end: None,
        },
        next: None,
        listed: None,
        offered: Vec::new(),
        model_at: Vec::new(),
        step_end: Vec::new(),
        read: 0,
        state: None,
        tool_at: Vec::new(),
        failed: None,
    };
    let mut i = 0;
    if let Err(why) = walk_into(&mut w, &mut i, spec, case, prompt, env, answers) {
        w.failed = Some(why);
        w.next = None;
    }
    w.read = i;
    w
}

/// The body of [`walk`]: fills `w` from the answers, `i` the next answer to
/// read; `Err` with the cause when the server answered out of protocol (`i`
/// past that answer).
fn walk_into(
    w: &mut Walk,
    i: &mut usize,
    spec: &AgentSpec,
    case: &str,
    prompt: &[ChatMessage],
    mut env: Env<'_>,
    answers: &[Answer],
) -> Result<(), String> {
    let server_answer = |a: &Answer| -> Result<serde_json::Value, String> {
        serde_json::from_str(&a.text)
            .map_err(|e| format!("the MCP server's answer is not JSON ({e})"))
    };
    match &env {
        Env::Scripted { offered, .. } => w.offered = offered.to_vec(),
        Env::Mcp { .. } => {
            let Some(a) = answers.first() else {
                w.next = Some(Next::Server(mcp::list_tools(1)));
                return Ok(());
            };
            *i = 1;
            let tools = mcp::tools_of(&server_answer(a)?)
                .map_err(|e| format!("the MCP server's tools/list is out of protocol: {e}"))?;
            w.offered = offered_names(Some(&tools));
            w.listed = Some(tools);
        }
    }
    let mut rpc_id = 2u64;
    'steps: for step in 0.. {
        let Some(a) = answers.get(*i) else {
            let mut m = prompt.to_vec();
            m.extend(w.progress.trajectory.iter().cloned());
            w.next = Some(Next::Model(m));
            break;
        };
        w.model_at.push(*i);
        *i += 1;
        let calls = a.calls.as_deref().unwrap_or_default();
        let mut s = AgentStep {
            tokens: a
                .usage
                .as_ref()
                .map(|u| u.prompt_tokens + u.completion_tokens),
            ..AgentStep::default()
        };
        if calls.is_empty() {
            w.progress
                .trajectory
                .push(ChatMessage::new("assistant", a.text.clone()));
            w.progress.steps.push(s);
            w.step_end.push(*i - 1);
            w.progress.end = Some(AgentEnd::Answered);
            break;
        }
        let calls: Vec<Call> = calls
            .iter()
            .enumerate()
            .map(|(n, c)| Call {
                id: Some(c.id.clone().unwrap_or_else(|| format!("call_{step}_{n}"))),
                ..c.clone()
            })
            .collect();
        w.progress
            .trajectory
            .push(ChatMessage::assistant_calls(a.text.clone(), calls.clone()));
        if step + 1 >= spec.max_steps as usize {
            w.progress.steps.push(s);
            w.step_end.push(*i - 1);
            w.progress.end = Some(AgentEnd::StepLimit);
            break;
        }
        for (n, c) in calls.iter().enumerate() {
            let id = c.id.clone().unwrap_or_default();
            let t = match checked(&w.offered, c, &id) {
                Some(said) => said,
                None => {
                    let fault = spec.faults.as_ref().and_then(|f| f.at(case, step, n));
                    let answer = match (fault, &mut env) {
                        (Some(FaultKind::Error | FaultKind::Timeout), _) => None,
                        (_, Env::Scripted { execute, .. }) => Some(execute(c)),
                        (_, Env::Mcp { .. }) => {
                            let Some(a) = answers.get(*i) else {
                                let args = serde_json::from_str(&c.arguments)
                                    .unwrap_or(serde_json::Value::Null);
                                w.next = Some(Next::Server(mcp::call_tool(rpc_id, &c.name, args)));
                                break 'steps;
                            };
                            w.tool_at.push((step, s.tools.len(), *i));
                            *i += 1;
                            rpc_id += 1;
                            Some(mcp::tool_answer(&server_answer(a)?))
                        }
                    };
                    faulted(c, id, answer, fault)
                }
            };
            w.progress
                .trajectory
                .push(ChatMessage::tool_result(&t.id, t.content.clone()));
            s.tools.push(t);
        }
        w.progress.steps.push(s);
        w.step_end.push(*i - 1);
    }
    if let (Some(_), Env::Mcp { wants_state: true }) = (w.progress.end, &env) {
        match answers.get(*i) {
            None => w.next = Some(Next::Server(mcp::read_state(rpc_id))),
            Some(a) => {
                *i += 1;
                w.state = Some(mcp::state_of(&server_answer(a)?).map_err(|e| {
                    format!("the MCP server's state could not be read for final_state: {e}")
                })?);
            }
        }
    }
    Ok(())
}

/// The step of a call that is wrong in itself (a tool not offered,
/// arguments that are not a JSON object): the model is told so, nothing is
/// sent. `None` for a call to send.
fn checked(offered: &[String], c: &Call, id: &str) -> Option<ToolStep> {
    let why = if !offered.iter().any(|n| n == &c.name) {
        format!(
            "no tool named {:?}; the tools are: {}",
            c.name,
            offered.join(", ")
        )
    } else {
        match serde_json::from_str::<serde_json::Value>(&c.arguments) {
            Ok(v) if v.is_object() => return None,
            Ok(_) => "the arguments are not a JSON object".to_string(),
            Err(e) => format!("the arguments are not JSON ({e})"),
        }
    };
    Some(ToolStep {
        id: id.to_string(),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
        content: format!("error: {why}"),
        is_error: true,
        fault: None,
        problem: Some(why),
        latency_ms: None,
    })
}

/// The step of a call sent (or, faulted as failed, not sent): its answer
/// with the fault applied.
fn faulted(c: &Call, id: String, answer: Option<ToolAnswer>, fault: Option<FaultKind>) -> ToolStep {
    let answer = answer.unwrap_or(ToolAnswer {
        content: String::new(),
        is_error: true,
    });
    let (content, is_error) = match fault {
        None => (answer.content, answer.is_error),
        Some(FaultKind::Error) => (
            "error: the tool failed (an injected fault); try again".to_string(),
            true,
        ),
        Some(FaultKind::Timeout) => (
            "error: the tool did not answer in time (an injected fault)".to_string(),
            true,
        ),
        Some(FaultKind::Malformed) => {
            let half: String = answer
                .content
                .chars()
                .take(answer.content.chars().count() / 2)
                .collect();
            (if half.is_empty() { "{".into() } else { half }, false)
        }
    };
    ToolStep {
        id,
        name: c.name.clone(),
        arguments: c.arguments.clone(),
        content,
        is_error,
        fault,
        problem: None,
        latency_ms: None,
    }
}

/// A case's agent figures, kept with its result: how it ended and each step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentRecord {
    /// How the loop ended.
    pub end: AgentEnd,
    /// Model calls made.
    pub model_calls: usize,
    /// Tool calls executed.
    pub tool_calls: usize,
    /// Calls wrong in themselves (unknown tool, arguments not JSON).
    pub call_problems: usize,
    /// Calls faulted on purpose.
    pub faults: usize,
    /// Tokens over the case's model calls, when every call said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Characters of the tools' answers over the case.
    pub result_chars: usize,
    /// Each step.
    pub steps: Vec<AgentStep>,
    /// The tools the MCP server listed for the case (what it was scored
    /// against).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// The world's state read at the end (MCP, for `final_state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<serde_json::Value>,
}

impl AgentRecord {
    /// The record of an ended loop, each step's latency taken from
    /// `latencies` (ms per model call, in order) where known.
    pub fn of(p: &Progress, latencies: &[u64]) -> Option<AgentRecord> {
        let end = p.end?;
        let mut steps = p.steps.clone();
        for (s, ms) in steps.iter_mut().zip(latencies) {
            s.latency_ms = Some(*ms);
        }
        let tools = || steps.iter().flat_map(|s| &s.tools);
        Some(AgentRecord {
            end,
            model_calls: steps.len(),
            tool_calls: tools().count(),
            call_problems: tools().filter(|t| t.problem.is_some()).count(),
            faults: tools().filter(|t| t.fault.is_some()).count(),
            tokens: steps.iter().map(|s| s.tokens).sum(),
            result_chars: tools().map(|t| t.content.chars().count()).sum(),
            steps,
            tools: Vec::new(),
            state: None,
        })
    }
}

/// The names of the tools a request's `tools` (OpenAI's form) offers.
pub fn offered_names(tools: Option<&Arc<serde_json::Value>>) -> Vec<String> {
    tools
        .and_then(|t| t.as_array())
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.get("function")
                .and_then(|f| f.get("name"))
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        })
        .collect()
}

#[cfg(test)]
mod tests;
