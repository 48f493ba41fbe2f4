//! `parse_schema` of spec 004: the fields a model's JSON answer should hold,
//! how each is read, and what each field became for one answer.
//!
//! A field has a name, a type (`enum` with `values`, `int` and `float` with
//! optional `lo`/`hi`, `str`, `bool`, `list`, `list_raw`) and a `default`. The
//! default must itself be a valid value of the field; without one it is `null`
//! for scalar types and `[]` for lists. Reading an answer never fails: every
//! field ends `parsed`, `coerced`, `clamped` or `defaulted`, with the reason
//! (see `coerce` for the per-type rules and `extract` for finding the JSON).

pub mod coerce;
pub mod extract;

use crate::position::KeyError;
use coerce::{scalar_text, Coercion};
pub use extract::extract_json;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The reserved field name for the whole answer text (trimmed). Metrics may
/// read it like a schema field; a schema may not declare it.
pub const RAW_ANSWER: &str = "raw_answer";

/// The field type names, as written in YAML.
pub const FIELD_TYPES: &[&str] = &["enum", "int", "float", "str", "bool", "list", "list_raw"];

/// One `parse_schema` entry as written in the task YAML.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    /// Key in the answer's JSON object.
    pub field: String,
    /// One of [`FIELD_TYPES`].
    #[serde(rename = "type")]
    pub kind: String,
    /// Allowed values (`enum` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Value>>,
    /// Value used when the answer's value is missing or unusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Lower bound (`int`/`float` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lo: Option<f64>,
    /// Upper bound (`int`/`float` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hi: Option<f64>,
    /// Free description, e.g. for a prompt author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A validated field type.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FieldKind {
    /// One of the listed scalar values.
    Enum {
        /// Allowed values.
        values: Vec<Value>,
    },
    /// An integer within optional bounds.
    Int {
        /// Lower bound.
        lo: Option<i64>,
        /// Upper bound.
        hi: Option<i64>,
    },
    /// A number within optional bounds.
    Float {
        /// Lower bound.
        lo: Option<f64>,
        /// Upper bound.
        hi: Option<f64>,
    },
    /// A string.
    Str,
    /// A boolean.
    Bool,
    /// An array of scalars.
    List,
    /// An array kept as written (objects allowed).
    ListRaw,
}

impl FieldKind {
    /// The YAML type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            FieldKind::Enum { .. } => "enum",
            FieldKind::Int { .. } => "int",
            FieldKind::Float { .. } => "float",
            FieldKind::Str => "str",
            FieldKind::Bool => "bool",
            FieldKind::List => "list",
            FieldKind::ListRaw => "list_raw",
        }
    }

    /// Reads one present value as this type.
    pub fn coerce(&self, v: &Value) -> Coercion {
        match self {
            FieldKind::Enum { values } => coerce::to_enum(v, values),
            FieldKind::Int { lo, hi } => coerce::to_int(v, *lo, *hi),
            FieldKind::Float { lo, hi } => coerce::to_float(v, *lo, *hi),
            FieldKind::Str => coerce::to_str(v),
            FieldKind::Bool => coerce::to_bool(v),
            FieldKind::List => coerce::to_list(v),
            FieldKind::ListRaw => coerce::to_list_raw(v),
        }
    }
}

/// A validated `parse_schema` entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldSpec {
    /// Key in the answer's JSON object.
    pub field: String,
    /// Type and its constraints.
    #[serde(flatten)]
    pub kind: FieldKind,
    /// The value used when the answer's is missing or unusable.
    pub default: Value,
}

impl TryFrom<&RawField> for FieldSpec {
    type Error = KeyError;

    fn try_from(raw: &RawField) -> Result<FieldSpec, KeyError> {
        let field = raw.field.trim();
        if field.is_empty() {
            return Err(KeyError::new("field", "expected a non-empty field name"));
        }
        if field == RAW_ANSWER {
            return Err(KeyError::new(
                "field",
                format!("`{RAW_ANSWER}` is reserved for the whole answer text"),
            ));
        }
        let kind = kind_of(raw)?;
        let default = default_of(raw, &kind)?;
        Ok(FieldSpec {
            field: field.to_string(),
            kind,
            default,
        })
    }
}

fn kind_of(raw: &RawField) -> Result<FieldKind, KeyError> {
    let kind = match raw.kind.trim() {
        "enum" => FieldKind::Enum {
            values: enum_values(raw.values.as_deref())?,
        },
        "int" => {
            let (lo, hi) = bounds(raw)?;
            FieldKind::Int {
                lo: lo.map(int_bound("lo")).transpose()?,
                hi: hi.map(int_bound("hi")).transpose()?,
            }
        }
        "float" => {
            let (lo, hi) = bounds(raw)?;
            FieldKind::Float { lo, hi }
        }
        "str" => FieldKind::Str,
        "bool" => FieldKind::Bool,
        "list" => FieldKind::List,
        "list_raw" => FieldKind::ListRaw,
        other => {
            let known = FIELD_TYPES.join(", ");
            let message = format!("unknown type `{other}`; expected one of {known}");
            return Err(KeyError::new("type", message));
        }
    };
    keys_apply(raw, &kind)?;
    Ok(kind)
}

/// `values` only on enum fields, `lo`/`hi` only on int and float fields.
fn keys_apply(raw: &RawField, kind: &FieldKind) -> Result<(), KeyError> {
    let t = kind.type_name();
    if raw.values.is_some() && t != "enum" {
        let message = format!("`values` applies only to enum fields, not {t}");
        return Err(KeyError::new("values", message));
    }
    if (raw.lo.is_some() || raw.hi.is_some()) && !matches!(t, "int" | "float") {
        let key = if raw.lo.is_some() { "lo" } else { "hi" };
        let message = format!("`{key}` applies only to int and float fields, not {t}");
        return Err(KeyError::new(key, message));
    }
    Ok(())
}

fn enum_values(values: Option<&[Value]>) -> Result<Vec<Value>, KeyError> {
    let values = values.filter(|v| !v.is_empty()).ok_or_else(|| {
        KeyError::new("values", "an enum field needs a non-empty list of `values`")
    })?;
    let mut seen: Vec<String> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let text = scalar_text(v).ok_or_else(|| {
            KeyError::new(
                format!("values[{i}]"),
                "expected a string, number or boolean",
            )
        })?;
        let key = coerce::norm_text(&text);
        if seen.contains(&key) {
            return Err(KeyError::new(format!("values[{i}]"), format!("`{text}` repeats an earlier value (values are matched ignoring case and width)")));
        }
        seen.push(key);
    }
    Ok(values.to_vec())
}

fn bounds(raw: &RawField) -> Result<(Option<f64>, Option<f64>), KeyError> {
    for (key, b) in [("lo", raw.lo), ("hi", raw.hi)] {
        if b.is_some_and(|x| !x.is_finite()) {
            return Err(KeyError::new(key, "expected a finite number"));
        }
    }
    if let (Some(lo), Some(hi)) = (raw.lo, raw.hi) {
        if lo > hi {
            return Err(KeyError::new(
                "lo",
                format!("lo {lo} is greater than hi {hi}"),
            ));
        }
    }
    Ok((raw.lo, raw.hi))
}

fn int_bound(key: &'static str) -> impl Fn(f64) -> Result<i64, KeyError> {
    move |x| match x.fract() == 0.0 && x.abs() < i64::MAX as f64 {
        true => Ok(x as i64),
        false => Err(KeyError::new(
            key,
            format!("an int field needs an integer bound, found {x}"),
        )),
    }
}

fn default_of(raw: &RawField, kind: &FieldKind) -> Result<Value, KeyError> {
    let Some(d) = raw.default.as_ref() else {
        return Ok(match kind {
            FieldKind::List | FieldKind::ListRaw => Value::Array(Vec::new()),
            _ => Value::Null,
        });
    };
    match kind.coerce(d) {
        Coercion::Parsed(v) => Ok(v),
        Coercion::Coerced(_, why) | Coercion::Rejected(why) => Err(KeyError::new(
            "default",
            format!("not a valid {} value: {why}", kind.type_name()),
        )),
        Coercion::Clamped(_, _) => Err(KeyError::new("default", format!("{d} is outside lo..hi"))),
    }
}

/// What became of one field of one answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseStatus {
    /// Taken as written.
    Parsed,
    /// Missing or unusable; the default was used.
    Defaulted,
    /// A number limited to `lo`/`hi`.
    Clamped,
    /// Converted from a near miss (case, a numeric string, ...).
    Coerced,
}

/// One field's value for one answer, and how it was obtained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedField {
    /// Field name.
    pub field: String,
    /// The value metrics see.
    pub value: Value,
    /// How it was obtained.
    pub status: ParseStatus,
    /// Why, for every status but `parsed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A model answer read against a schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedAnswer {
    /// The whole answer text, trimmed (a JSON string; what `raw_answer` reads).
    pub raw: Value,
    /// Why no JSON object was found, when none was (only for non-empty schemas).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_error: Option<String>,
    /// One entry per schema field, in schema order.
    pub fields: Vec<ParsedField>,
    /// The function calls the answer made, when it made any (an answer with
    /// `tool_calls`): what the `tool_call` metrics read.
    #[serde(rename = "tool_calls", skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<crate::toolcall::Call>>,
    /// The whole conversation, when the answer is one (a saved agent run):
    /// what `trajectory_match` reads (else the answer's one message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Vec<crate::toolcall::message::ChatMessage>>,
    /// The world's state at the end of an agent's case (read from its MCP
    /// server's `state://world`, or saved with the answer): what
    /// `final_state` compares.
    #[serde(
        rename = "final_state",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub state: Option<Value>,
}

impl ParsedAnswer {
    /// The whole answer text.
    pub fn raw_text(&self) -> &str {
        self.raw.as_str().unwrap_or("")
    }

    /// The value of a schema field, or of [`RAW_ANSWER`].
    pub fn get(&self, field: &str) -> Option<&Value> {
        if field == RAW_ANSWER {
            return Some(&self.raw);
        }
        self.field(field).map(|f| &f.value)
    }

    /// The full record of a schema field.
    pub fn field(&self, field: &str) -> Option<&ParsedField> {
        self.fields.iter().find(|f| f.field == field)
    }
}

/// A validated `parse_schema`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Schema {
    /// Fields in declaration order.
    pub fields: Vec<FieldSpec>,
}

impl Schema {
    /// The spec of `field`.
    pub fn get(&self, field: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.field == field)
    }

    /// Reads a model answer (never fails; see the module doc).
    pub fn parse_answer(&self, answer: &str) -> ParsedAnswer {
        let raw = Value::String(answer.trim().to_string());
        if self.fields.is_empty() {
            return ParsedAnswer {
                raw,
                json_error: None,
                fields: Vec::new(),
                calls: None,
                trajectory: None,
                state: None,
            };
        }
        match extract_json(answer) {
            Ok(obj) => ParsedAnswer {
                raw,
                json_error: None,
                fields: self.read(&obj),
                calls: None,
                trajectory: None,
                state: None,
            },
            Err(e) => {
                let reason = e.to_string();
                ParsedAnswer {
                    raw,
                    fields: self.all_defaulted(&reason),
                    json_error: Some(reason),
                    calls: None,
                    trajectory: None,
                    state: None,
                }
            }
        }
    }

    /// An answer that never came (a failed call): every field defaulted for `reason`.
    pub fn no_answer(&self, reason: &str) -> ParsedAnswer {
        ParsedAnswer {
            raw: Value::String(String::new()),
            json_error: None,
            fields: self.all_defaulted(reason),
            calls: None,
            trajectory: None,
            state: None,
        }
    }

    fn read(&self, obj: &Map<String, Value>) -> Vec<ParsedField> {
        self.fields
            .iter()
            .map(|spec| read_field(spec, obj.get(&spec.field)))
            .collect()
    }

    fn all_defaulted(&self, reason: &str) -> Vec<ParsedField> {
        self.fields
            .iter()
            .map(|spec| defaulted(spec, reason.to_string()))
            .collect()
    }
}

fn read_field(spec: &FieldSpec, value: Option<&Value>) -> ParsedField {
    let Some(value) = value else {
        return defaulted(spec, "missing".into());
    };
    let (value, status, reason) = match spec.kind.coerce(value) {
        Coercion::Parsed(v) => (v, ParseStatus::Parsed, None),
        Coercion::Coerced(v, why) => (v, ParseStatus::Coerced, Some(why)),
        Coercion::Clamped(v, why) => (v, ParseStatus::Clamped, Some(why)),
        Coercion::Rejected(why) => return defaulted(spec, why),
    };
    ParsedField {
        field: spec.field.clone(),
        value,
        status,
        reason,
    }
}

fn defaulted(spec: &FieldSpec, reason: String) -> ParsedField {
    ParsedField {
        field: spec.field.clone(),
        value: spec.default.clone(),
        status: ParseStatus::Defaulted,
        reason: Some(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(field: &str, kind: &str) -> RawField {
        RawField {
            field: field.into(),
            kind: kind.into(),
            ..Default::default()
        }
    }

    /// The parse_schema of spec 004's `event_eval`.
    fn event_schema() -> Schema {
        let sentiment = RawField {
            values: Some(vec![json!("positive"), json!("neutral"), json!("negative")]),
            default: Some(json!("neutral")),
            ..raw("sentiment", "enum")
        };
        let impact = RawField {
            default: Some(json!(0)),
            lo: Some(-5.0),
            hi: Some(5.0),
            ..raw("impact_score", "int")
        };
        let keywords = RawField {
            default: Some(json!([])),
            ..raw("keywords", "list")
        };
        let fields = [sentiment, impact, keywords]
            .iter()
            .map(FieldSpec::try_from)
            .collect::<Result<_, _>>();
        Schema {
            fields: fields.unwrap_or_default(),
        }
    }

    #[test]
    fn reads_an_answer_and_records_each_status() {
        let schema = event_schema();
        assert_eq!(schema.fields.len(), 3);
        let a =
            schema.parse_answer("```json\n{\"sentiment\": \"Negative\", \"impact_score\": 9}\n```");
        let statuses: Vec<_> = a
            .fields
            .iter()
            .map(|f| (f.status, f.reason.clone()))
            .collect();
        assert_eq!(
            statuses,
            vec![
                (
                    ParseStatus::Coerced,
                    Some("matched `Negative` to `negative`".into())
                ),
                (ParseStatus::Clamped, Some("clamped 9 to 5".into())),
                (ParseStatus::Defaulted, Some("missing".into())),
            ]
        );
        assert_eq!(a.get("impact_score"), Some(&json!(5)));
        assert_eq!(a.get("keywords"), Some(&json!([])));
        assert!(a
            .get(RAW_ANSWER)
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with("```json")));
    }

    #[test]
    fn non_json_answers_default_every_field_with_the_reason() {
        let a = event_schema().parse_answer("I think it is positive.");
        assert!(a.fields.iter().all(|f| f.status == ParseStatus::Defaulted));
        assert_eq!(a.fields[0].value, json!("neutral"));
        assert_eq!(
            a.fields[0].reason.as_deref(),
            Some("answer is not JSON: no JSON object (no `{` found)")
        );
        assert_eq!(a.json_error, a.fields[0].reason);
        let failed = event_schema().no_answer("call failed: timeout");
        assert_eq!(
            failed.fields[2].reason.as_deref(),
            Some("call failed: timeout")
        );
        let free = Schema::default().parse_answer("  plain text ");
        assert_eq!(
            (free.raw_text(), free.json_error.is_none()),
            ("plain text", true)
        );
    }

    #[test]
    fn field_validation_errors_name_the_key() {
        let err = |r: RawField| FieldSpec::try_from(&r).expect_err("invalid");
        assert_eq!(err(raw("x", "integer")).key, "type");
        assert_eq!(err(raw("x", "enum")).key, "values");
        assert_eq!(
            err(RawField {
                values: Some(vec![json!("a")]),
                ..raw("x", "str")
            })
            .key,
            "values"
        );
        assert_eq!(
            err(RawField {
                values: Some(vec![json!("a"), json!("A")]),
                ..raw("x", "enum")
            })
            .key,
            "values[1]"
        );
        assert_eq!(
            err(RawField {
                values: Some(vec![json!([1])]),
                ..raw("x", "enum")
            })
            .key,
            "values[0]"
        );
        let e = err(RawField {
            lo: Some(5.0),
            hi: Some(-5.0),
            ..raw("x", "int")
        });
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("lo", "lo 5 is greater than hi -5")
        );
        assert_eq!(
            err(RawField {
                lo: Some(0.5),
                ..raw("x", "int")
            })
            .key,
            "lo"
        );
        assert_eq!(
            err(RawField {
                hi: Some(1.0),
                ..raw("x", "str")
            })
            .key,
            "hi"
        );
        assert_eq!(
            err(RawField {
                default: Some(json!(9)),
                hi: Some(5.0),
                ..raw("x", "int")
            })
            .message,
            "9 is outside lo..hi"
        );
        let e = err(RawField {
            default: Some(json!("up")),
            values: Some(vec![json!("a")]),
            ..raw("x", "enum")
        });
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            (
                "default",
                "not a valid enum value: not in enum values [a]: `up`"
            )
        );
        assert_eq!(err(raw(RAW_ANSWER, "str")).key, "field");
        assert_eq!(err(raw(" ", "str")).key, "field");
    }

    #[test]
    fn implicit_defaults_are_null_or_empty_list() {
        let s = FieldSpec::try_from(&raw("x", "float")).expect("valid");
        assert_eq!(s.default, Value::Null);
        let l = FieldSpec::try_from(&raw("x", "list_raw")).expect("valid");
        assert_eq!(l.default, json!([]));
    }
}
