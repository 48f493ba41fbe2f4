//! `trajectory_match`: an agent's trajectory (its messages after the prompt:
//! assistant messages with their tool calls, tool results, the final answer)
//! against a reference trajectory, as agentevals 0.0.9 matches them
//! (`create_trajectory_match_evaluator`, PyPI `agentevals`, MIT; read, and
//! written again from its rules; `tests/trajectory_parity.rs` requires its
//! verdict on every generated pair and setting).
//!
//! The rules, each as agentevals has them:
//! - `strict`: as many messages as the reference, the same role at each place,
//!   calls where the reference has calls; within one message the calls are
//!   matched in any order, each output call taking the first reference call
//!   not yet taken with its name whose arguments match (greedy). Text is not
//!   compared.
//! - `superset`: every reference call, in order, takes the first output call
//!   not yet taken with its name whose arguments match; the calls are all the
//!   trajectory's, whatever message holds them. `subset` is the same with the
//!   two trajectories' places swapped (so is the arguments' comparison);
//!   `unordered` is both.
//! - calls are read on assistant messages only (agentevals reads messages
//!   through LangChain, which drops them elsewhere);
//! - arguments (`args`): `exact` (Python's `==` on the decoded objects: `1 ==
//!   1.0 == True`), `ignore`, `subset` (every output argument is in the
//!   reference with an equal value), `superset` (every reference argument is
//!   in the output with an equal value); per tool, another mode or a list of
//!   key paths (`trip.from`) whose values must be equal (a missing key and a
//!   JSON `null` are alike, as `dict.get` makes them).
//!
//! One deliberate difference: arguments that are not JSON, anywhere in either
//! trajectory, make agentevals raise (`JSONDecodeError` while it reads the
//! messages: no verdict at all); here the trajectory fails, each such call
//! said.

use super::f1::ArgsMode;
use super::message::ChatMessage;
use super::py::Py;
use super::{call_names as names, Call};
use serde::{Deserialize, Serialize};

/// How two trajectories must agree (agentevals' `trajectory_match_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrajectoryMode {
    /// The same messages in the same order, the same calls in each.
    #[default]
    Strict,
    /// The same calls, in any order and any message.
    Unordered,
    /// Every call made is in the reference.
    Subset,
    /// Every call of the reference is made.
    Superset,
}

impl TrajectoryMode {
    /// The mode of its name.
    pub fn from_name(name: &str) -> Option<TrajectoryMode> {
        Some(match name {
            "strict" => TrajectoryMode::Strict,
            "unordered" => TrajectoryMode::Unordered,
            "subset" => TrajectoryMode::Subset,
            "superset" => TrajectoryMode::Superset,
            _ => return None,
        })
    }
}

/// How one tool's arguments are compared, when it differs from the default.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgsRule {
    /// One of the modes.
    Mode(ArgsMode),
    /// The values at these key paths (`a.b`) are equal.
    Keys(Vec<String>),
}

/// The arguments' comparison: a default and per-tool rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArgsRules {
    /// For every tool without its own rule.
    pub default: ArgsMode,
    /// Tool name and its rule.
    pub per_tool: Vec<(String, ArgsRule)>,
}

impl ArgsRules {
    /// The rules of `default` and `overrides` (`{tool: mode}` or `{tool:
    /// [key paths]}`, agentevals' `tool_args_match_overrides`; `null` for
    /// none). An error says which tool's rule is wrong.
    pub fn read(default: ArgsMode, overrides: &serde_json::Value) -> Result<ArgsRules, String> {
        use serde_json::Value;
        let per_tool = match overrides {
            Value::Null => Vec::new(),
            Value::Object(o) => o
                .iter()
                .map(|(tool, rule)| {
                    let rule = match rule {
                        Value::String(m) => ArgsRule::Mode(
                            serde_json::from_value(rule.clone()).map_err(|_| {
                                format!("{tool}: {m:?} is not one of exact, ignore, subset, superset")
                            })?,
                        ),
                        Value::Array(keys) => ArgsRule::Keys(
                            keys.iter()
                                .map(|k| k.as_str().map(str::to_string))
                                .collect::<Option<_>>()
                                .ok_or_else(|| format!("{tool}: expected a list of key paths (strings)"))?,
                        ),
                        _ => {
                            return Err(format!(
                                "{tool}: expected a mode (exact, ignore, subset, superset) or a list of key paths"
                            ))
                        }
                    };
                    Ok((tool.clone(), rule))
                })
                .collect::<Result<_, String>>()?,
            _ => return Err("expected {tool: mode or [key paths]}".to_string()),
        };
        Ok(ArgsRules { default, per_tool })
    }

    fn rule_for(&self, tool: &str) -> ArgsRule {
        match self.per_tool.iter().find(|(t, _)| t == tool) {
            // an empty list of keys is no rule (agentevals tests the
            // override's truth)
            Some((_, ArgsRule::Keys(k))) if k.is_empty() => ArgsRule::Mode(self.default),
            Some((_, r)) => r.clone(),
            None => ArgsRule::Mode(self.default),
        }
    }
}

/// One message of a trajectory, as matching sees it: its role and calls.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// `assistant`, `tool`, `user`, `system`.
    pub role: &'a str,
    /// The message's calls (`None` or empty: none).
    pub calls: Option<&'a [Call]>,
}

impl<'a> Step<'a> {
    /// The role as agentevals reads it (LangChain's `ai` and `human` are
    /// `assistant` and `user`).
    fn role(&self) -> &str {
        match self.role {
            "ai" => "assistant",
            "human" => "user",
            r => r,
        }
    }

    /// The calls an assistant message makes (agentevals reads messages
    /// through LangChain, which keeps calls on assistant messages only).
    fn calls(&self) -> &'a [Call] {
        if self.role() == "assistant" {
            self.calls.unwrap_or_default()
        } else {
            &[]
        }
    }
}

/// The steps of chat messages: each one's role and calls.
pub fn steps(messages: &[ChatMessage]) -> Vec<Step<'_>> {
    messages
        .iter()
        .map(|m| Step {
            role: &m.role,
            calls: m.tool_calls.as_deref(),
        })
        .collect()
}

/// The verdict, with what did not match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TrajectoryVerdict {
    /// The trajectories match.
    pub matched: bool,
    /// Why not: each unmatched call, each extra call, or the first message
    /// that differs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// A call with its arguments decoded (`Err`: not JSON, with why).
struct Decoded<'a> {
    call: &'a Call,
    args: Result<Py, String>,
}

fn decode(c: &Call) -> Decoded<'_> {
    Decoded {
        call: c,
        args: c.arguments_py(),
    }
}

fn shown(c: &Call) -> String {
    format!("{}({})", c.name, c.arguments)
}

/// The value at a key path, a JSON `null` as nothing (Python's `dict.get`).
fn at_path<'a>(v: &'a Py, path: &str) -> Option<&'a Py> {
    let mut current = v;
    for part in path.split('.') {
        current = match current.get(part) {
            None | Some(Py::None) => return None,
            Some(next) => next,
        };
    }
    Some(current)
}

/// `of` holds every key of `made` with an equal value.
fn within(made: &Py, of: &Py) -> bool {
    match made {
        Py::Dict(d) => d.iter().all(|(k, v)| of.get(k).is_some_and(|w| w.py_eq(v))),
        _ => false,
    }
}

/// agentevals' matcher for one tool: `out` and `reference` as the caller
/// placed them.
fn args_match(rule: &ArgsRule, out: &Py, reference: &Py) -> bool {
    match rule {
        ArgsRule::Mode(ArgsMode::Exact) => out.py_eq(reference),
        ArgsRule::Mode(ArgsMode::Ignore) => true,
        ArgsRule::Mode(ArgsMode::Subset) => within(out, reference),
        ArgsRule::Mode(ArgsMode::Superset) => within(reference, out),
        ArgsRule::Keys(keys) => {
            keys.iter()
                .all(|k| match (at_path(out, k), at_path(reference, k)) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.py_eq(b),
                    _ => false,
                })
        }
    }
}

/// Whether `out` matches `reference` (same name, arguments as the tool's
/// rule says); arguments that are not JSON match nothing.
fn call_match(out: &Decoded, reference: &Decoded, rules: &ArgsRules) -> bool {
    if out.call.name != reference.call.name {
        return false;
    }
    match (&out.args, &reference.args) {
        (Ok(o), Ok(r)) => args_match(&rules.rule_for(&reference.call.name), o, r),
        _ => false,
    }
}

/// The problems of arguments that are not JSON, said once each.
fn unparsable(calls: &[Decoded], whose: &str) -> Vec<String> {
    calls
        .iter()
        .filter_map(|d| {
            d.args.as_ref().err().map(|e| {
                format!(
                    "{whose} call {} has arguments that are not JSON ({e})",
                    shown(d.call)
                )
            })
        })
        .collect()
}

/// agentevals' `_is_trajectory_superset(outputs, reference)`: each reference
/// call takes the first output call not taken that matches it. Returns the
/// reference calls left unmatched and the output calls left over.
fn superset<'a>(
    outputs: &'a [Decoded<'a>],
    reference: &'a [Decoded<'a>],
    rules: &ArgsRules,
) -> (Vec<&'a Call>, Vec<&'a Call>) {
    let mut taken = vec![false; outputs.len()];
    let mut missing = Vec::new();
    for r in reference {
        match (0..outputs.len()).find(|&i| !taken[i] && call_match(&outputs[i], r, rules)) {
            Some(i) => taken[i] = true,
            None => missing.push(r.call),
        }
    }
    let extra = outputs
        .iter()
        .zip(&taken)
        .filter(|(_, t)| !**t)
        .map(|(o, _)| o.call)
        .collect();
    (missing, extra)
}

fn all_calls<'a>(steps: &[Step<'a>]) -> Vec<Decoded<'a>> {
    steps.iter().flat_map(|s| s.calls()).map(decode).collect()
}

/// The verdict on `outputs` against `reference` in `mode`.
pub fn match_trajectory(
    outputs: &[Step],
    reference: &[Step],
    mode: TrajectoryMode,
    rules: &ArgsRules,
) -> TrajectoryVerdict {
    let fail = |problems: Vec<String>| TrajectoryVerdict {
        matched: false,
        problems,
    };
    let out = all_calls(outputs);
    let refs = all_calls(reference);
    // arguments that are not JSON fail the trajectory, whatever the mode
    // (agentevals raises on reading the messages, before any matching)
    let mut problems = unparsable(&out, "the");
    problems.extend(unparsable(&refs, "the reference's"));
    if !problems.is_empty() {
        return fail(problems);
    }
    if mode == TrajectoryMode::Strict {
        return strict(outputs, reference, rules);
    }
    // what the reference has and the output lacks, and the other way
    let lacks = |problems: &mut Vec<String>| {
        let (missing, _) = superset(&out, &refs, rules);
        problems.extend(
            missing
                .iter()
                .map(|c| format!("expected call {} not matched", shown(c))),
        );
    };
    let adds = |problems: &mut Vec<String>| {
        // the reference in the outputs' place, as agentevals calls it
        let (extra, _) = superset(&refs, &out, rules);
        problems.extend(
            extra
                .iter()
                .map(|c| format!("call {} is not in the reference", shown(c))),
        );
    };
    match mode {
        TrajectoryMode::Superset => lacks(&mut problems),
        TrajectoryMode::Subset => adds(&mut problems),
        _ => {
            lacks(&mut problems);
            adds(&mut problems);
        }
    }
    if problems.is_empty() {
        TrajectoryVerdict {
            matched: true,
            problems,
        }
    } else {
        fail(problems)
    }
}

/// agentevals' strict scorer.
fn strict(outputs: &[Step], reference: &[Step], rules: &ArgsRules) -> TrajectoryVerdict {
    let fail = |p: String| TrajectoryVerdict {
        matched: false,
        problems: vec![p],
    };
    if outputs.len() != reference.len() {
        return fail(format!(
            "{} messages, the reference has {}",
            outputs.len(),
            reference.len()
        ));
    }
    for (i, (o, r)) in outputs.iter().zip(reference).enumerate() {
        let at = i + 1;
        if o.role() != r.role() {
            return fail(format!(
                "message {at}: role {}, the reference's is {}",
                o.role(),
                r.role()
            ));
        }
        let (oc, rc) = (o.calls(), r.calls());
        if oc.is_empty() != rc.is_empty() {
            return fail(if oc.is_empty() {
                format!("message {at}: no call, the reference calls {}", names(rc))
            } else {
                format!(
                    "message {at}: calls {}, the reference makes none",
                    names(oc)
                )
            });
        }
        if oc.len() != rc.len() {
            return fail(format!(
                "message {at}: {} calls, the reference makes {}",
                oc.len(),
                rc.len()
            ));
        }
        let outs: Vec<Decoded> = oc.iter().map(decode).collect();
        let refs: Vec<Decoded> = rc.iter().map(decode).collect();
        let mut seen = vec![false; refs.len()];
        for out in &outs {
            match (0..refs.len()).find(|&j| !seen[j] && call_match(out, &refs[j], rules)) {
                Some(j) => seen[j] = true,
                None => {
                    return fail(format!(
                        "message {at}: call {} matches none of the reference's {}",
                        shown(out.call),
                        names(rc)
                    ))
                }
            }
        }
    }
    TrajectoryVerdict {
        matched: true,
        problems: Vec::new(),
    }
}
