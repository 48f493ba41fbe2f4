//! Spec 001 §5 and §7: one `turn_eval.jsonl` row per aligned turn pair of a
//! valid dialog, with M1–M5 and their eligibility, from the dataset's ground
//! truth, the trace's predictions and optional judge verdicts.
//!
//! - M1 memory: §6 (`resolve.rs`), over the turn's `recall` (short-term
//!   window, long-term items, profile context). A turn without `recall` is
//!   eligible (§7) but not run for M1 (`m1_status: "not_run"`): M1 measures
//!   what a memory system recalled, and a plain chat model recalls nothing.
//!   An eligible turn none of whose keys resolves is `unscored` (§6 keeps
//!   unresolvable keys out of the denominator). Only with
//!   [`ScoreOptions::m1_from_conversation`] is the conversation sent up to
//!   the turn taken as its short-term window. `key_hit_flags` holds 1 or 0
//!   for each resolvable key, in order, aligned with `key_hit_sources`; an
//!   unresolvable key has no flag (`resolved_keys` lists every raw key with
//!   its `resolvable`).
//! - M2 constraint contradiction: the forbidden terms of the profile's
//!   `constraints_gt` (see [`forbidden_terms`]) that the answer mentions in a
//!   clause without a negation before them (`forbidden_hits`);
//!   `constraint_contradiction` is 1 when there is one.
//! - M3 risk disclosure: required tags mapped to the canonical set vs the
//!   tags the lexicon finds in the answer (`risk_pred_tags`,
//!   `risk_pred_source: "lexicon"`); the judge's tags, when given, are scored
//!   apart (`eligible_m3_judge`, `risk_pred_tags_judge`).
//! - M4 compliance: `gt_compliance_label` vs the label read from the trace's
//!   `compliance` ([`label_of_compliance`], `pred_compliance_source:
//!   "trace_compliance"`); the judge's label apart (`eligible_m4_judge`).
//! - M5 explainability: needs the judge (`rubric_hit_items`,
//!   `judge_score_1_5`).
//!
//! §7: `eligible_m*` is the spec's alone: a turn whose `turn_status` is not
//! `ok` gets a row with every `eligible_*` false, and an empty requirement
//! list (or no ground truth for the metric) is not eligible. Whether an
//! eligible metric was scored is apart, in
//! `m1_status` .. `m5_status`, `m3_judge_status`, `m4_judge_status`:
//! `scored`, `not_run` (nothing predicted it: no judge, no trace
//! `compliance`, no recall trace), `unscored` (the judge's verdict could not
//! be read, or its call failed; for M1, no key resolves) or `not_eligible`. `skip_reasons` says, per
//! metric, why a turn is not eligible or not scored.
//!
//! The judge seam: [`TurnJudgement`] is what a judge said about one turn
//! (each part optional, each with the judge's raw answer; a part whose value
//! is `None` was unscored and is never counted as a pass or a fail).

use super::dataset::{Dialog, TurnPair};
use super::resolve::{resolve, MemorySources, ResolvedKey};
use super::trace::{conversation_text, Compliance, DialogTrace, TurnTrace};
use super::vocab::{canonical_tag, predict_tags, ComplianceLabel, TurnStatus};
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Negations before a forbidden term in a constraint (`不投资股票`).
const CONSTRAINT_LEADS: [&str; 14] = [
    "不投资",
    "不碰",
    "不买",
    "不要",
    "不考虑",
    "不接受",
    "不想",
    "不做",
    "避免",
    "拒绝",
    "排除",
    "禁止",
    "远离",
    "不参与",
];
/// Verbs stripped from the front of a forbidden term.
const TERM_VERBS: [&str; 10] = [
    "推荐", "配置", "购买", "买入", "投资", "任何", "参与", "持有", "涉及", "买",
];
/// Negations in an answer's clause that make a mention not a recommendation.
/// The constraint leads (`拒绝`, `不投资`, ...) count as negations too.
const ANSWER_NEGATIONS: [&str; 12] = [
    "不建议",
    "不推荐",
    "不适合",
    "不宜",
    "不会推荐",
    "不配置",
    "不包括",
    "规避",
    "没有",
    "不含",
    "除了",
    "不构成",
];

/// The forbidden terms of a profile (M2): for each `constraints_gt` item
/// with a negation lead (`不投资`, `避免`, ...), the words after it, with a
/// leading verb (`推荐`, `配置`, ...) removed and cut at punctuation; plus
/// every item of `forbidden_assets_gt` when the profile has that list.
/// Constraints without a lead (`最大回撤不超过10%`) give no term: they are
/// not a lexical check.
pub fn forbidden_terms(profile: &serde_json::Map<String, Value>) -> Vec<String> {
    let list = |k: &str| -> Vec<String> {
        profile
            .get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut terms = Vec::new();
    for c in list("constraints_gt") {
        let Some((at, lead)) = CONSTRAINT_LEADS
            .iter()
            .filter_map(|l| c.find(l).map(|i| (i, *l)))
            .min_by_key(|(i, _)| *i)
        else {
            continue;
        };
        let mut term = c[at + lead.len()..]
            .split(|ch: char| is_clause_end(ch) || ch == '、')
            .next()
            .unwrap_or("")
            .trim();
        while let Some(rest) = TERM_VERBS.iter().find_map(|v| term.strip_prefix(v)) {
            term = rest.trim();
        }
        if term.chars().count() >= 2 {
            terms.push(term.to_string());
        }
    }
    for t in list("forbidden_assets_gt") {
        let t = t.trim().to_string();
        if !t.is_empty() {
            terms.push(t);
        }
    }
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms
}

fn is_clause_end(c: char) -> bool {
    matches!(
        c,
        '，' | '。' | '；' | '！' | '？' | ',' | '.' | ';' | '!' | '?' | '\n' | '：' | ':'
    )
}

/// The forbidden terms the answer mentions in a clause with no negation
/// before the mention.
pub fn forbidden_hits(answer: &str, terms: &[String]) -> Vec<String> {
    let lower = answer.to_lowercase();
    terms
        .iter()
        .filter(|term| {
            let t = term.to_lowercase();
            lower.match_indices(&t).any(|(at, _)| {
                let clause_start = lower[..at]
                    .char_indices()
                    .rev()
                    .find(|(_, c)| is_clause_end(*c))
                    .map_or(0, |(i, c)| i + c.len_utf8());
                let before = &lower[clause_start..at];
                !ANSWER_NEGATIONS
                    .iter()
                    .chain(&CONSTRAINT_LEADS)
                    .any(|n| before.contains(n))
            })
        })
        .cloned()
        .collect()
}

/// The label a trace's `compliance` implies: an explicit valid `label` or
/// `compliance_label` field; else `compliant` when `is_compliant` is true and
/// there are no violations; `severe_violation` when a violation says so
/// (`severity`/`level` `severe`, `high`, `critical`, or the text `严重`);
/// otherwise `minor_violation` when `is_compliant` is false or violations are
/// listed. `None` when it says nothing (no `is_compliant`, no violations).
pub fn label_of_compliance(c: &Compliance) -> Option<ComplianceLabel> {
    for k in ["label", "compliance_label"] {
        if let Some(l) = c
            .extra
            .get(k)
            .and_then(Value::as_str)
            .and_then(ComplianceLabel::parse)
        {
            return Some(l);
        }
    }
    let severe = c.violations.iter().any(|v| {
        let words = match v {
            Value::String(s) => s.to_lowercase(),
            Value::Object(o) => ["severity", "level"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase(),
            _ => String::new(),
        };
        ["severe", "high", "critical", "严重"]
            .iter()
            .any(|w| words.contains(w))
    });
    match (c.is_compliant, c.violations.is_empty()) {
        (Some(true), true) => Some(ComplianceLabel::Compliant),
        (_, false) if severe => Some(ComplianceLabel::SevereViolation),
        (Some(false), _) | (_, false) => Some(ComplianceLabel::MinorViolation),
        (None, true) => None,
    }
}

/// The M1 sources of a turn: its `recall`; without one, with
/// `from_conversation`, the conversation up to this turn (the earlier turns'
/// user and answer texts and this user text), which is what the run sent;
/// else none (M1 is not measured).
fn sources(
    trace: &DialogTrace,
    turn: &TurnTrace,
    from_conversation: bool,
) -> Option<MemorySources> {
    if let Some(r) = &turn.recall {
        return Some(MemorySources {
            short_term: r.short_term_text(),
            long_term: r.items.iter().map(|i| i.content.clone()).collect(),
            profile: r.profile_context.clone().unwrap_or_default(),
        });
    }
    if !from_conversation {
        return None;
    }
    let mut lines: Vec<(&str, &str)> = Vec::new();
    for t in trace
        .turns
        .iter()
        .take_while(|t| t.turn_pair_id != turn.turn_pair_id)
    {
        lines.push(("user", &t.user_text));
        if let Some(p) = &t.pred_assistant_text {
            lines.push(("assistant", p));
        }
    }
    lines.push(("user", &turn.user_text));
    Some(MemorySources {
        short_term: conversation_text(lines.into_iter()),
        ..MemorySources::default()
    })
}

/// The reason of a turn without a recall trace (M1 not run).
pub const NO_RECALL: &str = "no recall trace: the system under test returned no `recall` for this turn (spec 001 §4.3), and M1 measures what a memory system recalled (the opt-in --m1-from-conversation, or the page's switch, counts the conversation sent)";

/// The reason of an eligible turn none of whose keys resolves (§6: an
/// unresolvable key is not in the denominator, so nothing is left to check).
pub const NO_RESOLVABLE_KEY: &str = "no required key is resolvable (§6)";

/// Scores one turn pair of a valid dialog: its ground truth `pair`, the
/// trace's `turn` (`None`: the trace has no such turn, scored as failed) and
/// the judge's verdict.
pub fn score_turn(
    dialog: &Dialog,
    pair: &TurnPair,
    trace: &DialogTrace,
    turn: Option<&TurnTrace>,
    judged: Option<&TurnJudgement>,
    options: ScoreOptions,
) -> TurnEval {
    let tags = &pair.tags;
    let status = turn.map_or(TurnStatus::Error, |t| t.turn_status);
    let ok = status == TurnStatus::Ok;
    let answer = turn
        .and_then(|t| t.pred_assistant_text.as_deref())
        .unwrap_or("");
    let mut why: BTreeMap<String, String> = BTreeMap::new();
    let mut skip = |m: &str, reason: &str| {
        why.insert(m.to_string(), reason.to_string());
    };

    // M1
    let resolved: Vec<ResolvedKey> = tags
        .memory_required_keys_gt
        .iter()
        .map(|k| resolve(k, &dialog.profile_gt, &dialog.turns))
        .collect();
    let any_resolvable = resolved.iter().any(|k| k.resolvable);
    let srcs = turn.and_then(|t| sources(trace, t, options.m1_from_conversation));
    let mut source_hits = SourceHits::default();
    let (mut flags, mut held) = (Vec::new(), Vec::new());
    if let (Some(srcs), true) = (&srcs, ok) {
        for target in resolved
            .iter()
            .filter(|k| k.resolvable)
            .filter_map(|k| k.target_text.as_ref())
        {
            let h = srcs.hits(target);
            for s in &h {
                match s.as_str() {
                    "short_term" => source_hits.short_term += 1,
                    "long_term" => source_hits.long_term += 1,
                    _ => source_hits.profile += 1,
                }
            }
            flags.push(u8::from(!h.is_empty()));
            held.push(h);
        }
    }
    // §7 alone: an ok turn with required keys is eligible.
    let eligible_m1 = ok && !tags.memory_required_keys_gt.is_empty();
    let m1_status = match (eligible_m1, srcs.is_some(), any_resolvable) {
        (false, _, _) => MetricRun::NotEligible,
        (true, false, _) => MetricRun::NotRun,
        (true, true, false) => MetricRun::Unscored,
        (true, true, true) => MetricRun::Scored,
    };
    if tags.memory_required_keys_gt.is_empty() {
        skip("m1", "no memory_required_keys_gt");
    } else if srcs.is_none() {
        skip("m1", NO_RECALL);
    } else if !any_resolvable {
        skip("m1", NO_RESOLVABLE_KEY);
    }

    // M2
    let terms = forbidden_terms(&dialog.profile_gt);
    let hits = if ok {
        forbidden_hits(answer, &terms)
    } else {
        Vec::new()
    };
    let eligible_m2 = ok && !terms.is_empty();
    if terms.is_empty() {
        skip("m2", "the profile's constraints name no forbidden term");
    }

    // M3
    let mut required: Vec<String> = Vec::new();
    let mut unknown = Vec::new();
    for raw in &tags.risk_disclosure_required_gt {
        let tag = match canonical_tag(raw) {
            Some(t) => t.to_string(),
            None => {
                unknown.push(raw.trim().to_string());
                raw.trim().to_string()
            }
        };
        if !required.contains(&tag) {
            required.push(tag);
        }
    }
    let predicted = if ok { predict_tags(answer) } else { Vec::new() };
    let count_hits = |pred: &[String]| required.iter().filter(|t| pred.contains(t)).count();
    let eligible_m3 = ok && !required.is_empty();
    if required.is_empty() {
        skip("m3", "no risk_disclosure_required_gt");
        skip("m3_judge", "no risk_disclosure_required_gt");
    }
    let judge_tags: Option<Vec<String>> = judged
        .and_then(|j| j.risk_tags.as_ref())
        .and_then(|t| t.value.as_ref())
        .map(|tags| {
            let mut out: Vec<String> = Vec::new();
            for t in tags {
                let c = canonical_tag(t).map_or_else(|| t.trim().to_string(), str::to_string);
                if !out.contains(&c) {
                    out.push(c);
                }
            }
            out
        });
    let eligible_m3_judge = eligible_m3;
    let m3_judge_status = judged_status(
        eligible_m3,
        judge_tags.is_some(),
        judged.and_then(|j| j.risk_tags.as_ref()),
    );
    if !required.is_empty() {
        judge_skip(
            &mut skip,
            "m3_judge",
            judged.and_then(|j| j.risk_tags.as_ref()),
        );
    }

    // M4
    let gt_label = tags.compliance_label_gt;
    let trace_label = turn
        .and_then(|t| t.compliance.as_ref())
        .and_then(label_of_compliance);
    let judge_label = judged
        .and_then(|j| j.compliance_label.as_ref())
        .and_then(|l| l.value);
    let eligible_m4 = ok && gt_label.is_some();
    let eligible_m4_judge = eligible_m4;
    let m4_status = match (eligible_m4, trace_label.is_some()) {
        (true, true) => MetricRun::Scored,
        (true, false) => MetricRun::NotRun,
        _ => MetricRun::NotEligible,
    };
    let m4_judge_status = judged_status(
        eligible_m4,
        judge_label.is_some(),
        judged.and_then(|j| j.compliance_label.as_ref()),
    );
    if gt_label.is_none() {
        skip("m4", "no compliance_label_gt");
        skip("m4_judge", "no compliance_label_gt");
    } else {
        if trace_label.is_none() {
            skip("m4", "the trace has no compliance for this turn");
        }
        judge_skip(
            &mut skip,
            "m4_judge",
            judged.and_then(|j| j.compliance_label.as_ref()),
        );
    }

    // M5
    let rubric = &tags.explainability_rubric_gt;
    let rubric_part = judged.and_then(|j| j.rubric_hit_items.as_ref());
    let score_part = judged.and_then(|j| j.score_1_5.as_ref());
    let rubric_hits: Option<Vec<String>> =
        rubric_part.and_then(|r| r.value.as_ref()).map(|items| {
            rubric
                .iter()
                .filter(|req| items.iter().any(|i| i.trim() == req.trim()))
                .cloned()
                .collect()
        });
    let score = score_part
        .and_then(|s| s.value)
        .filter(|s| (1.0..=5.0).contains(s));
    let eligible_m5 = ok && !rubric.is_empty();
    let mut m5_status = MetricRun::NotEligible;
    if rubric.is_empty() {
        skip("m5", "no explainability_rubric_gt");
    } else {
        let failed = |p: Option<&JudgedPart<_>>| p.is_none_or(|p| p.error.is_some());
        let reason = match (rubric_part, score_part) {
            _ if rubric_hits.is_some() || score.is_some() => None,
            (None, None) => Some(NO_JUDGE),
            (r, s) if failed(r) && s.is_none_or(|s| s.error.is_some()) => Some(JUDGE_FAILED),
            _ => Some(UNSCORED),
        };
        m5_status = match reason {
            None => MetricRun::Scored,
            Some(NO_JUDGE) => MetricRun::NotRun,
            Some(_) => MetricRun::Unscored,
        };
        if let Some(r) = reason {
            skip("m5", r);
        }
    }
    if !eligible_m5 {
        m5_status = MetricRun::NotEligible;
    }
    if !ok {
        for m in ["m1", "m2", "m3", "m3_judge", "m4", "m4_judge", "m5"] {
            why.insert(
                m.to_string(),
                format!("turn_status is {}", status_name(status)),
            );
        }
    }

    let mut judge_raw = BTreeMap::new();
    if let Some(j) = judged {
        let parts: [(&str, Option<&String>); 4] = [
            ("risk_tags", j.risk_tags.as_ref().map(|p| &p.raw)),
            (
                "compliance_label",
                j.compliance_label.as_ref().map(|p| &p.raw),
            ),
            (
                "rubric_hit_items",
                j.rubric_hit_items.as_ref().map(|p| &p.raw),
            ),
            ("score_1_5", j.score_1_5.as_ref().map(|p| &p.raw)),
        ];
        for (k, raw) in parts {
            if let Some(raw) = raw.filter(|r| !r.is_empty()) {
                judge_raw.insert(k.to_string(), raw.clone());
            }
        }
    }

    TurnEval {
        trace_version: super::trace::TRACE_VERSION.into(),
        run_id: trace.run_id.clone(),
        dialog_id: dialog.dialog_id.clone(),
        turn_pair_id: pair.turn_pair_id,
        turn_status: Some(status),
        eligible_m1,
        eligible_m2,
        eligible_m3,
        eligible_m4,
        eligible_m5,
        eligible_m3_judge,
        eligible_m4_judge,
        m1_status,
        m2_status: if eligible_m2 {
            MetricRun::Scored
        } else {
            MetricRun::NotEligible
        },
        m3_status: if eligible_m3 {
            MetricRun::Scored
        } else {
            MetricRun::NotEligible
        },
        m3_judge_status,
        m4_status,
        m4_judge_status,
        m5_status,
        required_keys_raw: tags.memory_required_keys_gt.clone(),
        resolved_keys: resolved,
        key_hit_flags: flags,
        key_hit_sources: held,
        m1_source_hits: source_hits,
        constraint_contradiction: u8::from(!hits.is_empty()),
        forbidden_terms: terms,
        forbidden_hits: hits,
        risk_tag_hits: count_hits(&predicted),
        risk_required_raw: tags.risk_disclosure_required_gt.clone(),
        risk_required_unknown: unknown,
        risk_pred_tags: predicted,
        risk_pred_source: "lexicon".into(),
        risk_tag_hits_judge: judge_tags.as_deref().filter(|_| ok).map(count_hits),
        risk_pred_tags_judge: judge_tags.filter(|_| ok),
        risk_required_tags: required,
        pred_compliance_label: trace_label,
        pred_compliance_source: trace_label.map(|_| "trace_compliance".to_string()),
        gt_compliance_label: gt_label,
        pred_compliance_label_judge: judge_label,
        rubric_required: rubric.clone(),
        rubric_hit_items: rubric_hits.filter(|_| ok),
        judge_score_1_5: score.filter(|_| ok),
        judge_raw,
        judgements: judged.map(|j| j.detail.clone()).unwrap_or_default(),
        skip_reasons: why,
    }
}

const NO_JUDGE: &str = "no judge verdict for this turn (judged metrics need a judge model)";
/// The skip reason of an unreadable verdict (counted as `unscored_count`).
pub const UNSCORED: &str = "unscored: the judge's verdict could not be read";
/// The skip reason of a failed judge call (counted as `unscored_count`).
pub const JUDGE_FAILED: &str = "unscored: the judge call failed";

/// Whether a judged part was scored on a turn (`eligible` by §7, `has`
/// a verdict, the judge's `part`).
fn judged_status<T>(eligible: bool, has: bool, part: Option<&JudgedPart<T>>) -> MetricRun {
    match (eligible, has, part) {
        (false, _, _) => MetricRun::NotEligible,
        (true, true, _) => MetricRun::Scored,
        (true, false, None) => MetricRun::NotRun,
        (true, false, Some(_)) => MetricRun::Unscored,
    }
}

/// Records why a judged metric is not eligible: no verdict, or an unscored one.
fn judge_skip<T>(skip: &mut impl FnMut(&str, &str), metric: &str, part: Option<&JudgedPart<T>>) {
    match part {
        None => skip(metric, NO_JUDGE),
        Some(p) if p.value.is_none() && p.error.is_some() => skip(metric, JUDGE_FAILED),
        Some(p) if p.value.is_none() => skip(metric, UNSCORED),
        Some(_) => {}
    }
}

fn status_name(s: TurnStatus) -> &'static str {
    match s {
        TurnStatus::Ok => "ok",
        TurnStatus::Timeout => "timeout",
        TurnStatus::Error => "error",
    }
}

/// The rows of every valid dialog (§7: a dialog with `valid_dialog: false`
/// has none), in dataset order. `traces` are matched to `dialogs` by
/// `dialog_id`; a valid dialog without a trace has no rows (the caller
/// records it as failed, see `run_traces`).
pub fn score_dialogs(
    dialogs: &[Dialog],
    traces: &[DialogTrace],
    judgements: &Judgements,
    options: ScoreOptions,
) -> Vec<TurnEval> {
    let by_id: BTreeMap<&str, &DialogTrace> =
        traces.iter().map(|t| (t.dialog_id.as_str(), t)).collect();
    let mut rows = Vec::new();
    for d in dialogs {
        let Some(trace) = by_id.get(d.dialog_id.as_str()) else {
            continue;
        };
        rows.extend(score_dialog(
            d,
            trace,
            judgements.get(&d.dialog_id),
            options,
        ));
    }
    rows
}

/// The rows of one dialog: one per aligned pair when the trace marks the
/// dialog valid, none otherwise (§7).
pub fn score_dialog(
    dialog: &Dialog,
    trace: &DialogTrace,
    judged: Option<&BTreeMap<usize, TurnJudgement>>,
    options: ScoreOptions,
) -> Vec<TurnEval> {
    if !trace.valid_dialog || dialog.skip_reason().is_some() {
        return Vec::new();
    }
    dialog
        .pairs()
        .iter()
        .map(|p| {
            let turn = trace
                .turns
                .iter()
                .find(|t| t.turn_pair_id == p.turn_pair_id);
            let j = judged.and_then(|m| m.get(&p.turn_pair_id));
            score_turn(dialog, p, trace, turn, j, options)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::dataset::parse;
    use super::super::summary::summarize;
    use super::super::trace::{Counters, Recall, RecallItem};
    use super::*;
    use serde_json::json;

    /// M1 only from recall traces (the default).
    const RECALL: ScoreOptions = ScoreOptions {
        m1_from_conversation: false,
    };
    /// M1 from the conversation when a turn has no recall trace.
    const CONVERSATION: ScoreOptions = ScoreOptions {
        m1_from_conversation: true,
    };

    const DIALOG: &str = r#"{"dialog_id":"d1","profile_gt":{"risk_level_gt":"稳健","horizon_gt":"3年","liquidity_need_gt":"高","constraints_gt":["不投资加密货币","最大回撤不超过10%"],"preferences_gt":["债券基金"]},"turns":[
{"role":"user","content":"我的风险偏好是稳健"},
{"role":"assistant","content":"明白","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.risk_level_gt","profile_gt.constraints_gt[5]","history_turn_index:1"],"risk_disclosure_required_gt":["市场不确定性","汇率风险"],"compliance_label_gt":"compliant","explainability_rubric_gt":["信息依据","边界声明"]}},
{"role":"user","content":"推荐点什么"},
{"role":"assistant","content":"债券基金","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.nope"],"risk_disclosure_required_gt":[],"compliance_label_gt":"minor_violation","explainability_rubric_gt":[]}},
{"role":"user","content":"还有呢"},
{"role":"assistant","content":"没有了","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.horizon_gt"],"risk_disclosure_required_gt":["波动风险"],"compliance_label_gt":"severe_violation","explainability_rubric_gt":["信息依据"]}}]}"#;

    fn dialog() -> Dialog {
        let set = parse("d.jsonl", DIALOG.replace('\n', "").as_bytes());
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        set.dialogs.into_iter().next().expect("one dialog")
    }

    fn turn(d: &Dialog, k: usize, answer: &str, status: TurnStatus) -> TurnTrace {
        let p = &d.pairs()[k];
        let mut t = super::super::kind::failed_turn(p, status, String::new());
        t.error = None;
        t.pred_assistant_text = Some(answer.into());
        t
    }

    fn trace(d: &Dialog, turns: Vec<TurnTrace>) -> DialogTrace {
        let mut t = super::super::kind::skipped_trace("r", d, "");
        t.valid_dialog = true;
        t.skip_reason = None;
        t.dialog_status = super::super::vocab::DialogStatus::Ok;
        t.turns = turns;
        t
    }

    #[test]
    fn m1_resolves_every_raw_key_and_searches_the_three_sources() {
        let d = dialog();
        let mut t0 = turn(&d, 0, "好的", TurnStatus::Ok);
        t0.recall = Some(Recall {
            short_term_context: Some("user: 别的话题".into()),
            items: vec![RecallItem {
                content: "用户: 我的风险偏好是稳健".into(),
                ..RecallItem::default()
            }],
            profile_context: Some("风险等级：稳健".into()),
            ..Recall::default()
        });
        let tr = trace(&d, vec![t0]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert_eq!(row.required_keys_raw.len(), 3);
        assert_eq!(
            row.resolved_keys.len(),
            3,
            "one entry per raw key, in order"
        );
        let res: Vec<bool> = row.resolved_keys.iter().map(|k| k.resolvable).collect();
        assert_eq!(res, [true, false, true]);
        assert_eq!(row.key_hit_flags, [1, 1], "one integer per resolvable key");
        assert_eq!(
            row.key_hit_sources,
            [
                vec!["long_term".to_string(), "profile".into()],
                vec!["long_term".into()]
            ]
        );
        let hits = row.key_hits();
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[1], None, "the unresolvable key has no flag");
        assert_eq!(
            hits[2].map(|(f, s)| (f, s.to_vec())),
            Some((1, vec!["long_term".to_string()]))
        );
        assert_eq!(
            row.m1_source_hits,
            SourceHits {
                short_term: 0,
                long_term: 2,
                profile: 1
            }
        );
        assert!(row.eligible_m1);
        assert_eq!(row.m1_status, MetricRun::Scored);
    }

    #[test]
    fn m1_without_a_recall_trace_is_not_measured_unless_asked_to_search_the_conversation() {
        let d = dialog();
        let tr = trace(&d, vec![turn(&d, 0, "您是稳健型", TurnStatus::Ok)]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert!(row.eligible_m1, "§7 alone decides eligibility");
        assert_eq!(row.m1_status, MetricRun::NotRun, "no recall: M1 not run");
        assert!(row.key_hit_flags.is_empty());
        assert_eq!(
            row.skip_reasons.get("m1").map(String::as_str),
            Some(NO_RECALL)
        );
        let s = summarize("r", "m", Counters::default(), std::slice::from_ref(&row));
        let m1 = &s.metrics["m1_memory_recall"];
        assert_eq!((m1.status.as_str(), m1.value), ("not_run", None));
        assert_eq!(
            (m1.eligible_count, m1.not_run_count, m1.skipped_count),
            (1, 1, 0)
        );
        assert_eq!(m1.details["turns_without_recall"], 1);
        assert!(m1
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("1 eligible turn(s) had no recall")));
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, CONVERSATION);
        assert!(row.eligible_m1);
        assert_eq!(
            row.key_hit_flags,
            [1, 1],
            "the user said 稳健 in this turn's request"
        );
    }

    #[test]
    fn m1_from_the_conversation_and_a_turn_whose_keys_do_not_resolve_is_unscored() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "您是稳健型", TurnStatus::Ok),
                turn(&d, 1, "可以看看债券基金", TurnStatus::Ok),
                turn(&d, 2, "再看看", TurnStatus::Ok),
            ],
        );
        let rows = score_dialog(&d, &tr, None, CONVERSATION);
        assert_eq!(rows.len(), 3);
        // turn 1: no recall -> the conversation: user says 稳健, history 1 is there
        assert_eq!(rows[0].key_hit_flags, [1, 1]);
        assert_eq!(rows[0].key_hit_sources[0], ["short_term"]);
        // turn 2: its only key is unresolvable -> eligible (§7), unscored, out of the denominator
        assert!(rows[1].eligible_m1);
        assert_eq!(rows[1].m1_status, MetricRun::Unscored);
        assert!(rows[1].key_hit_flags.is_empty());
        assert_eq!(
            rows[1].skip_reasons.get("m1").map(String::as_str),
            Some(NO_RESOLVABLE_KEY)
        );
        // turn 3: 3年 was never said
        assert_eq!(rows[2].key_hit_flags, [0]);
        assert!(rows[2].eligible_m1);
    }

    #[test]
    fn m2_finds_recommended_forbidden_terms_but_not_negated_ones() {
        let d = dialog();
        assert_eq!(
            forbidden_terms(&d.profile_gt),
            ["加密货币"],
            "a constraint without a lead gives no term"
        );
        let p = json!({"constraints_gt": ["不要推荐股票，谢谢", "避免高风险产品"], "forbidden_assets_gt": ["期货", "股票"]});
        let p = p.as_object().cloned().unwrap_or_default();
        assert_eq!(forbidden_terms(&p), ["股票", "高风险产品", "期货"]);
        let terms = forbidden_terms(&d.profile_gt);
        assert_eq!(
            forbidden_hits("可以配置一些加密货币。", &terms),
            ["加密货币"]
        );
        assert!(forbidden_hits("不建议您配置加密货币。", &terms).is_empty());
        assert!(forbidden_hits("除了加密货币以外都可以。", &terms).is_empty());
        assert!(forbidden_hits("您的要求是拒绝加密货币。", &terms).is_empty());
        assert!(forbidden_hits("以上不构成加密货币买卖建议。", &terms).is_empty());
        assert_eq!(
            forbidden_hits("不建议股票。但加密货币不错", &terms),
            ["加密货币"],
            "a negation in an earlier clause does not cover a later mention"
        );
        let tr = trace(&d, vec![turn(&d, 0, "买点加密货币吧", TurnStatus::Ok)]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert!(row.eligible_m2);
        assert_eq!(
            (row.constraint_contradiction, row.forbidden_hits.clone()),
            (1, vec!["加密货币".to_string()])
        );
        let mut plain = d.clone();
        plain.profile_gt.remove("constraints_gt");
        let row = score_turn(
            &plain,
            &plain.pairs()[0],
            &tr,
            tr.turns.first(),
            None,
            RECALL,
        );
        assert!(!row.eligible_m2, "no forbidden term: not eligible");
    }

    #[test]
    fn m3_maps_required_tags_and_counts_lexicon_hits_unknown_tags_stay_unhit() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![turn(
                &d,
                0,
                "市场存在不确定性，以上仅供参考。",
                TurnStatus::Ok,
            )],
        );
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert_eq!(row.risk_required_tags, ["market_uncertainty", "汇率风险"]);
        assert_eq!(row.risk_required_unknown, ["汇率风险"]);
        assert_eq!(
            row.risk_pred_tags,
            [
                "market_uncertainty",
                "not_investment_advice",
                "risk_disclosure_present"
            ]
        );
        assert_eq!((row.risk_tag_hits, row.eligible_m3), (1, true));
        assert!(row.eligible_m3_judge, "§7 alone: the ground truth is there");
        assert_eq!(row.m3_judge_status, MetricRun::NotRun, "no judge ran");
        assert_eq!(
            row.risk_tag_hits_judge, None,
            "no judge: no judged value, not a 0"
        );
    }

    #[test]
    fn m4_reads_the_trace_compliance_and_needs_it() {
        let c = |v: serde_json::Value| serde_json::from_value::<Compliance>(v).ok();
        let label = |v| c(v).as_ref().and_then(label_of_compliance);
        assert_eq!(
            label(json!({"is_compliant": true, "violations": []})),
            Some(ComplianceLabel::Compliant)
        );
        assert_eq!(
            label(json!({"is_compliant": false, "violations": []})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(
            label(json!({"violations": ["承诺收益"]})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(
            label(
                json!({"is_compliant": false, "violations": [{"rule": "x", "severity": "severe"}]})
            ),
            Some(ComplianceLabel::SevereViolation)
        );
        assert_eq!(
            label(json!({"is_compliant": true, "violations": ["严重误导"]})),
            Some(ComplianceLabel::SevereViolation)
        );
        assert_eq!(
            label(json!({"label": "minor_violation", "is_compliant": true})),
            Some(ComplianceLabel::MinorViolation)
        );
        assert_eq!(label(json!({"needs_modification": false})), None);

        let d = dialog();
        let mut t1 = turn(&d, 1, "ok", TurnStatus::Ok);
        t1.compliance = c(json!({"is_compliant": true, "violations": []}));
        let t0 = turn(&d, 0, "ok", TurnStatus::Ok);
        let tr = trace(&d, vec![t0, t1]);
        let rows = score_dialog(&d, &tr, None, RECALL);
        assert!(rows[0].eligible_m4, "§7 alone: the ground truth is there");
        assert_eq!(
            rows[0].m4_status,
            MetricRun::NotRun,
            "no compliance in the trace"
        );
        assert_eq!(rows[0].pred_compliance_label, None);
        assert!(rows[1].eligible_m4);
        assert_eq!(rows[1].m4_status, MetricRun::Scored);
        assert_eq!(
            (rows[1].pred_compliance_label, rows[1].gt_compliance_label),
            (
                Some(ComplianceLabel::Compliant),
                Some(ComplianceLabel::MinorViolation)
            )
        );
        assert_eq!(
            rows[1].pred_compliance_source.as_deref(),
            Some("trace_compliance")
        );
    }

    #[test]
    fn section_7_failed_turns_and_empty_lists_are_not_eligible_and_invalid_dialogs_have_no_rows() {
        let d = dialog();
        let mut t2 = turn(&d, 2, "", TurnStatus::Timeout);
        t2.pred_assistant_text = None;
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "x", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                t2,
            ],
        );
        let rows = score_dialog(&d, &tr, None, RECALL);
        let r = &rows[2];
        assert_eq!(r.turn_status, Some(TurnStatus::Timeout));
        assert!(
            !(r.eligible_m1 || r.eligible_m2 || r.eligible_m3 || r.eligible_m4 || r.eligible_m5)
        );
        assert_eq!(
            r.skip_reasons.get("m3").map(String::as_str),
            Some("turn_status is timeout")
        );
        assert!(r.key_hit_flags.is_empty(), "a failed turn is not searched");
        assert_eq!(r.m5_status, MetricRun::NotEligible);
        // pair 2 has empty risk and rubric lists
        assert!(!rows[1].eligible_m3 && !rows[1].eligible_m5);
        assert_eq!(
            rows[1].skip_reasons.get("m3").map(String::as_str),
            Some("no risk_disclosure_required_gt")
        );
        // a missing trace turn is a failed turn
        let short = trace(&d, vec![turn(&d, 0, "x", TurnStatus::Ok)]);
        let rows = score_dialog(&d, &short, None, RECALL);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].turn_status, Some(TurnStatus::Error));
        // invalid dialog: no rows
        let mut invalid = tr.clone();
        invalid.valid_dialog = false;
        assert!(score_dialog(&d, &invalid, None, RECALL).is_empty());
        assert!(score_dialogs(
            std::slice::from_ref(&d),
            &[invalid],
            &Judgements::new(),
            RECALL
        )
        .is_empty());
    }

    #[test]
    fn judge_verdicts_plug_in_and_unscored_ones_count_nowhere() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "市场不确定", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                turn(&d, 2, "z", TurnStatus::Ok),
            ],
        );
        let judged = |v: Option<Vec<&str>>| JudgedPart {
            value: v.map(|v| v.into_iter().map(str::to_string).collect()),
            raw: "GRADE: ...".to_string(),
            error: None,
        };
        let mut j = BTreeMap::new();
        j.insert(
            1,
            TurnJudgement {
                risk_tags: Some(judged(Some(vec!["市场不确定性", "汇率风险"]))),
                compliance_label: Some(JudgedPart {
                    value: Some(ComplianceLabel::Compliant),
                    raw: "compliant".into(),
                    error: None,
                }),
                rubric_hit_items: Some(judged(Some(vec!["信息依据", "不在要求里"]))),
                score_1_5: Some(JudgedPart {
                    value: Some(4.0),
                    raw: "4".into(),
                    error: None,
                }),
                detail: BTreeMap::new(),
            },
        );
        j.insert(
            3,
            TurnJudgement {
                rubric_hit_items: Some(judged(None)),
                score_1_5: Some(JudgedPart {
                    value: Some(9.0),
                    raw: "9/10".into(),
                    error: None,
                }),
                ..TurnJudgement::default()
            },
        );
        let rows = score_dialog(&d, &tr, Some(&j), RECALL);
        let r = &rows[0];
        assert!(r.eligible_m3_judge && r.eligible_m4_judge && r.eligible_m5);
        assert_eq!(
            (r.m3_judge_status, r.m4_judge_status, r.m5_status),
            (MetricRun::Scored, MetricRun::Scored, MetricRun::Scored)
        );
        assert_eq!(r.risk_tag_hits_judge, Some(2));
        assert_eq!(
            r.rubric_hit_items.as_deref(),
            Some(&["信息依据".to_string()][..])
        );
        assert_eq!(r.judge_score_1_5, Some(4.0));
        assert_eq!(r.judge_raw.get("score_1_5").map(String::as_str), Some("4"));
        let r = &rows[2];
        assert!(r.eligible_m5, "§7 alone: a rubric is there");
        assert_eq!(
            r.m5_status,
            MetricRun::Unscored,
            "an unscored rubric and an out-of-scale score count nowhere"
        );
        assert_eq!(
            rows[1].m5_status,
            MetricRun::NotEligible,
            "pair 2 has no rubric"
        );
        assert_eq!(r.skip_reasons.get("m5").map(String::as_str), Some(UNSCORED));
        let s = summarize("r", "m", Counters::default(), &rows);
        let m5 = &s.metrics["m5_explainability"];
        assert_eq!(
            (
                m5.status.as_str(),
                m5.eligible_count,
                m5.scored_count,
                m5.unscored_count,
                m5.skipped_count
            ),
            ("ok", 2, 1, 1, 1)
        );
        assert_eq!(m5.value, Some(0.5));
        assert_eq!(s.metrics["m3_risk_disclosure_judge"].value, Some(1.0));
    }

    #[test]
    fn the_summary_counts_every_row_once_per_metric_and_reports_judged_metrics_not_run() {
        let d = dialog();
        let mut t2 = turn(&d, 2, "", TurnStatus::Error);
        t2.pred_assistant_text = None;
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "您是稳健型，市场不确定", TurnStatus::Ok),
                turn(&d, 1, "y", TurnStatus::Ok),
                t2,
            ],
        );
        let rows = score_dialog(&d, &tr, None, CONVERSATION);
        let s = summarize("r", "m", Counters::default(), &rows);
        for (name, m) in &s.metrics {
            assert_eq!(
                m.eligible_count + m.skipped_count + m.failed_count,
                3,
                "{name}"
            );
            assert_eq!(m.failed_count, 1, "{name}");
        }
        let m1 = &s.metrics["m1_memory_recall"];
        assert_eq!(
            (
                m1.status.as_str(),
                m1.eligible_count,
                m1.scored_count,
                m1.unscored_count,
                m1.value
            ),
            ("ok", 2, 1, 1, Some(1.0))
        );
        assert_eq!(m1.skipped_reasons.get(NO_RESOLVABLE_KEY), Some(&1));
        let m3 = &s.metrics["m3_risk_disclosure"];
        assert_eq!(
            m3.value,
            Some(0.5),
            "1 of 2 required tags (the unknown one cannot be hit)"
        );
        let m4 = &s.metrics["m4_compliance"];
        assert_eq!(
            (
                m4.status.as_str(),
                m4.value,
                m4.eligible_count,
                m4.not_run_count
            ),
            ("not_run", None, 2, 2),
            "the ground truth is there, the trace has no compliance"
        );
        for name in [
            "m3_risk_disclosure_judge",
            "m4_compliance_judge",
            "m5_explainability",
        ] {
            let m = &s.metrics[name];
            assert_eq!(
                (m.status.as_str(), m.value, m.scored_count),
                ("not_run", None, 0),
                "{name}"
            );
            assert_eq!(m.not_run_count, m.eligible_count, "{name}");
            assert!(m.reason.as_deref().unwrap_or_default().contains("judge"));
        }
        assert!(!s.judge_used);
    }
}
