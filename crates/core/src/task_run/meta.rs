//! `run_meta.json` and `model_snapshot.json` of `evalpage score`: what ran,
//! with which task and prompt, when, and which models' answers were scored.
//! Times are passed in (the core has no clock). Neither file ever holds a key:
//! `score` takes none, and the argv it records has no key flag.

use super::report::TaskInfo;
use super::score::ModelRun;
use serde_json::{json, Map, Value};

/// What `run_meta.json` records besides the task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunMeta {
    /// Tool name (`evalpage-cli`).
    pub tool: String,
    /// Tool version.
    pub version: String,
    /// The command line as given.
    pub argv: Vec<String>,
    /// Dataset file as given.
    pub dataset: String,
    /// Responses file as given.
    pub responses: String,
    /// `metadata.json` as given, if any.
    pub metadata: Option<String>,
    /// Start, ms since the Unix epoch.
    pub started_at_ms: u64,
    /// End, ms since the Unix epoch.
    pub ended_at_ms: u64,
}

/// `run_meta.json`.
pub fn run_meta(meta: &RunMeta, info: &TaskInfo) -> Value {
    json!({
        "tool": meta.tool,
        "version": meta.version,
        "command": "score",
        "task": {"name": info.name, "version": info.version, "source": info.source},
        "prompt_template": {
            "name": info.prompt_name,
            "version": info.prompt_version,
            "source": info.prompt_source,
        },
        "dataset": meta.dataset,
        "responses": meta.responses,
        "metadata": meta.metadata,
        "argv": meta.argv,
        "started_at": rfc3339_ms(meta.started_at_ms),
        "ended_at": rfc3339_ms(meta.ended_at_ms),
        "started_at_ms": meta.started_at_ms,
        "ended_at_ms": meta.ended_at_ms,
    })
}

/// `model_snapshot.json`: each model seen in the responses, how many samples
/// it answered, and the settings the task would send (`default_params`).
pub fn model_snapshot(runs: &[ModelRun], default_params: &Map<String, Value>) -> Value {
    let models: Vec<Value> = runs
        .iter()
        .map(|r| {
            json!({
                "name": r.model,
                "source": "responses file",
                "answered": r.answered(),
                "samples": r.results.len(),
                "settings": Value::Object(default_params.clone()),
            })
        })
        .collect();
    json!({ "models": models })
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
        let snap = model_snapshot(&f.scored.models, &f.task.default_params);
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
            responses: "r.jsonl".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 1,
        };
        let v = run_meta(&meta, &f.info);
        assert_eq!(v["prompt_template"]["name"], "ie_json");
        assert_eq!(v["ended_at"], "1970-01-01T00:00:00.001Z");
    }
}
