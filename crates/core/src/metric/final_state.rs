//! `final_state`: the world an agent left behind against the sample's
//! expected state. The world is what the case's MCP server gives as the
//! resource `state://world` once the case has ended (or, for a saved
//! answer, its line's `final_state`); the reference is the sample's
//! `expected_state` (`label_field`), JSON. `match: exact` (default) wants
//! the two equal (numbers by value: 850 equals 850.0); `match: subset`
//! wants every key of the expected objects present with a matching value,
//! other keys allowed (lists are compared item by item, of the same
//! length). 1 when they match, else 0 with the differences, path by path,
//! in the detail (`diff`). A case with no world to compare (it failed
//! before its world was read, or a saved answer has no `final_state`) is 0,
//! as every metric scores a failed call or a missing answer, so the rate is
//! over every case; only a sample without its expected state is skipped.

use super::{Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput};
use crate::position::KeyError;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry of `final_state`.
pub const TYPE: MetricType = MetricType {
    name: "final_state",
    kind: RunKind::Task,
    needs: "An agent task on an MCP server whose resource state://world gives the world's state (or saved answers with a final_state), and the sample's expected state.",
    description: "The world's state at the end of the case equals the expected state, or contains it with match: subset (0/1; the differences shown).",
    description_zh: "案例结束时世界状态是否等于期望状态（match: subset 时为包含）（0/1，列出差异）。",
    keys: &[
        MetricKey {
            name: "match",
            description: "exact (default: equal) or subset (every expected key present with an equal value; other keys allowed).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the expected state, JSON (default `expected_state`).",
        },
    ],
    example: "type: final_state\nmatch: subset\n",
};

/// The most differences a score lists.
const MAX_DIFFS: usize = 20;

/// A built `final_state`.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalState {
    /// Other keys in the world are allowed.
    pub subset: bool,
    /// The reference's field.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, _schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let subset = match raw.string("match")? {
        None | Some("exact") => false,
        Some("subset") => true,
        Some(m) => {
            return Err(KeyError::new(
                "match",
                format!("{m:?}: expected exact or subset"),
            ))
        }
    };
    Ok(Arc::new(FinalState {
        subset,
        label_field: raw
            .string("label_field")?
            .unwrap_or("expected_state")
            .to_string(),
    }))
}

impl Metric for FinalState {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(expected) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let mode = if self.subset { "subset" } else { "exact" };
        let Some(world) = &input.answer.state else {
            return SampleScore::new(0.0).detail("match", mode).detail(
                "no_state",
                "no final state: the case's world was not read (an MCP server's state://world, or a saved answer's final_state)",
            );
        };
        let mut diff = Vec::new();
        compare(expected, world, self.subset, "", &mut diff);
        let n = diff.len();
        diff.truncate(MAX_DIFFS);
        let mut s = SampleScore::new(if n == 0 { 1.0 } else { 0.0 }).detail("match", mode);
        if n > 0 {
            s = s.detail("diff", diff).detail("differences", n);
        }
        s
    }
}

/// A path's name in a difference (`$` for the whole state).
fn at(path: &str) -> &str {
    if path.is_empty() {
        "$"
    } else {
        path
    }
}

/// Walks `want` against `got`, pushing each difference at its path.
fn compare(want: &Value, got: &Value, subset: bool, path: &str, diff: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match g.get(k) {
                    Some(gv) => compare(wv, gv, subset, &p, diff),
                    None => diff.push(format!("{p}: expected {wv}, missing")),
                }
            }
            if !subset {
                for (k, gv) in g.iter().filter(|(k, _)| !w.contains_key(*k)) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    diff.push(format!("{p}: not expected, found {gv}"));
                }
            }
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                compare(wv, gv, subset, &format!("{path}[{i}]"), diff);
            }
        }
        (Value::Array(w), Value::Array(g)) => diff.push(format!(
            "{}: expected {} items, found {}: {}",
            at(path),
            w.len(),
            g.len(),
            got
        )),
        (Value::Number(w), Value::Number(g)) if w.as_f64() == g.as_f64() => {}
        (w, g) if w == g => {}
        (w, g) => diff.push(format!("{}: expected {w}, found {g}", at(path))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    fn scored(
        metric: &str,
        expected: serde_json::Value,
        world: Option<serde_json::Value>,
    ) -> crate::metric::SampleScore {
        let m = built(metric, &schema("[]"));
        let mut answer = schema("[]").parse_answer("done");
        answer.state = world;
        score_parsed(&m, json!({"expected_state": expected}), &answer)
    }

    #[test]
    fn the_world_equal_or_containing_the_expected_state() {
        let world = json!({"accounts": {"A1": 150, "LANDLORD": 800}, "cards": {"4471": "active"}});
        let right = scored("{type: final_state}", world.clone(), Some(world.clone()));
        assert_eq!(right.value, Some(1.0));
        let by_value = scored(
            "{type: final_state}",
            json!({"accounts": {"A1": 150.0, "LANDLORD": 800}, "cards": {"4471": "active"}}),
            Some(world.clone()),
        );
        assert_eq!(by_value.value, Some(1.0), "150.0 is 150");
        let part = json!({"accounts": {"A1": 150}});
        assert_eq!(
            scored(
                "{type: final_state, match: subset}",
                part.clone(),
                Some(world.clone())
            )
            .value,
            Some(1.0)
        );
        let exact = scored("{type: final_state}", part, Some(world.clone()));
        assert_eq!(exact.value, Some(0.0));
        assert_eq!(
            exact.detail["diff"],
            json!([
                "accounts.LANDLORD: not expected, found 800",
                "cards: not expected, found {\"4471\":\"active\"}"
            ])
        );
    }

    #[test]
    fn a_wrong_world_is_shown_path_by_path_and_a_missing_one_is_a_miss() {
        let wrong = scored(
            "{type: final_state, match: subset}",
            json!({"accounts": {"A1": 150, "SAVINGS": 300}, "cards": {"4471": "frozen"}, "log": [1, 2]}),
            Some(json!({"accounts": {"A1": 950}, "cards": {"4471": "active"}, "log": [1]})),
        );
        assert_eq!(wrong.value, Some(0.0));
        assert_eq!(
            wrong.detail["diff"],
            json!([
                "accounts.A1: expected 150, found 950",
                "accounts.SAVINGS: expected 300, missing",
                "cards.4471: expected \"frozen\", found \"active\"",
                "log: expected 2 items, found 1: [1]"
            ])
        );
        // no world (a failed case, a saved answer without one): 0, in the
        // denominator, with the reason; no expected state: skipped
        let none = scored("{type: final_state}", json!({}), None);
        assert_eq!(none.value, Some(0.0));
        assert!(
            none.detail["no_state"]
                .as_str()
                .is_some_and(|s| s.contains("state://world")),
            "{:?}",
            none.detail
        );
        let m = built("{type: final_state}", &schema("[]"));
        let answer = schema("[]").parse_answer("done");
        let unlabelled = score_parsed(&m, json!({"other": 1}), &answer);
        assert_eq!(unlabelled.value, None);
        assert!(unlabelled.detail.contains_key("skipped"));
        assert_eq!(
            build_error("{type: final_state, match: loose}", &schema("[]")).key,
            "match"
        );
    }
}
