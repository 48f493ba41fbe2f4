//! Scripted answers for `mock-server --answers FILE`: JSONL lines
//! `{"q": "<question>", "answer": "<text>"}`. A chat request whose last user
//! message equals a `q` gets that answer; any other gets the demo model's. Lets a
//! test replay known answers (spec 002's three-case example) through real HTTP.

use crate::error::CliError;
use evalpage_core::dataset::numbered_lines;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Question -> scripted answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answers(HashMap<String, String>);

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
        Ok(Answers(map))
    }

    /// The scripted answer for a question, if any.
    pub fn get(&self, question: &str) -> Option<&str> {
        self.0.get(question).map(String::as_str)
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
