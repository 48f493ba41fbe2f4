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
use super::typed::{element, Field, Rest};
use super::ImportError;
use crate::dataset::file_name;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// lm-eval's `results_<date>.json`: the parts this reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ResultsDoc {
    model_name: Field<String>,
    config: Field<RunConfig>,
    lm_eval_version: Field<String>,
    date: Option<Value>,
    git_hash: Field<String>,
    /// Each task's figures, by name (numbers, and a few texts).
    results: Field<BTreeMap<String, Field<BTreeMap<String, Value>>>>,
    groups: Field<BTreeMap<String, IgnoredAny>>,
    #[serde(rename = "n-samples")]
    n_samples: Field<BTreeMap<String, Field<NSamples>>>,
    /// Only whether it is there (it is not carried).
    configs: Option<IgnoredAny>,
    #[serde(flatten)]
    rest: Rest,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RunConfig {
    model: Field<String>,
    model_args: Field<ModelArgs>,
}

/// `model_args` as lm-eval writes it: the command line's
/// `pretrained=...,dtype=...`, or (0.4.5 and later) an object.
#[derive(Deserialize)]
#[serde(untagged)]
enum ModelArgs {
    Text(String),
    Object {
        #[serde(default)]
        pretrained: Field<String>,
    },
}

impl ModelArgs {
    fn pretrained(&self) -> Option<&str> {
        match self {
            ModelArgs::Text(a) => a.split(',').find_map(|kv| kv.strip_prefix("pretrained=")),
            ModelArgs::Object { pretrained } => pretrained.ok().map(String::as_str),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NSamples {
    original: Field<u64>,
    effective: Field<u64>,
}

/// One line of `samples_<task>_<date>.jsonl`: one document and filter. The
/// metrics' values are top-level fields named by `metrics`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SampleLine {
    doc_id: Field<u64>,
    filter: Field<String>,
    metrics: Field<Vec<Field<String>>>,
    target: Option<Value>,
    arguments: Field<Arguments>,
    /// Passed on as written (text for a generation, numbers for a
    /// loglikelihood task).
    filtered_resps: Option<Value>,
    #[serde(flatten)]
    rest: Rest,
}

/// A line's requests: `{gen_args_0: {arg_0, ...}, ...}` (0.4.3 and later)
/// or `[[arg_0, ...], ...]` (before).
#[derive(Deserialize)]
#[serde(untagged)]
enum Arguments {
    Listed(Vec<Field<Vec<Field<String>>>>),
    Named {
        #[serde(default)]
        gen_args_0: Field<Request>,
    },
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Request {
    arg_0: Field<String>,
}

pub(super) fn read(
    c: &mut Collect,
    samples: &[(&str, &[u8])],
    results: &[(&str, &[u8])],
) -> Result<(), ImportError> {
    let mut model = String::from("unknown");
    let mut model_id = String::from("unknown");
    let mut doc: Option<(String, ResultsDoc)> = None;
    if let Some((name, bytes)) = results.first() {
        let parsed = serde_json::from_slice::<Value>(bytes)
            .map_err(|e| {
                (
                    e.line(),
                    format!("{e}: expected lm-eval's results_<date>.json"),
                )
            })
            .and_then(|v| {
                element::<ResultsDoc>(&v, "lm-eval's results_<date>.json (an object)")
                    .map_err(|e| (0, e))
            });
        match parsed {
            Ok(v) => {
                c.unread("results_*.json", v.rest.keys());
                let config = v.config.ok();
                if let Some(m) = v.model_name.ok() {
                    model = m.clone();
                } else if let Some(p) = config
                    .and_then(|c| c.model_args.ok())
                    .and_then(ModelArgs::pretrained)
                {
                    model = p.to_string();
                }
                model_id = match config.and_then(|c| c.model.ok()) {
                    Some(kind) => format!("{kind}:{model}"),
                    None => model.clone(),
                };
                doc = Some((name.to_string(), v));
            }
            Err((line, e)) => c.problem(
                name,
                line,
                Some("results"),
                format!("{e}; the samples are read without lm-eval's own figures"),
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
        let parsed = v
            .map_err(|e| format!("{e}: expected one JSON object per line (skipped)"))
            .and_then(|v| {
                element::<SampleLine>(&v, "one JSON object per line (skipped)").map(|l| (v, l))
            });
        let (v, line) = match parsed {
            Ok(p) => p,
            Err(e) => {
                c.problem(name, n, None, e);
                continue;
            }
        };
        let Some(doc_id) = line.doc_id.ok().copied() else {
            c.problem(
                name,
                n,
                Some("doc_id"),
                "missing: expected the document's number (skipped)".into(),
            );
            continue;
        };
        let filter = line.filter.ok().map_or("none", String::as_str);
        let Some(metrics) = line.metrics.ok() else {
            c.problem(
                name,
                n,
                Some("metrics"),
                "missing: expected the list of the line's metric names (skipped)".into(),
            );
            continue;
        };
        let metrics: Vec<&String> = metrics.iter().filter_map(Field::ok).collect();
        // The metrics' values are read below: the rest is unread.
        c.unread(
            "a samples line",
            line.rest.keys().filter(|k| !metrics.contains(k)),
        );
        let entry = docs.entry(doc_id).or_insert_with(|| {
            order.push(doc_id);
            (
                Sample {
                    id: format!("{task}/{doc_id}"),
                    model: model.to_string(),
                    input: context(&line),
                    answer: None,
                    target: line
                        .target
                        .as_ref()
                        .map(|t| id_text(t).unwrap_or_else(|| t.to_string())),
                    tags: vec![task.clone()],
                    ..Sample::default()
                },
                Vec::new(),
            )
        });
        if entry.0.answer.is_none() {
            entry.0.answer = line.filtered_resps.as_ref().and_then(answer);
        }
        // A metric's value is the line's field of that name.
        let Value::Object(fields) = &v else { continue };
        for m in metrics {
            match fields.get(m.as_str()).and_then(number) {
                Some(x) => entry
                    .1
                    .push(Verdict::new(format!("{task}/{m},{filter}"), x).with(
                        "filtered_resps",
                        line.filtered_resps.clone().unwrap_or_default(),
                    )),
                None => c.problem(
                    name,
                    n,
                    Some(m),
                    format!(
                        "the metric `{m}` the line names has no number (it has {}); left out",
                        fields
                            .get(m.as_str())
                            .map_or("nothing".to_string(), |x| x.to_string())
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
fn context(line: &SampleLine) -> Option<String> {
    let first = match line.arguments.ok()? {
        Arguments::Named { gen_args_0 } => gen_args_0.ok()?.arg_0.ok(),
        Arguments::Listed(requests) => requests.first()?.ok()?.first()?.ok(),
    };
    first.cloned()
}

/// The filtered answer, when it is text (a generation); a loglikelihood
/// task's answers are numbers kept in the score's detail.
fn answer(f: &Value) -> Option<String> {
    match f {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => match a.first() {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn figures(c: &mut Collect, file: &str, v: &ResultsDoc, model: &str) {
    c.version = v.lm_eval_version.ok().cloned();
    if let Some(d) = &v.date {
        c.settings.insert("source_date".into(), d.clone());
    }
    if let Some(h) = v.git_hash.ok() {
        c.settings.insert("source_git_hash".into(), json!(h));
    }
    let Some(tasks) = v.results.ok() else {
        c.problem(
            file,
            0,
            Some("results"),
            "missing: expected lm-eval's figures per task; the samples are kept".into(),
        );
        return;
    };
    let groups: Vec<&String> = v
        .groups
        .ok()
        .map(|g| g.keys().collect())
        .unwrap_or_default();
    for (task, figs) in tasks {
        let Some(figs) = figs.ok() else { continue };
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
    for (task, counts) in v.n_samples.ok().into_iter().flatten() {
        let Some(counts) = counts.ok() else { continue };
        if let (Some(o), Some(e)) = (counts.original.ok(), counts.effective.ok()) {
            if e < o {
                c.settings.insert(
                    format!("source_limit_{task}"),
                    json!(format!("{e} of {o} documents (--limit)")),
                );
            }
        }
    }
    if v.configs.is_some() {
        c.not_carried("each task's config (prompt template, few-shot settings, metric list) of results_*.json");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::typed::seen::{listed, problems};
    use crate::import::Tool;

    #[test]
    fn an_unknown_top_level_field_of_a_samples_line_is_tolerated_and_listed() {
        let lines = [
            json!({"doc_id": 0, "target": "0", "filter": "none", "metrics": ["acc"], "acc": 1.0,
                   "arguments": {"gen_args_0": {"arg_0": "Q?", "arg_1": " A"}},
                   "filtered_resps": [["-1.0", "True"]], "doc": {"q": "Q?"}, "shiny": 1}),
            json!({"doc_id": 1, "target": 2, "filter": "none", "metrics": ["acc"], "acc": 0.0,
                   "arguments": [["Q2?", " B"]], "doc_hash": "abc"}),
            json!(["not", "a", "line"]),
        ]
        .map(|l| l.to_string())
        .join("\n");
        let results = json!({
            "results": {"tiny": {"acc,none": 0.5, "alias": "tiny"}},
            "config": {"model": "hf", "model_args": {"pretrained": "org/lm"}},
            "brand_new": {},
        })
        .to_string();
        let samples_name = "samples_tiny_2026-01-01T00-00-00.jsonl";
        let mut c = Collect::new(Tool::LmEval, vec![samples_name.into()]);
        let read_ok = read(
            &mut c,
            &[(samples_name, lines.as_bytes())],
            &[("results_2026.json", results.as_bytes())],
        )
        .is_ok();
        assert!(read_ok);
        let r = c.finish().report;
        let listed = listed(&r, "fields of");
        assert_eq!(
            listed,
            [
                "fields of a samples line this import does not read: `doc`, `doc_hash`, `shiny`",
                "fields of results_*.json this import does not read: `brand_new`",
            ]
        );
        let p = problems(&r);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains(":3") && p[0].contains("an array: expected one JSON object"),
            "{p:?}"
        );
        assert_eq!(
            r.scores
                .iter()
                .filter(|s| s.metric == "tiny/acc,none")
                .count(),
            2
        );
        // the object model_args' pretrained, and both shapes of arguments
        assert_eq!(
            r.report.experiment.run_config["models"][0]["id"],
            "hf:org/lm"
        );
        assert_eq!(r.cases.len(), 2);
        let hashes: Vec<&Value> = r.scores.iter().map(|s| &s.detail["input_sha256"]).collect();
        let want = [
            json!(crate::import::input_hash("Q?")),
            json!(crate::import::input_hash("Q2?")),
        ];
        assert_eq!(hashes, want.iter().collect::<Vec<_>>());
    }
}
