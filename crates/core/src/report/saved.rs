//! What a report says about itself, for the renderers that work from a
//! report (a run's and `evalpage report`'s alike): which kind of run wrote
//! it, its experiment lines read from its `experiment` block, its skipped
//! input lines, its usage rows' timings, and `summary.csv` through the one
//! CSV writer (`outputs::summary_csv`) with its `samples`, default model and
//! identity columns read back from the same block the way each kind wrote
//! them. The kinds' `report.md` renderers use these, and `view::report_md`
//! renders a saved run's file again through them.

use super::outputs::{summary_csv as csv_of, CsvError, Outputs};
use super::{cell, more, EvaluationResult, MAX_LISTED};
use crate::{Lang, RunKind};
use serde_json::Value;
use std::fmt::Write;

/// The report with its usage rows' timings back from `experiment.run.latency`
/// (where `report.json` keeps them, beside the run id), as the run had them.
pub fn with_timings(r: &EvaluationResult) -> EvaluationResult {
    let mut r = r.clone();
    let latency = r
        .report
        .experiment
        .run
        .as_ref()
        .map(|run| run.latency.clone())
        .unwrap_or_default();
    for u in &mut r.report.usage {
        if let Some(l) = latency.iter().find(|l| l.model == u.model) {
            u.latency_p50_ms = l.latency_p50_ms;
            u.latency_p95_ms = l.latency_p95_ms;
            u.output_tokens_per_s = l.output_tokens_per_s;
            u.prompt_tokens_per_s = l.prompt_tokens_per_s;
            u.decode_tokens_per_s = l.decode_tokens_per_s;
        }
    }
    r
}

/// Which kind of run wrote a report: its `run_config.kind` tag, else the
/// keys of a report written before the tag (the one reader, [`RunKind::read`]);
/// `None` for another producer's spec 003 report.
pub fn report_kind(r: &EvaluationResult) -> Option<RunKind> {
    let e = &r.report.experiment;
    RunKind::read(&[&e.run_config, &e.evaluator_config], &[])
}

/// The input lines the run skipped, as the report lists them.
pub fn skipped_lines(r: &EvaluationResult, lang: Lang) -> String {
    let errors = r.report.line_errors.as_deref().unwrap_or_default();
    if errors.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "## {}\n\n",
        lang.pick("跳过的输入行", "Skipped input lines")
    );
    for e in errors.iter().take(MAX_LISTED) {
        let _ = writeln!(md, "- {}", cell(&e.to_string()));
    }
    more(&mut md, errors.len(), lang);
    md.push('\n');
    md
}

/// `summary.csv` of a saved report (the columns of `outputs`' module doc).
pub fn summary_csv(r: &EvaluationResult) -> Result<String, CsvError> {
    // The CSV reads the aggregates only: the scores (maybe 200,000 of them)
    // are not copied.
    let head = EvaluationResult {
        metrics: r.metrics.clone(),
        cases: Vec::new(),
        scores: Vec::new(),
        report: r.report.clone(),
    };
    let r = &with_timings(&head);
    let e = &r.report.experiment;
    let (rc, ec) = (&e.run_config, &e.evaluator_config);
    let samples = e
        .dataset
        .counts
        .get("sample_count")
        .and_then(Value::as_u64)
        .map_or(r.metrics.cases, |n| n as usize);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let (default_model, identity) = match report_kind(r) {
        Some(RunKind::Task) => {
            let (t, p) = (&ec["task"], &ec["prompt_template"]);
            (
                String::new(),
                vec![
                    ("task".into(), text(&t["name"])),
                    ("task_version".into(), text(&t["version"])),
                    ("prompt".into(), text(&p["name"])),
                    ("prompt_version".into(), text(&p["version"])),
                ],
            )
        }
        Some(RunKind::Retrieval) => {
            let k = &rc["k"];
            let backend = rc["backend"].as_str().unwrap_or("responses").to_string();
            (
                backend,
                vec![
                    ("kind".into(), "retrieval".into()),
                    ("k".into(), k.to_string()),
                ],
            )
        }
        Some(RunKind::Rag) => (text(&rc["model"]), vec![("kind".into(), "rag".into())]),
        Some(RunKind::Dialog) | None => (text(&rc["model"]), Vec::new()),
    };
    let o = Outputs {
        report: r.clone(),
        report_file: super::TASK_NAMES.report,
        markdown: String::new(),
        results_jsonl: String::new(),
        samples,
        default_model,
        identity,
        run_meta: Value::Null,
        fingerprint: Value::Null,
        model_snapshot: Value::Null,
    };
    csv_of(&o)
}

/// The experiment's lines, from what the report records: task and prompt
/// template, dataset, backend and models, endpoint, metrics, run.
pub fn experiment_lines(r: &EvaluationResult, lang: Lang) -> Vec<String> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let e = &r.report.experiment;
    let (rc, ec) = (&e.run_config, &e.evaluator_config);
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let mut out = Vec::new();
    if let Some(task) = ec.get("task") {
        out.push(format!(
            "{}: {} {} ({})",
            t("任务", "Task"),
            s(&task["name"]),
            s(&task["version"]),
            s(&task["source"])
        ));
    }
    if let Some(p) = ec.get("prompt_template") {
        out.push(format!(
            "{}: {} {} ({})",
            t("提示词模板", "Prompt template"),
            s(&p["name"]),
            s(&p["version"]),
            s(&p["source"])
        ));
    }
    let d = &e.dataset;
    // The data's own figures (beside metadata.json's, when they differ).
    let count = |k: &str| {
        d.counted
            .as_ref()
            .and_then(|c| c.get(k))
            .or_else(|| d.counts.get(k))
            .and_then(Value::as_u64)
    };
    let mut dataset = format!("{}: {} {}", t("数据集", "Dataset"), d.dataset_id, d.version);
    if let Some(n) = count("sample_count") {
        let _ = write!(dataset, " ({n} {}", t("条样本", "samples"));
        if let Some(skipped) = count("line_errors") {
            let _ = write!(dataset, ", {skipped} {}", t("行被跳过", "lines skipped"));
        }
        dataset.push(')');
    }
    out.push(dataset);
    let task = match report_kind(r) {
        Some(RunKind::Task) => true,
        Some(RunKind::Rag | RunKind::Retrieval | RunKind::Dialog) | None => false,
    };
    if task {
        // As a task run describes where its answers came from.
        let source = match (rc["mode"].as_str(), &e.run) {
            (Some("score"), _) => s(&rc["responses"]),
            (_, Some(run)) => format!("{} run {}", s(&rc["backend"]), run.run_id),
            (_, None) => s(&rc["backend"]),
        };
        out.push(format!("{}: {source}", t("回答来源", "Answers")));
    } else if let Some(backend) = rc.get("backend").and_then(Value::as_str) {
        out.push(format!("{}: {backend}", t("后端", "Backend")));
    }
    let models = r.models();
    let models = if models.is_empty() {
        rc.get("model")
            .map(s)
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect()
    } else {
        models
    };
    if !models.is_empty() {
        out.push(format!("{}: {}", t("模型", "Models"), models.join(", ")));
    }
    if let Some(ep) = rc.get("endpoint").and_then(Value::as_str) {
        out.push(format!("Endpoint: {ep}"));
    }
    let metrics: Vec<String> = match ec.get("metrics").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|m| match m["type"].as_str() {
                Some(kind) => format!("{} ({kind})", s(&m["name"])),
                None => s(&m["name"]),
            })
            .collect(),
        None => r.metric_names(),
    };
    if !metrics.is_empty() {
        out.push(format!("{}: {}", t("指标", "Metrics"), metrics.join(", ")));
    }
    if let Some(run) = e.run.as_ref().filter(|_| !task) {
        out.push(format!("Run: {} ({})", run.run_id, run.status));
    }
    out
}

/// What an imported run says of its source: the tool and its files, the
/// models' full ids, where the tool's own figures differ from evalpage's,
/// and what the import could not carry.
pub(crate) fn import_lines(rc: &Value, ec: &Value, lang: Lang) -> Vec<String> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let mut out = vec![format!(
        "{}: {} {} ({})",
        t("导入自", "Imported from"),
        rc["tool"].as_str().unwrap_or_default(),
        rc["tool_version"].as_str().unwrap_or_default(),
        strs(&rc["files"]).join(", ")
    )];
    let ids: Vec<String> = rc["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["name"] != m["id"])
        .map(|m| {
            format!(
                "{} = {}",
                m["name"].as_str().unwrap_or_default(),
                m["id"].as_str().unwrap_or_default()
            )
        })
        .collect();
    if !ids.is_empty() {
        out.push(format!(
            "{}: {}",
            t("模型全名", "Model ids"),
            ids.join(", ")
        ));
    }
    let differences = strs(&ec["differences"]);
    if differences.is_empty()
        && ec["source_aggregates"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    {
        out.push(
            t(
                "来源工具自己的均值与 evalpage 重算的一致",
                "The source tool's own means equal evalpage's recomputation",
            )
            .to_string(),
        );
    }
    for d in differences {
        out.push(format!(
            "{}: {d}",
            t("与来源不同", "Differs from the source")
        ));
    }
    let missing = strs(&ec["not_carried"]);
    if !missing.is_empty() {
        out.push(format!(
            "{}: {}",
            t("未能带入", "Not carried"),
            missing.join("; ")
        ));
    }
    out
}
