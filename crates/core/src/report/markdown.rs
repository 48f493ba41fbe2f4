//! `report.md` of every run, in spec 003's section order: experiment, overall
//! metrics, breakdowns by tag / language / length (the dimensions the cases
//! have), error cases, the LLM judge (when a metric was judged), then the
//! kind's own sections (the RAG check's per-case results, a task's parse
//! problems and skipped lines) and Notes. In Chinese or English; table keys
//! stay in English. A `model` column appears when the rows name their model.

use super::EvaluationResult;
use crate::Lang;
use serde_json::Value;
use std::fmt::Write;

/// Most rows listed per section of individual cases.
pub const MAX_LISTED: usize = 20;

/// What a kind adds to its report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarkdownParts {
    /// The experiment's `- label: value` lines, without the dash.
    pub experiment: Vec<String>,
    /// A line under the overall metrics table, if any.
    pub after_overall: Option<String>,
    /// Whole sections (`## title` and body) placed after the error cases.
    pub sections: Vec<String>,
    /// Notes lines; no Notes section when empty.
    pub notes: Vec<String>,
}

/// Renders `report.md`.
pub fn render(report: &EvaluationResult, parts: &MarkdownParts, lang: Lang) -> String {
    let mut md = format!("# {}\n\n", lang.pick("实验", "Experiment"));
    for line in spec_lines(report, lang).iter().chain(&parts.experiment) {
        let _ = writeln!(md, "- {line}");
    }
    md.push('\n');
    overall(&mut md, report, lang);
    if let Some(line) = &parts.after_overall {
        let _ = writeln!(md, "{line}\n");
    }
    stopped(&mut md, report, lang);
    usage(&mut md, report, lang);
    for (dim, zh, en) in [
        ("tag", "按标签分解", "Breakdown by tag"),
        ("language", "按语言分解", "Breakdown by language"),
        ("length", "按长度分解", "Breakdown by length"),
    ] {
        breakdown(&mut md, report, dim, lang.pick(zh, en));
    }
    error_cases(&mut md, report, lang);
    judges(&mut md, report, lang);
    for section in &parts.sections {
        md.push_str(section);
    }
    if !parts.notes.is_empty() {
        let _ = writeln!(md, "## {}\n", lang.pick("备注", "Notes"));
        for line in &parts.notes {
            let _ = writeln!(md, "{line}");
        }
    }
    md
}

/// Spec 003 §3's experiment lines, from the report's `experiment`: the
/// dataset (id, version, samples), the backend and model, the run config's
/// settings and the evaluator config's metrics.
fn spec_lines(report: &EvaluationResult, lang: Lang) -> Vec<String> {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let e = &report.report.experiment;
    let d = &e.dataset;
    let samples = d
        .counts
        .get("sample_count")
        .and_then(Value::as_u64)
        .map(|n| format!(" ({n} {})", t("条样本", "samples")))
        .unwrap_or_default();
    let rc = &e.run_config;
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let model = match (&rc["model"], &rc["models"]) {
        (Value::String(m), _) => m.clone(),
        (_, Value::Array(ms)) => ms.iter().map(text).collect::<Vec<_>>().join(", "),
        _ => String::new(),
    };
    let mut settings: Vec<String> = Vec::new();
    let mut add = |obj: &serde_json::Map<String, Value>| {
        for (k, v) in obj {
            let skip = matches!(
                k.as_str(),
                "backend" | "model" | "models" | "endpoint" | "system_prompt"
            );
            if !skip && (v.is_number() || v.is_boolean() || v.is_string()) {
                settings.push(format!("{k}={}", text(v)));
            }
        }
    };
    if let Some(obj) = rc.as_object() {
        add(obj);
        if let Some(p) = rc["parameters"].as_object() {
            add(p);
        }
    }
    let mut metrics: Vec<String> = e.evaluator_config["metrics"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["name"].as_str().or_else(|| m.as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if metrics.is_empty() {
        for s in &report.report.summaries {
            if !metrics.contains(&s.metric) {
                metrics.push(s.metric.clone());
            }
        }
    }
    let mut lines = vec![format!(
        "{}: {} {}{samples}",
        t("数据集", "Dataset"),
        d.dataset_id,
        d.version
    )];
    if let Some(backend) = rc["backend"].as_str() {
        lines.push(format!(
            "{}: {backend} (model={model})",
            t("后端", "Backend")
        ));
    }
    if !settings.is_empty() {
        lines.push(format!(
            "{}: {}",
            t("运行配置", "Run config"),
            settings.join(", ")
        ));
    }
    lines.push(format!(
        "{}: metrics=[{}]",
        t("评估配置", "Evaluator config"),
        metrics.join(", ")
    ));
    if rc["kind"] == "import" {
        lines.extend(super::saved::import_lines(rc, &e.evaluator_config, lang));
    }
    lines
}

/// `| a | b |` with each cell made safe.
fn row(cells: &[String]) -> String {
    format!("| {} |", cells.join(" | "))
}

/// A header and its `|---|` line.
fn header(names: &[&str]) -> String {
    format!(
        "{}\n|{}",
        row(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        "---|".repeat(names.len())
    )
}

fn overall(md: &mut String, report: &EvaluationResult, lang: Lang) {
    let rows = &report.report.summaries;
    let by_model = rows.iter().any(|s| s.model.is_some());
    let extra = rows.iter().any(|s| s.skipped.is_some());
    let _ = writeln!(md, "## {}\n", lang.pick("整体指标", "Overall Metrics"));
    let mut names = vec!["metric", "mean", "std", "sample_count"];
    if by_model {
        names.insert(0, "model");
    }
    if extra {
        names.extend(["skipped", "components"]);
    }
    // pass@k and pass^k of a run that asked each sample several times
    let mut ks: Vec<&String> = rows
        .iter()
        .flat_map(|s| s.pass_at_k.iter().flat_map(|m| m.keys()))
        .collect();
    ks.sort_by_key(|k| k.parse::<u64>().unwrap_or(u64::MAX));
    ks.dedup();
    let pass_names: Vec<String> = ks
        .iter()
        .map(|k| format!("pass@{k}"))
        .chain(ks.iter().map(|k| format!("pass^{k}")))
        .collect();
    names.extend(pass_names.iter().map(String::as_str));
    if let Some(r) = &report.report.repeats {
        let _ = writeln!(
            md,
            "{}\n",
            match lang {
                Lang::Zh => format!(
                    "每个样本询问 {} 次：均值为全部回答的均值；pass@k（k 次中至少一次通过）与 pass^k（k 次全部通过）为无偏估计，仅对 0/1 指标给出。",
                    r.n
                ),
                Lang::En => format!(
                    "Each sample was asked {} times: means are over every answer; pass@k (at least one of k passes) and pass^k (all k pass) are unbiased estimates, for 0/1 metrics only.",
                    r.n
                ),
            }
        );
    }
    let _ = writeln!(md, "{}", header(&names));
    for s in rows {
        // a metric no sample has a value for has no mean (the LLM judge
        // section and summary.csv leave it out the same way), never 0
        let num = |v: f64| match s.sample_count {
            0 => "-".to_string(),
            _ => format!("{v:.3}"),
        };
        let mut cells = vec![
            s.metric.clone(),
            num(s.mean),
            num(s.std),
            s.sample_count.to_string(),
        ];
        if by_model {
            cells.insert(0, cell(s.model.as_deref().unwrap_or("")));
        }
        if extra {
            let comps: Vec<String> = s
                .components
                .iter()
                .flatten()
                .map(|(k, v)| format!("{k}={v:.3}"))
                .collect();
            cells.push(s.skipped.unwrap_or(0).to_string());
            cells.push(comps.join(", "));
        }
        cells.extend(pass_names.iter().map(|name| {
            s.figure(name)
                .map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
        }));
        let _ = writeln!(md, "{}", row(&cells));
    }
    md.push('\n');
}

/// A line when the run stopped at a fatal answer, or at its cost cap, and
/// left cases not run.
fn stopped(md: &mut String, report: &EvaluationResult, lang: Lang) {
    let n = report.metrics.not_run_cases;
    let budget = format!("not run: {}", super::BUDGET_STOP);
    let capped = report.report.error_cases.iter().find_map(|e| {
        e.message
            .as_deref()
            .filter(|m| m.starts_with(&budget))
            .map(|m| m.trim_start_matches("not run: ").to_string())
    });
    if n == 0 {
        return;
    }
    let line = match (capped, lang) {
        (Some(why), Lang::Zh) => format!(
            "**运行达到费用上限而停止：{n} 个用例未运行**（{why}）。用更高的 `--max-cost` 和 `--resume-from` 续跑，只发送未得到回答的用例。"
        ),
        (Some(why), Lang::En) => format!(
            "**The run stopped at its cost cap: {n} case(s) not run** ({why}). Resume with a higher `--max-cost` and `--resume-from`: only the cases without an answer are sent."
        ),
        (None, Lang::Zh) => format!(
            "**运行因致命错误（401/403/404）停止：{n} 个用例未运行。** 修复后用 `--resume-from` 续跑，只发送未得到回答的用例。"
        ),
        (None, Lang::En) => format!(
            "**The run stopped at a fatal answer (401/403/404): {n} case(s) not run.** Fix it and resume (`--resume-from`): only the cases without an answer are sent."
        ),
    };
    let _ = writeln!(md, "{line}\n");
}

/// Tokens, latency and cost per model (`report.usage`), when a model answered
/// with usage or timings.
fn usage(md: &mut String, report: &EvaluationResult, lang: Lang) {
    let rows = &report.report.usage;
    // answers read from a file carry neither usage nor timings
    if rows
        .iter()
        .all(|u| u.with_usage == 0 && u.latency_p50_ms.is_none())
    {
        return;
    }
    let priced = rows.iter().any(|u| u.cost.is_some());
    let _ = writeln!(
        md,
        "## {}\n",
        lang.pick("用量、延迟与成本", "Usage, latency and cost")
    );
    let mut names = vec![
        "model",
        "answered",
        "truncated",
        "prompt_tokens",
        "completion_tokens",
        "reasoning_tokens",
        "latency_p50_ms",
        "latency_p95_ms",
        "output_tokens_per_s",
    ];
    // The engine's own speeds, when it timed itself (llama.cpp).
    let timed = rows.iter().any(|u| u.decode_tokens_per_s.is_some());
    if timed {
        names.extend(["prompt_tokens_per_s", "decode_tokens_per_s"]);
    }
    if priced {
        names.extend(["price_in_per_mtok", "price_out_per_mtok", "cost"]);
    }
    let _ = writeln!(md, "{}", header(&names));
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let num = |v: Option<f64>, p: usize| v.map(|v| format!("{v:.p$}")).unwrap_or_default();
    for u in rows {
        let mut cells = vec![
            cell(&match u.role.as_deref() {
                Some(role) => format!("{} ({role})", u.model),
                None => u.model.clone(),
            }),
            u.answered.to_string(),
            u.truncated.to_string(),
            u.prompt_tokens.to_string(),
            u.completion_tokens.to_string(),
            u.reasoning_tokens.to_string(),
            opt(u.latency_p50_ms),
            opt(u.latency_p95_ms),
            num(u.output_tokens_per_s, 1),
        ];
        if timed {
            cells.push(num(u.prompt_tokens_per_s, 1));
            cells.push(num(u.decode_tokens_per_s, 1));
        }
        if priced {
            cells.push(num(u.price_in_per_mtok, 4));
            cells.push(num(u.price_out_per_mtok, 4));
            cells.push(num(u.cost, 6));
        }
        let _ = writeln!(md, "{}", row(&cells));
    }
    md.push('\n');
    for hint in report.token_limit_hints() {
        let _ = writeln!(md, "> {}\n", hint.message(lang));
    }
}

fn breakdown(md: &mut String, report: &EvaluationResult, dim: &str, title: &str) {
    let rows: Vec<_> = report
        .report
        .breakdowns
        .iter()
        .filter(|b| b.dimension == dim)
        .collect();
    if rows.is_empty() {
        return;
    }
    let by_model = rows.iter().any(|b| b.model.is_some());
    let mut names = vec!["metric", dim, "mean", "std", "sample_count"];
    if by_model {
        names.insert(0, "model");
    }
    let _ = writeln!(md, "## {title}\n\n{}", header(&names));
    for b in rows {
        let mut cells = vec![
            b.metric.clone(),
            cell(&b.bucket),
            format!("{:.3}", b.mean),
            format!("{:.3}", b.std),
            b.sample_count.to_string(),
        ];
        if by_model {
            cells.insert(0, cell(b.model.as_deref().unwrap_or("")));
        }
        let _ = writeln!(md, "{}", row(&cells));
    }
    md.push('\n');
}

fn error_cases(md: &mut String, report: &EvaluationResult, lang: Lang) {
    let _ = writeln!(md, "## {}\n", lang.pick("错误用例", "Error Cases"));
    let cases = &report.report.error_cases;
    if cases.is_empty() {
        let none = lang.pick(
            "无错误用例（所有调用均成功）。",
            "No error cases (all calls succeeded).",
        );
        let _ = writeln!(md, "{none}\n");
        return;
    }
    let by_model = cases.iter().any(|c| c.model.is_some());
    let mut names = vec!["sample_id", "status", "status_code", "attempts", "message"];
    if by_model {
        names.insert(0, "model");
    }
    let _ = writeln!(md, "{}", header(&names));
    for c in cases.iter().take(MAX_LISTED) {
        let mut cells = vec![
            cell(&c.sample_id),
            c.status.clone(),
            c.status_code.map(|s| s.to_string()).unwrap_or_default(),
            c.attempts.to_string(),
            cell(c.message.as_deref().unwrap_or("")),
        ];
        if by_model {
            cells.insert(0, cell(c.model.as_deref().unwrap_or("")));
        }
        let _ = writeln!(md, "{}", row(&cells));
    }
    more(md, cases.len(), lang);
    md.push('\n');
}

/// spec 003's LLM judge section: per judged metric (and model) the prompt,
/// the three outcomes (and pairwise ties) with the unscored rate, the mean
/// over scored cases, the agreement figures, then each metric's criteria.
fn judges(md: &mut String, report: &EvaluationResult, lang: Lang) {
    let details = &report.report.llm_judge_details;
    if details.is_empty() {
        return;
    }
    let _ = writeln!(md, "## {}\n", lang.pick("LLM 评审", "LLM judge"));
    let by_model = details.iter().any(|d| d.model.is_some());
    let mut names = vec![
        "metric",
        "judge",
        "prompt",
        "pass",
        "fail",
        "tie",
        "unscored",
        "unscored_rate",
        "mean (scored)",
        "repeats",
        "repeat_agreement",
        "flip_rate",
        "human_kappa",
        "human_agreement",
    ];
    if by_model {
        names.insert(0, "model");
    }
    let _ = writeln!(md, "{}", header(&names));
    let num = |x: Option<f64>| x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into());
    for d in details {
        let mut cells = vec![
            cell(&d.metric),
            cell(d.judge_model.as_deref().unwrap_or("")),
            cell(&format!(
                "{} v{} ({})",
                d.prompt_id,
                d.prompt_version,
                // The prompt's language (reports of earlier versions kept
                // it in `language`).
                d.prompt_language
                    .as_deref()
                    .or(d.language.as_deref())
                    .unwrap_or("-")
            )),
            d.pass.to_string(),
            d.fail.to_string(),
            d.tie.to_string(),
            d.unscored.to_string(),
            num(d.unscored_rate),
            num(d.mean),
            d.samples_per_case.to_string(),
            num(d.repeat_agreement),
            num(d.flip_rate),
            match d.human_kappa {
                Some(k) => format!("{k:.3} (n={})", d.human_labelled),
                None if d.human_labelled > 0 => format!("- (n={})", d.human_labelled),
                None => "-".into(),
            },
            num(d.human_agreement),
        ];
        if by_model {
            cells.insert(0, cell(d.model.as_deref().unwrap_or("")));
        }
        let _ = writeln!(md, "{}", row(&cells));
    }
    md.push('\n');
    let mut seen = std::collections::BTreeSet::new();
    for d in details.iter().filter(|d| seen.insert(d.metric.clone())) {
        let _ = writeln!(
            md,
            "- {} `{}`: {} {}; {}: {}",
            lang.pick("指标", "metric"),
            d.metric,
            d.sample_count,
            lang.pick("个样本送评", "samples judged"),
            lang.pick("评判标准", "criteria"),
            cell(&d.criteria.join("; "))
        );
    }
    let _ = writeln!(
        md,
        "\n{}\n",
        lang.pick(
            "无法评分（unscored）= 评审回答中读不出评分（含修复重问之后），不计入均值；成对比较两种顺序结论不一致记为平局（tie），并计入 flip_rate。",
            "unscored = no verdict could be read from the judge's answer (also after the repair request); it is left out of the mean. A pairwise verdict that flips when the order is swapped counts as a tie and in flip_rate."
        )
    );
}

/// "and N more not listed", when a list was cut at [`MAX_LISTED`].
pub fn more(md: &mut String, total: usize, lang: Lang) {
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

/// Makes text safe inside a Markdown table cell: one line, pipes escaped.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}
