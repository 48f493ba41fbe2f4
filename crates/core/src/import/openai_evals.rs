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
use super::ImportError;
use crate::Usage;
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) fn read_api(
    c: &mut Collect,
    run: Option<(&str, &[u8])>,
    items: &[(&str, &[u8])],
) -> Result<(), ImportError> {
    let mut model = None;
    let mut run_doc = None;
    if let Some((name, bytes)) = run {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => {
                model = v.get("model").and_then(Value::as_str).map(str::to_string);
                c.run_id = v.get("id").and_then(Value::as_str).map(str::to_string);
                c.dataset = v.get("name").and_then(Value::as_str).map(str::to_string);
                c.started_at_ms = v.get("created_at").and_then(Value::as_u64).map(|s| s * 1000);
                if let Some(e) = v.get("eval_id") {
                    c.settings.insert("source_eval_id".into(), e.clone());
                }
                run_doc = Some(v);
            }
            Err(e) => c.problem(name, e.line(), None, format!("{e}: expected an Evals API run object; the items are read without the run's counts")),
        }
    }
    if items.is_empty() {
        return Err(ImportError::Unreadable {
            file: run.map_or_else(String::new, |r| r.0.to_string()),
            message: "no output items beside the run: save `GET /v1/evals/{eval_id}/runs/{run_id}/output_items` (every page) and import it with the run".into(),
        });
    }
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
        if v.get("has_more").and_then(Value::as_bool) == Some(true) {
            c.problem(name, 0, Some("has_more"), "true: this page is not the last; save every page (`after=last_id`) and import them together".into());
        }
        let list = v.get("data").cloned().unwrap_or(v);
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

fn api_item(c: &mut Collect, file: &str, line: usize, item: &Value, run_model: Option<&str>) {
    let Some(id) = item.get("datasource_item_id").and_then(id_text) else {
        c.problem(
            file,
            line,
            Some("datasource_item_id"),
            format!(
                "missing in item {}: expected the dataset row's number (skipped)",
                item.get("id").and_then(Value::as_str).unwrap_or("?")
            ),
        );
        return;
    };
    let sample = item.get("sample").unwrap_or(&Value::Null);
    let model = run_model
        .or_else(|| sample.get("model").and_then(Value::as_str))
        .unwrap_or("unknown")
        .to_string();
    c.model(&model, &model);
    let error = sample
        .get("error")
        .filter(|e| {
            e.get("message")
                .and_then(Value::as_str)
                .is_some_and(|m| !m.is_empty())
        })
        .map(|e| {
            let code = e.get("code").and_then(Value::as_str).unwrap_or("");
            let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
            format!("{code}: {msg}")
                .trim_start_matches(": ")
                .to_string()
        });
    let mut verdicts = Vec::new();
    if let Some(results) = item.get("results").and_then(Value::as_array) {
        for r in results {
            let Some(name) = r.get("name").and_then(Value::as_str) else {
                c.problem(
                    file,
                    line,
                    Some("results[].name"),
                    format!("missing in item {id}: a grader's result without its name (left out)"),
                );
                continue;
            };
            if let Some(p) = r.get("passed").and_then(Value::as_bool) {
                verdicts.push(
                    Verdict::new(name, f64::from(u8::from(p)))
                        .with("source_score", r.get("score").cloned().unwrap_or_default()),
                );
            }
            if let Some(s) = r.get("score").and_then(number) {
                verdicts.push(Verdict::new(format!("{name}/score"), s));
            }
        }
    }
    if error.is_none() {
        if let Some(status) = item.get("status").and_then(Value::as_str) {
            verdicts.push(Verdict::new(
                "passed",
                f64::from(u8::from(status == "pass")),
            ));
        }
    }
    let target = item
        .pointer("/datasource_item/ideal")
        .or_else(|| item.pointer("/datasource_item/expected"))
        .or_else(|| item.pointer("/datasource_item/reference"))
        .map(|t| match t {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    let usage = sample
        .get("usage")
        .filter(|u| u.is_object())
        .map(|u| Usage {
            prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
            completion_tokens: u
                .get("completion_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            reasoning_tokens: None,
            timings: None,
        });
    c.sample(
        Sample {
            id,
            model,
            input: sample
                .get("input")
                .and_then(input_text)
                .or_else(|| item.pointer("/datasource_item/input").and_then(input_text)),
            answer: sample
                .get("output")
                .and_then(|o| o.get(0))
                .and_then(|m| m.get("content"))
                .and_then(content_text),
            target,
            error,
            usage,
            ..Sample::default()
        },
        verdicts,
    );
}

fn api_figures(c: &mut Collect, run: &Value) {
    let model = run.get("model").and_then(Value::as_str);
    if let Some(rc) = run.get("result_counts") {
        let n = |k: &str| rc.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        for k in ["total", "errored", "failed", "passed"] {
            c.aggregate(model, None, &format!("result_counts.{k}"), n(k), false);
        }
        if n("passed") + n("failed") > 0.0 {
            c.aggregate(
                model,
                Some("passed"),
                "result_counts.passed / (passed + failed)",
                n("passed") / (n("passed") + n("failed")),
                true,
            );
        }
    }
    if let Some(per) = run
        .get("per_testing_criteria_results")
        .and_then(Value::as_array)
    {
        for p in per {
            let Some(name) = p.get("testing_criteria").and_then(Value::as_str) else {
                continue;
            };
            let (ok, bad) = (
                p.get("passed").and_then(Value::as_f64).unwrap_or(0.0),
                p.get("failed").and_then(Value::as_f64).unwrap_or(0.0),
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
    }
    if let Some(s) = run
        .get("status")
        .and_then(Value::as_str)
        .filter(|s| *s != "completed")
    {
        c.settings.insert("source_status".into(), Value::from(s));
    }
}

pub(super) fn read_log(c: &mut Collect, file: &str, bytes: &[u8]) -> Result<(), ImportError> {
    let mut model = String::from("unknown");
    let mut final_report: Option<Value> = None;
    // sample_id → (sample, verdicts), in first-seen order.
    let mut samples: BTreeMap<String, (usize, Sample, Vec<Verdict>)> = BTreeMap::new();
    let mut spec_seen = false;
    for (n, v) in json_lines(bytes) {
        let v = match v {
            Ok(v) => v,
            Err(e) => {
                c.problem(
                    file,
                    n,
                    None,
                    format!("{e}: expected one JSON object per line (skipped)"),
                );
                continue;
            }
        };
        if let Some(spec) = v.get("spec") {
            spec_seen = true;
            if let Some(m) = spec.pointer("/completion_fns/0").and_then(Value::as_str) {
                model = m.to_string();
            }
            c.run_id = spec
                .get("run_id")
                .and_then(Value::as_str)
                .map(str::to_string);
            c.dataset = spec
                .get("eval_name")
                .and_then(Value::as_str)
                .map(str::to_string);
            c.version = spec
                .pointer("/run_config/eval_spec/cls")
                .and_then(Value::as_str)
                .map(|cls| format!("eval class {cls}"));
            continue;
        }
        if let Some(r) = v.get("final_report") {
            final_report = Some(r.clone());
            continue;
        }
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            c.problem(
                file,
                n,
                Some("type"),
                "missing: expected an event (`sampling`, `match`, `metrics`, ...) (skipped)".into(),
            );
            continue;
        };
        let Some(id) = v.get("sample_id").and_then(id_text) else {
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
        let data = v.get("data").unwrap_or(&Value::Null);
        match kind {
            "sampling" => {
                entry.1.input = data.get("prompt").and_then(input_text);
                entry.1.answer = match data.get("sampled") {
                    Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(str::to_string),
                    Some(Value::String(s)) => Some(s.clone()),
                    _ => None,
                };
            }
            "match" => {
                if let Some(ok) = data.get("correct").and_then(Value::as_bool) {
                    entry.2.push(
                        Verdict::new("accuracy", f64::from(u8::from(ok)))
                            .with(
                                "expected",
                                data.get("expected").cloned().unwrap_or_default(),
                            )
                            .with("picked", data.get("picked").cloned().unwrap_or_default()),
                    );
                }
                if entry.1.target.is_none() {
                    entry.1.target = data.get("expected").map(|e| match e {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                }
            }
            "metrics" => {
                if let Value::Object(m) = data {
                    for (k, x) in m {
                        if let Some(x) = number(x) {
                            entry.2.push(Verdict::new(k.clone(), x));
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
        Some(Value::Object(r)) => {
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
