//! The viewer's model over reports, logs and files (`view`).

use super::*;
use crate::events::read;

const SAMPLE: &str = r#"{"metrics": {"cases": 2, "passed_cases": 1, "failed_calls": 1},
    "scores": [
        {"sample_id": "a", "metric": "acc", "value": 1.0, "tags": ["t"], "language": "zh",
         "length_bucket": "short", "detail": {"model": "m", "answer": "甲 \"answer\" [x]", "keypoints": [1, 2]}},
        {"sample_id": "a", "metric": "judge", "value": 0.0, "tags": ["t"], "language": "zh",
         "length_bucket": "short", "detail": {"model": "m", "unscored": true}},
        {"sample_id": "b", "metric": "acc", "value": 0.0, "tags": [], "language": null,
         "length_bucket": null, "detail": {"model": "m", "answer": 42}}
    ],
    "report": {
        "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl", "counts": {},
            "languages": {}, "tags": {}}, "run_config": {"kind": "task", "note": "scores: [not this]"}, "evaluator_config": {}},
        "summaries": [{"model": "m", "metric": "acc", "mean": 0.5, "std": 0.5, "sample_count": 2}],
        "breakdowns": [],
        "error_cases": [{"model": "m", "sample_id": "b", "status": "failed", "trace_id": "x",
            "message": "HTTP 500", "latency_ms": 12.0, "backend": null, "status_code": 500, "attempts": 3}],
        "llm_judge_details": []
    }}"#;

#[test]
fn the_fast_reader_gives_the_typed_readers_table() {
    let text = SAMPLE.to_string();
    let fast = load("r.json", text.as_bytes()).expect("fast");
    let typed: EvaluationResult = serde_json::from_str(&text).expect("typed");
    let slow = from_report(&typed, "r.json");
    assert!(
        !fast.text.is_empty() && slow.text.is_empty(),
        "the fast reader was used"
    );
    assert_eq!(fast.metrics, slow.metrics);
    assert_eq!(fast.rows.len(), 2);
    for (f, s) in fast.rows.iter().zip(&slow.rows) {
        assert_eq!(
            (
                &f.id,
                &f.model,
                &f.values,
                &f.status,
                &f.error,
                &f.answer,
                &f.haystack
            ),
            (
                &s.id,
                &s.model,
                &s.values,
                &s.status,
                &s.error,
                &s.answer,
                &s.haystack
            )
        );
        for c in 0..fast.metrics.len() {
            assert_eq!(fast.detail(f, c), slow.detail(s, c));
        }
    }
    assert_eq!(
        fast.rows[0].values,
        vec![Some(1.0), None],
        "an unscored judgement has no value"
    );
    assert_eq!(fast.rows[0].answer.as_deref(), Some("甲 \"answer\" [x]"));
    assert_eq!(
        fast.rows[1].answer, None,
        "a non-text answer is not searched"
    );
    assert_eq!(
        fast.detail(&fast.rows[0], 0)["keypoints"],
        serde_json::json!([1, 2])
    );
}

#[test]
fn a_report_read_in_slices_gives_the_one_pass_table() {
    let typed: EvaluationResult = serde_json::from_str(SAMPLE).expect("typed");
    let pretty = serde_json::to_string_pretty(&typed).expect("pretty");
    for text in [SAMPLE.to_string(), pretty] {
        let whole = load("r.json", text.as_bytes()).expect("one pass");
        let mut s = Slices::start("r.json", std::rc::Rc::from(text.as_str())).expect("slices");
        assert!(
            !s.step(1).expect("first"),
            "three scores: not done after one"
        );
        let first = s.view();
        assert!(
            first.rows[0].id == "a" && first.rows[0].values[0] == Some(1.0),
            "the first row shows at once"
        );
        while !s.step(1).expect("step") {}
        let sliced = s.finish();
        assert_eq!(sliced.metrics, whole.metrics);
        assert_eq!(sliced.rows.len(), whole.rows.len());
        for (a, b) in sliced.rows.iter().zip(&whole.rows) {
            assert_eq!(
                (&a.id, &a.values, &a.status, &a.answer),
                (&b.id, &b.values, &b.status, &b.answer)
            );
            for c in 0..sliced.metrics.len() {
                assert_eq!(sliced.detail(a, c), whole.detail(b, c));
            }
        }
    }
    assert!(Slices::start("x", std::rc::Rc::from("{\"scores\": 3}")).is_none());
    let broken = SAMPLE.replacen("\"value\": 0.0", "\"value\": nope", 1);
    let mut s = Slices::start("b.json", std::rc::Rc::from(broken.as_str())).expect("starts");
    let e = loop {
        match s.step(10) {
            Ok(true) => panic!("a broken score must be an error"),
            Ok(false) => continue,
            Err(e) => break e,
        }
    };
    assert!(
        matches!(&e, SliceError::BadScore { file, .. } if file == "b.json"),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("b.json: a score cannot be read at byte"),
        "{e}"
    );
    // A report cut inside its scores, and one whose rest is not a report.
    let cut = &SAMPLE[..SAMPLE.find("\"value\"").expect("a score")];
    let mut s = Slices::start("c.json", std::rc::Rc::from(cut)).expect("starts");
    let mut steps = 0;
    let e = loop {
        steps += 1;
        assert!(steps < 100, "a cut report must end in an error");
        match s.step(10) {
            Ok(true) => panic!("a cut report must be an error"),
            Ok(false) => continue,
            Err(e) => break e,
        }
    };
    assert!(
        matches!(&e, SliceError::BadScore { file, .. } | SliceError::Unclosed { file } if file == "c.json"),
        "{e:?}"
    );
    let mut s = Slices::start(
        "d.json",
        std::rc::Rc::from("{\"scores\": [], \"report\": 3}"),
    )
    .expect("starts");
    let e = s.step(10).expect_err("the rest is no report");
    assert!(
        matches!(&e, SliceError::NotAReport { file, .. } if file == "d.json"),
        "{e:?}"
    );
    assert!(e
        .to_string()
        .starts_with("d.json: not a report.json of evalpage ("));
}

#[test]
fn load_tells_reports_from_logs_and_refuses_the_rest() {
    assert!(load("x.txt", b"hello")
        .unwrap_err()
        .to_string()
        .contains("x.txt: expected a report.json"));
    assert!(load("r.json", b"{\"a\": 1}")
        .unwrap_err()
        .to_string()
        .contains("not a report.json"));
    let line = "{\"record_type\":\"case\",\"case_id\":\"a\",\"metrics\":{\"m\":1.0}}\n";
    assert_eq!(
        load("events.json", line.as_bytes())
            .expect("log")
            .rows
            .len(),
        1
    );
    let seq = format!("\u{1e}{line}");
    assert_eq!(load("e", seq.as_bytes()).expect("json-seq").rows.len(), 1);
    assert!(load("e.jsonl", b"{\"x\":1}\n")
        .unwrap_err()
        .to_string()
        .contains("no `meta` or `case`"));
}

#[test]
fn each_refusal_is_its_own_error_naming_the_file() {
    let e = |name: &str, bytes: &[u8]| load(name, bytes).unwrap_err();
    assert_eq!(
        e("x.txt", b"hello"),
        OpenError::NotJsonObject {
            name: "x.txt".into()
        }
    );
    assert_eq!(
        e("r.json", b"{\"a\": \xff}"),
        OpenError::NotUtf8 {
            name: "r.json".into(),
            at: 6
        }
    );
    assert!(
        matches!(e("r.json", b"{\"a\": 1}"), OpenError::NotAReport { name, .. } if name == "r.json")
    );
    assert_eq!(
        e("e.jsonl", b"{\"x\":1}\n"),
        OpenError::NotAnEventLog {
            name: "e.jsonl".into()
        }
    );
    let two = [
        ("a.md".to_string(), b"# a".to_vec()),
        ("b.md".to_string(), b"# b".to_vec()),
    ];
    assert_eq!(
        open_files("run", &two).unwrap_err(),
        OpenError::NoRunFile {
            label: "run".into(),
            reports: "report.json, eval_rag_report.json, eval_retrieval_report.json".into(),
            has: "a.md, b.md".into()
        }
    );
}

#[test]
fn a_cut_log_gives_its_settled_cases_and_says_so() {
    let log = concat!(
        "{\"record_type\":\"meta\",\"run_id\":\"r1\",\"dataset\":\"d.jsonl\"}\n",
        "{\"record_type\":\"case\",\"case_id\":\"a\",\"llm_call_ok\":true,\"metrics\":{\"m\":1.0},\"elapsed_ms\":12,\"answer\":\"Hello\"}\n",
        "{\"record_type\":\"case\",\"case_id\":\"b\",\"llm_call_ok\":false,\"metrics\":{\"m\":0.0},\"error\":\"HTTP 500\"}\n",
        "{\"record_type\":\"case\",\"case_id\":\"c\",\"llm_ca"
    );
    let v = from_log(&read(log.as_bytes()), "x.jsonl");
    assert_eq!(v.rows.len(), 2);
    assert_eq!(v.metrics, vec!["m"]);
    assert_eq!(v.rows[1].status, "failed");
    assert_eq!(v.rows[0].latency_ms, Some(12.0));
    assert_eq!(v.notes.len(), 1);
    assert_eq!(v.summaries[0].mean, 0.5);
    assert!(v.rows[0].haystack.contains("hello"));
}
