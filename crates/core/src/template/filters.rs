//! The few Jinja filters prompt templates use most, written here because
//! minijinja's `builtins` feature (every filter, test and function) is left off
//! to keep the Wasm bundle small (see `template`).
//!
//! `length`, `join(sep="")`, `default(value="")` (for undefined or none),
//! `trim`, `lower`, `upper` and `tojson` (compact JSON with object keys sorted,
//! non-ASCII kept). They behave as Jinja's do for the values a sample holds:
//! strings, numbers, booleans, none, lists and maps.

use minijinja::value::ValueKind;
use minijinja::{Environment, Error, ErrorKind, Value as Jv};
use serde_json::{Map, Value};

/// Registers the filters on `env`.
pub fn register(env: &mut Environment<'_>) {
    env.add_filter("length", length);
    env.add_filter("join", join);
    env.add_filter("default", default);
    env.add_filter("trim", |s: String| s.trim().to_string());
    env.add_filter("lower", |s: String| s.to_lowercase());
    env.add_filter("upper", |s: String| s.to_uppercase());
    env.add_filter("tojson", |v: Jv| to_json(&v).to_string());
}

fn length(v: Jv) -> Result<usize, Error> {
    match v.as_str() {
        Some(s) => Ok(s.chars().count()),
        None => v.len().ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("cannot take the length of {}", v.kind()),
            )
        }),
    }
}

fn join(v: Jv, sep: Option<String>) -> Result<String, Error> {
    let items: Vec<String> = v.try_iter()?.map(|i| i.to_string()).collect();
    Ok(items.join(sep.as_deref().unwrap_or("")))
}

fn default(v: Jv, fallback: Option<Jv>) -> Jv {
    if v.is_undefined() || v.is_none() {
        fallback.unwrap_or_else(|| Jv::from(""))
    } else {
        v
    }
}

/// A template value as JSON (undefined and none become null).
pub fn to_json(v: &Jv) -> Value {
    match v.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => serde_json::from_str(&v.to_string()).unwrap_or(Value::Null),
        ValueKind::Map => {
            let keys = v
                .try_iter()
                .map(|it| it.collect::<Vec<_>>())
                .unwrap_or_default();
            let pairs = keys
                .into_iter()
                .map(|k| (k.to_string(), to_json(&v.get_item(&k).unwrap_or_default())));
            Value::Object(pairs.collect::<Map<String, Value>>())
        }
        ValueKind::Seq | ValueKind::Iterable => Value::Array(
            v.try_iter()
                .map(|it| it.map(|i| to_json(&i)).collect())
                .unwrap_or_default(),
        ),
        _ => Value::String(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::to_jinja;
    use serde_json::json;

    fn render(src: &str, ctx: Value) -> Result<String, Error> {
        let mut env = Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::SemiStrict);
        register(&mut env);
        env.render_str(src, to_jinja(&ctx))
    }

    #[test]
    fn filters_behave_like_jinja() {
        let ctx = json!({"items": ["a", "b"], "s": " 准确率 ", "n": null, "m": {"b": 1, "a": [true, 2.5]}});
        assert_eq!(
            render("{{ items|length }} {{ s|length }}", ctx.clone())
                .ok()
                .as_deref(),
            Some("2 5")
        );
        assert_eq!(
            render("{{ items|join(', ') }}|{{ items|join }}", ctx.clone())
                .ok()
                .as_deref(),
            Some("a, b|ab")
        );
        assert_eq!(
            render(
                "{{ missing|default('x') }}{{ n|default }}{{ s|trim|upper }}",
                ctx.clone()
            )
            .ok()
            .as_deref(),
            Some("x准确率")
        );
        assert_eq!(
            render("{{ m|tojson }} {{ s|trim|tojson }}", ctx.clone())
                .ok()
                .as_deref(),
            Some(r#"{"a":[true,2.5],"b":1} "准确率""#)
        );
        assert!(render("{{ 3|length }}", ctx).is_err());
    }
}
