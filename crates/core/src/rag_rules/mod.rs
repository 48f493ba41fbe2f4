//! Spec 002's two rules for one RAG case: keypoint accuracy (`accuracy`: the
//! answer covers a gold keypoint, exactly or fuzzily, as `ScoringConfig` says)
//! and citation (`citation`: the answer cites a `doc_hint` document and none
//! outside it). The metric types `rag_accuracy` and `rag_citation` wrap them;
//! the demo model and retrieval's source matching use them too. Aggregation
//! (mean, std, breakdowns) lives in `report::aggregate`.

pub mod accuracy;
pub mod citation;

use serde::{Deserialize, Serialize};

/// How gold keypoints are matched against an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// The folded keypoint must appear verbatim in the folded answer.
    Strict,
    /// Verbatim, or character-bigram recall of the keypoint at or above the threshold.
    #[default]
    Fuzzy,
}

impl MatchMode {
    /// Parses `strict` / `fuzzy`.
    pub fn parse(s: &str) -> Option<MatchMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "strict" => Some(MatchMode::Strict),
            "fuzzy" => Some(MatchMode::Fuzzy),
            _ => None,
        }
    }
}

/// Scoring settings; part of the run configuration and of the report.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoringConfig {
    /// Keypoint match mode.
    pub match_mode: MatchMode,
    /// Minimum bigram recall for a fuzzy match, in (0, 1].
    pub fuzzy_threshold: f64,
}

impl Default for ScoringConfig {
    fn default() -> Self {
        ScoringConfig {
            match_mode: MatchMode::Fuzzy,
            fuzzy_threshold: 0.6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_modes_parse() {
        assert_eq!(MatchMode::parse("STRICT"), Some(MatchMode::Strict));
    }
}
