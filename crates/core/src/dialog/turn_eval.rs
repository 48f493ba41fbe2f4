//! Spec 001 §5: one row of `turn_eval.jsonl` ([`TurnEval`]) and what scoring
//! a turn reads besides the dataset and the trace: the judge's verdicts
//! ([`TurnJudgement`], the seam for the LLM judge: each part optional, each
//! with the judge's raw answer; a part whose value is `None` was unscored and
//! is never counted as a pass or a fail) and the run's choices
//! ([`ScoreOptions`]). The dialog metrics (`metrics/`) fill the row, each its
//! own fields; `score.rs` runs them over a turn.

use super::resolve::ResolvedKey;
use super::vocab::{ComplianceLabel, TurnStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One judged value with the judge's raw answer; `value: None` is unscored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgedPart<T> {
    /// The verdict as read, `None` when it could not be read.
    pub value: Option<T>,
    /// The judge's whole answer.
    pub raw: String,
    /// Why there is no verdict: the judge call failed (the value is `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a judge said about one turn (the seam for the LLM judge).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnJudgement {
    /// Risk tags the answer discloses (canonical tags or Chinese names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_tags: Option<JudgedPart<Vec<String>>>,
    /// The answer's compliance label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance_label: Option<JudgedPart<ComplianceLabel>>,
    /// The rubric items the answer meets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rubric_hit_items: Option<JudgedPart<Vec<String>>>,
    /// The overall explainability score, 1 to 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_1_5: Option<JudgedPart<f64>>,
    /// Each part's judgement for the outputs (prompt, every attempt's raw
    /// answer and how its verdict was read, tokens, repairs), by part key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub detail: BTreeMap<String, Value>,
}

/// Judgements by dialog id, then by `turn_pair_id`.
pub type Judgements = BTreeMap<String, BTreeMap<usize, TurnJudgement>>;

/// Choices of the scoring that the spec leaves to the run (recorded in
/// `run_manifest.json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreOptions {
    /// M1 of a turn without `recall` searches the conversation sent up to
    /// the turn as its short-term window (every key the user said earlier is
    /// a hit), instead of not being measured.
    pub m1_from_conversation: bool,
}

/// Whether a metric was scored on a turn (`m1_status`, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricRun {
    /// Scored: the metric has a value for the turn.
    Scored,
    /// Nothing predicted it (no judge, no trace `compliance`, no recall trace).
    NotRun,
    /// The judge's verdict could not be read, or its call failed.
    Unscored,
    /// §7: not eligible (no ground truth for it, or the turn failed).
    #[default]
    NotEligible,
}

impl MetricRun {
    /// `scored`, `not_run`, `unscored`, `not_eligible`.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricRun::Scored => "scored",
            MetricRun::NotRun => "not_run",
            MetricRun::Unscored => "unscored",
            MetricRun::NotEligible => "not_eligible",
        }
    }
}

/// `m1_source_hits`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceHits {
    /// Keys found in the short-term window.
    pub short_term: usize,
    /// Keys found in long-term items.
    pub long_term: usize,
    /// Keys found in the profile context.
    pub profile: usize,
}

/// One row of `turn_eval.jsonl` (§5). §5's required fields are required;
/// every other field (evalpage's own, and §5's optional ones) may be absent
/// in a row another producer wrote, and reads as empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnEval {
    /// `v1`.
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// Dialog id.
    pub dialog_id: String,
    /// Pair number.
    pub turn_pair_id: usize,
    /// The turn's status (`None`: a row from another producer that gives none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_status: Option<TurnStatus>,
    /// M1 eligible.
    pub eligible_m1: bool,
    /// M2 eligible.
    pub eligible_m2: bool,
    /// M3 (lexicon) eligible.
    pub eligible_m3: bool,
    /// M4 (trace compliance) eligible.
    pub eligible_m4: bool,
    /// M5 (judge) eligible.
    pub eligible_m5: bool,
    /// M3 by the judge eligible (§7: as `eligible_m3`).
    #[serde(default)]
    pub eligible_m3_judge: bool,
    /// M4 by the judge eligible (§7: as `eligible_m4`).
    #[serde(default)]
    pub eligible_m4_judge: bool,
    /// Whether M1 was scored.
    #[serde(default)]
    pub m1_status: MetricRun,
    /// Whether M2 was scored.
    #[serde(default)]
    pub m2_status: MetricRun,
    /// Whether M3 (lexicon) was scored.
    #[serde(default)]
    pub m3_status: MetricRun,
    /// Whether M3 by the judge was scored.
    #[serde(default)]
    pub m3_judge_status: MetricRun,
    /// Whether M4 (trace compliance) was scored.
    #[serde(default)]
    pub m4_status: MetricRun,
    /// Whether M4 by the judge was scored.
    #[serde(default)]
    pub m4_judge_status: MetricRun,
    /// Whether M5 was scored.
    #[serde(default)]
    pub m5_status: MetricRun,
    /// `memory_required_keys_gt` as written.
    #[serde(default)]
    pub required_keys_raw: Vec<String>,
    /// One entry per raw key, in order.
    #[serde(default)]
    pub resolved_keys: Vec<ResolvedKey>,
    /// 1 hit, 0 miss, per resolvable key in order (none when M1 was not scored).
    #[serde(default)]
    pub key_hit_flags: Vec<u8>,
    /// The sources that hold each key, aligned with `key_hit_flags`.
    #[serde(default)]
    pub key_hit_sources: Vec<Vec<String>>,
    /// Keys hit by each source.
    #[serde(default)]
    pub m1_source_hits: SourceHits,
    /// The profile's forbidden terms (M2).
    #[serde(default)]
    pub forbidden_terms: Vec<String>,
    /// Forbidden terms the answer recommends.
    #[serde(default)]
    pub forbidden_hits: Vec<String>,
    /// 1 when `forbidden_hits` is not empty.
    #[serde(default)]
    pub constraint_contradiction: u8,
    /// `risk_disclosure_required_gt` as written.
    #[serde(default)]
    pub risk_required_raw: Vec<String>,
    /// The required tags in the canonical set (unknown names kept as written).
    #[serde(default)]
    pub risk_required_tags: Vec<String>,
    /// Required tags outside the canonical set (the lexicon cannot find them).
    #[serde(default)]
    pub risk_required_unknown: Vec<String>,
    /// Tags the lexicon finds in the answer.
    #[serde(default)]
    pub risk_pred_tags: Vec<String>,
    /// `lexicon`.
    #[serde(default)]
    pub risk_pred_source: String,
    /// Required tags found.
    #[serde(default)]
    pub risk_tag_hits: usize,
    /// Tags the judge found, canonical (`null` without a judge verdict).
    #[serde(default)]
    pub risk_pred_tags_judge: Option<Vec<String>>,
    /// Required tags the judge found.
    #[serde(default)]
    pub risk_tag_hits_judge: Option<usize>,
    /// The label read from the trace's `compliance`.
    #[serde(default)]
    pub pred_compliance_label: Option<ComplianceLabel>,
    /// `trace_compliance` when there is one.
    #[serde(default)]
    pub pred_compliance_source: Option<String>,
    /// The ground-truth label.
    #[serde(default)]
    pub gt_compliance_label: Option<ComplianceLabel>,
    /// The judge's label.
    #[serde(default)]
    pub pred_compliance_label_judge: Option<ComplianceLabel>,
    /// `explainability_rubric_gt`.
    #[serde(default)]
    pub rubric_required: Vec<String>,
    /// Required rubric items the judge says the answer meets.
    #[serde(default)]
    pub rubric_hit_items: Option<Vec<String>>,
    /// The judge's score.
    #[serde(default)]
    pub judge_score_1_5: Option<f64>,
    /// The judge's raw answers, by part.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judge_raw: BTreeMap<String, String>,
    /// Each judged part: the prompt, every attempt (raw answer, how its
    /// verdict was read, tokens), repairs, the outcome; by part key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub judgements: BTreeMap<String, Value>,
    /// Why a metric is not eligible, by metric (`m1`, `m3_judge`, ...).
    #[serde(default)]
    pub skip_reasons: BTreeMap<String, String>,
}

impl TurnEval {
    /// Each raw key (as `required_keys_raw`) with its flag and the sources
    /// that hold it: `None` for an unresolvable key, or when M1 was not scored.
    pub fn key_hits(&self) -> Vec<Option<(u8, &[String])>> {
        let mut next = 0;
        self.resolved_keys
            .iter()
            .map(|k| {
                if !k.resolvable {
                    return None;
                }
                let i = next;
                next += 1;
                let sources = self.key_hit_sources.get(i).map_or(&[][..], Vec::as_slice);
                self.key_hit_flags.get(i).map(|f| (*f, sources))
            })
            .collect()
    }
}
