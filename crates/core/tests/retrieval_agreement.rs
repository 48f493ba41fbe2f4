//! Retrieval metrics agree with trec_eval (success.k, recall.k, ndcg_cut.k,
//! recip_rank) on 240 seeded cases × k ∈ {1, 3, 5, 10}: duplicated sources,
//! empty and missing lists, lists shorter than k. The expected values were made
//! with trec_eval's Python binding by tests/data/retrieval/make_fixtures.py.

use evalpage_core::retrieval::score;
use evalpage_core::retrieval::{parse_cases, parse_ranked};
use serde_json::Value;
use std::collections::HashMap;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/retrieval/");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).expect("fixture")
}

#[test]
fn every_measure_equals_trec_eval_on_every_case_and_cutoff() {
    let (cases, errors) = parse_cases("cases.jsonl", &read("cases.jsonl"));
    assert!(errors.is_empty(), "{errors:?}");
    let (lists, errors) = parse_ranked("ranked.jsonl", &read("ranked.jsonl"));
    assert!(errors.is_empty(), "{errors:?}");
    let lists: HashMap<&str, _> = lists.iter().map(|l| (l.case_id.as_str(), l)).collect();
    let by_id: HashMap<&str, _> = cases.iter().map(|c| (c.case_id.as_str(), c)).collect();
    let expected = String::from_utf8(read("expected.jsonl")).expect("utf8");
    let mut checked = 0;
    for line in expected.lines() {
        let e: Value = serde_json::from_str(line).expect("json");
        let id = e["case_id"].as_str().expect("id");
        let k = e["k"].as_u64().expect("k") as usize;
        let s = score(by_id[id], lists.get(id).copied(), k);
        let near = |a: f64, b: &Value| (a - b.as_f64().expect("number")).abs() < 1e-9;
        let hit = if s.hit_at_k { 1.0 } else { 0.0 };
        assert!(
            near(hit, &e["hit_at_k"]),
            "{id} k={k} success: {hit} vs {}",
            e["hit_at_k"]
        );
        assert!(
            near(s.recall_at_k, &e["recall_at_k"]),
            "{id} k={k} recall: {} vs {}",
            s.recall_at_k,
            e["recall_at_k"]
        );
        assert!(
            near(s.ndcg_at_k, &e["ndcg_at_k"]),
            "{id} k={k} ndcg: {} vs {}",
            s.ndcg_at_k,
            e["ndcg_at_k"]
        );
        assert!(
            near(s.reciprocal_rank, &e["mrr"]),
            "{id} recip_rank: {} vs {}",
            s.reciprocal_rank,
            e["mrr"]
        );
        checked += 1;
    }
    assert_eq!(checked, 960, "240 cases x 4 cut-offs");
}
