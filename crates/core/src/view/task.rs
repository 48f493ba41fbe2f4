//! A task run's `results.jsonl` read back (`task_run::results` writes it):
//! each line's sample × model as the `SampleResult` the task mode's grid
//! showed live (status, the answer, its parsed fields with their parse
//! status, every metric's value, components and detail, the call's error,
//! attempts and time, the reasoning), so the viewer shows a saved task run
//! through the grid's own cell view. A bad line is reported at its file and
//! line and skipped.

use super::look::{Look, SampleInput, TaskLook};
use super::ViewData;
use crate::dataset::jsonl::read_objects;
use crate::dataset::{kind, LineError};
use crate::metric::SampleScore;
use crate::position::KeyError;
use crate::provider::ChatMessage;
use crate::report::ErrorDetail;
use crate::schema::{ParseStatus, ParsedAnswer, ParsedField};
use crate::task::{AnswerStatus, SampleResult};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// One line read: its model, sample and result.
pub struct ResultLine {
    /// The model, when the line names one.
    pub model: Option<String>,
    /// The sample id.
    pub sample_id: String,
    /// The result as the run held it.
    pub result: SampleResult,
    /// The sample as read and the prompt rendered for it.
    pub input: SampleInput,
    key: String,
}

fn field_of(v: &Value, at: &str) -> Result<ParsedField, KeyError> {
    let bad = |what: &str| KeyError::new(at, format!("expected {what}, found {}", kind(v)));
    let obj = v.as_object().ok_or_else(|| bad("a parsed field object"))?;
    let status: ParseStatus = obj
        .get("status")
        .and_then(|s| serde_json::from_value(s.clone()).ok())
        .ok_or_else(|| {
            KeyError::new(
                format!("{at}.status"),
                "expected parsed, coerced, clamped or defaulted",
            )
        })?;
    Ok(ParsedField {
        field: obj
            .get("field")
            .and_then(Value::as_str)
            .ok_or_else(|| KeyError::new(format!("{at}.field"), "expected the field's name"))?
            .to_string(),
        value: obj.get("value").cloned().unwrap_or(Value::Null),
        status,
        reason: obj
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn score_of(v: &Value, at: &str) -> Result<SampleScore, KeyError> {
    let obj = v
        .as_object()
        .ok_or_else(|| KeyError::new(at, format!("expected a metric object, found {}", kind(v))))?;
    let value = match obj.get("value") {
        None | Some(Value::Null) => None,
        Some(x) => Some(x.as_f64().ok_or_else(|| {
            KeyError::new(
                format!("{at}.value"),
                format!("expected a number or null, found {}", kind(x)),
            )
        })?),
    };
    let components = match obj.get("components") {
        Some(c) => serde_json::from_value(c.clone()).map_err(|e| {
            KeyError::new(
                format!("{at}.components"),
                format!("expected numbers by name: {e}"),
            )
        })?,
        None => Default::default(),
    };
    Ok(SampleScore {
        value,
        components,
        detail: match obj.get("detail") {
            Some(Value::Object(d)) => d.clone(),
            _ => Map::new(),
        },
    })
}

fn line_of(obj: Map<String, Value>, order: &[String]) -> Result<ResultLine, KeyError> {
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    let sample_id = text("sample_id").ok_or_else(|| {
        KeyError::new(
            "sample_id",
            "missing; every results.jsonl line names its sample",
        )
    })?;
    // Spec 003's status, the failure's kind in `error_detail`; files of
    // earlier versions said `failed` or `no_response` in `status` itself.
    let failure = obj
        .get("error_detail")
        .and_then(|d| d.get("kind"))
        .and_then(Value::as_str);
    let status = match (obj.get("status").and_then(Value::as_str), failure) {
        (Some("ok"), _) => AnswerStatus::Ok,
        (Some("step_limit"), _) => AnswerStatus::StepLimit,
        (Some("error" | "timeout"), Some("no_response")) | (Some("no_response"), _) => {
            AnswerStatus::NoResponse
        }
        (Some("error" | "timeout" | "failed"), _) => AnswerStatus::Failed,
        _ => {
            return Err(KeyError::new(
                "status",
                "expected ok, error or timeout (spec 003's RunRecord status), or step_limit",
            ))
        }
    };
    let parsed = match obj.get("parsed") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, f)| field_of(f, &format!("parsed[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => {
            return Err(KeyError::new(
                "parsed",
                format!("expected an array of parsed fields, found {}", kind(v)),
            ))
        }
        None => {
            return Err(KeyError::new(
                "parsed",
                "missing; not a task run's results.jsonl line",
            ))
        }
    };
    let mut scores: Vec<(String, SampleScore)> = Vec::new();
    if let Some(v) = obj.get("metrics") {
        let m = v.as_object().ok_or_else(|| {
            KeyError::new(
                "metrics",
                format!("expected an object by metric, found {}", kind(v)),
            )
        })?;
        for (name, s) in m {
            scores.push((name.clone(), score_of(s, &format!("metrics.{name}"))?));
        }
    }
    // The report's metric order (the task's), the rest after it.
    scores.sort_by_key(|(name, _)| order.iter().position(|m| m == name).unwrap_or(usize::MAX));
    let raw = obj.get("raw").cloned().unwrap_or(Value::Null);
    let raw_answer = text("raw_answer");
    let elapsed_ms = obj.get("elapsed_ms").and_then(Value::as_u64);
    let model = text("model");
    let repeat = obj
        .get("repeat")
        .and_then(Value::as_u64)
        .map(|r| r.min(u64::from(u32::MAX)) as u32);
    let messages = match obj.get("messages") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<ChatMessage>>(v.clone()).map_err(|e| {
                KeyError::new(
                    "messages",
                    format!("expected the prompt's messages ({{role, content}} objects): {e}"),
                )
            })?,
        ),
    };
    let input = SampleInput {
        fields: obj
            .get("fields")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        messages,
        prompt_error: text("prompt_error"),
    };
    Ok(ResultLine {
        key: match repeat {
            Some(k) => format!("{}/{sample_id}#{k}", model.as_deref().unwrap_or("")),
            None => format!("{}/{sample_id}", model.as_deref().unwrap_or("")),
        },
        input,
        model,
        result: SampleResult {
            index: 0,
            status,
            response_line: obj
                .get("response_line")
                .and_then(Value::as_u64)
                .map(|l| l as usize),
            parsed: ParsedAnswer {
                raw: Value::String(raw_answer.as_deref().unwrap_or("").trim().to_string()),
                json_error: text("json_error"),
                fields: parsed,
                calls: obj
                    .get("tool_calls")
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
                trajectory: obj
                    .get("trajectory")
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
                state: obj.get("final_state").cloned(),
            },
            raw_answer,
            scores,
            attempts: elapsed_ms.and_then(|_| {
                obj.get("attempts")
                    .and_then(Value::as_u64)
                    .map(|a| a.min(u32::MAX as u64) as u32)
            }),
            elapsed_ms,
            error: ["error_detail", "error"]
                .iter()
                .filter_map(|k| obj.get(*k).filter(|e| e.is_object()))
                .find_map(|e| serde_json::from_value::<ErrorDetail>(e.clone()).ok()),
            reasoning: raw
                .get("reasoning")
                .and_then(Value::as_str)
                .map(str::to_string),
            finish_reason: raw
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string),
            usage: raw
                .get("usage")
                .and_then(|u| serde_json::from_value(u.clone()).ok()),
            cached: raw
                .get("cached")
                .and_then(|c| serde_json::from_value(c.clone()).ok()),
            repeat,
            agent: obj
                .get("agent")
                .and_then(|a| serde_json::from_value(a.clone()).ok()),
        },
        sample_id,
    })
}

/// Reads a task run's `results.jsonl`; `order` is the task's metric order
/// (the report's columns). Bad lines come back as errors at their line.
pub fn read_results(
    file: &str,
    bytes: &[u8],
    order: &[String],
) -> (Vec<ResultLine>, Vec<LineError>) {
    read_objects(
        file,
        bytes,
        "sample_id",
        |l: &ResultLine| l.key.as_str(),
        |obj, _| line_of(obj, order),
    )
}

/// Puts a task run's `results.jsonl` on the rows of its report: each row's
/// result for the task mode's grid, and a note per line that could not be
/// read (or that names a sample × model the report does not have).
pub fn attach(data: &mut ViewData, file: &str, bytes: &[u8]) {
    let (lines, errors) = read_results(file, bytes, &data.metrics);
    let index = data.row_index();
    let mut results: Vec<Option<SampleResult>> = vec![None; data.rows.len()];
    let mut inputs: Vec<Option<Rc<SampleInput>>> = vec![None; data.rows.len()];
    // One input per sample, shared by its models' rows.
    let mut by_sample: HashMap<String, Rc<SampleInput>> = HashMap::new();
    let mut unknown = 0;
    for l in lines {
        let id = super::answer_id(&l.sample_id, l.result.repeat.map(Value::from).as_ref());
        match index.get(&(l.model.as_deref(), id.as_str())) {
            Some(&i) => {
                results[i] = Some(l.result);
                let shared = by_sample
                    .entry(l.sample_id)
                    .or_insert_with(|| Rc::new(l.input))
                    .clone();
                inputs[i] = Some(shared);
            }
            None => unknown += 1,
        }
    }
    super::note_lines(data, file, &errors, unknown, "a sample × model");
    data.look = Look::Task(Rc::new(TaskLook {
        source: Some(file.to_string()),
        results,
        inputs,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::report::build;
    use crate::task::testing::fixture;

    #[test]
    fn results_jsonl_reads_back_as_the_grid_held_it() {
        let f = fixture();
        let text = f.results_jsonl();
        let order: Vec<String> = f.task.metrics.iter().map(|m| m.name.clone()).collect();
        let (lines, errors) = read_results("results.jsonl", text.as_bytes(), &order);
        assert!(errors.is_empty(), "{errors:?}");
        let live: Vec<(&str, &SampleResult)> = f
            .scored
            .models
            .iter()
            .flat_map(|m| m.results.iter().map(move |r| (m.model.as_str(), r)))
            .collect();
        assert_eq!(lines.len(), live.len());
        let prompts = &f.prompts;
        for (l, (model, r)) in lines.iter().zip(&live) {
            assert_eq!(l.model.as_deref(), Some(*model));
            let mut want = (*r).clone();
            want.index = 0;
            assert_eq!(l.result, want, "{model}/{}", l.sample_id);
            // The sample as read and the prompt the run rendered for it.
            let sample = &f.data.samples[r.index].sample;
            assert_eq!(l.input.fields, sample.fields, "{}", l.sample_id);
            match &prompts[r.index] {
                Ok(m) => {
                    assert_eq!(l.input.messages.as_ref(), Some(m), "{}", l.sample_id);
                    assert!(m.iter().any(|x| x.role == "user" && !x.content.is_empty()));
                }
                Err(e) => assert_eq!(l.input.prompt_error.as_ref(), Some(e)),
            }
        }
    }

    #[test]
    fn a_line_with_messages_that_are_not_messages_is_reported_at_the_field() {
        let f = fixture();
        let text = f.results_jsonl();
        let first = text.lines().next().unwrap_or_default();
        let mut v: Value = serde_json::from_str(first).expect("a results line");
        v["messages"] = serde_json::json!([{"role": 1}]);
        let bad = format!("{v}\n");
        let (lines, errors) = read_results("results.jsonl", bad.as_bytes(), &[]);
        assert!(lines.is_empty());
        assert_eq!(errors.len(), 1);
        let e = errors[0].to_string();
        assert!(
            e.contains("results.jsonl:1") && e.contains("messages"),
            "{e}"
        );
    }

    #[test]
    fn a_report_with_its_results_gives_each_row_its_result_and_notes_bad_lines() {
        let f = fixture();
        let report = build(&f.input());
        let text = f.results_jsonl();
        let mut lines: Vec<&str> = text.lines().collect();
        let broken = lines[1].replacen("\"status\":\"ok\"", "\"status\":\"fine\"", 1);
        lines[1] = &broken;
        lines.insert(2, "{not json");
        let bad = lines.join("\n");
        let mut data = crate::view::from_report(&report, "report.json");
        assert!(matches!(&data.look, Look::Task(t) if t.results.is_empty()));
        attach(&mut data, "results.jsonl", bad.as_bytes());
        let with: Vec<bool> = (0..data.rows.len())
            .map(|i| data.task_result(i).is_some())
            .collect();
        assert_eq!(with.iter().filter(|w| **w).count(), lines.len() - 2);
        let row = data
            .rows
            .iter()
            .position(|r| r.id == "S1" && r.model.as_deref() == Some("m1"))
            .expect("S1 m1");
        let r = data.task_result(row).expect("S1 m1 result");
        assert_eq!(r.parsed.fields[0].field, "sentiment");
        assert_eq!(
            r.scores.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            data.metrics
                .iter()
                .map(String::as_str)
                .filter(|m| r.scores.iter().any(|(n, _)| n == m))
                .collect::<Vec<_>>(),
            "metrics in the report's order"
        );
        assert_eq!(data.notes.len(), 2, "{:?}", data.notes);
        assert!(
            data.notes[0].starts_with("results.jsonl:2: "),
            "{}",
            data.notes[0]
        );
        assert!(
            data.notes[1].starts_with("results.jsonl:3: "),
            "{}",
            data.notes[1]
        );
    }
}
