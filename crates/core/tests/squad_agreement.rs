//! `token_f1` agrees with SQuAD v1.1's evaluation script on English pairs: the
//! expected F1 and exact match (each the best over the pair's ground truths,
//! `metric_max_over_ground_truths`) were produced by
//! `tests/data/squad/make_fixtures.py` with the script's own functions, and
//! are compared within 1e-9.

use evalpage_core::testing::best_token_f1 as best;
use evalpage_core::testing::is_cjk;
use serde_json::Value;

const FIXTURES: &str = include_str!("data/squad/fixtures.jsonl");

/// One fixture line: prediction, ground truths, expected F1 and EM.
fn case(line: &str) -> (String, Vec<String>, f64, f64) {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    let golds = v["ground_truths"].as_array().map_or(Vec::new(), |a| {
        a.iter()
            .filter_map(|g| g.as_str().map(str::to_string))
            .collect()
    });
    let prediction = v["prediction"].as_str().unwrap_or_default().to_string();
    let number = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    (prediction, golds, number("f1"), number("em"))
}

#[test]
fn token_f1_matches_the_squad_v1_1_script_within_1e9() {
    let lines: Vec<&str> = FIXTURES.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 60, "only {} pairs", lines.len());
    let mut mismatches = Vec::new();
    for line in &lines {
        let (prediction, golds, f1, em) = case(line);
        assert!(!golds.is_empty(), "{line}: no ground truth");
        assert!(
            !line.chars().any(is_cjk),
            "{line}: the fixtures are English only"
        );
        let Some((_, got, exact)) = best(&prediction, &golds) else {
            unreachable!("golds are not empty")
        };
        let got_em = if exact { 1.0 } else { 0.0 };
        if (got.f1 - f1).abs() > 1e-9 || got_em != em {
            mismatches.push(format!(
                "{prediction:?} vs {golds:?}: f1 {} em {got_em}, script f1 {f1} em {em}",
                got.f1
            ));
        }
    }
    let agree = lines.len() - mismatches.len();
    println!(
        "token_f1 agrees with SQuAD v1.1 on {agree}/{} pairs",
        lines.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
