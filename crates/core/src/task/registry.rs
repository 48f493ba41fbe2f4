//! The model registry (spec 004 `--model-registry`): named models, each with an
//! OpenAI-compatible endpoint, the model id it serves, the name of the
//! environment variable that holds its key (the CLI reads it; the page asks for
//! the key and never stores it in the registry) and default request parameters.
//!
//! ```json
//! {"models": [
//!   {"name": "deepseek-v3", "base_url": "https://api.deepseek.com/v1",
//!    "model": "deepseek-chat", "api_key_env": "DEEPSEEK_API_KEY",
//!    "default_params": {"temperature": 0}}
//! ]}
//! ```
//!
//! A bare array of entries is read the same way. Unknown keys are errors (a
//! misspelt `api_key_env` would otherwise silently send no key), and so is a
//! key written into the file itself (`api_key`): the registry is shared and
//! committed, keys are not. `default_params` are merged over the task's
//! `default_params` for that model's requests (the registry knows the model).

use crate::position::{InputError, PathLabel, Position};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One named model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// The name `--models` and reports use.
    pub name: String,
    /// API base URL, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The model id sent in requests (defaults to `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Environment variable holding the key (none for keyless local servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Request parameters for this model (`temperature`, `max_tokens`, ...).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub default_params: Map<String, Value>,
    /// Price per million prompt (input) tokens, for the cost in the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_in_per_mtok: Option<f64>,
    /// Price per million completion (output) tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_out_per_mtok: Option<f64>,
}

impl ModelEntry {
    /// The model id sent in requests.
    pub fn model_id(&self) -> &str {
        self.model.as_deref().unwrap_or(&self.name)
    }

    /// The entry's price, when it gives one (a missing side counts as 0).
    pub fn price(&self) -> Option<crate::report::Price> {
        if self.price_in_per_mtok.is_none() && self.price_out_per_mtok.is_none() {
            return None;
        }
        Some(crate::report::Price {
            in_per_mtok: self.price_in_per_mtok.unwrap_or(0.0),
            out_per_mtok: self.price_out_per_mtok.unwrap_or(0.0),
        })
    }
}

/// A validated registry.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Registry {
    /// Entries in file order, names unique.
    pub models: Vec<ModelEntry>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawRegistry {
    Wrapped(Wrapped),
    Bare(Vec<Value>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wrapped {
    models: Vec<Value>,
}

/// A problem in a registry file: its file, the line of the JSON error or of
/// the entry at fault, and the key path such as `models[1].base_url`.
pub type RegistryError = InputError;

impl Registry {
    /// Reads a registry; every problem is reported with its entry path.
    pub fn parse(file: &str, text: &str) -> Result<Registry, Vec<RegistryError>> {
        let err = |line: Option<usize>, path: String, message: String| {
            // serde_json gives lines for syntax errors only; an entry's problems
            // are placed on the line where the entry starts.
            let line = line.or_else(|| {
                let i = path
                    .strip_prefix("models[")?
                    .split(']')
                    .next()?
                    .parse()
                    .ok()?;
                entry_line(text, i)
            });
            let at = Position::new(file, line).with_path(path, PathLabel::Bare);
            RegistryError::new(at, message)
        };
        let value: Value = serde_json::from_str(text)
            .map_err(|e| vec![err(Some(e.line()), String::new(), e.to_string())])?;
        let entries = match serde_json::from_value::<RawRegistry>(value) {
            Ok(RawRegistry::Wrapped(w)) => w.models,
            Ok(RawRegistry::Bare(v)) => v,
            Err(_) => {
                return Err(vec![err(
                    None,
                    String::new(),
                    "expected {\"models\": [...]} or an array of model entries".into(),
                )])
            }
        };
        let mut models: Vec<ModelEntry> = Vec::new();
        let mut errors = Vec::new();
        for (i, v) in entries.into_iter().enumerate() {
            let path = format!("models[{i}]");
            if v.get("api_key").is_some() {
                errors.push(err(
                    None,
                    format!("{path}.api_key"),
                    "a key does not belong in the registry: name its environment variable in `api_key_env`".into(),
                ));
                continue;
            }
            match serde_json::from_value::<ModelEntry>(v) {
                Ok(m) => {
                    let price_ok = |p: Option<f64>| p.is_none_or(|p| p.is_finite() && p >= 0.0);
                    for (field, ok, what) in [
                        ("name", !m.name.trim().is_empty(), "a non-empty name"),
                        (
                            "price_in_per_mtok",
                            price_ok(m.price_in_per_mtok),
                            "a price per million tokens >= 0",
                        ),
                        (
                            "price_out_per_mtok",
                            price_ok(m.price_out_per_mtok),
                            "a price per million tokens >= 0",
                        ),
                        (
                            "base_url",
                            m.base_url.starts_with("http://") || m.base_url.starts_with("https://"),
                            "an http:// or https:// URL",
                        ),
                    ] {
                        if !ok {
                            errors.push(err(
                                None,
                                format!("{path}.{field}"),
                                format!("expected {what}"),
                            ));
                        }
                    }
                    if let Some(var) = &m.api_key_env {
                        let is_name = var
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        if !is_name {
                            // Not echoed: a key pasted here by mistake must not reach a terminal.
                            errors.push(err(
                                None,
                                format!("{path}.api_key_env"),
                                "expected the name of an environment variable (letters, digits and _, such as OPENAI_API_KEY), not the key itself".into(),
                            ));
                        }
                    }
                    if models.iter().any(|o| o.name == m.name) {
                        errors.push(err(
                            None,
                            format!("{path}.name"),
                            format!("`{}` is already the name of an earlier entry", m.name),
                        ));
                    }
                    models.push(m);
                }
                Err(e) => errors.push(err(
                    None,
                    path,
                    format!("{e} (fields: name, base_url, model, api_key_env, default_params)"),
                )),
            }
        }
        if errors.is_empty() {
            Ok(Registry { models })
        } else {
            Err(errors)
        }
    }

    /// The entries named in `names`, in that order; an unknown name is an error
    /// that lists the known ones.
    pub fn select(&self, names: &[String]) -> Result<Vec<ModelEntry>, String> {
        names
            .iter()
            .map(|n| {
                self.models
                    .iter()
                    .find(|m| &m.name == n)
                    .cloned()
                    .ok_or_else(|| {
                        let known: Vec<&str> =
                            self.models.iter().map(|m| m.name.as_str()).collect();
                        format!(
                            "model `{n}` is not in the registry (it has: {})",
                            if known.is_empty() {
                                "nothing".to_string()
                            } else {
                                known.join(", ")
                            }
                        )
                    })
            })
            .collect()
    }
}

/// The request parameters for one model: the task's `default_params`, then the
/// registry entry's over them.
pub fn merged_params(task: &Map<String, Value>, model: &Map<String, Value>) -> Map<String, Value> {
    let mut out = task.clone();
    for (k, v) in model {
        out.insert(k.clone(), v.clone());
    }
    out
}

/// The line where entry `index` starts in registry JSON: the line of the
/// entry's opening `{`, found by counting the objects directly inside the
/// `models` array (or the top-level array). Strings are skipped, so braces
/// inside them do not count.
pub fn entry_line(text: &str, index: usize) -> Option<usize> {
    let bare = text.trim_start().starts_with('[');
    let entry_depth = if bare { 1 } else { 2 };
    let (mut depth, mut line, mut seen) = (0usize, 1usize, 0usize);
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => {
                depth += 1;
                if c == '{' && depth == entry_depth + 1 {
                    if seen == index {
                        return Some(line);
                    }
                    seen += 1;
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrapped_and_bare_forms() {
        let wrapped = r#"{"models": [{"name": "a", "base_url": "http://127.0.0.1:1/v1", "model": "m", "api_key_env": "K", "default_params": {"temperature": 0}}]}"#;
        let r = Registry::parse("r.json", wrapped).expect("valid");
        assert_eq!(r.models[0].model_id(), "m");
        assert_eq!(r.models[0].api_key_env.as_deref(), Some("K"));
        let bare = r#"[{"name": "b", "base_url": "https://x/v1"}]"#;
        let r = Registry::parse("r.json", bare).expect("valid");
        assert_eq!(r.models[0].model_id(), "b");
    }

    #[test]
    fn rejects_keys_unknown_fields_bad_urls_and_duplicates() {
        let text = r#"{"models": [
            {"name": "a", "base_url": "http://h/v1", "api_key": "sk-secret"},
            {"name": "b", "base_url": "h/v1"},
            {"name": "c", "base_url": "http://h/v1", "api_key_nev": "K"},
            {"name": "d", "base_url": "http://h/v1"},
            {"name": "d", "base_url": "http://h/v1"},
            {"name": "e", "base_url": "http://h/v1", "api_key_env": "sk-pasted-key"}
        ]}"#;
        let errs = Registry::parse("r.json", text).expect_err("invalid");
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "models[0].api_key",
                "models[1].base_url",
                "models[2]",
                "models[4].name",
                "models[5].api_key_env"
            ]
        );
        assert!(errs.iter().all(|e| !e.to_string().contains("sk-")));
        assert!(
            errs[2].message.contains("api_key_nev"),
            "{}",
            errs[2].message
        );
    }

    #[test]
    fn a_json_syntax_error_names_its_line() {
        let errs =
            Registry::parse("r.json", "{\"models\": [\n  {\"name\": }\n]}").expect_err("bad");
        assert_eq!(errs[0].line, Some(2));
        assert!(errs[0].to_string().starts_with("r.json:2"));
    }

    #[test]
    fn select_keeps_order_and_names_unknown_models() {
        let r = Registry::parse(
            "r",
            r#"[{"name":"a","base_url":"http://h"},{"name":"b","base_url":"http://h"}]"#,
        )
        .expect("valid");
        let names: Vec<String> = r
            .select(&["b".into(), "a".into()])
            .expect("known")
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["b", "a"]);
        let e = r.select(&["z".into()]).expect_err("unknown");
        assert!(e.contains("a, b"), "{e}");
    }

    #[test]
    fn model_params_override_task_params() {
        let task: Map<String, Value> = serde_json::from_str(
            r#"{"temperature": 0.2, "response_format": {"type": "json_object"}}"#,
        )
        .expect("json");
        let model: Map<String, Value> =
            serde_json::from_str(r#"{"temperature": 0}"#).expect("json");
        let m = merged_params(&task, &model);
        assert_eq!(m["temperature"], 0);
        assert_eq!(m["response_format"]["type"], "json_object");
    }

    #[test]
    fn entry_line_skips_strings_and_nested_objects() {
        let text = "{\"models\": [\n {\"name\": \"{[\", \"default_params\": {\"a\": {}}},\n {\"name\": \"b\"}\n]}";
        assert_eq!(entry_line(text, 0), Some(2));
        assert_eq!(entry_line(text, 1), Some(3));
        assert_eq!(entry_line("[\n{},\n{}]", 1), Some(3));
        assert_eq!(entry_line(text, 5), None);
    }
}
