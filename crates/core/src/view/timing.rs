//! The attempts and time of each case from a run's `results.jsonl` (every
//! run's lines start with spec 003's `RunRecord`: `sample_id`, `latency_ms`,
//! `attempts`), for the rows whose report does not give them (any run but a
//! task run, whose `results.jsonl` is read whole by `task`): a RAG check's
//! `report.json` records them only for failed cases (its `error_cases`), and
//! keeps them out of the score details so that two runs of the same answers
//! write the same `scores.jsonl`.

use super::ViewData;
use crate::dataset::jsonl::read_objects;
use crate::dataset::kind;
use crate::position::KeyError;
use serde_json::{Map, Value};

struct Timing {
    /// `model`, a NUL, and `sample_id`: one line per case × model.
    key: String,
    model: Option<String>,
    sample_id: String,
    latency_ms: Option<f64>,
    attempts: Option<u32>,
}

fn timing_of(obj: Map<String, Value>) -> Result<Timing, KeyError> {
    let sample_id = obj
        .get("sample_id")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            KeyError::new(
                "sample_id",
                "missing; every results.jsonl line names its case",
            )
        })?
        .to_string();
    let model = obj.get("model").and_then(Value::as_str).map(str::to_string);
    let latency_ms = match obj.get("latency_ms") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|ms| ms.is_finite() && *ms >= 0.0)
                .ok_or_else(|| {
                    KeyError::new(
                        "latency_ms",
                        format!("expected a time in ms (a number ≥ 0), found {}", kind(v)),
                    )
                })?,
        ),
    };
    let attempts = match obj.get("attempts") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|a| u32::try_from(a).ok())
                .ok_or_else(|| {
                    KeyError::new(
                        "attempts",
                        format!("expected a count (a whole number ≥ 0), found {}", kind(v)),
                    )
                })?,
        ),
    };
    Ok(Timing {
        key: format!("{}\u{0}{sample_id}", model.as_deref().unwrap_or("")),
        model,
        sample_id,
        latency_ms,
        attempts,
    })
}

/// Puts each line's attempts and time on its row where the report left
/// them out; a line that cannot be read is a note naming its file, line and
/// field, and the rest are used.
pub(super) fn attach(data: &mut ViewData, file: &str, bytes: &[u8]) {
    let (lines, errors) = read_objects(
        file,
        bytes,
        "sample_id",
        |t: &Timing| t.key.as_str(),
        |obj, _| timing_of(obj),
    );
    let index = data.row_index();
    let mut found: Vec<(usize, Timing)> = Vec::new();
    let mut unknown = 0;
    for t in lines {
        match index.get(&(t.model.as_deref(), t.sample_id.as_str())) {
            Some(&i) => found.push((i, t)),
            None => unknown += 1,
        }
    }
    for (i, t) in found {
        let row = &mut data.rows[i];
        row.latency_ms = row.latency_ms.or(t.latency_ms);
        row.attempts = row.attempts.or(t.attempts);
    }
    super::note_lines(data, file, &errors, unknown, "a case");
}

#[cfg(test)]
mod tests {
    use super::super::open_files;

    const REPORT: &str = r#"{"metrics": {"cases": 3},
        "scores": [
            {"sample_id": "a", "metric": "accuracy", "value": 1.0, "tags": [], "language": null, "length_bucket": null, "detail": {}},
            {"sample_id": "b", "metric": "accuracy", "value": 0.0, "tags": [], "language": null, "length_bucket": null, "detail": {}},
            {"sample_id": "c", "metric": "accuracy", "value": 0.0, "tags": [], "language": null, "length_bucket": null, "detail": {}}
        ],
        "report": {
            "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl", "counts": {},
                "languages": {}, "tags": {}}, "run_config": {}, "evaluator_config": {}},
            "summaries": [], "breakdowns": [],
            "error_cases": [{"sample_id": "c", "status": "error", "trace_id": "r/c",
                "message": "HTTP 500", "latency_ms": 90.0, "backend": "openai", "status_code": 500, "attempts": 3}],
            "llm_judge_details": []
        }}"#;

    #[test]
    fn results_jsonl_gives_the_time_and_attempts_the_report_left_out() {
        let results = concat!(
            "{\"sample_id\": \"a\", \"latency_ms\": 120.0, \"attempts\": 1, \"status\": \"ok\"}\n",
            "{\"sample_id\": \"b\", \"latency_ms\": \"slow\", \"attempts\": 2}\n",
            "{\"sample_id\": \"c\", \"latency_ms\": 1.0, \"attempts\": 1}\n",
            "{\"sample_id\": \"zz\", \"latency_ms\": 5.0, \"attempts\": 1}\n",
            "not json\n",
        );
        let files = vec![
            (
                "run.zip/report.json".to_string(),
                REPORT.as_bytes().to_vec(),
            ),
            (
                "run.zip/results.jsonl".to_string(),
                results.as_bytes().to_vec(),
            ),
        ];
        let v = open_files("run.zip", &files).expect("opens");
        let timing: Vec<_> = v
            .rows
            .iter()
            .map(|r| (r.id.as_str(), r.attempts, r.latency_ms))
            .collect();
        assert_eq!(
            timing,
            vec![
                ("a", Some(1), Some(120.0)),
                ("b", None, None),
                ("c", Some(3), Some(90.0))
            ],
            "a's from results.jsonl; b's line is bad; c keeps its error case's"
        );
        let notes = v.notes.join("\n");
        assert!(
            notes.contains("results.jsonl:2: ") && notes.contains("latency_ms"),
            "{notes}"
        );
        assert!(notes.contains("results.jsonl:5: "), "{notes}");
        assert!(
            notes.contains("1 lines name a case the report does not have"),
            "{notes}"
        );
    }

    #[test]
    fn spec_000_report_names_open_before_their_event_logs() {
        let results = "{\"sample_id\": \"a\", \"latency_ms\": 7.0, \"attempts\": 1}\n";
        for (report, log) in [
            ("eval_rag_report.json", "eval_rag_report.events.jsonl"),
            (
                "eval_retrieval_report.json",
                "eval_retrieval_report.events.jsonl",
            ),
        ] {
            let files = vec![
                (
                    format!("run/{log}"),
                    b"{\"record_type\":\"meta\"}\n".to_vec(),
                ),
                (format!("run/{report}"), REPORT.as_bytes().to_vec()),
                ("run/results.jsonl".to_string(), results.as_bytes().to_vec()),
            ];
            let v = open_files("run", &files).expect("opens");
            assert_eq!(v.rows.len(), 3, "{report} is the run's report");
            assert_eq!(
                v.rows[0].latency_ms,
                Some(7.0),
                "{report} with results.jsonl"
            );
        }
    }
}
