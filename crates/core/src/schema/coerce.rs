//! Turning one JSON value from a model answer into a schema field's value.
//!
//! Each field type accepts its own JSON type as is (`parsed`), converts a few
//! near misses (`coerced`, with the reason), limits numbers to `lo`/`hi`
//! (`clamped`), and rejects the rest (the caller then uses the default):
//!
//! | type | parsed | coerced | rejected |
//! |---|---|---|---|
//! | `enum` | a declared value | same text after NFKC, lowercase, trim (`Positive` -> `positive`); a number or boolean whose text is a value | anything else: "not in enum values [..]" |
//! | `int` | an integer | a float, rounded half away from zero; a numeric string | booleans, arrays, objects, non-numeric strings |
//! | `float` | a number | a numeric string | the same |
//! | `str` | a string | a number or boolean, written as text | arrays, objects |
//! | `bool` | a boolean | `true/false/yes/no/1/0` strings (any case), numbers 0 and 1 | anything else |
//! | `list` | an array of scalars | nulls and nested arrays/objects dropped; a string split on `, ; ， 、 ；` and newlines | numbers, booleans, objects |
//! | `list_raw` | an array (objects kept) | a single object wrapped in an array | scalars |
//!
//! `null` is rejected by every type (reason "null"), so it takes the default.

use crate::json_path::kind;
use serde_json::{Number, Value};

/// What became of one value.
#[derive(Clone, Debug, PartialEq)]
pub enum Coercion {
    /// Taken as it was.
    Parsed(Value),
    /// Converted; the reason says how.
    Coerced(Value, String),
    /// Limited to `lo`/`hi` (the reason may also tell an earlier conversion).
    Clamped(Value, String),
    /// Not usable; the reason says why.
    Rejected(String),
}

/// Case- and width-insensitive comparison key for enum values and list items:
/// NFKC, lowercase, whitespace runs collapsed to one space, trimmed.
pub fn norm_text(s: &str) -> String {
    let lower: String = crate::text::nfkc(s)
        .chars()
        .flat_map(char::to_lowercase)
        .collect();
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A scalar as text: strings as they are, numbers and booleans as JSON writes them.
pub fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Splits a string meant as a list on commas, semicolons (ASCII and CJK),
/// the ideographic comma `、` and newlines; items are trimmed, empty ones dropped.
pub fn split_items(s: &str) -> Vec<String> {
    s.split([',', ';', '，', '、', '；', '\n'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// An `enum` value: one of `values`, matched exactly or by [`norm_text`].
pub fn to_enum(v: &Value, values: &[Value]) -> Coercion {
    if values.contains(v) {
        return Coercion::Parsed(v.clone());
    }
    let Some(text) = scalar_text(v) else {
        return Coercion::Rejected(rejected_kind(v, "one of the enum values"));
    };
    let key = norm_text(&text);
    match values
        .iter()
        .find(|d| scalar_text(d).is_some_and(|t| norm_text(&t) == key))
    {
        Some(d) => Coercion::Coerced(d.clone(), format!("matched `{text}` to `{}`", show(d))),
        None => Coercion::Rejected(format!(
            "not in enum values [{}]: `{text}`",
            values.iter().map(show).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// An `int` value, rounded and clamped to `lo..=hi`.
pub fn to_int(v: &Value, lo: Option<i64>, hi: Option<i64>) -> Coercion {
    let (x, note) = match number_of(v, "an integer") {
        Ok(found) => found,
        Err(reason) => return Coercion::Rejected(reason),
    };
    let mut notes: Vec<String> = note.into_iter().collect();
    let rounded = x.round();
    if rounded != x {
        notes.push(format!("rounded {x} to {rounded}"));
    }
    let clamped = clamp(rounded, lo.map(|l| l as f64), hi.map(|h| h as f64));
    if clamped.abs() > i64::MAX as f64 {
        return Coercion::Rejected(format!("{x} is out of the integer range"));
    }
    let exact = v.as_i64().filter(|_| clamped == rounded);
    let out = Value::from(exact.unwrap_or(clamped as i64));
    finish(out, notes, rounded, clamped)
}

/// A `float` value, clamped to `lo..=hi`.
pub fn to_float(v: &Value, lo: Option<f64>, hi: Option<f64>) -> Coercion {
    let (x, note) = match number_of(v, "a number") {
        Ok(found) => found,
        Err(reason) => return Coercion::Rejected(reason),
    };
    let clamped = clamp(x, lo, hi);
    let out = if clamped == x && note.is_none() {
        v.clone()
    } else {
        Number::from_f64(clamped).map_or(Value::Null, Value::Number)
    };
    finish(out, note.into_iter().collect(), x, clamped)
}

fn finish(out: Value, mut notes: Vec<String>, before: f64, after: f64) -> Coercion {
    if after != before {
        notes.push(format!("clamped {before} to {after}"));
        return Coercion::Clamped(out, notes.join("; "));
    }
    match notes.is_empty() {
        true => Coercion::Parsed(out),
        false => Coercion::Coerced(out, notes.join("; ")),
    }
}

fn clamp(x: f64, lo: Option<f64>, hi: Option<f64>) -> f64 {
    let x = lo.map_or(x, |l| x.max(l));
    hi.map_or(x, |h| x.min(h))
}

/// A finite number from a JSON number or a numeric string (with a note).
fn number_of(v: &Value, expected: &str) -> Result<(f64, Option<String>), String> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map(|x| (x, None))
            .ok_or_else(|| format!("{n} is not a finite number")),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok((x, Some(format!("read the string \"{s}\" as a number")))),
            _ => Err(format!("expected {expected}, found the string \"{s}\"")),
        },
        other => Err(rejected_kind(other, expected)),
    }
}

/// A `str` value.
pub fn to_str(v: &Value) -> Coercion {
    match v {
        Value::String(_) => Coercion::Parsed(v.clone()),
        Value::Number(_) | Value::Bool(_) => {
            let text = scalar_text(v).unwrap_or_default();
            Coercion::Coerced(Value::String(text), format!("{} written as text", kind(v)))
        }
        other => Coercion::Rejected(rejected_kind(other, "a string")),
    }
}

/// A `bool` value.
pub fn to_bool(v: &Value) -> Coercion {
    let read = match v {
        Value::Bool(_) => return Coercion::Parsed(v.clone()),
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        },
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        _ => None,
    };
    match read {
        Some(b) => Coercion::Coerced(Value::Bool(b), format!("read {} as {b}", show(v))),
        None => Coercion::Rejected(rejected_kind(v, "a boolean")),
    }
}

/// A `list` value: scalars only.
pub fn to_list(v: &Value) -> Coercion {
    match v {
        Value::Array(items) => {
            let kept: Vec<Value> = items
                .iter()
                .filter(|i| scalar_text(i).is_some())
                .cloned()
                .collect();
            match items.len() - kept.len() {
                0 => Coercion::Parsed(v.clone()),
                n => Coercion::Coerced(
                    Value::Array(kept),
                    format!("dropped {n} null or nested item(s) (use list_raw to keep objects)"),
                ),
            }
        }
        Value::String(s) => {
            let items = split_items(s);
            let reason = format!("split the string into {} item(s)", items.len());
            Coercion::Coerced(Value::from(items), reason)
        }
        other => Coercion::Rejected(rejected_kind(other, "an array")),
    }
}

/// A `list_raw` value: any array, kept as is.
pub fn to_list_raw(v: &Value) -> Coercion {
    match v {
        Value::Array(_) => Coercion::Parsed(v.clone()),
        Value::Object(_) => Coercion::Coerced(
            Value::Array(vec![v.clone()]),
            "wrapped a single object in an array".into(),
        ),
        other => Coercion::Rejected(rejected_kind(other, "an array")),
    }
}

fn rejected_kind(v: &Value, expected: &str) -> String {
    match v {
        Value::Null => "null".to_string(),
        other => format!("expected {expected}, found {}", kind(other)),
    }
}

/// A value as shown in reasons: strings without quotes, the rest as JSON.
fn show(v: &Value) -> String {
    scalar_text(v).unwrap_or_else(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values() -> Vec<Value> {
        vec![json!("positive"), json!("neutral"), json!("negative")]
    }

    #[test]
    fn enum_matches_exactly_or_folded_else_rejects_with_the_values() {
        assert_eq!(
            to_enum(&json!("neutral"), &values()),
            Coercion::Parsed(json!("neutral"))
        );
        assert_eq!(
            to_enum(&json!(" Positive "), &values()),
            Coercion::Coerced(
                json!("positive"),
                "matched ` Positive ` to `positive`".into()
            )
        );
        assert_eq!(
            to_enum(&json!("bullish"), &values()),
            Coercion::Rejected(
                "not in enum values [positive, neutral, negative]: `bullish`".into()
            )
        );
        assert_eq!(
            to_enum(&json!(1), &[json!(1), json!(2)]),
            Coercion::Parsed(json!(1))
        );
        assert_eq!(
            to_enum(&Value::Null, &values()),
            Coercion::Rejected("null".into())
        );
    }

    #[test]
    fn int_rounds_reads_strings_and_clamps() {
        assert_eq!(
            to_int(&json!(3), Some(-5), Some(5)),
            Coercion::Parsed(json!(3))
        );
        assert_eq!(
            to_int(&json!(7), Some(-5), Some(5)),
            Coercion::Clamped(json!(5), "clamped 7 to 5".into())
        );
        assert_eq!(
            to_int(&json!(2.5), None, None),
            Coercion::Coerced(json!(3), "rounded 2.5 to 3".into())
        );
        assert_eq!(
            to_int(&json!("-9"), Some(-5), Some(5)),
            Coercion::Clamped(
                json!(-5),
                "read the string \"-9\" as a number; clamped -9 to -5".into()
            )
        );
        assert_eq!(
            to_int(&json!(true), None, None),
            Coercion::Rejected("expected an integer, found a boolean".into())
        );
        assert_eq!(
            to_int(&json!("high"), None, None),
            Coercion::Rejected("expected an integer, found the string \"high\"".into())
        );
        assert!(matches!(
            to_int(&json!(1e300), None, None),
            Coercion::Rejected(_)
        ));
        assert!(
            matches!(to_int(&json!(1e300), None, Some(9)), Coercion::Clamped(v, _) if v == json!(9))
        );
    }

    #[test]
    fn float_keeps_numbers_and_clamps() {
        assert_eq!(
            to_float(&json!(0.25), Some(0.0), Some(1.0)),
            Coercion::Parsed(json!(0.25))
        );
        assert_eq!(
            to_float(&json!(1.5), Some(0.0), Some(1.0)),
            Coercion::Clamped(json!(1.0), "clamped 1.5 to 1".into())
        );
        assert_eq!(
            to_float(&json!("0.5"), None, None),
            Coercion::Coerced(json!(0.5), "read the string \"0.5\" as a number".into())
        );
        assert!(matches!(
            to_float(&json!("NaN"), None, None),
            Coercion::Rejected(_)
        ));
    }

    #[test]
    fn str_bool_and_lists() {
        assert_eq!(
            to_str(&json!(3)),
            Coercion::Coerced(json!("3"), "a number written as text".into())
        );
        assert!(matches!(to_str(&json!([1])), Coercion::Rejected(_)));
        assert_eq!(
            to_bool(&json!("Yes")),
            Coercion::Coerced(json!(true), "read Yes as true".into())
        );
        assert_eq!(
            to_bool(&json!(0)),
            Coercion::Coerced(json!(false), "read 0 as false".into())
        );
        assert!(matches!(to_bool(&json!("maybe")), Coercion::Rejected(_)));
        assert_eq!(to_list(&json!(["a", 1])), Coercion::Parsed(json!(["a", 1])));
        assert_eq!(
            to_list(&json!(["a", null, {"x": 1}])),
            Coercion::Coerced(
                json!(["a"]),
                "dropped 2 null or nested item(s) (use list_raw to keep objects)".into()
            )
        );
        assert_eq!(
            to_list(&json!("ai, earnings、 云")),
            Coercion::Coerced(
                json!(["ai", "earnings", "云"]),
                "split the string into 3 item(s)".into()
            )
        );
        assert_eq!(
            to_list_raw(&json!([{"a": 1}])),
            Coercion::Parsed(json!([{"a": 1}]))
        );
        assert_eq!(
            to_list_raw(&json!({"a": 1})),
            Coercion::Coerced(
                json!([{"a": 1}]),
                "wrapped a single object in an array".into()
            )
        );
        assert!(matches!(to_list_raw(&json!("x")), Coercion::Rejected(_)));
    }

    #[test]
    fn norm_text_folds_case_width_and_spaces() {
        assert_eq!(norm_text("  ＡＩ  Chips\t"), "ai chips");
    }
}
