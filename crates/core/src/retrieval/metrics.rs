//! Spec 000's retrieval evaluation: ranked source lists scored against the
//! expected sources of each case, with trec_eval's definitions.
//!
//! The list's own order is the ranking (nothing is re-sorted; ties cannot
//! arise), and `k` counts items as returned. A source that appears again
//! later in the list (several chunks of one document) counts once, at its
//! first rank; its later copies keep their places and gain nothing. Sources
//! compare as documents do in the RAG citation rule: by file name, without
//! folders, case-insensitively. With `R` distinct expected sources and `rel(i)`
//! = 1 when the item at rank `i` is the first occurrence of an expected source:
//!
//! - `hit_at_k` (trec_eval `success.k`) = 1 if `Σ_{i≤k} rel(i) > 0`;
//! - `recall_at_k` (`recall.k`) = `Σ_{i≤k} rel(i) / R`;
//! - `mrr` (`recip_rank`) = `1 / min{i : rel(i) = 1}` over the whole list, else 0;
//! - `ndcg_at_k` (`ndcg_cut.k`) = `DCG / IDCG`, `DCG = Σ_{i≤k} rel(i) / log2(i + 1)`,
//!   `IDCG = Σ_{i≤min(R, k)} 1 / log2(i + 1)`.

use super::dataset::{Ranked, RetrievalCase};
use crate::metric::retrieval as lines;
use crate::provider::CallError;
use crate::rag_rules::citation::base_name;
use serde::Serialize;
use std::collections::HashSet;

/// The scores of one ranked list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RetrievalScore {
    /// An expected source is within the first `k`.
    pub hit_at_k: bool,
    /// Share of the expected sources within the first `k`.
    pub recall_at_k: f64,
    /// Reciprocal rank of the first expected source (0 when none).
    pub reciprocal_rank: f64,
    /// nDCG at `k` with gain 1.
    pub ndcg_at_k: f64,
    /// Rank of the first expected source, 1-based.
    pub first_hit_rank: Option<usize>,
    /// The first `k` sources as returned.
    pub topk: Vec<String>,
    /// Expected sources found within the first `k`, as written in the case.
    pub found: Vec<String>,
}

/// How a source is compared: its file name, without folders, lowercased.
pub fn source_key(s: &str) -> String {
    base_name(s).to_lowercase()
}

/// Scores one ranked list (`None`: the case has no list, all zeros).
pub fn score(case: &RetrievalCase, ranked: Option<&Ranked>, k: usize) -> RetrievalScore {
    let expected: Vec<String> = {
        let mut seen = HashSet::new();
        case.expected_sources
            .iter()
            .map(|s| source_key(s))
            .filter(|s| seen.insert(s.clone()))
            .collect()
    };
    let sources = ranked.map_or(&[][..], |r| r.sources.as_slice());
    let mut seen = HashSet::new();
    let rel: Vec<bool> = sources
        .iter()
        .map(|s| {
            let key = source_key(s);
            seen.insert(key.clone()) && expected.contains(&key)
        })
        .collect();
    let in_k = &rel[..rel.len().min(k)];
    let hits = in_k.iter().filter(|r| **r).count();
    let first = rel.iter().position(|r| *r).map(|i| i + 1);
    // A fold from +0: `sum` of nothing is -0.0, which reports would print.
    let dcg: f64 = in_k
        .iter()
        .enumerate()
        .filter(|(_, r)| **r)
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .fold(0.0, |a, x| a + x);
    let idcg: f64 = (0..expected.len().min(k))
        .map(|i| 1.0 / ((i + 2) as f64).log2())
        .fold(0.0, |a, x| a + x);
    let found = case
        .expected_sources
        .iter()
        .filter(|e| {
            sources
                .iter()
                .take(k)
                .any(|s| source_key(s) == source_key(e))
        })
        .cloned()
        .collect();
    RetrievalScore {
        hit_at_k: hits > 0,
        recall_at_k: if expected.is_empty() {
            0.0
        } else {
            hits as f64 / expected.len() as f64
        },
        reciprocal_rank: first.map_or(0.0, |r| 1.0 / r as f64),
        ndcg_at_k: if idcg > 0.0 { dcg / idcg } else { 0.0 },
        first_hit_rank: first,
        topk: sources.iter().take(k).cloned().collect(),
        found,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(expected: &[&str]) -> RetrievalCase {
        RetrievalCase {
            case_id: "c".into(),
            line: 1,
            query: "q".into(),
            expected_sources: expected.iter().map(|s| s.to_string()).collect(),
            bucket: "-".into(),
        }
    }

    fn list(sources: &[&str]) -> Ranked {
        Ranked {
            case_id: "c".into(),
            line: 1,
            sources: sources.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn definitions_on_a_small_list() {
        let c = case(&["a.md", "b.md"]);
        let s = score(&c, Some(&list(&["x.md", "docs/A.md", "y.md", "b.md"])), 3);
        assert!(s.hit_at_k);
        assert_eq!(s.recall_at_k, 0.5);
        assert_eq!(s.reciprocal_rank, 0.5);
        assert_eq!(s.first_hit_rank, Some(2));
        let idcg = 1.0 + 1.0 / 3f64.log2();
        assert!((s.ndcg_at_k - (1.0 / 3f64.log2()) / idcg).abs() < 1e-12);
        assert_eq!(s.topk, ["x.md", "docs/A.md", "y.md"]);
        assert_eq!(s.found, ["a.md"]);
    }

    #[test]
    fn a_repeated_source_counts_once_and_keeps_its_place() {
        let c = case(&["a.md", "b.md"]);
        let s = score(&c, Some(&list(&["a.md", "a.md#2", "A.md", "b.md"])), 3);
        // a.md#2 is another name; A.md is a.md again: no gain, still takes rank 3.
        assert_eq!(s.recall_at_k, 0.5, "b.md is at rank 4, outside k");
        let s4 = score(&c, Some(&list(&["a.md", "A.md", "b.md"])), 3);
        assert_eq!(s4.recall_at_k, 1.0);
        let dcg = 1.0 + 1.0 / 4f64.log2();
        let idcg = 1.0 + 1.0 / 3f64.log2();
        assert!((s4.ndcg_at_k - dcg / idcg).abs() < 1e-12);
    }

    #[test]
    fn empty_and_missing_lists_and_lists_shorter_than_k_score_as_trec_eval() {
        let c = case(&["a.md"]);
        for s in [score(&c, None, 5), score(&c, Some(&list(&[])), 5)] {
            assert!(!s.hit_at_k);
            assert_eq!(
                (s.recall_at_k, s.reciprocal_rank, s.ndcg_at_k),
                (0.0, 0.0, 0.0)
            );
        }
        let s = score(&c, Some(&list(&["z.md", "a.md"])), 10);
        assert_eq!((s.recall_at_k, s.reciprocal_rank), (1.0, 0.5));
        let late = score(&c, Some(&list(&["z", "y", "a.md"])), 2);
        assert_eq!(
            late.reciprocal_rank,
            1.0 / 3.0,
            "reciprocal rank has no cut-off"
        );
        assert!(!late.hit_at_k);
    }
}

/// The metrics of a retrieval evaluation, in report order: their registry
/// lines' names.
pub const METRICS: [&str; 4] = [
    lines::HIT_AT_K.name,
    lines::RECALL_AT_K.name,
    lines::MRR.name,
    lines::NDCG_AT_K.name,
];

/// How a case's ranked list was obtained.
#[derive(Clone, Debug, PartialEq)]
pub enum Obtained {
    /// Given in the ranked lists file.
    Listed,
    /// Not in the ranked lists file: the case scores 0.
    Missing,
    /// Asked of the retrieval endpoint: the attempts, the time from the first
    /// send, and the error when no list came back (the case then scores 0).
    Called {
        /// Attempts made.
        attempts: u32,
        /// From the first send to the outcome, in ms.
        elapsed_ms: u64,
        /// Why no list came back.
        error: Option<CallError>,
    },
}

/// One case of a retrieval evaluation: the case, its scores and how its list
/// was obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The case.
    pub case: RetrievalCase,
    /// Its scores (all zero without a list).
    pub score: RetrievalScore,
    /// Where its list came from.
    pub obtained: Obtained,
}

impl Row {
    /// True when the case has a ranked list (given, or answered).
    pub fn has_list(&self) -> bool {
        matches!(
            self.obtained,
            Obtained::Listed | Obtained::Called { error: None, .. }
        )
    }

    /// The error when the endpoint gave no list.
    pub fn error(&self) -> Option<&CallError> {
        match &self.obtained {
            Obtained::Called { error, .. } => error.as_ref(),
            _ => None,
        }
    }
}

/// A scored retrieval evaluation, in dataset order.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    /// The cut-off.
    pub k: usize,
    /// Every case.
    pub rows: Vec<Row>,
    /// Lists naming no case of the dataset.
    pub unknown: Vec<crate::dataset::LineError>,
}

/// Scores every case against its ranked list (a case without one scores 0).
pub fn evaluate(
    cases: &[RetrievalCase],
    lists: &[Ranked],
    k: usize,
    lists_file: &str,
) -> Evaluated {
    use std::collections::HashMap;
    let by_id: HashMap<&str, &Ranked> = lists.iter().map(|l| (l.case_id.as_str(), l)).collect();
    let known: HashSet<&str> = cases.iter().map(|c| c.case_id.as_str()).collect();
    let unknown = lists
        .iter()
        .filter(|l| !known.contains(l.case_id.as_str()))
        .map(|l| crate::dataset::LineError {
            file: lists_file.to_string(),
            line: l.line,
            field: Some("case_id".into()),
            message: format!("`{}` is not a case of the dataset; ignored", l.case_id),
        })
        .collect();
    let rows = cases
        .iter()
        .map(|c| {
            let list = by_id.get(c.case_id.as_str()).copied();
            Row {
                case: c.clone(),
                score: score(c, list, k),
                obtained: if list.is_some() {
                    Obtained::Listed
                } else {
                    Obtained::Missing
                },
            }
        })
        .collect();
    Evaluated { k, rows, unknown }
}

/// Each metric's mean with the number of cases, overall (bucket `""`, first)
/// and per bucket (sorted), over `(bucket, values in [`METRICS`] order)`; a
/// case without a list counts with its zeros. What the retrieval mode shows
/// live and the viewer shows of a saved run.
pub fn bucket_means<'a>(
    rows: impl IntoIterator<Item = (&'a str, [f64; 4])>,
) -> Vec<(String, usize, [f64; 4])> {
    let mut groups: std::collections::BTreeMap<&str, (usize, [f64; 4])> = Default::default();
    for (bucket, values) in rows {
        for key in ["", bucket] {
            let g = groups.entry(key).or_insert((0, [0.0; 4]));
            g.0 += 1;
            for (sum, v) in g.1.iter_mut().zip(values) {
                *sum += v;
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, (n, sums))| (k.to_string(), n, sums.map(|s| s / n.max(1) as f64)))
        .collect()
}

impl RetrievalScore {
    /// The four metric values in [`METRICS`] order.
    pub fn values(&self) -> [f64; 4] {
        let hit = if self.hit_at_k { 1.0 } else { 0.0 };
        [hit, self.recall_at_k, self.reciprocal_rank, self.ndcg_at_k]
    }
}

impl Evaluated {
    /// Cases with an expected source within the first k.
    pub fn hit_cases(&self) -> usize {
        self.rows.iter().filter(|r| r.score.hit_at_k).count()
    }

    /// The run-level counts (`metrics` of the report, `summary` of the log).
    pub fn counts(&self) -> crate::report::ReportMetrics {
        let n = self.rows.len();
        let hits = self.hit_cases();
        crate::report::ReportMetrics {
            cases: n,
            counts: crate::report::Counts {
                passed_cases: hits,
                failed_calls: self.rows.iter().filter(|r| !r.has_list()).count(),
                hit_cases: Some(hits),
                hit_rate: Some(if n == 0 { 0.0 } else { hits as f64 / n as f64 }),
                ..Default::default()
            },
        }
    }
}
