//! Inspect AI logs (format version 2, as inspect_ai 0.3.x writes them): a
//! `.eval` zip (`header.json`, one `samples/<id>_epoch_<n>.json` per sample
//! and epoch, zstd- or deflate-compressed) or a `.json` log (the same in one
//! document, its `samples` read an element at a time).
//!
//! - id: the sample's `id` (a string, or an integer's text); each epoch is a
//!   repeat (`detail.repeat`) when the log ran more than one.
//! - model: the log's `eval.model` less its provider (`openai/gpt-4o-mini`
//!   is `gpt-4o-mini`).
//! - metrics: one per scorer, its value as Inspect reads a value as a number
//!   (`C` 1, `P` 0.5, `I` and `N` 0, booleans, numbers, `yes`/`no`); a scorer
//!   whose value is an object has one metric per key (`scorer/key`).
//! - the source's aggregates: each scorer's metrics of `results.scores`
//!   (`accuracy`, `mean` are means of the reduced values, so evalpage's
//!   mean equals them when every sample has all its epochs and the reducer
//!   is the mean).

use super::collect::{content_text, id_text, input_text, short_model, Collect, Sample, Verdict};
use super::cursor::{find_array, line_of, Elements};
use super::typed::{element, Field, Rest};
use super::{ImportError, Part};
use crate::Usage;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The log versions this reads.
const VERSIONS: [u64; 1] = [2];

pub(super) fn read(
    c: &mut Collect,
    file: &str,
    bytes: &[u8],
    part: Part,
) -> Result<(), ImportError> {
    if part == Part::InspectEval {
        return read_eval(c, file, bytes);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| ImportError::Unreadable {
        file: file.into(),
        message: format!("not UTF-8 text at byte {}", e.valid_up_to()),
    })?;
    let Some(open) = find_array(text, &["samples"]) else {
        let header = serde_json::from_str::<Value>(text).map_err(|e| ImportError::Unreadable {
            file: file.into(),
            message: format!("{e}: expected an Inspect AI log (JSON)"),
        })?;
        if header.get("eval").is_none() {
            return Err(ImportError::Unreadable {
                file: file.into(),
                message: "no `eval` object: expected an Inspect AI log".into(),
            });
        }
        let r = Reader::new(c, &header);
        r.finish(c, file, &header);
        return Ok(());
    };
    // Inspect writes the header's keys (version, eval, plan, results, stats)
    // before the samples: read from what precedes them, the samples are
    // taken one at a time and never held together.
    let prefix = serde_json::from_str::<Value>(&format!("{}[]}}", &text[..open]))
        .ok()
        .filter(|h| h.get("eval").is_some());
    let mut el = Elements::new(text, open);
    let mut held = Vec::new();
    let mut reader = prefix.as_ref().map(|h| Reader::new(c, h));
    while let Some(v) = el.next_value() {
        match v {
            Ok(s) => match reader.as_mut() {
                Some(r) => {
                    r.sample(c, file, &s, None);
                    if c.full() {
                        return Ok(());
                    }
                }
                None => held.push(s),
            },
            Err(e) => c.problem(
                file,
                line_of(text, el.pos),
                Some(&format!("samples[{}]", el.index)),
                format!("{e}; the samples before it are kept"),
            ),
        }
    }
    let header = match el.rest() {
        Ok(h) if h.get("eval").is_some() => h,
        Ok(_) if prefix.is_none() => {
            return Err(ImportError::Unreadable {
                file: file.into(),
                message: "no `eval` object: expected an Inspect AI log".into(),
            })
        }
        Ok(h) => h,
        Err(e) => {
            if prefix.is_none() && held.is_empty() {
                return Err(ImportError::Unreadable {
                    file: file.into(),
                    message: format!("{e}: expected an Inspect AI log (JSON)"),
                });
            }
            c.problem(
                file,
                line_of(text, text.len()),
                Some("samples"),
                format!("the log is cut off inside its samples ({e}); the samples before the cut are kept, Inspect's figures after them are missing"),
            );
            prefix.clone().unwrap_or(Value::Null)
        }
    };
    let mut r = match reader {
        Some(r) => r,
        None => Reader::new(c, &header),
    };
    for s in &held {
        r.sample(c, file, s, None);
    }
    let figures = if header.get("results").is_some() {
        &header
    } else {
        prefix.as_ref().unwrap_or(&header)
    };
    r.finish(c, file, figures);
    Ok(())
}

fn read_eval(c: &mut Collect, file: &str, bytes: &[u8]) -> Result<(), ImportError> {
    let entries = super::zip::entries(bytes);
    let (entries, damage) = match entries {
        Ok(e) => (e, None),
        Err((e, found)) => (found, Some(e)),
    };
    if let Some(d) = &damage {
        c.problem(
            file,
            0,
            None,
            format!(
                "a damaged zip ({d}); the {} entries before the damage are read",
                entries.len()
            ),
        );
    }
    let find = |name: &str| entries.iter().find(|e| e.name == name);
    let header = match find("header.json").map(|e| e.json()) {
        Some(Ok(h)) => h,
        Some(Err(e)) => {
            c.problem(file, 0, Some("header.json"), e);
            Value::Null
        }
        None => {
            // A log still being written (or cut off) has its start only.
            match find("_journal/start.json").map(|e| e.json()) {
                Some(Ok(h)) => h,
                _ if entries.iter().any(|e| e.name.starts_with("samples/")) => {
                    c.problem(file, 0, Some("header.json"), "missing: the log's header (eval, results) is not in the zip; the samples are kept".into());
                    Value::Null
                }
                _ => {
                    return Err(ImportError::Unreadable {
                        file: file.into(),
                        message: damage.unwrap_or_else(|| {
                            "no header.json and no samples/: expected an Inspect AI .eval log"
                                .into()
                        }),
                    })
                }
            }
        }
    };
    let mut r = Reader::new(c, &header);
    for e in entries.iter().filter(|e| e.name.starts_with("samples/")) {
        match e.json() {
            Ok(s) => r.sample(c, file, &s, Some(&e.name)),
            Err(msg) => c.problem(file, e.index + 1, Some(&e.name), msg),
        }
        if c.full() {
            return Ok(());
        }
    }
    r.finish(c, file, &header);
    Ok(())
}

/// A log's header (`header.json`, or the JSON log less its samples): the
/// parts this reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Header {
    version: Field<u64>,
    status: Field<String>,
    error: Option<Problem>,
    eval: Field<Eval>,
    results: Field<Results>,
    /// Read an element at a time, never here.
    samples: Option<IgnoredAny>,
    #[serde(flatten)]
    rest: Rest,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Eval {
    model: Field<String>,
    run_id: Field<String>,
    task: Field<String>,
    created: Field<String>,
    packages: Field<Packages>,
    dataset: Field<Named>,
    config: Field<EvalConfig>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Packages {
    inspect_ai: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Named {
    name: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EvalConfig {
    epochs: Field<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Results {
    scores: Field<Vec<Field<ScorerResult>>>,
}

/// One scorer's figures in `results.scores`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ScorerResult {
    name: Field<String>,
    reducer: Field<String>,
    metrics: Field<BTreeMap<String, Field<Metric>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metric {
    value: Field<f64>,
}

/// An error as Inspect writes it: `{message, ...}`, or anything else (said
/// as its JSON).
#[derive(Deserialize)]
#[serde(untagged)]
enum Problem {
    Message { message: String },
    Other(Value),
}

impl Problem {
    fn text(&self) -> String {
        match self {
            Problem::Message { message } => message.clone(),
            Problem::Other(v) => v.to_string(),
        }
    }

    fn message(&self) -> Option<&str> {
        match self {
            Problem::Message { message } => Some(message),
            Problem::Other(_) => None,
        }
    }
}

/// One sample (one epoch of it): the parts this reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct InspectSample {
    /// A string or an integer.
    id: Option<Value>,
    epoch: Field<u64>,
    /// A string or chat messages.
    input: Option<Value>,
    target: Field<Target>,
    messages: Field<Vec<Field<Message>>>,
    output: Field<Output>,
    scores: Field<BTreeMap<String, Field<Score>>>,
    metadata: Field<Metadata>,
    model_usage: Field<BTreeMap<String, TokenUsage>>,
    total_time: Field<f64>,
    error: Option<Problem>,
    #[serde(flatten)]
    rest: Rest,
}

/// A target: one text, or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum Target {
    One(String),
    Many(Vec<Field<String>>),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Output {
    choices: Field<Vec<Field<Choice>>>,
    completion: Field<String>,
    error: Field<String>,
    usage: Field<TokenUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Choice {
    message: Field<Message>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenUsage {
    input_tokens: Field<u64>,
    output_tokens: Field<u64>,
    reasoning_tokens: Field<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Score {
    value: Option<Value>,
    explanation: Option<Value>,
    answer: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metadata {
    category: Field<String>,
}

/// A chat message of a sample's transcript.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    role: Field<String>,
    /// A string or content parts.
    content: Option<Value>,
    tool_calls: Field<Vec<Field<ToolCall>>>,
    /// Passed on as written.
    tool_call_id: Option<Value>,
    error: Option<Problem>,
}

impl Message {
    fn role(&self) -> &str {
        self.role.ok().map_or("", String::as_str)
    }

    fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.tool_calls
            .ok()
            .into_iter()
            .flatten()
            .filter_map(Field::ok)
    }
}

/// Inspect's `{id, function, arguments}`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall {
    /// Passed on as written.
    id: Option<Value>,
    function: Field<String>,
    /// An object, or its JSON text.
    arguments: Option<Value>,
}

impl ToolCall {
    fn id(&self) -> Option<&str> {
        self.id.as_ref().and_then(Value::as_str)
    }

    fn name(&self) -> &str {
        self.function.ok().map_or("", String::as_str)
    }

    fn arguments(&self) -> String {
        match &self.arguments {
            Some(Value::String(t)) => t.clone(),
            Some(v) => v.to_string(),
            None => "{}".to_string(),
        }
    }
}

/// A header as this reads it (none at all, as a missing `header.json`, is
/// an empty one).
fn header(h: &Value) -> Header {
    element(h, "").unwrap_or_default()
}

struct Reader {
    model: String,
    epochs: u64,
    scorers: Vec<String>,
}

impl Reader {
    fn new(c: &mut Collect, h: &Value) -> Reader {
        let h = header(h);
        c.unread("the log header", h.rest.keys());
        let eval = h.eval.ok();
        let text = |f: fn(&Eval) -> &Field<String>| eval.and_then(|e| f(e).ok()).cloned();
        let full = text(|e| &e.model).unwrap_or_else(|| "unknown".into());
        let model = short_model(&full, '/');
        c.model(&model, &full);
        c.version = eval
            .and_then(|e| e.packages.ok())
            .and_then(|p| p.inspect_ai.ok())
            .cloned();
        c.run_id = text(|e| &e.run_id);
        c.dataset = text(|e| &e.task);
        if let Some(s) = text(|e| &e.created) {
            c.settings.insert("source_created".into(), json!(s));
        }
        if let Some(d) = eval.and_then(|e| e.dataset.ok()).and_then(|d| d.name.ok()) {
            c.settings.insert("source_dataset".into(), json!(d));
        }
        Reader {
            model,
            epochs: eval
                .and_then(|e| e.config.ok())
                .and_then(|c| c.epochs.ok())
                .copied()
                .unwrap_or(1),
            scorers: Vec::new(),
        }
    }

    fn sample(&mut self, c: &mut Collect, file: &str, v: &Value, entry: Option<&str>) {
        let field = |f: &str| match entry {
            Some(e) => format!("{e}: {f}"),
            None => f.to_string(),
        };
        let s: InspectSample = match element(v, "a sample (an object); the sample is skipped") {
            Ok(s) => s,
            Err(e) => {
                c.problem(file, 0, entry, e);
                return;
            }
        };
        c.unread("a sample", s.rest.keys());
        let Some(id) = s.id.as_ref().and_then(id_text) else {
            c.problem(
                file,
                0,
                Some(&field("id")),
                "missing: expected the sample's id (a string or an integer); the sample is skipped"
                    .into(),
            );
            return;
        };
        let epoch = s.epoch.ok().copied();
        let output = s.output.ok();
        let answer = output
            .and_then(|o| o.choices.ok())
            .and_then(|cs| cs.first())
            .and_then(Field::ok)
            .and_then(|ch| ch.message.ok())
            .and_then(|m| m.content.as_ref())
            .and_then(content_text)
            .or_else(|| output.and_then(|o| o.completion.ok()).cloned());
        let error = s
            .error
            .as_ref()
            .map(Problem::text)
            .or_else(|| output.and_then(|o| o.error.ok()).cloned());
        let usage = s
            .model_usage
            .ok()
            .and_then(|m| m.values().next())
            .or_else(|| output.and_then(|o| o.usage.ok()))
            .map(|u| Usage {
                prompt_tokens: u.input_tokens.ok().copied().unwrap_or(0),
                completion_tokens: u.output_tokens.ok().copied().unwrap_or(0),
                reasoning_tokens: u.reasoning_tokens.ok().copied(),
                timings: None,
            });
        let mut verdicts = Vec::new();
        for (scorer, score) in s.scores.ok().into_iter().flatten() {
            let score = score.ok();
            let value = score.and_then(|x| x.value.clone()).unwrap_or(Value::Null);
            let reason = score
                .and_then(|x| x.explanation.clone())
                .unwrap_or_default();
            let extracted = score.and_then(|x| x.answer.clone()).unwrap_or_default();
            let extra = |v: Verdict| {
                v.with("source_value", value.clone())
                    .with("reason", reason.clone())
                    .with("extracted", extracted.clone())
            };
            match &value {
                Value::Object(parts) => {
                    for (k, v) in parts {
                        match as_float(v) {
                            Some(x) => verdicts.push(extra(Verdict::new(format!("{scorer}/{k}"), x))),
                            None => c.problem(file, 0, Some(&field(&format!("scores.{scorer}.value.{k}"))), format!("{v} is not a value Inspect reads as a number (C, I, P, N, a number, a boolean)")),
                        }
                    }
                }
                v => match as_float(v) {
                    Some(x) => verdicts.push(extra(Verdict::new(scorer.clone(), x))),
                    None => c.problem(file, 0, Some(&field(&format!("scores.{scorer}.value"))), format!("{v} is not a value Inspect reads as a number (C, I, P, N, a number, a boolean); the score is left out")),
                },
            }
            if !self.scorers.contains(scorer) {
                self.scorers.push(scorer.clone());
            }
        }
        let target = match s.target.ok() {
            Some(Target::One(t)) => Some(t.clone()),
            Some(Target::Many(ts)) => Some(
                ts.iter()
                    .filter_map(Field::ok)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(" | "),
            ),
            None => None,
        };
        let tags = s
            .metadata
            .ok()
            .and_then(|m| m.category.ok())
            .map(|t| vec![t.clone()])
            .unwrap_or_default();
        let messages: Option<Vec<&Message>> = s
            .messages
            .ok()
            .map(|ms| ms.iter().filter_map(Field::ok).collect());
        c.sample(
            Sample {
                id,
                model: self.model.clone(),
                input: s.input.as_ref().and_then(input_text),
                answer,
                target,
                repeat: epoch.filter(|_| self.epochs > 1),
                tags,
                error,
                usage,
                latency_ms: s.total_time.ok().map(|t| (t * 1000.0).round() as u64),
                cost: None,
                calls: messages.as_deref().map(tool_calls).unwrap_or_default(),
                trajectory: messages.as_deref().and_then(trajectory),
            },
            verdicts,
        );
    }

    fn finish(&self, c: &mut Collect, file: &str, v: &Value) {
        let h = header(v);
        c.unread("the log header", h.rest.keys());
        match h.version.ok() {
            Some(v) if VERSIONS.contains(v) => {}
            _ if v.is_null() => {}
            Some(v) => c.problem(file, 0, Some("version"), format!("log version {v} is not one this reads (it reads {VERSIONS:?}); what could be read is kept")),
            None => c.problem(file, 0, Some("version"), format!("missing: expected the log version {VERSIONS:?}; what could be read is kept")),
        }
        let scores = h.results.ok().map(|r| &r.scores);
        for s in scores
            .and_then(Field::ok)
            .into_iter()
            .flatten()
            .filter_map(Field::ok)
        {
            let Some(name) = s.name.ok() else {
                continue;
            };
            let reducer = s.reducer.ok().map_or("mean", String::as_str);
            let mine = self.scorers.iter().any(|x| x == name);
            for (mname, m) in s.metrics.ok().into_iter().flatten() {
                let Some(v) = m.ok().and_then(|m| m.value.ok()).copied() else {
                    continue;
                };
                let is_mean =
                    mine && matches!(mname.as_str(), "accuracy" | "mean") && reducer == "mean";
                c.aggregate(
                    Some(&self.model),
                    Some(name),
                    &format!("{mname} ({reducer} over epochs)"),
                    v,
                    is_mean,
                );
            }
        }
        match h.status.ok().map(String::as_str) {
            Some("success") | None => {}
            Some(s) => {
                let why = h.error.as_ref().and_then(Problem::message).unwrap_or("");
                c.settings
                    .insert("source_status".into(), json!(format!("{s} {why}").trim()));
            }
        }
        c.not_carried("each sample's transcript beyond the messages after its prompt (the system message, events, store, attachments) and the plan's solvers");
        if scores.is_some_and(Field::is_present) {
            c.not_carried("each scorer's metrics other than its mean (stderr, std) are kept as source aggregates only");
        }
    }
}

/// The calls of a sample's messages: each assistant message's `tool_calls`
/// (Inspect's `{id, function, arguments}`) in order, each with the answer of
/// its tool message (`tool_call_id`): `result` its text, `error` its error's
/// message.
fn tool_calls(messages: &[&Message]) -> Vec<Value> {
    let answers: std::collections::HashMap<&str, &Message> = messages
        .iter()
        .filter(|m| m.role() == "tool")
        .filter_map(|m| Some((m.tool_call_id.as_ref()?.as_str()?, *m)))
        .collect();
    messages
        .iter()
        .filter(|m| m.role() == "assistant")
        .flat_map(|m| m.calls())
        .map(|c| {
            let id = c.id();
            let answer = id.and_then(|id| answers.get(id));
            json!({
                "id": id,
                "name": c.name(),
                "arguments": c.arguments(),
                "result": answer.and_then(|a| a.content.as_ref()).and_then(content_text),
                "error": answer.and_then(|a| a.error.as_ref()).map(Problem::text),
            })
        })
        .collect()
}

/// A sample's messages after its last user message, as OpenAI chat
/// messages: each assistant message's text and calls (Inspect's `{id,
/// function, arguments}` as `{id, type, function: {name, arguments}}`), each
/// tool message's answer (its error's message when it failed). `None` when no
/// tool was called.
fn trajectory(messages: &[&Message]) -> Option<Value> {
    let after = messages
        .iter()
        .rposition(|m| m.role() == "user")
        .map_or(0, |i| i + 1);
    let mut out = Vec::new();
    let mut called = false;
    for m in &messages[after..] {
        let text = m
            .content
            .as_ref()
            .and_then(content_text)
            .unwrap_or_default();
        match m.role() {
            "assistant" => {
                let calls: Vec<Value> = m
                    .calls()
                    .map(|c| {
                        json!({"id": c.id, "type": "function", "function": {
                            "name": c.name(),
                            "arguments": c.arguments()}})
                    })
                    .collect();
                let mut msg = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    called = true;
                    msg["tool_calls"] = Value::Array(calls);
                }
                out.push(msg);
            }
            "tool" => {
                let error = m
                    .error
                    .as_ref()
                    .and_then(Problem::message)
                    .map(|e| format!("error: {e}"));
                out.push(json!({"role": "tool", "tool_call_id": m.tool_call_id,
                                "content": error.unwrap_or(text)}));
            }
            _ => {}
        }
    }
    called.then_some(Value::Array(out))
}

/// A score value as Inspect's `value_to_float` reads it.
fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => match s.trim() {
            "C" => Some(1.0),
            "P" => Some(0.5),
            "I" | "N" => Some(0.0),
            t => match t.to_ascii_lowercase().as_str() {
                "yes" | "true" => Some(1.0),
                "no" | "false" => Some(0.0),
                other => other.parse().ok(),
            },
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::typed::seen::{listed, problems};
    use crate::import::Tool;

    #[test]
    fn an_unknown_top_level_field_of_a_sample_is_tolerated_and_listed() {
        let log = json!({
            "version": 2,
            "status": "success",
            "eval": {"model": "openai/gpt-4o-mini", "task": "capitals"},
            "samples": [
                {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}, "shiny": {"a": [1]}, "uuid": "u1"},
                "not a sample",
                {"id": "two", "epoch": 1, "scores": {"match": {"value": "I"}}, "target": ["a", "b"]},
            ],
            "results": {"scores": [{"name": "match", "metrics": {"accuracy": {"value": 0.5}}}]},
            "brand_new_header_key": true,
        });
        let text = log.to_string();
        let mut c = Collect::new(Tool::Inspect, vec!["log.json".into()]);
        let read_ok = read(&mut c, "log.json", text.as_bytes(), Part::InspectJson).is_ok();
        assert!(read_ok);
        let r = c.finish().report;
        let listed = listed(&r, "fields of");
        assert_eq!(
            listed,
            [
                "fields of a sample this import does not read: `shiny`, `uuid`",
                "fields of the log header this import does not read: `brand_new_header_key`",
            ]
        );
        let p = problems(&r);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("a string: expected a sample"), "{p:?}");
        assert_eq!(r.scores.iter().filter(|s| s.metric == "match").count(), 2);
    }
}
