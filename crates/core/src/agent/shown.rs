//! A trajectory as a person reads it, step by step: each model answer's
//! text and calls, each call with what its tool answered (paired by
//! `tool_call_id`), faults and wrong calls marked. Built from the messages
//! alone (a saved conversation scored by `evalpage score`) or with the run's
//! agent record (a run's own cases: faults, problems, the step limit).

use super::{AgentEnd, AgentRecord};
use crate::toolcall::message::ChatMessage;

/// One model answer of a trajectory.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownStep {
    /// The answer's text (often empty beside calls).
    pub text: String,
    /// Its calls, in order.
    pub calls: Vec<ShownCall>,
}

/// One call and what came back.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownCall {
    /// The tool.
    pub name: String,
    /// The arguments, pretty-printed when they are JSON.
    pub arguments: String,
    /// The tool's answer (`None`: not executed, the case's last step at its
    /// limit, or a saved conversation without it).
    pub result: Option<String>,
    /// The answer is an error.
    pub is_error: bool,
    /// The fault injected (`error`, `timeout`, `malformed`).
    pub fault: Option<&'static str>,
    /// What was wrong with the call itself.
    pub problem: Option<String>,
    /// How long the server took to answer it, ms.
    pub latency_ms: Option<u64>,
}

/// The steps of `trajectory`, with `record`'s marks when the run kept one;
/// and whether it ended at the step limit.
pub fn shown_steps(
    trajectory: &[ChatMessage],
    record: Option<&AgentRecord>,
) -> (Vec<ShownStep>, bool) {
    let executed: Vec<&super::ToolStep> = record
        .into_iter()
        .flat_map(|r| r.steps.iter().flat_map(|s| &s.tools))
        .collect();
    let steps = trajectory
        .iter()
        .filter(|m| matches!(m.role.as_str(), "assistant" | "ai"))
        .map(|m| ShownStep {
            text: m.content.clone(),
            calls: m
                .tool_calls
                .iter()
                .flatten()
                .map(|c| {
                    let id = c.id.as_deref();
                    let answered = trajectory.iter().find(|t| {
                        t.role == "tool" && id.is_some() && t.tool_call_id.as_deref() == id
                    });
                    let step = executed.iter().find(|t| Some(t.id.as_str()) == id);
                    ShownCall {
                        name: c.name.clone(),
                        arguments: c.arguments_pretty(),
                        result: answered.map(|t| t.content.clone()),
                        is_error: step.is_some_and(|t| t.is_error),
                        fault: step.and_then(|t| t.fault).map(|f| match f {
                            super::FaultKind::Error => "error",
                            super::FaultKind::Timeout => "timeout",
                            super::FaultKind::Malformed => "malformed",
                        }),
                        problem: step.and_then(|t| t.problem.clone()),
                        latency_ms: step.and_then(|t| t.latency_ms),
                    }
                })
                .collect(),
        })
        .collect();
    let limit = record.is_some_and(|r| r.end == AgentEnd::StepLimit);
    (steps, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolcall::Call;

    #[test]
    fn calls_are_paired_with_their_answers_and_marked() {
        let call = |id: &str, name: &str| Call {
            id: Some(id.into()),
            ..Call::new(name, r#"{"a":1}"#)
        };
        let t = vec![
            ChatMessage::assistant_calls("looking", vec![call("x", "f"), call("y", "g")]),
            ChatMessage::tool_result("y", "G"),
            ChatMessage::tool_result("x", "error: the tool failed"),
            ChatMessage::assistant_calls("", vec![call("z", "f")]),
        ];
        let record: AgentRecord = serde_json::from_value(serde_json::json!({
            "end": "step_limit", "model_calls": 2, "tool_calls": 2, "call_problems": 0,
            "faults": 1, "result_chars": 3,
            "steps": [{"tools": [
                {"id": "x", "name": "f", "arguments": "{}", "content": "error: the tool failed", "is_error": true, "fault": "error"},
                {"id": "y", "name": "g", "arguments": "{}", "content": "G", "is_error": false}
            ]}, {}]
        }))
        .expect("record");
        let (steps, limit) = shown_steps(&t, Some(&record));
        assert!(limit);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].text, "looking");
        let (x, y) = (&steps[0].calls[0], &steps[0].calls[1]);
        assert_eq!(
            (x.result.as_deref(), x.fault, x.is_error),
            (Some("error: the tool failed"), Some("error"), true)
        );
        assert_eq!((y.result.as_deref(), y.fault), (Some("G"), None));
        assert_eq!(x.arguments, "{\n  \"a\": 1\n}");
        assert_eq!(steps[1].calls[0].result, None, "not executed at the limit");
        let (plain, limit) = shown_steps(&t, None);
        assert!(!limit);
        assert_eq!(plain[0].calls[1].result.as_deref(), Some("G"));
    }
}
