//! Builds the final report from the run's results, in dataset order, so the
//! report never depends on the order in which answers arrived.

use super::{CaseResult, Engine};
use crate::dataset::fingerprint::fingerprint;
use crate::dataset::rag::RagCase;
use crate::lang::Words;
use crate::rag::console::{accuracy_reason, citation_reason, notes_of};
use crate::report::metadata::report_metadata;
use crate::report::outputs::{Outputs, RunMeta};
use crate::report::ErrorDetail;
use crate::report::*;
use crate::report::{length_bucket, summaries};
use crate::report::{Outcome, RunRecord};
use crate::run::KindDecl;
use crate::run::RunStatus;
use crate::timefmt::rfc3339_ms;
use crate::Lang;
use serde_json::{json, Value};

/// What this kind states about itself (found by `RunKind::decl`).
pub(crate) const KIND: KindDecl = KindDecl {
    title: Words {
        zh: "RAG 评测",
        en: "RAG check",
    },
    unfinished: Words {
        zh: "发现未完成的运行",
        en: "Unfinished run",
    },
    settled: Words {
        zh: "条已完成。",
        en: "cases settled.",
    },
    names: ReportNames {
        report: "eval_rag_report.json",
        jsonl: "eval_rag_report.events.jsonl",
        json_seq: "eval_rag_report.events.json-seq",
    },
    evaluation_report: true,
};

/// The RAG check's metrics: (name in reports, type in the metric registry).
pub const RAG_METRICS: [(&str, &str); 2] =
    [("accuracy", "rag_accuracy"), ("citation", "rag_citation")];

/// The final report of an engine (a stopped one; unfinished cases are left out),
/// assembled by the one report builder with the RAG check's rows.
pub fn build(engine: &Engine, now_ms: u64) -> EvaluationResult {
    let cfg = engine.config();
    let pairs = engine.settled();
    let scores: Vec<EvalScore> = pairs.iter().flat_map(|(c, r)| case_scores(c, r)).collect();
    let names: Vec<&str> = RAG_METRICS.iter().map(|(name, _)| *name).collect();
    let status = if engine.status() == RunStatus::Cancelled {
        "cancelled"
    } else {
        "done"
    };
    let errors = pairs
        .iter()
        .filter_map(|(c, r)| {
            let e = r.error.as_ref()?;
            Some(ErrorCase {
                model: None,
                sample_id: c.id.clone(),
                status: e.status().to_string(),
                trace_id: format!("{}/{}", cfg.run.run_id, c.id),
                message: Some(e.message.clone()),
                latency_ms: Some(r.elapsed_ms as f64),
                backend: Some(cfg.info.backend.clone()),
                status_code: e.status_code,
                attempts: r.attempts,
            })
        })
        .collect();
    let experiment = ExperimentMetadata {
        report_language: None, // set where report.md is rendered
        dataset: dataset_metadata(engine),
        run_config: json!({
            "kind": crate::RunKind::Rag.tag(),
            "backend": cfg.info.backend,
            "model": cfg.info.model,
            "endpoint": cfg.info.endpoint,
            "parameters": cfg.info.parameters,
            "system_prompt": cfg.system_prompt,
            "concurrency": cfg.run.settings.concurrency,
            "max_attempts": cfg.run.settings.max_attempts,
            "timeout_ms": cfg.run.settings.timeout_ms,
        }),
        evaluator_config: json!({
            "metrics": RAG_METRICS.iter().map(|(n, t)| json!({"type": t, "name": n})).collect::<Vec<_>>(),
            "keypoint_match": cfg.scoring,
            "breakdown": {"dimensions": ["tag", "language", "length"]},
        }),
        run: Some(RunTimes {
            run_id: cfg.run.run_id.clone(),
            started_at_ms: cfg.run.started_at_ms,
            elapsed_ms: now_ms.saturating_sub(cfg.run.started_at_ms),
            status: status.to_string(),
            latency: Vec::new(),
        }),
    };
    assemble(ReportParts {
        metrics: ReportMetrics::from(&RunMetrics::from_results(engine.results())),
        cases: Vec::new(),
        models: vec![ModelRows {
            model: None,
            summaries: summaries(&scores, &names),
            scores,
            errors,
            usage: Some(ModelUsage::of(
                &cfg.info.model,
                pairs.iter().map(|(_, r)| CallStat {
                    answered: r.call_ok(),
                    truncated: r.truncated(),
                    elapsed_ms: Some(r.elapsed_ms),
                    usage: r.usage.clone(),
                    cached: r.cached.is_some(),
                }),
            )),
        }],
        metric_names: names.iter().map(|n| n.to_string()).collect(),
        experiment,
        line_errors: None,
        llm_judge_details: Vec::new(),
    })
}

fn case_scores(case: &RagCase, r: &CaseResult) -> [EvalScore; 2] {
    let score = |metric: &str, passed: bool, detail: Value| EvalScore {
        sample_id: case.id.clone(),
        metric: metric.to_string(),
        value: if passed { 1.0 } else { 0.0 },
        tags: case.tags.clone(),
        language: case
            .metadata
            .get("language")
            .and_then(Value::as_str)
            .map(str::to_string),
        length_bucket: Some(length_bucket(&case.q).to_string()),
        detail,
    };
    let mut common = json!({
        "question": case.q,
        "answer": r.answer,
        "llm_call_ok": r.call_ok(),
        "error": r.error.as_ref().map(|e| e.message.clone()),
    });
    merge(&mut common, Value::Object(extras(r)));
    let mut acc = common.clone();
    merge(
        &mut acc,
        json!({
            "keypoints": r.accuracy.as_ref().map(|a| &a.keypoints),
            "matched": r.accuracy.as_ref().map(|a| a.matched()).unwrap_or_default(),
            "missing": r.accuracy.as_ref().map(|a| a.missing()).unwrap_or_else(|| case.gold.clone()),
            "reason": accuracy_reason(Lang::En, case, r),
        }),
    );
    let mut cit = common;
    merge(
        &mut cit,
        json!({
            "cited": r.citation.as_ref().map(|c| c.cited.clone()).unwrap_or_default(),
            "correct": r.citation.as_ref().map(|c| c.correct.clone()).unwrap_or_default(),
            "wrong": r.citation.as_ref().map(|c| c.wrong.clone()).unwrap_or_default(),
            "expected": case.doc_hint,
            "reason": citation_reason(Lang::En, case, r),
        }),
    );
    [
        score("accuracy", r.accurate(), acc),
        score("citation", r.cited(), cit),
    ]
}

/// The reasoning, `finish_reason`, usage and truncation of a case's answer.
fn extras(r: &CaseResult) -> serde_json::Map<String, Value> {
    crate::report::answer_extras(
        r.reasoning.as_deref(),
        r.finish_reason.as_deref(),
        r.usage.clone(),
        r.truncated(),
        r.cached.as_ref(),
    )
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b);
    }
}

fn dataset_metadata(engine: &Engine) -> DatasetMetadata {
    let info = &engine.config().info;
    let tallies = engine.cases().iter().map(|c| {
        let language = c.metadata.get("language").and_then(Value::as_str);
        (language, c.tags.as_slice())
    });
    let given = engine.config().dataset_meta.as_ref();
    report_metadata(given, &info.dataset_name, tallies, info.dataset_line_errors)
}

/// `report.md` of the RAG check: the one renderer with the RAG check's
/// experiment lines, its per-case results and its Notes, from the report
/// and the settled cases (the run's, or a saved report's read back from its
/// case details, so `evalpage report` renders the run's file again).
pub fn rag_markdown(
    report: &EvaluationResult,
    settled: &[(&RagCase, &CaseResult)],
    lang: Lang,
) -> String {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let e = &report.report.experiment;
    let rc = &e.run_config;
    // Dataset, backend, run and evaluator config come first from the renderer.
    let mut experiment = vec![format!(
        "{}: {} ({} {})",
        t("数据集文件", "Dataset file"),
        e.dataset.name.as_deref().unwrap_or(""),
        report.metrics.cases,
        t("条用例", "cases")
    )];
    if let Some(ep) = rc["endpoint"].as_str() {
        experiment.push(format!("Endpoint: {ep}"));
    }
    experiment.push(format!(
        "{}: {}",
        t("关键点匹配", "Keypoint match"),
        e.evaluator_config["keypoint_match"]
    ));
    if let Some(run) = &e.run {
        experiment.push(format!("Run: {} ({})", run.run_id, run.status));
    }
    let parts = MarkdownParts {
        experiment,
        after_overall: Some(format!(
            "{}: {} / {}",
            t("模型调用失败", "Failed model calls"),
            report.metrics.failed_calls,
            report.metrics.cases
        )),
        sections: vec![per_case(settled, lang)],
        notes: notes_of(lang, settled),
    };
    render_md(report, &parts, lang)
}

fn per_case(settled: &[(&RagCase, &CaseResult)], lang: Lang) -> String {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let mut md = format!(
        "## {}\n\n| id | {} | {} | {} |\n|---|---|---|---|\n",
        t("单例结果", "Per-case results"),
        t("问题", "question"),
        t("准确率", "accuracy"),
        t("引用率", "citation")
    );
    let mark = |b: bool| if b { "√" } else { "×" };
    for (case, r) in settled {
        md.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&r.case_id),
            cell(&case.q),
            mark(r.accurate()),
            mark(r.cited())
        ));
    }
    md.push('\n');
    md
}

/// Every file of a finished RAG check (see `report::outputs`): the report and
/// its Markdown, one `RunRecord` line per case with the verdicts, the run's
/// metadata, the dataset's fingerprint and the model that answered.
pub fn rag_outputs(
    engine: &Engine,
    report: &EvaluationResult,
    lang: Lang,
    dataset_bytes: &[u8],
    meta: &RunMeta,
) -> Outputs {
    let cfg = engine.config();
    let info = &cfg.info;
    let lines: Vec<usize> = engine.cases().iter().map(|c| c.line).collect();
    let fp = fingerprint(
        &info.dataset_name,
        dataset_bytes,
        &lines,
        info.dataset_line_errors,
    );
    let answered = engine
        .results()
        .iter()
        .flatten()
        .filter(|r| r.call_ok())
        .count();
    let mut written = report.clone();
    written.report.experiment.report_language = Some(lang);
    Outputs {
        report: written,
        report_file: KIND.names.report,
        markdown: rag_markdown(report, &engine.settled(), lang),
        results_jsonl: rag_results(engine, &report.report.experiment.dataset.dataset_id),
        samples: engine.cases().len(),
        default_model: info.model.clone(),
        identity: vec![("kind".into(), "rag".into())],
        run_meta: json!({
            "tool": meta.tool,
            "version": meta.version,
            "command": "run",
            "kind": "rag",
            "run_id": engine.config().run.run_id,
            "backend": info.backend,
            "model": info.model,
            "endpoint": info.endpoint,
            "dataset": meta.dataset,
            "metadata": meta.metadata,
            "argv": meta.argv,
            "started_at": rfc3339_ms(meta.started_at_ms),
            "ended_at": rfc3339_ms(meta.ended_at_ms),
            "started_at_ms": meta.started_at_ms,
            "ended_at_ms": meta.ended_at_ms,
        }),
        fingerprint: serde_json::to_value(&fp).unwrap_or_default(),
        model_snapshot: json!({
            "kind": "rag",
            "models": [{
                "name": info.model,
                "source": "called in this run",
                "model": info.model,
                "base_url": info.endpoint,
                "answered": answered,
                "samples": engine.cases().len(),
                "settings": info.parameters,
                "system_prompt": cfg.system_prompt,
            }],
        }),
    }
}

/// `results.jsonl` of a RAG check: spec 003's `RunRecord` for each settled
/// case, then its verdicts.
fn rag_results(engine: &Engine, dataset_id: &str) -> String {
    let cfg = engine.config();
    let info = &cfg.info;
    let mut out = String::new();
    for (case, r) in engine.settled() {
        let detail = r.error.as_ref().map(ErrorDetail::from);
        let (status, error, error_detail) = detail
            .as_ref()
            .map_or(Outcome::Answered, Outcome::Failed)
            .fields();
        let record = RunRecord {
            sample_id: case.id.clone(),
            dataset_id: Some(dataset_id.to_string()),
            backend: info.backend.clone(),
            run_config: json!({"model": info.model, "endpoint": info.endpoint, "parameters": info.parameters}),
            response_text: r.answer.clone(),
            status: status.to_string(),
            latency_ms: Some(r.elapsed_ms as f64),
            trace_id: format!("{}/{}", engine.config().run.run_id, case.id),
            attempts: r.attempts,
            error,
            error_detail,
            raw: {
                let mut raw = json!({"answer": r.answer});
                merge(&mut raw, Value::Object(extras(r)));
                raw
            },
        };
        let mut line = serde_json::to_value(&record).unwrap_or_default();
        if let Value::Object(m) = &mut line {
            m.insert("line".into(), json!(case.line));
            m.insert("question".into(), json!(case.q));
            m.insert("accuracy".into(), json!(r.accurate()));
            m.insert("citation".into(), json!(r.cited()));
            m.insert("passed".into(), json!(r.passed()));
            m.insert(
                "matched".into(),
                json!(r.accuracy.as_ref().map(|a| a.matched()).unwrap_or_default()),
            );
            m.insert(
                "missing".into(),
                json!(r
                    .accuracy
                    .as_ref()
                    .map(|a| a.missing())
                    .unwrap_or_else(|| case.gold.clone())),
            );
            m.insert(
                "cited_docs".into(),
                json!(r
                    .citation
                    .as_ref()
                    .map(|c| c.cited.clone())
                    .unwrap_or_default()),
            );
            m.insert(
                "wrong_docs".into(),
                json!(r
                    .citation
                    .as_ref()
                    .map(|c| c.wrong.clone())
                    .unwrap_or_default()),
            );
        }
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}
