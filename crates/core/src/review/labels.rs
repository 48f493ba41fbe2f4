//! People's labels as a file the team owns: each label is an append-only
//! event `{case_id, model, metric, reviewer, label, note, blind,
//! shown_auto_verdict, t}`, one JSON object per line (`labels.jsonl`) or
//! per RFC 7464 record (`labels.json-seq`). Reading a file keeps every
//! valid event and says, by file, line and field, what was wrong with the
//! others (a cut last line included). Several files are read together; a
//! later label by the same reviewer for the same case, metric and model
//! replaces the earlier one ([`latest`]), and the files keep both events.

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A label a person gives (or an automatic verdict read as one).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    /// The verdict holds (`true`, `"pass"`, `"yes"`).
    Pass,
    /// It does not (`false`, `"fail"`, `"no"`).
    Fail,
    /// A rating on an integer scale (a JSON integer).
    Rating(i64),
    /// A category of a set the review names (any other string).
    Category(String),
}

impl Label {
    /// The label a JSON value holds, or what was expected instead.
    pub fn from_json(v: &Value) -> Result<Label, String> {
        match v {
            Value::Bool(true) => Ok(Label::Pass),
            Value::Bool(false) => Ok(Label::Fail),
            Value::Number(n) => n
                .as_i64()
                .map(Label::Rating)
                .ok_or_else(|| format!("{n} is not an integer rating")),
            Value::String(s) => Ok(match s.trim().to_ascii_lowercase().as_str() {
                "pass" | "yes" | "true" => Label::Pass,
                "fail" | "no" | "false" => Label::Fail,
                "" => return Err("an empty label".into()),
                _ => Label::Category(s.trim().to_string()),
            }),
            other => Err(format!(
                "expected pass/fail (or true/false), an integer rating or a category name, not {other}"
            )),
        }
    }

    /// The label as JSON: `"pass"`, `"fail"`, a number or the category.
    pub fn to_json(&self) -> Value {
        match self {
            Label::Pass => Value::from("pass"),
            Label::Fail => Value::from("fail"),
            Label::Rating(n) => Value::from(*n),
            Label::Category(c) => Value::from(c.as_str()),
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Pass => f.write_str("pass"),
            Label::Fail => f.write_str("fail"),
            Label::Rating(n) => write!(f, "{n}"),
            Label::Category(c) => f.write_str(c),
        }
    }
}

impl Serialize for Label {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Label, D::Error> {
        Label::from_json(&Value::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// One label a reviewer gave: an event of the labels file. It is written
/// with all nine keys of the issue (`model`, `note` and
/// `shown_auto_verdict` `null` when empty; `seconds` only when measured);
/// a file written before, without them, reads the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelEvent {
    /// The case (the run's `sample_id`).
    pub case_id: String,
    /// The model whose answer was labelled (none in a run of one model;
    /// written as `null`).
    #[serde(default)]
    pub model: Option<String>,
    /// The metric whose verdict the label checks.
    pub metric: String,
    /// Who labelled.
    pub reviewer: String,
    /// The label.
    pub label: Label,
    /// The reviewer's note (`null` when none was written).
    #[serde(default)]
    pub note: Option<String>,
    /// The automatic verdict was hidden while labelling.
    #[serde(default)]
    pub blind: bool,
    /// The automatic verdict the reviewer saw (`null` when blind).
    #[serde(default)]
    pub shown_auto_verdict: Option<Label>,
    /// When, ms since the Unix epoch.
    pub t: u64,
    /// Seconds the reviewer spent on the case before labelling it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

/// What was wrong with one line of a labels file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelProblem {
    /// The file, as named.
    pub file: String,
    /// 1-based line (or json-seq record).
    pub line: usize,
    /// The field at fault, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What was expected.
    pub message: String,
}

impl std::fmt::Display for LabelProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(
                f,
                "{} line {}, field {field}: {}",
                self.file, self.line, self.message
            ),
            None => write!(f, "{} line {}: {}", self.file, self.line, self.message),
        }
    }
}

/// The events of one labels file, and its bad lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelsFile {
    /// Every valid event, in file order.
    pub events: Vec<LabelEvent>,
    /// The lines left out, each said.
    pub problems: Vec<LabelProblem>,
}

/// Reads a labels file named `file`: JSONL, or json-seq (records start
/// with the record separator 0x1E). A line that is not an object, misses a
/// field or holds a bad value is said and left out; the rest is kept.
pub fn read_labels(text: &str, file: &str) -> LabelsFile {
    let mut out = LabelsFile::default();
    let seq = text.trim_start().starts_with('\u{1e}');
    let records: Vec<&str> = if seq {
        text.split('\u{1e}').skip(1).collect()
    } else {
        text.split('\n').collect()
    };
    let last = records.len();
    for (i, raw) in records.into_iter().enumerate() {
        let line = i + 1;
        let body = raw.trim();
        if body.is_empty() {
            continue;
        }
        let problem = |field: Option<&str>, message: String| LabelProblem {
            file: file.to_string(),
            line,
            field: field.map(str::to_string),
            message,
        };
        let v: Value = match serde_json::from_str(body) {
            Ok(v) => v,
            Err(e) => {
                let cut = line == last && !raw.ends_with('\n') && e.is_eof();
                let message = if cut {
                    "the line is cut short (the file ends inside a label)".into()
                } else {
                    format!("not JSON ({e}); expected one label object per line")
                };
                out.problems.push(problem(None, message));
                continue;
            }
        };
        match event_of(&v) {
            Ok(e) => out.events.push(e),
            Err((field, message)) => out.problems.push(problem(Some(field), message)),
        }
    }
    out
}

/// One event from its JSON object, or the field at fault and what was expected.
fn event_of(v: &Value) -> Result<LabelEvent, (&'static str, String)> {
    let Value::Object(o) = v else {
        return Err(("(line)", "expected a JSON object".into()));
    };
    let text = |field: &'static str| -> Result<String, (&'static str, String)> {
        match o.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::String(_)) => Err((field, "empty; expected a name".into())),
            Some(other) => Err((field, format!("expected a string, not {other}"))),
            None => Err((field, "missing".into())),
        }
    };
    // missing, null or empty: none
    let optional = |field: &'static str| -> Result<Option<String>, (&'static str, String)> {
        match o.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((field, format!("expected a string, not {other}"))),
        }
    };
    let label = match o.get("label") {
        None | Some(Value::Null) => return Err(("label", "missing".into())),
        Some(l) => Label::from_json(l).map_err(|e| ("label", e))?,
    };
    let shown_auto_verdict = match o.get("shown_auto_verdict") {
        None | Some(Value::Null) => None,
        Some(l) => Some(Label::from_json(l).map_err(|e| ("shown_auto_verdict", e))?),
    };
    let t = match o.get("t") {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
            .ok_or(("t", format!("expected milliseconds since 1970, not {n}")))?,
        None => return Err(("t", "missing".into())),
        Some(other) => {
            return Err((
                "t",
                format!("expected milliseconds since 1970, not {other}"),
            ))
        }
    };
    let blind = match o.get("blind") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(("blind", format!("expected true or false, not {other}"))),
    };
    let seconds = match o.get("seconds") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|s| *s >= 0.0)
                .ok_or(("seconds", format!("expected seconds, not {v}")))?,
        ),
    };
    Ok(LabelEvent {
        case_id: text("case_id")?,
        model: optional("model")?,
        metric: text("metric")?,
        reviewer: text("reviewer")?,
        label,
        note: optional("note")?,
        blind,
        shown_auto_verdict,
        t,
        seconds,
    })
}

/// The event as one JSONL line (with its newline).
pub fn to_jsonl(e: &LabelEvent) -> String {
    let mut line = serde_json::to_string(e).unwrap_or_default();
    line.push('\n');
    line
}

/// The key a label is kept under: metric, model, case, reviewer.
pub type LabelKey = (String, Option<String>, String, String);

/// Each reviewer's standing label per case, metric and model: the latest
/// by `t` (of two at the same time, the one read last).
pub fn latest<'a>(
    events: impl IntoIterator<Item = &'a LabelEvent>,
) -> BTreeMap<LabelKey, &'a LabelEvent> {
    let mut out: BTreeMap<LabelKey, &LabelEvent> = BTreeMap::new();
    for e in events {
        let key = (
            e.metric.clone(),
            e.model.clone(),
            e.case_id.clone(),
            e.reviewer.clone(),
        );
        match out.get(&key) {
            Some(old) if old.t > e.t => {}
            _ => {
                out.insert(key, e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_from_jsonl_and_json_seq_with_every_bad_line_said() {
        let text = concat!(
            r#"{"case_id":"q1","metric":"correct","reviewer":"ana","label":true,"t":1}"#,
            "\n",
            r#"{"case_id":"q2","metric":"correct","label":"fail","t":2}"#,
            "\n",
            r#"{"case_id":"q3","metric":"correct","reviewer":"ana","label":[1],"t":3}"#,
            "\n",
            r#"{"case_id":"q4","metric":"rating","reviewer":"ana","label":4,"t":4,"blind":true}"#,
            "\n",
            r#"{"case_id":"q5","metric":"correct","rev"#,
        );
        let f = read_labels(text, "labels.jsonl");
        assert_eq!(f.events.len(), 2);
        assert_eq!(f.events[0].label, Label::Pass);
        assert_eq!(f.events[1].label, Label::Rating(4));
        assert!(f.events[1].blind);
        let said: Vec<String> = f.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        assert_eq!(said[0], "labels.jsonl line 2, field reviewer: missing");
        assert!(said[1].starts_with("labels.jsonl line 3, field label: expected pass/fail"));
        assert!(
            said[2].contains("line 5: the line is cut short"),
            "{}",
            said[2]
        );

        let seq: String = f
            .events
            .iter()
            .map(|e| format!("\u{1e}{}", to_jsonl(e)))
            .collect();
        assert_eq!(read_labels(&seq, "labels.json-seq").events, f.events);
    }

    #[test]
    fn all_nine_keys_written_and_files_without_them_still_read() {
        let old = concat!(
            r#"{"case_id":"q1","metric":"correct","reviewer":"ana","label":"pass","blind":true,"t":1}"#,
            "\n",
            r#"{"case_id":"q2","model":"","metric":"correct","reviewer":"ana","label":"fail","note":"","t":2}"#,
            "\n",
        );
        let f = read_labels(old, "old.jsonl");
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.events.len(), 2);
        assert_eq!(
            (
                &f.events[0].model,
                &f.events[0].note,
                &f.events[0].shown_auto_verdict
            ),
            (&None, &None, &None)
        );
        assert_eq!(
            (&f.events[1].model, &f.events[1].note),
            (&None, &None),
            "empty: none"
        );
        let keys = [
            "case_id",
            "model",
            "metric",
            "reviewer",
            "label",
            "note",
            "blind",
            "shown_auto_verdict",
            "t",
        ];
        for e in &f.events {
            let line = to_jsonl(e);
            let v: Value = serde_json::from_str(&line).expect("a JSON line");
            let o = v.as_object().expect("an object");
            let mut written: Vec<&str> = o.keys().map(String::as_str).collect();
            written.sort_unstable();
            let mut want = keys.to_vec();
            want.sort_unstable();
            assert_eq!(written, want, "{line}");
            assert!(
                v["model"].is_null() && v["note"].is_null() && v["shown_auto_verdict"].is_null()
            );
            // and it reads back as it was
            assert_eq!(read_labels(&line, "new.jsonl").events, vec![e.clone()]);
        }
        // filled in: the values, and seconds when measured
        let full = LabelEvent {
            model: Some("m".into()),
            note: Some("wrong menu".into()),
            blind: false,
            shown_auto_verdict: Some(Label::Fail),
            seconds: Some(6.5),
            ..f.events[0].clone()
        };
        let v: Value = serde_json::from_str(&to_jsonl(&full)).expect("a JSON line");
        assert_eq!(v["model"], "m");
        assert_eq!(v["note"], "wrong menu");
        assert_eq!(v["shown_auto_verdict"], "fail");
        assert_eq!(v["seconds"], 6.5);
        assert_eq!(read_labels(&to_jsonl(&full), "x").events, vec![full]);
    }

    #[test]
    fn a_later_label_of_the_same_reviewer_replaces_the_earlier() {
        let e = |reviewer: &str, label: Label, t: u64| LabelEvent {
            case_id: "q1".into(),
            model: None,
            metric: "m".into(),
            reviewer: reviewer.into(),
            label,
            note: None,
            blind: true,
            shown_auto_verdict: None,
            t,
            seconds: None,
        };
        let events = [
            e("ana", Label::Fail, 5),
            e("bo", Label::Pass, 1),
            e("ana", Label::Pass, 9),
            e("ana", Label::Fail, 7),
        ];
        let kept = latest(&events);
        assert_eq!(kept.len(), 2);
        let ana = kept
            .iter()
            .find(|(k, _)| k.3 == "ana")
            .map(|(_, e)| e.label.clone());
        assert_eq!(ana, Some(Label::Pass));
    }
}
