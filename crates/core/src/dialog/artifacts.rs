//! Spec 001 §2: the five files of a dialog evaluation, rendered as text
//! (`run_manifest.json`, `dialog_trace.jsonl`, `turn_eval.jsonl`,
//! `metrics_summary.json`, `progress_{run_id}.jsonl`); the shells write them.
//!
//! Decisions where the spec is silent:
//! - All five go into one output directory (the spec's `eval/runs/{run_id}/`
//!   and `eval/logs/` are the caller's choice of directory).
//! - A progress line is `{trace_version, run_id, ts, event, done, total}`
//!   plus the dialog's `dialog_id`, `dataset_index`, `dialog_status` and
//!   turn counts; events `run_started`, `dialog_skipped`, `dialog_finished`,
//!   `run_finished`. `ts` is ISO 8601 UTC with milliseconds.

use super::summary::MetricsSummary;
use super::trace::{is_v1, read_traces, DialogTrace, RunManifest, TRACE_VERSION};
use super::turn_eval::TurnEval;
use super::vocab::{DialogStatus, TurnStatus};
use crate::dataset::jsonl::read_objects;
use crate::dataset::{file_name, kind, LineError};
use crate::position::KeyError;
use crate::timefmt::rfc3339_ms;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One line of `progress_{run_id}.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgressEvent {
    /// `v1`.
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// ISO 8601 UTC.
    pub ts: String,
    /// `run_started`, `dialog_skipped`, `dialog_finished` or `run_finished`.
    pub event: String,
    /// Dialogs settled so far (skipped ones included).
    pub done: usize,
    /// Dialogs in the dataset.
    pub total: usize,
    /// The dialog, for dialog events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_id: Option<String>,
    /// Its position in the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_index: Option<usize>,
    /// Its status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_status: Option<DialogStatus>,
    /// Its answered turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_ok: Option<usize>,
    /// Its turn pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_total: Option<usize>,
}

impl ProgressEvent {
    /// A run-level event.
    pub fn run(run_id: &str, event: &str, done: usize, total: usize, now_ms: u64) -> ProgressEvent {
        ProgressEvent {
            trace_version: TRACE_VERSION.into(),
            run_id: run_id.into(),
            ts: rfc3339_ms(now_ms),
            event: event.into(),
            done,
            total,
            dialog_id: None,
            dataset_index: None,
            dialog_status: None,
            turns_ok: None,
            turns_total: None,
        }
    }

    /// A dialog event (`dialog_skipped` or `dialog_finished`).
    pub fn dialog(t: &DialogTrace, done: usize, total: usize, now_ms: u64) -> ProgressEvent {
        let event = if t.valid_dialog {
            "dialog_finished"
        } else {
            "dialog_skipped"
        };
        ProgressEvent {
            dialog_id: Some(t.dialog_id.clone()),
            dataset_index: Some(t.dataset_index),
            dialog_status: Some(t.dialog_status),
            turns_ok: Some(
                t.turns
                    .iter()
                    .filter(|x| x.turn_status == TurnStatus::Ok)
                    .count(),
            ),
            turns_total: Some(t.turns.len()),
            ..ProgressEvent::run(&t.run_id, event, done, total, now_ms)
        }
    }

    /// The event as one JSONL line (no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Everything a dialog evaluation leaves behind.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifacts {
    /// `run_manifest.json`.
    pub manifest: RunManifest,
    /// `dialog_trace.jsonl`, in dataset order.
    pub traces: Vec<DialogTrace>,
    /// `turn_eval.jsonl`.
    pub rows: Vec<TurnEval>,
    /// `metrics_summary.json`.
    pub summary: MetricsSummary,
    /// `progress_{run_id}.jsonl`.
    pub progress: Vec<ProgressEvent>,
}

/// The name of the progress file of a run.
pub fn progress_file(run_id: &str) -> String {
    format!("progress_{run_id}.jsonl")
}

/// The names of the five files, in the order [`render`] gives them.
pub fn file_names(run_id: &str) -> [String; 5] {
    [
        "run_manifest.json".into(),
        "dialog_trace.jsonl".into(),
        "turn_eval.jsonl".into(),
        "metrics_summary.json".into(),
        progress_file(run_id),
    ]
}

fn jsonl<T: Serialize>(items: &[T]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for item in items {
        out.push_str(&serde_json::to_string(item)?);
        out.push('\n');
    }
    Ok(out)
}

/// The five files as (name, text).
pub fn render(a: &Artifacts) -> Result<Vec<(String, String)>, serde_json::Error> {
    let [m, t, e, s, p] = file_names(&a.manifest.run_id);
    let progress: String = a.progress.iter().map(|p| p.line() + "\n").collect();
    Ok(vec![
        (m, serde_json::to_string_pretty(&a.manifest)? + "\n"),
        (t, jsonl(&a.traces)?),
        (e, jsonl(&a.rows)?),
        (s, serde_json::to_string_pretty(&a.summary)? + "\n"),
        (p, progress),
    ])
}

/// A `turn_eval.jsonl` row with its key (`dialog_id` and pair), so a row
/// repeated in the file is reported once, at its line.
struct KeyedRow {
    key: String,
    row: TurnEval,
}

/// The fields spec 001 §5 requires of a `turn_eval.jsonl` row.
const SECTION_5_REQUIRED: [&str; 9] = [
    "trace_version",
    "run_id",
    "dialog_id",
    "turn_pair_id",
    "eligible_m1",
    "eligible_m2",
    "eligible_m3",
    "eligible_m4",
    "eligible_m5",
];

fn turn_eval_of(mut obj: Map<String, Value>) -> Result<TurnEval, KeyError> {
    match obj.get("trace_version") {
        Some(Value::String(v)) if is_v1(v) => {}
        Some(v) => {
            return Err(KeyError::new(
                "trace_version",
                format!("expected \"v1\" or \"v1.x\", found {v}"),
            ))
        }
        None => {
            return Err(KeyError::new(
                "trace_version",
                format!(
                    "missing; spec 001 §5 requires {}",
                    SECTION_5_REQUIRED.join(", ")
                ),
            ))
        }
    }
    for key in SECTION_5_REQUIRED {
        if !obj.contains_key(key) {
            return Err(KeyError::new(
                key,
                format!(
                    "missing; spec 001 §5 requires {}",
                    SECTION_5_REQUIRED.join(", ")
                ),
            ));
        }
    }
    for key in ["run_id", "dialog_id"] {
        if let Some(v) = obj.get(key).filter(|v| !v.is_string()) {
            return Err(KeyError::new(
                key,
                format!("expected a string, found {}", kind(v)),
            ));
        }
    }
    if let Some(v) = obj.get("turn_pair_id").filter(|v| !v.is_u64()) {
        return Err(KeyError::new(
            "turn_pair_id",
            format!("expected a non-negative integer, found {}", kind(v)),
        ));
    }
    for m in 1..=5 {
        let key = format!("eligible_m{m}");
        if let Some(v) = obj.get(&key).filter(|v| !v.is_boolean()) {
            return Err(KeyError::new(
                key,
                format!("expected true or false, found {v}"),
            ));
        }
    }
    if let Some(v) = obj.get("turn_status").filter(|v| !v.is_null()) {
        if serde_json::from_value::<TurnStatus>(v.clone()).is_err() {
            return Err(KeyError::new(
                "turn_status",
                format!("expected one of ok, timeout, error, found {v}"),
            ));
        }
    }
    if let Some(Value::Array(flags)) = obj.get("key_hit_flags") {
        if let Some(v) = flags
            .iter()
            .find(|f| !(f.is_null() || f.as_u64().is_some_and(|n| n <= 1)))
        {
            return Err(KeyError::new(
                "key_hit_flags",
                format!("expected integers 0 or 1 (§5), found {v}"),
            ));
        }
    }
    // A row without evalpage's `m*_status` (another producer's, or an
    // earlier evalpage's): an eligible metric was scored.
    for (status, eligible) in [
        ("m1_status", "eligible_m1"),
        ("m2_status", "eligible_m2"),
        ("m3_status", "eligible_m3"),
        ("m4_status", "eligible_m4"),
        ("m5_status", "eligible_m5"),
        ("m3_judge_status", "eligible_m3_judge"),
        ("m4_judge_status", "eligible_m4_judge"),
    ] {
        if !obj.contains_key(status) {
            let scored = obj.get(eligible).and_then(Value::as_bool).unwrap_or(false);
            let v = if scored { "scored" } else { "not_eligible" };
            obj.insert(status.into(), Value::String(v.into()));
        }
    }
    drop_null_flags(&mut obj);
    serde_json::from_value(Value::Object(obj))
        .map_err(|e| KeyError::whole(format!("not a spec 001 turn_eval row: {e}")))
}

/// Rows written before `key_hit_flags` held integers only (an unresolvable
/// key had a `null` flag and an empty source list) read as §5 has them: the
/// `null` flags and their source lists are dropped.
fn drop_null_flags(obj: &mut Map<String, Value>) {
    let Some(Value::Array(flags)) = obj.get("key_hit_flags") else {
        return;
    };
    if !flags.iter().any(Value::is_null) {
        return;
    }
    let keep: Vec<bool> = flags.iter().map(|f| !f.is_null()).collect();
    for key in ["key_hit_flags", "key_hit_sources"] {
        if let Some(Value::Array(list)) = obj.get_mut(key) {
            let mut i = 0;
            list.retain(|_| {
                i += 1;
                keep.get(i - 1).copied().unwrap_or(true)
            });
        }
    }
}

/// Reads `turn_eval.jsonl` back (§5): one row per turn pair; a bad line (not
/// JSON, not v1, a missing or mistyped field, a pair given twice) is an
/// error at its line, the rest is read.
pub fn read_turn_evals(file: &str, bytes: &[u8]) -> (Vec<TurnEval>, Vec<LineError>) {
    let (rows, errors) = read_objects(
        file,
        bytes,
        "turn_pair_id",
        |r: &KeyedRow| r.key.as_str(),
        |obj, _| {
            turn_eval_of(obj).map(|row| KeyedRow {
                key: format!("{} #{}", row.dialog_id, row.turn_pair_id),
                row,
            })
        },
    );
    (rows.into_iter().map(|r| r.row).collect(), errors)
}

/// A whole-file JSON artifact read as `T`, or the error at the line serde
/// stopped at.
fn read_json<T: serde::de::DeserializeOwned>(
    file: &str,
    bytes: &[u8],
    what: &str,
) -> Result<T, LineError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|e| {
        LineError::new(
            file,
            e.line().max(1),
            KeyError::whole(format!("not a spec 001 {what}: {e}")),
        )
    })
}

/// Reads `metrics_summary.json` back (§7).
pub fn read_summary(file: &str, bytes: &[u8]) -> Result<MetricsSummary, LineError> {
    read_json(file, bytes, "metrics_summary.json")
}

/// Reads `run_manifest.json` back (§4.1).
pub fn read_manifest(file: &str, bytes: &[u8]) -> Result<RunManifest, LineError> {
    read_json(file, bytes, "run_manifest.json")
}

/// A dialog evaluation's files read back, as far as they were given and
/// readable: the trace (§8's v1 reader), the turn rows, the summary and the
/// manifest, and every problem placed at its file and line (bad lines are
/// skipped, the rest is read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadBack {
    /// `run_manifest.json`, when given and readable.
    pub manifest: Option<RunManifest>,
    /// `dialog_trace.jsonl`'s dialogs, in file order.
    pub traces: Vec<DialogTrace>,
    /// `turn_eval.jsonl`'s rows, in file order.
    pub rows: Vec<TurnEval>,
    /// `metrics_summary.json`, when given and readable.
    pub summary: Option<MetricsSummary>,
    /// What could not be read.
    pub errors: Vec<LineError>,
}

/// True when `name` is one of the dialog evaluation's files that carry
/// results (`dialog_trace.jsonl`, `turn_eval.jsonl`, `metrics_summary.json`).
pub fn is_result_file(name: &str) -> bool {
    matches!(
        file_name(name),
        "dialog_trace.jsonl" | "turn_eval.jsonl" | "metrics_summary.json"
    )
}

/// Reads the files of a dialog evaluation among `files` (name, bytes): a
/// run's folder or zip, or some of its files. `None` when none of them is a
/// dialog result file.
pub fn read_back(files: &[(String, Vec<u8>)]) -> Option<ReadBack> {
    if !files.iter().any(|(n, _)| is_result_file(n)) {
        return None;
    }
    let mut out = ReadBack::default();
    for (name, bytes) in files {
        match file_name(name) {
            "dialog_trace.jsonl" => {
                let (traces, errors) = read_traces(name, bytes);
                out.traces = traces;
                out.errors.extend(errors);
            }
            "turn_eval.jsonl" => {
                let (rows, errors) = read_turn_evals(name, bytes);
                out.rows = rows;
                out.errors.extend(errors);
            }
            "metrics_summary.json" => match read_summary(name, bytes) {
                Ok(s) => out.summary = Some(s),
                Err(e) => out.errors.push(e),
            },
            "run_manifest.json" => match read_manifest(name, bytes) {
                Ok(m) => out.manifest = Some(m),
                Err(e) => out.errors.push(e),
            },
            _ => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::turn_eval::MetricRun;

    fn row_line(dialog: &str, pair: usize) -> String {
        let row = serde_json::json!({
            "trace_version": "v1", "run_id": "r", "dialog_id": dialog, "turn_pair_id": pair,
            "turn_status": "ok", "eligible_m1": true, "eligible_m2": true, "eligible_m3": false,
            "eligible_m4": true, "eligible_m5": false, "eligible_m3_judge": false, "eligible_m4_judge": false,
            "required_keys_raw": ["risk"], "resolved_keys": [], "key_hit_flags": [1],
            "key_hit_sources": [["profile"]], "m1_source_hits": {"short_term": 0, "long_term": 0, "profile": 1},
            "forbidden_terms": [], "forbidden_hits": [], "constraint_contradiction": 0,
            "risk_required_raw": [], "risk_required_tags": [], "risk_required_unknown": [],
            "risk_pred_tags": [], "risk_pred_source": "lexicon", "risk_tag_hits": 0,
            "risk_pred_tags_judge": null, "risk_tag_hits_judge": null, "pred_compliance_label": "compliant",
            "pred_compliance_source": "trace_compliance", "gt_compliance_label": "compliant",
            "pred_compliance_label_judge": null, "rubric_required": [], "rubric_hit_items": null,
            "judge_score_1_5": null, "skip_reasons": {"m3": "no risk_disclosure_required_gt"}
        });
        row.to_string()
    }

    /// Spec 001 §5's own example row, as another producer writes it.
    const SECTION_5_ROW: &str = r#"{
  "trace_version": "v1",
  "run_id": "20260217_210500_abc123",
  "dialog_id": "3e53acb5-c444-4640-8ac4-78ce4d26a104",
  "turn_pair_id": 1,
  "eligible_m1": true,
  "eligible_m2": false,
  "eligible_m3": true,
  "eligible_m4": true,
  "eligible_m5": true,
  "required_keys_raw": ["profile_gt.risk_level_gt"],
  "resolved_keys": [
    {
      "key": "profile_gt.risk_level_gt",
      "resolvable": true,
      "target_text": "稳健",
      "resolver": "profile_field"
    }
  ],
  "key_hit_flags": [1],
  "key_hit_sources": [["short_term"]],
  "m1_source_hits": {
    "short_term": 1,
    "long_term": 0,
    "profile": 0
  },
  "constraint_contradiction": 0,
  "risk_required_tags": ["market_uncertainty"],
  "risk_pred_tags": ["market_uncertainty", "not_buy_sell_advice"],
  "risk_tag_hits": 1,
  "forbidden_hits": [],
  "pred_compliance_label": "compliant",
  "gt_compliance_label": "compliant",
  "rubric_required": ["信息依据", "边界声明"],
  "rubric_hit_items": ["信息依据", "边界声明"],
  "judge_score_1_5": 4.0
}"#;

    #[test]
    fn a_foreign_row_with_section_5_fields_only_opens_and_a_missing_one_is_named() {
        let line = serde_json::from_str::<Value>(SECTION_5_ROW)
            .map(|v| v.to_string())
            .unwrap_or_default();
        let (rows, errors) = read_turn_evals("turn_eval.jsonl", line.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        let r = &rows[0];
        assert_eq!(r.turn_status, None, "not in §5's row: absent, not made up");
        assert_eq!(
            (r.m1_status, r.m2_status),
            (MetricRun::Scored, MetricRun::NotEligible)
        );
        assert_eq!(
            r.key_hits()[0].map(|(f, s)| (f, s.to_vec())),
            Some((1, vec!["short_term".to_string()]))
        );
        assert_eq!(r.judge_score_1_5, Some(4.0));
        assert!(
            r.forbidden_terms.is_empty() && r.skip_reasons.is_empty(),
            "evalpage's extras read as absent"
        );
        // §5's required fields alone are enough.
        let bare = r#"{"trace_version":"v1","run_id":"r","dialog_id":"d","turn_pair_id":2,"eligible_m1":false,"eligible_m2":false,"eligible_m3":false,"eligible_m4":false,"eligible_m5":false}"#;
        let (rows, errors) = read_turn_evals("turn_eval.jsonl", bare.as_bytes());
        assert!(errors.is_empty() && rows.len() == 1, "{errors:?}");
        // A row missing a required field: that field is named, with §5's list.
        let missing = line.replace("\"eligible_m3\":true,", "");
        assert_ne!(missing, line);
        let (rows, errors) = read_turn_evals("turn_eval.jsonl", missing.as_bytes());
        assert!(rows.is_empty());
        let e = errors[0].to_string();
        assert!(
            e.contains("eligible_m3") && e.contains("spec 001 §5 requires trace_version, run_id"),
            "{e}"
        );
        assert!(!e.contains("turn_status"), "turn_status is not §5's: {e}");
        // key_hit_flags are §5's integers.
        let bad = line.replace("\"key_hit_flags\":[1]", "\"key_hit_flags\":[\"yes\"]");
        let (_, errors) = read_turn_evals("turn_eval.jsonl", bad.as_bytes());
        assert!(
            errors[0].to_string().contains("key_hit_flags"),
            "{errors:?}"
        );
    }

    #[test]
    fn turn_rows_are_read_back_and_bad_lines_placed_and_skipped() {
        let good = row_line("d1", 1);
        let text = [
            good.clone(),
            String::new(),
            "{not json".to_string(),
            good.replace("\"turn_status\":\"ok\"", "\"turn_status\":\"done\""),
            row_line("d1", 2),
            good.replace("\"trace_version\":\"v1\"", "\"trace_version\":\"v2\""),
            good.clone(),
            good.replace("\"turn_pair_id\":1", "\"turn_pair_id\":\"one\""),
        ]
        .join("\n");
        let (rows, errors) = read_turn_evals("turn_eval.jsonl", text.as_bytes());
        assert_eq!(
            rows.iter()
                .map(|r| (r.dialog_id.as_str(), r.turn_pair_id))
                .collect::<Vec<_>>(),
            [("d1", 1), ("d1", 2)]
        );
        assert_eq!(rows[0].key_hit_flags, vec![1]);
        // An earlier evalpage row: a null flag for an unresolvable key.
        let old = good
            .replace("\"key_hit_flags\":[1]", "\"key_hit_flags\":[1,null]")
            .replace(
                "\"key_hit_sources\":[[\"profile\"]]",
                "\"key_hit_sources\":[[\"profile\"],[]]",
            );
        assert_ne!(old, good, "the fixture has the fields replaced");
        let (rows_old, errors_old) = read_turn_evals("turn_eval.jsonl", old.as_bytes());
        assert!(errors_old.is_empty(), "{errors_old:?}");
        assert_eq!(rows_old[0].key_hit_flags, vec![1]);
        assert_eq!(
            rows_old[0].key_hit_sources,
            vec![vec!["profile".to_string()]]
        );
        let placed: Vec<(usize, Option<&str>)> = errors
            .iter()
            .map(|e| (e.line, e.field.as_deref()))
            .collect();
        assert_eq!(
            placed,
            [
                (3, None),
                (4, Some("turn_status")),
                (6, Some("trace_version")),
                (7, Some("turn_pair_id")),
                (8, Some("turn_pair_id")),
            ]
        );
        assert!(errors.iter().all(|e| e.file == "turn_eval.jsonl"));
        assert!(errors[3].message.contains("duplicate"), "{}", errors[3]);
    }
}
