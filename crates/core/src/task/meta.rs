//! `run_meta.json` and `model_snapshot.json` of a task run (`evalpage run
//! --task`, `evalpage score`, the page): what ran, with which task and prompt,
//! when, and which models answered with which settings. Times are passed in (the
//! core has no clock). Neither file ever holds a key: keys live in environment
//! variables (CLI) or the page's memory, and the argv the CLI records has no
//! key flag (it takes `--api-key-env NAME`).

use super::report::{AnswerSource, TaskInfo};
use super::score::ModelRun;
use serde_json::{json, Map, Value};

pub(crate) use crate::report::outputs::RunMeta;

/// `run_meta.json`.
pub fn run_meta(meta: &RunMeta, info: &TaskInfo, source: &AnswerSource) -> Value {
    let (command, responses, run_id, backend) = match source {
        AnswerSource::Score { responses } => ("score", Some(responses.as_str()), None, None),
        AnswerSource::Run(r) => (
            "run",
            None,
            Some(r.run_id.as_str()),
            Some(r.backend.as_str()),
        ),
    };
    json!({
        "tool": meta.tool,
        "version": meta.version,
        "command": command,
        "run_id": run_id,
        "backend": backend,
        "task": {"name": info.name, "version": info.version, "source": info.source},
        "prompt_template": {
            "name": info.prompt_name,
            "version": info.prompt_version,
            "source": info.prompt_source,
        },
        "dataset": meta.dataset,
        "responses": responses,
        "metadata": meta.metadata,
        "argv": meta.argv,
        "started_at": rfc3339_ms(meta.started_at_ms),
        "ended_at": rfc3339_ms(meta.ended_at_ms),
        "started_at_ms": meta.started_at_ms,
        "ended_at_ms": meta.ended_at_ms,
    })
}

/// `model_snapshot.json`: each model, how many samples it answered, and its
/// settings: for a run, the model id, endpoint, key variable name and the
/// request parameters sent; for `score`, the parameters the task would send
/// (`default_params`).
pub fn model_snapshot(
    runs: &[ModelRun],
    default_params: &Map<String, Value>,
    source: &AnswerSource,
    info: &TaskInfo,
) -> Value {
    let models: Vec<Value> = runs
        .iter()
        .map(|r| {
            let called = match source {
                AnswerSource::Run(run) => run.models.iter().find(|m| m.name == r.model),
                AnswerSource::Score { .. } => None,
            };
            match called {
                Some(m) => {
                    let mut v = json!({
                        "name": r.model,
                        "source": "called in this run",
                        "model": m.model,
                        "base_url": m.base_url,
                        "api_key_env": m.api_key_env,
                        "answered": r.answered(),
                        "samples": r.results.len(),
                        "settings": Value::Object(m.params.clone()),
                    });
                    if let Some(engine) = &m.engine {
                        v["engine"] = engine.clone();
                    }
                    v
                }
                None => json!({
                    "name": r.model,
                    "source": "responses file",
                    "answered": r.answered(),
                    "samples": r.results.len(),
                    "settings": Value::Object(default_params.clone()),
                }),
            }
        })
        .collect();
    json!({
        "task": {"name": info.name, "version": info.version},
        "prompt_template": {"name": info.prompt_name, "version": info.prompt_version},
        "models": models,
    })
}

pub use crate::timefmt::rfc3339_ms;

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn times_and_snapshot() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        let f = fixture();
        let snap = model_snapshot(&f.scored.models, &f.task.default_params, &f.source, &f.info);
        assert_eq!(snap["models"][1]["name"], "m2");
        assert_eq!(snap["models"][1]["answered"], 1);
        assert_eq!(
            snap["models"][0]["settings"]["response_format"]["type"],
            "json_object"
        );
        let meta = RunMeta {
            tool: "evalpage-cli".into(),
            version: "0.1.0".into(),
            argv: vec!["evalpage".into(), "score".into()],
            dataset: "d.jsonl".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 1,
        };
        let v = run_meta(&meta, &f.info, &f.source);
        assert_eq!(v["command"], "score");
        assert_eq!(v["responses"], "r.jsonl");
        assert_eq!(v["prompt_template"]["name"], "ie_json");
        assert_eq!(v["ended_at"], "1970-01-01T00:00:00.001Z");
    }
}
