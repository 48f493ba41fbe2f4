//! `report.md` of a task run (spec 003 §3's sections, for several models):
//! experiment, overall metrics per model, breakdowns by tag / language /
//! length (only the dimensions the samples have), parse problems, error cases
//! and skipped input lines. In Chinese or English; table keys stay in English.

use super::report::{ModelBreakdown, TaskReport};
use super::score::{ModelRun, SampleResult};
use super::ReportInput;
use crate::report::cell;
use crate::schema::ParseStatus;
use crate::Lang;
use std::fmt::Write;

/// Most rows listed per section of individual cases.
pub const MAX_LISTED: usize = 20;

/// Renders `report.md`.
pub fn render(input: &ReportInput<'_>, report: &TaskReport, lang: Lang) -> String {
    let mut md = String::new();
    experiment(&mut md, input, lang);
    overall(&mut md, report, lang);
    for (dim, zh, en) in [
        ("tag", "按标签", "By tag"),
        ("language", "按语言", "By language"),
        ("length", "按长度", "By length"),
    ] {
        breakdown(&mut md, report, dim, lang.pick(zh, en));
    }
    parse_problems(&mut md, input, lang);
    error_cases(&mut md, report, lang);
    line_errors(&mut md, input, lang);
    md
}

fn experiment(md: &mut String, input: &ReportInput<'_>, lang: Lang) {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let (i, d) = (input.info, &input.data.metadata);
    let models: Vec<&str> = input
        .scored
        .models
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    let _ = writeln!(md, "# {}\n", t("评测报告", "Evaluation report"));
    let _ = writeln!(
        md,
        "- {}: {} {} ({})",
        t("任务", "Task"),
        i.name,
        i.version,
        i.source
    );
    let _ = writeln!(
        md,
        "- {}: {} {} ({})",
        t("提示词模板", "Prompt template"),
        i.prompt_name,
        i.prompt_version,
        i.prompt_source
    );
    let _ = writeln!(
        md,
        "- {}: {} {} ({} {}, {} {})",
        t("数据集", "Dataset"),
        d.dataset_id,
        d.version,
        input.data.samples.len(),
        t("条样本", "samples"),
        input.data.errors.len(),
        t("行被跳过", "lines skipped")
    );
    let _ = writeln!(
        md,
        "- {}: {}",
        t("回答来源", "Answers"),
        input.source.describe()
    );
    let _ = writeln!(md, "- {}: {}", t("模型", "Models"), models.join(", "));
    let metrics: Vec<String> = input
        .task
        .metrics
        .iter()
        .map(|m| format!("{} ({})", m.name, m.kind))
        .collect();
    let _ = writeln!(md, "- {}: {}\n", t("指标", "Metrics"), metrics.join(", "));
}

fn overall(md: &mut String, report: &TaskReport, lang: Lang) {
    let _ = writeln!(md, "## {}\n", lang.pick("整体指标", "Overall metrics"));
    let _ = writeln!(
        md,
        "| model | metric | mean | std | sample_count | skipped | components |\n|---|---|---|---|---|---|---|"
    );
    for s in &report.report.summaries {
        let comps: Vec<String> = s
            .components
            .iter()
            .map(|(k, v)| format!("{k}={v:.3}"))
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {:.3} | {} | {} | {} |",
            cell(&s.model),
            s.summary.metric,
            s.summary.mean,
            s.summary.std,
            s.summary.sample_count,
            s.skipped,
            comps.join(", ")
        );
    }
    md.push('\n');
}

fn breakdown(md: &mut String, report: &TaskReport, dim: &str, title: &str) {
    let rows: Vec<&ModelBreakdown> = report
        .report
        .breakdowns
        .iter()
        .filter(|b| b.breakdown.dimension == dim)
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(md, "## {title}\n");
    let _ = writeln!(
        md,
        "| model | metric | {dim} | mean | std | sample_count |\n|---|---|---|---|---|---|"
    );
    for r in rows {
        let b = &r.breakdown;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.3} | {:.3} | {} |",
            cell(&r.model),
            b.metric,
            cell(&b.bucket),
            b.mean,
            b.std,
            b.sample_count
        );
    }
    md.push('\n');
}

fn parse_problems(md: &mut String, input: &ReportInput<'_>, lang: Lang) {
    let _ = writeln!(md, "## {}\n", lang.pick("解析问题", "Parse problems"));
    let _ = writeln!(
        md,
        "| model | samples | answered | unanswered (failed / no response) | parse_problems |\n|---|---|---|---|---|"
    );
    for m in &input.scored.models {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            cell(&m.model),
            m.results.len(),
            m.answered(),
            m.results.len() - m.answered(),
            m.parse_problems()
        );
    }
    let listed: Vec<(&ModelRun, &SampleResult)> = input
        .scored
        .models
        .iter()
        .flat_map(|m| m.results.iter().map(move |r| (m, r)))
        .filter(|(_, r)| r.has_parse_problem())
        .collect();
    if !listed.is_empty() {
        let _ = writeln!(md, "\n| model | sample_id | problem |\n|---|---|---|");
    }
    for (m, r) in listed.iter().take(MAX_LISTED) {
        let id = input
            .data
            .samples
            .get(r.index)
            .map_or("", |s| s.sample.id.as_str());
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            cell(&m.model),
            cell(id),
            cell(&problem(r))
        );
    }
    more(md, listed.len(), lang);
    md.push('\n');
}

/// The parse problem of one answer, in one line.
fn problem(r: &SampleResult) -> String {
    if let Some(e) = &r.parsed.json_error {
        return e.clone();
    }
    let parts: Vec<String> = r
        .parsed
        .fields
        .iter()
        .filter(|f| f.status != ParseStatus::Parsed)
        .map(|f| {
            let status = serde_json::to_value(f.status).unwrap_or_default();
            let reason = f.reason.as_deref().unwrap_or("");
            format!("{}: {} ({reason})", f.field, status.as_str().unwrap_or(""))
        })
        .collect();
    parts.join("; ")
}

fn error_cases(md: &mut String, report: &TaskReport, lang: Lang) {
    let _ = writeln!(md, "## {}\n", lang.pick("错误用例", "Error cases"));
    let cases = &report.report.error_cases;
    if cases.is_empty() {
        let _ = writeln!(
            md,
            "{}\n",
            lang.pick(
                "无错误用例：每个样本都有回答。",
                "No error cases: every sample was answered."
            )
        );
        return;
    }
    let _ = writeln!(
        md,
        "| model | sample_id | status | message |\n|---|---|---|---|"
    );
    for c in cases.iter().take(MAX_LISTED) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cell(&c.model),
            cell(&c.case.sample_id),
            c.case.status,
            cell(c.case.message.as_deref().unwrap_or(""))
        );
    }
    more(md, cases.len(), lang);
    md.push('\n');
}

fn line_errors(md: &mut String, input: &ReportInput<'_>, lang: Lang) {
    if input.line_errors.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "## {}\n",
        lang.pick("跳过的输入行", "Skipped input lines")
    );
    for e in input.line_errors.iter().take(MAX_LISTED) {
        let _ = writeln!(md, "- {}", cell(&e.to_string()));
    }
    more(md, input.line_errors.len(), lang);
    md.push('\n');
}

fn more(md: &mut String, total: usize, lang: Lang) {
    if total > MAX_LISTED {
        let rest = total - MAX_LISTED;
        let _ = writeln!(
            md,
            "\n{} {rest} {}",
            lang.pick("另有", "and"),
            lang.pick("条未列出。", "more not listed.")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::report::build;
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn sections_and_rows() {
        let f = fixture();
        let input = f.input();
        let md = render(&input, &build(&input), Lang::En);
        assert!(md.starts_with("# Evaluation report\n"));
        assert!(md.contains("- Prompt template: ie_json v1 (builtin)"));
        assert!(
            md.contains("| m1 | impact | 0.500 | 0.500 | 2 | 0 | hit_rate=0.500, mae=1.500 |"),
            "{md}"
        );
        assert!(md.contains("## By tag"));
        assert!(!md.contains("## By length"));
        assert!(md.contains("| m1 | 2 | 2 | 0 | 1 |"));
        assert!(md.contains("| m2 | S2 | no_response |"));
        let zh = render(&input, &build(&input), Lang::Zh);
        assert!(zh.starts_with("# 评测报告\n"));
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
