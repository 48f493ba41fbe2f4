//! `reasoning_consistency` (spec 004 `final_answer` 与步骤/结论文本一致性):
//! does the model's final answer say what its own reasoning concluded?
//!
//! Inputs, all parse_schema fields: `answer_field` (default `final_answer`),
//! and the reasoning: `conclusion_field` (default `conclusion`) and/or
//! `steps_field` (default `steps`, an array of strings or of objects with a
//! `text`/`content` string, or one string of lines). A default name is used only
//! when the schema declares it; at least one of the two must be there.
//!
//! Rule: the conclusion text `C` is the conclusion when non-empty, else the last
//! non-empty step. With `A` the final answer:
//! - if `A` is a number (`42`, `-3.5`, `1,234`, `12%`), consistent when the last
//!   number written in `C` equals it (relative tolerance 1e-9);
//! - otherwise consistent when the tokens of `A` appear as a contiguous run in
//!   the tokens of `C`, or those of `C` in `A` (tokens as in `reference_rouge`:
//!   lowercase `[a-z0-9]` words, CJK by character), so `positive` agrees with
//!   "overall the news is positive" but `no` does not agree with "cannot".
//!
//! Value 1 when consistent, else 0 (also when `A` or `C` is empty). Needs no label.

use super::reference_rouge::tokenize;
use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::coerce::scalar_text;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "reasoning_consistency",
    kind: RunKind::Task,
    needs: "An answer field and the answer's reasoning steps (and conclusion, if any).",
    description: "The final answer agrees with the conclusion or last reasoning step (0/1).",
    description_zh: "最终答案与结论或最后一步推理一致（0/1）。",
    keys: &[
        MetricKey {
            name: "answer_field",
            description: "The final answer field (default `final_answer`).",
        },
        MetricKey {
            name: "steps_field",
            description: "The reasoning steps field (default `steps` when declared).",
        },
        MetricKey {
            name: "conclusion_field",
            description: "The conclusion text field (default `conclusion` when declared).",
        },
    ],
    example: "type: reasoning_consistency\nanswer_field: final_answer\nsteps_field: steps\n",
};

/// A built `reasoning_consistency`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReasoningConsistency {
    /// The final answer field.
    pub answer_field: String,
    /// The steps field, if used.
    pub steps_field: Option<String>,
    /// The conclusion field, if used.
    pub conclusion_field: Option<String>,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let answer = raw.string("answer_field")?.unwrap_or("final_answer");
    let optional = |key: &str, default: &str| -> Result<Option<String>, KeyError> {
        match raw.string(key)? {
            Some(name) => schema_field(schema, key, name, &[]).map(Some),
            None => Ok(schema.get(default).map(|_| default.to_string())),
        }
    };
    let steps_field = optional("steps_field", "steps")?;
    let conclusion_field = optional("conclusion_field", "conclusion")?;
    if steps_field.is_none() && conclusion_field.is_none() {
        return Err(KeyError::new("steps_field", "no reasoning to compare: declare `steps` or `conclusion` in parse_schema, or set steps_field / conclusion_field"));
    }
    Ok(Arc::new(ReasoningConsistency {
        answer_field: schema_field(schema, "answer_field", answer, &[])?,
        steps_field,
        conclusion_field,
    }))
}

impl ReasoningConsistency {
    /// The conclusion text and where it came from.
    fn conclusion(&self, input: &ScoreInput<'_>) -> Option<(String, &'static str)> {
        let text = |f: &Option<String>| f.as_deref().and_then(|f| input.pred(f));
        if let Some(c) = text(&self.conclusion_field)
            .and_then(scalar_text)
            .filter(|c| !c.trim().is_empty())
        {
            return Some((c, "conclusion"));
        }
        last_step(text(&self.steps_field)?).map(|s| (s, "last step"))
    }
}

/// The last non-empty step of a steps value.
pub fn last_step(steps: &Value) -> Option<String> {
    let step_text = |v: &Value| match v {
        Value::Object(o) => ["text", "content", "step"]
            .iter()
            .find_map(|k| o.get(*k).and_then(scalar_text)),
        other => scalar_text(other),
    };
    match steps {
        Value::Array(list) => list
            .iter()
            .rev()
            .filter_map(step_text)
            .find(|s| !s.trim().is_empty()),
        Value::String(s) => s
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// Every number written in `text`, in order: what the pattern
/// `-?\d+(?:,\d{3})*(?:\.\d+)?` finds (leftmost first, non-overlapping,
/// ASCII digits), matched by hand so the page carries no regex engine.
fn numbers(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let digits_from = |mut i: usize| {
        while digit(i) {
            i += 1;
        }
        i
    };
    let mut found = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let start = at;
        let first = if b[at] == b'-' && digit(at + 1) {
            at + 1
        } else {
            at
        };
        if !digit(first) {
            at += 1;
            continue;
        }
        let mut end = digits_from(first);
        while b.get(end) == Some(&b',') && (1..=3).all(|k| digit(end + k)) {
            end += 4;
        }
        if b.get(end) == Some(&b'.') && digit(end + 1) {
            end = digits_from(end + 1);
        }
        found.push(&text[start..end]);
        at = end;
    }
    found
}

/// A number written as `42`, `-3.5`, `1,234` or `12%`.
pub fn as_number(text: &str) -> Option<f64> {
    let t = text.trim().trim_end_matches('%').replace(',', "");
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Whether `answer` agrees with `conclusion`, and by which rule.
pub fn consistent(answer: &str, conclusion: &str) -> (bool, &'static str) {
    if let Some(a) = as_number(answer) {
        let last = numbers(conclusion).last().and_then(|m| as_number(m));
        return (last.is_some_and(|c| same_number(a, c)), "last number");
    }
    let (ta, tc) = (tokenize(answer), tokenize(conclusion));
    (
        contains_run(&tc, &ta) || contains_run(&ta, &tc),
        "token run",
    )
}

impl Metric for ReasoningConsistency {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let answer = input
            .pred(&self.answer_field)
            .and_then(scalar_text)
            .unwrap_or_default();
        if answer.trim().is_empty() {
            return SampleScore::new(0.0).detail("reason", "no final answer");
        }
        let Some((conclusion, source)) = self.conclusion(input) else {
            return SampleScore::new(0.0)
                .detail("final_answer", answer)
                .detail("reason", "no conclusion or steps");
        };
        let (ok, rule) = consistent(&answer, &conclusion);
        SampleScore::new(if ok { 1.0 } else { 0.0 })
            .detail("final_answer", answer)
            .detail("conclusion", conclusion)
            .detail("source", source)
            .detail("rule", rule)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    fn s() -> Schema {
        schema("[{field: steps, type: list_raw}, {field: final_answer, type: str}]")
    }

    const M: &str = "{type: reasoning_consistency}";

    #[test]
    fn text_answers_match_as_token_runs() {
        assert_eq!(
            consistent("positive", "Overall the news is positive."),
            (true, "token run")
        );
        assert_eq!(
            consistent("No", "The user cannot log in"),
            (false, "token run")
        );
        assert_eq!(
            consistent("净利润增长", "因此，净利润增长了。"),
            (true, "token run")
        );
        assert_eq!(
            consistent("The answer is Paris", "paris"),
            (true, "token run")
        );
    }

    #[test]
    fn numeric_answers_compare_with_the_last_number() {
        assert_eq!(consistent("42", "6 * 7 = 42"), (true, "last number"));
        assert_eq!(consistent("4", "6 * 7 = 42"), (false, "last number"));
        assert_eq!(consistent("1,234", "total 1,234"), (true, "last number"));
        assert_eq!(consistent("12%", "growth was 12"), (true, "last number"));
        assert_eq!(consistent("7", "no number here"), (false, "last number"));
    }

    #[test]
    fn scores_from_the_last_step_or_the_conclusion() {
        let answer = r#"{"steps":["revenue up 10%", {"text":"so sentiment is positive"}, ""],"final_answer":"positive"}"#;
        let sc = score(M, &s(), json!({}), answer);
        assert_eq!(sc.value, Some(1.0));
        assert_eq!(sc.detail["source"], json!("last step"));
        let wrong = r#"{"steps":["so sentiment is negative"],"final_answer":"positive"}"#;
        assert_eq!(score(M, &s(), json!({}), wrong).value, Some(0.0));
        assert_eq!(
            score(M, &s(), json!({}), r#"{"final_answer":"x"}"#).value,
            Some(0.0)
        );
        let with_conclusion =
            schema("[{field: conclusion, type: str}, {field: final_answer, type: int}]");
        assert_eq!(
            score(
                M,
                &with_conclusion,
                json!({}),
                r#"{"conclusion":"so 3 + 4 = 7","final_answer":7}"#
            )
            .value,
            Some(1.0)
        );
        assert_eq!(last_step(&json!("a\nb\n\n")), Some("b".into()));
    }

    #[test]
    fn needs_a_reasoning_field() {
        let only_answer = schema("[{field: final_answer, type: str}]");
        assert_eq!(build_error(M, &only_answer).key, "steps_field");
        assert_eq!(
            build_error("{type: reasoning_consistency, answer_field: nope}", &s()).key,
            "answer_field"
        );
        assert_eq!(
            build_error(
                "{type: reasoning_consistency, conclusion_field: nope}",
                &s()
            )
            .key,
            "conclusion_field"
        );
    }

    /// The hand matcher finds what the regex it replaces finds.
    #[test]
    fn numbers_equal_the_regex() {
        let re = regex_lite::Regex::new(r"-?\d+(?:,\d{3})*(?:\.\d+)?").expect("pattern");
        let mut texts: Vec<String> = [
            "so the answer is 42",
            "-3.5 and 1,234,567.89 then 12%",
            "1,2345 1,23 ,123 -,5 --7 -.5 3. .5",
            "v1.2.3 a-1b 1,234,5678 0.0001 ١٢٣ 4٫5 ２３",
            "",
            "-",
            "1,",
            "1.",
            "9,999.",
            "x1,000,000y",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        texts.extend(crate::rng::strings(11, "0123456789,.-a ４", 3000, 16));
        for t in &texts {
            let want: Vec<&str> = re.find_iter(t).map(|m| m.as_str()).collect();
            assert_eq!(numbers(t), want, "{t:?}");
        }
    }
}
