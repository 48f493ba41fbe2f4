//! The deterministic mock model of `evalpage run --mock` (spec 004 §4: "check
//! the flow with `--mock --max-samples 3` before a real model") and of the
//! page's offline model for tasks.
//!
//! For a task with a `parse_schema` it answers one JSON object with every
//! schema field, each value valid for its type (enum values from `values`,
//! numbers inside `lo`/`hi`), wrapped the way real models often wrap it (a
//! code fence for some samples) so the extraction path is exercised too. To
//! give metrics something to measure, a field that a metric compares with a
//! label takes the label's value for most samples and a near miss for the rest
//! (another enum value, a number 2 off, a list missing an item, ...). Which
//! samples get a near miss is a hash of model name, sample id and field, so
//! two model names give two different, repeatable result sets.
//!
//! For free-text tasks (no schema) it answers the sample's `expected` text, or
//! for RAG samples the bundled demo model's answer to the rendered prompt.

use crate::dataset::sample::Sample;
use crate::demo;
use crate::provider::{Answer, ChatMessage};
use crate::schema::{FieldKind, FieldSpec};
use crate::task::contract::Task;
use crate::toolcall::Call;
use serde_json::{json, Map, Value};

/// Out of 100 field values, how many the mock gets right (when it has a label).
const RIGHT_PERCENT: u64 = 75;

/// The mock model's answer to one sample, with token counts as the demo
/// model and the mock endpoint count them.
pub fn answer(task: &Task, sample: &Sample, model: &str, messages: &[ChatMessage]) -> Answer {
    if task.agent.is_some() {
        if let Some(a) = agent_answer(sample, model, messages) {
            return a;
        }
        if messages.iter().any(|m| m.role == "tool") {
            let text = text(task, sample, model, messages);
            return Answer {
                usage: Some(demo::usage(messages, &text, None)),
                finish_reason: Some("stop".into()),
                text,
                ..Answer::default()
            };
        }
    }
    if let Some(calls) = mock_calls(task, sample, model) {
        let text = serde_json::to_string(&calls).unwrap_or_default();
        return Answer {
            usage: Some(demo::usage(messages, &text, None)),
            finish_reason: Some("tool_calls".into()),
            calls: Some(calls),
            ..Answer::default()
        };
    }
    let text = text(task, sample, model, messages);
    Answer {
        usage: Some(demo::usage(messages, &text, None)),
        finish_reason: Some("stop".into()),
        reasoning: None,
        text,
        ..Answer::default()
    }
}

/// For a task with tools, the calls the mock model makes: the possible
/// answers' first values (BFCL's `ground_truth`, `[{name: {param:
/// [values]}}]`, an optional parameter left out) or the sample's
/// `expected_calls`, for most samples; for the rest a near miss (one value
/// changed), or no call at all where none is expected but one is made. `None`
/// for a text task, or a sample with nothing to call from.
fn mock_calls(task: &Task, sample: &Sample, model: &str) -> Option<Vec<Call>> {
    if task.tools == crate::task::contract::Tools::None {
        return None;
    }
    let h = hash(&format!("{model}\u{1f}{}\u{1f}calls", sample.id));
    let right = h % 100 < RIGHT_PERCENT;
    let mut calls: Vec<(String, Map<String, Value>)> = Vec::new();
    if let Some(Value::Array(truth)) = sample.get("ground_truth") {
        for item in truth {
            let Some((name, params)) = item.as_object().and_then(|o| o.iter().next()) else {
                continue;
            };
            let mut args = Map::new();
            for (p, values) in params.as_object().into_iter().flatten() {
                let first = values
                    .as_array()
                    .and_then(|vs| vs.iter().find(|v| *v != &json!("")));
                if let Some(v) = first {
                    args.insert(p.clone(), v.clone());
                }
            }
            calls.push((name.clone(), args));
        }
    } else if let Some(Value::Array(expected)) = sample.get("expected_calls") {
        for e in expected {
            if let (Some(name), args) = (e.get("name").and_then(Value::as_str), e.get("arguments"))
            {
                let args = args.and_then(Value::as_object).cloned().unwrap_or_default();
                calls.push((name.to_string(), args));
            }
        }
    } else if sample.get("bfcl_category").is_some() {
        // an irrelevance entry: abstain, or (a near miss) call the first function
        if right {
            return Some(Vec::new());
        }
        let name = sample
            .get("function")
            .and_then(|f| f.get(0))
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)?;
        calls.push((name.to_string(), Map::new()));
    } else {
        return None;
    }
    if !right {
        if let Some((_, args)) = calls.first_mut() {
            if let Some((_, v)) = args.iter_mut().next() {
                *v = match v {
                    Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + 7.0),
                    Value::String(t) => json!(format!("{t} (guess)")),
                    Value::Bool(b) => json!(!*b),
                    _ => json!("?"),
                };
            }
        }
    }
    Some(
        calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, args))| Call {
                id: Some(format!("call_{i}")),
                name: name.replace('.', "_"),
                arguments: Value::Object(args).to_string(),
            })
            .collect(),
    )
}

/// For an agent task whose sample has an `expected_trajectory`, the mock
/// plays it: its n-th answer is the reference's n-th assistant message
/// (calls and text), then the reference's final answer. It reads the tools'
/// answers: when one of the last calls was answered with an error, it makes
/// the same calls once more (an agent that retries a failing tool). For some
/// samples (a hash of model and sample) it skips the reference's last step of
/// calls (answering at once when that was the only one), so trajectory
/// metrics have a failure to find.
fn agent_answer(sample: &Sample, model: &str, messages: &[ChatMessage]) -> Option<Answer> {
    let expected: Vec<ChatMessage> =
        serde_json::from_value(sample.get("expected_trajectory")?.clone()).ok()?;
    let mut plan: Vec<&ChatMessage> = expected
        .iter()
        .filter(|m| matches!(m.role.as_str(), "assistant" | "ai"))
        .collect();
    let right = hash(&format!("{model}\u{1f}{}\u{1f}agent", sample.id)) % 100 < RIGHT_PERCENT;
    let calling = plan
        .iter()
        .filter(|m| m.tool_calls.as_ref().is_some_and(|c| !c.is_empty()));
    if !right && calling.count() > 0 {
        if let Some(at) = plan
            .iter()
            .rposition(|m| m.tool_calls.as_ref().is_some_and(|c| !c.is_empty()))
        {
            plan.remove(at);
        }
    }
    let said: Vec<&ChatMessage> = messages.iter().filter(|m| m.role == "assistant").collect();
    let same = |a: &ChatMessage, b: &ChatMessage| {
        let key = |m: &ChatMessage| -> Option<Vec<(String, String)>> {
            let calls = m.tool_calls.as_ref().filter(|c| !c.is_empty())?;
            Some(
                calls
                    .iter()
                    .map(|c| (c.name.clone(), c.arguments.clone()))
                    .collect(),
            )
        };
        key(a).is_some() && key(a) == key(b)
    };
    let retries = said.windows(2).filter(|w| same(w[0], w[1])).count();
    let failed = messages.last().is_some_and(|m| m.role == "tool")
        && messages
            .iter()
            .rev()
            .take_while(|m| m.role == "tool")
            .any(|m| m.content.starts_with("error"));
    let last_was_retry = said.len() >= 2 && same(said[said.len() - 1], said[said.len() - 2]);
    let step = said.len() - retries;
    let next = match said.last() {
        Some(prev) if failed && !last_was_retry => Some((*prev).clone()),
        _ => plan.get(step).map(|m| (*m).clone()),
    };
    let reply = next.unwrap_or_else(|| ChatMessage::new("assistant", "done"));
    let calls = reply.tool_calls.filter(|c| !c.is_empty()).map(|calls| {
        calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| Call {
                id: Some(format!("call_{}_{i}", said.len())),
                ..c
            })
            .collect::<Vec<_>>()
    });
    let text = reply.content;
    Some(Answer {
        usage: Some(demo::usage(messages, &text, None)),
        finish_reason: Some(
            if calls.is_some() {
                "tool_calls"
            } else {
                "stop"
            }
            .into(),
        ),
        calls,
        text,
        ..Answer::default()
    })
}

/// The text of the mock model's answer to one sample.
pub fn text(task: &Task, sample: &Sample, model: &str, messages: &[ChatMessage]) -> String {
    if task.schema.fields.is_empty() {
        return free_text(sample, model, messages);
    }
    let mut obj = Map::new();
    for f in &task.schema.fields {
        let h = hash(&format!("{model}\u{1f}{}\u{1f}{}", sample.id, f.field));
        let label = label_of(task, sample, &f.field);
        let v = match label {
            Some(l) if h % 100 < RIGHT_PERCENT => valid(f, l).unwrap_or_else(|| made_up(f, h)),
            Some(l) => near_miss(f, l, h),
            None => made_up(f, h),
        };
        obj.insert(f.field.clone(), v);
    }
    let body = serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_default();
    let h = hash(&format!("{model}\u{1f}{}", sample.id));
    if h % 3 == 0 {
        format!("Here is the analysis:\n```json\n{body}\n```")
    } else {
        body
    }
}

/// FNV-1a of the text, then splitmix64's finaliser: FNV alone leaves the low
/// bits of near-identical keys (`a/S1/x`, `a/S2/x`) correlated.
fn hash(text: &str) -> u64 {
    let mut z = demo::fnv1a(text);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The label a metric compares `field` with, if the sample has it.
fn label_of<'a>(task: &Task, sample: &'a Sample, field: &str) -> Option<&'a Value> {
    task.raw
        .metrics
        .iter()
        .filter(|m| m.pred_field() == Some(field))
        .find_map(|m| sample.get(m.label_field()?))
}

/// The label as a value of the field's type, when it is one.
fn valid(f: &FieldSpec, label: &Value) -> Option<Value> {
    let ok = match &f.kind {
        FieldKind::Enum { values } => values.contains(label),
        FieldKind::Int { .. } => label.as_i64().is_some(),
        FieldKind::Float { .. } => label.is_number(),
        FieldKind::Str => label.is_string(),
        FieldKind::Bool => label.is_boolean(),
        FieldKind::List | FieldKind::ListRaw => label.is_array(),
    };
    ok.then(|| clamp(f, label.clone()))
}

fn near_miss(f: &FieldSpec, label: &Value, h: u64) -> Value {
    let v = match (&f.kind, label) {
        (FieldKind::Enum { values }, _) if values.len() > 1 => {
            let at = values.iter().position(|v| v == label).unwrap_or(0);
            values[(at + 1 + (h as usize % (values.len() - 1))) % values.len()].clone()
        }
        (FieldKind::Int { .. }, l) if l.as_i64().is_some() => {
            json!(l.as_i64().unwrap_or(0) + if h % 2 == 0 { 2 } else { -2 })
        }
        (FieldKind::Float { .. }, l) if l.is_number() => {
            json!(l.as_f64().unwrap_or(0.0) + if h % 2 == 0 { 1.5 } else { -1.5 })
        }
        (FieldKind::Str, Value::String(s)) => {
            let words: Vec<&str> = s.split_whitespace().collect();
            if words.len() > 1 {
                json!(words[..words.len() / 2].join(" "))
            } else {
                json!(s.chars().take(s.chars().count() / 2).collect::<String>())
            }
        }
        (FieldKind::Bool, Value::Bool(b)) => json!(!b),
        (FieldKind::List | FieldKind::ListRaw, Value::Array(items)) => {
            let mut items = items.clone();
            items.pop();
            items.push(json!("other"));
            Value::Array(items)
        }
        _ => made_up(f, h),
    };
    clamp(f, v)
}

/// A valid value with no label to go by.
fn made_up(f: &FieldSpec, h: u64) -> Value {
    match &f.kind {
        FieldKind::Enum { values } if !values.is_empty() => {
            values[h as usize % values.len()].clone()
        }
        FieldKind::Int { lo, hi } => {
            let (lo, hi) = (lo.unwrap_or(0), hi.unwrap_or(10).max(lo.unwrap_or(0)));
            let span = u64::try_from(hi.saturating_sub(lo)).unwrap_or(0) + 1;
            json!(lo.saturating_add(i64::try_from(h % span).unwrap_or(0)))
        }
        FieldKind::Float { lo, hi } => {
            let (lo, hi) = (lo.unwrap_or(0.0), hi.unwrap_or(1.0));
            json!(lo + (hi - lo) * (h % 101) as f64 / 100.0)
        }
        FieldKind::Str => json!(format!("mock value {}", h % 1000)),
        FieldKind::Bool => json!(h % 2 == 0),
        FieldKind::List | FieldKind::ListRaw => json!([]),
        FieldKind::Enum { .. } => f.default.clone(),
    }
}

fn clamp(f: &FieldSpec, v: Value) -> Value {
    match (&f.kind, v.as_f64()) {
        (FieldKind::Int { lo, hi }, Some(x)) => {
            let mut x = x.round() as i64;
            if let Some(lo) = lo {
                x = x.max(*lo);
            }
            if let Some(hi) = hi {
                x = x.min(*hi);
            }
            json!(x)
        }
        (FieldKind::Float { lo, hi }, Some(mut x)) => {
            if let Some(lo) = lo {
                x = x.max(*lo);
            }
            if let Some(hi) = hi {
                x = x.min(*hi);
            }
            json!(x)
        }
        _ => v,
    }
}

fn free_text(sample: &Sample, model: &str, messages: &[ChatMessage]) -> String {
    let h = hash(&format!("{model}\u{1f}{}", sample.id));
    if let Some(expected) = sample.get("expected").and_then(Value::as_str) {
        if h % 100 < RIGHT_PERCENT {
            return expected.to_string();
        }
        let half: String = expected
            .chars()
            .take(expected.chars().count() / 2)
            .collect();
        return format!("{half}…");
    }
    demo::answer(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ParseStatus;
    use crate::task::contract::preset;

    fn sample(id: &str, fields: Value) -> Sample {
        let Value::Object(map) = fields else {
            panic!("object")
        };
        Sample::new(id, map)
    }

    #[test]
    fn answers_parse_cleanly_against_the_schema() {
        let task = preset("event_eval").expect("preset");
        for i in 0..50 {
            let s = sample(
                &format!("s{i}"),
                json!({"ticker": "X", "news_items": [], "gt_sentiment": "negative",
                       "gt_impact_score": 5, "gt_keywords": ["a", "b"]}),
            );
            let a = text(&task, &s, "m", &[]);
            let parsed = task.parse_answer(&a);
            assert!(parsed.json_error.is_none(), "{a}");
            for f in &parsed.fields {
                assert_eq!(f.status, ParseStatus::Parsed, "{a}");
            }
        }
    }

    #[test]
    fn mostly_right_sometimes_wrong_and_repeatable_per_model() {
        let task = preset("event_eval").expect("preset");
        let run = |model: &str| -> Vec<String> {
            (0..40)
                .map(|i| {
                    let s = sample(
                        &format!("s{i}"),
                        json!({"gt_sentiment": "positive", "gt_impact_score": 1, "gt_keywords": ["x"]}),
                    );
                    text(&task, &s, model, &[])
                })
                .collect()
        };
        let a = run("a");
        assert_eq!(a, run("a"));
        assert_ne!(a, run("b"));
        let right = a.iter().filter(|x| x.contains("\"positive\"")).count();
        assert!((20..40).contains(&right), "{right} of 40 right");
    }

    #[test]
    fn numbers_stay_inside_the_bounds() {
        let task = preset("event_eval").expect("preset");
        let s = sample("s", json!({"gt_impact_score": 5}));
        for m in 0..30 {
            let a = text(&task, &s, &format!("m{m}"), &[]);
            let v = task.parse_answer(&a);
            let score = v.get("impact_score").and_then(Value::as_i64).expect("int");
            assert!((-5..=5).contains(&score), "{score}");
            assert_eq!(
                v.field("impact_score").map(|f| f.status),
                Some(ParseStatus::Parsed)
            );
        }
    }

    #[test]
    fn free_text_tasks_answer_the_expected_text_mostly() {
        let task = preset("support_qa").expect("preset");
        let s = sample("q", json!({"expected": "Reset it in settings."}));
        let answers: Vec<String> = (0..20)
            .map(|m| text(&task, &s, &format!("m{m}"), &[]))
            .collect();
        assert!(answers.iter().any(|a| a == "Reset it in settings."));
        assert!(answers.iter().any(|a| a != "Reset it in settings."));
    }
}
