//! People's labels to and from the review tools a team may already use:
//! Langfuse scores and Arize Phoenix span annotations.
//!
//! - [`to_langfuse`]: one Langfuse `ScoreBody` per label, the body of
//!   `POST /api/public/scores`: `name` (the metric), `value` and `dataType`
//!   (pass 1 / fail 0 `BOOLEAN`, a rating `NUMERIC`, a category
//!   `CATEGORICAL`), `traceId`, `comment` (the note) and `metadata`.
//! - [`to_phoenix`]: one Phoenix `SpanAnnotationData` per label, an item of
//!   `{"data": [...]}` for `POST /v1/span_annotations`: `span_id`, `name`,
//!   `annotator_kind: "HUMAN"`, `result {label, score, explanation}`,
//!   `metadata` and `identifier` (the reviewer: Phoenix keeps one
//!   annotation per span, name and identifier).
//! - [`read_any`]: a labels file in any of the three shapes: evalpage's
//!   JSONL or json-seq events ([`read_labels`]), or a JSON array (or
//!   `{"data": [...]}`) of Langfuse scores (records with `traceId`) or of
//!   Phoenix annotations (records with `span_id`).
//!
//! The case is the id evalpage writes as `trace_id` in `results.jsonl`:
//! `model/case`, or the case alone when no model is named. `metadata`
//! carries `{reviewer, case_id, model, blind, t, shown_auto_verdict,
//! seconds}`, so a label comes back as it went. A record made elsewhere
//! without that metadata is read as well as it can be: the reviewer from
//! Phoenix's `identifier` or Langfuse's `authorUserId`, the model and case
//! from the id split at its last `/`, and `t` 0 (the crate has no date
//! parser, so `timestamp` / `created_at` are not read). Records of a
//! model's (Phoenix `annotator_kind` other than `HUMAN`, Langfuse `source`
//! `EVAL`) are not people's labels: they are said and left out, like every
//! record that cannot be read (file, 1-based record index as the line,
//! field, what was expected).

use super::labels::{read_labels, Label, LabelEvent, LabelProblem, LabelsFile};
use serde_json::{json, Map, Value};

/// The id of the case a label is about: `model/case`, or the case alone.
fn case_ref(e: &LabelEvent) -> String {
    match &e.model {
        Some(m) => format!("{m}/{}", e.case_id),
        None => e.case_id.clone(),
    }
}

/// What the other tool has no field for, so that nothing is lost.
fn metadata(e: &LabelEvent) -> Value {
    let mut m = Map::new();
    m.insert("reviewer".into(), Value::from(e.reviewer.as_str()));
    m.insert("case_id".into(), Value::from(e.case_id.as_str()));
    m.insert(
        "model".into(),
        e.model.as_deref().map_or(Value::Null, Value::from),
    );
    m.insert("blind".into(), Value::Bool(e.blind));
    m.insert("t".into(), Value::from(e.t));
    if let Some(l) = &e.shown_auto_verdict {
        m.insert("shown_auto_verdict".into(), l.to_json());
    }
    if let Some(s) = e.seconds {
        m.insert("seconds".into(), Value::from(s));
    }
    Value::Object(m)
}

/// Each label as a Langfuse score (`ScoreBody` of `POST /api/public/scores`).
pub fn to_langfuse(events: &[&LabelEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| {
            let (value, data_type) = match &e.label {
                Label::Pass => (Value::from(1), "BOOLEAN"),
                Label::Fail => (Value::from(0), "BOOLEAN"),
                Label::Rating(n) => (Value::from(*n), "NUMERIC"),
                Label::Category(c) => (Value::from(c.as_str()), "CATEGORICAL"),
            };
            let mut o = Map::new();
            o.insert("traceId".into(), Value::from(case_ref(e)));
            o.insert("name".into(), Value::from(e.metric.as_str()));
            o.insert("value".into(), value);
            o.insert("dataType".into(), Value::from(data_type));
            if let Some(note) = &e.note {
                o.insert("comment".into(), Value::from(note.as_str()));
            }
            o.insert("metadata".into(), metadata(e));
            Value::Object(o)
        })
        .collect()
}

/// Each label as a Phoenix span annotation (an item of the `data` list of
/// `POST /v1/span_annotations`).
pub fn to_phoenix(events: &[&LabelEvent]) -> Vec<Value> {
    events
        .iter()
        .map(|e| {
            let mut result = Map::new();
            result.insert("label".into(), Value::from(e.label.to_string()));
            match &e.label {
                Label::Pass => {
                    result.insert("score".into(), Value::from(1));
                }
                Label::Fail => {
                    result.insert("score".into(), Value::from(0));
                }
                Label::Rating(n) => {
                    result.insert("score".into(), Value::from(*n));
                }
                Label::Category(_) => {}
            }
            if let Some(note) = &e.note {
                result.insert("explanation".into(), Value::from(note.as_str()));
            }
            json!({
                "span_id": case_ref(e),
                "name": e.metric,
                "annotator_kind": "HUMAN",
                "result": result,
                "metadata": metadata(e),
                "identifier": e.reviewer,
            })
        })
        .collect()
}

/// Which tool a file of records comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// evalpage's own label events.
    Events,
    /// Langfuse scores.
    Langfuse,
    /// Phoenix span annotations.
    Phoenix,
}

/// What a file looks like before it is read.
#[derive(Debug)]
enum Shape {
    /// Lines or json-seq records of evalpage events: [`read_labels`].
    Lines,
    /// One JSON document: its records, and whose they are.
    Records(Format, Vec<Value>),
    /// A JSON array that is not JSON: what is wrong.
    Broken(String),
}

fn shape(text: &str) -> Shape {
    let body = text.trim_start_matches('\u{feff}').trim();
    if !body.starts_with('[') && !body.starts_with('{') {
        return Shape::Lines;
    }
    let v: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) if body.starts_with('[') => {
            return Shape::Broken(format!(
                "not JSON ({e}); expected a JSON array of labels (evalpage events, Langfuse scores or Phoenix annotations)"
            ))
        }
        // several objects, one a line: JSONL
        Err(_) => return Shape::Lines,
    };
    let records = match v {
        Value::Array(a) => a,
        Value::Object(mut o) if !o.contains_key("case_id") && o.contains_key("data") => {
            match o.remove("data") {
                Some(Value::Array(a)) => a,
                _ => {
                    return Shape::Broken(
                        "`data` is not a list; expected {\"data\": [...]} of Phoenix annotations or Langfuse scores"
                            .into(),
                    )
                }
            }
        }
        // one record alone (one JSONL line, or an object over several lines)
        o @ Value::Object(_) => vec![o],
        _ => return Shape::Lines,
    };
    let format = records
        .iter()
        .find_map(|r| {
            if r.get("traceId").is_some() {
                Some(Format::Langfuse)
            } else if r.get("span_id").is_some() {
                Some(Format::Phoenix)
            } else {
                None
            }
        })
        .unwrap_or(Format::Events);
    Shape::Records(format, records)
}

/// Reads a labels file named `file` in any shape: evalpage's JSONL or
/// json-seq events, or a JSON array (or `{"data": [...]}`) of evalpage
/// events, Langfuse scores or Phoenix span annotations. Every record that
/// cannot be read is said (its 1-based index as the line) and left out.
pub fn read_any(text: &str, file: &str) -> LabelsFile {
    match shape(text) {
        Shape::Lines => read_labels(text, file),
        Shape::Broken(message) => LabelsFile {
            events: Vec::new(),
            problems: vec![LabelProblem {
                file: file.to_string(),
                line: 1,
                field: None,
                message,
            }],
        },
        Shape::Records(Format::Events, records) => {
            // one record a line: the line numbers are the records' indices
            let lines: Vec<String> = records.iter().map(Value::to_string).collect();
            read_labels(&lines.join("\n"), file)
        }
        Shape::Records(format, records) => {
            let mut out = LabelsFile::default();
            for (i, r) in records.iter().enumerate() {
                let read = match format {
                    Format::Langfuse => from_langfuse(r),
                    _ => from_phoenix(r),
                };
                match read {
                    Ok(e) => out.events.push(e),
                    Err((field, message)) => out.problems.push(LabelProblem {
                        file: file.to_string(),
                        line: i + 1,
                        field: Some(field.to_string()),
                        message,
                    }),
                }
            }
            out
        }
    }
}

/// The field at fault and what was expected.
type Fault = (&'static str, String);

/// A record's object, its metadata and the fields every tool has.
struct Record<'a> {
    o: &'a Map<String, Value>,
    meta: Option<&'a Map<String, Value>>,
}

impl<'a> Record<'a> {
    fn of(v: &'a Value) -> Result<Record<'a>, Fault> {
        let Value::Object(o) = v else {
            return Err(("(record)", format!("expected a JSON object, not {v}")));
        };
        let meta = match o.get("metadata") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => return Err(("metadata", format!("expected an object, not {other}"))),
        };
        Ok(Record { o, meta })
    }

    fn get(&self, field: &str) -> Option<&'a Value> {
        self.o.get(field).filter(|v| !v.is_null())
    }

    fn meta(&self, field: &str) -> Option<&'a Value> {
        self.meta?.get(field).filter(|v| !v.is_null())
    }

    /// A non-empty string field of the record.
    fn name(&self, field: &'static str, what: &str) -> Result<String, Fault> {
        match self.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::String(_)) => Err((field, format!("empty; expected {what}"))),
            Some(other) => Err((field, format!("expected {what} (a string), not {other}"))),
            None => Err((field, format!("missing; expected {what}"))),
        }
    }

    /// An optional string, or what was expected of `field`.
    fn text(v: Option<&Value>, field: &'static str) -> Result<Option<String>, Fault> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((field, format!("expected a string, not {other}"))),
        }
    }

    /// Who labelled: `metadata.reviewer`, else the tool's own field.
    fn reviewer(&self, fallback: &str) -> Result<String, Fault> {
        for v in [self.meta("reviewer"), self.get(fallback)]
            .into_iter()
            .flatten()
        {
            if let Value::String(s) = v {
                if !s.trim().is_empty() {
                    return Ok(s.trim().to_string());
                }
            }
        }
        Err((
            "reviewer",
            format!("missing; expected metadata.reviewer or {fallback} naming who labelled"),
        ))
    }

    /// The model and the case: from metadata, else the id split at its last `/`.
    fn case(&self, id: &str) -> Result<(Option<String>, String), Fault> {
        match self.meta("case_id") {
            Some(Value::String(c)) if !c.trim().is_empty() => {
                let model = Record::text(self.meta("model"), "metadata.model")?;
                Ok((model, c.trim().to_string()))
            }
            Some(other) => Err((
                "metadata.case_id",
                format!("expected the case's id (a non-empty string), not {other}"),
            )),
            None => Ok(match id.rsplit_once('/') {
                Some((m, c)) if !m.is_empty() && !c.is_empty() => {
                    (Some(m.to_string()), c.to_string())
                }
                _ => (None, id.to_string()),
            }),
        }
    }

    /// The event from its parts and the metadata's.
    fn event(
        &self,
        id: &str,
        metric: String,
        reviewer: String,
        label: Label,
        note: Option<String>,
    ) -> Result<LabelEvent, Fault> {
        let (model, case_id) = self.case(id)?;
        let blind = match self.meta("blind") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err((
                    "metadata.blind",
                    format!("expected true or false, not {other}"),
                ))
            }
        };
        let t = match self.meta("t") {
            None => 0,
            Some(v) => v.as_u64().ok_or((
                "metadata.t",
                format!("expected milliseconds since 1970, not {v}"),
            ))?,
        };
        let shown_auto_verdict = match self.meta("shown_auto_verdict") {
            None => None,
            Some(l) => Some(Label::from_json(l).map_err(|e| ("metadata.shown_auto_verdict", e))?),
        };
        let seconds = match self.meta("seconds") {
            None => None,
            Some(v) => Some(
                v.as_f64()
                    .filter(|s| *s >= 0.0)
                    .ok_or(("metadata.seconds", format!("expected seconds, not {v}")))?,
            ),
        };
        Ok(LabelEvent {
            case_id,
            model,
            metric,
            reviewer,
            label,
            note,
            blind,
            shown_auto_verdict,
            t,
            seconds,
        })
    }
}

/// A whole number (`4` or `4.0`), if the value is one.
fn whole(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// One Langfuse score as a label event.
fn from_langfuse(v: &Value) -> Result<LabelEvent, Fault> {
    let r = Record::of(v)?;
    let id = r.name("traceId", "the case's trace id (`model/case`)")?;
    let metric = r.name("name", "the metric's name")?;
    if let Some(Value::String(s)) = r.get("source") {
        if s == "EVAL" {
            return Err((
                "source",
                "EVAL is a model's score, not a person's label; expected ANNOTATION or API".into(),
            ));
        }
    }
    let value = r.get("value");
    let string_value = r.get("stringValue");
    let data_type = match r.get("dataType") {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(other) => {
            return Err((
                "dataType",
                format!("expected BOOLEAN, NUMERIC or CATEGORICAL, not {other}"),
            ))
        }
    };
    let label = match (data_type, value) {
        (Some("BOOLEAN"), v) => match (v.and_then(whole), v, string_value) {
            (Some(1), _, _) | (_, Some(Value::Bool(true)), _) => Label::Pass,
            (Some(0), _, _) | (_, Some(Value::Bool(false)), _) => Label::Fail,
            (None, None, Some(s)) => match s.as_str().map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Label::Pass,
                Some("false") => Label::Fail,
                _ => {
                    return Err((
                        "stringValue",
                        format!("expected True or False for a BOOLEAN score, not {s}"),
                    ))
                }
            },
            (_, Some(v), _) => {
                return Err((
                    "value",
                    format!("expected 1 or 0 for a BOOLEAN score, not {v}"),
                ))
            }
            (_, None, _) => return Err(("value", "missing; expected 1 or 0".into())),
        },
        (Some("NUMERIC"), Some(v)) | (None, Some(v @ Value::Number(_))) => match whole(v) {
            Some(n) => Label::Rating(n),
            None => return Err(("value", format!("expected an integer rating, not {v}"))),
        },
        (Some("CATEGORICAL"), v) | (None, v @ (Some(Value::String(_)) | None)) => {
            let name = match (v, string_value) {
                (Some(s @ Value::String(_)), _) | (_, Some(s @ Value::String(_))) => s,
                _ => {
                    return Err((
                        "value",
                        "expected the category's name (a string, or stringValue)".into(),
                    ))
                }
            };
            Label::from_json(name).map_err(|e| ("value", e))?
        }
        (None, Some(v)) => Label::from_json(v).map_err(|e| ("value", e))?,
        (Some("NUMERIC"), None) => {
            return Err(("value", "missing; expected an integer rating".into()))
        }
        (Some(other), _) => {
            return Err((
                "dataType",
                format!("expected BOOLEAN, NUMERIC or CATEGORICAL, not {other}"),
            ))
        }
    };
    let note = Record::text(r.get("comment"), "comment")?;
    let reviewer = r.reviewer("authorUserId")?;
    r.event(&id, metric, reviewer, label, note)
}

/// One Phoenix span annotation as a label event.
fn from_phoenix(v: &Value) -> Result<LabelEvent, Fault> {
    let r = Record::of(v)?;
    let id = r.name("span_id", "the case's span id (`model/case`)")?;
    let metric = r.name("name", "the metric's name")?;
    match r.get("annotator_kind") {
        None => {}
        Some(Value::String(k)) if k == "HUMAN" => {}
        Some(other) => {
            return Err((
                "annotator_kind",
                format!("expected HUMAN (a person's label), not {other}"),
            ))
        }
    }
    let result = match r.get("result") {
        Some(Value::Object(o)) => o,
        Some(other) => return Err(("result", format!("expected an object, not {other}"))),
        None => {
            return Err((
                "result",
                "missing; expected {label, score, explanation}".into(),
            ))
        }
    };
    let score = result.get("score").filter(|v| !v.is_null());
    let label = match (result.get("label").filter(|v| !v.is_null()), score) {
        (Some(Value::String(l)), Some(s))
            if whole(s).is_some_and(|n| n.to_string() == l.trim()) =>
        {
            Label::Rating(whole(s).unwrap_or_default())
        }
        (Some(l @ Value::String(_)), _) => Label::from_json(l).map_err(|e| ("result.label", e))?,
        (Some(other), _) => {
            return Err((
                "result.label",
                format!("expected the label as text, not {other}"),
            ))
        }
        (None, Some(s)) => match whole(s) {
            Some(n) => Label::Rating(n),
            None => {
                return Err((
                    "result.score",
                    format!("expected an integer rating, not {s}"),
                ))
            }
        },
        (None, None) => return Err(("result", "expected a label or a score".into())),
    };
    let note = Record::text(result.get("explanation"), "result.explanation")?;
    let reviewer = r.reviewer("identifier")?;
    r.event(&id, metric, reviewer, label, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::to_jsonl;

    fn e(
        case: &str,
        model: Option<&str>,
        reviewer: &str,
        label: Label,
        note: Option<&str>,
        t: u64,
    ) -> LabelEvent {
        LabelEvent {
            case_id: case.into(),
            model: model.map(str::to_string),
            metric: "correct".into(),
            reviewer: reviewer.into(),
            label,
            note: note.map(str::to_string),
            blind: t % 2 == 0,
            shown_auto_verdict: (t % 2 == 1).then_some(Label::Fail),
            t,
            seconds: (t == 3).then_some(12.5),
        }
    }

    fn events() -> Vec<LabelEvent> {
        vec![
            e("q1", Some("gpt-4o"), "ana", Label::Pass, None, 1),
            e(
                "q2",
                Some("gpt-4o"),
                "ana",
                Label::Fail,
                Some("wrong year"),
                2,
            ),
            e("q1", None, "bo", Label::Rating(4), Some("good"), 3),
            e("q2", None, "bo", Label::Rating(1), None, 4),
            e(
                "q3",
                Some("org/model"),
                "cy",
                Label::Category("off-topic".into()),
                None,
                5,
            ),
            e(
                "q4",
                None,
                "cy",
                Label::Category("4".into()),
                Some("a \"quote\""),
                6,
            ),
        ]
    }

    #[test]
    fn langfuse_scores_carry_the_label_and_come_back_the_same() {
        let evs = events();
        let refs: Vec<&LabelEvent> = evs.iter().collect();
        let scores = to_langfuse(&refs);
        assert_eq!(
            scores[0],
            json!({"traceId": "gpt-4o/q1", "name": "correct", "value": 1, "dataType": "BOOLEAN",
                   "metadata": {"reviewer": "ana", "case_id": "q1", "model": "gpt-4o",
                                "blind": false, "t": 1, "shown_auto_verdict": "fail"}})
        );
        assert_eq!(scores[1]["value"], 0);
        assert_eq!(scores[1]["comment"], "wrong year");
        assert_eq!(scores[2]["traceId"], "q1");
        assert_eq!(scores[2]["value"], 4);
        assert_eq!(scores[2]["dataType"], "NUMERIC");
        assert_eq!(scores[4]["traceId"], "org/model/q3");
        assert_eq!(scores[4]["value"], "off-topic");
        assert_eq!(scores[4]["dataType"], "CATEGORICAL");
        let text = serde_json::to_string_pretty(&scores).expect("json");
        let back = read_any(&text, "langfuse.json");
        assert_eq!(back.problems, vec![]);
        assert_eq!(back.events, evs);
    }

    #[test]
    fn phoenix_annotations_carry_the_label_and_come_back_the_same() {
        let evs = events();
        let refs: Vec<&LabelEvent> = evs.iter().collect();
        let data = to_phoenix(&refs);
        assert_eq!(
            data[1],
            json!({"span_id": "gpt-4o/q2", "name": "correct", "annotator_kind": "HUMAN",
                   "result": {"label": "fail", "score": 0, "explanation": "wrong year"},
                   "metadata": {"reviewer": "ana", "case_id": "q2", "model": "gpt-4o",
                                "blind": true, "t": 2},
                   "identifier": "ana"})
        );
        assert_eq!(
            data[2]["result"],
            json!({"label": "4", "score": 4, "explanation": "good"})
        );
        assert_eq!(data[5]["result"]["label"], "4");
        assert!(data[5]["result"].get("score").is_none());
        let text = serde_json::to_string_pretty(&json!({ "data": data })).expect("json");
        let back = read_any(&text, "phoenix.json");
        assert_eq!(back.problems, vec![]);
        assert_eq!(back.events, evs);
    }

    #[test]
    fn each_format_is_told_apart() {
        let evs = events();
        let refs: Vec<&LabelEvent> = evs.iter().collect();
        let jsonl: String = evs.iter().map(to_jsonl).collect();
        let seq: String = evs
            .iter()
            .map(|e| format!("\u{1e}{}", to_jsonl(e)))
            .collect();
        let array = serde_json::to_string(&evs).expect("json");
        let lf = serde_json::to_string(&to_langfuse(&refs)).expect("json");
        let px = serde_json::to_string(&to_phoenix(&refs)).expect("json");
        let px_data = json!({ "data": to_phoenix(&refs) }).to_string();
        let lf_data = json!({ "data": to_langfuse(&refs) }).to_string();
        assert!(matches!(shape(&jsonl), Shape::Lines));
        assert!(matches!(shape(&seq), Shape::Lines));
        assert!(matches!(shape(""), Shape::Lines));
        assert!(matches!(shape(&array), Shape::Records(Format::Events, _)));
        assert!(matches!(shape(&lf), Shape::Records(Format::Langfuse, _)));
        assert!(matches!(
            shape(&lf_data),
            Shape::Records(Format::Langfuse, _)
        ));
        assert!(matches!(shape(&px), Shape::Records(Format::Phoenix, _)));
        assert!(matches!(
            shape(&px_data),
            Shape::Records(Format::Phoenix, _)
        ));
        for text in [&jsonl, &seq, &array, &lf, &px, &px_data, &lf_data] {
            let f = read_any(text, "f");
            assert_eq!(f.problems, vec![], "{text}");
            assert_eq!(f.events, evs, "{text}");
        }
        // one event alone, on one line or pretty over several
        let one = serde_json::to_string_pretty(&evs[0]).expect("json");
        assert_eq!(read_any(&one, "f").events, vec![evs[0].clone()]);
        assert_eq!(
            read_any(&to_jsonl(&evs[0]), "f").events,
            vec![evs[0].clone()]
        );
        // the JSONL reader's problems are its own
        let bad = format!("{}{{\"case_id\":\"q9\"", to_jsonl(&evs[0]));
        let f = read_any(&bad, "labels.jsonl");
        assert_eq!(f.events.len(), 1);
        assert!(f.problems[0]
            .to_string()
            .contains("line 2: the line is cut short"));
        // a cut array
        let f = read_any(&lf[..lf.len() - 5], "lf.json");
        assert!(f.events.is_empty());
        assert_eq!(f.problems.len(), 1);
        assert!(
            f.problems[0].message.starts_with("not JSON"),
            "{:?}",
            f.problems
        );
    }

    #[test]
    fn bad_records_are_said_and_the_rest_kept() {
        let lf = json!([
            {"traceId": "m/q1", "name": "correct", "value": 1, "dataType": "BOOLEAN",
             "metadata": {"reviewer": "ana"}},
            {"traceId": "m/q2", "name": "correct", "value": 1, "dataType": "BOOLEAN"},
            {"traceId": "m/q3", "name": "stars", "value": 3.5, "dataType": "NUMERIC",
             "authorUserId": "bo"},
            {"name": "correct", "value": 0, "dataType": "BOOLEAN", "authorUserId": "bo"},
            {"traceId": "q4", "name": "correct", "value": 0.9, "source": "EVAL",
             "authorUserId": "judge"},
            {"traceId": "m/q5", "name": "tone", "value": null, "stringValue": "curt",
             "dataType": "CATEGORICAL", "authorUserId": "bo", "comment": "short",
             "timestamp": "2026-01-02T03:04:05.000Z"},
            {"traceId": "m/q6", "name": "correct", "value": 1, "dataType": "TEXT",
             "authorUserId": "bo"},
            "nonsense",
        ]);
        let f = read_any(&lf.to_string(), "scores.json");
        let said: Vec<String> = f.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            said,
            vec![
                "scores.json line 2, field reviewer: missing; expected metadata.reviewer or authorUserId naming who labelled",
                "scores.json line 3, field value: expected an integer rating, not 3.5",
                "scores.json line 4, field traceId: missing; expected the case's trace id (`model/case`)",
                "scores.json line 5, field source: EVAL is a model's score, not a person's label; expected ANNOTATION or API",
                "scores.json line 7, field dataType: expected BOOLEAN, NUMERIC or CATEGORICAL, not TEXT",
                "scores.json line 8, field (record): expected a JSON object, not \"nonsense\"",
            ]
        );
        assert_eq!(f.events.len(), 2);
        assert_eq!(f.events[0].reviewer, "ana");
        assert_eq!(f.events[0].model.as_deref(), Some("m"));
        assert_eq!(f.events[0].case_id, "q1");
        assert_eq!(f.events[0].t, 0);
        assert_eq!(f.events[1].label, Label::Category("curt".into()));
        assert_eq!(f.events[1].note.as_deref(), Some("short"));

        let px = json!({"data": [
            {"span_id": "q1", "name": "correct", "annotator_kind": "HUMAN",
             "result": {"label": "pass", "score": 1.0}, "identifier": "ana"},
            {"span_id": "q2", "name": "correct", "annotator_kind": "LLM",
             "result": {"label": "fail"}, "identifier": "judge"},
            {"span_id": "q3", "name": "correct", "result": {"score": 0.5}, "identifier": "ana"},
            {"span_id": "q4", "name": "correct", "result": {"label": "pass"}, "identifier": ""},
            {"span_id": "q5", "name": "stars", "result": {"score": 5.0}, "identifier": "ana",
             "metadata": {"t": -3}},
            {"span_id": "q6", "name": "stars", "result": {"label": "3", "score": 3},
             "identifier": "ana", "created_at": "2026-01-02T03:04:05+00:00"},
        ], "next_cursor": null});
        let f = read_any(&px.to_string(), "annotations.json");
        let said: Vec<String> = f.problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            said,
            vec![
                "annotations.json line 2, field annotator_kind: expected HUMAN (a person's label), not \"LLM\"",
                "annotations.json line 3, field result.score: expected an integer rating, not 0.5",
                "annotations.json line 4, field reviewer: missing; expected metadata.reviewer or identifier naming who labelled",
                "annotations.json line 5, field metadata.t: expected milliseconds since 1970, not -3",
            ]
        );
        assert_eq!(f.events.len(), 2);
        assert_eq!(f.events[0].label, Label::Pass);
        assert_eq!(f.events[0].model, None);
        assert_eq!(f.events[1].label, Label::Rating(3));

        let f = read_any(r#"{"data": 3}"#, "x.json");
        assert!(f.problems[0].message.contains("`data` is not a list"));
    }
}
