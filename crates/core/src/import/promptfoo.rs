//! promptfoo's output JSON (`promptfoo eval -o out.json`, results version 2
//! and 3, as 0.121 writes it): one sample per test × prompt × provider in
//! `results.results`, read an element at a time.
//!
//! - id: the test's `description`, else `test-N` for its Nth test
//!   (`testIdx + 1`); a description met twice gets ` (test-N)`.
//! - model: the provider's `label`, else its id less the provider prefix;
//!   with several prompts, ` · ` and the prompt's label.
//! - metrics: `pass` (the test's `success`, as promptfoo counts a pass),
//!   `score` (its `score`), and each named score (`namedScores`).
//! - the source's aggregates: each prompt × provider's `metrics` (pass rate,
//!   mean score, named scores' means) and `results.stats`.

use super::collect::{content_text, input_text, number, short_model, Collect, Sample, Verdict};
use super::cursor::{find_array, Elements};
use super::ImportError;
use crate::Usage;
use serde_json::{json, Value};
use std::collections::HashSet;

/// The results versions this reads.
const VERSIONS: [u64; 2] = [2, 3];

pub(super) fn read(c: &mut Collect, file: &str, bytes: &[u8]) -> Result<(), ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ImportError::Unreadable {
        file: file.into(),
        message: format!("not UTF-8 text at byte {}", e.valid_up_to()),
    })?;
    let Some(open) = find_array(text, &["results", "results"]) else {
        return Err(ImportError::Unreadable {
            file: file.into(),
            message: "no `results.results` array: expected promptfoo's output JSON (`promptfoo eval -o out.json`)".into(),
        });
    };
    let mut reader = Reader::default();
    // The prompts (a few, before the results) say whether there are several.
    if let Some(p) = find_array(text, &["results", "prompts"]) {
        let mut ps = Elements::new(text, p);
        while let Some(Ok(v)) = ps.next_value() {
            if let Some(id) = v.get("id").and_then(Value::as_str) {
                reader.prompts.insert(id.to_string());
            }
        }
    }
    let mut el = Elements::new(text, open);
    while let Some(v) = el.next_value() {
        match v {
            Ok(r) => {
                reader.result(c, file, el.index, &r);
                if c.full() {
                    return Ok(());
                }
            }
            Err(e) => c.problem(
                file,
                super::cursor::line_of(text, el.pos),
                Some(&format!("results.results[{}]", el.index)),
                format!("{e}; the results before it are kept"),
            ),
        }
    }
    match el.rest() {
        Ok(doc) => reader.document(c, file, &doc),
        Err(e) => c.problem(
            file,
            super::cursor::line_of(text, text.len()),
            Some("results"),
            format!(
                "the rest of the file cannot be read ({e}); promptfoo's own totals are missing"
            ),
        ),
    }
    Ok(())
}

#[derive(Default)]
struct Reader {
    /// The distinct prompts' ids.
    prompts: HashSet<String>,
    seen: HashSet<(String, String)>,
}

impl Reader {
    fn result(&mut self, c: &mut Collect, file: &str, n: usize, r: &Value) {
        let at = |f: &str| format!("results.results[{}].{f}", n - 1);
        let Some(provider) = r.get("provider") else {
            c.problem(
                file,
                0,
                Some(&at("provider")),
                "missing: expected the provider of the result (an object with `id`)".into(),
            );
            return;
        };
        let pid = provider
            .get("id")
            .and_then(Value::as_str)
            .or_else(|| provider.as_str())
            .unwrap_or("unknown");
        let label = provider
            .get("label")
            .and_then(Value::as_str)
            .filter(|l| !l.trim().is_empty());
        let mut model = label.map_or_else(|| short_model(pid, ':'), str::to_string);
        if self.prompts.len() > 1 {
            if let Some(p) = prompt_label(r) {
                model = format!("{model} · {p}");
            }
        }
        c.model(&model, pid);
        let test_idx = r.get("testIdx").and_then(Value::as_u64);
        let test_name = format!("test-{}", test_idx.map_or(n as u64, |i| i + 1));
        let described = r
            .pointer("/testCase/description")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty());
        let mut id = described.map_or_else(|| test_name.clone(), str::to_string);
        if !self.seen.insert((model.clone(), id.clone())) {
            id = format!("{id} ({test_name})");
            self.seen.insert((model.clone(), id.clone()));
        }
        let response = r.get("response").unwrap_or(&Value::Null);
        let answer = response.get("output").and_then(|o| match o {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => content_text(other).or_else(|| Some(other.to_string())),
        });
        let input = r.pointer("/prompt/raw").and_then(Value::as_str).map(|raw| {
            serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_array)
                .and_then(|m| input_text(&m))
                .unwrap_or_else(|| raw.to_string())
        });
        let failure = r.get("failureReason").and_then(Value::as_u64);
        let error = r
            .get("error")
            .and_then(Value::as_str)
            .filter(|_| failure == Some(2) || answer.is_none())
            .or_else(|| response.get("error").and_then(Value::as_str))
            .map(str::to_string);
        let tokens = response
            .get("tokenUsage")
            .or_else(|| r.get("tokenUsage"))
            .filter(|t| t.get("prompt").is_some() || t.get("completion").is_some());
        let usage = tokens.map(|t| Usage {
            prompt_tokens: t.get("prompt").and_then(Value::as_u64).unwrap_or(0),
            completion_tokens: t.get("completion").and_then(Value::as_u64).unwrap_or(0),
            reasoning_tokens: t
                .pointer("/completionDetails/reasoning")
                .and_then(Value::as_u64),
            timings: None,
        });
        let grading = r.get("gradingResult").unwrap_or(&Value::Null);
        let assertions: Vec<Value> = grading
            .get("componentResults")
            .and_then(Value::as_array)
            .map(|cs| {
                cs.iter()
                    .map(|x| {
                        json!({
                            "type": x.pointer("/assertion/type"),
                            "metric": x.pointer("/assertion/metric"),
                            "pass": x.get("pass"),
                            "score": x.get("score"),
                            "reason": x.get("reason"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let reason = grading.get("reason").cloned().unwrap_or(Value::Null);
        let mut verdicts = Vec::new();
        match r.get("success").and_then(Value::as_bool) {
            Some(ok) => verdicts.push(
                Verdict::new("pass", f64::from(u8::from(ok)))
                    .with("reason", reason.clone())
                    .with("assertions", Value::Array(assertions)),
            ),
            None => c.problem(
                file,
                0,
                Some(&at("success")),
                "missing: expected true or false (the test's verdict); the result is kept without it".into(),
            ),
        }
        if let Some(s) = r.get("score").and_then(number) {
            verdicts.push(Verdict::new("score", s));
        }
        if let Some(Value::Object(named)) = r.get("namedScores") {
            for (k, v) in named {
                let Some(x) = number(v) else { continue };
                let metric = if k == "pass" || k == "score" {
                    format!("named:{k}")
                } else {
                    k.clone()
                };
                verdicts.push(Verdict::new(metric, x));
            }
        }
        if r.pointer("/testCase/vars")
            .is_some_and(|v| v.as_object().is_some_and(|o| !o.is_empty()))
        {
            if let Some(first) = verdicts.first_mut() {
                first.extra.insert(
                    "vars".into(),
                    r.pointer("/testCase/vars").cloned().unwrap_or_default(),
                );
            }
        }
        c.sample(
            Sample {
                id,
                model,
                input,
                answer,
                target: None,
                repeat: None,
                tags: Vec::new(),
                error,
                usage,
                latency_ms: r.get("latencyMs").and_then(Value::as_u64),
                cost: r.get("cost").and_then(Value::as_f64),
                calls: Vec::new(),
                trajectory: None,
            },
            verdicts,
        );
    }

    /// Everything but the results: the version, the run's id and time, and
    /// promptfoo's own totals.
    fn document(&mut self, c: &mut Collect, file: &str, doc: &Value) {
        let results = doc.get("results").unwrap_or(&Value::Null);
        match results.get("version").and_then(Value::as_u64) {
            Some(v) if VERSIONS.contains(&v) => {}
            Some(v) => c.problem(
                file,
                0,
                Some("results.version"),
                format!("version {v} is not one this reads (it reads {VERSIONS:?}); what could be read is kept"),
            ),
            None => c.problem(
                file,
                0,
                Some("results.version"),
                format!("missing: expected one of {VERSIONS:?}; what could be read is kept"),
            ),
        }
        c.version = doc
            .pointer("/metadata/promptfooVersion")
            .or_else(|| doc.get("version"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                results
                    .get("version")
                    .map(|v| format!("results version {v}"))
            });
        c.run_id = doc
            .get("evalId")
            .and_then(Value::as_str)
            .map(str::to_string);
        c.dataset = doc
            .pointer("/config/description")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(prompts) = results.get("prompts").and_then(Value::as_array) {
            for p in prompts {
                let pid = p
                    .get("provider")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                let mut model = label_for(doc, pid);
                if self.prompts.len() > 1 {
                    if let Some(l) = p.get("label").and_then(Value::as_str) {
                        model = format!("{model} · {}", l.chars().take(40).collect::<String>());
                    }
                }
                let model = Some(model);
                let Some(m) = p.get("metrics") else { continue };
                let count = |k: &str| m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                let (pass, fail, err) = (
                    count("testPassCount"),
                    count("testFailCount"),
                    count("testErrorCount"),
                );
                let total = pass + fail + err;
                if total > 0.0 {
                    let model = model.as_deref();
                    c.aggregate(
                        model,
                        Some("pass"),
                        "testPassCount / (pass + fail + error)",
                        pass / total,
                        true,
                    );
                    c.aggregate(
                        model,
                        Some("score"),
                        "metrics.score / tests",
                        count("score") / total,
                        true,
                    );
                    if let (Some(Value::Object(sums)), Some(counts)) =
                        (m.get("namedScores"), m.get("namedScoresCount"))
                    {
                        for (k, v) in sums {
                            let n = counts.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                            if let (Some(v), true) = (v.as_f64(), n > 0.0) {
                                c.aggregate(
                                    model,
                                    Some(k),
                                    &format!("namedScores.{k} / namedScoresCount.{k}"),
                                    v / n,
                                    true,
                                );
                            }
                        }
                    }
                    if let Some(cost) = m.get("cost").and_then(Value::as_f64) {
                        c.aggregate(model, None, "cost", cost, false);
                    }
                }
            }
        }
        if let Some(stats) = results.get("stats") {
            for k in ["successes", "failures", "errors"] {
                if let Some(v) = stats.get(k).and_then(Value::as_f64) {
                    c.aggregate(None, None, &format!("stats.{k}"), v, false);
                }
            }
        }
        if doc.get("config").is_some() {
            c.not_carried("config: the prompts' templates, the providers' settings and the tests' assertions as written (each result keeps its vars and its assertions' verdicts)");
        }
        if doc.get("shareableUrl").is_some_and(|v| !v.is_null()) {
            c.not_carried("shareableUrl");
        }
        c.not_carried("each assertion's own token use (gradingResult.tokensUsed) and the response's cache flag");
    }
}

/// A result's prompt label, when it has one.
fn prompt_label(r: &Value) -> Option<String> {
    r.pointer("/prompt/label")
        .and_then(Value::as_str)
        .map(|l| l.chars().take(40).collect())
}

/// The model name of a provider id, as the results name it: the config's
/// label for that id when it gives one.
fn label_for(doc: &Value, pid: &str) -> String {
    let providers = doc.pointer("/config/providers").and_then(Value::as_array);
    providers
        .into_iter()
        .flatten()
        .find(|p| p.get("id").and_then(Value::as_str) == Some(pid))
        .and_then(|p| p.get("label").and_then(Value::as_str))
        .filter(|l| !l.trim().is_empty())
        .map_or_else(|| short_model(pid, ':'), str::to_string)
}
