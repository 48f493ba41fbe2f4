//! Scripted answers for `mock-server --answers FILE`: JSONL lines
//! `{"q": "<question>", "answer": "<text>"}`, optionally with `"reasoning"`
//! (sent as `reasoning_content` or as an inline `<think>` block, see
//! `--reasoning-style`), `"finish_reason"` (e.g. `"length"`) and `"usage"`
//! (`{"prompt_tokens", "completion_tokens", "reasoning_tokens"}`, sent as given
//! instead of the counted one). A chat request whose last user message equals
//! a `q` gets that answer; any other gets the demo model's. Lets a test replay
//! known answers (spec 002's three-case example) through real HTTP. A line
//! with `"answers": [...]` instead plays a sampled model: the n-th request
//! for its `q` gets the n-th answer, round and round (so a run asking each
//! sample several times gets known per-repeat outcomes).
//!
//! With `--task T --dataset D` the server also knows a task: every sample's
//! prompt is rendered up front, and a request whose last user message is one of
//! them is answered by the core's task mock model (`task_run::mock`) for the
//! request's `model`, exactly as `evalpage run --task T --mock` answers in
//! process. So a registry pointing at this server gives schema-valid JSON over
//! real HTTP, and the two runs can be compared.
//!
//! The server also plays a judge: a request carrying the reply instruction
//! the core appends to every judge prompt (`GRADE: X` ...) is answered by the
//! core's mock judge (`judge::mock`): `GRADE:` lines, JSON verdicts, `[[X]]`
//! ratings, `TAGS: [...]` lists for the dialog judge's tag-list prompts, and
//! some unreadable answers so repairs happen. Identical judge requests (the
//! repeats of one judgement) are counted, so repeats can differ. With
//! `--dialog-trace` judge requests still get the mock judge, so one server
//! plays both the dialog system and its judge.

use crate::error::CliError;
use crate::task_file;
use evalpage_core::demo;
use evalpage_core::dialog::Dialog;
use evalpage_core::numbered_lines;
use evalpage_core::task::{DatasetFormat, Task};
use evalpage_core::ChatMessage;
use evalpage_core::{mock_judge_reply, Sample};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// One scripted answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scripted {
    /// The final answer.
    pub answer: String,
    /// Reasoning to send with it.
    pub reasoning: Option<String>,
    /// `finish_reason` to send (default `stop`).
    pub finish_reason: Option<String>,
    /// `usage` to send as given.
    pub usage: Option<Value>,
    /// `tool_calls` to send as given (OpenAI's list), with `answer` as the
    /// content (none when it is empty).
    pub tool_calls: Option<Value>,
}

pub use crate::args::ReasoningStyle;

/// One scripted answer as written: text, or an assistant message (its
/// content and its `tool_calls`, checked as the core reads calls).
fn scripted_item(a: &Value, at: &str) -> Result<(String, Option<Value>), String> {
    match a {
        Value::String(t) => Ok((t.clone(), None)),
        Value::Object(m) => {
            let calls = m.get("tool_calls").filter(|t| !t.is_null()).cloned();
            if let Some(t) = &calls {
                check_calls(t, &format!("{at}.tool_calls"))?;
            }
            let text = m.get("content").and_then(Value::as_str).unwrap_or_default();
            Ok((text.to_string(), calls))
        }
        _ => Err(format!("{at}: expected text or an assistant message")),
    }
}

/// A `tool_calls` list the core can read (else where and why not).
fn check_calls(t: &Value, at: &str) -> Result<(), String> {
    evalpage_core::read_tool_answer(&serde_json::json!({ "tool_calls": t }), at).map(|_| ())
}

/// Question -> scripted answer, the task samples by prompt, and what every
/// chat answer carries (`--reasoning-style`, `--finish-reason`, `--fail-status`).
#[derive(Clone, Debug, Default)]
pub struct Answers {
    scripted: HashMap<String, Vec<Scripted>>,
    /// How many times each scripted question was asked.
    asked: Arc<Mutex<HashMap<String, usize>>>,
    task: Option<(Task, HashMap<String, Sample>)>,
    /// How reasoning is sent; with a style set, answers without scripted
    /// reasoning get a short deterministic one.
    pub style: Option<ReasoningStyle>,
    /// `finish_reason` of answers that do not script one (default `stop`).
    pub finish_reason: Option<String>,
    /// Answer every chat request with this HTTP status (e.g. 401, a wrong key).
    pub fail_status: Option<u16>,
    /// How many times each judge request was seen (by hash).
    judged: Arc<Mutex<HashMap<u64, u64>>>,
    /// Answer as the dialog mock (`--dialog-trace`), with these dialogs' ground truth.
    pub dialog: Option<(DialogTraceStyle, Vec<Dialog>)>,
}

pub use crate::args::DialogTraceStyle;

impl Answers {
    /// Loads a file; any bad line is an error naming the file and line.
    pub fn load(path: &Path) -> Result<Answers, CliError> {
        let bytes = std::fs::read(path).map_err(|e| {
            CliError::Usage(format!("cannot read --answers {}: {e}", path.display()))
        })?;
        Answers::parse(&path.display().to_string(), &bytes).map_err(CliError::Usage)
    }

    /// Parses JSONL bytes (blank lines ignored).
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Answers, String> {
        let mut map = HashMap::new();
        for (line, text) in numbered_lines(bytes) {
            let text = text.map_err(|e| format!("{name}:{line}: {e}"))?;
            if text.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(text)
                .map_err(|e| format!("{name}:{line}: not valid JSON: {e}"))?;
            let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            // `answer` / each of `answers`: text, or an assistant message
            // (its content and tool_calls); a top-level `tool_calls` goes
            // with each answer that has none of its own
            let item = |a: &Value, at: &str| {
                scripted_item(a, at).map_err(|e| format!("{name}:{line}: {e}"))
            };
            let mut items: Vec<(String, Option<Value>)> = match (v.get("answer"), v.get("answers"))
            {
                (Some(a), None) => vec![item(a, "answer")?],
                (None, Some(Value::Array(list))) => list
                    .iter()
                    .enumerate()
                    .map(|(k, a)| item(a, &format!("answers[{k}]")))
                    .collect::<Result<_, _>>()?,
                (None, None) if v.get("tool_calls").is_some() => vec![(String::new(), None)],
                _ => Vec::new(),
            };
            if let Some(t) = v.get("tool_calls").filter(|t| !t.is_null()) {
                check_calls(t, "tool_calls").map_err(|e| format!("{name}:{line}: {e}"))?;
                for (_, calls) in items.iter_mut().filter(|(_, c)| c.is_none()) {
                    *calls = Some(t.clone());
                }
            }
            match field("q") {
                Some(q) if !items.is_empty() => map.insert(
                    q,
                    items
                        .into_iter()
                        .map(|(answer, tool_calls)| Scripted {
                            answer,
                            reasoning: field("reasoning"),
                            finish_reason: field("finish_reason"),
                            usage: v.get("usage").filter(|u| u.is_object()).cloned(),
                            tool_calls,
                        })
                        .collect(),
                ),
                _ => {
                    return Err(format!(
                        "{name}:{line}: expected {{\"q\": string, \"answer\": string or an assistant message}}, {{\"q\": string, \"tool_calls\": [...]}} or {{\"q\": string, \"answers\": [string, ...]}}"
                    ))
                }
            };
        }
        Ok(Answers {
            scripted: map,
            ..Answers::default()
        })
    }

    /// Plays the dialog mock (`--dialog-trace STYLE`), with the ground truth
    /// of `--dialogs FILE` when given (its bad lines are printed and skipped).
    pub fn with_dialogs(
        mut self,
        style: DialogTraceStyle,
        dataset: Option<&Path>,
    ) -> Result<Answers, CliError> {
        let dialogs = match dataset {
            Some(path) => {
                let bytes = crate::files::read_dataset_bytes(path)?;
                let set = evalpage_core::dialog::parse_dialogs(&path.display().to_string(), &bytes);
                crate::files::report_skipped(&set.errors);
                set.dialogs
            }
            None => Vec::new(),
        };
        self.dialog = Some((style, dialogs));
        Ok(self)
    }

    /// Adds a task and its dataset (`--task`, `--dataset`).
    pub fn with_task(mut self, spec: &str, dataset: &Path) -> Result<Answers, CliError> {
        let loaded = task_file::load(spec)?;
        let format = DatasetFormat::for_task(&loaded.task);
        let (_, data) = crate::files::read_dataset(dataset, None, format, None)?;
        let mut by_prompt = HashMap::new();
        for s in data.samples {
            if let Ok(p) = loaded
                .template
                .render(&s.sample, &loaded.task.serialize_fields)
            {
                if let Some(user) = p.messages.iter().rev().find(|m| m.role == "user") {
                    by_prompt.insert(user.content.clone(), s.sample);
                }
            }
        }
        self.task = Some((loaded.task, by_prompt));
        Ok(self)
    }

    /// The whole answer to a chat: scripted (with its reasoning, finish
    /// reason and usage), else the task mock's for a known task prompt, else
    /// the demo model's; with a reasoning style set, a reasoning when none is
    /// scripted.
    pub fn reply(&self, model: &str, messages: &[ChatMessage]) -> Scripted {
        let question = messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map(|m| m.content.as_str());
        let mut out = match question.and_then(|q| Some((q, self.scripted.get(q)?))) {
            Some((q, list)) => {
                let nth = match self.asked.lock() {
                    Ok(mut asked) => {
                        let n = asked.entry(q.to_string()).or_insert(0);
                        *n += 1;
                        *n - 1
                    }
                    Err(_) => 0,
                };
                list.get(nth % list.len().max(1))
                    .cloned()
                    .unwrap_or_default()
            }
            None => match self.task_calls(model, messages, question) {
                Some(Ok(calls)) => Scripted {
                    tool_calls: Some(calls),
                    finish_reason: Some("tool_calls".into()),
                    ..Scripted::default()
                },
                // an agent's final answer, after its tools answered
                Some(Err(text)) => Scripted {
                    answer: text,
                    ..Scripted::default()
                },
                None => Scripted {
                    answer: self.unscripted(model, messages, question),
                    ..Scripted::default()
                },
            },
        };
        if out.reasoning.is_none() && self.style.is_some() {
            out.reasoning = Some(format!(
                "The user asks: {}. I should answer from the documents and name the one I used.",
                question.unwrap_or("")
            ));
        }
        if out.finish_reason.is_none() {
            out.finish_reason = self.finish_reason.clone();
        }
        out
    }

    fn unscripted(&self, model: &str, messages: &[ChatMessage], question: Option<&str>) -> String {
        let key: String = messages.iter().map(|m| m.content.as_str()).collect();
        let key = demo::fnv1a(&key);
        let nth = match self.judged.lock() {
            Ok(map) => map.get(&key).copied().unwrap_or(0),
            Err(_) => 0,
        };
        if let Some(verdict) = mock_judge_reply(messages, nth) {
            if let Ok(mut map) = self.judged.lock() {
                *map.entry(key).or_insert(0) += 1;
            }
            return verdict;
        }
        if let (Some((task, samples)), Some(q)) = (&self.task, question) {
            if let Some(sample) = samples.get(q) {
                return evalpage_core::task::mock_text(task, sample, model, messages);
            }
        }
        demo::answer(messages)
    }

    /// The task mock's calls for a known task prompt of a task with tools
    /// (`Err`: an agent task's text answer, once it calls no more).
    fn task_calls(
        &self,
        model: &str,
        messages: &[ChatMessage],
        question: Option<&str>,
    ) -> Option<Result<Value, String>> {
        let (task, samples) = self.task.as_ref()?;
        let sample = samples.get(question?)?;
        let answer = evalpage_core::task::mock_answer(task, sample, model, messages);
        let Some(calls) = answer.calls else {
            return task.agent.is_some().then_some(Err(answer.text));
        };
        Some(Ok(Value::Array(
            calls
                .iter()
                .map(|c| serde_json::json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                .collect(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_bad_lines() {
        let a = Answers::parse("a.jsonl", "{\"q\":\"x\",\"answer\":\"y\"}\n\n".as_bytes())
            .expect("valid");
        assert_eq!(a.reply("m", &[ChatMessage::new("user", "x")]).answer, "y");
        let e = Answers::parse("a.jsonl", b"{\"q\":\"x\"}\n").expect_err("missing answer");
        let a = Answers::parse(
            "a.jsonl",
            br#"{"q":"x","answer":"y","reasoning":"r","finish_reason":"length","usage":{"prompt_tokens":3}}"#,
        )
        .expect("valid");
        let s = a.reply("m", &[ChatMessage::new("user", "x")]);
        assert_eq!(
            (s.reasoning.as_deref(), s.finish_reason.as_deref()),
            (Some("r"), Some("length"))
        );
        assert_eq!(s.usage, Some(serde_json::json!({"prompt_tokens": 3})));
        assert!(e.starts_with("a.jsonl:1:"), "{e}");
    }
}
