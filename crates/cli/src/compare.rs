//! `evalpage compare BASE NEW... [--fail-if-drop METRIC=DELTA]...
//! [--fail-if-kappa-below K]`: saved runs (or two models of one, `--models
//! A,B`) compared case by case with the base by the core
//! (`evalpage_core::compare`), each NEW on its own, printed as a table with
//! the per-case diff, and gated for CI: on drops, and on each NEW's judge's
//! κ against people (the core's `review::kappa_gate`, as `evalpage agree`'s
//! gate), read from the `agreement.json` beside its report (`evalpage agree
//! ... --out RUNDIR`) or else the report's `human_kappa`. Exit 0 when no
//! rule fails, 1 when one does (the reasons are printed), 2 on bad input: a
//! missing or unreadable report, a rule that is not METRIC=DELTA or names a
//! metric the reports do not both have, a bad agreement.json, or a NEW with
//! no κ to gate on.

use crate::args::CompareArgs;
use crate::error::CliError;
use crate::report::{pretty, read_report};
use evalpage_core::report::EvaluationResult;
use evalpage_core::review::{kappa_gate, kappa_rows_of_agreement, kappa_rows_of_judges, KappaRow};
use evalpage_core::{
    check_gate, ci_level, compare, fmt_p, CaseDiff, CaseKey, CompareMetrics, CompareModels,
    CompareOptions, Comparison, GateOutcome, GateRule, GateVerdict, MetricRow, Pairing,
};
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// Compares BASE with each NEW (BASE itself with `--models` and no NEW), prints,
/// writes `--json`, and gates: exit 1 when a rule fails for any NEW.
pub fn execute(args: &CompareArgs) -> Result<(), CliError> {
    let rules = args
        .fail_if_drop
        .iter()
        .map(|r| GateRule::parse(r).map_err(|e| CliError::Usage(format!("--fail-if-drop {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let models = args.models.as_deref().map(parse_models).transpose()?;
    let metrics = args
        .metrics
        .as_deref()
        .map(|m| {
            parse_pair(m, "--metrics", "metric").map(|(base, new)| CompareMetrics { base, new })
        })
        .transpose()?;
    let (base_path, base) = read_report(&args.base)?;
    // Every file is read (and every rule checked) before anything is printed, so
    // bad input exits 2 with nothing half done.
    let mut news = Vec::new();
    for p in &args.new {
        news.push(read_report(p)?);
    }
    if news.is_empty() {
        news.push((base_path.clone(), base.clone()));
    }
    let opts = CompareOptions {
        seed: args.seed,
        alpha: args.alpha,
        models,
        metrics,
        ..CompareOptions::default()
    };
    // κ against people of each NEW, read (and found) before anything is printed
    let kappas = match args.fail_if_kappa_below {
        Some(_) => news
            .iter()
            .map(|(p, r)| kappa_of(p, r, opts.models.as_ref().map(|m| m.new.as_str())).map(Some))
            .collect::<Result<Vec<_>, _>>()?,
        None => vec![None; news.len()],
    };
    let mut done = Vec::new();
    for (new_path, new) in &news {
        let cmp = compare(&base, new, &opts).map_err(|e| {
            CliError::Usage(format!(
                "{} against {}: {e}",
                new_path.display(),
                base_path.display()
            ))
        })?;
        // With --metrics A,B, new's metric B is compared under base's name A.
        let mut new_names = new.metric_names();
        if let Some(m) = &opts.metrics {
            new_names.push(m.base.clone());
        }
        let verdicts = check_gate(&cmp, &rules, &base.metric_names(), &new_names)
            .map_err(|e| CliError::Usage(format!("{}: {e}", new_path.display())))?;
        done.push((new_path, cmp, verdicts));
    }
    let mut text = format!("base: {}\n", base_path.display());
    if done.len() > 1 {
        text.push_str(&format!(
            "{} runs, each compared with the base on its own (no correction for the number of comparisons)\n",
            done.len()
        ));
    }
    let mut kappa_failed: Vec<Vec<String>> = Vec::new();
    for ((new_path, cmp, verdicts), kappa) in done.iter().zip(&kappas) {
        if done.len() > 1 {
            text.push_str("\n== ");
        }
        text.push_str(&format!("new:  {}\n", new_path.display()));
        for line in render(cmp, verdicts, args.show) {
            text.push_str(&line);
            text.push('\n');
        }
        if let (Some(k), Some(source)) = (args.fail_if_kappa_below, kappa) {
            let failed = kappa_gate(&source.rows, k);
            if verdicts.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("κ against people from {}\n", source.from));
            if failed.is_empty() {
                text.push_str(&format!("gate ok   κ of {} at least {k}\n", source.names()));
            }
            for f in &failed {
                text.push_str(&format!("gate FAIL {f}\n"));
            }
            kappa_failed.push(failed);
        } else {
            kappa_failed.push(Vec::new());
        }
    }
    // One write; a closed pipe (`| head`) is not an error of the comparison.
    let _ = std::io::stdout().write_all(text.as_bytes());
    if let Some(out) = &args.json {
        let one = |i: usize| {
            let (new_path, cmp, verdicts) = &done[i];
            let mut doc = json!({
                "base": base_path.display().to_string(),
                "new": new_path.display().to_string(),
                "comparison": cmp,
                "gate": verdicts,
            });
            if let (Some(k), Some(source)) = (args.fail_if_kappa_below, &kappas[i]) {
                doc["kappa_gate"] = json!({
                    "k": k,
                    "from": source.from,
                    "kappa": source.rows.iter().map(|r| json!({
                        "metric": r.metric, "model": r.model, "n": r.n,
                        "cohen_kappa": r.kappa, "undefined": r.why,
                    })).collect::<Vec<_>>(),
                    "failed": kappa_failed[i],
                });
            }
            doc
        };
        // One NEW: the comparison's object; several: {"base", "comparisons": [one per NEW]}.
        let doc = if done.len() == 1 {
            one(0)
        } else {
            json!({
                "base": base_path.display().to_string(),
                "comparisons": (0..done.len()).map(one).collect::<Vec<_>>(),
            })
        };
        std::fs::write(out, pretty(&doc)?).map_err(|e| CliError::output(out, e))?;
    }
    let failed = done
        .iter()
        .flat_map(|(_, _, v)| v)
        .filter(|v| v.outcome == GateOutcome::Fail)
        .count();
    let kappa_failed: usize = kappa_failed.iter().map(Vec::len).sum();
    match (failed, kappa_failed) {
        (0, 0) => Ok(()),
        (0, k) => Err(CliError::KappaGate(k)),
        (d, k) => {
            if k > 0 {
                eprintln!(
                    "evalpage: the agreement gate failed too: {k} metric(s) agree with people less than required"
                );
            }
            Err(CliError::GateFailed(d))
        }
    }
}

/// A NEW run's κ against people, and where it was read.
#[derive(Clone, Debug)]
struct KappaSource {
    /// The file it came from (agreement.json, or the report's `human_kappa`).
    from: String,
    rows: Vec<KappaRow>,
}

impl KappaSource {
    fn names(&self) -> String {
        let names: Vec<String> = self
            .rows
            .iter()
            .map(|r| match &r.model {
                Some(m) => format!("{} ({m})", r.metric),
                None => r.metric.clone(),
            })
            .collect();
        names.join(", ")
    }
}

/// The κ rows of the run whose report is `report_path`: its folder's
/// agreement.json when there is one, else the report's judges checked
/// against the dataset's human labels; with `--models A,B`, model B's (and
/// unnamed ones). None at all: exit 2, saying how to get one.
fn kappa_of(
    report_path: &Path,
    report: &EvaluationResult,
    model: Option<&str>,
) -> Result<KappaSource, CliError> {
    let dir = report_path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let agreement = dir.join("agreement.json");
    let (from, mut rows) = if agreement.is_file() {
        let shown = agreement.display().to_string();
        let text = std::fs::read_to_string(&agreement).map_err(|e| CliError::Input {
            path: shown.clone(),
            message: format!("cannot read it: {e}"),
        })?;
        let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| CliError::Input {
            path: format!("{shown}:{}:{}", e.line(), e.column()),
            message: "not JSON (an agreement.json of `evalpage agree`)".into(),
        })?;
        let rows = kappa_rows_of_agreement(&doc).map_err(|message| CliError::Input {
            path: shown.clone(),
            message,
        })?;
        (shown, rows)
    } else {
        (
            format!("{} (human_kappa)", report_path.display()),
            kappa_rows_of_judges(&report.report.llm_judge_details),
        )
    };
    if let Some(m) = model {
        rows.retain(|r| r.model.as_deref().is_none_or(|x| x == m));
    }
    if rows.is_empty() {
        let whose = model.map_or(String::new(), |m| format!(" for model {m}"));
        let looked = if agreement.is_file() {
            format!("{} lists no metric{whose}", agreement.display())
        } else {
            format!(
                "no agreement.json in {}, and no judged metric{whose} of the report was checked against human labels",
                dir.display()
            )
        };
        return Err(CliError::Usage(format!(
            "--fail-if-kappa-below: {} has no κ against people to gate on ({looked}): \
             measure its judge against people's labels with `evalpage agree {} LABELS... --out {}`, \
             or give the task's judge a `human_label_field` so the run measures it",
            report_path.display(),
            dir.display(),
            dir.display()
        )));
    }
    Ok(KappaSource { from, rows })
}

/// `A,B` into the two models.
fn parse_models(text: &str) -> Result<CompareModels, CliError> {
    parse_pair(text, "--models", "model").map(|(base, new)| CompareModels { base, new })
}

/// `A,B` of a flag into its two names.
fn parse_pair(text: &str, flag: &str, what: &str) -> Result<(String, String), CliError> {
    match text.split_once(',') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() && !b.contains(',') => {
            Ok((a.trim().to_string(), b.trim().to_string()))
        }
        _ => Err(CliError::Usage(format!(
            "{flag} {text:?}: give two {what} names, A,B (A of BASE against B of NEW)"
        ))),
    }
}

/// The table, the per-case diff and the gate, line by line.
pub fn render(cmp: &Comparison, verdicts: &[GateVerdict], show: usize) -> Vec<String> {
    let mut out = vec![format!(
        "paired {}; bootstrap of the mean difference: {} resamples, seed {}, {} intervals; McNemar exact two-sided for 0/1 metrics",
        match &cmp.pairing {
            Pairing::Case => "by sample_id (one model a side, names ignored)".to_string(),
            Pairing::ModelAndCase => "by model and sample_id".to_string(),
            Pairing::Models(m) => format!("by sample_id, model {} against model {}", m.base, m.new),
        },
        cmp.resamples,
        cmp.seed,
        ci_level(cmp.alpha),
    )];
    if cmp.by_input {
        out.push(
            "the two runs share no sample id: cases are paired by the hash of their input (detail.input_sha256); ids shown are base's".into(),
        );
    }
    if let Some(m) = &cmp.metrics {
        out.push(format!(
            "metric {} of base against metric {} of new (rows named after base's)",
            m.base, m.new
        ));
    }
    let by_model = cmp.rows.iter().any(|r| r.model.is_some());
    let mut header = vec![
        "metric".to_string(),
        "n".into(),
        "base".into(),
        "new".into(),
        "delta".into(),
        format!("{} CI", ci_level(cmp.alpha)),
        "McNemar p".into(),
        "verdict".into(),
    ];
    if by_model {
        header.insert(0, "model".into());
    }
    let mut table = vec![header];
    for r in &cmp.rows {
        let mut cells = vec![
            r.metric.clone(),
            r.n.to_string(),
            num(r.base, r.n),
            num(r.new, r.n),
            if r.n == 0 {
                "-".into()
            } else {
                format!("{:+.4}", r.delta)
            },
            r.ci.map_or("-".into(), |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]")),
            r.mcnemar.map_or("-".into(), |t| fmt_p(t.p)),
            verdict(r, cmp.alpha, verdicts),
        ];
        if by_model {
            cells.insert(0, r.model.clone().unwrap_or_default());
        }
        table.push(cells);
    }
    out.extend(aligned(&table));
    let unpaired: Vec<String> = cmp
        .rows
        .iter()
        .filter(|r| r.only_base + r.only_new > 0)
        .map(|r| {
            format!(
                "{}: {} in base only, {} in new only",
                label(&r.model, &r.metric),
                r.only_base,
                r.only_new
            )
        })
        .collect();
    if !unpaired.is_empty() {
        out.push(format!(
            "not paired (scored on one side only, left out of n): {}",
            unpaired.join("; ")
        ));
    }
    if cmp.pairing == Pairing::ModelAndCase && cmp.rows.iter().all(|r| r.n == 0) {
        out.push(
            "no model is named in both reports: compare one model of each with --models A,B".into(),
        );
    }
    if cmp.duplicates != (0, 0) {
        out.push(format!(
            "repeated scores left out (the first kept): {} in base, {} in new",
            cmp.duplicates.0, cmp.duplicates.1
        ));
    }
    out.push(format!(
        "\nregressions: {} case score(s); improvements: {}; cases only in base: {}; only in new: {}",
        cmp.regressions.len(),
        cmp.improvements.len(),
        cmp.only_base.len(),
        cmp.only_new.len()
    ));
    diffs(&mut out, "regressions", &cmp.regressions, show);
    diffs(&mut out, "improvements", &cmp.improvements, show);
    keys(&mut out, "only in base", &cmp.only_base, show);
    keys(&mut out, "only in new", &cmp.only_new, show);
    if !verdicts.is_empty() {
        out.push(String::new());
        for v in verdicts {
            let mark = match v.outcome {
                GateOutcome::Fail => "FAIL",
                GateOutcome::NotSignificant | GateOutcome::Within => "ok  ",
            };
            out.push(format!("gate {mark} {}", v.reason));
        }
    }
    out
}

fn label(model: &Option<String>, metric: &str) -> String {
    match model {
        Some(m) => format!("{metric} ({m})"),
        None => metric.to_string(),
    }
}

fn num(v: f64, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{v:.4}")
    }
}

/// The row's change in words, and the gate's word when a rule checks it.
fn verdict(r: &MetricRow, alpha: f64, verdicts: &[GateVerdict]) -> String {
    let significant = r.significant(alpha);
    let mut word = if r.n == 0 {
        "no paired case".to_string()
    } else if r.regressions + r.improvements == 0 {
        "no change".to_string()
    } else if !significant {
        "not significant".to_string()
    } else if r.delta < 0.0 {
        "significant drop".to_string()
    } else {
        "significant rise".to_string()
    };
    for v in verdicts
        .iter()
        .filter(|v| v.rule.metric == r.metric && v.model == r.model)
    {
        word.push_str(match v.outcome {
            GateOutcome::Fail => ", gate FAIL",
            GateOutcome::NotSignificant | GateOutcome::Within => ", gate ok",
        });
    }
    word
}

fn diffs(out: &mut Vec<String>, title: &str, list: &[CaseDiff], show: usize) {
    if list.is_empty() || show == 0 {
        return;
    }
    out.push(if show >= list.len() {
        format!("{title} ({}, largest first):", list.len())
    } else {
        format!(
            "{title} (the first {show} of {}, largest first):",
            list.len()
        )
    });
    let rows: Vec<Vec<String>> = list
        .iter()
        .take(show)
        .map(|d| {
            vec![
                format!("  {}", label(&d.model, &d.metric)),
                d.sample_id.clone(),
                format!("{} -> {}", short(d.base), short(d.new)),
                format!("({:+.4})", d.delta()),
            ]
        })
        .collect();
    out.extend(aligned(&rows));
}

fn keys(out: &mut Vec<String>, title: &str, list: &[CaseKey], show: usize) {
    if list.is_empty() || show == 0 {
        return;
    }
    let names: Vec<String> = list
        .iter()
        .take(show)
        .map(|k| match &k.model {
            Some(m) => format!("{} ({m})", k.sample_id),
            None => k.sample_id.clone(),
        })
        .collect();
    let more = if list.len() > show {
        format!(" and {} more", list.len() - show)
    } else {
        String::new()
    };
    out.push(format!("{title}: {}{more}", names.join(", ")));
}

/// A case value: as written when short (0, 1, 0.5), else four decimals.
fn short(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() <= 6 {
        plain
    } else {
        format!("{v:.4}")
    }
}

/// Columns padded to their widest cell (by characters).
fn aligned(rows: &[Vec<String>]) -> Vec<String> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let pad = width[i].saturating_sub(s.chars().count());
                    format!("{s}{}", " ".repeat(pad))
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}
