//! Spec 001 §4: the trace records (`RunManifest`, `DialogTrace`, `TurnTrace`
//! with `recall`, `tools`, `compliance`, `profile_snapshot`) and the §8 reader
//! of `dialog_trace.jsonl`: it reads `trace_version` `v1` and any `v1.x`,
//! keeps fields it does not know (they are written back as read), and places
//! every problem at its file, line and field (`turns[2].recall`).
//!
//! Decisions where the spec is silent:
//! - Optional fields are left out when absent, except `skip_reason`,
//!   `dialog_error` and a turn's `error`, written as `null` as in §4's examples.
//! - A trace version other than `v1` or `v1.<n>[.<n>...]` is refused (a v2
//!   may have renamed fields this reader relies on).
//! - `profile_snapshot` is kept as the JSON object the system gave: no metric
//!   reads it.

use super::dataset::GtTurnTags;
use super::vocab::{DialogStatus, TurnStatus};
use crate::dataset::jsonl::read_objects;
use crate::dataset::{kind, LineError};
use crate::position::KeyError;
use crate::toolcall::Call;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The trace version this crate writes.
pub const TRACE_VERSION: &str = "v1";

/// True for `v1` and `v1.x` (§8).
pub fn is_v1(version: &str) -> bool {
    match version.strip_prefix("v1") {
        Some("") => true,
        Some(rest) => rest.strip_prefix('.').is_some_and(|r| {
            r.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        }),
        None => false,
    }
}

/// One message of the short-term window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShortTermTurn {
    /// `user` or `assistant`.
    #[serde(default)]
    pub role: String,
    /// The text.
    #[serde(default)]
    pub content: String,
}

/// One long-term memory item recalled (`recall.items[]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecallItem {
    /// Rank, 1 first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// Item id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_id: Option<String>,
    /// The recalled text (M1 searches it).
    #[serde(default)]
    pub content: String,
    /// Retrieval score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Which retriever found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The turn it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_index: Option<i64>,
    /// The session it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields added by later versions, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the system had in memory when it answered (§4.3 `recall`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Recall {
    /// The retrieval query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The short-term window as text (M1's first source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_term_context: Option<String>,
    /// The short-term window as messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_term_turns: Option<Vec<ShortTermTurn>>,
    /// The injected user profile (M1's third source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_context: Option<String>,
    /// Everything packed into the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed_context: Option<String>,
    /// Tokens of the packed context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count: Option<u64>,
    /// Long-term items (M1's second source).
    #[serde(default)]
    pub items: Vec<RecallItem>,
    /// Fields added by later versions (and evalpage's `source`), kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Recall {
    /// The short-term window as text: `short_term_context`, else the
    /// `short_term_turns` as `role: content` lines.
    pub fn short_term_text(&self) -> String {
        match (&self.short_term_context, &self.short_term_turns) {
            (Some(text), _) => text.clone(),
            (None, Some(turns)) => {
                conversation_text(turns.iter().map(|t| (t.role.as_str(), t.content.as_str())))
            }
            (None, None) => String::new(),
        }
    }
}

/// `role: content` lines.
pub fn conversation_text<'a>(turns: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    turns
        .map(|(r, c)| format!("{r}: {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One tool call (§4.3 `tools[]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Tool name.
    #[serde(default)]
    pub tool_name: String,
    /// Arguments as given.
    #[serde(default)]
    pub args: Value,
    /// Start of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_excerpt: Option<String>,
    /// Time taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// The tool's error, if any.
    #[serde(default)]
    pub error: Option<String>,
    /// Fields added by later versions, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// The call as the core's one call type ([`Call`], what a task's answers
    /// and the tool-call metrics read): the tool's name, its arguments as JSON
    /// text (a string `args` is taken as the text the system sent).
    pub fn call(&self) -> Call {
        Call {
            id: self
                .extra
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string),
            name: self.tool_name.clone(),
            arguments: match &self.args {
                Value::String(s) => s.clone(),
                Value::Null => "{}".to_string(),
                v => v.to_string(),
            },
        }
    }
}

/// The system's own compliance check (§4.3 `compliance`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Compliance {
    /// The answer had to be rewritten.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_modification: Option<bool>,
    /// The final answer is compliant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_compliant: Option<bool>,
    /// Violations found (strings or objects).
    #[serde(default)]
    pub violations: Vec<Value>,
    /// A risk disclaimer was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_disclaimer_added: Option<bool>,
    /// A suitability warning, if one was given.
    #[serde(default)]
    pub suitability_warning: Option<Value>,
    /// Fields added by later versions, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One turn pair of a played dialog (§4.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnTrace {
    /// 1-based pair number.
    pub turn_pair_id: usize,
    /// 0-based index of the user turn.
    pub user_turn_abs_idx: usize,
    /// 0-based index of the ground-truth assistant turn.
    pub gt_assistant_abs_idx: usize,
    /// The user's text.
    pub user_text: String,
    /// The ground-truth answer.
    pub gt_assistant_text: String,
    /// The ground-truth tags.
    pub gt_turn_tags: GtTurnTags,
    /// The system's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pred_assistant_text: Option<String>,
    /// Time taken, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// `ok`, `timeout` or `error`.
    pub turn_status: TurnStatus,
    /// Why the turn failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Memory at answer time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<Recall>,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolCall>>,
    /// The system's compliance check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance: Option<Compliance>,
    /// The system's view of the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_snapshot: Option<Value>,
    /// Fields added by later versions (and evalpage's own), kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One dialog of a run (§4.2), one line of `dialog_trace.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialogTrace {
    /// `v1` (or `v1.x` when read).
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// Dialog id.
    pub dialog_id: String,
    /// Position in the dataset.
    pub dataset_index: usize,
    /// Scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_type: Option<String>,
    /// Difficulty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
    /// `ok`, `partial`, `failed` or `skipped`.
    pub dialog_status: DialogStatus,
    /// False for a dialog that was not played (not in `turn_eval.jsonl`, §7).
    pub valid_dialog: bool,
    /// Why it was skipped.
    #[serde(default)]
    pub skip_reason: Option<String>,
    /// Which worker played it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_id: Option<usize>,
    /// The session used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The user id used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// The turn pairs.
    #[serde(default)]
    pub turns: Vec<TurnTrace>,
    /// Why the dialog failed.
    #[serde(default)]
    pub dialog_error: Option<String>,
    /// Fields added by later versions (and evalpage's own), kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The line it was read from (0 when built, not read); not written.
    #[serde(skip)]
    pub line: usize,
}

/// `counters` of the manifest (§4.1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Dialogs in the dataset (well-formed lines).
    pub total_dialogs: usize,
    /// Dialogs played (aligned).
    pub valid_dialogs: usize,
    /// Dialogs not played (not aligned).
    pub skipped_dialogs: usize,
    /// Played dialogs with no turn answered.
    pub failed_dialogs: usize,
    /// Turn pairs of the valid dialogs.
    pub total_turn_pairs: usize,
    /// Played dialogs that stopped at a failed turn (evalpage's addition).
    #[serde(default)]
    pub partial_dialogs: usize,
    /// Dataset lines that could not be read (evalpage's addition).
    #[serde(default)]
    pub bad_lines: usize,
}

impl Counters {
    /// The counters of these traces, with `bad_lines` dataset lines unread.
    pub fn of(traces: &[DialogTrace], bad_lines: usize) -> Counters {
        let count = |s: DialogStatus| traces.iter().filter(|t| t.dialog_status == s).count();
        let valid: Vec<&DialogTrace> = traces.iter().filter(|t| t.valid_dialog).collect();
        Counters {
            total_dialogs: traces.len(),
            valid_dialogs: valid.len(),
            skipped_dialogs: traces.len() - valid.len(),
            failed_dialogs: count(DialogStatus::Failed),
            total_turn_pairs: valid.iter().map(|t| t.turns.len()).sum(),
            partial_dialogs: count(DialogStatus::Partial),
            bad_lines,
        }
    }
}

/// `run_manifest.json` (§4.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// `v1`.
    pub trace_version: String,
    /// Run id.
    pub run_id: String,
    /// The dataset as given.
    pub dataset_path: String,
    /// ISO 8601, UTC.
    pub started_at: String,
    /// ISO 8601, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The model evaluated.
    pub model_name: String,
    /// Dialogs played at once.
    pub workers_dialog: usize,
    /// Judge calls at once (0: no judge).
    pub workers_judge: usize,
    /// Counts.
    pub counters: Counters,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// M1 of a turn without `recall` searched the conversation sent
    /// (`--m1-from-conversation`); false: such a turn is not eligible for M1.
    #[serde(default)]
    pub m1_from_conversation: bool,
    /// `dialog`: the kind tag every run writes (see `RunKind`); absent in
    /// a manifest written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// Reads `dialog_trace.jsonl` (§8): v1 and v1.x lines, unknown fields kept;
/// a bad line is an error at its line and field, the rest is read.
pub fn read_traces(file: &str, bytes: &[u8]) -> (Vec<DialogTrace>, Vec<LineError>) {
    read_objects(
        file,
        bytes,
        "dialog_id",
        |t: &DialogTrace| t.dialog_id.as_str(),
        |obj, place| {
            trace_of(obj).map(|mut t| {
                t.line = place.line;
                t
            })
        },
    )
}

fn trace_of(mut obj: Map<String, Value>) -> Result<DialogTrace, KeyError> {
    match obj.get("trace_version") {
        Some(Value::String(v)) if is_v1(v) => {}
        Some(Value::String(v)) => {
            return Err(KeyError::new(
                "trace_version",
                format!("`{v}` is not v1 or v1.x; this reader reads spec 001 v1 traces"),
            ))
        }
        Some(v) => {
            return Err(KeyError::new(
                "trace_version",
                format!("expected a string such as \"v1\", found {}", kind(v)),
            ))
        }
        None => return Err(KeyError::new("trace_version", "missing; expected \"v1\"")),
    }
    let turns = match obj.remove("turns") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, t)| turn_of(t, &format!("turns[{i}]")))
            .collect::<Result<Vec<TurnTrace>, KeyError>>()?,
        Some(v) => {
            return Err(KeyError::new(
                "turns",
                format!("expected an array of turns, found {}", kind(&v)),
            ))
        }
    };
    for key in [
        "run_id",
        "dialog_id",
        "dataset_index",
        "dialog_status",
        "valid_dialog",
    ] {
        if !obj.contains_key(key) {
            return Err(KeyError::new(key, "missing; required by spec 001 §4.2"));
        }
    }
    check_header(&obj)?;
    let mut trace: DialogTrace = serde_json::from_value(Value::Object(obj))
        .map_err(|e| KeyError::whole(format!("not a spec 001 dialog trace: {e}")))?;
    trace.turns = turns;
    Ok(trace)
}

/// The dialog-level required fields, each checked alone so a bad one is named.
fn check_header(obj: &Map<String, Value>) -> Result<(), KeyError> {
    for (key, v) in obj {
        let ok = match key.as_str() {
            "run_id" | "dialog_id" => v.is_string(),
            "dataset_index" => v.is_u64(),
            "valid_dialog" => v.is_boolean(),
            "dialog_status" => serde_json::from_value::<DialogStatus>(v.clone()).is_ok(),
            _ => true,
        };
        if !ok {
            let expected = match key.as_str() {
                "dataset_index" => "a non-negative integer",
                "valid_dialog" => "true or false",
                "dialog_status" => "one of ok, partial, failed, skipped",
                _ => "a string",
            };
            return Err(KeyError::new(
                key.as_str(),
                format!("expected {expected}, found {v}"),
            ));
        }
    }
    Ok(())
}

fn turn_of(v: Value, path: &str) -> Result<TurnTrace, KeyError> {
    let Value::Object(obj) = v else {
        return Err(KeyError::new(
            path,
            format!("expected a turn object, found {}", kind(&v)),
        ));
    };
    for key in [
        "turn_pair_id",
        "user_turn_abs_idx",
        "gt_assistant_abs_idx",
        "user_text",
        "gt_assistant_text",
        "gt_turn_tags",
        "turn_status",
    ] {
        if !obj.contains_key(key) {
            return Err(KeyError::new(
                format!("{path}.{key}"),
                "missing; required by spec 001 §4.3",
            ));
        }
    }
    check_part::<GtTurnTags>(&obj, "gt_turn_tags", path)?;
    check_part::<Recall>(&obj, "recall", path)?;
    check_part::<Vec<ToolCall>>(&obj, "tools", path)?;
    check_part::<Compliance>(&obj, "compliance", path)?;
    check_part::<TurnStatus>(&obj, "turn_status", path)?;
    serde_json::from_value(Value::Object(obj))
        .map_err(|e| KeyError::new(path, format!("not a spec 001 turn: {e}")))
}

/// Deserializes `obj[key]` alone, so a bad value is reported at `path.key`.
fn check_part<T: DeserializeOwned>(
    obj: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<(), KeyError> {
    let Some(v) = obj.get(key).filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let at = if path == key {
        key.to_string()
    } else {
        format!("{path}.{key}")
    };
    serde_json::from_value::<T>(v.clone())
        .map(|_| ())
        .map_err(|e| KeyError::new(at, format!("{e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"trace_version":"v1.2","run_id":"r","dialog_id":"d1","dataset_index":0,"dialog_status":"ok","valid_dialog":true,"added_in_v1_2":{"x":1},"turns":[{"turn_pair_id":1,"user_turn_abs_idx":0,"gt_assistant_abs_idx":1,"user_text":"u","gt_assistant_text":"g","gt_turn_tags":{"memory_required_keys_gt":[],"risk_disclosure_required_gt":[],"compliance_label_gt":"compliant","explainability_rubric_gt":[]},"turn_status":"ok","pred_assistant_text":"p","recall":{"short_term_context":"user: u","items":[{"rank":1,"content":"用户: 稳健","new_field":true}],"profile_context":""},"compliance":{"is_compliant":true,"violations":[]},"extra_turn_field":"kept"}]}"#;

    #[test]
    fn a_traced_tool_call_is_the_cores_call() {
        // spec 001 §4.3's example, and arguments sent as text
        let t: ToolCall = serde_json::from_str(r#"{"tool_name": "risk_template", "args": {"product_type": "fund"}, "result_excerpt": "{\"success\":true}", "latency_ms": 55.0, "error": null}"#).unwrap();
        let c = t.call();
        assert_eq!(
            (c.name.as_str(), c.arguments.as_str()),
            ("risk_template", r#"{"product_type":"fund"}"#)
        );
        assert_eq!(c.arguments_pretty(), "{\n  \"product_type\": \"fund\"\n}");
        let t: ToolCall =
            serde_json::from_str(r#"{"tool_name": "f", "args": "{\"x\": 1", "id": "c1"}"#).unwrap();
        let c = t.call();
        assert_eq!(
            (c.id.as_deref(), c.arguments.as_str()),
            (Some("c1"), r#"{"x": 1"#)
        );
        assert_eq!(
            c.arguments_pretty(),
            r#"{"x": 1"#,
            "not JSON: shown as sent"
        );
    }

    #[test]
    fn versions_v1_and_v1_x_are_read_others_refused() {
        for v in ["v1", "v1.1", "v1.10", "v1.2.3"] {
            assert!(is_v1(v), "{v}");
        }
        for v in ["v2", "v1.", "v1.x", "v10", "1", ""] {
            assert!(!is_v1(v), "{v}");
        }
    }

    #[test]
    fn a_v1_x_line_with_added_fields_is_read_and_written_back_with_them() {
        let (traces, errors) = read_traces("t.jsonl", LINE.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        let t = &traces[0];
        assert_eq!(t.turns.len(), 1);
        assert_eq!(
            t.extra.get("added_in_v1_2"),
            Some(&serde_json::json!({"x": 1}))
        );
        let turn = &t.turns[0];
        assert_eq!(
            turn.extra.get("extra_turn_field"),
            Some(&Value::from("kept"))
        );
        let recall = turn.recall.as_ref().expect("recall");
        assert_eq!(recall.items[0].content, "用户: 稳健");
        let back = serde_json::to_value(t).expect("json");
        assert_eq!(back["added_in_v1_2"]["x"], 1);
        assert_eq!(back["turns"][0]["recall"]["items"][0]["new_field"], true);
        assert_eq!(back["skip_reason"], Value::Null, "written as null");
    }

    #[test]
    fn bad_lines_are_placed_at_their_field() {
        let bad = [
            LINE.replace("v1.2", "v2"),
            LINE.replace(r#""run_id":"r","#, ""),
            LINE.replace(r#""turn_status":"ok""#, r#""turn_status":"done""#),
            LINE.replace(r#""items":[{"#, r#""items":{"#)
                .replace(r#""new_field":true}]"#, r#""new_field":true}"#),
            LINE.replace(r#""user_text":"u","#, ""),
            LINE.replace(r#""dialog_status":"ok""#, r#""dialog_status":"fine""#),
            LINE.replace(r#""dataset_index":0"#, r#""dataset_index":"zero""#),
        ];
        let text = bad.join("\n");
        let (traces, errors) = read_traces("t.jsonl", text.as_bytes());
        assert!(traces.is_empty());
        let fields: Vec<Option<&str>> = errors.iter().map(|e| e.field.as_deref()).collect();
        assert_eq!(
            fields,
            [
                Some("trace_version"),
                Some("run_id"),
                Some("turns[0].turn_status"),
                Some("turns[0].recall"),
                Some("turns[0].user_text"),
                Some("dialog_status"),
                Some("dataset_index"),
            ]
        );
        assert!(
            errors[0].message.contains("`v2` is not v1"),
            "{}",
            errors[0]
        );
        assert_eq!(errors[2].line, 3);
    }
}
