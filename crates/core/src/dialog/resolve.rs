//! Spec 001 §6: the resolver of `memory_required_keys_gt` and M1's hit search.
//!
//! Keys: `profile_gt.<field>` (any field of `profile_gt`, its value as text),
//! `profile_gt.<list>[i]` (an item of `constraints_gt`, `preferences_gt` or
//! any other list, bounds checked), and `history_turn_index:n` (the n-th user
//! turn, 1-based; failing that the n-th turn of `turns`, 1-based). A key that
//! resolves to nothing is `resolvable: false` and leaves the denominator.
//!
//! Hits: the target is searched in the short-term context, then in the
//! long-term items' `content`, then in `profile_context`; a key is hit when
//! any source holds it, and every source that holds it is recorded.
//!
//! Decisions where the spec is silent:
//! - `[i]` is 0-based (JSON/Python indexing); only `history_turn_index:n` is
//!   1-based, as §6 says.
//! - A profile value that is a list (without `[i]`), an object, null, or
//!   empty text is unresolvable (there is no single target to search).
//! - Search is on folded text (`text::fold`: NFKC, lowercase, spaces and
//!   punctuation removed), so `稳健` hits `风险等级：稳健。`.
//! - `history_turn_index:n` may name any turn of the dialog (the spec does not
//!   restrict it to earlier turns).

use super::dataset::{Role, Turn};
use crate::text::fold;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One raw key resolved (`resolved_keys[]` of §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedKey {
    /// The key as written.
    pub key: String,
    /// The key names a text to search for.
    pub resolvable: bool,
    /// That text.
    pub target_text: Option<String>,
    /// `profile_field`, `profile_list_item`, `history_user_turn`,
    /// `history_abs_turn`; for an unresolvable key the rule that was tried
    /// (`history_turn_index` when both readings failed, `unknown` for a key
    /// of no known form).
    pub resolver: String,
    /// Why an unresolvable key is not resolvable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ResolvedKey {
    fn hit(key: &str, resolver: &str, target: String) -> ResolvedKey {
        ResolvedKey {
            key: key.to_string(),
            resolvable: true,
            target_text: Some(target),
            resolver: resolver.to_string(),
            reason: None,
        }
    }

    fn miss(key: &str, resolver: &str, reason: String) -> ResolvedKey {
        ResolvedKey {
            key: key.to_string(),
            resolvable: false,
            target_text: None,
            resolver: resolver.to_string(),
            reason: Some(reason),
        }
    }
}

/// Resolves one key against the dialog's profile and turns.
pub fn resolve(key: &str, profile: &Map<String, Value>, turns: &[Turn]) -> ResolvedKey {
    let k = key.trim();
    if let Some(field) = k.strip_prefix("profile_gt.") {
        return match list_item(field) {
            Some((list, i)) => resolve_item(key, profile, list, i),
            None => resolve_field(key, profile, field),
        };
    }
    if let Some(n) = k.strip_prefix("history_turn_index:") {
        return resolve_history(key, n.trim(), turns);
    }
    ResolvedKey::miss(
        key,
        "unknown",
        "not a known key form (profile_gt.<field>, profile_gt.<list>[i], history_turn_index:n)"
            .into(),
    )
}

/// `name[i]` -> (name, i) when `i` is a number.
fn list_item(field: &str) -> Option<(&str, Option<usize>)> {
    let (name, rest) = field.split_once('[')?;
    let idx = rest.strip_suffix(']')?;
    Some((name, idx.trim().parse().ok()))
}

/// A scalar as text; `None` for lists, objects, null and blank text.
fn text_of(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

fn resolve_field(key: &str, profile: &Map<String, Value>, field: &str) -> ResolvedKey {
    const R: &str = "profile_field";
    match profile.get(field) {
        None => ResolvedKey::miss(key, R, format!("profile_gt has no field `{field}`")),
        Some(Value::Array(_)) => ResolvedKey::miss(
            key,
            R,
            format!("profile_gt.{field} is a list; name one item as {field}[i]"),
        ),
        Some(v) => match text_of(v) {
            Some(t) => ResolvedKey::hit(key, R, t),
            None => ResolvedKey::miss(key, R, format!("profile_gt.{field} has no text value")),
        },
    }
}

fn resolve_item(
    key: &str,
    profile: &Map<String, Value>,
    list: &str,
    i: Option<usize>,
) -> ResolvedKey {
    const R: &str = "profile_list_item";
    let Some(i) = i else {
        return ResolvedKey::miss(key, R, "the index in [i] is not a number".into());
    };
    match profile.get(list) {
        Some(Value::Array(items)) => match items.get(i) {
            Some(v) => match text_of(v) {
                Some(t) => ResolvedKey::hit(key, R, t),
                None => ResolvedKey::miss(key, R, format!("profile_gt.{list}[{i}] has no text")),
            },
            None => ResolvedKey::miss(
                key,
                R,
                format!(
                    "index {i} is out of bounds: profile_gt.{list} has {} item(s) (0-based)",
                    items.len()
                ),
            ),
        },
        Some(_) => ResolvedKey::miss(key, R, format!("profile_gt.{list} is not a list")),
        None => ResolvedKey::miss(key, R, format!("profile_gt has no field `{list}`")),
    }
}

fn resolve_history(key: &str, n: &str, turns: &[Turn]) -> ResolvedKey {
    let Ok(n) = n.parse::<usize>() else {
        return ResolvedKey::miss(
            key,
            "history_turn_index",
            format!("`{n}` is not a turn number"),
        );
    };
    let text = |t: &Turn| Some(t.content.trim().to_string()).filter(|s| !s.is_empty());
    let user = n
        .checked_sub(1)
        .and_then(|i| turns.iter().filter(|t| t.role == Role::User).nth(i))
        .and_then(text);
    if let Some(t) = user {
        return ResolvedKey::hit(key, "history_user_turn", t);
    }
    let abs = n.checked_sub(1).and_then(|i| turns.get(i)).and_then(text);
    if let Some(t) = abs {
        return ResolvedKey::hit(key, "history_abs_turn", t);
    }
    let users = turns.iter().filter(|t| t.role == Role::User).count();
    ResolvedKey::miss(
        key,
        "history_turn_index",
        format!(
            "no user turn {n} (the dialog has {users}) and no turn {n} (it has {}), 1-based",
            turns.len()
        ),
    )
}

/// M1's three sources, in search order.
pub const SOURCES: [&str; 3] = ["short_term", "long_term", "profile"];

/// The text of each M1 source of one turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemorySources {
    /// The short-term window.
    pub short_term: String,
    /// Each long-term item's content.
    pub long_term: Vec<String>,
    /// The injected profile.
    pub profile: String,
}

impl MemorySources {
    /// The sources that hold `target`, in search order (short-term,
    /// long-term, profile); empty for a miss.
    pub fn hits(&self, target: &str) -> Vec<String> {
        let t = fold(target);
        if t.is_empty() {
            return Vec::new();
        }
        let holds = |s: &str| fold(s).contains(&t);
        let found = [
            holds(&self.short_term),
            self.long_term.iter().any(|c| holds(c)),
            holds(&self.profile),
        ];
        SOURCES
            .iter()
            .zip(found)
            .filter(|(_, f)| *f)
            .map(|(s, _)| s.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turns() -> Vec<Turn> {
        let t = |role, c: &str| Turn {
            role,
            content: c.into(),
            tags: None,
        };
        vec![
            t(Role::User, "我五年内不用这笔钱"),
            t(Role::Assistant, "明白了"),
            t(Role::User, "我不想买股票"),
            t(Role::Assistant, "好的"),
            t(Role::User, "还有吗"),
            t(Role::Assistant, "有"),
        ]
    }

    fn profile() -> Map<String, Value> {
        let v = json!({"risk_level_gt": "稳健", "horizon_gt": "5年", "liquidity_need_gt": "",
            "constraints_gt": ["不投资股票", "不碰加密货币"], "preferences_gt": ["债券基金"],
            "max_loss_gt": 0.1, "nested": {"a": 1}});
        v.as_object().cloned().unwrap_or_default()
    }

    fn r(key: &str) -> ResolvedKey {
        resolve(key, &profile(), &turns())
    }

    #[test]
    fn profile_fields_resolve_to_their_value() {
        let k = r("profile_gt.risk_level_gt");
        assert_eq!(
            (k.resolvable, k.target_text.as_deref(), k.resolver.as_str()),
            (true, Some("稳健"), "profile_field")
        );
        assert_eq!(
            r("profile_gt.horizon_gt").target_text.as_deref(),
            Some("5年")
        );
        assert_eq!(
            r("profile_gt.max_loss_gt").target_text.as_deref(),
            Some("0.1"),
            "more fields allowed"
        );
        for bad in [
            "profile_gt.liquidity_need_gt",
            "profile_gt.nope",
            "profile_gt.constraints_gt",
            "profile_gt.nested",
        ] {
            let k = r(bad);
            assert!(!k.resolvable && k.target_text.is_none(), "{bad}");
            assert_eq!(k.resolver, "profile_field");
            assert!(k.reason.is_some());
        }
    }

    #[test]
    fn list_items_are_bounds_checked_and_zero_based() {
        let k = r("profile_gt.constraints_gt[1]");
        assert_eq!(
            (k.target_text.as_deref(), k.resolver.as_str()),
            (Some("不碰加密货币"), "profile_list_item")
        );
        assert_eq!(
            r("profile_gt.preferences_gt[0]").target_text.as_deref(),
            Some("债券基金")
        );
        let out = r("profile_gt.constraints_gt[2]");
        assert!(!out.resolvable);
        assert!(out
            .reason
            .unwrap_or_default()
            .contains("out of bounds: profile_gt.constraints_gt has 2 item(s)"));
        assert!(!r("profile_gt.preferences_gt[1]").resolvable);
        assert!(!r("profile_gt.preferences_gt[x]").resolvable);
        assert!(!r("profile_gt.risk_level_gt[0]").resolvable, "not a list");
        assert!(!r("profile_gt.missing_gt[0]").resolvable);
    }

    #[test]
    fn history_turns_are_user_turns_first_then_absolute_turns_one_based() {
        let k = r("history_turn_index:2");
        assert_eq!(
            (k.target_text.as_deref(), k.resolver.as_str()),
            (Some("我不想买股票"), "history_user_turn")
        );
        assert_eq!(
            r("history_turn_index:1").target_text.as_deref(),
            Some("我五年内不用这笔钱")
        );
        // 3 user turns; 4 falls back to the 4th turn of all (an assistant turn)
        let k = r("history_turn_index: 4");
        assert_eq!(
            (k.target_text.as_deref(), k.resolver.as_str()),
            (Some("好的"), "history_abs_turn")
        );
        for bad in [
            "history_turn_index:7",
            "history_turn_index:0",
            "history_turn_index:x",
        ] {
            let k = r(bad);
            assert!(!k.resolvable, "{bad}");
            assert_eq!(k.resolver, "history_turn_index");
        }
        let k = r("memory:foo");
        assert_eq!((k.resolvable, k.resolver.as_str()), (false, "unknown"));
    }

    #[test]
    fn hits_are_searched_in_every_source_and_all_holders_recorded() {
        let s = MemorySources {
            short_term: "user: 我的风险等级是稳健".into(),
            long_term: vec!["用户: 五年".into(), "用户：风险等级 稳健。".into()],
            profile: "horizon: 5年".into(),
        };
        assert_eq!(s.hits("稳健"), ["short_term", "long_term"]);
        assert_eq!(s.hits("5年"), ["profile"]);
        assert_eq!(s.hits("加密货币"), Vec::<String>::new());
        assert!(
            s.hits("，").is_empty(),
            "a target of punctuation only hits nothing"
        );
    }
}
