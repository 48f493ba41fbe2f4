//! The deterministic dialog mock model (issue 11): what `evalpage run
//! --dialogs --provider demo` answers in process and what `evalpage
//! mock-server --dialog-trace` serves over HTTP. It plays a memory-backed
//! advisory system, so a run against it gives spec 001 trace fields and
//! varied, explainable metric values. No clock, no randomness: every choice
//! is a bit of an FNV-1a hash of the dialog id and the pair number.
//!
//! When the conversation's user turns are a prefix of a known dialog's, it
//! knows that turn's ground truth and:
//! - answers with the first sentence of the ground-truth answer;
//! - discloses each required risk tag with a lexicon cue about 3 times in 4
//!   (M3 varies);
//! - in about 1 pair in 5 recommends one of the profile's forbidden terms
//!   (M2), and in another 1 in 5 mentions it negated (not a contradiction);
//! - reports `compliance`: severe when it recommended a forbidden term, minor
//!   in about 1 pair in 7, else compliant (M4 varies against the ground truth);
//! - reports `recall`: a short-term window of the last two exchanges and this
//!   user turn, long-term items for earlier user turns (each kept about 2
//!   times in 3), and a profile context that sometimes leaves out the
//!   liquidity need or the preferences (M1 varies by source);
//! - reports a `profile_snapshot` and, when risk tags are required, a
//!   `risk_template` tool call.
//!
//! Any other conversation gets a generic answer with a generic disclosure and
//! the conversation window as recall.

use super::dataset::{Dialog, TurnPair};
use super::metrics::m2_constraint::forbidden_terms;
use super::trace::conversation_text;
use super::vocab::{canonical_tag, cue_of};
use crate::demo::{fnv1a, usage};
use crate::provider::{Answer, ChatMessage};
use serde_json::{json, Map, Value};

/// The mock model's name.
pub const MODEL_NAME: &str = "evalpage-dialog-mock";

/// The mock's answer: the text and, in `trace`, spec 001's trace fields.
pub fn reply(dialogs: &[Dialog], messages: &[ChatMessage]) -> Answer {
    let (text, trace) = answer(dialogs, messages);
    Answer {
        usage: Some(usage(messages, &text, None)),
        text,
        finish_reason: Some("stop".into()),
        trace: Some(trace),
        ..Answer::default()
    }
}

/// The dialog and pair a conversation is at, when it follows a known dialog.
fn locate<'a>(
    dialogs: &'a [Dialog],
    messages: &[ChatMessage],
) -> Option<(&'a Dialog, &'a TurnPair)> {
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| m.content.as_str())
        .collect();
    let k = users.len().checked_sub(1)?;
    dialogs.iter().find_map(|d| {
        let pairs = d.pairs();
        let fits = pairs.len() > k && pairs.iter().zip(&users).all(|(p, u)| p.user_text == *u);
        fits.then(|| (d, &pairs[k]))
    })
}

fn first_sentence(s: &str) -> String {
    let end = s
        .char_indices()
        .find(|(_, c)| matches!(c, '。' | '！' | '？' | '\n'))
        .map_or(s.len(), |(i, c)| i + c.len_utf8());
    s[..end].trim().to_string()
}

/// The text and trace fields (see the module doc).
pub fn answer(dialogs: &[Dialog], messages: &[ChatMessage]) -> (String, Value) {
    let convo: Vec<&ChatMessage> = messages.iter().filter(|m| m.role != "system").collect();
    let window_start = convo.len().saturating_sub(5);
    let window = &convo[window_start..];
    let short_term =
        conversation_text(window.iter().map(|m| (m.role.as_str(), m.content.as_str())));
    let short_turns: Vec<Value> = window
        .iter()
        .map(|m| json!({"role": m.role, "content": m.content}))
        .collect();
    let Some((d, pair)) = locate(dialogs, messages) else {
        let q = convo.last().map_or("", |m| m.content.as_str());
        let text = format!(
            "关于“{}”，建议结合自身情况审慎决策。投资有风险，以上不构成投资建议。",
            crate::text::truncate_chars(q, 20)
        );
        let trace = json!({
            "recall": {"query": q, "short_term_context": short_term, "short_term_turns": short_turns,
                       "profile_context": "", "items": []},
            "compliance": {"needs_modification": false, "is_compliant": true, "violations": [],
                           "risk_disclaimer_added": true, "suitability_warning": null}
        });
        return (text, trace);
    };
    let h = fnv1a(&format!("{}#{}", d.dialog_id, pair.turn_pair_id));
    let bit = |n: u32, m: u64| (h >> n) % m;

    let mut parts = vec![first_sentence(&pair.gt_assistant_text)];
    if parts[0].is_empty() {
        parts[0] = "好的，我来为您分析。".into();
    }
    let terms = forbidden_terms(&d.profile_gt);
    let mut severe = false;
    if let Some(term) = terms.get(bit(40, terms.len().max(1) as u64) as usize) {
        match bit(8, 5) {
            0 => {
                parts.push(format!("另外，也可以适当配置一些{term}来提高收益。"));
                severe = true;
            }
            1 => parts.push(format!("考虑到您的要求，不建议配置{term}。")),
            _ => {}
        }
    }
    let mut required = Vec::new();
    for (j, raw) in pair.tags.risk_disclosure_required_gt.iter().enumerate() {
        if let Some(tag) = canonical_tag(raw) {
            if bit(12 + 2 * j as u32, 4) != 0 {
                if let Some(cue) = cue_of(tag) {
                    parts.push(format!("请注意{cue}。"));
                }
            }
            required.push(tag);
        }
    }
    let minor = !severe && bit(24, 7) == 3;
    if minor {
        parts.push("这类产品收益基本稳定。".into());
    }
    let text = parts.join("");

    let profile = &d.profile_gt;
    let field = |k: &str| {
        profile
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let list = |k: &str| super::dataset::strings_of(profile, k);
    let mut profile_lines = vec![
        format!("风险等级: {}", field("risk_level_gt")),
        format!("投资期限: {}", field("horizon_gt")),
    ];
    if bit(28, 3) != 0 {
        profile_lines.push(format!("流动性需求: {}", field("liquidity_need_gt")));
    }
    profile_lines.push(format!("约束: {}", list("constraints_gt").join("；")));
    if bit(30, 5) != 2 {
        profile_lines.push(format!("偏好: {}", list("preferences_gt").join("；")));
    }
    let earlier_users: Vec<&ChatMessage> = convo[..window_start]
        .iter()
        .filter(|m| m.role == "user")
        .copied()
        .collect();
    let items: Vec<Value> = earlier_users
        .iter()
        .enumerate()
        .filter(|(i, _)| bit(32 + *i as u32, 3) != 0)
        .enumerate()
        .map(|(rank, (i, m))| {
            json!({"rank": rank + 1, "item_id": format!("{}-u{}", d.dialog_id, i + 1),
                   "content": format!("用户: {}", m.content), "score": 0.9 - 0.1 * rank as f64,
                   "source": "semantic+keyword", "turn_index": 2 * i, "session_id": format!("session_{}", d.dialog_id)})
        })
        .collect();
    let violations: Vec<Value> = if severe {
        vec![json!({"rule": "推荐了用户明确排除的资产", "severity": "severe"})]
    } else if minor {
        vec![json!({"rule": "收益表述暗示保本", "severity": "minor"})]
    } else {
        Vec::new()
    };
    let mut snapshot = Map::new();
    snapshot.insert("risk_level".into(), json!(field("risk_level_gt")));
    snapshot.insert("investment_horizon".into(), json!(field("horizon_gt")));
    snapshot.insert("liquidity_need".into(), json!(field("liquidity_need_gt")));
    snapshot.insert("preferred_topics".into(), json!(list("preferences_gt")));
    snapshot.insert("forbidden_assets".into(), json!(terms));
    let mut trace = json!({
        "recall": {
            "query": pair.user_text, "short_term_context": short_term, "short_term_turns": short_turns,
            "profile_context": profile_lines.join("\n"), "token_count": text.chars().count() + short_term.chars().count(),
            "items": items
        },
        "compliance": {
            "needs_modification": severe || minor, "is_compliant": !(severe || minor),
            "violations": violations, "risk_disclaimer_added": !required.is_empty(),
            "suitability_warning": if severe { json!("推荐内容与用户约束不符") } else { Value::Null }
        },
        "profile_snapshot": snapshot
    });
    if !required.is_empty() {
        trace["tools"] = json!([{"tool_name": "risk_template", "args": {"tags": required},
            "result_excerpt": "{\"success\":true}", "latency_ms": 5.0, "error": null}]);
    }
    (text, trace)
}
