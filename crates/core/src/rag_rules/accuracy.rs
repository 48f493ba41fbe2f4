//! Accuracy (准确率) of spec 002: does the answer explicitly cover at least one
//! gold keypoint?
//!
//! Formula: `accuracy(case) = 1` if some keypoint `k` matches the answer `a`, else 0.
//! Both are folded first (`text::fold`: NFKC, lowercase, whitespace and punctuation
//! removed). `k` matches *exactly* when `fold(k)` is a substring of `fold(a)`. In fuzzy
//! mode `k` also matches when its character-bigram recall reaches the threshold:
//! `recall(k, a) = |B(k) ∩ B(a)| / |B(k)|`, where `B(s)` is the set of adjacent
//! character pairs of `fold(s)`. Bigram recall tolerates reordered or lightly
//! reworded phrases in Chinese (where a character carries a morpheme) and in
//! English (where it behaves like a fuzzy substring test). Keypoints of one
//! folded character can only match exactly.
//!
//! A keypoint that ends in a gloss in brackets, full-width or ASCII
//! (`忠实度（Faithfulness）`, `检索系统（向量数据库或搜索引擎）`, `Faithfulness (忠实度)`),
//! is also covered when its main part, or its whole gloss, is mentioned: spec
//! 002's own example counts "LightRAG 的 RAGAS 包含忠实度指标" as covering
//! `忠实度（Faithfulness）`. The whole keypoint is tried first, then the main part,
//! then the gloss, each by the same rule; `part` says which one matched.

use super::{MatchMode, ScoringConfig};
use crate::text::fold;
use serde::Serialize;

/// How one keypoint fared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeypointMatch {
    /// The keypoint as written in the dataset.
    pub keypoint: String,
    /// Whether it counts as covered.
    pub matched: bool,
    /// `exact`, `fuzzy` or `none`.
    pub method: &'static str,
    /// Bigram recall in [0, 1] (1 for an exact match).
    pub score: f64,
    /// Which part of a glossed keypoint matched: `main` (before the
    /// brackets) or `gloss` (inside them); absent when the whole keypoint
    /// matched or nothing did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<&'static str>,
}

impl KeypointMatch {
    /// Reads one back from its JSON form (a metric's detail); `None` when it
    /// is not one.
    pub fn from_json(v: &serde_json::Value) -> Option<KeypointMatch> {
        let method = v.get("method")?.as_str()?;
        Some(KeypointMatch {
            keypoint: v.get("keypoint")?.as_str()?.to_string(),
            matched: v.get("matched")?.as_bool()?,
            method: ["exact", "fuzzy", "none"]
                .into_iter()
                .find(|m| *m == method)?,
            score: v.get("score")?.as_f64()?,
            part: match v.get("part").and_then(|p| p.as_str()) {
                Some("main") => Some("main"),
                Some("gloss") => Some("gloss"),
                _ => None,
            },
        })
    }
}

/// The accuracy verdict for one answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccuracyVerdict {
    /// True when at least one keypoint matched.
    pub passed: bool,
    /// Every keypoint, in dataset order.
    pub keypoints: Vec<KeypointMatch>,
}

impl AccuracyVerdict {
    /// Keypoints that did not match (the event log's `missing`).
    pub fn missing(&self) -> Vec<String> {
        self.keypoints
            .iter()
            .filter(|k| !k.matched)
            .map(|k| k.keypoint.clone())
            .collect()
    }

    /// Keypoints that matched.
    pub fn matched(&self) -> Vec<String> {
        self.keypoints
            .iter()
            .filter(|k| k.matched)
            .map(|k| k.keypoint.clone())
            .collect()
    }
}

/// Scores one answer against its gold keypoints.
pub fn score(answer: &str, gold: &[String], cfg: &ScoringConfig) -> AccuracyVerdict {
    let folded = fold(answer);
    let answer_grams = bigrams(&folded);
    let keypoints: Vec<KeypointMatch> = gold
        .iter()
        .map(|k| match_keypoint(k, &folded, &answer_grams, cfg))
        .collect();
    AccuracyVerdict {
        passed: keypoints.iter().any(|k| k.matched),
        keypoints,
    }
}

fn match_keypoint(
    keypoint: &str,
    answer: &str,
    answer_grams: &Bigrams,
    cfg: &ScoringConfig,
) -> KeypointMatch {
    let whole = match_text(keypoint, keypoint, answer, answer_grams, cfg);
    if whole.matched {
        return whole;
    }
    let Some((main, gloss)) = split_gloss(keypoint) else {
        return whole;
    };
    for (part, text) in [("main", main), ("gloss", gloss)] {
        let m = match_text(keypoint, text, answer, answer_grams, cfg);
        if m.matched {
            return KeypointMatch {
                part: Some(part),
                ..m
            };
        }
    }
    whole
}

/// A keypoint's main part and its gloss, when it ends in one in brackets
/// (`（…）` or `(…)`) with text before it; `None` otherwise.
pub fn split_gloss(keypoint: &str) -> Option<(&str, &str)> {
    let k = keypoint.trim_end();
    let (open, close) = if k.ends_with('）') {
        ('（', '）')
    } else if k.ends_with(')') {
        ('(', ')')
    } else {
        return None;
    };
    let at = k.rfind(open)?;
    let main = k[..at].trim();
    let gloss = k[at + open.len_utf8()..k.len() - close.len_utf8()].trim();
    (!main.is_empty() && !gloss.is_empty()).then_some((main, gloss))
}

/// Whether `text` (the keypoint or one of its parts) is covered by the answer.
fn match_text(
    keypoint: &str,
    text: &str,
    answer: &str,
    answer_grams: &Bigrams,
    cfg: &ScoringConfig,
) -> KeypointMatch {
    let k = fold(text);
    let verdict = |matched, method, score| KeypointMatch {
        keypoint: keypoint.to_string(),
        matched,
        method,
        score,
        part: None,
    };
    if !k.is_empty() && answer.contains(&k) {
        return verdict(true, "exact", 1.0);
    }
    let grams = bigrams(&k);
    if grams.is_empty() {
        return verdict(false, "none", 0.0);
    }
    let hit = grams.iter().filter(|g| answer_grams.contains(g)).count();
    let recall = hit as f64 / grams.len() as f64;
    let fuzzy = cfg.match_mode == MatchMode::Fuzzy && recall >= cfg.fuzzy_threshold;
    verdict(fuzzy, if fuzzy { "fuzzy" } else { "none" }, recall)
}

/// The set of adjacent character pairs of an already folded string.
pub fn bigrams(folded: &str) -> Bigrams {
    let chars: Vec<char> = folded.chars().collect();
    let mut pairs: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    pairs.sort_unstable();
    pairs.dedup();
    Bigrams(pairs)
}

/// A set of character pairs, kept sorted: a lookup is a binary search and an
/// overlap one merge, with no hashing (scoring is the run's hot path).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bigrams(Vec<(char, char)>);

impl Bigrams {
    /// How many pairs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pairs, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &(char, char)> {
        self.0.iter()
    }

    /// Whether `pair` is in the set.
    pub fn contains(&self, pair: &(char, char)) -> bool {
        self.0.binary_search(pair).is_ok()
    }

    /// How many pairs the two sets share.
    pub fn overlap(&self, other: &Bigrams) -> usize {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < self.0.len() && j < other.0.len() {
            match self.0[i].cmp(&other.0[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// Spec 002's own examples: its question 1 answer covers the first
    /// keypoint by its main part; the other answer covers none.
    #[test]
    fn spec_002_examples_cover_a_glossed_keypoint_by_its_main_part() {
        let g = gold(&[
            "忠实度（Faithfulness）",
            "答案相关性（Answer Relevance）",
            "上下文召回率（Context Recall）",
            "上下文精确率（Context Precision）",
        ]);
        for cfg in [
            ScoringConfig::default(),
            ScoringConfig {
                match_mode: MatchMode::Strict,
                ..Default::default()
            },
        ] {
            let v = score("LightRAG 的 RAGAS 包含忠实度指标", &g, &cfg);
            assert!(v.passed);
            assert_eq!(v.matched(), vec!["忠实度（Faithfulness）".to_string()]);
            assert_eq!(v.keypoints[0].part, Some("main"));
            assert_eq!(v.keypoints[0].method, "exact");
            assert!(!score("LightRAG 支持自定义数据集", &g, &cfg).passed);
        }
    }

    #[test]
    fn a_gloss_covers_its_keypoint_in_either_bracket_style() {
        let cfg = ScoringConfig {
            match_mode: MatchMode::Strict,
            ..Default::default()
        };
        let v = score(
            "第一个组件是向量数据库或搜索引擎。",
            &gold(&["检索系统（向量数据库或搜索引擎）"]),
            &cfg,
        );
        assert!(v.passed);
        assert_eq!(v.keypoints[0].part, Some("gloss"));
        let v = score(
            "It reports faithfulness.",
            &gold(&["Faithfulness (忠实度)"]),
            &cfg,
        );
        assert_eq!(v.keypoints[0].part, Some("main"));
        // the whole keypoint first: no part named
        let v = score(
            "忠实度（Faithfulness）是指标之一",
            &gold(&["忠实度（Faithfulness）"]),
            &cfg,
        );
        assert_eq!((v.passed, v.keypoints[0].part), (true, None));
        // a part mentioned only in passing is not enough: the whole gloss is needed
        assert!(
            !score(
                "向量数据库",
                &gold(&["检索系统（向量数据库或搜索引擎）"]),
                &cfg
            )
            .passed
        );
        assert_eq!(split_gloss("没有注释"), None);
        assert_eq!(split_gloss("（只有注释）"), None);
        assert_eq!(split_gloss("A (b) (c)"), Some(("A (b)", "c")));
    }

    #[test]
    fn the_part_that_matched_reads_back_from_the_detail() {
        let v = score(
            "包含忠实度",
            &gold(&["忠实度（Faithfulness）"]),
            &ScoringConfig::default(),
        );
        let json = serde_json::to_value(&v.keypoints[0]).expect("json");
        assert_eq!(json["part"], "main");
        assert_eq!(
            KeypointMatch::from_json(&json),
            Some(v.keypoints[0].clone())
        );
    }

    #[test]
    fn exact_match_survives_width_case_and_punctuation() {
        let cfg = ScoringConfig {
            match_mode: MatchMode::Strict,
            ..Default::default()
        };
        let v = score(
            "它支持 ｍｏｎｇｏｄｂ　ａｔｌａｓ。",
            &gold(&["MongoDB Atlas", "Redis"]),
            &cfg,
        );
        assert!(v.passed);
        assert_eq!(v.keypoints[0].method, "exact");
        assert_eq!(v.missing(), vec!["Redis".to_string()]);
    }

    #[test]
    fn fuzzy_recall_is_hand_computed() {
        // keypoint 检测幻觉现象 -> bigrams {检测,测幻,幻觉,觉现,现象} (5);
        // answer 可以检测幻觉 -> {可以,以检,检测,测幻,幻觉}; hits 3 -> recall 0.6.
        let cfg = ScoringConfig {
            match_mode: MatchMode::Fuzzy,
            fuzzy_threshold: 0.6,
        };
        let v = score("可以检测幻觉", &gold(&["检测幻觉现象"]), &cfg);
        assert!((v.keypoints[0].score - 0.6).abs() < 1e-12);
        assert!(v.passed);
        assert_eq!(v.keypoints[0].method, "fuzzy");
        let strict = ScoringConfig {
            match_mode: MatchMode::Strict,
            ..cfg
        };
        assert!(!score("可以检测幻觉", &gold(&["检测幻觉现象"]), &strict).passed);
        let high = ScoringConfig {
            fuzzy_threshold: 0.61,
            ..cfg
        };
        assert!(!score("可以检测幻觉", &gold(&["检测幻觉现象"]), &high).passed);
    }

    #[test]
    fn unrelated_answer_fails() {
        let v = score(
            "NaN结果可重启服务解决",
            &gold(&["API密钥配置错误", "模型端点错误"]),
            &ScoringConfig::default(),
        );
        assert!(!v.passed);
        assert_eq!(v.missing().len(), 2);
    }

    #[test]
    fn one_char_keypoint_needs_exact() {
        let v = score("abc", &gold(&["x"]), &ScoringConfig::default());
        assert!(!v.passed);
        assert!(score("a x b", &gold(&["X"]), &ScoringConfig::default()).passed);
    }
}
