//! Each kind of run as its live mode showed it (issue 12: "the page shows the
//! run exactly as it showed live"): the viewer's table stays one generic
//! table, and a run's [`Look`] says which live views the page puts around it
//! and in its drill-down. This module reads back, from a saved run, the very
//! values the live modes' views take, so the page reuses those views instead
//! of copies:
//!
//! - RAG check: each case as a `RagCase` and `CaseResult` (spec 002's √/×
//!   and reasons through `console`, the Notes), from the report's
//!   `accuracy` and `citation` details;
//! - retrieval: each case as a `retrieval::Row`, and the per-bucket means;
//! - tasks: each sample × model as a `SampleResult` (parsed fields with
//!   their status, metric values and details), from `results.jsonl`
//!   (`view::task`);
//! - dialogs: each dialog's trace line and `turn_eval` rows and the run's
//!   `metrics_summary.json` (`view::dialog`).

use super::{text_of, ViewData, ViewRow};
use crate::dialog::summary::MetricsSummary;
use crate::dialog::trace::{DialogTrace, RunManifest};
use crate::dialog::TurnEval;
use crate::provider::{CallError, ChatMessage, ErrorKind};
use crate::task::SampleResult;
use crate::RunKind;
use serde_json::{Map, Value};
use std::rc::Rc;

/// Which live mode's views show a saved run.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Look {
    /// Only the generic table (a run of no known kind).
    #[default]
    Generic,
    /// The RAG check (spec 002).
    Rag,
    /// A task run; its samples' parsed answers when `results.jsonl` was read.
    Task(Rc<TaskLook>),
    /// A retrieval evaluation with cut-off `k`.
    Retrieval {
        /// The cut-off of `hit_at_k`, `recall_at_k` and `ndcg_at_k`.
        k: usize,
    },
    /// A spec 001 dialog evaluation read from its files.
    Dialog(Rc<DialogLook>),
}

impl Look {
    /// The live views of a run of `kind` (read by [`RunKind::read`]), its
    /// cut-off read from the objects that describe it. A dialog run opens
    /// from its own files (`view::dialog`), never from a report or a log.
    pub(crate) fn of(kind: Option<RunKind>, described_by: &[&Value]) -> Look {
        match kind {
            Some(RunKind::Rag) => Look::Rag,
            Some(RunKind::Task) => Look::Task(Default::default()),
            Some(RunKind::Retrieval) => Look::Retrieval {
                k: described_by
                    .iter()
                    .find_map(|c| c.get("k").and_then(Value::as_u64))
                    .unwrap_or(5) as usize,
            },
            Some(RunKind::Dialog) | None => Look::Generic,
        }
    }
}

/// A sample's input as `results.jsonl` records it: its fields (inputs and
/// labels) and the prompt the template rendered for it (or why it could not).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleInput {
    /// `fields`: the sample as read.
    pub fields: Map<String, Value>,
    /// `messages`: the prompt sent (or, for answers read from a file, the one
    /// that would have been); `None` in files written before it was recorded.
    pub messages: Option<Vec<ChatMessage>>,
    /// `prompt_error`: why the prompt could not be rendered.
    pub prompt_error: Option<String>,
}

/// A task run's samples as the task mode's grid shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskLook {
    /// `results.jsonl` as given, when it was read.
    pub source: Option<String>,
    /// Each table row's result, by row index (`None`: no line for it).
    pub results: Vec<Option<SampleResult>>,
    /// Each table row's sample input and rendered prompt, by row index.
    pub inputs: Vec<Option<Rc<SampleInput>>>,
}

/// One dialog of a dialog evaluation: its trace line (when the trace was
/// given) and its `turn_eval.jsonl` rows.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogEntry {
    /// Its `dialog_trace.jsonl` line.
    pub trace: Option<DialogTrace>,
    /// Its `turn_eval.jsonl` rows, in file order.
    pub rows: Vec<TurnEval>,
}

/// A dialog evaluation as the dialog mode shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogLook {
    /// `metrics_summary.json` (read, or computed from `turn_eval.jsonl` when
    /// it was not given: then `summary_computed`).
    pub summary: Option<MetricsSummary>,
    /// The summary was computed from the rows, not read.
    pub summary_computed: bool,
    /// `run_manifest.json`, when given.
    pub manifest: Option<RunManifest>,
    /// One entry per table row, in the same order.
    pub dialogs: Vec<DialogEntry>,
}

impl ViewData {
    /// The task mode's result of row `i`, when `results.jsonl` gave one.
    pub fn task_result(&self, i: usize) -> Option<&SampleResult> {
        match &self.look {
            Look::Task(t) => t.results.get(i)?.as_ref(),
            _ => None,
        }
    }

    /// The sample input and rendered prompt of row `i`, when `results.jsonl`
    /// gave them.
    pub fn task_input(&self, i: usize) -> Option<&SampleInput> {
        match &self.look {
            Look::Task(t) => t.inputs.get(i)?.as_deref(),
            _ => None,
        }
    }

    /// The dialog of row `i`, for a dialog evaluation.
    pub fn dialog(&self, i: usize) -> Option<&DialogEntry> {
        match &self.look {
            Look::Dialog(d) => d.dialogs.get(i),
            _ => None,
        }
    }

    /// A metric's detail on a row, read only when the row has one.
    pub(super) fn detail_of(&self, row: &ViewRow, metric: &str) -> Option<Value> {
        let c = self.metric_index(metric)?;
        Some(self.detail(row, c)).filter(|v| v.is_object())
    }
}

pub(super) fn strings(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key)?
        .as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// The call error of a case that failed, as the report keeps it: the
/// message of its detail, the kind from its error status.
pub(super) fn call_error(row: &ViewRow, detail: &Value) -> Option<CallError> {
    if detail.get("llm_call_ok").and_then(Value::as_bool) != Some(false) {
        return None;
    }
    let kind = match row.status.as_str() {
        "timeout" => ErrorKind::Timeout,
        "cancelled" => ErrorKind::Cancelled,
        "not_run" => ErrorKind::NotRun,
        _ if detail.get("truncated").and_then(Value::as_bool) == Some(true) => ErrorKind::Truncated,
        _ => ErrorKind::Http,
    };
    let message = text_of(detail, &["error"])
        .or_else(|| row.error.clone())
        .unwrap_or_default();
    Some(CallError::new(kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::rag::RagCase;
    use crate::rag::CaseResult;
    use crate::retrieval::bucket_means;
    use crate::view::{load, rag_cases, retrieval_means, retrieval_row};

    /// A RAG report of three cases: one right, one citing a wrong document
    /// with no keypoint covered, one failed call.
    fn rag_report() -> String {
        let acc = |id: &str, v: f64, detail: Value| {
            serde_json::json!({"sample_id": id, "metric": "accuracy", "value": v, "tags": ["t"],
                "language": null, "length_bucket": "short", "detail": detail})
        };
        let cit = |id: &str, v: f64, detail: Value| {
            serde_json::json!({"sample_id": id, "metric": "citation", "value": v, "tags": ["t"],
                "language": null, "length_bucket": "short", "detail": detail})
        };
        let kp = |k: &str, m: bool| serde_json::json!({"keypoint": k, "matched": m, "method": if m {"exact"} else {"none"}, "score": if m {1.0} else {0.0}});
        let scores = vec![
            acc(
                "Q1",
                1.0,
                serde_json::json!({"question": "q1?", "answer": "ChromaDB [docs/a.md]", "llm_call_ok": true, "error": null,
                "keypoints": [kp("ChromaDB", true)], "matched": ["ChromaDB"], "missing": [], "reason": null, "finish_reason": "stop"}),
            ),
            cit(
                "Q1",
                1.0,
                serde_json::json!({"question": "q1?", "answer": "ChromaDB [docs/a.md]", "llm_call_ok": true, "error": null,
                "cited": ["a.md"], "correct": ["a.md"], "wrong": [], "expected": ["docs/a.md"], "reason": null}),
            ),
            acc(
                "Q2",
                0.0,
                serde_json::json!({"question": "q2?", "answer": "Milvus, see b.md", "llm_call_ok": true, "error": null,
                "keypoints": [kp("Neo4j", false)], "matched": [], "missing": ["Neo4j"], "reasoning": "thinking", "truncated": true, "finish_reason": "length"}),
            ),
            cit(
                "Q2",
                0.0,
                serde_json::json!({"question": "q2?", "answer": "Milvus, see b.md", "llm_call_ok": true, "error": null,
                "cited": ["b.md"], "correct": [], "wrong": ["b.md"], "expected": ["a.md"]}),
            ),
            acc(
                "Q3",
                0.0,
                serde_json::json!({"question": "q3?", "answer": null, "llm_call_ok": false, "error": "HTTP 500",
                "keypoints": null, "matched": [], "missing": ["x", "y"]}),
            ),
            cit(
                "Q3",
                0.0,
                serde_json::json!({"question": "q3?", "answer": null, "llm_call_ok": false, "error": "HTTP 500",
                "cited": [], "correct": [], "wrong": [], "expected": ["a.md"]}),
            ),
        ];
        serde_json::json!({
            "metrics": {"cases": 3, "passed_cases": 1, "failed_calls": 1},
            "scores": scores,
            "report": {
                "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl", "counts": {},
                    "languages": {}, "tags": {}}, "run_config": {"backend": "demo"},
                    "evaluator_config": {"metrics": [{"type": "rag_accuracy", "name": "accuracy"}, {"type": "rag_citation", "name": "citation"}]}},
                "summaries": [{"metric": "accuracy", "mean": 0.333, "std": 0.47, "sample_count": 3},
                              {"metric": "citation", "mean": 0.333, "std": 0.47, "sample_count": 3}],
                "breakdowns": [],
                "error_cases": [{"sample_id": "Q3", "status": "error", "trace_id": "r/Q3", "message": "HTTP 500",
                    "latency_ms": 40.0, "backend": "openai", "status_code": 500, "attempts": 3}],
                "llm_judge_details": []
            }
        })
        .to_string()
    }

    #[test]
    fn a_rag_report_gives_back_the_live_cases_reasons_and_notes() {
        let data = load("report.json", rag_report().as_bytes()).expect("report");
        assert_eq!((data.kind.as_str(), &data.look), ("rag", &Look::Rag));
        let cases = rag_cases(&data);
        assert_eq!(cases.len(), 3);
        let (_, c1, r1) = &cases[0];
        assert!(r1.accurate() && r1.cited() && r1.passed());
        assert_eq!(
            (c1.q.as_str(), c1.gold.as_slice()),
            ("q1?", &["ChromaDB".to_string()][..])
        );
        let (_, c2, r2) = &cases[1];
        assert!(r2.truncated(), "finish_reason length");
        assert_eq!(r2.reasoning.as_deref(), Some("thinking"));
        let lang = crate::Lang::En;
        assert_eq!(
            crate::rag::console::reasons(lang, c2, r2),
            [
                "no gold keypoint covered, the answer was 'Milvus, see b.md'",
                "cited wrong document 'b.md', expected 'a.md'"
            ]
        );
        let (_, c3, r3) = &cases[2];
        assert_eq!((r3.attempts, r3.elapsed_ms), (3, 40));
        assert_eq!(c3.gold, ["x", "y"]);
        assert_eq!(
            crate::rag::console::reasons(lang, c3, r3),
            ["model call failed: HTTP 500", "model call failed: HTTP 500"]
        );
        let pairs: Vec<(&RagCase, &CaseResult)> = cases.iter().map(|(_, c, r)| (c, r)).collect();
        let notes = crate::rag::console::notes_of(lang, &pairs);
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[1].starts_with("1. Q2: covers none of the gold keypoints (expected 'Neo4j')"));
        assert_eq!(notes[3], "3. Q1: accuracy and citation as expected: the answer covers a gold keypoint and cites a correct document.");
    }

    #[test]
    fn a_retrieval_report_gives_back_the_live_rows_and_bucket_means() {
        use crate::retrieval::evaluate;
        use crate::retrieval::{parse_cases, Ranked};
        use crate::retrieval::{retrieval_report, ListsFrom, RetrievalInputs};
        let (cases, _) = parse_cases(
            crate::demo::RETRIEVAL_DATASET_NAME,
            crate::demo::RETRIEVAL_DATASET.as_bytes(),
        );
        // Every third case has no list; the others list a wrong source first.
        let lists: Vec<Ranked> = cases
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 != 2)
            .map(|(i, c)| Ranked {
                case_id: c.case_id.clone(),
                line: i + 1,
                sources: ["wrong.md".to_string()]
                    .into_iter()
                    .chain(c.expected_sources.iter().take(i % 2 + 1).cloned())
                    .collect(),
            })
            .collect();
        let e = evaluate(&cases, &lists, 3, "lists.jsonl");
        let from = ListsFrom::File("lists.jsonl".into());
        let meta = crate::report::RunMeta {
            tool: "t".into(),
            version: "0".into(),
            argv: Vec::new(),
            dataset: "d".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 1,
        };
        let report = retrieval_report(
            &e,
            &RetrievalInputs {
                cases_file: "d.jsonl",
                cases_bytes: b"",
                line_errors: &[],
                from: &from,
                metadata: None,
                run_id: "r",
                meta: &meta,
                lang: crate::Lang::En,
            },
        );
        let text = serde_json::to_string(&report).expect("json");
        let data = load("report.json", text.as_bytes()).expect("read back");
        assert_eq!(data.look, Look::Retrieval { k: 3 });
        assert_eq!(data.rows.len(), e.rows.len());
        for (row, live) in data.rows.iter().zip(&e.rows) {
            let back = retrieval_row(&data, row);
            assert_eq!(
                (
                    &back.case.case_id,
                    &back.case.query,
                    &back.case.expected_sources,
                    &back.case.bucket
                ),
                (
                    &live.case.case_id,
                    &live.case.query,
                    &live.case.expected_sources,
                    &live.case.bucket
                )
            );
            // serde_json reads a float back to within an ulp.
            let close =
                |a: [f64; 4], b: [f64; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
            assert!(
                close(back.score.values(), live.score.values()),
                "{}",
                row.id
            );
            assert_eq!(
                (
                    &back.score.first_hit_rank,
                    &back.score.topk,
                    &back.score.found
                ),
                (
                    &live.score.first_hit_rank,
                    &live.score.topk,
                    &live.score.found
                )
            );
            assert_eq!(back.has_list(), live.has_list());
        }
        let live = bucket_means(
            e.rows
                .iter()
                .map(|r| (r.case.bucket.as_str(), r.score.values())),
        );
        assert!(live.len() > 2, "overall and buckets: {live:?}");
        let back = retrieval_means(&data);
        assert_eq!(back.len(), live.len());
        for ((b, n, m), (lb, ln, lm)) in back.iter().zip(&live) {
            assert_eq!((b, n), (lb, ln));
            assert!(m.iter().zip(lm).all(|(x, y)| (x - y).abs() < 1e-12), "{b}");
        }
    }
}
