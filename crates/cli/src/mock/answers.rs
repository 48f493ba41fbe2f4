//! Scripted answers for `mock-server --answers FILE`: JSONL lines
//! `{"q": "<question>", "answer": "<text>"}`. A chat request whose last user
//! message equals a `q` gets that answer; any other gets the demo model's. Lets a
//! test replay known answers (spec 002's three-case example) through real HTTP.
//!
//! With `--task T --dataset D` the server also knows a task: every sample's
//! prompt is rendered up front, and a request whose last user message is one of
//! them is answered by the core's task mock model (`task_run::mock`) for the
//! request's `model`, exactly as `evalpage run --task T --mock` answers in
//! process. So a registry pointing at this server gives schema-valid JSON over
//! real HTTP, and the two runs can be compared.

use crate::error::CliError;
use crate::task_file;
use evalpage_core::dataset::numbered_lines;
use evalpage_core::demo;
use evalpage_core::provider::ChatMessage;
use evalpage_core::task::Task;
use evalpage_core::task_run::{mock, DatasetFormat};
use evalpage_core::Sample;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Question -> scripted answer, and the task samples by prompt.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    scripted: HashMap<String, String>,
    task: Option<(Task, HashMap<String, Sample>)>,
}

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
            match (field("q"), field("answer")) {
                (Some(q), Some(a)) => map.insert(q, a),
                _ => {
                    return Err(format!(
                        "{name}:{line}: expected {{\"q\": string, \"answer\": string}}"
                    ))
                }
            };
        }
        Ok(Answers {
            scripted: map,
            task: None,
        })
    }

    /// Adds a task and its dataset (`--task`, `--dataset`).
    pub fn with_task(mut self, spec: &str, dataset: &Path) -> Result<Answers, CliError> {
        let loaded = task_file::load(spec)?;
        let format = DatasetFormat::for_task(&loaded.task);
        let (_, data) = crate::score::read_dataset(dataset, None, format, None)?;
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

    /// The scripted answer for a question, if any.
    pub fn get(&self, question: &str) -> Option<&str> {
        self.scripted.get(question).map(String::as_str)
    }

    /// The answer to a chat: scripted, else the task mock's for a known task
    /// prompt, else the demo model's.
    pub fn answer(&self, model: &str, messages: &[ChatMessage]) -> String {
        let question = messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map(|m| m.content.as_str());
        if let Some(a) = question.and_then(|q| self.get(q)) {
            return a.to_string();
        }
        if let (Some((task, samples)), Some(q)) = (&self.task, question) {
            if let Some(sample) = samples.get(q) {
                return mock::answer(task, sample, model, messages);
            }
        }
        demo::answer(messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_bad_lines() {
        let a = Answers::parse("a.jsonl", "{\"q\":\"x\",\"answer\":\"y\"}\n\n".as_bytes())
            .expect("valid");
        assert_eq!(a.get("x"), Some("y"));
        let e = Answers::parse("a.jsonl", b"{\"q\":\"x\"}\n").expect_err("missing answer");
        assert!(e.starts_with("a.jsonl:1:"), "{e}");
    }
}
