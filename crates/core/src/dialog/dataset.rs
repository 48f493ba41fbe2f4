//! Spec 001 dialogs (issue 11): one dialog per JSONL line — `dialog_id`,
//! optional `scenario_type` and `difficulty`, a `profile_gt` object and
//! `turns` (`role` `user`|`assistant`, `content`; an assistant turn carries
//! `gt_turn_tags`) — and the turn-pair alignment of §4.3.
//!
//! A line of the wrong shape is a [`LineError`] naming the file, the line, the
//! field (`turns[3].role`) and what was expected; the rest of the file loads.
//! A well-formed dialog whose turns cannot be paired is kept, with a
//! `skip_reason` (§4.2), and is not played.
//!
//! Decisions where the spec is silent:
//! - Alignment pairs the user turns with the assistant turn that follows
//!   them (§4.3's pairs): `turn_pair_id` counts pairs from 1,
//!   `user_turn_abs_idx` and `gt_assistant_abs_idx` are 0-based indices into
//!   `turns` (as in §4.3's example, 0 and 1). Dialogs that do not alternate
//!   strictly are aligned, not skipped:
//!   - consecutive user turns are one pair, sent as consecutive user
//!     messages; the pair's `user_text` is them joined by a line break and
//!     its `user_turn_abs_idx` the first of them;
//!   - an assistant turn that answers no user turn (a leading greeting, or a
//!     second assistant turn in a row) is context: sent as an assistant
//!     message where it stands, before the next pair's user turns, and never
//!     scored (the ground truth of a pair is the assistant turn right after
//!     its user turns);
//!   - user turns at the end with no assistant turn after them are left out
//!     (nothing to compare an answer with).
//!
//!   What was done is said in the dialog's `alignment_notes` (and the
//!   trace's). Only a dialog with no pair at all is skipped, `skip_reason`
//!   saying why.
//! - A missing `gt_turn_tags` (or a missing list in it) is an empty
//!   requirement, so the turn is not eligible for that metric (§7); a
//!   missing `profile_gt` is an empty profile. `compliance_label_gt` must be
//!   one of §3.2's labels when given.
//! - `dataset_index` is the dialog's 0-based position among the file's
//!   non-blank lines (bad lines included, so fixing one renumbers nothing).
//! - Profile values that are strings, numbers or booleans are text targets
//!   for the resolver; `constraints_gt` and `preferences_gt`, when given,
//!   must be arrays of strings.

use super::vocab::ComplianceLabel;
use crate::dataset::jsonl::{id_value, read_objects};
use crate::dataset::{kind, LineError};
use crate::position::KeyError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The ground-truth tags of an assistant turn (§4.3 `gt_turn_tags`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GtTurnTags {
    /// Keys the answer needs from memory (§6).
    #[serde(default)]
    pub memory_required_keys_gt: Vec<String>,
    /// Risk disclosures the answer must make (canonical tags or their Chinese names).
    #[serde(default)]
    pub risk_disclosure_required_gt: Vec<String>,
    /// The expected compliance label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance_label_gt: Option<ComplianceLabel>,
    /// Explainability rubric items.
    #[serde(default)]
    pub explainability_rubric_gt: Vec<String>,
}

/// One turn as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// `user` or `assistant`.
    pub role: Role,
    /// The text.
    pub content: String,
    /// The assistant turn's ground-truth tags.
    pub tags: Option<GtTurnTags>,
}

/// The role of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One aligned turn pair (§4.3).
#[derive(Clone, Debug, PartialEq)]
pub struct TurnPair {
    /// 1-based pair number.
    pub turn_pair_id: usize,
    /// 0-based index of the user turn in `turns`.
    pub user_turn_abs_idx: usize,
    /// 0-based index of the ground-truth assistant turn in `turns`.
    pub gt_assistant_abs_idx: usize,
    /// The user's text.
    pub user_text: String,
    /// The ground-truth answer.
    pub gt_assistant_text: String,
    /// The answer's ground-truth tags.
    pub tags: GtTurnTags,
    /// Assistant turns that answer no user turn, sent before this pair's
    /// user messages (a leading greeting, a second assistant turn in a row).
    pub context_before: Vec<String>,
    /// The pair's user turns, sent as consecutive messages (one, when the
    /// dialog alternates).
    pub user_messages: Vec<String>,
}

/// One dialog of the dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Dialog {
    /// `dialog_id`.
    pub dialog_id: String,
    /// 0-based position among the file's non-blank lines.
    pub dataset_index: usize,
    /// 1-based source line.
    pub line: usize,
    /// `scenario_type`, if given.
    pub scenario_type: Option<String>,
    /// `difficulty`, if given.
    pub difficulty: Option<String>,
    /// `profile_gt` as written (more fields than the five named ones allowed).
    pub profile_gt: Map<String, Value>,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// The aligned pairs, or why the dialog cannot be aligned.
    pub alignment: Result<Vec<TurnPair>, String>,
    /// How turns that do not alternate strictly were aligned (empty when
    /// they alternate).
    pub alignment_notes: Vec<String>,
    /// `session_id`, if the line gives one (spec 001 §4.2).
    pub session_id: Option<String>,
    /// `user_id`, if the line gives one (spec 001 §4.2).
    pub user_id: Option<String>,
}

impl Dialog {
    /// The aligned pairs (empty for a skipped dialog).
    pub fn pairs(&self) -> &[TurnPair] {
        self.alignment.as_deref().unwrap_or(&[])
    }

    /// Why the dialog is skipped, if it is.
    pub fn skip_reason(&self) -> Option<&str> {
        self.alignment.as_ref().err().map(String::as_str)
    }

    /// The trace's `session_id`: the line's, else `session_{dialog_id}`
    /// (each dialog is one session of the system under test).
    pub fn session(&self) -> String {
        self.session_id
            .clone()
            .unwrap_or_else(|| format!("session_{}", self.dialog_id))
    }

    /// The trace's `user_id`: the line's, else `eval_user_{dialog_id}` (each
    /// dialog is played by its own evaluation user).
    pub fn user(&self) -> String {
        self.user_id
            .clone()
            .unwrap_or_else(|| format!("eval_user_{}", self.dialog_id))
    }
}

/// A dialog file read: the dialogs (skipped ones included) and the bad lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DialogSet {
    /// Every well-formed dialog, in file order.
    pub dialogs: Vec<Dialog>,
    /// One error per line that could not be read.
    pub errors: Vec<LineError>,
}

/// Reads a dialog JSONL file; `file` is the name errors carry.
pub fn parse(file: &str, bytes: &[u8]) -> DialogSet {
    let (dialogs, errors) = read_objects(
        file,
        bytes,
        "dialog_id",
        |d: &Dialog| d.dialog_id.as_str(),
        |obj, place| dialog_of(&obj, place.line, place.ordinal - 1),
    );
    DialogSet { dialogs, errors }
}

fn dialog_of(obj: &Map<String, Value>, line: usize, index: usize) -> Result<Dialog, KeyError> {
    let dialog_id = id_value(obj.get("dialog_id"), "dialog_id")?
        .ok_or_else(|| KeyError::new("dialog_id", "missing; expected a string id"))?;
    let profile_gt = match obj.get("profile_gt") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => {
            for list in ["constraints_gt", "preferences_gt"] {
                strings(p.get(list), &format!("profile_gt.{list}"))?;
            }
            p.clone()
        }
        Some(v) => {
            return Err(KeyError::new(
                "profile_gt",
                format!("expected an object, found {}", kind(v)),
            ))
        }
    };
    let turns = match obj.get("turns") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, t)| turn_of(t, &format!("turns[{i}]")))
            .collect::<Result<Vec<Turn>, KeyError>>()?,
        None => {
            return Err(KeyError::new(
                "turns",
                "missing; expected an array of turns",
            ))
        }
        Some(v) => {
            return Err(KeyError::new(
                "turns",
                format!("expected an array of turns, found {}", kind(v)),
            ))
        }
    };
    let (alignment, alignment_notes) = align(&turns);
    Ok(Dialog {
        dialog_id,
        dataset_index: index,
        line,
        scenario_type: text_field(obj, "scenario_type")?,
        difficulty: text_field(obj, "difficulty")?,
        profile_gt,
        turns,
        alignment,
        alignment_notes,
        session_id: text_field(obj, "session_id")?,
        user_id: text_field(obj, "user_id")?,
    })
}

fn text_field(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, KeyError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(KeyError::new(
            key,
            format!("expected a string, found {}", kind(v)),
        )),
    }
}

/// The strings of the list at `key` of `obj` (a profile's
/// `constraints_gt`, ...): none when it is missing or not a list, and an
/// item that is not a string left out (reading, not checking: `parse`
/// checks the lists a dialog must have).
pub(crate) fn strings_of(obj: &Map<String, Value>, key: &str) -> Vec<String> {
    obj.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A list of strings (missing or null: empty).
fn strings(v: Option<&Value>, path: &str) -> Result<Vec<String>, KeyError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(KeyError::new(
                    format!("{path}[{i}]"),
                    format!("expected a string, found {}", kind(other)),
                )),
            })
            .collect(),
        Some(v) => Err(KeyError::new(
            path,
            format!("expected an array of strings, found {}", kind(v)),
        )),
    }
}

fn turn_of(v: &Value, path: &str) -> Result<Turn, KeyError> {
    let Value::Object(t) = v else {
        return Err(KeyError::new(
            path,
            format!(
                "expected a turn object {{role, content}}, found {}",
                kind(v)
            ),
        ));
    };
    let role = match t.get("role") {
        Some(Value::String(r)) if r == "user" => Role::User,
        Some(Value::String(r)) if r == "assistant" => Role::Assistant,
        Some(other) => {
            return Err(KeyError::new(
                format!("{path}.role"),
                format!("expected \"user\" or \"assistant\", found {other}"),
            ))
        }
        None => {
            return Err(KeyError::new(
                format!("{path}.role"),
                "missing; expected \"user\" or \"assistant\"",
            ))
        }
    };
    let content = match t.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(KeyError::new(
                format!("{path}.content"),
                format!("expected a string, found {}", kind(v)),
            ))
        }
        None => {
            return Err(KeyError::new(
                format!("{path}.content"),
                "missing; expected a string",
            ))
        }
    };
    let tags = match (role, t.get("gt_turn_tags")) {
        (_, None | Some(Value::Null)) => None,
        (_, Some(Value::Object(g))) => Some(tags_of(g, &format!("{path}.gt_turn_tags"))?),
        (_, Some(v)) => {
            return Err(KeyError::new(
                format!("{path}.gt_turn_tags"),
                format!("expected an object, found {}", kind(v)),
            ))
        }
    };
    Ok(Turn {
        role,
        content,
        tags,
    })
}

fn tags_of(g: &Map<String, Value>, path: &str) -> Result<GtTurnTags, KeyError> {
    let list = |k: &str| strings(g.get(k), &format!("{path}.{k}"));
    let compliance_label_gt = match g.get("compliance_label_gt") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(ComplianceLabel::parse(s).ok_or_else(|| {
            KeyError::new(
                format!("{path}.compliance_label_gt"),
                format!(
                    "expected one of {}, found \"{s}\"",
                    ComplianceLabel::NAMES.join(", ")
                ),
            )
        })?),
        Some(v) => {
            return Err(KeyError::new(
                format!("{path}.compliance_label_gt"),
                format!("expected a string label, found {}", kind(v)),
            ))
        }
    };
    Ok(GtTurnTags {
        memory_required_keys_gt: list("memory_required_keys_gt")?,
        risk_disclosure_required_gt: list("risk_disclosure_required_gt")?,
        compliance_label_gt,
        explainability_rubric_gt: list("explainability_rubric_gt")?,
    })
}

/// Pairs the turns (see the module doc), or says why they cannot be paired;
/// with the notes on how turns that do not alternate were aligned.
pub fn align(turns: &[Turn]) -> (Result<Vec<TurnPair>, String>, Vec<String>) {
    if turns.is_empty() {
        return (Err("the dialog has no turns".into()), Vec::new());
    }
    let mut pairs = Vec::new();
    let mut notes = Vec::new();
    let mut context: Vec<String> = Vec::new();
    let mut users: Vec<(usize, &Turn)> = Vec::new();
    for (at, t) in turns.iter().enumerate() {
        match t.role {
            Role::User => users.push((at, t)),
            Role::Assistant if users.is_empty() => {
                notes.push(format!(
                    "turn {at}: an assistant turn that answers no user turn, sent as context before the next user turn and not scored"
                ));
                context.push(t.content.clone());
            }
            Role::Assistant => {
                if users.len() > 1 {
                    let idx: Vec<String> = users.iter().map(|(i, _)| i.to_string()).collect();
                    notes.push(format!(
                        "turns {}: consecutive user turns, sent as consecutive messages and answered by turn {at} as one pair",
                        idx.join(", ")
                    ));
                }
                let user_messages: Vec<String> =
                    users.iter().map(|(_, u)| u.content.clone()).collect();
                pairs.push(TurnPair {
                    turn_pair_id: pairs.len() + 1,
                    user_turn_abs_idx: users[0].0,
                    gt_assistant_abs_idx: at,
                    user_text: user_messages.join("\n"),
                    gt_assistant_text: t.content.clone(),
                    tags: t.tags.clone().unwrap_or_default(),
                    context_before: std::mem::take(&mut context),
                    user_messages,
                });
                users.clear();
            }
        }
    }
    if let Some((first, _)) = users.first() {
        notes.push(format!(
            "turn {first} on: user turns with no assistant turn after them, left out (no ground truth to compare with)"
        ));
    }
    if pairs.is_empty() {
        let why =
            "no user turn is followed by an assistant turn, so there is no turn pair to align";
        return (Err(why.into()), notes);
    }
    (Ok(pairs), notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> DialogSet {
        parse("d.jsonl", line.as_bytes())
    }

    const GOOD: &str = r#"{"dialog_id":"d1","scenario_type":"投资教育","difficulty":"hard","profile_gt":{"risk_level_gt":"稳健","constraints_gt":["不投资股票"],"extra":1},"turns":[{"role":"user","content":"你好"},{"role":"assistant","content":"您好","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.risk_level_gt"],"risk_disclosure_required_gt":["市场不确定性"],"compliance_label_gt":"compliant","explainability_rubric_gt":["信息依据"]}},{"role":"user","content":"再问"},{"role":"assistant","content":"好的"}]}"#;

    #[test]
    fn a_dialog_is_read_and_aligned_in_pairs() {
        let set = one(GOOD);
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let d = &set.dialogs[0];
        assert_eq!(
            (d.dialog_id.as_str(), d.dataset_index, d.line),
            ("d1", 0, 1)
        );
        assert_eq!(d.profile_gt.get("extra"), Some(&Value::from(1)));
        let p = d.pairs();
        assert_eq!(p.len(), 2);
        assert_eq!(
            (
                p[0].turn_pair_id,
                p[0].user_turn_abs_idx,
                p[0].gt_assistant_abs_idx
            ),
            (1, 0, 1)
        );
        assert_eq!(
            (
                p[1].turn_pair_id,
                p[1].user_turn_abs_idx,
                p[1].gt_assistant_abs_idx
            ),
            (2, 2, 3)
        );
        assert_eq!(
            p[0].tags.compliance_label_gt,
            Some(ComplianceLabel::Compliant)
        );
        assert_eq!(
            p[1].tags,
            GtTurnTags::default(),
            "no gt_turn_tags: empty requirements"
        );
    }

    #[test]
    fn only_a_dialog_without_any_pair_is_skipped_with_its_reason() {
        let cases = [
            (r#"{"dialog_id":"a","turns":[]}"#, "no turns"),
            (
                r#"{"dialog_id":"b","turns":[{"role":"assistant","content":"欢迎"},{"role":"user","content":"嗯"}]}"#,
                "no turn pair to align",
            ),
            (
                r#"{"dialog_id":"c","turns":[{"role":"user","content":"1"},{"role":"user","content":"2"}]}"#,
                "no turn pair to align",
            ),
        ];
        for (line, why) in cases {
            let set = one(line);
            assert!(set.errors.is_empty(), "{line}");
            let reason = set.dialogs[0].skip_reason().unwrap_or_default();
            assert!(reason.contains(why), "{line}: {reason}");
            assert!(set.dialogs[0].pairs().is_empty());
        }
    }

    #[test]
    fn dialogs_that_do_not_alternate_are_aligned_as_section_4_3_pairs_allow() {
        // A greeting first, two user turns in a row, a second assistant turn, a user turn last.
        let line = r#"{"dialog_id":"g","turns":[{"role":"assistant","content":"您好，我是助手"},{"role":"user","content":"你好"},{"role":"user","content":"我想买基金"},{"role":"assistant","content":"好的","gt_turn_tags":{"risk_disclosure_required_gt":["市场不确定性"]}},{"role":"assistant","content":"还有问题吗"},{"role":"user","content":"没有"},{"role":"assistant","content":"再见"},{"role":"user","content":"谢谢"}]}"#;
        let set = one(line);
        let d = &set.dialogs[0];
        assert_eq!(d.skip_reason(), None);
        let pairs = d.pairs();
        assert_eq!(pairs.len(), 2);
        assert_eq!(
            pairs[0].context_before,
            ["您好，我是助手"],
            "the greeting is context"
        );
        assert_eq!(pairs[0].user_messages, ["你好", "我想买基金"]);
        assert_eq!(pairs[0].user_text, "你好\n我想买基金");
        assert_eq!(
            (pairs[0].user_turn_abs_idx, pairs[0].gt_assistant_abs_idx),
            (1, 3)
        );
        assert_eq!(pairs[0].gt_assistant_text, "好的");
        assert_eq!(pairs[0].tags.risk_disclosure_required_gt, ["市场不确定性"]);
        assert_eq!(
            pairs[1].context_before,
            ["还有问题吗"],
            "a second assistant turn is context"
        );
        assert_eq!(
            (pairs[1].turn_pair_id, pairs[1].user_text.as_str()),
            (2, "没有")
        );
        assert_eq!(d.alignment_notes.len(), 4, "{:?}", d.alignment_notes);
        assert!(d.alignment_notes[0].starts_with("turn 0: an assistant turn"));
        assert!(d.alignment_notes[1].starts_with("turns 1, 2: consecutive user turns"));
        assert!(d.alignment_notes[2].starts_with("turn 4: an assistant turn"));
        assert!(d.alignment_notes[3].starts_with("turn 7 on: user turns with no assistant turn"));
        // A dialog that alternates has no note.
        assert!(one(GOOD).dialogs[0].alignment_notes.is_empty());
    }

    #[test]
    fn bad_lines_name_line_field_and_expectation_and_the_rest_loads() {
        let text = [
            GOOD,
            r#"{"dialog_id":"x","turns":[{"role":"system","content":"s"}]}"#,
            r#"{"dialog_id":"y","turns":[{"role":"user"}]}"#,
            r#"{"dialog_id":"z","turns":"hi"}"#,
            r#"{"turns":[]}"#,
            r#"{"dialog_id":"w","profile_gt":{"constraints_gt":"不买股票"},"turns":[]}"#,
            r#"{"dialog_id":"v","turns":[{"role":"user","content":"q"},{"role":"assistant","content":"a","gt_turn_tags":{"compliance_label_gt":"ok"}}]}"#,
            r#"{"dialog_id":"u","turns":[{"role":"user","content":"q"},{"role":"assistant","content":"a","gt_turn_tags":{"memory_required_keys_gt":[1]}}]}"#,
            GOOD,
        ]
        .join("\n");
        let set = parse("d.jsonl", text.as_bytes());
        assert_eq!(set.dialogs.len(), 1);
        let got: Vec<(usize, Option<&str>)> = set
            .errors
            .iter()
            .map(|e| (e.line, e.field.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (2, Some("turns[0].role")),
                (3, Some("turns[0].content")),
                (4, Some("turns")),
                (5, Some("dialog_id")),
                (6, Some("profile_gt.constraints_gt")),
                (7, Some("turns[1].gt_turn_tags.compliance_label_gt")),
                (8, Some("turns[1].gt_turn_tags.memory_required_keys_gt[0]")),
                (9, Some("dialog_id")),
            ]
        );
        let shown = set.errors[0].to_string();
        assert!(
            shown.starts_with(
                "d.jsonl:2: field `turns[0].role`: expected \"user\" or \"assistant\""
            ),
            "{shown}"
        );
        assert!(set.errors[5]
            .message
            .contains("compliant, minor_violation, severe_violation"));
        assert!(set.errors[7].message.contains("duplicate id `d1`"));
    }
}
