//! The prompt-driven task contract of spec 004 §2: a task YAML as written
//! ([`RawTask`]: exactly `name`, `version`, `prompt_template`, `default_params`,
//! `serialize_fields`, `parse_schema`, `metrics`; any other key is an error),
//! validated into a [`Task`] whose schema and metrics cannot be wrong.
//!
//! Validation collects every problem, each naming its key path
//! (`metrics[1].pred_field`) and, for files, the YAML line: the YAML crate gives
//! the line of syntax and type errors, and `yaml::locate` finds the line of a
//! path for the semantic ones (unknown field references, duplicate names, bad
//! enum values, `lo > hi`, keys that do not apply to a metric type, ...).
//! See `yaml` for the YAML crate and its behaviour with tabs and anchors.

pub mod builtin;
mod repeats;
pub use repeats::Repeats;

pub use crate::template::yaml;
pub use crate::template::{PromptTemplate, RawTemplate, RenderedPrompt, TaskError, TaskErrors};
pub use builtin::{builtin_template, preset, PRESETS};

use crate::agent::{
    mcp::McpServer, AgentSpec, Environment, FaultKind, Faults, Scripts, DEFAULT_MAX_STEPS,
    MAX_STEPS,
};
use crate::dataset::sample::Sample;
use crate::metric::{self, Metric, RawMetric, SampleScore, ScoreInput};
use crate::position::KeyError;
use crate::schema::{FieldSpec, ParsedAnswer, RawField, Schema};
use crate::toolcall::decl::openai_tools;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A task file as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTask {
    /// Task name.
    pub name: String,
    /// Task version.
    pub version: String,
    /// A built-in template name (`ie_json`) or a template file beside the task.
    pub prompt_template: String,
    /// Model parameters for every request (`response_format`, `temperature`, ...).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub default_params: Map<String, Value>,
    /// Sample fields inserted into the prompt as JSON text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub serialize_fields: Vec<String>,
    /// The fields of the model's JSON answer (empty for free-text answers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parse_schema: Vec<RawField>,
    /// The metrics, at least one.
    pub metrics: Vec<RawMetric>,
    /// Ask each sample this many times (each answer scored; pass@k for 0/1
    /// metrics); `--repeats` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<u32>,
    /// The k of pass@k and pass^k (each at most `repeats`); default 1 and
    /// `repeats`. `--pass-k` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_k: Option<Vec<u32>>,
    /// The functions the model may call, sent as the request's `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<RawTools>,
}

/// A task's `tools` as written: the declarations (OpenAI's form or bare
/// `{name, description, parameters}`, BFCL's schema dialect read too), a
/// sample field that holds each sample's own (`{field: function}`), or a
/// JSON file of them beside the task (`tools: tools.json`, read by the CLI).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawTools {
    /// The declarations, the same for every sample.
    Declarations(Vec<Value>),
    /// Each sample's declarations, in this field.
    Field {
        /// The sample field.
        field: String,
    },
    /// A JSON file of declarations (a list, or `{"tools": [...]}`), relative
    /// to the task file.
    File(String),
    /// An agent's tools: the calls are executed and the model asked again
    /// (see `agent`).
    Agent(RawAgent),
}

/// An agent task's `tools`: the functions offered, where their calls go,
/// the step budget and the faults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAgent {
    /// The functions offered (a list, `{field}` or a file, as `tools` takes
    /// them), with scripted results (an MCP server lists its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declarations: Option<Box<RawTools>>,
    /// The scripted results: a list of `{name, arguments, result}`, a
    /// sample field holding each sample's own (`{field: tool_results}`), or
    /// a JSON file of them beside the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scripted: Option<RawScripts>,
    /// An MCP server instead: its URL (Streamable HTTP), or `{command:
    /// [...]}` to start (stdio, in the CLI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<RawMcp>,
    /// Model calls per case, at most (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    /// Seeded faults in the tools' answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<RawFaults>,
}

/// An MCP server as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawMcp {
    /// Its Streamable HTTP endpoint.
    Url(String),
    /// A stdio server to start, one process per case.
    Command {
        /// The program and its arguments.
        command: Vec<String>,
    },
}

/// Where scripted results are written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawScripts {
    /// The results, the same for every sample.
    List(Vec<Value>),
    /// Each sample's own, in this field.
    Field {
        /// The sample field.
        field: String,
    },
    /// A JSON file of them (a list), relative to the task file.
    File(String),
}

/// Seeded faults as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFaults {
    /// The seed.
    pub seed: u64,
    /// The share of tool calls faulted, 0 to 1.
    pub rate: f64,
    /// Which faults (`error`, `timeout`, `malformed`); all three by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
}

/// Where a task's requests take their `tools` from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Tools {
    /// No tools: a text task.
    #[default]
    None,
    /// The same declarations for every sample: as written, and as sent.
    Declarations {
        /// As written (what the `tool_call` metric checks against).
        written: Arc<Vec<Value>>,
        /// The request's `tools`.
        wire: Arc<Value>,
    },
    /// Each sample's own, in this field.
    Field(String),
    /// A file not read yet (the CLI reads it; see [`Task::with_tools_file`]).
    File(String),
}

/// One built metric of a task.
#[derive(Clone, Debug)]
pub struct TaskMetric {
    /// Name in reports (`tm_<name>` columns).
    pub name: String,
    /// Metric type.
    pub kind: String,
    /// The metric.
    pub metric: Arc<dyn Metric>,
}

/// A validated task.
#[derive(Clone, Debug)]
pub struct Task {
    /// Task name.
    pub name: String,
    /// Task version.
    pub version: String,
    /// Template name or file.
    pub prompt_template: String,
    /// Model parameters (known ones checked, others passed through).
    pub default_params: Map<String, Value>,
    /// Fields inserted as JSON text.
    pub serialize_fields: Vec<String>,
    /// The answer schema.
    pub schema: Schema,
    /// The metrics, in file order.
    pub metrics: Vec<TaskMetric>,
    /// The functions the model may call.
    pub tools: Tools,
    /// For an agent task, its loop: the calls are executed and the model
    /// asked again.
    pub agent: Option<Arc<AgentSpec>>,
    /// The file as written (for reports' `evaluator_config`).
    pub raw: RawTask,
}

impl PartialEq for Task {
    fn eq(&self, other: &Task) -> bool {
        self.raw == other.raw
    }
}

impl TryFrom<RawTask> for Task {
    type Error = TaskErrors;

    fn try_from(raw: RawTask) -> Result<Task, TaskErrors> {
        let mut errors = Vec::new();
        for (key, v) in [
            ("name", &raw.name),
            ("version", &raw.version),
            ("prompt_template", &raw.prompt_template),
        ] {
            if v.trim().is_empty() {
                errors.push(TaskError::at(key, "expected a non-empty string"));
            }
        }
        errors.extend(check_params(&raw.default_params));
        errors.extend(check_serialize_fields(&raw.serialize_fields));
        let (tools, agent) = match &raw.tools {
            None => (Tools::None, None),
            Some(RawTools::Agent(a)) => (
                match &a.declarations {
                    Some(d) => tools_of(d, "tools.declarations", &mut errors),
                    None => Tools::None,
                },
                agent_of(a, &mut errors).map(Arc::new),
            ),
            Some(t) => (tools_of(t, "tools", &mut errors), None),
        };
        let schema = build_schema(&raw.parse_schema, &mut errors);
        let metrics = build_metrics(&raw, &schema, &tools, &mut errors);
        if let Some(Environment::Scripted(_)) = agent.as_deref().map(|a| &a.env) {
            for (i, m) in metrics
                .iter()
                .enumerate()
                .filter(|(_, m)| m.kind == "final_state")
            {
                errors.push(TaskError::at(
                    format!("metrics[{i}].type"),
                    format!(
                        "{} reads the world an MCP server keeps (state://world): scripted tools keep none; give the task `tools: {{mcp: URL}}`",
                        m.name
                    ),
                ));
            }
        }
        if let Some(n) = raw.repeats.filter(|n| !(1..=MAX_REPEATS).contains(n)) {
            errors.push(TaskError::at(
                "repeats",
                format!("expected a whole number from 1 to {MAX_REPEATS}, found {n}"),
            ));
        }
        let n = raw.repeats.unwrap_or(1);
        for (i, k) in raw.pass_k.iter().flatten().enumerate() {
            if *k == 0 || *k > n {
                errors.push(TaskError::at(
                    format!("pass_k[{i}]"),
                    format!("expected k from 1 to repeats ({n}), found {k}"),
                ));
            }
        }
        if !errors.is_empty() {
            return Err(TaskErrors(errors));
        }
        Ok(Task {
            name: raw.name.trim().to_string(),
            version: raw.version.trim().to_string(),
            prompt_template: raw.prompt_template.trim().to_string(),
            default_params: raw.default_params.clone(),
            serialize_fields: raw.serialize_fields.clone(),
            schema,
            metrics,
            tools,
            agent,
            raw,
        })
    }
}

/// The declarations of `raw` (at `path`), or `Tools::None` with the errors.
fn tools_of(raw: &RawTools, path: &str, errors: &mut Vec<TaskError>) -> Tools {
    match raw {
        RawTools::Declarations(list) => match openai_tools(list, path) {
            Ok(wire) => Tools::Declarations {
                written: Arc::new(list.clone()),
                wire: Arc::new(wire),
            },
            Err(e) => {
                let (at, message) = e.split_once(": ").unwrap_or((path, &e));
                errors.push(TaskError::at(at, message));
                Tools::None
            }
        },
        RawTools::Field { field } if field.trim().is_empty() => {
            errors.push(TaskError::at(
                format!("{path}.field"),
                "expected a sample field's name",
            ));
            Tools::None
        }
        RawTools::Field { field } => Tools::Field(field.trim().to_string()),
        RawTools::File(f) => Tools::File(f.clone()),
        RawTools::Agent(_) => {
            errors.push(TaskError::at(
                path,
                "expected the functions offered (a list, {field} or a file), not another agent",
            ));
            Tools::None
        }
    }
}

/// An agent's loop as written, checked.
fn agent_of(a: &RawAgent, errors: &mut Vec<TaskError>) -> Option<AgentSpec> {
    let before = errors.len();
    let max_steps = a.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    if !(1..=MAX_STEPS).contains(&max_steps) {
        errors.push(TaskError::at(
            "tools.max_steps",
            format!("expected a whole number from 1 to {MAX_STEPS}, found {max_steps}"),
        ));
    }
    let env = match (&a.scripted, &a.mcp) {
        (Some(scripted), None) => {
            if a.declarations.is_none() {
                errors.push(TaskError::at(
                    "tools",
                    "expected `declarations`: the functions the scripted tools offer",
                ));
            }
            Environment::Scripted(scripts_of(scripted, errors))
        }
        (None, Some(mcp)) => {
            if a.declarations.is_some() {
                errors.push(TaskError::at(
                    "tools.declarations",
                    "an MCP server lists its own tools (tools/list): leave `declarations` out",
                ));
            }
            Environment::Mcp(mcp_of(mcp, errors))
        }
        (Some(_), Some(_)) => {
            errors.push(TaskError::at(
                "tools.mcp",
                "expected scripted results or an MCP server, not both",
            ));
            Environment::Scripted(Scripts::Inline(Arc::default()))
        }
        (None, None) => {
            errors.push(TaskError::at(
                "tools",
                "expected where the calls go: `scripted` results or an `mcp` server",
            ));
            Environment::Scripted(Scripts::Inline(Arc::default()))
        }
    };
    let faults = a.faults.as_ref().map(|f| {
        if !(0.0..=1.0).contains(&f.rate) {
            errors.push(TaskError::at(
                "tools.faults.rate",
                format!("expected a share from 0 to 1, found {}", f.rate),
            ));
        }
        let mut kinds = Vec::new();
        for (i, k) in f.kinds.iter().enumerate() {
            match FaultKind::from_name(k.trim()) {
                Some(kind) => kinds.push(kind),
                None => errors.push(TaskError::at(
                    format!("tools.faults.kinds[{i}]"),
                    format!("expected error, timeout or malformed, found {k:?}"),
                )),
            }
        }
        if f.kinds.is_empty() {
            kinds = vec![FaultKind::Error, FaultKind::Timeout, FaultKind::Malformed];
        }
        Faults {
            seed: f.seed,
            rate: f.rate,
            kinds,
        }
    });
    (errors.len() == before).then_some(AgentSpec {
        max_steps,
        env,
        faults,
    })
}

/// Scripted results as written, checked.
fn scripts_of(scripted: &RawScripts, errors: &mut Vec<TaskError>) -> Scripts {
    match scripted {
        RawScripts::List(list) => {
            match Scripts::read_list(&Value::Array(list.clone()), "tools.scripted") {
                Ok(l) => Scripts::Inline(Arc::new(l)),
                Err(e) => {
                    let (at, message) = e.split_once(": ").unwrap_or(("tools.scripted", &e));
                    errors.push(TaskError::at(at, message));
                    Scripts::Inline(Arc::default())
                }
            }
        }
        RawScripts::Field { field } if field.trim().is_empty() => {
            errors.push(TaskError::at(
                "tools.scripted.field",
                "expected a sample field's name",
            ));
            Scripts::Inline(Arc::default())
        }
        RawScripts::Field { field } => Scripts::Field(field.trim().to_string()),
        RawScripts::File(f) => Scripts::File(f.clone()),
    }
}

/// An MCP server as written, checked: an http(s) URL, or a command.
fn mcp_of(mcp: &RawMcp, errors: &mut Vec<TaskError>) -> McpServer {
    match mcp {
        RawMcp::Url(u) => {
            let u = u.trim();
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                errors.push(TaskError::at(
                    "tools.mcp",
                    format!("expected the server's http:// or https:// URL (or {{command: [...]}}), found {u:?}"),
                ));
            }
            McpServer::Url(u.to_string())
        }
        RawMcp::Command { command } => {
            if command.first().is_none_or(|p| p.trim().is_empty()) {
                errors.push(TaskError::at(
                    "tools.mcp.command",
                    "expected the program to start and its arguments, e.g. [python, server.py]",
                ));
            }
            McpServer::Command(command.clone())
        }
    }
}

/// The most askings per sample a run takes (a typo like 1000 would multiply
/// the bill).
pub const MAX_REPEATS: u32 = 100;

impl Task {
    /// Reads and validates a task file. Every error carries the file name, its
    /// key path and, where it can be found, the line.
    pub fn parse(file: &str, yaml: &str) -> Result<Task, TaskErrors> {
        let raw: RawTask = yaml::from_yaml(file, yaml)?;
        Task::try_from(raw).map_err(|TaskErrors(errors)| {
            let mut errors: Vec<TaskError> = errors
                .into_iter()
                .map(|mut e| {
                    e.file = file.to_string();
                    e.line = yaml::locate(yaml, &e.path);
                    e
                })
                .collect();
            errors.sort_by_key(|e| e.line.unwrap_or(usize::MAX));
            TaskErrors(errors)
        })
    }

    /// The request's `tools` for one sample (`None` for a text task), or why
    /// they cannot be sent (the sample's field missing or not declarations).
    pub fn tools_for(&self, sample: &Sample) -> Result<Option<Arc<Value>>, String> {
        match &self.tools {
            Tools::None => Ok(None),
            Tools::Declarations { wire, .. } => Ok(Some(wire.clone())),
            Tools::Field(field) => match sample.get(field) {
                Some(Value::Array(list)) => {
                    openai_tools(list, &format!("field {field}")).map(|t| Some(Arc::new(t)))
                }
                Some(_) => Err(format!(
                    "field {field}: expected a list of function declarations"
                )),
                None => Err(format!(
                    "field {field}: missing (the task's tools are each sample's own)"
                )),
            },
            Tools::File(f) => Err(format!(
                "tools: the file {f} was not read (the CLI reads it beside the task; in the page, write the declarations in the task)"
            )),
        }
    }

    /// The task with its `tools` file's contents (`file`: its name, `text`:
    /// a JSON list of declarations or `{"tools": [...]}`), built as if they
    /// were written in the task; its `raw` still names the file.
    pub fn with_tools_file(self, file: &str, text: &str) -> Result<Task, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("{file}: not JSON: {e}"))?;
        let list = match v {
            Value::Array(l) => Some(l),
            Value::Object(mut o) => match o.remove("tools") {
                Some(Value::Array(l)) => Some(l),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| {
            format!("{file}: expected a list of declarations or {{\"tools\": [...]}}")
        })?;
        let mut raw = self.raw;
        let written = raw.tools.clone();
        match &mut raw.tools {
            Some(RawTools::Agent(a)) => {
                a.declarations = Some(Box::new(RawTools::Declarations(list)))
            }
            t => *t = Some(RawTools::Declarations(list)),
        }
        let mut task = Task::try_from(raw).map_err(|e| format!("{file}: {e}"))?;
        task.raw.tools = written;
        task.agent = self.agent.or(task.agent);
        Ok(task)
    }

    /// The task with its scripted results' file read (`file`: its name,
    /// `text`: a JSON list of `{name, arguments, result}`).
    pub fn with_scripts_file(mut self, file: &str, text: &str) -> Result<Task, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("{file}: not JSON: {e}"))?;
        let list = Scripts::read_list(&v, file)?;
        if let Some(a) = &mut self.agent {
            let a = Arc::make_mut(a);
            a.env = Environment::Scripted(Scripts::Inline(Arc::new(list)));
        }
        Ok(self)
    }

    /// Reads a model answer against the task's schema.
    pub fn parse_answer(&self, answer: &str) -> ParsedAnswer {
        self.schema.parse_answer(answer)
    }

    /// Reads an answer that may hold function calls: its text against the
    /// schema (an answer of calls only has empty text), its calls kept.
    pub fn parse_answer_with_calls(
        &self,
        text: &str,
        calls: Option<&[crate::toolcall::Call]>,
    ) -> ParsedAnswer {
        let mut parsed = self.schema.parse_answer(text);
        parsed.calls = calls.map(<[_]>::to_vec);
        parsed
    }

    /// Every metric's score for one sample, as `(metric name, score)` in task order.
    pub fn score(&self, sample: &Sample, answer: &ParsedAnswer) -> Vec<(String, SampleScore)> {
        let input = ScoreInput { sample, answer };
        self.metrics
            .iter()
            .map(|m| (m.name.clone(), m.metric.score(&input)))
            .collect()
    }

    /// Fields the task reads from samples that `sample` lacks: the serialized
    /// fields and the metrics' label fields (for a dataset check before a run).
    pub fn missing_fields(&self, sample: &Sample) -> Vec<String> {
        let labels = self.raw.metrics.iter().filter_map(RawMetric::label_field);
        self.serialize_fields
            .iter()
            .map(String::as_str)
            .chain(labels)
            .filter(|f| sample.get(f).is_none())
            .map(str::to_string)
            .collect()
    }
}

/// Known model parameters and their checks; others pass through unchecked,
/// since providers accept many more.
fn check_params(params: &Map<String, Value>) -> Vec<TaskError> {
    let at = |key: &str, message: String| TaskError::at(format!("default_params.{key}"), message);
    let mut errors = Vec::new();
    let number_in = |key: &str, lo: f64, hi: f64| -> Option<TaskError> {
        let v = params.get(key)?;
        match v.as_f64() {
            Some(x) if (lo..=hi).contains(&x) => None,
            _ => Some(at(
                key,
                format!("expected a number from {lo} to {hi}, found {v}"),
            )),
        }
    };
    errors.extend(number_in("temperature", 0.0, 2.0));
    errors.extend(number_in("top_p", 0.0, 1.0));
    if let Some(v) = params
        .get("max_tokens")
        .filter(|v| v.as_u64().is_none_or(|n| n == 0))
    {
        errors.push(at(
            "max_tokens",
            format!("expected a positive integer, found {v}"),
        ));
    }
    if let Some(v) = params.get("seed").filter(|v| !v.is_i64() && !v.is_u64()) {
        errors.push(at("seed", format!("expected an integer, found {v}")));
    }
    if let Some(v) = params.get("response_format") {
        errors.extend(check_response_format(v));
    }
    errors
}

fn check_response_format(v: &Value) -> Option<TaskError> {
    const TYPES: [&str; 3] = ["text", "json_object", "json_schema"];
    let kind = v.get("type").and_then(Value::as_str);
    let (path, message) = match (v, kind) {
        (Value::Object(_), Some(t)) if TYPES.contains(&t) => {
            if t == "json_schema" && !v.get("json_schema").is_some_and(Value::is_object) {
                (
                    "default_params.response_format",
                    "type json_schema needs a `json_schema` object".to_string(),
                )
            } else {
                return None;
            }
        }
        (Value::Object(_), Some(t)) => (
            "default_params.response_format.type",
            format!("unknown type `{t}`; expected one of {}", TYPES.join(", ")),
        ),
        _ => (
            "default_params.response_format",
            "expected an object with a `type` (text, json_object or json_schema)".to_string(),
        ),
    };
    Some(TaskError::at(path, message))
}

fn check_serialize_fields(fields: &[String]) -> Vec<TaskError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut errors = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let path = format!("serialize_fields[{i}]");
        match seen.get(f.trim()) {
            _ if f.trim().is_empty() => {
                errors.push(TaskError::at(path, "expected a non-empty field name"))
            }
            Some(j) => errors.push(TaskError::at(
                path,
                format!("`{f}` is already listed at serialize_fields[{j}]"),
            )),
            None => {
                seen.insert(f.trim(), i);
            }
        }
    }
    errors
}

fn build_schema(raw: &[RawField], errors: &mut Vec<TaskError>) -> Schema {
    let mut fields: Vec<FieldSpec> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, r) in raw.iter().enumerate() {
        let path = format!("parse_schema[{i}]");
        let name = r.field.trim();
        if let Some(j) = seen.get(name).filter(|_| !name.is_empty()) {
            errors.push(TaskError::at(
                format!("{path}.field"),
                format!("`{name}` is already declared at parse_schema[{j}]"),
            ));
            continue;
        }
        seen.insert(name, i);
        match FieldSpec::try_from(r) {
            Ok(spec) => fields.push(spec),
            Err(e) => errors.push(e.under(&path)),
        }
    }
    Schema { fields }
}

/// True when `e` only says a metric reads a field whose own declaration failed
/// (that failure is reported already).
fn about_invalid_field(e: &KeyError, raw: &[RawField], schema: &Schema) -> bool {
    raw.iter()
        .map(|r| r.field.trim())
        .filter(|name| schema.get(name).is_none())
        .any(|name| {
            e.message
                .starts_with(&format!("`{name}` is not a parse_schema field"))
        })
}

/// True for names that can stand in a CSV column `tm_<name>` unquoted.
fn valid_metric_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Why a metric name cannot be used, given where it was first used (if anywhere).
fn name_problem(name: &str, first: Option<usize>) -> Option<String> {
    if !valid_metric_name(name) {
        return Some(format!(
            "`{name}` is not a valid metric name (use letters, digits, `_`, `-`, `.`)"
        ));
    }
    first.map(|j| {
        format!("duplicate metric name `{name}` (also metrics[{j}]); give each a distinct `name`")
    })
}

fn build_metrics(
    task: &RawTask,
    schema: &Schema,
    tools: &Tools,
    errors: &mut Vec<TaskError>,
) -> Vec<TaskMetric> {
    let raw = &task.metrics;
    if raw.is_empty() {
        errors.push(TaskError::at("metrics", "expected at least one metric"));
    }
    let mut out: Vec<TaskMetric> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, r) in raw.iter().enumerate() {
        let path = format!("metrics[{i}]");
        let name = r.report_name().to_string();
        let name_error = name_problem(&name, seen.get(&name).copied());
        if let Some(message) = name_error {
            let key = if r.name.is_some() { "name" } else { "type" };
            errors.push(TaskError::at(format!("{path}.{key}"), message));
            continue;
        }
        seen.insert(name.clone(), i);
        // A `tool_call` metric checks against the task's own declarations
        // when the samples carry none.
        let with_tools;
        let r = match tools {
            Tools::Declarations { written, .. }
                if r.kind.trim() == "tool_call"
                    && r.value("functions").is_none()
                    && r.value("functions_field").is_none() =>
            {
                let mut copy = r.clone();
                copy.keys
                    .insert("functions".into(), Value::Array(written.to_vec()));
                with_tools = copy;
                &with_tools
            }
            _ => r,
        };
        match metric::build(r, schema) {
            Ok(metric) => out.push(TaskMetric {
                name,
                kind: r.kind.trim().to_string(),
                metric,
            }),
            Err(e) if about_invalid_field(&e, &task.parse_schema, schema) => {}
            Err(e) => errors.push(e.under(&path)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(yaml: &str) -> Vec<String> {
        match Task::parse("t.yaml", yaml) {
            Ok(_) => panic!("expected errors"),
            Err(TaskErrors(e)) => e.iter().map(ToString::to_string).collect(),
        }
    }

    const BAD: &str = "name: t
version: v1
prompt_template: ie_json
default_params:
  temperature: 3
  response_format: {type: json}
serialize_fields: [news, news]
parse_schema:
  - field: score
    type: int
    lo: 5
    hi: -5
  - field: mood
    type: enum
    values: [up, down]
    default: sideways
  - field: note
    type: str
  - field: note
    type: str
metrics:
  - type: exact_match
    name: acc
    pred_field: mood
    label_field: gt_mood
  - type: exact_match
    name: acc
    pred_field: note
    label_field: gt_mood
  - type: list_overlap
    pred_field: keywords
    label_field: gt_keywords
  - type: numeric_error
    pred_field: note
    label_field: gt
    tolerance: 1
";

    #[test]
    fn every_semantic_error_names_path_and_line() {
        let shown = errors(BAD);
        let expected = [
            "t.yaml:5: `default_params.temperature`: expected a number from 0 to 2, found 3",
            "t.yaml:6: `default_params.response_format.type`: unknown type `json`; expected one of text, json_object, json_schema",
            "t.yaml:7: `serialize_fields[1]`: `news` is already listed at serialize_fields[0]",
            "t.yaml:11: `parse_schema[0].lo`: lo 5 is greater than hi -5",
            "t.yaml:16: `parse_schema[1].default`: not a valid enum value: not in enum values [up, down]: `sideways`",
            "t.yaml:19: `parse_schema[3].field`: `note` is already declared at parse_schema[2]",
            // metrics[0] reads `mood`, whose declaration is already reported: no second error
            "t.yaml:27: `metrics[1].name`: duplicate metric name `acc` (also metrics[0]); give each a distinct `name`",
            "t.yaml:31: `metrics[2].pred_field`: `keywords` is not a parse_schema field (fields: note; or `raw_answer`)",
            "t.yaml:34: `metrics[3].pred_field`: `note` is of type str; this metric needs int or float",
        ];
        assert_eq!(shown, expected);
    }

    #[test]
    fn unknown_keys_and_wrong_types_come_from_the_yaml_parser_with_lines() {
        let e = errors("name: t\nversion: v1\nprompt_template: x\nmetrics:\n  - type: exact_match\n    pred_feild: a\n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with(
                "t.yaml:6:5: `metrics[0]`: unknown field `pred_feild`, expected one of"
            ),
            "{}",
            e[0]
        );
        let e = errors("name: t\nversion: v1\nprompt_template: x\nparse_schema:\n  - field: a\n    type: int\n    lo: low\nmetrics: []\n");
        assert!(
            e[0].starts_with(
                "t.yaml:7:9: `parse_schema[0].lo`: invalid type: string \"low\", expected f64"
            ),
            "{}",
            e[0]
        );
        let e = errors("name: t\nversion: v1\nprompt_template: x\nmetric: []\n");
        assert!(e[0].contains("unknown field `metric`"), "{}", e[0]);
        let e = errors("name: t\nversion: v1\nprompt_template: x\n");
        assert!(e[0].contains("missing field `metrics`"), "{}", e[0]);
        let e = errors("name: t\nversion: v1\nprompt_template: x\nmetrics: []\n");
        assert_eq!(e, vec!["t.yaml:4: `metrics`: expected at least one metric"]);
    }

    #[test]
    fn an_mcp_server_is_a_url_or_a_command_and_lists_its_own_tools() {
        let task = |tools: &str| {
            format!("name: a\nversion: v1\nprompt_template: p\ntools:\n{tools}metrics:\n  - type: final_state\n    match: subset\n")
        };
        let t = Task::parse(
            "t.yaml",
            &task("  mcp: http://127.0.0.1:8765/mcp\n  max_steps: 6\n"),
        )
        .expect("valid");
        let a = t.agent.as_deref().expect("agent");
        assert_eq!(
            (&a.env, a.max_steps),
            (
                &Environment::Mcp(McpServer::Url("http://127.0.0.1:8765/mcp".into())),
                6
            )
        );
        assert_eq!(t.tools, Tools::None, "the server lists them");
        let t = Task::parse(
            "t.yaml",
            &task("  mcp: {command: [python, bank_server.py]}\n"),
        )
        .expect("valid");
        assert_eq!(
            t.agent.as_deref().map(|a| &a.env),
            Some(&Environment::Mcp(McpServer::Command(vec![
                "python".into(),
                "bank_server.py".into()
            ])))
        );
        let e = errors(&task("  mcp: ftp://x\n"));
        assert!(
            e[0].starts_with(
                "t.yaml:5: `tools.mcp`: expected the server's http:// or https:// URL"
            ),
            "{}",
            e[0]
        );
        let e = errors(&task("  mcp: {command: []}\n"));
        assert!(
            e[0].contains("`tools.mcp.command`: expected the program"),
            "{}",
            e[0]
        );
        let e = errors(&task("  mcp: http://h/mcp\n  declarations: [{name: f}]\n"));
        assert!(
            e[0].contains("`tools.declarations`: an MCP server lists its own tools"),
            "{}",
            e[0]
        );
        let e = errors(&task(
            "  mcp: http://h/mcp\n  scripted: [{name: f, result: 1}]\n",
        ));
        assert!(e[0].contains("not both"), "{}", e[0]);
        let e = errors(&task("  max_steps: 3\n"));
        assert!(e[0].contains("expected where the calls go"), "{}", e[0]);
        let e = errors(&task(
            "  declarations: [{name: f, parameters: {type: object}}]\n  scripted: [{name: f, result: 1}]\n",
        ));
        assert!(
            e[0].contains("`metrics[0].type`: final_state reads the world an MCP server keeps"),
            "{}",
            e[0]
        );
    }

    #[test]
    fn metric_type_errors_and_defaults() {
        let base = "name: t\nversion: v1\nprompt_template: x\nparse_schema:\n  - field: a\n    type: str\nmetrics:\n";
        let e = errors(&format!("{base}  - type: rouge\n"));
        assert!(
            e[0].starts_with("t.yaml:8: `metrics[0].type`: unknown metric type `rouge`"),
            "{}",
            e[0]
        );
        let e = errors(&format!(
            "{base}  - type: field_completeness\n    tolerance: 2\n"
        ));
        assert_eq!(e[0], "t.yaml:9: `metrics[0].tolerance`: `tolerance` does not apply to field_completeness (its keys: fields)");
        let e = errors(&format!(
            "{base}  - type: field_completeness\n  - type: field_completeness\n"
        ));
        assert!(
            e[0].starts_with(
                "t.yaml:9: `metrics[1].type`: duplicate metric name `field_completeness`"
            ),
            "{}",
            e[0]
        );
        let e = errors(&format!(
            "{base}  - type: field_completeness\n    name: \"tm x\"\n"
        ));
        assert!(
            e[0].contains("`metrics[0].name`: `tm x` is not a valid metric name"),
            "{}",
            e[0]
        );
        let ok =
            Task::parse("t.yaml", &format!("{base}  - type: field_completeness\n")).expect("valid");
        assert_eq!(
            (ok.metrics[0].name.as_str(), ok.metrics[0].kind.as_str()),
            ("field_completeness", "field_completeness")
        );
    }

    #[test]
    fn missing_fields_lists_serialized_and_label_fields() {
        let task = preset("event_eval").expect("preset");
        let Ok(Value::Object(fields)) =
            serde_json::from_str(r#"{"news_items":[],"gt_sentiment":"x"}"#)
        else {
            panic!("object")
        };
        let missing = task.missing_fields(&Sample::new("s", fields));
        assert_eq!(missing, vec!["gt_impact_score", "gt_keywords"]);
    }

    #[test]
    fn an_agent_s_tools_are_checked_each_error_at_its_line() {
        let agent = |body: &str| {
            format!(
                "name: a\nversion: v1\nprompt_template: p\ntools:\n  declarations:\n    - name: f\n      parameters: {{type: object, properties: {{}}}}\n{body}metrics:\n  - type: trajectory_match\n"
            )
        };
        let ok = Task::parse(
            "t.yaml",
            &agent("  scripted: [{name: f, result: 1}]\n  faults: {seed: 3, rate: 0.2}\n"),
        )
        .expect("valid");
        let spec = ok.agent.as_deref().expect("an agent");
        assert_eq!(spec.max_steps, crate::agent::DEFAULT_MAX_STEPS);
        assert_eq!(spec.faults.as_ref().map(|f| f.kinds.len()), Some(3));
        assert!(matches!(ok.tools, Tools::Declarations { .. }));
        let e = errors(&agent(
            "  scripted: [{name: f}]\n  max_steps: 0\n  faults: {seed: 1, rate: 2, kinds: [error, flood]}\n",
        ));
        let all = e.join("\n");
        assert!(
            all.contains("t.yaml:8: `tools.scripted[0]`: missing field `result`"),
            "{all}"
        );
        assert!(
            all.contains(
                "t.yaml:9: `tools.max_steps`: expected a whole number from 1 to 100, found 0"
            ),
            "{all}"
        );
        assert!(
            all.contains("`tools.faults.rate`: expected a share from 0 to 1, found 2"),
            "{all}"
        );
        assert!(
            all.contains(
                "`tools.faults.kinds[1]`: expected error, timeout or malformed, found \"flood\""
            ),
            "{all}"
        );
        let e = errors(&agent("  scripted: {field: \" \"}\n"));
        assert!(
            e[0].contains("`tools.scripted.field`: expected a sample field's name"),
            "{e:?}"
        );
    }
}
