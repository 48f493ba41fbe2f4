//! Versioned prompt templates: a YAML file with `name`, `version`, `system`
//! (optional) and `user`, whose texts are Jinja templates rendered with a
//! sample's fields.
//!
//! Engine: `minijinja` 3.1 with `default-features = false`. That keeps the
//! Jinja syntax users know from chat templates and other eval tools (`{{ x }}`,
//! `{% if %}`, `{% for %}`, `{% set %}`, expressions, `is defined`, `loop.*`)
//! but drops the `builtins` filter/test/function library (`|first`, `|map`,
//! `range`, ...), `macros`, `multi_template` (`include`/`extends`), `debug` and
//! `serde` (values are converted from `serde_json` here instead); with them
//! off, minijinja has no dependencies at all. The seven filters prompts use
//! most (`length`, `join`, `default`, `trim`, `lower`, `upper`, `tojson`) are
//! written by hand in `filters`. Cost, measured on a small Yew page built in
//! release, before wasm-opt (docs/BENCHMARKS.md, "Choosing the template and
//! YAML crates"): the page with upon 0.11 is 635 KB raw / 260 KB gzipped, with
//! minijinja 3 without default features 828 / 323 (+193 KB raw, +63 KB gz over
//! upon; +392 KB raw over the 436 KB page with no YAML or template crate), with
//! minijinja 3's default features 1,208 / 451. `upon` is lighter but only
//! Jinja-like: it has `else if` for `elif`, no `{% set %}`, no `is defined`
//! and no comparison operators, so prompts copied from other tools would not
//! render.
//!
//! Rendering rules:
//! - every sample field is a variable (`sample_id` is added when the sample has
//!   none); fields listed in the task's `serialize_fields` are inserted as JSON
//!   text (`serde_json`, compact, non-ASCII kept), so `{{ news_items }}` shows
//!   the array as JSON; other arrays and objects stay iterable;
//! - printing a variable the sample does not have is an error naming the
//!   template, the part (`system`/`user`) and the field; `{% if x is defined %}`
//!   and `{% if x %}` work on missing fields (minijinja's semi-strict mode);
//! - a single trailing newline is dropped, as Jinja does by default.
//!
//! A template of literal text and `{{ field }}` or `{{ field|tojson }}`
//! placeholders only can also be made with [`PromptTemplate::plain`], which
//! renders the same text without the Jinja engine: the built-in `rag_qa` and
//! a retrieval request body are such, so the page's RAG check and retrieval
//! mode link no minijinja (the engine is a trait object, linked only where a
//! Jinja template is made).

pub mod error;
mod filters;
pub mod yaml;

pub use self::error::{TaskError, TaskErrors};
use self::yaml::{from_yaml, locate};
use crate::dataset::sample::Sample;
use crate::position::{PathLabel, Position};
use crate::provider::ChatMessage;
use minijinja::{Environment, ErrorKind, UndefinedBehavior, Value as Jv};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use thiserror::Error;

/// A template file as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTemplate {
    /// Template name (what a task's `prompt_template` names).
    pub name: String,
    /// Template version; bump it on every change (spec 004 §4).
    pub version: String,
    /// System message template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// User message template.
    pub user: String,
}

/// The two message parts of a template.
const PARTS: [&str; 2] = ["system", "user"];

/// Why a template could not be compiled or rendered.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TemplateError {
    /// The template text is not valid Jinja.
    #[error("template `{template}` ({part}) line {line}: {message}")]
    Syntax {
        /// Template name.
        template: String,
        /// `system` or `user`.
        part: &'static str,
        /// 1-based line within the part.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// The template uses a field the sample does not have.
    #[error("template `{template}` ({part}): sample `{sample_id}` has no field `{field}`")]
    MissingField {
        /// Template name.
        template: String,
        /// `system`, `user`, or `serialize_fields`.
        part: &'static str,
        /// The missing field.
        field: String,
        /// The sample.
        sample_id: String,
    },
    /// Rendering failed for another reason (e.g. a missing nested attribute).
    #[error("template `{template}` ({part}) line {line}, sample `{sample_id}`: {message}")]
    Render {
        /// Template name.
        template: String,
        /// `system` or `user`.
        part: &'static str,
        /// 1-based line within the part.
        line: usize,
        /// The sample.
        sample_id: String,
        /// What was wrong.
        message: String,
    },
}

/// A compiled prompt template.
#[derive(Clone)]
pub struct PromptTemplate {
    raw: RawTemplate,
    /// What renders the texts: the Jinja engine ([`PromptTemplate::new`]) or
    /// plain placeholders ([`PromptTemplate::plain`]). Behind a trait object,
    /// so a bundle that only makes plain templates (the page's RAG check)
    /// links no Jinja engine.
    engine: Arc<dyn Engine>,
    /// Values set by the run rather than the sample (see [`PromptTemplate::with_var`]).
    vars: BTreeMap<String, String>,
}

impl fmt::Debug for PromptTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptTemplate")
            .field("raw", &self.raw)
            .field("vars", &self.vars)
            .finish()
    }
}

impl PartialEq for PromptTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw && self.vars == other.vars
    }
}

/// The messages for one sample, with the template's identity for every output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RenderedPrompt {
    /// Template name.
    pub template: String,
    /// Template version.
    pub version: String,
    /// System message (if the template has one) and user message.
    pub messages: Vec<ChatMessage>,
}

impl PromptTemplate {
    /// Compiles a template.
    pub fn new(raw: RawTemplate) -> Result<PromptTemplate, TemplateError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        self::filters::register(&mut env);
        for (part, text) in PARTS
            .into_iter()
            .zip([raw.system.clone(), Some(raw.user.clone())])
        {
            let Some(text) = text else { continue };
            env.add_template_owned(part, text)
                .map_err(|e| TemplateError::Syntax {
                    template: raw.name.clone(),
                    part,
                    line: e.line().unwrap_or(1),
                    message: describe(&e),
                })?;
        }
        Ok(PromptTemplate {
            raw,
            engine: Arc::new(Jinja { env }),
            vars: BTreeMap::new(),
        })
    }

    /// A template whose texts are literal text and `{{ field }}` or
    /// `{{ field|tojson }}` placeholders only (the built-in `rag_qa`, a
    /// retrieval request body), rendered without the Jinja engine: a
    /// placeholder prints a text field as it is and a number or boolean as
    /// Jinja prints it, `|tojson` prints any value as the Jinja filter does
    /// (compact JSON, object keys sorted, non-ASCII kept), a missing field is
    /// the same [`TemplateError::MissingField`] (`null` with `|tojson`, as the
    /// filter prints an undefined value), and a single trailing newline
    /// is dropped, so it renders exactly what [`PromptTemplate::new`] renders.
    /// Any other Jinja syntax (`{%`, `{#`, other filters, expressions) is
    /// refused.
    pub fn plain(raw: RawTemplate) -> Result<PromptTemplate, TemplateError> {
        let mut parts = Vec::new();
        for (part, text) in PARTS
            .into_iter()
            .zip([raw.system.clone(), Some(raw.user.clone())])
        {
            let Some(text) = text else { continue };
            let segments =
                plain_segments(&text).map_err(|(line, message)| TemplateError::Syntax {
                    template: raw.name.clone(),
                    part,
                    line,
                    message,
                })?;
            parts.push((part, segments));
        }
        Ok(PromptTemplate {
            raw,
            engine: Arc::new(Plain { parts }),
            vars: BTreeMap::new(),
        })
    }

    /// A template whose messages are a sample field's list of chat messages
    /// (`{role, content}`), sent as they are: BFCL's `question` turns. `raw`
    /// names it (its `user` says which field, for people).
    pub fn messages_field(raw: RawTemplate, field: &str) -> PromptTemplate {
        PromptTemplate {
            raw,
            engine: Arc::new(MessagesField {
                field: field.to_string(),
            }),
            vars: BTreeMap::new(),
        }
    }

    /// Sets a variable every render sees, whatever the sample holds: a run
    /// setting such as the RAG check's system prompt, which is text typed by
    /// the user and so is inserted as a value, never read as a template.
    pub fn with_var(mut self, name: &str, value: &str) -> PromptTemplate {
        self.vars.insert(name.to_string(), value.to_string());
        self
    }

    /// Reads and compiles a template file; errors carry file, key and YAML line.
    pub fn parse(file: &str, yaml: &str) -> Result<PromptTemplate, TaskErrors> {
        let raw: RawTemplate = from_yaml(file, yaml)?;
        PromptTemplate::new(raw).map_err(|e| {
            let TemplateError::Syntax {
                part,
                line,
                message,
                ..
            } = e
            else {
                return TaskErrors::from(TaskError::at("", e.to_string()));
            };
            let line =
                locate(yaml, part).map(|at| at + line - usize::from(!block_scalar(yaml, at)));
            let at = Position::new(file, line).with_path(part, PathLabel::Bare);
            TaskErrors::from(TaskError::new(at, message))
        })
    }

    /// The template as written.
    pub fn raw(&self) -> &RawTemplate {
        &self.raw
    }

    /// Template name.
    pub fn name(&self) -> &str {
        &self.raw.name
    }

    /// Template version.
    pub fn version(&self) -> &str {
        &self.raw.version
    }

    /// The top-level variables the template reads (the sample fields it needs).
    pub fn variables(&self) -> BTreeSet<String> {
        self.engine
            .variables()
            .into_iter()
            .filter(|v| !self.vars.contains_key(v))
            .collect()
    }

    /// Renders the messages for one sample (see the module doc for the rules).
    pub fn render(
        &self,
        sample: &Sample,
        serialize_fields: &[String],
    ) -> Result<RenderedPrompt, TemplateError> {
        let ctx = self.context(sample, serialize_fields)?;
        let messages = self.engine.render(&self.raw.name, &ctx, sample)?;
        Ok(RenderedPrompt {
            template: self.raw.name.clone(),
            version: self.raw.version.clone(),
            messages,
        })
    }

    fn context(
        &self,
        sample: &Sample,
        serialize_fields: &[String],
    ) -> Result<BTreeMap<String, Value>, TemplateError> {
        let mut ctx: BTreeMap<String, Value> = sample
            .fields
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        ctx.entry("sample_id".into())
            .or_insert_with(|| Value::String(sample.id.clone()));
        for (k, v) in &self.vars {
            ctx.insert(k.clone(), Value::String(v.clone()));
        }
        for field in serialize_fields {
            let v = sample
                .fields
                .get(field)
                .ok_or_else(|| TemplateError::MissingField {
                    template: self.raw.name.clone(),
                    part: "serialize_fields",
                    field: field.clone(),
                    sample_id: sample.id.clone(),
                })?;
            ctx.insert(
                field.clone(),
                Value::String(serde_json::to_string(v).unwrap_or_default()),
            );
        }
        Ok(ctx)
    }
}

/// What renders a template's parts over a sample's context.
trait Engine: Send + Sync {
    /// The top-level variables the parts read.
    fn variables(&self) -> BTreeSet<String>;
    /// The messages of the parts, in order.
    fn render(
        &self,
        template: &str,
        ctx: &BTreeMap<String, Value>,
        sample: &Sample,
    ) -> Result<Vec<ChatMessage>, TemplateError>;
}

/// The Jinja engine (minijinja), one template per part.
struct Jinja {
    env: Environment<'static>,
}

impl Engine for Jinja {
    fn variables(&self) -> BTreeSet<String> {
        PARTS
            .iter()
            .filter_map(|p| self.env.get_template(p).ok())
            .flat_map(|t| t.undeclared_variables(false))
            .collect()
    }

    fn render(
        &self,
        template: &str,
        ctx: &BTreeMap<String, Value>,
        sample: &Sample,
    ) -> Result<Vec<ChatMessage>, TemplateError> {
        let ctx: BTreeMap<String, Jv> = ctx.iter().map(|(k, v)| (k.clone(), to_jinja(v))).collect();
        let mut messages = Vec::with_capacity(2);
        for part in PARTS {
            let Ok(t) = self.env.get_template(part) else {
                continue;
            };
            let text = t.render(Jv::from(ctx.clone())).map_err(|e| {
                match (e.kind(), culprit(&t, &ctx)) {
                    (ErrorKind::UndefinedError, Some(field)) => TemplateError::MissingField {
                        template: template.to_string(),
                        part,
                        field,
                        sample_id: sample.id.clone(),
                    },
                    _ => TemplateError::Render {
                        template: template.to_string(),
                        part,
                        line: e.line().unwrap_or(1),
                        sample_id: sample.id.clone(),
                        message: describe(&e),
                    },
                }
            })?;
            messages.push(ChatMessage::new(part, text));
        }
        Ok(messages)
    }
}

/// A piece of a plain template: text as written, or a field to print (as
/// JSON when `json`: `{{ field|tojson }}`).
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Text(String),
    Field { name: String, json: bool },
}

/// A plain template's parts ([`PromptTemplate::plain`]).
struct Plain {
    parts: Vec<(&'static str, Vec<Segment>)>,
}

/// `text` as literal text and `{{ name }}` or `{{ name|tojson }}`
/// placeholders, its single trailing newline dropped (as Jinja does);
/// `(line, message)` where it is not that.
fn plain_segments(text: &str) -> Result<Vec<Segment>, (usize, String)> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    for tag in ["{%", "{#"] {
        if let Some(at) = text.find(tag) {
            return Err((line_of(at), format!("`{tag}` needs the Jinja engine; a plain template has text, {{{{ field }}}} and {{{{ field|tojson }}}} only")));
        }
    }
    let mut out = Vec::new();
    let mut rest = text;
    let mut at = 0;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            out.push(Segment::Text(rest[..open].to_string()));
        }
        let Some(close) = rest[open..].find("}}") else {
            return Err((line_of(at + open), "`{{` is not closed".to_string()));
        };
        let inside = &rest[open + 2..open + close];
        let (name, filter) = match inside.split_once('|') {
            Some((name, filter)) => (name.trim(), Some(filter.trim())),
            None => (inside.trim(), None),
        };
        if let Some(filter) = filter.filter(|f| *f != "tojson") {
            return Err((
                line_of(at + open),
                format!("`|{filter}` needs the Jinja engine; a plain template's only filter is `|tojson`"),
            ));
        }
        let ident = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err((
                line_of(at + open),
                format!("`{{{{ {name} }}}}` is not a plain field name"),
            ));
        }
        out.push(Segment::Field {
            name: name.to_string(),
            json: filter.is_some(),
        });
        at += open + close + 2;
        rest = &rest[open + close + 2..];
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest.to_string()));
    }
    Ok(out)
}

/// The messages of a sample field (see [`PromptTemplate::messages_field`]).
struct MessagesField {
    field: String,
}

impl Engine for MessagesField {
    fn variables(&self) -> BTreeSet<String> {
        BTreeSet::from([self.field.clone()])
    }

    fn render(
        &self,
        template: &str,
        ctx: &BTreeMap<String, Value>,
        sample: &Sample,
    ) -> Result<Vec<ChatMessage>, TemplateError> {
        let bad = |message: String| TemplateError::Render {
            template: template.to_string(),
            part: "user",
            line: 1,
            sample_id: sample.id.clone(),
            message,
        };
        let Some(v) = ctx.get(&self.field) else {
            return Err(TemplateError::MissingField {
                template: template.to_string(),
                part: "user",
                field: self.field.clone(),
                sample_id: sample.id.clone(),
            });
        };
        // read as every chat message is read (`ChatMessage`)
        serde_json::from_value(v.clone()).map_err(|e| {
            bad(format!(
                "field `{}`: expected a list of chat messages {{role, content}}: {e}",
                self.field
            ))
        })
    }
}

impl Engine for Plain {
    fn variables(&self) -> BTreeSet<String> {
        self.parts
            .iter()
            .flat_map(|(_, s)| s)
            .filter_map(|s| match s {
                Segment::Field { name, .. } => Some(name.clone()),
                Segment::Text(_) => None,
            })
            .collect()
    }

    fn render(
        &self,
        template: &str,
        ctx: &BTreeMap<String, Value>,
        sample: &Sample,
    ) -> Result<Vec<ChatMessage>, TemplateError> {
        let mut messages = Vec::with_capacity(self.parts.len());
        for (part, segments) in &self.parts {
            let mut text = String::new();
            for s in segments {
                match s {
                    Segment::Text(t) => text.push_str(t),
                    Segment::Field { name: f, json } => match ctx.get(f) {
                        // Object keys are sorted (serde_json's map is ordered),
                        // as the Jinja filter prints them.
                        Some(v) if *json => text.push_str(&v.to_string()),
                        // Jinja's filter gets the undefined value: `null`.
                        None if *json => text.push_str("null"),
                        Some(Value::String(v)) => text.push_str(v),
                        // Jinja's spelling (minijinja prints Python's).
                        Some(Value::Bool(b)) => text.push_str(if *b { "True" } else { "False" }),
                        Some(Value::Null) => text.push_str("none"),
                        Some(Value::Number(n)) => text.push_str(&n.to_string()),
                        Some(other) => {
                            return Err(TemplateError::Render {
                                template: template.to_string(),
                                part,
                                line: 1,
                                sample_id: sample.id.clone(),
                                message: format!(
                                "`{f}` is {}; a plain template prints text, numbers and booleans",
                                if other.is_null() {
                                    "null"
                                } else {
                                    "a list or an object"
                                }
                            ),
                            })
                        }
                        None => {
                            return Err(TemplateError::MissingField {
                                template: template.to_string(),
                                part,
                                field: f.clone(),
                                sample_id: sample.id.clone(),
                            })
                        }
                    },
                }
            }
            messages.push(ChatMessage::new(part, text));
        }
        Ok(messages)
    }
}

/// The missing variable behind an undefined-value error. Without minijinja's
/// `debug` feature errors carry no variable name, so each missing variable is
/// tried alone (the others set to ""), in order of first appearance; the first
/// that still fails is the one. Only runs after a failed render.
fn culprit(t: &minijinja::Template<'_, '_>, ctx: &BTreeMap<String, Jv>) -> Option<String> {
    let src = t.source();
    let mut missing: Vec<String> = t
        .undeclared_variables(false)
        .into_iter()
        .filter(|v| !ctx.contains_key(v))
        .collect();
    missing.sort_by_key(|v| (src.find(v.as_str()).unwrap_or(usize::MAX), v.clone()));
    missing
        .iter()
        .find(|c| {
            let mut probe = ctx.clone();
            for other in missing.iter().filter(|o| o != c) {
                probe.insert(other.clone(), Jv::from(""));
            }
            matches!(t.render(Jv::from(probe)), Err(e) if e.kind() == ErrorKind::UndefinedError)
        })
        .cloned()
}

/// True when the YAML key on `line` starts a block scalar (`|` or `>`), whose
/// text begins on the next line.
fn block_scalar(yaml: &str, line: usize) -> bool {
    yaml.lines()
        .nth(line.saturating_sub(1))
        .and_then(|l| l.split_once(':'))
        .is_some_and(|(_, v)| v.trim_start().starts_with(['|', '>']))
}

/// minijinja's kind and detail without its "(in name:line)" suffix.
fn describe(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.kind().to_string(),
    }
}

/// A JSON value as a template value (objects keep key order sorted).
pub fn to_jinja(v: &Value) -> Jv {
    match v {
        Value::Null => Jv::from(()),
        Value::Bool(b) => Jv::from(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Jv::from(i),
            (None, Some(u)) => Jv::from(u),
            _ => Jv::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Jv::from(s.clone()),
        Value::Array(items) => Jv::from(items.iter().map(to_jinja).collect::<Vec<_>>()),
        Value::Object(m) => Jv::from(
            m.iter()
                .map(|(k, v)| (k.clone(), to_jinja(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(v: Value) -> Sample {
        let Value::Object(fields) = v else {
            panic!("object")
        };
        Sample::new("S001", fields)
    }

    fn tpl(system: Option<&str>, user: &str) -> PromptTemplate {
        let raw = RawTemplate {
            name: "t".into(),
            version: "v1".into(),
            system: system.map(str::to_string),
            user: user.into(),
        };
        match PromptTemplate::new(raw) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn renders_fields_loops_and_serialized_json() {
        let t = tpl(
            Some("You rate {{ ticker }}."),
            "{% for n in news_items %}- {{ n.title }}\n{% endfor %}JSON: {{ news_items }}\n",
        );
        let s =
            sample(json!({"ticker": "AAPL", "news_items": [{"title": "上涨"}, {"title": "b"}]}));
        let plain = t.render(&s, &[]).expect("renders");
        assert_eq!(
            plain.messages[0],
            ChatMessage::new("system", "You rate AAPL.")
        );
        assert!(plain.messages[1].content.starts_with("- 上涨\n- b\nJSON: "));
        let t = tpl(None, "{{ news_items }}|{{ sample_id }}");
        let json_text = t.render(&s, &["news_items".into()]).expect("renders");
        assert_eq!(json_text.messages.len(), 1);
        assert_eq!(
            json_text.messages[0].content,
            r#"[{"title":"上涨"},{"title":"b"}]|S001"#
        );
        assert_eq!(
            (json_text.template.as_str(), json_text.version.as_str()),
            ("t", "v1")
        );
    }

    #[test]
    fn core_jinja_syntax_works_without_builtins() {
        // `first` is a builtins filter we do not provide: an error, not a crash
        let t = tpl(None, "{{ items|first }}");
        assert!(t.render(&sample(json!({"items": [1]})), &[]).is_err());
        let t = tpl(None, "{% set k = 2 %}{% for i in items %}{% if i > k %}{{ loop.index }}:{{ i * 10 }}{% elif i == 1 %}one{% endif %} {% endfor %}\n");
        let ok = t
            .render(&sample(json!({"items": [1, 2, 3]})), &[])
            .expect("renders");
        assert_eq!(ok.messages[0].content, "one  3:30 ");
    }

    #[test]
    fn missing_fields_are_named_but_is_defined_works() {
        let t = tpl(None, "{% if extra is defined %}{{ extra }}{% endif %}{% if note %}x{% endif %}Q: {{ question }}");
        let e = t.render(&sample(json!({})), &[]).expect_err("no question");
        assert_eq!(
            e.to_string(),
            "template `t` (user): sample `S001` has no field `question`"
        );
        let ok = t
            .render(&sample(json!({"question": "why?"})), &[])
            .expect("renders");
        assert_eq!(ok.messages[0].content, "Q: why?");
        let e = t
            .render(&sample(json!({"question": "q"})), &["news".into()])
            .expect_err("no news");
        assert!(
            matches!(
                e,
                TemplateError::MissingField {
                    part: "serialize_fields",
                    ..
                }
            ),
            "{e}"
        );
        let nested = tpl(None, "a\n{{ item.title }}");
        let e = nested
            .render(&sample(json!({"item": {}})), &[])
            .expect_err("no title");
        assert!(matches!(e, TemplateError::Render { line: 2, .. }), "{e}");
        assert_eq!(
            t.variables(),
            ["extra", "note", "question"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        );
    }

    #[test]
    fn syntax_errors_point_at_the_yaml_line() {
        let yaml = "name: t\nversion: v1\nuser: |\n  line one\n  {{ broken\n";
        let e = PromptTemplate::parse("t.yaml", yaml).expect_err("syntax");
        assert_eq!((e.0[0].path.as_str(), e.0[0].line), ("user", Some(5)));
        assert!(
            e.0[0].message.starts_with("syntax error"),
            "{}",
            e.0[0].message
        );
        let e = PromptTemplate::parse("t.yaml", "name: t\nversion: v1\nuser: x\nextra: 1\n")
            .expect_err("unknown key");
        assert!(e.0[0].message.starts_with("unknown field `extra`"), "{e}");
        let inline = PromptTemplate::parse("t.yaml", "name: t\nversion: v1\nuser: \"{% if %}\"\n")
            .expect_err("syntax");
        assert_eq!(inline.0[0].line, Some(3));
    }

    /// A plain template renders what the Jinja engine renders from the same
    /// text, and refuses what only Jinja can do.
    #[test]
    fn plain_templates_render_as_jinja_does() {
        let s = sample(
            json!({"q": "What is {{ x }}? \"准确\"\n\u{1}", "n": 3, "f": 1.5, "g": 2.0, "b": true, "list": [1],
                "m": {"z": [null, -0.25], "a": {"é": "x"}}, "z": null, "e": 1e21, "big": 18446744073709551615u64, "tiny": 1.5e-7}),
        );
        for (system, user) in [
            (None, "{{ q }}"),
            (
                Some("Sys {{q}} {{ n }}\n"),
                "{{ f }}/{{ g }}/{{ b }}/{{ c }}/{{ z }}\n\n",
            ),
            (Some(""), "{{ sample_id }}: {{ q }}"),
            (None, "no fields at all"),
            (
                Some("{{q|tojson}}"),
                r#"{"query": {{ q | tojson }}, "k": {{ n|tojson }}, "all": [{{ list|tojson }}, {{ m|tojson }}, {{ b|tojson }}, {{ f|tojson }}, {{ g|tojson }}, {{ z|tojson }}, {{ e|tojson }}, {{ big|tojson }}, {{ tiny|tojson }}]}"#,
            ),
        ] {
            let raw = RawTemplate {
                name: "t".into(),
                version: "v1".into(),
                system: system.map(str::to_string),
                user: user.into(),
            };
            let plain = PromptTemplate::plain(raw.clone()).expect("plain");
            let jinja = PromptTemplate::new(raw).expect("jinja");
            assert_eq!(plain.render(&s, &[]), jinja.render(&s, &[]), "{user}");
            assert_eq!(plain.variables(), jinja.variables());
            assert_eq!(
                plain.render(&s, &["list".into()]),
                jinja.render(&s, &["list".into()])
            );
        }
        let raw = |user: &str| RawTemplate {
            name: "t".into(),
            version: "v1".into(),
            system: None,
            user: user.into(),
        };
        // A missing field: the same error, or `null` through `|tojson`.
        for user in ["a {{ nope }}", "{{ nope|tojson }}"] {
            let plain = PromptTemplate::plain(raw(user)).expect("plain");
            let jinja = PromptTemplate::new(raw(user)).expect("jinja");
            assert_eq!(plain.render(&s, &[]), jinja.render(&s, &[]), "{user}");
        }
        for bad in [
            "{{ q|tojson|upper }}",
            "{{ q|tojson(indent=2) }}",
            "{% if q %}x{% endif %}",
            "{# c #}",
            "{{ q | upper }}",
            "line\n{{ q",
            "{{ 1 + 2 }}",
        ] {
            let Err(TemplateError::Syntax { line, .. }) = PromptTemplate::plain(raw(bad)) else {
                panic!("{bad} is not plain")
            };
            assert_eq!(line, if bad.starts_with("line") { 2 } else { 1 }, "{bad}");
        }
        let list = PromptTemplate::plain(raw("{{ list }}")).expect("plain");
        assert!(matches!(
            list.render(&s, &[]),
            Err(TemplateError::Render { .. })
        ));
    }
}
