//! `reference_rouge` agrees with Google's rouge-score on English pairs: the
//! expected precision, recall and F1 of ROUGE-1, ROUGE-2 and ROUGE-L were
//! produced by `tests/data/rouge/make_fixtures.py` (rouge-score 0.1.2, no
//! stemming) and are compared within 1e-6.

use evalpage_core::testing::{rouge, RougeScore, ROUGE_TYPES};
use serde_json::Value;

const FIXTURES: &str = include_str!("data/rouge/fixtures.json");

fn expected(case: &Value, rouge_type: &str, key: &str) -> f64 {
    case[rouge_type][key].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn rouge_matches_rouge_score_within_1e6() {
    let fixtures: Value = serde_json::from_str(FIXTURES).expect("fixtures.json is JSON");
    let cases = fixtures["cases"].as_array().expect("cases array");
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    let mut mismatches = Vec::new();
    for case in cases {
        let (reference, prediction) = (
            case["reference"].as_str().unwrap_or(""),
            case["prediction"].as_str().unwrap_or(""),
        );
        let got = rouge(reference, prediction);
        for t in ROUGE_TYPES {
            let s: RougeScore = got.get(t);
            for (key, value) in [
                ("precision", s.precision),
                ("recall", s.recall),
                ("fmeasure", s.fmeasure),
            ] {
                let want = expected(case, t, key);
                if (value - want).abs() > 1e-6 {
                    mismatches.push(format!(
                        "{reference:?} / {prediction:?}: {t}.{key} = {value}, rouge-score {want}"
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
