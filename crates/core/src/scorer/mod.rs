//! Per-case scorers for the RAG evaluation of spec 002, and the registry the UI
//! and reports read their metric list from.
//!
//! A scorer judges one case; aggregation (mean, std, breakdowns) lives in
//! `report::aggregate`.

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
