//! The device card: where a model file ran in the page, as the report's
//! `local_model` record says (the RAG check's `run_config.parameters`, a
//! task's or a dialog run's `model_settings[].engine`), with the engine's own
//! prompt and decode speeds (`experiment.run.latency`).

use crate::report::ExperimentMetadata;
use serde_json::Value;

/// One model file's device card.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceCard {
    /// The model as the run names it.
    pub model: String,
    /// What the card says, label and value, in order.
    pub lines: Vec<(&'static str, String)>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        _ => None,
    }
}

/// The card of one `local_model` record, for `model`.
pub fn card(model: &str, record: &Value, exp: &ExperimentMetadata) -> DeviceCard {
    let mut lines = Vec::new();
    let mut put = |label: &'static str, value: Option<String>| {
        if let Some(v) = value {
            lines.push((label, v));
        }
    };
    let engine = text(record, "engine");
    put(
        "engine",
        match (engine, text(record, "engine_version")) {
            (Some(e), Some(v)) => Some(format!("{e} {v}")),
            (e, _) => e,
        },
    );
    put("file", text(record, "file"));
    put("quantisation", text(record, "quantisation"));
    put(
        "threads asked",
        text(record, "threads_asked").or_else(|| Some("—".into())),
    );
    put("threads used", text(record, "threads"));
    put("logical CPUs", text(record, "logical_cpus"));
    put("multi-threaded build", text(record, "multithread"));
    put(
        "cross-origin isolated",
        text(record, "cross_origin_isolated"),
    );
    put("WebAssembly SIMD", text(record, "simd"));
    put(
        "WebGPU",
        match (
            record.get("webgpu").and_then(Value::as_bool),
            text(record, "webgpu_adapter"),
        ) {
            (Some(true), Some(a)) => Some(match text(record, "gpu_layers") {
                Some(l) => format!("{a} ({l} layers)"),
                None => a,
            }),
            (Some(true), None) => Some("yes".into()),
            (Some(false), _) => Some("not used (CPU)".into()),
            (None, _) => None,
        },
    );
    put("GPU note", text(record, "gpu_note"));
    let timed = exp
        .run
        .as_ref()
        .and_then(|r| r.latency.iter().find(|l| l.model == model));
    let speed = |v: Option<f64>| v.map(|v| format!("{v:.1}"));
    put(
        "prompt tokens/s",
        speed(timed.and_then(|l| l.prompt_tokens_per_s)),
    );
    put(
        "decode tokens/s",
        speed(timed.and_then(|l| l.decode_tokens_per_s)),
    );
    DeviceCard {
        model: model.to_string(),
        lines,
    }
}

/// Every model file's card in a report's experiment.
pub fn cards(exp: &ExperimentMetadata) -> Vec<DeviceCard> {
    let rc = &exp.run_config;
    let mut out = Vec::new();
    if let Some(record) = rc.get("parameters").and_then(|p| p.get("local_model")) {
        let model = text(rc, "model")
            .or_else(|| text(record, "file"))
            .unwrap_or_default();
        out.push(card(&model, record, exp));
    }
    for m in rc
        .get("model_settings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(record) = m.get("engine").filter(|e| e.is_object()) {
            let model = text(m, "name").unwrap_or_default();
            out.push(card(&model, record, exp));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn experiment(v: Value) -> ExperimentMetadata {
        ExperimentMetadata {
            run_config: v["run_config"].clone(),
            run: serde_json::from_value(v["run"].clone()).expect("run times"),
            ..ExperimentMetadata::default()
        }
    }

    #[test]
    fn a_rag_run_of_a_model_file_has_its_device_card() {
        let exp = experiment(serde_json::json!({
            "run_config": {"model": "gemma.gguf", "parameters": {"local_model": {
                "engine": "llama.cpp (@wllama/wllama)", "engine_version": "b7000", "file": "gemma.gguf",
                "quantisation": "Q4_K_M", "threads": 4, "threads_asked": "auto", "logical_cpus": 8,
                "multithread": true, "cross_origin_isolated": true, "simd": true,
                "webgpu": true, "webgpu_adapter": "google swiftshader", "gpu_layers": "19/19"}}},
            "run": {"run_id": "r", "started_at_ms": 0, "elapsed_ms": 1, "status": "done",
                "latency": [{"model": "gemma.gguf", "latency_p50_ms": 1, "latency_p95_ms": 1,
                    "prompt_tokens_per_s": 120.04, "decode_tokens_per_s": 20.46}]}
        }));
        let cards = cards(&exp);
        assert_eq!(cards.len(), 1);
        let shown: std::collections::BTreeMap<_, _> = cards[0].lines.iter().cloned().collect();
        assert_eq!(shown["engine"], "llama.cpp (@wllama/wllama) b7000");
        assert_eq!(shown["threads asked"], "auto");
        assert_eq!(shown["threads used"], "4");
        assert_eq!(shown["logical CPUs"], "8");
        assert_eq!(shown["WebGPU"], "google swiftshader (19/19 layers)");
        assert_eq!(shown["decode tokens/s"], "20.5");
        assert_eq!(shown["prompt tokens/s"], "120.0");
    }

    #[test]
    fn a_task_run_has_a_card_per_model_file_and_an_endpoint_none() {
        let exp = experiment(serde_json::json!({
            "run_config": {"model_settings": [
                {"name": "mock-a"},
                {"name": "gemma.gguf", "engine": {"engine": "llama.cpp", "threads": 2, "webgpu": false}}]}
        }));
        let cards = cards(&exp);
        assert_eq!(cards.len(), 1);
        assert_eq!(cards[0].model, "gemma.gguf");
        assert!(cards[0]
            .lines
            .contains(&("WebGPU", "not used (CPU)".into())));
    }
}
