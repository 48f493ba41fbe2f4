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
use super::{ImportError, Part};
use crate::Usage;
use serde_json::{json, Value};

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

struct Reader {
    model: String,
    epochs: u64,
    scorers: Vec<String>,
}

impl Reader {
    fn new(c: &mut Collect, h: &Value) -> Reader {
        let eval = h.get("eval").unwrap_or(&Value::Null);
        let full = eval
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string();
        let model = short_model(&full, '/');
        c.model(&model, &full);
        c.version = eval
            .pointer("/packages/inspect_ai")
            .and_then(Value::as_str)
            .map(str::to_string);
        c.run_id = eval
            .get("run_id")
            .and_then(Value::as_str)
            .map(str::to_string);
        c.dataset = eval.get("task").and_then(Value::as_str).map(str::to_string);
        if let Some(s) = eval.get("created").and_then(Value::as_str) {
            c.settings.insert("source_created".into(), json!(s));
        }
        if let Some(d) = eval.pointer("/dataset/name").and_then(Value::as_str) {
            c.settings.insert("source_dataset".into(), json!(d));
        }
        Reader {
            model,
            epochs: eval
                .pointer("/config/epochs")
                .and_then(Value::as_u64)
                .unwrap_or(1),
            scorers: Vec::new(),
        }
    }

    fn sample(&mut self, c: &mut Collect, file: &str, s: &Value, entry: Option<&str>) {
        let field = |f: &str| match entry {
            Some(e) => format!("{e}: {f}"),
            None => f.to_string(),
        };
        let Some(id) = s.get("id").and_then(id_text) else {
            c.problem(
                file,
                0,
                Some(&field("id")),
                "missing: expected the sample's id (a string or an integer); the sample is skipped"
                    .into(),
            );
            return;
        };
        let epoch = s.get("epoch").and_then(Value::as_u64);
        let answer = s
            .pointer("/output/choices/0/message/content")
            .and_then(content_text)
            .or_else(|| {
                s.pointer("/output/completion")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        let error = s
            .get("error")
            .filter(|e| !e.is_null())
            .map(|e| {
                e.get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| e.to_string(), str::to_string)
            })
            .or_else(|| {
                s.pointer("/output/error")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        let usage = s
            .get("model_usage")
            .and_then(Value::as_object)
            .and_then(|m| m.values().next())
            .or_else(|| s.pointer("/output/usage"))
            .map(|u| Usage {
                prompt_tokens: u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0),
                completion_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
                reasoning_tokens: u.get("reasoning_tokens").and_then(Value::as_u64),
                timings: None,
            });
        let mut verdicts = Vec::new();
        if let Some(Value::Object(scores)) = s.get("scores") {
            for (scorer, score) in scores {
                let value = score.get("value").unwrap_or(&Value::Null);
                let extra = |v: Verdict| {
                    v.with("source_value", value.clone())
                        .with(
                            "reason",
                            score.get("explanation").cloned().unwrap_or_default(),
                        )
                        .with(
                            "extracted",
                            score.get("answer").cloned().unwrap_or_default(),
                        )
                };
                match value {
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
        }
        let target = match s.get("target") {
            Some(Value::String(t)) => Some(t.clone()),
            Some(Value::Array(ts)) => Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" | "),
            ),
            _ => None,
        };
        let tags = s
            .pointer("/metadata/category")
            .and_then(Value::as_str)
            .map(|t| vec![t.to_string()])
            .unwrap_or_default();
        c.sample(
            Sample {
                id,
                model: self.model.clone(),
                input: s.get("input").and_then(input_text),
                answer,
                target,
                repeat: epoch.filter(|_| self.epochs > 1),
                tags,
                error,
                usage,
                latency_ms: s
                    .get("total_time")
                    .and_then(Value::as_f64)
                    .map(|t| (t * 1000.0).round() as u64),
                cost: None,
                calls: s
                    .get("messages")
                    .and_then(Value::as_array)
                    .map(|m| tool_calls(m))
                    .unwrap_or_default(),
                trajectory: s
                    .get("messages")
                    .and_then(Value::as_array)
                    .and_then(|m| trajectory(m)),
            },
            verdicts,
        );
    }

    fn finish(&self, c: &mut Collect, file: &str, h: &Value) {
        match h.get("version").and_then(Value::as_u64) {
            Some(v) if VERSIONS.contains(&v) => {}
            _ if h.is_null() => {}
            Some(v) => c.problem(file, 0, Some("version"), format!("log version {v} is not one this reads (it reads {VERSIONS:?}); what could be read is kept")),
            None => c.problem(file, 0, Some("version"), format!("missing: expected the log version {VERSIONS:?}; what could be read is kept")),
        }
        if let Some(scores) = h.pointer("/results/scores").and_then(Value::as_array) {
            for s in scores {
                let Some(name) = s.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let reducer = s.get("reducer").and_then(Value::as_str).unwrap_or("mean");
                let mine = self.scorers.iter().any(|x| x == name);
                if let Some(Value::Object(ms)) = s.get("metrics") {
                    for (mname, m) in ms {
                        let Some(v) = m.get("value").and_then(Value::as_f64) else {
                            continue;
                        };
                        let is_mean = mine
                            && matches!(mname.as_str(), "accuracy" | "mean")
                            && reducer == "mean";
                        c.aggregate(
                            Some(&self.model),
                            Some(name),
                            &format!("{mname} ({reducer} over epochs)"),
                            v,
                            is_mean,
                        );
                    }
                }
            }
        }
        match h.get("status").and_then(Value::as_str) {
            Some("success") | None => {}
            Some(s) => {
                let why = h
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                c.settings
                    .insert("source_status".into(), json!(format!("{s} {why}").trim()));
            }
        }
        c.not_carried("each sample's transcript beyond the messages after its prompt (the system message, events, store, attachments) and the plan's solvers");
        if h.pointer("/results/scores").is_some() {
            c.not_carried("each scorer's metrics other than its mean (stderr, std) are kept as source aggregates only");
        }
    }
}

/// A score value as Inspect's `value_to_float` reads it.
/// The calls of a sample's messages: each assistant message's `tool_calls`
/// (Inspect's `{id, function, arguments}`) in order, each with the answer of
/// its tool message (`tool_call_id`): `result` its text, `error` its error's
/// message.
fn tool_calls(messages: &[Value]) -> Vec<Value> {
    let answers: std::collections::HashMap<&str, &Value> = messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
        .filter_map(|m| Some((m.get("tool_call_id")?.as_str()?, m)))
        .collect();
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
        .flatten()
        .map(|c| {
            let id = c.get("id").and_then(Value::as_str);
            let answer = id.and_then(|id| answers.get(id));
            json!({
                "id": id,
                "name": c.get("function").and_then(Value::as_str).unwrap_or_default(),
                "arguments": match c.get("arguments") {
                    Some(Value::String(t)) => t.clone(),
                    Some(v) => v.to_string(),
                    None => "{}".to_string(),
                },
                "result": answer.and_then(|a| a.get("content")).and_then(content_text),
                "error": answer
                    .and_then(|a| a.get("error"))
                    .filter(|e| !e.is_null())
                    .map(|e| e.get("message").and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_string)),
            })
        })
        .collect()
}

/// A sample's messages after its last user message, as OpenAI chat
/// messages: each assistant message's text and calls (Inspect's `{id,
/// function, arguments}` as `{id, type, function: {name, arguments}}`), each
/// tool message's answer (its error's message when it failed). `None` when no
/// tool was called.
fn trajectory(messages: &[Value]) -> Option<Value> {
    fn role(m: &Value) -> &str {
        m.get("role").and_then(Value::as_str).unwrap_or("")
    }
    let after = messages
        .iter()
        .rposition(|m| role(m) == "user")
        .map_or(0, |i| i + 1);
    let mut out = Vec::new();
    for m in &messages[after..] {
        let text = m.get("content").and_then(content_text).unwrap_or_default();
        match role(m) {
            "assistant" => {
                let calls: Vec<Value> = m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        let arguments = match c.get("arguments") {
                            Some(Value::String(t)) => t.clone(),
                            Some(v) => v.to_string(),
                            None => "{}".to_string(),
                        };
                        json!({"id": c.get("id"), "type": "function", "function": {
                            "name": c.get("function").and_then(Value::as_str).unwrap_or_default(),
                            "arguments": arguments}})
                    })
                    .collect();
                let mut msg = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    msg["tool_calls"] = Value::Array(calls);
                }
                out.push(msg);
            }
            "tool" => {
                let error = m
                    .get("error")
                    .filter(|e| !e.is_null())
                    .and_then(|e| e.get("message").and_then(Value::as_str))
                    .map(|e| format!("error: {e}"));
                out.push(
                    json!({"role": "tool", "tool_call_id": m.get("tool_call_id"),
                                "content": error.unwrap_or(text)}),
                );
            }
            _ => {}
        }
    }
    out.iter()
        .any(|m| m.get("tool_calls").is_some())
        .then_some(Value::Array(out))
}

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
