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
use super::typed::{element, Field, Rest};
use super::ImportError;
use crate::Usage;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashSet};

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
            if let Ok(PromptHead { id: Field::Got(id) }) = element(&v, "a prompt") {
                reader.prompts.insert(id);
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

/// A prompt of `results.prompts`, as far as the results need it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct PromptHead {
    id: Field<String>,
}

#[derive(Default)]
struct Reader {
    /// The distinct prompts' ids.
    prompts: HashSet<String>,
    seen: HashSet<(String, String)>,
}

/// One element of `results.results`: the parts this reads.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PfResult {
    provider: Field<Provider>,
    test_idx: Field<u64>,
    test_case: Field<TestCase>,
    response: Field<Response>,
    prompt: Field<Prompt>,
    failure_reason: Field<u64>,
    error: Field<String>,
    token_usage: Field<TokenUsage>,
    grading_result: Field<Grading>,
    success: Field<bool>,
    /// A number, a boolean or a numeric string.
    score: Option<Value>,
    named_scores: Field<Map<String, Value>>,
    latency_ms: Field<u64>,
    cost: Field<f64>,
    #[serde(flatten)]
    rest: Rest,
}

/// promptfoo writes a result's provider as its id or as `{id, label}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Provider {
    Id(String),
    Object(ProviderObject),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ProviderObject {
    id: Field<String>,
    label: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TestCase {
    description: Field<String>,
    vars: Field<Map<String, Value>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Response {
    /// Text, or a chat answer's parts.
    output: Option<Value>,
    error: Field<String>,
    token_usage: Field<TokenUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Prompt {
    raw: Field<String>,
    label: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct TokenUsage {
    prompt: Field<u64>,
    completion: Field<u64>,
    completion_details: Field<CompletionDetails>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CompletionDetails {
    reasoning: Field<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Grading {
    reason: Option<Value>,
    component_results: Field<Vec<Component>>,
}

/// One assertion's verdict, passed on as promptfoo wrote it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Component {
    assertion: Field<Assertion>,
    pass: Option<Value>,
    score: Option<Value>,
    reason: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Assertion {
    #[serde(rename = "type")]
    kind: Option<Value>,
    metric: Option<Value>,
}

impl Reader {
    fn result(&mut self, c: &mut Collect, file: &str, n: usize, v: &Value) {
        let at = |f: &str| format!("results.results[{}].{f}", n - 1);
        let r: PfResult = match element(v, "an object (one test × prompt × provider)") {
            Ok(r) => r,
            Err(e) => {
                c.problem(file, 0, Some(&format!("results.results[{}]", n - 1)), e);
                return;
            }
        };
        c.unread("results.results[]", r.rest.keys());
        if !r.provider.is_present() {
            c.problem(
                file,
                0,
                Some(&at("provider")),
                "missing: expected the provider of the result (an object with `id`)".into(),
            );
            return;
        }
        let provider = r.provider.need(
            c,
            file,
            0,
            &at("provider"),
            "a provider id or an object with `id`; the result is kept under `unknown`",
        );
        let (pid, label) = match provider {
            Some(Provider::Id(id)) => (id.as_str(), None),
            Some(Provider::Object(p)) => (
                p.id.ok().map_or("unknown", String::as_str),
                p.label.ok().map(String::as_str),
            ),
            None => ("unknown", None),
        };
        let label = label.filter(|l| !l.trim().is_empty());
        let mut model = label.map_or_else(|| short_model(pid, ':'), str::to_string);
        let prompt = r.prompt.ok();
        if self.prompts.len() > 1 {
            if let Some(p) = prompt.and_then(|p| p.label.ok()) {
                model = format!("{model} · {}", p.chars().take(40).collect::<String>());
            }
        }
        c.model(&model, pid);
        let test_idx = r.test_idx.ok().copied();
        let test_name = format!("test-{}", test_idx.map_or(n as u64, |i| i + 1));
        let test_case = r.test_case.ok();
        let described = test_case
            .and_then(|t| t.description.ok())
            .filter(|d| !d.trim().is_empty());
        let mut id = described.map_or_else(|| test_name.clone(), String::clone);
        if !self.seen.insert((model.clone(), id.clone())) {
            id = format!("{id} ({test_name})");
            self.seen.insert((model.clone(), id.clone()));
        }
        let response = r.response.ok();
        let answer = response
            .and_then(|x| x.output.as_ref())
            .and_then(|o| match o {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => content_text(other).or_else(|| Some(other.to_string())),
            });
        let input = prompt.and_then(|p| p.raw.ok()).map(|raw| {
            serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_array)
                .and_then(|m| input_text(&m))
                .unwrap_or_else(|| raw.to_string())
        });
        let failure = r.failure_reason.ok().copied();
        let error = r
            .error
            .ok()
            .filter(|_| failure == Some(2) || answer.is_none())
            .or_else(|| response.and_then(|x| x.error.ok()))
            .cloned();
        let tokens = match response.map(|x| &x.token_usage) {
            Some(t) if t.is_present() => t.ok(),
            _ => r.token_usage.ok(),
        }
        .filter(|t| t.prompt.is_present() || t.completion.is_present());
        let usage = tokens.map(|t| Usage {
            prompt_tokens: t.prompt.ok().copied().unwrap_or(0),
            completion_tokens: t.completion.ok().copied().unwrap_or(0),
            reasoning_tokens: t
                .completion_details
                .ok()
                .and_then(|d| d.reasoning.ok())
                .copied(),
            timings: None,
        });
        let grading = r.grading_result.ok();
        let assertions: Vec<Value> = grading
            .and_then(|g| g.component_results.ok())
            .map(|cs| {
                cs.iter()
                    .map(|x| {
                        let a = x.assertion.ok();
                        json!({
                            "type": a.and_then(|a| a.kind.as_ref()),
                            "metric": a.and_then(|a| a.metric.as_ref()),
                            "pass": x.pass,
                            "score": x.score,
                            "reason": x.reason,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let reason = grading
            .and_then(|g| g.reason.clone())
            .unwrap_or(Value::Null);
        let mut verdicts = Vec::new();
        let success = r.success.need(
            c,
            file,
            0,
            &at("success"),
            "true or false (the test's verdict); the result is kept without it",
        );
        match success {
            Some(ok) => verdicts.push(
                Verdict::new("pass", f64::from(u8::from(*ok)))
                    .with("reason", reason.clone())
                    .with("assertions", Value::Array(assertions)),
            ),
            None if r.success.is_present() => {}
            None => c.problem(
                file,
                0,
                Some(&at("success")),
                "missing: expected true or false (the test's verdict); the result is kept without it".into(),
            ),
        }
        if let Some(s) = r.score.as_ref().and_then(number) {
            verdicts.push(Verdict::new("score", s));
        }
        if let Some(named) = r.named_scores.ok() {
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
        if let Some(vars) = test_case
            .and_then(|t| t.vars.ok())
            .filter(|v| !v.is_empty())
        {
            if let Some(first) = verdicts.first_mut() {
                first
                    .extra
                    .insert("vars".into(), Value::Object(vars.clone()));
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
                latency_ms: r.latency_ms.ok().copied(),
                cost: r.cost.ok().copied(),
                calls: Vec::new(),
                trajectory: None,
            },
            verdicts,
        );
    }

    /// Everything but the results: the version, the run's id and time, and
    /// promptfoo's own totals.
    fn document(&mut self, c: &mut Collect, file: &str, v: &Value) {
        let doc: Document = match element(v, "promptfoo's output JSON (an object)") {
            Ok(d) => d,
            Err(e) => {
                c.problem(file, 0, None, e);
                Document::default()
            }
        };
        c.unread("the output file", doc.rest.keys());
        let results = doc.results.ok();
        let version = results.and_then(|r| r.version.as_ref());
        match version.and_then(Value::as_u64) {
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
            .metadata
            .ok()
            .and_then(|m| m.promptfoo_version.ok())
            .or_else(|| doc.version.ok())
            .cloned()
            .or_else(|| version.map(|v| format!("results version {v}")));
        c.run_id = doc.eval_id.ok().cloned();
        let config = doc.config.as_ref().and_then(Field::ok);
        c.dataset = config.and_then(|c| c.description.ok()).cloned();
        let prompts = results.and_then(|r| r.prompts.ok());
        for p in prompts.into_iter().flatten().filter_map(Field::ok) {
            let pid = p.provider.ok().map_or("unknown", String::as_str);
            let mut model = label_for(config, pid);
            if self.prompts.len() > 1 {
                if let Some(l) = p.label.ok() {
                    model = format!("{model} · {}", l.chars().take(40).collect::<String>());
                }
            }
            let model = Some(model);
            let Some(m) = p.metrics.ok() else { continue };
            let count = |f: &Field<f64>| f.ok().copied().unwrap_or(0.0);
            let (pass, fail, err) = (
                count(&m.test_pass_count),
                count(&m.test_fail_count),
                count(&m.test_error_count),
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
                    count(&m.score) / total,
                    true,
                );
                if let (Some(sums), Some(counts)) = (m.named_scores.ok(), m.named_scores_count.ok())
                {
                    for (k, v) in sums {
                        let n = counts.get(k).map_or(0.0, count);
                        if let (Some(v), true) = (v.ok(), n > 0.0) {
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
                if let Some(cost) = m.cost.ok() {
                    c.aggregate(model, None, "cost", *cost, false);
                }
            }
        }
        if let Some(stats) = results.and_then(|r| r.stats.ok()) {
            for (k, f) in [
                ("successes", &stats.successes),
                ("failures", &stats.failures),
                ("errors", &stats.errors),
            ] {
                if let Some(v) = f.ok() {
                    c.aggregate(None, None, &format!("stats.{k}"), *v, false);
                }
            }
        }
        if doc.config.is_some() {
            c.not_carried("config: the prompts' templates, the providers' settings and the tests' assertions as written (each result keeps its vars and its assertions' verdicts)");
        }
        if doc.shareable_url.is_some() {
            c.not_carried("shareableUrl");
        }
        c.not_carried("each assertion's own token use (gradingResult.tokensUsed) and the response's cache flag");
    }
}

/// promptfoo's output file less its results: the parts this reads.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Document {
    results: Field<Results>,
    metadata: Field<Metadata>,
    version: Field<String>,
    eval_id: Field<String>,
    /// Whether the file has it (even `null`), and what this reads of it.
    #[serde(deserialize_with = "present")]
    config: Option<Field<Config>>,
    /// Only whether it is there (it is not carried).
    shareable_url: Option<IgnoredAny>,
    #[serde(flatten)]
    rest: Rest,
}

/// A field that is there, even as `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Field<Config>>, D::Error> {
    Field::deserialize(d).map(Some)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Results {
    /// A number; said as written when it is not one this reads.
    version: Option<Value>,
    prompts: Field<Vec<Field<PromptSummary>>>,
    stats: Field<Stats>,
}

/// One prompt × provider of `results.prompts`, with promptfoo's totals.
#[derive(Deserialize, Default)]
#[serde(default)]
struct PromptSummary {
    provider: Field<String>,
    label: Field<String>,
    metrics: Field<PromptMetrics>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct PromptMetrics {
    test_pass_count: Field<f64>,
    test_fail_count: Field<f64>,
    test_error_count: Field<f64>,
    score: Field<f64>,
    cost: Field<f64>,
    named_scores: Field<BTreeMap<String, Field<f64>>>,
    named_scores_count: Field<BTreeMap<String, Field<f64>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Stats {
    successes: Field<f64>,
    failures: Field<f64>,
    errors: Field<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Metadata {
    promptfoo_version: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Config {
    description: Field<String>,
    /// Each an id, or `{id, label, ...}`.
    providers: Field<Vec<Field<Provider>>>,
}

/// The model name of a provider id, as the results name it: the config's
/// label for that id when it gives one.
fn label_for(config: Option<&Config>, pid: &str) -> String {
    let providers = config.and_then(|c| c.providers.ok());
    providers
        .into_iter()
        .flatten()
        .filter_map(Field::ok)
        .find_map(|p| match p {
            Provider::Object(o) if o.id.ok().is_some_and(|id| id == pid) => o.label.ok(),
            _ => None,
        })
        .filter(|l| !l.trim().is_empty())
        .map_or_else(|| short_model(pid, ':'), String::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::typed::seen::{listed, problems};
    use crate::import::Tool;

    fn import(doc: &Value) -> crate::report::EvaluationResult {
        let mut c = Collect::new(Tool::Promptfoo, vec!["out.json".into()]);
        let text = doc.to_string();
        let read_ok = read(&mut c, "out.json", text.as_bytes()).is_ok();
        assert!(read_ok);
        c.finish().report
    }

    fn result(extra: Value) -> Value {
        let mut r = json!({
            "provider": {"id": "openai:chat:gpt-4o-mini", "label": ""},
            "testIdx": 0,
            "success": true,
            "score": 1,
            "response": {"output": "Paris"},
        });
        if let (Some(r), Value::Object(extra)) = (r.as_object_mut(), extra) {
            r.extend(extra);
        }
        r
    }

    #[test]
    fn an_unknown_top_level_field_is_tolerated_and_listed() {
        let doc = json!({"results": {"version": 3, "results": [
            result(json!({"brandNew": {"x": 1}, "promptIdx": 0})),
            result(json!({"testIdx": 1, "brandNew": 2})),
        ]}});
        let r = import(&doc);
        assert!(r.report.line_errors.is_none(), "{:?}", r.report.line_errors);
        assert_eq!(r.scores.iter().filter(|s| s.metric == "pass").count(), 2);
        let listed = listed(&r, "results.results[]");
        assert_eq!(
            listed,
            ["fields of results.results[] this import does not read: `brandNew`, `promptIdx`"]
        );
    }

    #[test]
    fn a_wrong_typed_needed_field_is_named_and_the_rest_is_kept() {
        let doc = json!({"results": {"version": 3, "results": [
            result(json!({})),
            result(json!({"testIdx": 1, "provider": 5, "success": "yes"})),
            "not a result",
            result(json!({"testIdx": 3})),
        ]}});
        let r = import(&doc);
        let p = problems(&r);
        assert!(
            p.iter().any(|e| e.contains("results.results[1].provider")),
            "{p:?}"
        );
        assert!(
            p.iter().any(|e| e.contains("results.results[1].success")),
            "{p:?}"
        );
        assert!(p.iter().any(|e| e.contains("results.results[2]")), "{p:?}");
        assert_eq!(p.len(), 3, "{p:?}");
        // the two whole results, and the bad one's score
        assert_eq!(r.scores.iter().filter(|s| s.metric == "pass").count(), 2);
        assert_eq!(r.scores.iter().filter(|s| s.metric == "score").count(), 3);
    }
}
