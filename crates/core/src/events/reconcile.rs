//! Reconciliation of an event log against the final report (spec 000 section 5):
//! the summary's counts must equal the report's `metrics`, and the case records
//! must name the same cases with the same verdicts.

use super::ReadLog;
use crate::RunKind;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was compared.
    pub name: String,
    /// Value in the final report.
    pub report: String,
    /// Value in the event log.
    pub log: String,
    /// Whether they agree.
    pub ok: bool,
}

/// The outcome of a reconciliation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reconciliation {
    /// All checks passed.
    pub ok: bool,
    /// Every check made.
    pub checks: Vec<Check>,
    /// Things worth knowing that are not failures (a cut last record, skipped lines).
    pub notes: Vec<String>,
}

/// The counts of a RAG check.
const RAG_COUNTS: &[(&str, &str)] = &[
    ("cases_total", "cases"),
    ("passed_cases", "passed_cases"),
    ("accurate_cases", "accurate_cases"),
    ("cited_cases", "cited_cases"),
    ("failed_calls", "failed_calls"),
];

/// The counts of a retrieval evaluation (a report with `metrics.hit_cases`).
const RETRIEVAL_COUNTS: &[(&str, &str)] = &[
    ("cases_total", "cases"),
    ("passed_cases", "passed_cases"),
    ("failed_calls", "failed_calls"),
    ("hit_cases", "hit_cases"),
];

/// The counts every report of a run has: of a file of no known kind.
const COMMON_COUNTS: &[(&str, &str)] = &[
    ("cases_total", "cases"),
    ("passed_cases", "passed_cases"),
    ("failed_calls", "failed_calls"),
];

/// The counts of a task run (report with a `cases` list).
const TASK_COUNTS: &[(&str, &str)] = &[
    ("cases_total", "cases"),
    ("passed_cases", "passed_cases"),
    ("failed_calls", "failed_calls"),
    ("parse_problem_cases", "parse_problem_cases"),
];

/// The counts a report of its kind has: by an exhaustive match on the kind
/// it names (a new kind does not compile until it names its own); a file
/// written before the kind tag is known by its shape.
fn counts_of(report: &Value) -> &'static [(&'static str, &'static str)] {
    let described: Vec<&Value> = ["run_config", "evaluator_config"]
        .iter()
        .filter_map(|k| report.pointer(&format!("/report/experiment/{k}")))
        .collect();
    match RunKind::read(&described, &[]) {
        Some(RunKind::Task) => TASK_COUNTS,
        Some(RunKind::Retrieval) => RETRIEVAL_COUNTS,
        Some(RunKind::Rag) => RAG_COUNTS,
        Some(RunKind::Dialog) | None if report.get("cases").is_some() => TASK_COUNTS,
        Some(RunKind::Dialog) | None if report.pointer("/metrics/hit_cases").is_some() => {
            RETRIEVAL_COUNTS
        }
        Some(RunKind::Dialog) | None if report.pointer("/metrics/accurate_cases").is_some() => {
            RAG_COUNTS
        }
        Some(RunKind::Dialog) | None => COMMON_COUNTS,
    }
}

/// Compares a final report (`report.json` as JSON, or a dialog run's
/// `metrics_summary.json`) with an event log.
pub fn reconcile(report: &Value, log: &ReadLog) -> Reconciliation {
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    if log.truncated_tail {
        notes.push("the last record of the log was cut off and was ignored".to_string());
    }
    for s in &log.skipped {
        notes.push(format!("record {} skipped: {}", s.position, s.reason));
    }
    let summary = log.of_type("summary").last();
    let show = |v: Option<&Value>| v.map_or(MISSING.to_string(), |v| v.to_string());
    if report.get("counters").is_some() && report.get("trace_version").is_some() {
        checks.extend(dialog_checks(report, log, summary));
        return Reconciliation {
            ok: checks.iter().all(|c| c.ok),
            checks,
            notes,
        };
    }
    let report_run = report
        .pointer("/report/experiment/run/run_id")
        .or_else(|| report.pointer("/report/experiment/run_config/run_id"));
    let log_run = summary
        .or_else(|| log.records.first())
        .and_then(|r| r.get("run_id"));
    checks.push(check("run_id", show(report_run), show(log_run)));
    let counts = counts_of(report);
    for (log_key, report_key) in counts {
        let r = report.pointer(&format!("/metrics/{report_key}"));
        let l = summary.and_then(|s| s.pointer(&format!("/metrics/{log_key}")));
        checks.push(check(
            &format!("summary.metrics.{log_key} = metrics.{report_key}"),
            show(r),
            show(l),
        ));
    }
    let report_cases = verdicts_from_report(report);
    let log_cases: BTreeMap<String, bool> = log
        .of_type("case")
        .filter_map(|c| {
            Some((
                case_key(c.get("model"), c.get("case_id")?.as_str()?, c.get("repeat")),
                c.get("passed")?.as_bool()?,
            ))
        })
        .collect();
    let count = |n: usize| {
        if n == 0 {
            MISSING.to_string()
        } else {
            n.to_string()
        }
    };
    checks.push(check(
        "case records",
        count(report_cases.len()),
        count(log_cases.len()),
    ));
    let differing: Vec<&String> = report_cases
        .iter()
        .filter(|(id, p)| log_cases.get(*id) != Some(p))
        .map(|(id, _)| id)
        .collect();
    let extra: Vec<&String> = log_cases
        .keys()
        .filter(|id| !report_cases.contains_key(*id))
        .collect();
    let list = |v: &[&String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        }
    };
    checks.push(check(
        "cases missing or with another verdict in the log",
        "none".into(),
        list(&differing),
    ));
    checks.push(check(
        "cases in the log but not in the report",
        "none".into(),
        list(&extra),
    ));
    Reconciliation {
        ok: checks.iter().all(|c| c.ok),
        checks,
        notes,
    }
}

/// A dialog run's `metrics_summary.json` against its log: the run id, the
/// played dialogs, those with every turn answered and the rest (its
/// `counters`) against the summary record's counts and the case records (one
/// per played dialog; `passed` when every turn was answered). The summary
/// lists no dialog by id: the ids are in `dialog_trace.jsonl`.
fn dialog_checks(report: &Value, log: &ReadLog, summary: Option<&Value>) -> Vec<Check> {
    let show = |v: Option<&Value>| v.map_or(MISSING.to_string(), |v| v.to_string());
    let counter = |k: &str| {
        report
            .pointer(&format!("/counters/{k}"))
            .and_then(Value::as_u64)
    };
    let shown = |n: Option<u64>| n.map_or(MISSING.to_string(), |n| n.to_string());
    let played = counter("valid_dialogs");
    let unfinished = match (counter("failed_dialogs"), counter("partial_dialogs")) {
        (Some(f), Some(p)) => Some(f + p),
        _ => None,
    };
    let answered = played.zip(unfinished).map(|(v, u)| v.saturating_sub(u));
    let at = |k: &str| summary.and_then(|s| s.pointer(&format!("/metrics/{k}")));
    let cases: Vec<&Value> = log.of_type("case").collect();
    let passed = cases.iter().filter(|c| c["passed"] == true).count() as u64;
    vec![
        check(
            "run_id",
            show(report.get("run_id")),
            show(
                summary
                    .or_else(|| log.records.first())
                    .and_then(|r| r.get("run_id")),
            ),
        ),
        check(
            "summary.metrics.cases_total = counters.valid_dialogs",
            shown(played),
            show(at("cases_total")),
        ),
        check(
            "summary.metrics.passed_cases = dialogs with every turn answered",
            shown(answered),
            show(at("passed_cases")),
        ),
        check(
            "summary.metrics.failed_calls = counters.failed_dialogs + partial_dialogs",
            shown(unfinished),
            show(at("failed_calls")),
        ),
        check(
            "case records",
            shown(played),
            (cases.len() as u64).to_string(),
        ),
        check("case records passed", shown(answered), passed.to_string()),
    ]
}

/// A value missing on either side never agrees: an empty log does not
/// reconcile with an empty report.
fn check(name: &str, report: String, log: String) -> Check {
    let ok = report == log && report != MISSING;
    Check {
        name: name.to_string(),
        ok,
        report,
        log,
    }
}

const MISSING: &str = "(missing)";

/// A case's key: its id, prefixed by the model in a task run (one case per
/// sample and model), and followed by its asking (`#1`) in a run that asks
/// each case several times (one verdict per asking).
fn case_key(model: Option<&Value>, id: &str, repeat: Option<&Value>) -> String {
    let key = match model.and_then(Value::as_str) {
        Some(m) => format!("{m}/{id}"),
        None => id.to_string(),
    };
    match repeat.and_then(Value::as_u64) {
        Some(r) => format!("{key}#{r}"),
        None => key,
    }
}

/// `passed` per case: a task report's `cases` verdicts, else (RAG report) from
/// the scores (accuracy and citation both 1).
fn verdicts_from_report(report: &Value) -> BTreeMap<String, bool> {
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    if let Some(cases) = report.get("cases").and_then(Value::as_array) {
        for c in cases {
            if let (Some(id), Some(p)) = (
                c.get("sample_id").and_then(Value::as_str),
                c.get("passed").and_then(Value::as_bool),
            ) {
                out.insert(case_key(c.get("model"), id, c.get("repeat")), p);
            }
        }
        return out;
    }
    let scores = report.get("scores").and_then(Value::as_array);
    // A retrieval report's verdict is `hit_at_k`; the RAG check's is every metric passed.
    let retrieval = scores
        .into_iter()
        .flatten()
        .any(|s| s.get("metric").and_then(Value::as_str) == Some("hit_at_k"));
    for s in scores.into_iter().flatten() {
        if retrieval && s.get("metric").and_then(Value::as_str) != Some("hit_at_k") {
            continue;
        }
        let (Some(id), Some(v)) = (
            s.get("sample_id").and_then(Value::as_str),
            s.get("value").and_then(Value::as_f64),
        ) else {
            continue;
        };
        let entry = out.entry(id.to_string()).or_insert(true);
        *entry &= v >= 1.0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dialog run's summary against its log: agreeing counts, then a
    /// dialog counted as answered that the log says was not.
    #[test]
    fn a_dialog_summary_reconciles_with_its_log() {
        let log = super::super::read(
            concat!(
                "{\"record_type\":\"case\",\"run_id\":\"r\",\"case_id\":\"d1\",\"passed\":true}\n",
                "{\"record_type\":\"case\",\"run_id\":\"r\",\"case_id\":\"d2\",\"passed\":false}\n",
                "{\"record_type\":\"summary\",\"run_id\":\"r\",\"metrics\":{\"cases_total\":2,\"passed_cases\":1,\"failed_calls\":1}}\n",
            )
            .as_bytes(),
        );
        let summary = |failed: u64| {
            serde_json::json!({"trace_version": "v1", "run_id": "r", "counters": {
                "total_dialogs": 3, "valid_dialogs": 2, "skipped_dialogs": 1,
                "failed_dialogs": failed, "partial_dialogs": 0, "total_turn_pairs": 5}})
        };
        let rec = reconcile(&summary(1), &log);
        assert!(rec.ok, "{:?}", rec.checks);
        let rec = reconcile(&summary(0), &log);
        let failing: Vec<&str> = rec
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(
            failing,
            [
                "summary.metrics.passed_cases = dialogs with every turn answered",
                "summary.metrics.failed_calls = counters.failed_dialogs + partial_dialogs",
                "case records passed"
            ]
        );
    }

    #[test]
    fn nothing_does_not_reconcile_with_nothing() {
        let rec = reconcile(&Value::Null, &super::super::read(b""));
        assert!(!rec.ok, "{:?}", rec.checks);
    }
}
