//! `results.jsonl`: one line per sample and model, models in order, samples in
//! dataset order within each model.
//!
//! Each line starts with spec 003's `RunRecord` (`sample_id`, `dataset_id`,
//! `backend`, `run_config`, `response_text`, `status`, `latency_ms`,
//! `trace_id`, `attempts`, `error`, `raw`), then the task's own keys:
//! `status` is spec 003's (`ok`, `timeout`, `error`), or `step_limit` for an
//! agent case that used its last model call on tool calls; `error_detail.kind` says
//! which failure (`no_response`: the answers file has none for the sample; a
//! call's kind, e.g. `http`, when a model call failed). Then the task's own
//! keys: `model`, `task`, `task_version`, `prompt`, `prompt_version`, `line`
//! (the sample's dataset line), `response_line`, `fields` (the sample as read:
//! inputs and labels), `raw_answer` (null when there was none), `json_error`
//! (why no JSON object was found, when none was), `parsed` (per schema field:
//! `field`, `value`, `status` = parsed / coerced / clamped / defaulted, and
//! `reason` unless parsed), `tool_calls` (the function calls the answer made,
//! each `{id, name, arguments}` with the arguments as sent, when it made any),
//! `parse_problem` (an answered sample whose JSON was
//! missing or had a field not taken as written) and `metrics` (per task metric:
//! `value` (null when skipped), `components`, `detail`); for answers from a
//! model call in the run also `elapsed_ms`; then `messages`, the prompt the
//! template renders for the sample (`role`, `content`: what was sent, or for
//! answers read from a file what would have been), or `prompt_error` when it
//! cannot be rendered; for an agent case, `trajectory` (the messages after
//! the prompt) and `agent` (how the loop ended, each step's tokens, latency
//! and calls with their results and faults).

use super::data::TaskDataset;
use super::report::{AnswerSource, TaskInfo};
use super::score::{AnswerStatus, ModelRun, SampleResult, NO_RESPONSE as NO_ANSWER};
use crate::metric::SampleScore;
use crate::provider::ChatMessage;
use crate::report::{Outcome, RunRecord};
use crate::schema::ParsedField;
use serde::Serialize;
use serde_json::{json, Map, Value};

#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    record: RunRecord,
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat: Option<u32>,
    task: &'a str,
    task_version: &'a str,
    prompt: &'a str,
    prompt_version: &'a str,
    line: usize,
    response_line: Option<usize>,
    fields: &'a Map<String, Value>,
    raw_answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<&'a [crate::toolcall::Call]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trajectory: Option<&'a [crate::toolcall::message::ChatMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_state: Option<&'a Value>,
    json_error: Option<&'a str>,
    parsed: &'a [ParsedField],
    parse_problem: bool,
    metrics: std::collections::BTreeMap<&'a str, Sorted<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elapsed_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<&'a [ChatMessage]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a crate::agent::AgentRecord>,
}

/// Renders `results.jsonl`; `prompts` are the samples' rendered prompts
/// (`prompts::render_prompts`), by sample index.
pub fn render(
    data: &TaskDataset,
    info: &TaskInfo,
    source: &AnswerSource,
    runs: &[ModelRun],
    prompts: &[Result<Vec<ChatMessage>, String>],
) -> String {
    let mut out = String::new();
    for run in runs {
        for r in &run.results {
            if let Some(line) = line_of(data, info, source, run, r, prompts.get(r.index)) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

/// The spec 003 part of one line: backend and settings of the model that
/// answered (or the responses file), the answer, status, time and error.
fn record(
    data: &TaskDataset,
    source: &AnswerSource,
    model: &str,
    id: &str,
    r: &SampleResult,
) -> RunRecord {
    let (backend, run_config) = match source {
        AnswerSource::Run(run) => {
            let called = run.models.iter().find(|m| m.name == model);
            (
                run.backend.clone(),
                json!({"model": model, "settings": called}),
            )
        }
        AnswerSource::Score { responses } => (
            "responses".to_string(),
            json!({"model": model, "responses": responses}),
        ),
    };
    let outcome = match (r.status, &r.error) {
        (s, _) if s.answered() => Outcome::Answered,
        (_, Some(e)) => Outcome::Failed(e),
        (_, None) => Outcome::NoResponse(NO_ANSWER),
    };
    let (status, error, error_detail) = outcome.fields();
    RunRecord {
        sample_id: id.to_string(),
        dataset_id: Some(data.metadata.dataset_id.clone()),
        backend,
        run_config,
        response_text: r.raw_answer.clone(),
        status: match r.status {
            AnswerStatus::StepLimit => r.status.code().to_string(),
            _ => status.to_string(),
        },
        latency_ms: r.elapsed_ms.map(|ms| ms as f64),
        trace_id: match r.repeat {
            Some(k) => format!("{model}/{id}#{k}"),
            None => format!("{model}/{id}"),
        },
        attempts: r.attempts.unwrap_or(0),
        error,
        error_detail,
        raw: {
            let mut raw = json!({"answer": r.raw_answer, "response_line": r.response_line});
            if let Value::Object(m) = &mut raw {
                m.extend(crate::report::answer_extras(
                    r.reasoning.as_deref(),
                    r.finish_reason.as_deref(),
                    r.usage.clone(),
                    r.truncated(),
                    r.cached.as_ref(),
                ));
            }
            raw
        },
    }
}

fn line_of(
    data: &TaskDataset,
    info: &TaskInfo,
    source: &AnswerSource,
    run: &ModelRun,
    r: &SampleResult,
    prompt: Option<&Result<Vec<ChatMessage>, String>>,
) -> Option<String> {
    let s = &data.samples.get(r.index)?.sample;
    let line = Line {
        record: record(data, source, &run.model, &s.id, r),
        model: &run.model,
        repeat: r.repeat,
        task: &info.name,
        task_version: &info.version,
        prompt: &info.prompt_name,
        prompt_version: &info.prompt_version,
        line: s.line,
        response_line: r.response_line,
        fields: &s.fields,
        raw_answer: r.raw_answer.as_deref(),
        tool_calls: r.parsed.calls.as_deref(),
        trajectory: r.parsed.trajectory.as_deref(),
        final_state: r.parsed.state.as_ref(),
        json_error: r.parsed.json_error.as_deref(),
        parsed: &r.parsed.fields,
        parse_problem: r.has_parse_problem(),
        metrics: r
            .scores
            .iter()
            .map(|(name, score)| (name.as_str(), Sorted(score)))
            .collect(),
        elapsed_ms: r.elapsed_ms,
        messages: prompt.and_then(|p| p.as_ref().ok()).map(Vec::as_slice),
        prompt_error: prompt.and_then(|p| p.as_ref().err()).map(String::as_str),
        agent: r.agent.as_deref(),
    };
    serde_json::to_string(&line).ok()
}

/// A score as `results.jsonl` has always written it: its keys in
/// alphabetical order (`components` when there are any, `detail`, `value`),
/// as a score turned into a JSON object has them, without building that
/// object.
struct Sorted<'a>(&'a SampleScore);

impl Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let score = self.0;
        let mut m = s.serialize_map(None)?;
        if !score.components.is_empty() {
            m.serialize_entry("components", &score.components)?;
        }
        m.serialize_entry("detail", &score.detail)?;
        m.serialize_entry("value", &score.value)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn a_score_is_written_as_its_json_object_is() {
        let mut with = SampleScore::new(0.5).detail("why", "because");
        with.components.insert("precision".into(), 0.25);
        with.components.insert("nan".into(), f64::NAN);
        let scores = [
            with,
            SampleScore::skipped("no label".to_string()),
            SampleScore {
                value: Some(f64::INFINITY),
                ..SampleScore::default()
            },
        ];
        for score in &scores {
            let via_value = serde_json::to_value(score)
                .expect("a score is JSON")
                .to_string();
            let direct = serde_json::to_string(&Sorted(score)).expect("a score is JSON");
            assert_eq!(direct, via_value);
        }
    }

    #[test]
    fn one_line_per_sample_and_model_with_parse_status() {
        let f = fixture();
        let text = f.results_jsonl();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["parsed"][0]["status"], "parsed");
        assert_eq!(lines[0]["metrics"]["sentiment_acc"]["value"], 1.0);
        assert_eq!(lines[1]["parse_problem"], true);
        assert!(lines[1]["json_error"].is_string());
        assert_eq!(lines[1]["parsed"][0]["status"], "defaulted");
        assert_eq!(lines[3]["model"], "m2");
        assert_eq!(lines[3]["status"], "error", "spec 003's status");
        assert_eq!(lines[3]["error_detail"]["kind"], "no_response");
        assert_eq!(lines[0]["status"], "ok");
        assert!(lines[0].get("error_detail").is_none());
        assert_eq!(lines[3]["raw_answer"], Value::Null);
        assert_eq!(lines[3]["parse_problem"], false);
        assert_eq!(lines[3]["fields"]["gt_impact_score"], -3);
    }
}
