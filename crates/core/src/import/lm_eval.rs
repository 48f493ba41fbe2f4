//! lm-evaluation-harness `--log_samples` output (0.4.x): one
//! `samples_<task>_<date>.jsonl` per task (one line per document and
//! filter) and the run's `results_<date>.json`.
//!
//! - id: `<task>/<doc_id>` (lm-eval's `doc_id` counts within a task);
//! - model: the results' `model_name` (else `config.model_args`'
//!   `pretrained=`), less an `org/` prefix is kept (it is the model's name);
//! - metrics: `<task>/<metric>,<filter>`, as lm-eval's results name them
//!   (`arc_easy/acc,none`, `gsm8k/exact_match,strict-match`);
//! - the source's aggregates: every figure of `results.<task>`; the plain
//!   metrics are means of the per-sample values, so evalpage's mean equals
//!   them (their `_stderr` is kept as is).

use super::collect::{id_text, number, Collect, Sample, Verdict};
use super::cursor::json_lines;
use super::ImportError;
use crate::dataset::file_name;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub(super) fn read(
    c: &mut Collect,
    samples: &[(&str, &[u8])],
    results: &[(&str, &[u8])],
) -> Result<(), ImportError> {
    let mut model = String::from("unknown");
    let mut model_id = String::from("unknown");
    let mut doc: Option<(String, Value)> = None;
    if let Some((name, bytes)) = results.first() {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => {
                if let Some(m) = v.get("model_name").and_then(Value::as_str) {
                    model = m.to_string();
                } else if let Some(p) = v
                    .pointer("/config/model_args")
                    .and_then(Value::as_str)
                    .and_then(|a| a.split(',').find_map(|kv| kv.strip_prefix("pretrained=")))
                {
                    model = p.to_string();
                }
                model_id = match v.pointer("/config/model").and_then(Value::as_str) {
                    Some(kind) => format!("{kind}:{model}"),
                    None => model.clone(),
                };
                doc = Some((name.to_string(), v));
            }
            Err(e) => c.problem(
                name,
                e.line(),
                Some("results"),
                format!("{e}: expected lm-eval's results_<date>.json; the samples are read without lm-eval's own figures"),
            ),
        }
    }
    if results.len() > 1 {
        c.not_carried(format!(
            "{} more results files (the first, {}, is read)",
            results.len() - 1,
            results[0].0
        ));
    }
    if samples.is_empty() {
        return Err(ImportError::Unreadable {
            file: results.first().map_or_else(String::new, |r| r.0.to_string()),
            message: "no samples_<task>_<date>.jsonl beside it: run lm-eval with --log_samples and import its samples files with the results file".into(),
        });
    }
    c.model(&model, &model_id);
    c.dataset = Some(
        samples
            .iter()
            .map(|(n, _)| task_of(n))
            .collect::<Vec<_>>()
            .join(","),
    );
    for (name, bytes) in samples {
        read_samples(c, name, bytes, &model);
    }
    if let Some((name, v)) = doc {
        figures(c, &name, &v, &model);
    }
    c.not_carried("each document's `doc` as a whole, the raw `resps` beside the filtered ones, and the hashes lm-eval writes (doc_hash, prompt_hash, target_hash)");
    Ok(())
}

/// `samples_<task>_<date>.jsonl` → `<task>`.
fn task_of(name: &str) -> String {
    let base = file_name(name);
    let stem = base
        .strip_prefix("samples_")
        .unwrap_or(base)
        .trim_end_matches(".jsonl");
    match stem.rsplit_once('_') {
        Some((task, date)) if date.starts_with(|c: char| c.is_ascii_digit()) => task.to_string(),
        _ => stem.to_string(),
    }
}

fn read_samples(c: &mut Collect, name: &str, bytes: &[u8], model: &str) {
    let task = task_of(name);
    // doc_id → (first line, sample, verdicts): a document has one line per filter.
    let mut docs: BTreeMap<u64, (Sample, Vec<Verdict>)> = BTreeMap::new();
    let mut order: Vec<u64> = Vec::new();
    for (n, v) in json_lines(bytes) {
        let v = match v {
            Ok(v) => v,
            Err(e) => {
                c.problem(
                    name,
                    n,
                    None,
                    format!("{e}: expected one JSON object per line (skipped)"),
                );
                continue;
            }
        };
        let Some(doc_id) = v.get("doc_id").and_then(Value::as_u64) else {
            c.problem(
                name,
                n,
                Some("doc_id"),
                "missing: expected the document's number (skipped)".into(),
            );
            continue;
        };
        let filter = v.get("filter").and_then(Value::as_str).unwrap_or("none");
        let Some(metrics) = v.get("metrics").and_then(Value::as_array) else {
            c.problem(
                name,
                n,
                Some("metrics"),
                "missing: expected the list of the line's metric names (skipped)".into(),
            );
            continue;
        };
        let entry = docs.entry(doc_id).or_insert_with(|| {
            order.push(doc_id);
            (
                Sample {
                    id: format!("{task}/{doc_id}"),
                    model: model.to_string(),
                    input: context(&v),
                    answer: None,
                    target: v
                        .get("target")
                        .and_then(|t| id_text(t).or_else(|| Some(t.to_string()))),
                    tags: vec![task.clone()],
                    ..Sample::default()
                },
                Vec::new(),
            )
        });
        if entry.0.answer.is_none() {
            entry.0.answer = answer(&v);
        }
        for m in metrics.iter().filter_map(Value::as_str) {
            match v.get(m).and_then(number) {
                Some(x) => entry
                    .1
                    .push(Verdict::new(format!("{task}/{m},{filter}"), x).with(
                        "filtered_resps",
                        v.get("filtered_resps").cloned().unwrap_or_default(),
                    )),
                None => c.problem(
                    name,
                    n,
                    Some(m),
                    format!(
                        "the metric `{m}` the line names has no number (it has {}); left out",
                        v.get(m).map_or("nothing".to_string(), |x| x.to_string())
                    ),
                ),
            }
        }
    }
    for id in order {
        if let Some((s, verdicts)) = docs.remove(&id) {
            c.sample(s, verdicts);
        }
    }
}

/// The prompt: the first request's first argument (`arguments.gen_args_0.arg_0`
/// in 0.4.3 and later, `arguments[0][0]` before).
fn context(v: &Value) -> Option<String> {
    let a = v.get("arguments")?;
    let first = a
        .get("gen_args_0")
        .and_then(|g| g.get("arg_0"))
        .or_else(|| a.get(0).and_then(|x| x.get(0)))?;
    first.as_str().map(str::to_string)
}

/// The filtered answer, when it is text (a generation); a loglikelihood
/// task's answers are numbers kept in the score's detail.
fn answer(v: &Value) -> Option<String> {
    let f = v.get("filtered_resps")?;
    f.as_str()
        .or_else(|| f.get(0).and_then(Value::as_str))
        .map(str::to_string)
}

fn figures(c: &mut Collect, file: &str, v: &Value, model: &str) {
    c.version = v
        .get("lm_eval_version")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(d) = v.get("date") {
        c.settings.insert("source_date".into(), d.clone());
    }
    if let Some(h) = v.get("git_hash").and_then(Value::as_str) {
        c.settings.insert("source_git_hash".into(), json!(h));
    }
    let Some(Value::Object(tasks)) = v.get("results") else {
        c.problem(
            file,
            0,
            Some("results"),
            "missing: expected lm-eval's figures per task; the samples are kept".into(),
        );
        return;
    };
    let groups: Vec<&String> = v
        .get("groups")
        .and_then(Value::as_object)
        .map(|g| g.keys().collect())
        .unwrap_or_default();
    for (task, figs) in tasks {
        let Value::Object(figs) = figs else { continue };
        for (key, value) in figs {
            let Some(x) = number(value).filter(|_| !value.is_string()) else {
                continue;
            };
            let is_mean = !key.contains("_stderr") && key.contains(',') && !groups.contains(&task);
            c.aggregate(
                Some(model),
                Some(&format!("{task}/{key}")),
                &format!("results.{task}.{key}"),
                x,
                is_mean,
            );
        }
    }
    if let Some(Value::Object(n)) = v.get("n-samples") {
        for (task, counts) in n {
            let (o, e) = (
                counts.get("original").and_then(Value::as_u64),
                counts.get("effective").and_then(Value::as_u64),
            );
            if let (Some(o), Some(e)) = (o, e) {
                if e < o {
                    c.settings.insert(
                        format!("source_limit_{task}"),
                        json!(format!("{e} of {o} documents (--limit)")),
                    );
                }
            }
        }
    }
    if v.get("configs").is_some() {
        c.not_carried("each task's config (prompt template, few-shot settings, metric list) of results_*.json");
    }
}
