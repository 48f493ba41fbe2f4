//! Reading a judge model's verdict, strictly and with the reason (issue 11):
//! a verdict the tool cannot read is **unscored**, never a pass or a fail.
//!
//! In order:
//! 1. a JSON object (the whole answer, a fenced block, or the first balanced
//!    `{...}` in the text) with a `verdict`, `grade`, `score`, `rating` or
//!    `label` key whose value is in the scale;
//! 2. otherwise the last verdict line: `GRADE: X` at the start of a line
//!    (after optional Markdown emphasis or a list marker; an ASCII or
//!    full-width colon), or `[[X]]` anywhere, whichever comes last.
//!
//! A tag-list scale ([`Scale::Tags`], the multi-label verdicts of dialog
//! judging) is read by [`read_tags`] instead: a JSON list of zero or more of
//! the scale's tags, from a JSON object's `tags` key (the whole answer, a
//! fenced block or the first balanced `{...}`), or from the last `TAGS:`
//! line (the rest of the line a JSON list). Every element must be one of the
//! tags, written exactly (ASCII case aside); one that is not makes the whole
//! verdict unscored. The scored value is the list as JSON text, duplicates
//! removed, in the order given.
//!
//! `X` is one whole token: the text up to the next white space, without
//! surrounding quotes, brackets, Markdown emphasis or ASCII / CJK
//! punctuation, and it must equal a label of the scale (case-insensitively)
//! or, for a numeric scale, be a whole number within it. So `GRADE: CI` is
//! not `C`, `downgrade: C` is no grade line, `GRADE: 6` on a 1–5 scale and
//! `GRADE: 4.5` are unscored, and prose after the token does not matter.

use serde::Serialize;
use serde_json::Value;

/// The values a verdict may take.
#[derive(Clone, Debug, PartialEq)]
pub enum Scale {
    /// Labels such as `C`/`I`, `pass`/`fail`, `A`/`B`/`tie`.
    Labels(Vec<String>),
    /// Whole numbers from `lo` to `hi`, inclusive.
    Range {
        /// Lowest.
        lo: i64,
        /// Highest.
        hi: i64,
    },
    /// Zero or more of these tags, as a JSON list (read by [`read_tags`]).
    Tags(Vec<String>),
}

/// How a verdict was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadFrom {
    /// A JSON object's verdict key.
    Json,
    /// The last `GRADE:` line.
    GradeLine,
    /// The last `[[X]]`.
    Brackets,
    /// The last `TAGS:` line (tag lists).
    TagsLine,
}

/// A judge's verdict: a value of the scale, or unscored with the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Verdict {
    /// Read: the scale's label (as the scale writes it) and where it came from.
    Scored {
        /// The label, or the number as text.
        value: String,
        /// Where it was read.
        from: ReadFrom,
        /// The text it was read from.
        evidence: String,
    },
    /// Not read.
    Unscored {
        /// Why.
        reason: String,
    },
}

const JSON_KEYS: [&str; 5] = ["verdict", "grade", "score", "rating", "label"];

impl Scale {
    /// The scale's value for a token, if the token is one.
    pub fn value_of(&self, token: &str) -> Option<String> {
        match self {
            Scale::Labels(labels) => labels
                .iter()
                .find(|l| l.eq_ignore_ascii_case(token) || l.as_str() == token)
                .cloned(),
            Scale::Range { lo, hi } => {
                let n: i64 = token.parse().ok()?;
                (*lo..=*hi).contains(&n).then(|| n.to_string())
            }
            Scale::Tags(tags) => tags
                .iter()
                .find(|l| l.eq_ignore_ascii_case(token) || l.as_str() == token)
                .cloned(),
        }
    }

    fn describe(&self) -> String {
        match self {
            Scale::Labels(l) => l.join(" / "),
            Scale::Range { lo, hi } => format!("{lo}..{hi}"),
            Scale::Tags(t) => format!("a list of {}", t.join(" / ")),
        }
    }
}

/// Reads the verdict of a judge's answer (a tag-list scale: [`read_tags`]).
pub fn read(answer: &str, scale: &Scale) -> Verdict {
    if let Scale::Tags(tags) = scale {
        return read_tags(answer, tags);
    }
    if let Some(v) = from_json(answer, scale) {
        return v;
    }
    let line = last_grade_line(answer);
    let brackets = last_brackets(answer);
    let pick = match (line, brackets) {
        (Some(l), Some(b)) => Some(if l.0 > b.0 {
            (l, ReadFrom::GradeLine)
        } else {
            (b, ReadFrom::Brackets)
        }),
        (Some(l), None) => Some((l, ReadFrom::GradeLine)),
        (None, Some(b)) => Some((b, ReadFrom::Brackets)),
        (None, None) => None,
    };
    let Some(((_, token, evidence), from)) = pick else {
        return unscored("no JSON verdict, no `GRADE:` line and no `[[...]]` rating");
    };
    match scale.value_of(&token) {
        Some(value) => Verdict::Scored {
            value,
            from,
            evidence,
        },
        None => unscored(&format!(
            "`{token}` (from `{evidence}`) is not a value of the scale {}",
            scale.describe()
        )),
    }
}

fn unscored(reason: &str) -> Verdict {
    Verdict::Unscored {
        reason: reason.to_string(),
    }
}

/// Strips quotes, brackets, emphasis and punctuation around a token.
fn clean(token: &str) -> String {
    token
        .trim_matches(|c: char| {
            c.is_ascii_punctuation() && c != '-' && c != '+'
                || "。，、：；！？）（【】「」『』“”‘’《》".contains(c)
        })
        .to_string()
}

/// The first whole token of `rest`.
fn first_token(rest: &str) -> Option<String> {
    let t = clean(rest.split_whitespace().next()?);
    (!t.is_empty()).then_some(t)
}

/// The last line starting with `GRADE:` (byte offset, token, the line).
fn last_grade_line(answer: &str) -> Option<(usize, String, String)> {
    let mut found = None;
    let mut offset = 0;
    for line in answer.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line
            .trim()
            .trim_start_matches(['*', '_', '#', '-', '>', ' ', '`']);
        let Some(rest) = grade_rest(t) else { continue };
        if let Some(token) = first_token(rest.trim_start_matches(['*', '_', ' '])) {
            found = Some((start, token, line.trim().to_string()));
        }
    }
    found
}

/// What follows `GRADE:` (or `GRADE：`) at the start of `t`, any case.
fn grade_rest(t: &str) -> Option<&str> {
    let head = t.get(..5)?;
    if !head.eq_ignore_ascii_case("grade") {
        return None;
    }
    let rest = t[5..].trim_start_matches(['*', '_', ' ']);
    rest.strip_prefix(':').or_else(|| rest.strip_prefix('：'))
}

/// The last `[[X]]` (byte offset, token, the brackets).
fn last_brackets(answer: &str) -> Option<(usize, String, String)> {
    let at = answer.rfind("[[")?;
    let inner_end = answer[at + 2..].find("]]")? + at + 2;
    let inner = answer[at + 2..inner_end].trim();
    let token = clean(inner);
    (!token.is_empty() && !token.contains(char::is_whitespace))
        .then(|| (at, token, answer[at..inner_end + 2].to_string()))
}

fn from_json(answer: &str, scale: &Scale) -> Option<Verdict> {
    let value = json_object(answer)?;
    let obj = value.as_object()?;
    let (key, v) = JSON_KEYS
        .iter()
        .find_map(|k| obj.get(*k).map(|v| (*k, v)))?;
    let token = match v {
        Value::String(s) => clean(s.trim()),
        Value::Number(n) if n.is_i64() => n.to_string(),
        other => {
            let why = format!(
                "JSON `{key}`: {other} is not a value of the scale {}",
                scale.describe()
            );
            return Some(unscored(&why));
        }
    };
    Some(match scale.value_of(&token) {
        Some(value) => Verdict::Scored {
            value,
            from: ReadFrom::Json,
            evidence: format!("\"{key}\": {v}"),
        },
        None => unscored(&format!(
            "JSON `{key}`: `{token}` is not a value of the scale {}",
            scale.describe()
        )),
    })
}

/// The answer as JSON, a fenced block, or the first balanced `{...}`.
fn json_object(answer: &str) -> Option<Value> {
    let t = answer.trim();
    let object = |text: &str| {
        serde_json::from_str::<Value>(text.trim())
            .ok()
            .filter(Value::is_object)
    };
    if let Some(v) = object(t) {
        return Some(v);
    }
    if let Some(start) = t.find("```") {
        let body = &t[start + 3..];
        let body = body.strip_prefix("json").unwrap_or(body);
        if let Some(v) = body.find("```").and_then(|end| object(&body[..end])) {
            return Some(v);
        }
    }
    let start = t.find('{')?;
    let mut depth = 0usize;
    for (i, c) in t[start..].char_indices() {
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return object(&t[start..start + i + 1]);
            }
        }
    }
    None
}

/// The tags of a scored tag-list verdict (its value is the list as JSON text).
pub fn tags_of(value: &str) -> Option<Vec<String>> {
    serde_json::from_str(value).ok()
}

/// Reads a tag-list verdict (see the module doc): `value` is the JSON list.
pub fn read_tags(answer: &str, allowed: &[String]) -> Verdict {
    let (list, from, evidence) = match json_object(answer) {
        Some(Value::Object(o)) if o.contains_key("tags") => {
            let v = o.get("tags").cloned().unwrap_or(Value::Null);
            let evidence = format!("\"tags\": {v}");
            (v, ReadFrom::Json, evidence)
        }
        _ => match last_tags_line(answer) {
            Some((rest, line)) => match serde_json::from_str::<Value>(rest.trim()) {
                Ok(v) => (v, ReadFrom::TagsLine, line),
                Err(_) => {
                    return unscored(&format!("`{line}`: the rest of the line is no JSON list"))
                }
            },
            None => return unscored("no JSON object with `tags` and no `TAGS:` line"),
        },
    };
    let Value::Array(items) = list else {
        return unscored(&format!("`{evidence}`: the tags are not a JSON list"));
    };
    let mut out: Vec<String> = Vec::new();
    for item in &items {
        let Some(t) = item.as_str().map(str::trim) else {
            return unscored(&format!("`{evidence}`: {item} is not a tag (a string)"));
        };
        let Some(tag) = allowed
            .iter()
            .find(|a| a.as_str() == t || a.eq_ignore_ascii_case(t))
        else {
            return unscored(&format!(
                "`{evidence}`: `{t}` is not one of the tags {}",
                allowed.join(" / ")
            ));
        };
        if !out.contains(tag) {
            out.push(tag.clone());
        }
    }
    Verdict::Scored {
        value: serde_json::to_string(&out).unwrap_or_else(|_| "[]".into()),
        from,
        evidence,
    }
}

/// The last line starting with `TAGS:` (the rest of it, the line).
fn last_tags_line(answer: &str) -> Option<(String, String)> {
    answer.lines().rev().find_map(|line| {
        let t = line
            .trim()
            .trim_start_matches(['*', '_', '#', '-', '>', ' ', '`']);
        let head = t.get(..4)?;
        if !head.eq_ignore_ascii_case("tags") {
            return None;
        }
        let rest = t[4..].trim_start_matches(['*', '_', ' ']);
        let rest = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：'))?;
        let rest = rest
            .trim()
            .trim_start_matches(['*', '_', ' '])
            .trim_end_matches(['*', '_', '`'])
            .to_string();
        Some((rest, line.trim().to_string()))
    })
}

#[cfg(test)]
mod tag_tests {
    use super::*;

    fn tags() -> Vec<String> {
        ["credit_risk", "liquidity_risk", "信息依据"]
            .map(String::from)
            .to_vec()
    }

    fn value(v: &Verdict) -> Option<Vec<String>> {
        match v {
            Verdict::Scored { value, .. } => tags_of(value),
            Verdict::Unscored { .. } => None,
        }
    }

    #[test]
    fn tag_lists_are_read_strictly() {
        let t = tags();
        let ok = |a: &str| value(&read_tags(a, &t));
        assert_eq!(
            ok(r#"{"tags": ["credit_risk", "Liquidity_Risk", "credit_risk"]}"#),
            Some(vec!["credit_risk".into(), "liquidity_risk".into()])
        );
        assert_eq!(ok("Checked.\nTAGS: []"), Some(vec![]));
        assert_eq!(
            ok("reasons\n**TAGS:** [\"信息依据\"]"),
            Some(vec!["信息依据".into()])
        );
        assert_eq!(
            ok("```json\n{\"tags\": [\"credit_risk\"], \"why\": \"x\"}\n```"),
            Some(vec!["credit_risk".into()])
        );
        for bad in [
            r#"{"tags": ["credit_risk", "fx_risk"]}"#,
            r#"{"tags": "credit_risk"}"#,
            r#"{"tags": [1]}"#,
            "TAGS: credit_risk, liquidity_risk",
            "The answer mentions credit risk.",
            r#"["credit_risk"]"#,
        ] {
            assert_eq!(ok(bad), None, "{bad}");
        }
        assert!(matches!(
            read(r#"{"tags": ["credit_risk"]}"#, &Scale::Tags(t.clone())),
            Verdict::Scored {
                from: ReadFrom::Json,
                ..
            }
        ));
    }
}
