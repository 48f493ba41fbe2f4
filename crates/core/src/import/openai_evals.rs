//! OpenAI Evals: a run of the Evals API (`GET /v1/evals/{id}/runs/{run}`)
//! with its output items (`.../output_items`, pages of `eval.run.output_item`
//! as the API returns them, or the items one per line), and the record log of
//! the open-source `oaieval` (JSONL: `spec`, events, `final_report`).
//!
//! API run:
//! - id: the item's `datasource_item_id`; model: the run's `model` (else the
//!   sample's);
//! - metrics: each grader's `passed` as 0/1 under its `name`, its `score`
//!   under `<name>/score`, and `passed` (the item's `status` is `pass`);
//! - the source's aggregates: `result_counts` and
//!   `per_testing_criteria_results`.
//!
//! oaieval: id `sample_id`; model: the spec's first completion function;
//! metric `accuracy` from each `match` event's `correct`, and every number of
//! a `metrics` event; aggregates: the `final_report`'s numbers.

use super::collect::{content_text, id_text, input_text, number, Collect, Sample, Verdict};
use super::cursor::json_lines;
use super::typed::{element, Field, Rest};
use super::ImportError;
use crate::Usage;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// An Evals API run object: the parts this reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Run {
    id: Field<String>,
    model: Field<String>,
    name: Field<String>,
    created_at: Field<u64>,
    eval_id: Option<Value>,
    status: Field<String>,
    result_counts: Field<ResultCounts>,
    per_testing_criteria_results: Field<Vec<Field<Criterion>>>,
    #[serde(flatten)]
    rest: Rest,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ResultCounts {
    total: Field<f64>,
    errored: Field<f64>,
    failed: Field<f64>,
    passed: Field<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Criterion {
    testing_criteria: Field<String>,
    passed: Field<f64>,
    failed: Field<f64>,
}

/// One `eval.run.output_item`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Item {
    id: Field<String>,
    /// A string or a number.
    datasource_item_id: Option<Value>,
    datasource_item: Field<DatasourceItem>,
    results: Field<Vec<Field<GraderResult>>>,
    status: Field<String>,
    sample: Field<ItemSample>,
    #[serde(flatten)]
    rest: Rest,
}

/// The dataset row, as far as this reads it (its other columns are not
/// carried, as the reader says).
#[derive(Deserialize, Default)]
#[serde(default)]
struct DatasourceItem {
    ideal: Option<Value>,
    expected: Option<Value>,
    reference: Option<Value>,
    input: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GraderResult {
    name: Field<String>,
    passed: Field<bool>,
    /// A number, or what the grader wrote.
    score: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ItemSample {
    model: Field<String>,
    /// A string or chat messages.
    input: Option<Value>,
    output: Field<Vec<Field<Message>>>,
    error: Field<ApiError>,
    usage: Field<ApiUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    content: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiError {
    code: Field<String>,
    message: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiUsage {
    prompt_tokens: Field<u64>,
    completion_tokens: Field<u64>,
}

/// A target as text: a string as it is, anything else as its JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn read_api(
    c: &mut Collect,
    run: Option<(&str, &[u8])>,
    items: &[(&str, &[u8])],
) -> Result<(), ImportError> {
    let mut run_doc = None;
    if let Some((name, bytes)) = run {
        let parsed = serde_json::from_slice::<Value>(bytes)
            .map_err(|e| (e.line(), format!("{e}: expected an Evals API run object")))
            .and_then(|v| element::<Run>(&v, "an Evals API run object").map_err(|e| (0, e)));
        match parsed {
            Ok(v) => {
                c.unread("the run object", v.rest.keys());
                c.run_id = v.id.ok().cloned();
                c.dataset = v.name.ok().cloned();
                c.started_at_ms = v.created_at.ok().map(|s| s * 1000);
                if let Some(e) = &v.eval_id {
                    c.settings.insert("source_eval_id".into(), e.clone());
                }
                run_doc = Some(v);
            }
            Err((line, e)) => c.problem(
                name,
                line,
                None,
                format!("{e}; the items are read without the run's counts"),
            ),
        }
    }
    if items.is_empty() {
        return Err(ImportError::Unreadable {
            file: run.map_or_else(String::new, |r| r.0.to_string()),
            message: "no output items beside the run: save `GET /v1/evals/{eval_id}/runs/{run_id}/output_items` (every page) and import it with the run".into(),
        });
    }
    let model = run_doc.as_ref().and_then(|r| r.model.ok()).cloned();
    for (name, bytes) in items {
        for (line, item) in item_values(c, name, bytes) {
            api_item(c, name, line, &item, model.as_deref());
        }
    }
    if let Some(v) = run_doc {
        api_figures(c, &v);
    }
    c.not_carried("the run's data_source (its template and sampling parameters) and each item's datasource_item beyond its ideal answer");
    Ok(())
}

/// The items of a file: a list page (`data`), an array, or one per line.
fn item_values(c: &mut Collect, name: &str, bytes: &[u8]) -> Vec<(usize, Value)> {
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        let list = match v {
            Value::Object(mut page) => {
                if page.get("has_more") == Some(&Value::Bool(true)) {
                    c.problem(name, 0, Some("has_more"), "true: this page is not the last; save every page (`after=last_id`) and import them together".into());
                }
                page.remove("data").unwrap_or(Value::Object(page))
            }
            other => other,
        };
        return match list {
            Value::Array(items) => items.into_iter().map(|i| (0, i)).collect(),
            one => vec![(0, one)],
        };
    }
    let mut out = Vec::new();
    for (n, v) in json_lines(bytes) {
        match v {
            Ok(v) => out.push((n, v)),
            Err(e) => c.problem(
                name,
                n,
                None,
                format!("{e}: expected one output item per line (skipped)"),
            ),
        }
    }
    out
}

fn api_item(c: &mut Collect, file: &str, line: usize, v: &Value, run_model: Option<&str>) {
    let item: Item = match element(v, "an output item (an object) (skipped)") {
        Ok(i) => i,
        Err(e) => {
            c.problem(file, line, None, e);
            return;
        }
    };
    c.unread("an output item", item.rest.keys());
    let Some(id) = item.datasource_item_id.as_ref().and_then(id_text) else {
        c.problem(
            file,
            line,
            Some("datasource_item_id"),
            format!(
                "missing in item {}: expected the dataset row's number (skipped)",
                item.id.ok().map_or("?", String::as_str)
            ),
        );
        return;
    };
    let sample = item.sample.ok();
    let model = run_model
        .or_else(|| sample.and_then(|s| s.model.ok()).map(String::as_str))
        .unwrap_or("unknown")
        .to_string();
    c.model(&model, &model);
    let error = sample
        .and_then(|s| s.error.ok())
        .filter(|e| e.message.ok().is_some_and(|m| !m.is_empty()))
        .map(|e| {
            let code = e.code.ok().map_or("", String::as_str);
            let msg = e.message.ok().map_or("", String::as_str);
            format!("{code}: {msg}")
                .trim_start_matches(": ")
                .to_string()
        });
    let mut verdicts = Vec::new();
    for r in item.results.ok().into_iter().flatten() {
        let r = r.ok();
        let Some(name) = r.and_then(|r| r.name.ok()) else {
            c.problem(
                file,
                line,
                Some("results[].name"),
                format!("missing in item {id}: a grader's result without its name (left out)"),
            );
            continue;
        };
        let Some(r) = r else { continue };
        if let Some(p) = r.passed.ok() {
            verdicts.push(
                Verdict::new(name, f64::from(u8::from(*p)))
                    .with("source_score", r.score.clone().unwrap_or_default()),
            );
        }
        if let Some(s) = r.score.as_ref().and_then(number) {
            verdicts.push(Verdict::new(format!("{name}/score"), s));
        }
    }
    if error.is_none() {
        if let Some(status) = item.status.ok() {
            verdicts.push(Verdict::new(
                "passed",
                f64::from(u8::from(status == "pass")),
            ));
        }
    }
    let row = item.datasource_item.ok();
    let target = row
        .and_then(|d| {
            d.ideal
                .as_ref()
                .or(d.expected.as_ref())
                .or(d.reference.as_ref())
        })
        .map(text_of);
    let usage = sample.and_then(|s| s.usage.ok()).map(|u| Usage {
        prompt_tokens: u.prompt_tokens.ok().copied().unwrap_or(0),
        completion_tokens: u.completion_tokens.ok().copied().unwrap_or(0),
        reasoning_tokens: None,
        timings: None,
    });
    c.sample(
        Sample {
            id,
            model,
            input: sample
                .and_then(|s| s.input.as_ref())
                .and_then(input_text)
                .or_else(|| row.and_then(|d| d.input.as_ref()).and_then(input_text)),
            answer: sample
                .and_then(|s| s.output.ok())
                .and_then(|o| o.first())
                .and_then(Field::ok)
                .and_then(|m| m.content.as_ref())
                .and_then(content_text),
            target,
            error,
            usage,
            ..Sample::default()
        },
        verdicts,
    );
}

fn api_figures(c: &mut Collect, run: &Run) {
    let model = run.model.ok().map(String::as_str);
    if let Some(rc) = run.result_counts.ok() {
        let n = |f: &Field<f64>| f.ok().copied().unwrap_or(0.0);
        for (k, f) in [
            ("total", &rc.total),
            ("errored", &rc.errored),
            ("failed", &rc.failed),
            ("passed", &rc.passed),
        ] {
            c.aggregate(model, None, &format!("result_counts.{k}"), n(f), false);
        }
        let (passed, failed) = (n(&rc.passed), n(&rc.failed));
        if passed + failed > 0.0 {
            c.aggregate(
                model,
                Some("passed"),
                "result_counts.passed / (passed + failed)",
                passed / (passed + failed),
                true,
            );
        }
    }
    let per = run.per_testing_criteria_results.ok();
    for p in per.into_iter().flatten().filter_map(Field::ok) {
        let Some(name) = p.testing_criteria.ok() else {
            continue;
        };
        let (ok, bad) = (
            p.passed.ok().copied().unwrap_or(0.0),
            p.failed.ok().copied().unwrap_or(0.0),
        );
        if ok + bad > 0.0 {
            c.aggregate(
                model,
                Some(name),
                &format!("per_testing_criteria_results[{name}].passed / (passed + failed)"),
                ok / (ok + bad),
                true,
            );
        }
    }
    if let Some(s) = run.status.ok().filter(|s| *s != "completed") {
        c.settings
            .insert("source_status".into(), Value::from(s.as_str()));
    }
}

/// One line of an oaieval record log: the spec, the final report, or an
/// event.
#[derive(Deserialize, Default)]
#[serde(default)]
struct LogLine {
    spec: Field<Spec>,
    final_report: Field<Map<String, Value>>,
    #[serde(rename = "type")]
    kind: Field<String>,
    /// A string or a number.
    sample_id: Option<Value>,
    /// What the event says, by its kind.
    data: Option<Value>,
    #[serde(flatten)]
    rest: Rest,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Spec {
    completion_fns: Field<Vec<Field<String>>>,
    run_id: Field<String>,
    eval_name: Field<String>,
    run_config: Field<RunConfig>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RunConfig {
    eval_spec: Field<EvalSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EvalSpec {
    cls: Field<String>,
}

/// A `sampling` event's data.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Sampled {
    prompt: Option<Value>,
    /// A string, or a list whose first is the answer.
    sampled: Option<Value>,
}

/// A `match` event's data.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Matched {
    correct: Field<bool>,
    expected: Option<Value>,
    picked: Option<Value>,
}

pub(super) fn read_log(c: &mut Collect, file: &str, bytes: &[u8]) -> Result<(), ImportError> {
    let mut model = String::from("unknown");
    let mut final_report: Option<Map<String, Value>> = None;
    // sample_id → (sample, verdicts), in first-seen order.
    let mut samples: BTreeMap<String, (usize, Sample, Vec<Verdict>)> = BTreeMap::new();
    let mut spec_seen = false;
    for (n, v) in json_lines(bytes) {
        let line = v
            .map_err(|e| format!("{e}: expected one JSON object per line (skipped)"))
            .and_then(|v| element::<LogLine>(&v, "one JSON object per line (skipped)"));
        let v = match line {
            Ok(v) => v,
            Err(e) => {
                c.problem(file, n, None, e);
                continue;
            }
        };
        c.unread("an oaieval log line", v.rest.keys());
        if v.spec.is_present() {
            spec_seen = true;
            let Some(spec) = v.spec.ok() else { continue };
            let first = spec.completion_fns.ok().and_then(|f| f.first());
            if let Some(m) = first.and_then(Field::ok) {
                model = m.clone();
            }
            c.run_id = spec.run_id.ok().cloned();
            c.dataset = spec.eval_name.ok().cloned();
            c.version = spec
                .run_config
                .ok()
                .and_then(|r| r.eval_spec.ok())
                .and_then(|e| e.cls.ok())
                .map(|cls| format!("eval class {cls}"));
            continue;
        }
        if v.final_report.is_present() {
            final_report = v.final_report.ok().cloned();
            continue;
        }
        let Some(kind) = v.kind.ok() else {
            c.problem(
                file,
                n,
                Some("type"),
                "missing: expected an event (`sampling`, `match`, `metrics`, ...) (skipped)".into(),
            );
            continue;
        };
        let Some(id) = v.sample_id.as_ref().and_then(id_text) else {
            continue;
        };
        let next = samples.len();
        let entry = samples.entry(id.clone()).or_insert_with(|| {
            (
                next,
                Sample {
                    id,
                    model: String::new(),
                    ..Sample::default()
                },
                Vec::new(),
            )
        });
        let data = v.data.unwrap_or(Value::Null);
        match kind.as_str() {
            "sampling" => {
                let d: Sampled = element(&data, "").unwrap_or_default();
                entry.1.input = d.prompt.as_ref().and_then(input_text);
                entry.1.answer = match d.sampled {
                    Some(Value::Array(a)) => a.into_iter().next().and_then(|x| match x {
                        Value::String(s) => Some(s),
                        _ => None,
                    }),
                    Some(Value::String(s)) => Some(s),
                    _ => None,
                };
            }
            "match" => {
                let d: Matched = element(&data, "").unwrap_or_default();
                if let Some(ok) = d.correct.ok() {
                    entry.2.push(
                        Verdict::new("accuracy", f64::from(u8::from(*ok)))
                            .with("expected", d.expected.clone().unwrap_or_default())
                            .with("picked", d.picked.clone().unwrap_or_default()),
                    );
                }
                if entry.1.target.is_none() {
                    entry.1.target = d.expected.as_ref().map(text_of);
                }
            }
            "metrics" => {
                if let Value::Object(m) = data {
                    for (k, x) in m {
                        if let Some(x) = number(&x) {
                            entry.2.push(Verdict::new(k, x));
                        }
                    }
                }
            }
            other => c.not_carried(format!("`{other}` events")),
        }
    }
    if !spec_seen {
        return Err(ImportError::Unreadable {
            file: file.into(),
            message:
                "no `spec` line: expected an oaieval record log (its first line is {\"spec\": ...})"
                    .into(),
        });
    }
    c.model(&model, &model);
    let mut ordered: Vec<(usize, Sample, Vec<Verdict>)> = samples.into_values().collect();
    ordered.sort_by_key(|(i, ..)| *i);
    for (_, mut s, v) in ordered {
        s.model = model.clone();
        c.sample(s, v);
    }
    match final_report {
        Some(r) => {
            for (k, x) in r {
                if let Some(x) = x.as_f64() {
                    c.aggregate(Some(&model), Some(&k), &format!("final_report.{k}"), x, k == "accuracy");
                }
            }
        }
        _ => c.problem(file, 0, Some("final_report"), "missing: the log has no final report (a run that did not finish?); the events are kept".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::typed::seen::{listed, problems};
    use crate::import::Tool;
    use serde_json::json;

    #[test]
    fn an_unknown_top_level_field_of_an_output_item_is_tolerated_and_listed() {
        let item = |id: u64, extra: Value| {
            let mut i = json!({
                "object": "eval.run.output_item",
                "id": format!("item-{id}"),
                "datasource_item_id": id,
                "datasource_item": {"input": "2+2?", "ideal": "4"},
                "status": "pass",
                "results": [{"name": "exact", "passed": true, "score": 1.0}],
                "sample": {"model": "gpt-4o-mini", "output": [{"role": "assistant", "content": "4"}]},
            });
            if let (Some(i), Value::Object(extra)) = (i.as_object_mut(), extra) {
                i.extend(extra);
            }
            i
        };
        let page = json!({"object": "list", "has_more": false, "data": [
            item(0, json!({"brand_new": 1})),
            item(1, json!({"results": 5})),
            json!("not an item"),
        ]});
        let bytes = page.to_string().into_bytes();
        let mut c = Collect::new(Tool::OpenAiEvals, vec!["items.json".into()]);
        let read_ok = read_api(&mut c, None, &[("items.json", &bytes)]).is_ok();
        assert!(read_ok);
        let r = c.finish().report;
        assert_eq!(
            listed(&r, "output item"),
            ["fields of an output item this import does not read: `brand_new`, `object`"]
        );
        let p = problems(&r);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("a string: expected an output item"), "{p:?}");
        assert_eq!(r.scores.iter().filter(|s| s.metric == "exact").count(), 1);
        assert_eq!(r.scores.iter().filter(|s| s.metric == "passed").count(), 2);
    }

    #[test]
    fn an_unknown_top_level_field_of_an_oaieval_line_is_tolerated_and_listed() {
        let log = [
            json!({"spec": {"completion_fns": ["gpt-4o-mini"], "run_id": "r1"}}),
            json!({"type": "match", "sample_id": "s.0", "data": {"correct": true, "expected": "Paris"}, "event_id": 0, "shiny": 1}),
            json!({"type": "match", "sample_id": "s.1", "data": {"correct": "yes"}}),
            json!(7),
            json!({"final_report": {"accuracy": 1.0}, "run_id": "r1"}),
        ]
        .map(|l| l.to_string())
        .join("\n");
        let mut c = Collect::new(Tool::OaiEval, vec!["log.jsonl".into()]);
        let read_ok = read_log(&mut c, "log.jsonl", log.as_bytes()).is_ok();
        assert!(read_ok);
        let r = c.finish().report;
        assert_eq!(
            listed(&r, "oaieval"),
            ["fields of an oaieval log line this import does not read: `event_id`, `run_id`, `shiny`"]
        );
        let p = problems(&r);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains(":4") && p[0].contains("a number: expected one JSON object"),
            "{p:?}"
        );
        assert_eq!(
            r.scores.iter().filter(|s| s.metric == "accuracy").count(),
            1
        );
    }
}
