//! Where in an endpoint's JSON answer a list is: a small path language, the
//! subset of JSONPath that picks a list out of an API answer.
//!
//! A path is an optional `$`, then steps: `.name` (or a leading `name`), `[n]`
//! (an array item, 0-based) and `[*]` (every array item); `["a key"]` names a
//! key with dots or spaces. `results[*].source` picks the `source` of every
//! item of `results`; `data.hits` picks the array `data.hits` itself (its items
//! are the list). Items that are strings are taken as they are, numbers as
//! their text; anything else is an error that names the item. This covers
//! what retrieval APIs answer (a list of hits, each with a document name);
//! filters and slices of full JSONPath are left out on purpose.

use serde_json::Value;
use std::fmt;

/// A short name for a JSON value's type, for error messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// An object key.
    Key(String),
    /// One array item.
    Index(usize),
    /// Every array item.
    All,
}

/// A parsed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonPath {
    text: String,
    steps: Vec<PathStep>,
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl JsonPath {
    /// Parses a path; the error says at which character and what was expected.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        let t = text.trim();
        let chars: Vec<char> = t.chars().collect();
        let mut i = usize::from(chars.first() == Some(&'$'));
        let mut steps = Vec::new();
        let at = |i: usize, what: &str| format!("at character {}: expected {what}", i + 1);
        while i < chars.len() {
            match chars[i] {
                '.' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < chars.len() && chars[j] != '.' && chars[j] != '[' {
                        j += 1;
                    }
                    if j == start {
                        return Err(at(start, "a key name after `.`"));
                    }
                    steps.push(PathStep::Key(chars[start..j].iter().collect()));
                    i = j;
                }
                '[' => {
                    let close = chars[i..]
                        .iter()
                        .position(|c| *c == ']')
                        .map(|p| p + i)
                        .ok_or_else(|| at(i, "`]` to close `[`"))?;
                    let inner: String = chars[i + 1..close].iter().collect();
                    let inner = inner.trim();
                    if inner == "*" {
                        steps.push(PathStep::All);
                    } else if let Ok(n) = inner.parse::<usize>() {
                        steps.push(PathStep::Index(n));
                    } else if let Some(key) = quoted(inner) {
                        steps.push(PathStep::Key(key));
                    } else {
                        return Err(at(i + 1, "`*`, an index or a quoted key inside `[]`"));
                    }
                    i = close + 1;
                }
                _ if steps.is_empty() && i <= 1 => {
                    let mut j = i;
                    while j < chars.len() && chars[j] != '.' && chars[j] != '[' {
                        j += 1;
                    }
                    steps.push(PathStep::Key(chars[i..j].iter().collect()));
                    i = j;
                }
                _ => return Err(at(i, "`.` or `[`")),
            }
        }
        if steps.is_empty() {
            return Err("an empty path; expected e.g. `results[*].source`".into());
        }
        Ok(JsonPath {
            text: t.to_string(),
            steps,
        })
    }

    /// The list the path picks from `v`: the values it reaches (an array
    /// reached last gives its items), as text. The error says which step found
    /// nothing or which item is not a string or number.
    pub fn strings(&self, v: &Value) -> Result<Vec<String>, String> {
        let mut at: Vec<&Value> = vec![v];
        for (n, step) in self.steps.iter().enumerate() {
            // After `[*]` over an empty array there is nothing left to look
            // in: the list is empty, not missing.
            let had = !at.is_empty();
            let mut next = Vec::new();
            for v in at {
                match (step, v) {
                    (PathStep::Key(k), Value::Object(m)) => next.extend(m.get(k)),
                    (PathStep::Index(i), Value::Array(a)) => next.extend(a.get(*i)),
                    (PathStep::All, Value::Array(a)) => next.extend(a.iter()),
                    _ => {}
                }
            }
            if had && next.is_empty() && !matches!(step, PathStep::All) {
                return Err(format!(
                    "`{}` found nothing at step {} ({})",
                    self.text,
                    n + 1,
                    describe(step)
                ));
            }
            at = next;
        }
        let items: Vec<&Value> = match at.as_slice() {
            [Value::Array(a)] => a.iter().collect(),
            _ => at,
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(format!(
                    "`{}`: item {} is {}, expected a string (a source name); point the path at the name inside it",
                    self.text,
                    i + 1,
                    kind(other)
                )),
            })
            .collect()
    }

    /// A value from which [`JsonPath::strings`] reads `items` back: the
    /// shape an endpoint with this path answers in (for the offline mock).
    pub fn nest(&self, items: &[String]) -> Value {
        fn build(steps: &[PathStep], items: &[String]) -> Value {
            match steps.split_first() {
                None => Value::Array(items.iter().map(|s| Value::String(s.clone())).collect()),
                Some((PathStep::Key(k), rest)) => {
                    let mut m = serde_json::Map::new();
                    m.insert(k.clone(), build(rest, items));
                    Value::Object(m)
                }
                Some((PathStep::Index(i), rest)) => {
                    let mut a = vec![Value::Null; *i];
                    a.push(build(rest, items));
                    Value::Array(a)
                }
                Some((PathStep::All, rest)) => {
                    Value::Array(items.iter().map(|s| leaf(rest, s)).collect())
                }
            }
        }
        fn leaf(steps: &[PathStep], item: &str) -> Value {
            match steps.split_first() {
                None => Value::String(item.to_string()),
                Some((PathStep::Key(k), rest)) => {
                    let mut m = serde_json::Map::new();
                    m.insert(k.clone(), leaf(rest, item));
                    Value::Object(m)
                }
                Some((PathStep::Index(i), rest)) => {
                    let mut a = vec![Value::Null; *i];
                    a.push(leaf(rest, item));
                    Value::Array(a)
                }
                Some((PathStep::All, rest)) => Value::Array(vec![leaf(rest, item)]),
            }
        }
        build(&self.steps, items)
    }
}

fn quoted(s: &str) -> Option<String> {
    let s = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))?;
    Some(s.to_string())
}

fn describe(step: &PathStep) -> String {
    match step {
        PathStep::Key(k) => format!("key `{k}`"),
        PathStep::Index(i) => format!("item [{i}]"),
        PathStep::All => "[*]".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_pick_lists_of_names() {
        let v = json!({"results": [{"source": "a.md", "score": 0.9}, {"source": "b.md"}], "data": {"hits": ["x", 3]}});
        let p = JsonPath::parse("results[*].source").expect("parses");
        assert_eq!(p.strings(&v).expect("list"), vec!["a.md", "b.md"]);
        let p = JsonPath::parse("$.data.hits").expect("parses");
        assert_eq!(p.strings(&v).expect("list"), vec!["x", "3"]);
        let p = JsonPath::parse("$[\"data\"][\"hits\"][0]").expect("parses");
        assert_eq!(p.strings(&v).expect("list"), vec!["x"]);
        let p = JsonPath::parse("results[*]").expect("parses");
        let e = p.strings(&v).expect_err("objects are not names");
        assert!(e.contains("item 1 is an object"), "{e}");
        let p = JsonPath::parse("results[*].missing").expect("parses");
        assert!(p.strings(&v).expect_err("nothing").contains("step 3"));
        let p = JsonPath::parse("docs").expect("parses");
        assert!(p.strings(&v).is_err());
        assert_eq!(
            JsonPath::parse("results[*].source")
                .expect("parses")
                .strings(&json!({"results": []}))
                .expect("an empty list is a list"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn bad_paths_say_where() {
        for (bad, want) in [
            ("", "empty path"),
            ("a..b", "character 3"),
            ("a[x]", "inside `[]`"),
            ("a[0", "`]`"),
        ] {
            let e = JsonPath::parse(bad).expect_err(bad);
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn nest_is_read_back() {
        for path in [
            "results[*].source",
            "$.data.hits",
            "hits[*]",
            "a[1].b[*].c.d",
        ] {
            let p = JsonPath::parse(path).expect("parses");
            let items = vec!["a.md".to_string(), "b.md".to_string(), "a.md".to_string()];
            assert_eq!(p.strings(&p.nest(&items)).expect(path), items, "{path}");
        }
    }
}
