//! `report.md` of a task run: the one renderer (`report::render_md`) with a
//! task's experiment lines (task, prompt template, dataset, answers, models,
//! metrics) and its own sections: parse problems and skipped input lines.

use super::report::TaskReport;
use super::score::{ModelRun, SampleResult};
use super::ReportInput;
use crate::report::{cell, more, render_md, MarkdownParts, MAX_LISTED};
use crate::schema::ParseStatus;
use crate::Lang;
use std::fmt::Write;

/// Renders `report.md`.
pub fn render(input: &ReportInput<'_>, report: &TaskReport, lang: Lang) -> String {
    let mut problems = String::new();
    parse_problems(&mut problems, input, lang);
    let mut skipped = String::new();
    line_errors(&mut skipped, input, lang);
    let parts = MarkdownParts {
        experiment: experiment(input, lang),
        after_overall: None,
        sections: vec![problems, skipped],
        notes: Vec::new(),
    };
    render_md(report, &parts, lang)
}

fn experiment(input: &ReportInput<'_>, lang: Lang) -> Vec<String> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let (i, d) = (input.info, &input.data.metadata);
    let models: Vec<&str> = input
        .scored
        .models
        .iter()
        .map(|m| m.model.as_str())
        .collect();
    let metrics: Vec<String> = input
        .task
        .metrics
        .iter()
        .map(|m| format!("{} ({})", m.name, m.kind))
        .collect();
    vec![
        format!(
            "{}: {} {} ({})",
            t("任务", "Task"),
            i.name,
            i.version,
            i.source
        ),
        format!(
            "{}: {} {} ({})",
            t("提示词模板", "Prompt template"),
            i.prompt_name,
            i.prompt_version,
            i.prompt_source
        ),
        format!(
            "{}: {} {} ({} {}, {} {})",
            t("数据集", "Dataset"),
            d.dataset_id,
            d.version,
            input.data.samples.len(),
            t("条样本", "samples"),
            input.data.errors.len(),
            t("行被跳过", "lines skipped")
        ),
        format!("{}: {}", t("回答来源", "Answers"), input.source.describe()),
        format!("{}: {}", t("模型", "Models"), models.join(", ")),
        format!("{}: {}", t("指标", "Metrics"), metrics.join(", ")),
    ]
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
        assert!(md.starts_with("# Experiment\n"));
        assert!(md.contains("- Prompt template: ie_json v1 (builtin)"));
        assert!(
            md.contains("| m1 | impact | 0.500 | 0.500 | 2 | 0 | hit_rate=0.500, mae=1.500 |"),
            "{md}"
        );
        assert!(md.contains("## Breakdown by tag"));
        assert!(!md.contains("## Breakdown by length"));
        assert!(md.contains("| m1 | 2 | 2 | 0 | 1 |"));
        assert!(md.contains("| m2 | S2 | no_response |"));
        let zh = render(&input, &build(&input), Lang::Zh);
        assert!(zh.starts_with("# 实验\n"));
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }

    #[test]
    fn a_metric_no_sample_has_a_value_for_shows_no_mean() {
        let mut f = fixture();
        let (_, agg) = &mut f.scored.models[1].aggregates[0];
        (agg.sample_count, agg.skipped) = (0, 2);
        let input = f.input();
        let md = render(&input, &build(&input), Lang::En);
        assert!(
            md.contains("| m2 | sentiment_acc | - | - | 0 | 2 |"),
            "{md}"
        );
    }
}
