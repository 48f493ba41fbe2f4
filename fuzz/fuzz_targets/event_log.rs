//! `events::read` on arbitrary bytes, then `reconcile` against a small fixed report.
#![no_main]

use evalpage_core::events::{self, LogFormat};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;

fn report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| {
        json!({
            "metrics": {"cases": 2, "passed_cases": 1, "accurate_cases": 2,
                        "cited_cases": 1, "failed_calls": 0},
            "scores": [
                {"sample_id": "a", "metric": "accuracy", "value": 1.0},
                {"sample_id": "a", "metric": "citation", "value": 1.0},
                {"sample_id": "b", "metric": "accuracy", "value": 1.0},
                {"sample_id": "b", "metric": "citation", "value": 0.0}
            ],
            "report": {"experiment": {"run": {"run_id": "r1"}}}
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let log = events::read(data);
    let chunks = match log.format {
        LogFormat::JsonSeq => data.iter().filter(|b| **b == 0x1E).count(),
        LogFormat::Jsonl => data.iter().filter(|b| **b == b'\n').count() + 1,
    };
    assert!(log.records.len() + log.skipped.len() <= chunks);
    assert!(log.records.iter().all(Value::is_object));
    let mut last = 0;
    for s in &log.skipped {
        assert!(
            s.position > last && s.position <= chunks,
            "position {}",
            s.position
        );
        last = s.position;
        assert!(!s.reason.is_empty());
    }
    let rec = events::reconcile(report(), &log);
    assert_eq!(rec.ok, rec.checks.iter().all(|c| c.ok));
    assert_eq!(
        rec.notes.len(),
        log.skipped.len() + usize::from(log.truncated_tail)
    );
});
