//! `report.md` of a task run: the one renderer (`report::render_md`) with a
//! task's experiment lines, read from its report (task, prompt template,
//! dataset, answers, models, metrics), and its own sections: parse problems
//! and skipped input lines. Everything comes from what the run saves (the
//! report and `results.jsonl`), so `evalpage report` renders a saved run's
//! file again as the run wrote it.

use super::report::ReportInput;
use super::score::{ModelRun, SampleResult};
use crate::report::{cell, experiment_lines, more, render_md, skipped_lines};
use crate::report::{EvaluationResult, MarkdownParts, MAX_LISTED};
use crate::schema::ParseStatus;
use crate::Lang;
use serde_json::Value;
use std::fmt::Write;

/// One model's answers and parse problems.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelProblems {
    /// The model.
    pub model: String,
    /// Its samples.
    pub samples: usize,
    /// Samples it answered.
    pub answered: usize,
    /// Answers with a parse problem.
    pub problems: usize,
}

/// A task run's parse problems: per model, then each problem (model,
/// sample id, the problem in one line), models in order and samples in
/// dataset order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParseProblems {
    /// Per model.
    pub models: Vec<ModelProblems>,
    /// Every problem.
    pub listed: Vec<(String, String, String)>,
}

/// Why a run's `results.jsonl` could not be read for its parse problems:
/// each names the line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ResultsError {
    /// A line that is not JSON.
    #[error("line {line}: not JSON ({reason})")]
    NotJson {
        /// The line, from 1.
        line: usize,
        /// What the JSON reader said.
        reason: String,
    },
    /// A line without its model or its sample id.
    #[error("line {line}: `{key}` missing; a task run's line names its model and sample")]
    Missing {
        /// The line, from 1.
        line: usize,
        /// `model` or `sample_id`.
        key: &'static str,
    },
}

impl ParseProblems {
    /// The problems of a run's scored answers.
    pub fn of(input: &ReportInput<'_>) -> ParseProblems {
        let models = input.scored.models.iter();
        let id = |r: &SampleResult| {
            input
                .data
                .samples
                .get(r.index)
                .map_or(String::new(), |s| s.sample.id.clone())
        };
        ParseProblems {
            models: models
                .clone()
                .map(|m: &ModelRun| ModelProblems {
                    model: m.model.clone(),
                    samples: m.results.len(),
                    answered: m.answered(),
                    problems: m.parse_problems(),
                })
                .collect(),
            listed: models
                .flat_map(|m| m.results.iter().map(move |r| (m, r)))
                .filter(|(_, r)| r.has_parse_problem())
                .map(|(m, r)| (m.model.clone(), id(r), problem(r)))
                .collect(),
        }
    }

    /// The problems as a run's `results.jsonl` records them (each line's
    /// `model`, `sample_id`, `status`, `parse_problem`, `json_error` and
    /// `parsed`). A line that is not a JSON object, or lacks `model` or
    /// `sample_id`, is an error naming its line.
    pub fn from_results(text: &str) -> Result<ParseProblems, ResultsError> {
        let mut out = ParseProblems::default();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value = serde_json::from_str(line).map_err(|e| ResultsError::NotJson {
                line: n + 1,
                reason: e.to_string(),
            })?;
            let field = |key: &'static str| {
                v.get(key)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or(ResultsError::Missing { line: n + 1, key })
            };
            let (model, id) = (field("model")?, field("sample_id")?);
            let index = match out.models.iter().position(|m| m.model == model) {
                Some(i) => i,
                None => {
                    out.models.push(ModelProblems {
                        model: model.clone(),
                        ..ModelProblems::default()
                    });
                    out.models.len() - 1
                }
            };
            let m = &mut out.models[index];
            m.samples += 1;
            if v.get("status").and_then(Value::as_str) == Some("ok") {
                m.answered += 1;
            }
            if v.get("parse_problem").and_then(Value::as_bool) == Some(true) {
                m.problems += 1;
                out.listed.push((model, id, saved_problem(&v)));
            }
        }
        Ok(out)
    }

    /// What a lone report gives: per model its samples, answers and the
    /// answers whose verdict is not passed (`ok` and not passed: a parse
    /// problem), and no problem's text.
    pub fn from_report(r: &EvaluationResult) -> ParseProblems {
        let mut out = ParseProblems::default();
        for c in &r.cases {
            let index = match out.models.iter().position(|m| m.model == c.model) {
                Some(i) => i,
                None => {
                    out.models.push(ModelProblems {
                        model: c.model.clone(),
                        ..ModelProblems::default()
                    });
                    out.models.len() - 1
                }
            };
            let m = &mut out.models[index];
            m.samples += 1;
            if c.status == "ok" {
                m.answered += 1;
                m.problems += usize::from(!c.passed);
            }
        }
        out
    }

    /// The section.
    fn render(&self, lang: Lang) -> String {
        let mut md = format!("## {}\n\n", lang.pick("解析问题", "Parse problems"));
        md.push_str("| model | samples | answered | unanswered (failed / no response) | parse_problems |\n|---|---|---|---|---|\n");
        for m in &self.models {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&m.model),
                m.samples,
                m.answered,
                m.samples - m.answered,
                m.problems
            );
        }
        if !self.listed.is_empty() {
            let _ = writeln!(md, "\n| model | sample_id | problem |\n|---|---|---|");
        }
        for (model, id, problem) in self.listed.iter().take(MAX_LISTED) {
            let _ = writeln!(md, "| {} | {} | {} |", cell(model), cell(id), cell(problem));
        }
        more(&mut md, self.listed.len(), lang);
        if self.listed.is_empty() && self.models.iter().any(|m| m.problems > 0) {
            // Read back from a lone report: the problems are not in it.
            let _ = writeln!(
                md,
                "\n{}",
                lang.pick(
                    "每个解析问题的详情在该次运行的 results.jsonl 中。",
                    "Each parse problem is described in the run's results.jsonl."
                )
            );
        }
        md.push('\n');
        md
    }
}

/// Renders `report.md` of a task run from its report and its parse
/// problems.
pub fn render(report: &EvaluationResult, problems: &ParseProblems, lang: Lang) -> String {
    let parts = MarkdownParts {
        experiment: experiment_lines(report, lang),
        after_overall: None,
        sections: vec![
            problems.render(lang),
            tool_call_failures(report, lang),
            skipped_lines(report, lang),
        ],
        notes: Vec::new(),
    };
    render_md(report, &parts, lang)
}

/// The answers whose calls a `tool_call` metric failed: model, sample, the
/// error type and the calls made (the first [`MAX_LISTED`]); nothing when no
/// score carries an error type.
fn tool_call_failures(report: &EvaluationResult, lang: Lang) -> String {
    let failed: Vec<_> = report
        .scores
        .iter()
        .filter_map(|s| Some((s, s.detail.get("error_type")?.as_str()?)))
        .collect();
    if failed.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "## {}

| model | sample_id | metric | error type | calls |\n|---|---|---|---|---|\n",
        lang.pick("工具调用失败", "Tool-call failures")
    );
    for (s, error_type) in failed.iter().take(MAX_LISTED) {
        let calls = match s.detail.get("calls") {
            Some(Value::Array(c)) if c.is_empty() => {
                lang.pick("（无调用）", "(no call)").to_string()
            }
            Some(Value::Array(c)) => c
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; "),
            _ => lang.pick("（文本回答）", "(a text answer)").to_string(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            cell(s.model().unwrap_or("")),
            cell(&s.sample_id),
            cell(&s.metric),
            cell(error_type),
            cell(&crate::text::truncate_chars(&calls, 200))
        );
    }
    more(&mut md, failed.len(), lang);
    md.push('\n');
    md
}

/// The parse problem of one answer, in one line: why no JSON object was
/// found, else each field not taken as written (`field: status (reason)`).
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

/// [`problem`] of a `results.jsonl` line.
fn saved_problem(v: &Value) -> String {
    if let Some(e) = v.get("json_error").and_then(Value::as_str) {
        return e.to_string();
    }
    let fields = v.get("parsed").and_then(Value::as_array);
    let parts: Vec<String> = fields
        .into_iter()
        .flatten()
        .filter(|f| f.get("status").and_then(Value::as_str) != Some("parsed"))
        .map(|f| {
            let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("");
            format!("{}: {} ({})", text("field"), text("status"), text("reason"))
        })
        .collect();
    parts.join("; ")
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
        let problems = ParseProblems::of(&input);
        let md = render(&build(&input), &problems, Lang::En);
        assert!(md.starts_with("# Experiment\n"));
        assert!(md.contains("- Prompt template: ie_json v1 (builtin)"));
        assert!(
            md.contains("| m1 | impact | 0.500 | 0.500 | 2 | 0 | hit_rate=0.500, mae=1.500 |"),
            "{md}"
        );
        assert!(md.contains("## Breakdown by tag"));
        // untagged or not, generic samples are measured (spec 003 §3)
        assert!(
            md.contains("## Breakdown by length\n\n| model | metric | length |"),
            "{md}"
        );
        assert!(
            md.contains("| m1 | sentiment_acc | short | 0.500 |"),
            "{md}"
        );
        assert!(md.contains("| m1 | 2 | 2 | 0 | 1 |"));
        assert!(md.contains("| m2 | S2 | no_response |"));
        let zh = render(&build(&input), &problems, Lang::Zh);
        // The same section from the run's results.jsonl.
        let again = ParseProblems::from_results(&f.results_jsonl()).expect("results");
        assert_eq!(again, problems);
        assert!(zh.starts_with("# 实验\n"));
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }

    #[test]
    fn untagged_samples_without_language_still_get_the_breakdown_by_length() {
        let mut f = fixture();
        for s in &mut f.data.samples {
            (s.tags, s.language) = (Vec::new(), None);
        }
        let input = f.input();
        let problems = ParseProblems::of(&input);
        let md = render(&build(&input), &problems, Lang::En);
        assert!(!md.contains("## Breakdown by tag"), "{md}");
        assert!(!md.contains("## Breakdown by language"), "{md}");
        assert!(md.contains("## Breakdown by length"), "{md}");
        let zh = render(&build(&input), &problems, Lang::Zh);
        assert!(zh.contains("## 按长度分解"), "{zh}");
    }

    #[test]
    fn a_metric_no_sample_has_a_value_for_shows_no_mean() {
        let mut f = fixture();
        let (_, agg) = &mut f.scored.models[1].aggregates[0];
        (agg.sample_count, agg.skipped) = (0, 2);
        let input = f.input();
        let md = render(&build(&input), &ParseProblems::of(&input), Lang::En);
        assert!(
            md.contains("| m2 | sentiment_acc | - | - | 0 | 2 |"),
            "{md}"
        );
    }

    #[test]
    fn a_results_line_that_cannot_be_read_is_named() {
        let e = ParseProblems::from_results("{\"model\": \"m\", \"sample_id\": \"a\"}\nnope\n")
            .expect_err("line 2 is not JSON");
        assert!(matches!(e, ResultsError::NotJson { line: 2, .. }), "{e:?}");
        assert!(e.to_string().starts_with("line 2: not JSON ("), "{e}");
        let e = ParseProblems::from_results("\n{\"model\": \"m\"}\n").expect_err("no sample id");
        assert_eq!(
            e,
            ResultsError::Missing {
                line: 2,
                key: "sample_id"
            }
        );
        assert_eq!(
            e.to_string(),
            "line 2: `sample_id` missing; a task run's line names its model and sample"
        );
    }
}
