//! `tool_call_f1`: partial credit for calls that is well defined. Expected and
//! made calls are matched one to one by a maximum matching (augmenting paths,
//! so the best assignment, never a greedy one that an order could change); a
//! pair matches when the names are equal and the arguments agree as the mode
//! says. Precision is matched / made, recall matched / expected, each call
//! counted as many times as it occurs; F1 their harmonic mean. No expected and
//! no made call is 1; one side empty and the other not is 0.

use super::Call;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a made call's arguments must agree with an expected call's (the names
/// agentevals uses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgsMode {
    /// The same arguments (numbers compared by value).
    #[default]
    Exact,
    /// The name alone.
    Ignore,
    /// Every argument made is expected, with the same value.
    Subset,
    /// Every expected argument is made, with the same value.
    Superset,
}

/// The figures of one comparison.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct F1 {
    /// Matched pairs.
    pub matched: usize,
    /// Calls expected.
    pub expected: usize,
    /// Calls made.
    pub made: usize,
    /// matched / made (1 when none was made and none expected).
    pub precision: f64,
    /// matched / expected (1 when none was expected and none made).
    pub recall: f64,
    /// The harmonic mean.
    pub f1: f64,
}

/// JSON equality with numbers compared by value (1 equals 1.0; a boolean is
/// not a number).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `made` ⊆ `of`, key by key.
fn args_within(made: &Value, of: &Value) -> bool {
    match (made, of) {
        (Value::Object(m), Value::Object(o)) => m
            .iter()
            .all(|(k, v)| o.get(k).is_some_and(|w| json_eq(v, w))),
        _ => json_eq(made, of),
    }
}

/// Whether a made call matches an expected one, each call's arguments
/// already read (`None`: not JSON).
fn matches_read(
    (expected, e): (&Call, Option<&Value>),
    (made, m): (&Call, Option<&Value>),
    mode: ArgsMode,
) -> bool {
    if expected.name != made.name {
        return false;
    }
    if mode == ArgsMode::Ignore {
        return true;
    }
    // Arguments that do not parse match nothing but the same text.
    let (Some(e), Some(m)) = (e, m) else {
        return expected.arguments.trim() == made.arguments.trim();
    };
    match mode {
        ArgsMode::Exact => json_eq(e, m),
        ArgsMode::Subset => args_within(m, e),
        ArgsMode::Superset => args_within(e, m),
        ArgsMode::Ignore => true,
    }
}

/// The size of a maximum matching (Kuhn's augmenting paths).
fn max_matching(adj: &[Vec<usize>], right: usize) -> usize {
    fn augment(
        u: usize,
        adj: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &v in &adj[u] {
            if seen[v] {
                continue;
            }
            seen[v] = true;
            if owner[v].is_none_or(|w| augment(w, adj, seen, owner)) {
                owner[v] = Some(u);
                return true;
            }
        }
        false
    }
    let mut owner = vec![None; right];
    let mut n = 0;
    for u in 0..adj.len() {
        let mut seen = vec![false; right];
        if augment(u, adj, &mut seen, &mut owner) {
            n += 1;
        }
    }
    n
}

/// Precision, recall and F1 of `made` against `expected`.
pub fn score(expected: &[Call], made: &[Call], mode: ArgsMode) -> F1 {
    // each call's arguments read once, not once per pair
    let read = |calls: &[Call]| -> Vec<Option<Value>> {
        calls
            .iter()
            .map(|c| {
                (mode != ArgsMode::Ignore)
                    .then(|| c.arguments_json())
                    .flatten()
            })
            .collect()
    };
    let (e_args, m_args) = (read(expected), read(made));
    let adj: Vec<Vec<usize>> = expected
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (0..made.len())
                .filter(|&j| {
                    matches_read(
                        (e, e_args[i].as_ref()),
                        (&made[j], m_args[j].as_ref()),
                        mode,
                    )
                })
                .collect()
        })
        .collect();
    let matched = max_matching(&adj, made.len());
    let ratio = |n: usize, d: usize| {
        if d == 0 {
            if n == 0 {
                1.0
            } else {
                0.0
            }
        } else {
            n as f64 / d as f64
        }
    };
    let (expected_n, made_n) = (expected.len(), made.len());
    let (precision, recall, f1) = match (expected_n, made_n) {
        (0, 0) => (1.0, 1.0, 1.0),
        (0, _) | (_, 0) => (ratio(0, made_n), ratio(0, expected_n), 0.0),
        _ => {
            let p = matched as f64 / made_n as f64;
            let r = matched as f64 / expected_n as f64;
            (
                p,
                r,
                if p + r == 0.0 {
                    0.0
                } else {
                    2.0 * p * r / (p + r)
                },
            )
        }
    };
    F1 {
        matched,
        expected: expected_n,
        made: made_n,
        precision,
        recall,
        f1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, args: &str) -> Call {
        Call::new(name, args)
    }

    fn matches(expected: &Call, made: &Call, mode: ArgsMode) -> bool {
        matches_read(
            (expected, expected.arguments_json().as_ref()),
            (made, made.arguments_json().as_ref()),
            mode,
        )
    }

    #[test]
    fn the_peers_bugs_each_have_their_right_value() {
        // DeepEval #3141: two correct calls of one tool scored 0.5; it is 1.
        let two = [c("search", r#"{"q":"a"}"#), c("search", r#"{"q":"a"}"#)];
        assert_eq!(score(&two, &two, ArgsMode::Exact).f1, 1.0);
        // DeepEval #3338: the order of the expected list changes nothing.
        let e1 = [c("a", r#"{"x":1}"#), c("a", "{}")];
        let e2 = [c("a", "{}"), c("a", r#"{"x":1}"#)];
        let made = [c("a", "{}"), c("a", r#"{"x":1}"#)];
        // A greedy matcher in subset mode takes {x:1}'s partner badly in one order.
        assert_eq!(score(&e1, &made, ArgsMode::Subset).f1, 1.0);
        assert_eq!(score(&e2, &made, ArgsMode::Subset).f1, 1.0);
        // DeepEval #2024: nothing expected and nothing called is 1.
        assert_eq!(score(&[], &[], ArgsMode::Exact).f1, 1.0);
        // Ragas #2079: never above 1, with duplicates on either side.
        let one = [c("a", "{}")];
        let s = score(
            &one,
            &[c("a", "{}"), c("a", "{}"), c("a", "{}")],
            ArgsMode::Exact,
        );
        assert_eq!((s.precision, s.recall), (1.0 / 3.0, 1.0));
        assert!((s.f1 - 0.5).abs() < 1e-12);
        // Ragas #1893: an extra call costs precision.
        let s = score(&one, &[c("a", "{}"), c("b", "{}")], ArgsMode::Exact);
        assert_eq!((s.precision, s.recall), (0.5, 1.0));
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn one_side_empty_is_zero_and_numbers_compare_by_value() {
        assert_eq!(score(&[c("a", "{}")], &[], ArgsMode::Exact).f1, 0.0);
        assert_eq!(score(&[], &[c("a", "{}")], ArgsMode::Exact).f1, 0.0);
        assert!(matches(
            &c("a", r#"{"x":1}"#),
            &c("a", r#"{"x":1.0}"#),
            ArgsMode::Exact
        ));
        assert!(!matches(
            &c("a", r#"{"x":1}"#),
            &c("a", r#"{"x":true}"#),
            ArgsMode::Exact
        ));
        assert!(matches(
            &c("a", r#"{"x":1,"y":2}"#),
            &c("a", r#"{"x":1}"#),
            ArgsMode::Subset
        ));
        assert!(!matches(
            &c("a", r#"{"x":1,"y":2}"#),
            &c("a", r#"{"x":1}"#),
            ArgsMode::Superset
        ));
        assert!(matches(
            &c("a", r#"{"x":1}"#),
            &c("a", r#"{"x":9}"#),
            ArgsMode::Ignore
        ));
    }
}
