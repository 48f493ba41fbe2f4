//! The RAG check is the built-in `rag_qa` task on the one engine: the same
//! requests, the same per-case metric values, and the RAG view (verdicts,
//! console lines) read from that task run; the run's system prompt is sent as
//! typed, never read as a template; its keypoint matching settings apply.

mod common;

use common::*;
use evalpage_core::rag::Engine;
use evalpage_core::run::{Command, Input, RunIdentity, RunSettings};
use evalpage_core::task::{
    builtin_template, preset, DatasetFormat, TaskEngine, TaskInfo, TaskRunConfig,
};
use evalpage_core::ModelSettings;
use evalpage_core::{CallOutcome, ChatMessage};
use evalpage_core::{MatchMode, ScoringConfig};
use serde_json::Map;

const CASES: &str = r#"{"q":"LightRAG有哪些评估指标？","gold":["忠实度指标"],"doc_hint":["lightrag_evaluation.md"]}
{"q":"如何降低幻觉？","gold":["分块优化"],"doc_hint":["lightrag_optimization.md"]}
{"q":"服务返回NaN怎么办？","gold":["API密钥配置错误","模型端点错误"],"doc_hint":["lightrag_faq.md"]}
{"q":"How do I rebuild the index?","gold":["rebuild the vector index"],"doc_hint":["ops.md"]}"#;

const ANSWERS: [&str; 4] = [
    "LightRAG 的 RAGAS 包含忠实度指标。参考 lightrag_evaluation.md",
    "参考 ragas_install.md，可通过分块优化降低幻觉",
    "NaN结果可重启服务解决。来自 lightrag_faq.md",
    "Rebuild the vectr index from ops.md",
];

fn answer(case: usize) -> CallOutcome {
    CallOutcome::text(ANSWERS[case].to_string())
}

/// Sends every request the engine asks for, in order, answering with
/// `answer`; returns the requests it saw.
fn run_rag(engine: &mut Engine) -> Vec<Vec<ChatMessage>> {
    let mut sent = Vec::new();
    let mut queue = engine.start(1_000).commands;
    let mut now = 1_000;
    while let Some(c) = queue.pop() {
        if let Command::Send { case, messages, .. } = c {
            sent.push((case, messages));
            now += 1;
            let step = engine.handle(
                Input::Outcome {
                    case,
                    outcome: answer(case),
                },
                now,
            );
            queue.extend(step.commands);
        }
    }
    sent.sort_by_key(|(c, _)| *c);
    sent.into_iter().map(|(_, m)| m).collect()
}

/// The `rag_qa` preset as a task run (its template has spec 002's default
/// system prompt).
fn task_engine() -> TaskEngine {
    let task = preset("rag_qa").expect("preset");
    let template = builtin_template("rag_qa").expect("template");
    let data =
        evalpage_core::task::load_dataset("t.jsonl", CASES.as_bytes(), DatasetFormat::Rag, None);
    let cfg = TaskRunConfig {
        run: RunIdentity {
            run_id: "t".into(),
            tool: "test".into(),
            started_at_ms: 0,
            argv: vec![],
            settings: RunSettings::default(),
            ..RunIdentity::default()
        },
        backend: "openai".into(),
        repeats: Default::default(),
        models: vec![ModelSettings {
            name: "m".into(),
            model: "m".into(),
            base_url: None,
            api_key_env: None,
            params: Map::new(),
            engine: None,
        }],
    };
    let info = TaskInfo {
        name: "rag_qa".into(),
        version: "v1".into(),
        source: "preset".into(),
        prompt_name: "rag_qa".into(),
        prompt_version: "v1".into(),
        prompt_source: "builtin".into(),
    };
    TaskEngine::new(cfg, task, info, &template, &data)
}

#[test]
fn the_rag_check_sends_and_scores_what_the_rag_qa_task_does() {
    let default = evalpage_core::DEFAULT_SYSTEM_PROMPT;
    let mut cfg = config("rag", 2);
    cfg.system_prompt = default.to_string();
    let mut rag = Engine::new(cfg, cases(CASES));
    let sent = run_rag(&mut rag);

    let mut task = task_engine();
    let mut queue = task.start(0).commands;
    let mut task_sent = Vec::new();
    while let Some(c) = queue.pop() {
        if let Command::Send { case, messages, .. } = c {
            task_sent.push((case, messages));
            queue.extend(
                task.handle(
                    Input::Outcome {
                        case,
                        outcome: answer(case),
                    },
                    1,
                )
                .commands,
            );
        }
    }
    task_sent.sort_by_key(|(c, _)| *c);
    let task_sent: Vec<Vec<ChatMessage>> = task_sent.into_iter().map(|(_, m)| m).collect();
    assert_eq!(sent, task_sent, "the same requests");

    let views: Vec<(bool, bool)> = rag
        .results()
        .iter()
        .map(|r| {
            let r = r.as_ref().expect("settled");
            (r.accurate(), r.cited())
        })
        .collect();
    let values: Vec<(bool, bool)> = task.results()[0]
        .iter()
        .map(|r| {
            let r = r.as_ref().expect("settled");
            let v = |name: &str| {
                r.scores
                    .iter()
                    .find(|(n, _)| n == name)
                    .and_then(|(_, s)| s.value)
                    == Some(1.0)
            };
            (v("accuracy"), v("citation"))
        })
        .collect();
    assert_eq!(views, values);
    assert_eq!(
        views,
        vec![(true, true), (true, false), (false, true), (true, true)],
        "spec 002's example and a fuzzy English match"
    );
    // The verdict details survive the view: keypoints and wrong documents.
    let q2 = rag.results()[1].as_ref().expect("settled");
    let citation = q2.citation.as_ref().expect("verdict");
    assert_eq!(citation.wrong, vec!["ragas_install.md".to_string()]);
    let q4 = rag.results()[3].as_ref().expect("settled");
    let accuracy = q4.accuracy.as_ref().expect("verdict");
    assert_eq!(accuracy.keypoints[0].method, "fuzzy");
}

#[test]
fn the_system_prompt_is_sent_as_typed_and_a_blank_one_is_not_sent() {
    let typed = "Answer {{ q }} {% if x %}verbatim{% endif %} {# no comment #}\n";
    let mut cfg = config("sys", 1);
    cfg.system_prompt = typed.to_string();
    let mut engine = Engine::new(cfg, cases(CASES));
    let sent = run_rag(&mut engine);
    assert_eq!(sent[0][0], ChatMessage::new("system", typed));
    assert_eq!(
        sent[0][1],
        ChatMessage::new("user", "LightRAG有哪些评估指标？")
    );

    let mut cfg = config("blank", 1);
    cfg.system_prompt = "  ".into();
    let mut engine = Engine::new(cfg, cases(CASES));
    let sent = run_rag(&mut engine);
    assert_eq!(
        sent[0],
        vec![ChatMessage::new("user", "LightRAG有哪些评估指标？")]
    );
}

#[test]
fn the_runs_keypoint_matching_settings_apply() {
    let mut cfg = config("strict", 1);
    cfg.scoring = ScoringConfig {
        match_mode: MatchMode::Strict,
        ..ScoringConfig::default()
    };
    let mut engine = Engine::new(cfg, cases(CASES));
    run_rag(&mut engine);
    let q4 = engine.results()[3].as_ref().expect("settled");
    assert!(!q4.accurate(), "no verbatim keypoint in strict mode");

    let mut cfg = config("exacting", 1);
    cfg.scoring.fuzzy_threshold = 1.0;
    let mut engine = Engine::new(cfg, cases(CASES));
    run_rag(&mut engine);
    let q4 = engine.results()[3].as_ref().expect("settled");
    assert!(!q4.accurate(), "a threshold of 1 needs every bigram");
}
