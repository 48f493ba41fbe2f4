//! The one builder every reader hands its samples to (see the module doc).

use super::Tool;
use crate::dataset::LineError;
use crate::report::{
    assemble, length_bucket, summaries, CallStat, CaseVerdict, Counts, DatasetMetadata, ErrorCase,
    EvalScore, EvaluationResult, ExperimentMetadata, ModelRows, ModelUsage, ReportMetrics,
    ReportParts, RunTimes,
};
use crate::Usage;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// An import's report, and what it says of the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The tool.
    pub tool: Tool,
    /// The report `report`, `compare` and the viewer open.
    pub report: EvaluationResult,
}

/// One aggregate as the source tool computed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceAggregate {
    /// The model, when the source names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The metric of the report it is about (none: a figure of the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// Its name in the source (`accuracy`, `acc,none`, `pass_rate`, ...).
    pub name: String,
    /// Its value.
    pub value: f64,
    /// Whether it is the mean of the metric's scores, so evalpage's
    /// recomputed mean must equal it.
    #[serde(skip)]
    pub is_mean: bool,
}

/// One verdict of one sample.
pub(super) struct Verdict {
    pub metric: String,
    pub value: f64,
    /// What the source wrote (`"C"`, `true`, a number), when it is not the
    /// value itself; and its explanation.
    pub extra: Map<String, Value>,
}

impl Verdict {
    pub fn new(metric: impl Into<String>, value: f64) -> Verdict {
        Verdict {
            metric: metric.into(),
            value,
            extra: Map::new(),
        }
    }

    pub fn with(mut self, key: &str, v: Value) -> Verdict {
        if !v.is_null() {
            self.extra.insert(key.to_string(), v);
        }
        self
    }
}

/// One sample × model as a reader found it.
#[derive(Default)]
pub(super) struct Sample {
    pub id: String,
    /// The model as the report names it.
    pub model: String,
    pub input: Option<String>,
    pub answer: Option<String>,
    pub target: Option<String>,
    /// The epoch (Inspect), 1-based.
    pub repeat: Option<u64>,
    pub tags: Vec<String>,
    pub error: Option<String>,
    pub usage: Option<Usage>,
    pub latency_ms: Option<u64>,
    pub cost: Option<f64>,
    /// The function calls the sample's model made, each `{id, name,
    /// arguments, result, error}` (the tool's answer joined by call id).
    pub calls: Vec<Value>,
    /// An agent's messages after its prompt as OpenAI chat messages (each
    /// answer with its `tool_calls`, each tool's answer), when it called
    /// tools: what the viewer shows step by step.
    pub trajectory: Option<Value>,
}

pub use crate::dataset::fingerprint::input_hash;

pub(super) struct Collect {
    tool: Tool,
    files: Vec<String>,
    pub version: Option<String>,
    pub dataset: Option<String>,
    pub run_id: Option<String>,
    pub started_at_ms: Option<u64>,
    pub settings: Map<String, Value>,
    /// (name, full id) in first-seen order.
    models: Vec<(String, String)>,
    scores: Vec<EvalScore>,
    cases: Vec<CaseVerdict>,
    errors: Vec<ErrorCase>,
    calls: BTreeMap<String, Vec<CallStat>>,
    costs: BTreeMap<String, f64>,
    pub aggregates: Vec<SourceAggregate>,
    not_carried: BTreeSet<String>,
    /// Per kind of element (`results.results[]`), the top-level fields met
    /// that its reader does not read.
    unread: BTreeMap<String, BTreeSet<String>>,
    pub problems: Vec<LineError>,
    /// Answers read (sample × model × epoch).
    samples: usize,
    /// The distinct sample ids (the dataset's `sample_count`).
    ids: std::collections::HashSet<String>,
    /// Read only this many samples (a first look at a big file).
    pub limit: Option<usize>,
}

impl Collect {
    pub fn new(tool: Tool, files: Vec<String>) -> Collect {
        Collect {
            tool,
            files,
            version: None,
            dataset: None,
            run_id: None,
            started_at_ms: None,
            settings: Map::new(),
            models: Vec::new(),
            scores: Vec::new(),
            cases: Vec::new(),
            errors: Vec::new(),
            calls: BTreeMap::new(),
            costs: BTreeMap::new(),
            aggregates: Vec::new(),
            not_carried: BTreeSet::new(),
            unread: BTreeMap::new(),
            problems: Vec::new(),
            samples: 0,
            ids: std::collections::HashSet::new(),
            limit: None,
        }
    }

    /// Whether the sample limit is reached (the readers stop there).
    pub fn full(&self) -> bool {
        self.limit.is_some_and(|n| self.samples >= n)
    }

    /// A model met: `name` as the report names it, `id` as the source does.
    pub fn model(&mut self, name: &str, id: &str) {
        if !self.models.iter().any(|(n, _)| n == name) {
            self.models.push((name.to_string(), id.to_string()));
        }
    }

    fn model_id(&self, name: &str) -> Option<&str> {
        self.models
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, id)| id.as_str())
    }

    /// Something the source held that the report cannot carry.
    pub fn not_carried(&mut self, what: impl Into<String>) {
        self.not_carried.insert(what.into());
    }

    /// The fields of one `element` (its path with `[]`, as
    /// `results.results[]`) its reader left unread: listed once per import
    /// in `not_carried`, each field once.
    pub fn unread<'a>(&mut self, element: &str, fields: impl IntoIterator<Item = &'a String>) {
        let mut fields = fields.into_iter().peekable();
        if fields.peek().is_none() {
            return;
        }
        if !self.unread.contains_key(element) {
            self.unread.insert(element.to_string(), BTreeSet::new());
        }
        if let Some(seen) = self.unread.get_mut(element) {
            for k in fields {
                if !seen.contains(k) {
                    seen.insert(k.clone());
                }
            }
        }
    }

    /// A part that could not be read: `file`, its line (or entry number),
    /// the field at fault, and what was expected.
    pub fn problem(&mut self, file: &str, line: usize, field: Option<&str>, message: String) {
        self.problems.push(LineError {
            file: file.to_string(),
            line,
            field: field.map(str::to_string),
            message,
        });
    }

    /// An aggregate as the source computed it.
    pub fn aggregate(
        &mut self,
        model: Option<&str>,
        metric: Option<&str>,
        name: &str,
        value: f64,
        is_mean: bool,
    ) {
        if value.is_finite() {
            self.aggregates.push(SourceAggregate {
                model: model.map(str::to_string),
                metric: metric.map(str::to_string),
                name: name.to_string(),
                value,
                is_mean,
            });
        }
    }

    /// One sample × model with its verdicts.
    pub fn sample(&mut self, s: Sample, verdicts: Vec<Verdict>) {
        self.samples += 1;
        if !self.ids.contains(&s.id) {
            self.ids.insert(s.id.clone());
        }
        let model_id = self.model_id(&s.model).map(str::to_string);
        let hash = s.input.as_deref().map(input_hash);
        let bucket = s.input.as_deref().map(|t| length_bucket(t).to_string());
        // Every score names its model, its input's hash and its repeat; the
        // texts (question, answer, target, error) are on the sample's first
        // score only, where the viewer and the Markdown report read them (a
        // 200,000-sample import does not hold each text once per metric).
        let mut base = Map::new();
        base.insert("model".into(), json!(s.model));
        if let Some(id) = model_id.filter(|id| *id != s.model) {
            base.insert("model_id".into(), json!(id));
        }
        if let Some(h) = &hash {
            base.insert("input_sha256".into(), json!(h));
        }
        if let Some(r) = s.repeat {
            base.insert("repeat".into(), json!(r));
        }
        let answered = s.answer.is_some();
        let mut texts = Map::new();
        for (k, v) in [
            ("question", s.input),
            ("answer", s.answer),
            ("target", s.target),
            ("error", s.error.clone()),
        ] {
            if let Some(t) = v {
                texts.insert(k.into(), Value::String(t));
            }
        }
        if !s.calls.is_empty() {
            texts.insert("tool_calls".into(), Value::Array(s.calls));
        }
        if let Some(t) = s.trajectory {
            texts.insert("trajectory".into(), t);
        }
        let mut first = true;
        for v in verdicts {
            if !v.value.is_finite() {
                continue;
            }
            let mut detail = base.clone();
            if std::mem::take(&mut first) {
                detail.append(&mut texts);
            }
            detail.extend(v.extra);
            self.scores.push(EvalScore {
                sample_id: s.id.clone(),
                metric: v.metric,
                value: v.value,
                tags: s.tags.clone(),
                language: None,
                length_bucket: bucket.clone(),
                detail: Value::Object(detail),
            });
        }
        let failed = s.error.is_some();
        self.cases.push(CaseVerdict {
            model: s.model.clone(),
            // As the viewer names an answer of a sample asked several times.
            sample_id: match s.repeat {
                Some(r) => format!("{}#{r}", s.id),
                None => s.id.clone(),
            },
            repeat: None,
            status: if failed { "failed" } else { "ok" }.into(),
            passed: !failed,
        });
        if let Some(message) = &s.error {
            self.errors.push(ErrorCase {
                model: Some(s.model.clone()),
                sample_id: s.id.clone(),
                status: "error".into(),
                trace_id: format!("{}/{}", self.run_id.as_deref().unwrap_or("import"), s.id),
                message: Some(message.clone()),
                latency_ms: s.latency_ms.map(|l| l as f64),
                backend: Some(self.tool.name().into()),
                status_code: None,
                attempts: 1,
            });
        }
        self.calls
            .entry(s.model.clone())
            .or_default()
            .push(CallStat {
                answered: !failed && answered,
                truncated: false,
                elapsed_ms: s.latency_ms,
                usage: s.usage,
                cached: false,
            });
        if let Some(c) = s.cost.filter(|c| c.is_finite()) {
            *self.costs.entry(s.model).or_default() += c;
        }
    }

    /// The report, through the one report builder (`report::assemble`) as
    /// every run's: each model's scores in the order the source gave them,
    /// model after model, its summaries recomputed from them.
    pub fn finish(mut self) -> super::Imported {
        for (element, fields) in std::mem::take(&mut self.unread) {
            let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            self.not_carried.insert(format!(
                "fields of {element} this import does not read: {}",
                names.join(", ")
            ));
        }
        let metrics: Vec<String> = {
            let mut seen: Vec<String> = Vec::new();
            for s in &self.scores {
                if !seen.contains(&s.metric) {
                    seen.push(s.metric.clone());
                }
            }
            seen
        };
        let names: Vec<&str> = metrics.iter().map(String::as_str).collect();
        let model_of =
            |m: Option<&str>| self.models.iter().position(|(x, _)| Some(x.as_str()) == m);
        // Each model's rows; scores and errors are moved (an import can hold
        // hundreds of thousands), a score of no listed model in a row of its own.
        let mut rows: Vec<ModelRows> = self
            .models
            .iter()
            .map(|(m, _)| ModelRows {
                model: Some(m.clone()),
                ..ModelRows::default()
            })
            .collect();
        let mut other = ModelRows::default();
        for sc in self.scores {
            match model_of(sc.model()) {
                Some(k) => rows[k].scores.push(sc),
                None => other.scores.push(sc),
            }
        }
        for e in self.errors {
            match model_of(e.model.as_deref()) {
                Some(k) => rows[k].errors.push(e),
                None => other.errors.push(e),
            }
        }
        for (row, (m, _)) in rows.iter_mut().zip(&self.models) {
            let present: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| row.scores.iter().any(|s| s.metric == *n))
                .collect();
            row.summaries = summaries(&row.scores, &present);
            let mut usage = ModelUsage::of(m, self.calls.get(m).cloned().unwrap_or_default());
            usage.cost = self.costs.get(m).copied();
            row.usage = Some(usage);
        }
        let differences: Vec<String> = self
            .aggregates
            .iter()
            .filter(|a| a.is_mean)
            .filter_map(|a| {
                let ours = rows
                    .iter()
                    .filter(|r| a.model.is_none() || r.model == a.model)
                    .flat_map(|r| &r.summaries)
                    .find(|s| Some(&s.metric) == a.metric.as_ref())?;
                let close = (ours.mean - a.value).abs() <= 1e-6 * a.value.abs().max(1.0);
                (!close).then(|| {
                    format!(
                        "{}{}: {} says {} = {}, evalpage's mean of the {} scores is {}",
                        a.model
                            .as_deref()
                            .map(|m| format!("{m} "))
                            .unwrap_or_default(),
                        ours.metric,
                        self.tool.name(),
                        a.name,
                        a.value,
                        ours.sample_count,
                        ours.mean
                    )
                })
            })
            .collect();
        let failed = rows
            .iter()
            .chain([&other])
            .map(|r| r.errors.len())
            .sum::<usize>();
        if !other.scores.is_empty() || !other.errors.is_empty() {
            rows.push(other);
        }
        let cases = self.cases.len();
        let dataset = self.dataset.clone().unwrap_or_else(|| {
            self.files
                .first()
                .map(|f| crate::dataset::file_name(f).to_string())
                .unwrap_or_default()
        });
        let mut counts = Map::new();
        counts.insert("sample_count".into(), json!(self.ids.len()));
        if !self.problems.is_empty() {
            counts.insert("line_errors".into(), json!(self.problems.len()));
        }
        let mut run_config = Map::new();
        run_config.insert("kind".into(), json!("import"));
        run_config.insert("tool".into(), json!(self.tool.name()));
        run_config.insert("tool_version".into(), json!(self.version));
        run_config.insert(
            "files".into(),
            json!(self
                .files
                .iter()
                .map(|f| crate::dataset::file_name(f))
                .collect::<Vec<_>>()),
        );
        run_config.insert(
            "models".into(),
            Value::Array(
                self.models
                    .iter()
                    .map(|(n, id)| json!({"name": n, "id": id}))
                    .collect(),
            ),
        );
        if let Some(id) = &self.run_id {
            run_config.insert("source_run_id".into(), json!(id));
        }
        run_config.extend(self.settings.clone());
        let evaluator_config = json!({
            "metrics": metrics,
            "source_aggregates": self.aggregates,
            "differences": differences,
            "not_carried": self.not_carried,
        });
        let report = assemble(ReportParts {
            metrics: ReportMetrics {
                cases,
                counts: Counts {
                    passed_cases: cases - failed,
                    failed_calls: failed,
                    ..Counts::default()
                },
            },
            cases: self.cases,
            models: rows,
            metric_names: metrics,
            experiment: ExperimentMetadata {
                dataset: DatasetMetadata {
                    dataset_id: dataset.clone(),
                    version: String::new(),
                    name: Some(dataset),
                    counts,
                    ..DatasetMetadata::default()
                },
                run_config: Value::Object(run_config),
                evaluator_config,
                // the latency rows are the assembler's, from each model's usage
                run: self.run_id.as_ref().map(|id| RunTimes {
                    run_id: id.clone(),
                    started_at_ms: self.started_at_ms.unwrap_or(0),
                    elapsed_ms: 0,
                    status: "done".into(),
                    latency: Vec::new(),
                }),
                report_language: None,
            },
            line_errors: (!self.problems.is_empty()).then_some(self.problems),
            llm_judge_details: Vec::new(),
        });
        super::Imported {
            tool: self.tool,
            report,
        }
    }
}

/// A model id less its provider prefix: `openai:chat:gpt-4o-mini` and
/// `openai/gpt-4o-mini` are `gpt-4o-mini`; a URL or a path stays whole.
pub(super) fn short_model(id: &str, sep: char) -> String {
    if id.contains("://") || id.starts_with("file:") || id.starts_with("exec:") {
        return id.to_string();
    }
    let Some((_, rest)) = id.split_once(sep) else {
        return id.to_string();
    };
    if sep == ':' {
        // promptfoo's `provider:type:model` (openai:chat:..., azure:completion:...).
        const TYPES: [&str; 8] = [
            "chat",
            "completion",
            "completions",
            "embedding",
            "embeddings",
            "responses",
            "assistant",
            "messages",
        ];
        if let Some((kind, model)) = rest.split_once(':') {
            if TYPES.contains(&kind) && !model.is_empty() {
                return model.to_string();
            }
        }
    }
    if rest.is_empty() {
        id.to_string()
    } else {
        rest.to_string()
    }
}

/// The text of a chat input: a string as it is; a list of messages, its last
/// user message (its text parts joined).
pub(super) fn input_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(msgs) => msgs
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .or_else(|| msgs.last())
            .and_then(|m| content_text(m.get("content").unwrap_or(m))),
        Value::Object(_) => v.get("content").and_then(content_text),
        _ => None,
    }
}

/// A message's content as text: a string, or its `text` parts joined.
pub(super) fn content_text(c: &Value) -> Option<String> {
    match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// A number or a numeric string.
pub(super) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// An id as text (a string, or a number's text).
pub(super) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
