//! `trajectory_match`: the calls of an agent's trajectory against a reference
//! trajectory, as agentevals 0.0.9 matches them (`toolcall::trajectory`,
//! equal to agentevals on every verdict of `tests/trajectory_parity.rs`):
//! `mode` strict, unordered, subset or superset; `args` exact, ignore, subset
//! or superset; `overrides` per tool (a mode, or a list of key paths whose
//! values must be equal). The answer's trajectory is the conversation a saved
//! answer holds (OpenAI chat messages with `tool_calls` and `tool` messages),
//! else the answer's one assistant message (its text and calls). The
//! reference is the sample's `expected_trajectory` (`label_field`), the same
//! kind of messages. 1 when they match, else 0 with what did not match in the
//! detail (`problems`).

use super::{Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput};
use crate::position::KeyError;
use crate::schema::Schema;
use crate::toolcall::f1::ArgsMode;
use crate::toolcall::message::ChatMessage;
use crate::toolcall::read_answer;
use crate::toolcall::trajectory::{match_trajectory, steps, ArgsRules, TrajectoryMode};
use serde_json::Value;
use std::sync::Arc;

/// Registry entry of `trajectory_match`.
pub const TYPE: MetricType = MetricType {
    name: "trajectory_match",
    kind: RunKind::Task,
    needs: "An answer that is a conversation (an agent's messages with tool calls) or one message with calls, and the sample's expected trajectory.",
    description: "The trajectory's tool calls match the reference trajectory's as agentevals matches them (strict, unordered, subset or superset; arguments exact, ignore, subset or superset) (0/1).",
    description_zh: "轨迹中的工具调用是否与参考轨迹匹配，规则同 agentevals（strict、unordered、subset、superset；参数 exact、ignore、subset、superset）（0/1）。",
    keys: &[
        MetricKey {
            name: "mode",
            description: "strict (default: the same messages in order), unordered, subset (every call made is in the reference) or superset (every reference call is made).",
        },
        MetricKey {
            name: "args",
            description: "How arguments must agree: exact (default), ignore, subset or superset.",
        },
        MetricKey {
            name: "overrides",
            description: "Per tool: a mode (exact, ignore, subset, superset) or a list of key paths (`trip.from`) whose values must be equal.",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the reference trajectory: OpenAI chat messages (default `expected_trajectory`).",
        },
    ],
    example: "type: trajectory_match\nmode: unordered\nargs: exact\noverrides:\n  search: ignore\n",
};

/// A built `trajectory_match`.
#[derive(Clone, Debug, PartialEq)]
pub struct TrajectoryMatch {
    /// How the trajectories must agree.
    pub mode: TrajectoryMode,
    /// How arguments must agree.
    pub rules: ArgsRules,
    /// The reference's field.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, _schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let mode = match raw.string("mode")? {
        None => TrajectoryMode::Strict,
        Some(m) => TrajectoryMode::from_name(m).ok_or_else(|| {
            KeyError::new(
                "mode",
                format!("{m:?}: expected strict, unordered, subset or superset"),
            )
        })?,
    };
    let args: ArgsMode = match raw.value("args") {
        None => ArgsMode::Exact,
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            KeyError::new(
                "args",
                format!("{v}: expected exact, ignore, subset or superset"),
            )
        })?,
    };
    let rules = ArgsRules::read(args, raw.value("overrides").unwrap_or(&Value::Null))
        .map_err(|e| KeyError::new("overrides", e))?;
    Ok(Arc::new(TrajectoryMatch {
        mode,
        rules,
        label_field: raw
            .string("label_field")?
            .unwrap_or("expected_trajectory")
            .to_string(),
    }))
}

impl Metric for TrajectoryMatch {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let reference = match read_answer(label, &self.label_field) {
            Ok(parts) => match parts.trajectory {
                Some(t) => t,
                None => {
                    return SampleScore::skipped(format!(
                        "field `{}`: expected a list of chat messages (each with a `role`)",
                        self.label_field
                    ))
                }
            },
            Err(e) => return SampleScore::skipped(format!("field {e}")),
        };
        let own;
        let made: &[ChatMessage] = match &input.answer.trajectory {
            Some(t) => t,
            None => {
                own = [ChatMessage {
                    tool_calls: input.answer.calls.clone(),
                    ..ChatMessage::new("assistant", input.answer.raw_text())
                }];
                &own
            }
        };
        let v = match_trajectory(&steps(made), &steps(&reference), self.mode, &self.rules);
        let mut s = SampleScore::new(if v.matched { 1.0 } else { 0.0 })
            .detail(
                "mode",
                serde_json::to_value(self.mode).unwrap_or(Value::Null),
            )
            .detail("messages", made.len());
        if !v.problems.is_empty() {
            s = s.detail("problems", v.problems);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::{json, Value};

    fn call(name: &str, args: &str) -> Value {
        json!({"id": "c", "type": "function", "function": {"name": name, "arguments": args}})
    }

    /// A saved answer as the responses reader reads it.
    fn answer(v: Value) -> crate::schema::ParsedAnswer {
        let parts = crate::toolcall::read_answer(&v, "response").expect("answer");
        let mut a = schema("[]").parse_answer(&parts.text);
        a.calls = parts.calls;
        a.trajectory = parts.trajectory;
        a
    }

    #[test]
    fn a_saved_conversation_against_its_reference() {
        let reference = json!([
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {"role": "assistant", "content": null, "tool_calls": [call("w", r#"{"city": "Paris"}"#), call("w", r#"{"city": "Oslo"}"#)]},
            {"role": "tool", "tool_call_id": "c", "content": "18"},
            {"role": "assistant", "content": "Paris 18."}
        ]);
        let sample = json!({"expected_trajectory": reference});
        let strict = built("{type: trajectory_match}", &schema("[]"));
        // the same calls in the other order within the message: strict holds
        let mut swapped = reference.clone();
        if let Some(calls) = swapped[1]["tool_calls"].as_array_mut() {
            calls.reverse();
        }
        let s = score_parsed(&strict, sample.clone(), &answer(swapped));
        assert_eq!(s.value, Some(1.0), "{:?}", s.detail);
        // a call left out: strict and superset fail, saying why; subset holds
        let mut fewer = reference.clone();
        if let Some(calls) = fewer[1]["tool_calls"].as_array_mut() {
            calls.pop();
        }
        let s = score_parsed(&strict, sample.clone(), &answer(fewer.clone()));
        assert_eq!(s.value, Some(0.0));
        assert_eq!(
            s.detail["problems"],
            json!(["message 2: 1 calls, the reference makes 2"])
        );
        let superset = built("{type: trajectory_match, mode: superset}", &schema("[]"));
        let s = score_parsed(&superset, sample.clone(), &answer(fewer.clone()));
        assert_eq!(
            s.detail["problems"],
            json!([r#"expected call w({"city": "Oslo"}) not matched"#])
        );
        let subset = built("{type: trajectory_match, mode: subset}", &schema("[]"));
        assert_eq!(
            score_parsed(&subset, sample, &answer(fewer)).value,
            Some(1.0)
        );
        // a run's answer (one message with calls) against a one-step reference
        let one = json!({"expected_trajectory": [{"role": "assistant", "tool_calls": [call("w", r#"{"city": "Paris"}"#)]}]});
        let made =
            answer(json!({"role": "assistant", "tool_calls": [call("w", r#"{"city":"Paris"}"#)]}));
        assert!(made.trajectory.is_none());
        assert_eq!(score_parsed(&strict, one, &made).value, Some(1.0));
        // a bad key and a bad reference are said
        assert_eq!(
            build_error("{type: trajectory_match, mode: loose}", &schema("[]")).key,
            "mode"
        );
        assert_eq!(
            build_error("{type: trajectory_match, overrides: {w: 3}}", &schema("[]")).key,
            "overrides"
        );
        let bad = score_parsed(&strict, json!({"expected_trajectory": "w(Paris)"}), &made);
        assert!(bad.value.is_none(), "{:?}", bad.detail);
    }
}
