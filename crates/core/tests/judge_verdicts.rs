//! The judge verdict reader over a corpus of judge answers written to trip it
//! (fences, prose after the grade, `downgrade:`, `GRADE: CI`, two grades,
//! grades out of scale, Chinese punctuation, JSON without a verdict): each
//! with its expected outcome. An unreadable verdict is unscored, never a
//! pass or a fail.

use evalpage_core::testing::{read_verdict as read, Scale, Verdict};
use serde_json::Value;

#[test]
fn every_answer_of_the_corpus_reads_as_expected() {
    let text = include_str!("data/judge/verdicts.jsonl");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("corpus line");
        let scale = match &case["scale"] {
            Value::Array(labels) => Scale::Labels(
                labels
                    .iter()
                    .filter_map(|l| l.as_str().map(String::from))
                    .collect(),
            ),
            range => Scale::Range {
                lo: range["lo"].as_i64().expect("lo"),
                hi: range["hi"].as_i64().expect("hi"),
            },
        };
        let answer = case["answer"].as_str().expect("answer");
        let expect = case["expect"].as_str().expect("expect");
        let got = read(answer, &scale);
        let shown = match &got {
            Verdict::Scored { value, .. } => value.clone(),
            Verdict::Unscored { reason } => {
                assert!(!reason.is_empty());
                "unscored".to_string()
            }
        };
        assert_eq!(shown, expect, "{}: {answer:?} -> {got:?}", case["why"]);
        n += 1;
    }
    assert!(n >= 40, "the corpus has {n} answers");
}
