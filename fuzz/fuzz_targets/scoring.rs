//! `scorer::accuracy::score` and `scorer::citation::score` on arbitrary text.
//!
//! Input: byte 0 picks the match mode and threshold; the rest, as lossy UTF-8, is
//! split on NUL into the answer, the gold keypoints (one per line) and the
//! document hints (one per line).
#![no_main]

use evalpage_core::testing::base_name;
use evalpage_core::{MatchMode, ScoringConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let cfg = ScoringConfig {
        match_mode: if mode & 1 == 0 {
            MatchMode::Fuzzy
        } else {
            MatchMode::Strict
        },
        fuzzy_threshold: f64::from(mode / 2 % 100 + 1) / 100.0,
    };
    let text = String::from_utf8_lossy(rest);
    let mut parts = text.split('\0');
    let answer = parts.next().unwrap_or("");
    let lines =
        |p: Option<&str>| -> Vec<String> { p.unwrap_or("").lines().map(str::to_string).collect() };
    let gold = lines(parts.next());
    // hints as the dataset reader lets them through: trimmed, with a file name
    let hints: Vec<String> = lines(parts.next())
        .into_iter()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !base_name(h).is_empty())
        .collect();

    let acc = evalpage_core::testing::accuracy(answer, &gold, &cfg);
    assert_eq!(acc.keypoints.len(), gold.len());
    assert_eq!(acc.passed, acc.keypoints.iter().any(|k| k.matched));
    for k in &acc.keypoints {
        assert!((0.0..=1.0).contains(&k.score), "score {}", k.score);
        assert_eq!(k.matched, k.method != "none");
    }
    assert_eq!(acc.missing().len() + acc.matched().len(), gold.len());

    let cit = evalpage_core::testing::citation(answer, &hints);
    assert_eq!(cit.passed, !cit.correct.is_empty() && cit.wrong.is_empty());
    assert_eq!(cit.correct.len() + cit.wrong.len(), cit.cited.len());
    assert!(
        cit.cited.iter().all(|c| !c.is_empty()),
        "empty cited name: {:?}",
        cit.cited
    );
});
