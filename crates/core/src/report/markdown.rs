//! `report.md`: experiment, overall metrics, breakdowns, error cases, per-case
//! results and notes (spec 003 section 3), in Chinese or English.

use super::EvaluationResult;
use crate::console::notes;
use crate::run::Engine;
use crate::Lang;
use std::fmt::Write;

/// Renders the Markdown report.
pub fn render_markdown(engine: &Engine, report: &EvaluationResult, lang: Lang) -> String {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let e = &report.report.experiment;
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", t("评测报告", "Evaluation report"));
    let _ = writeln!(
        md,
        "- {}: {} ({} {})",
        t("数据集", "Dataset"),
        e.dataset.name.as_deref().unwrap_or(""),
        report.metrics.cases,
        t("条用例", "cases")
    );
    let rc = &e.run_config;
    let _ = writeln!(
        md,
        "- {}: {} (model={})",
        t("后端", "Backend"),
        rc["backend"].as_str().unwrap_or(""),
        rc["model"].as_str().unwrap_or("")
    );
    if let Some(ep) = rc["endpoint"].as_str() {
        let _ = writeln!(md, "- Endpoint: {ep}");
    }
    let _ = writeln!(
        md,
        "- {}: {}",
        t("关键点匹配", "Keypoint match"),
        e.evaluator_config["keypoint_match"]
    );
    let _ = writeln!(md, "- Run: {} ({})\n", e.run.run_id, e.run.status);
    let _ = writeln!(md, "## {}\n", t("整体指标", "Overall metrics"));
    let _ = writeln!(
        md,
        "| metric | mean | std | sample_count |\n|---|---|---|---|"
    );
    for s in &report.report.summaries {
        let _ = writeln!(
            md,
            "| {} | {:.3} | {:.3} | {} |",
            s.metric, s.mean, s.std, s.sample_count
        );
    }
    let _ = writeln!(
        md,
        "\n{}: {} / {}\n",
        t("模型调用失败", "Failed model calls"),
        report.metrics.failed_calls,
        report.metrics.cases
    );
    for dim in ["tag", "language", "length"] {
        let rows: Vec<_> = report
            .report
            .breakdowns
            .iter()
            .filter(|b| b.dimension == dim)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(
            md,
            "## {} {dim}\n\n| metric | {dim} | mean | std | sample_count |\n|---|---|---|---|---|",
            t("分解：", "Breakdown by")
        );
        for b in rows {
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.3} | {} |",
                b.metric,
                cell(&b.bucket),
                b.mean,
                b.std,
                b.sample_count
            );
        }
        md.push('\n');
    }
    let _ = writeln!(md, "## {}\n", t("错误用例", "Error cases"));
    if report.report.error_cases.is_empty() {
        let _ = writeln!(
            md,
            "{}\n",
            t(
                "无错误用例（所有调用均成功）。",
                "No error cases (all calls succeeded)."
            )
        );
    } else {
        let _ = writeln!(
            md,
            "| sample_id | status | status_code | attempts | message |\n|---|---|---|---|---|"
        );
        for c in &report.report.error_cases {
            let code = c.status_code.map(|s| s.to_string()).unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&c.sample_id),
                c.status,
                code,
                c.attempts,
                cell(c.message.as_deref().unwrap_or(""))
            );
        }
        md.push('\n');
    }
    let _ = writeln!(md, "## {}\n", t("单例结果", "Per-case results"));
    let _ = writeln!(
        md,
        "| id | {} | {} | {} |\n|---|---|---|---|",
        t("问题", "question"),
        t("准确率", "accuracy"),
        t("引用率", "citation")
    );
    for r in engine.results().iter().flatten() {
        let q = &engine.cases()[r.index].q;
        let mark = |b: bool| if b { "√" } else { "×" };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cell(&r.case_id),
            cell(q),
            mark(r.accurate()),
            mark(r.cited())
        );
    }
    let _ = writeln!(md, "\n## Notes\n");
    for line in notes(lang, engine) {
        let _ = writeln!(md, "{line}");
    }
    md
}

/// Makes text safe inside a Markdown table cell: one line, pipes escaped.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}
