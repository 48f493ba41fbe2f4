//! Reading task and template YAML, and placing key paths on lines.
//!
//! The crate is `serde_yaml_ng` 0.10 (a maintained fork of `serde_yaml` 0.9 on
//! `unsafe-libyaml`, a pure-Rust translation of libyaml, so it builds for
//! wasm32). It adds 104 KB raw / 44 KB gzipped to a small release Wasm page
//! (436 -> 540 KB raw; docs/BENCHMARKS.md, "Choosing the template and YAML
//! crates"). Its behaviour, pinned by the tests below:
//! - errors carry a line and column, and the key path (`metrics[1]: unknown
//!   field ...`) in their text, which [`from_yaml`] splits into `TaskError` parts;
//! - a tab used for indentation is a syntax error (YAML forbids tabs there), and
//!   the message gets a hint saying so;
//! - anchors and aliases (`&base` / `*base`) are expanded, with serde_yaml's
//!   repetition limit against "billion laughs" documents; the merge key `<<` is
//!   not applied when deserializing into structs, so with `deny_unknown_fields`
//!   it is reported as an unknown field `<<`;
//! - a repeated key is an error (`duplicate field`), `yes`/`no` stay strings
//!   (YAML 1.2 core schema) and a second document (`---`) is an error.
//!
//! Semantic errors found after deserializing have a key path but no span, so
//! [`locate`] finds the line of a path in block-style YAML by indentation.

use super::error::{TaskError, TaskErrors};
use crate::position::{PathLabel, Position};
use serde::de::DeserializeOwned;

/// Deserializes `text` as `T`, turning the YAML error into a `TaskError` with
/// file, line, column and key path.
pub fn from_yaml<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, TaskErrors> {
    serde_yaml_ng::from_str(text).map_err(|e| TaskErrors::from(yaml_error(file, text, &e)))
}

fn yaml_error(file: &str, text: &str, e: &serde_yaml_ng::Error) -> TaskError {
    let shown = e.to_string();
    let loc = e.location();
    let mut message = match &loc {
        Some(l) => {
            let suffix = format!(" at line {} column {}", l.line(), l.column());
            shown.strip_suffix(&suffix).unwrap_or(&shown).to_string()
        }
        None => shown,
    };
    let path = split_path(&mut message);
    let line = loc.as_ref().map(|l| l.line());
    if line
        .and_then(|l| text.lines().nth(l.checked_sub(1)?))
        .is_some_and(|l| l.starts_with('\t'))
        || (message.contains("cannot start any token") && text.contains('\t'))
    {
        message.push_str(" (YAML does not allow tabs for indentation; indent with spaces)");
    }
    let at = Position::new(file, line)
        .with_column(loc.map(|l| l.column()))
        .with_path(path, PathLabel::Bare);
    TaskError::new(at, message)
}

/// Takes the `metrics[1].pred_field: ` prefix serde_yaml puts before a message.
fn split_path(message: &mut String) -> String {
    match message.split_once(": ") {
        Some((head, rest)) if !head.is_empty() && !head.contains(char::is_whitespace) => {
            let path = head.to_string();
            *message = rest.to_string();
            path
        }
        _ => String::new(),
    }
}

/// One step of a key path.
#[derive(Debug, PartialEq)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn segments(path: &str) -> Vec<Seg<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Seg::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Seg::Index(i));
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    out
}

/// A non-blank, non-comment piece of a line: a sequence dash, or content.
#[derive(Debug)]
struct Token<'a> {
    line: usize,
    indent: usize,
    dash: bool,
    text: &'a str,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let mut indent = raw.len() - raw.trim_start_matches(' ').len();
        let mut rest = &raw[indent..];
        if rest.trim().is_empty() || rest.starts_with('#') || rest.starts_with("---") {
            continue;
        }
        while rest == "-" || rest.starts_with("- ") {
            out.push(Token {
                line: i + 1,
                indent,
                dash: true,
                text: "-",
            });
            let after = &rest[1..];
            let spaces = after.len() - after.trim_start_matches(' ').len();
            indent += 1 + spaces;
            rest = &after[spaces..];
        }
        if !rest.is_empty() {
            out.push(Token {
                line: i + 1,
                indent,
                dash: false,
                text: rest,
            });
        }
    }
    out
}

fn is_key(text: &str, key: &str) -> bool {
    let unquoted = [key.to_string(), format!("\"{key}\""), format!("'{key}'")];
    unquoted.iter().any(|k| {
        text.strip_prefix(k.as_str())
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(':'))
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    })
}

/// The 1-based line of `path` in block-style YAML, or of its deepest ancestor
/// found (a missing key points at its parent). `None` when not even the first
/// key is found, e.g. in flow-style YAML.
pub fn locate(text: &str, path: &str) -> Option<usize> {
    let toks = tokens(text);
    let (mut lo, mut hi) = (0, toks.len());
    let mut found = None;
    for seg in segments(path) {
        let Some(indent) = toks.get(lo..hi).and_then(|r| r.first()).map(|t| t.indent) else {
            return found;
        };
        let mut children = (lo..hi).filter(|&i| toks[i].indent == indent);
        let at = match seg {
            Seg::Key(k) => children.find(|&i| !toks[i].dash && is_key(toks[i].text, k)),
            Seg::Index(n) => children.filter(|&i| toks[i].dash).nth(n),
        };
        let Some(at) = at else { return found };
        let own = toks[at].indent;
        let item = toks[at].dash;
        hi = (at + 1..hi)
            .find(|&i| toks[i].indent < own || (toks[i].indent == own && (item || !toks[i].dash)))
            .unwrap_or(hi);
        lo = at + 1;
        found = Some(toks[at].line);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    const DOC: &str = "name: t\n# comment\nparse_schema:\n  - field: a\n    type: int\n  - field: b\n    lo: 1\nmetrics:\n- type: exact_match\n  pred_field: a\n-   type: numeric_error\n    pred_field: b\n    tolerance: 1\nlast: x\n";

    #[test]
    fn locates_block_paths_including_indentless_sequences() {
        assert_eq!(locate(DOC, "name"), Some(1));
        assert_eq!(locate(DOC, "parse_schema[1]"), Some(6));
        assert_eq!(locate(DOC, "parse_schema[1].lo"), Some(7));
        assert_eq!(locate(DOC, "parse_schema[0].type"), Some(5));
        assert_eq!(locate(DOC, "metrics[0].pred_field"), Some(10));
        assert_eq!(locate(DOC, "metrics[1].type"), Some(11));
        assert_eq!(locate(DOC, "metrics[1].tolerance"), Some(13));
        assert_eq!(locate(DOC, "last"), Some(14));
        // a missing key points at its parent; an unknown top key at nothing
        assert_eq!(locate(DOC, "metrics[1].label_field"), Some(11));
        assert_eq!(locate(DOC, "metrics[5]"), Some(8));
        assert_eq!(locate(DOC, "nope"), None);
        assert_eq!(locate("{name: t}", "name"), None);
    }

    #[test]
    fn splits_paths() {
        assert_eq!(
            segments("metrics[1].pred_field"),
            vec![Seg::Key("metrics"), Seg::Index(1), Seg::Key("pred_field")]
        );
        assert_eq!(
            segments("a[0][2]"),
            vec![Seg::Key("a"), Seg::Index(0), Seg::Index(2)]
        );
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        name: String,
        #[serde(default)]
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        a: i64,
        #[serde(default)]
        b: Option<String>,
    }

    fn err(text: &str) -> TaskError {
        match from_yaml::<Doc>("t.yaml", text) {
            Ok(d) => panic!("expected an error, got {d:?}"),
            Err(mut e) => e.0.remove(0),
        }
    }

    #[test]
    fn serde_errors_carry_path_line_and_column() {
        let e = err("name: t\nitems:\n  - a: 1\n  - a: 2\n    c: 3\n");
        assert_eq!((e.path.as_str(), e.line), ("items[1]", Some(5)));
        assert!(e.message.starts_with("unknown field `c`"), "{}", e.message);
        let e = err("name: t\nitems:\n  - a: x\n");
        assert_eq!(e.path, "items[0].a");
        assert_eq!((e.line, e.column), (Some(3), Some(8)));
        assert!(e
            .message
            .starts_with("invalid type: string \"x\", expected i64"));
        assert_eq!(
            e.to_string(),
            format!("t.yaml:3:8: `items[0].a`: {}", e.message)
        );
    }

    #[test]
    fn tabs_anchors_merge_keys_and_duplicates() {
        let e = err("name: t\nitems:\n\t- a: 1\n");
        assert!(e.message.contains("tabs"), "{e}");
        let ok: Doc =
            from_yaml("t", "name: t\nitems:\n  - &x {a: 1, b: s}\n  - *x\n").expect("aliases");
        assert_eq!(ok.items[1].b.as_deref(), Some("s"));
        let e = err("name: t\nitems:\n  - &x {a: 1}\n  - <<: *x\n    b: s\n");
        assert!(e.message.contains("unknown field `<<`"), "{e}");
        let e = err("name: t\nname: u\n");
        assert!(e.message.contains("duplicate field `name`"), "{e}");
        let m: BTreeMap<String, String> = from_yaml("t", "a: yes\nb: no\n").expect("strings");
        assert_eq!(m["a"], "yes");
        assert!(from_yaml::<Doc>("t", "name: a\n---\nname: b\n").is_err());
    }
}
