//! One big array of a JSON document read an element at a time (a promptfoo
//! file's `results.results`, an Inspect log's `samples`), so a 200,000-sample
//! file is never one tree: the array is found by a scan that skips strings
//! and counts nesting, each element is parsed on its own, and the rest of
//! the document is parsed with the array emptied.

use serde_json::Value;

/// Where the array at `path` (keys from the top) opens: the index of its
/// `[`; `None` when the document has no array there.
pub(super) fn find_array(text: &str, path: &[&str]) -> Option<usize> {
    let b = text.as_bytes();
    // The key each open object is at, outermost first.
    let mut keys: Vec<Option<String>> = Vec::new();
    let mut last_key: Option<String> = None;
    let mut i = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let s = text.get(start..i.min(b.len()))?;
                // A string followed by ':' is a key.
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                last_key = (b.get(j) == Some(&b':')).then(|| s.to_string());
            }
            b'{' | b'[' => {
                let here = last_key.take();
                if let (b'[', Some(k)) = (b[i], &here) {
                    let inner = keys.get(1..).unwrap_or(&[]);
                    let named = inner.iter().all(Option::is_some);
                    let at = inner
                        .iter()
                        .map(|k| k.as_deref().unwrap_or(""))
                        .chain([k.as_str()]);
                    if named && !keys.is_empty() && at.eq(path.iter().copied()) {
                        return Some(i);
                    }
                }
                keys.push(here);
            }
            b'}' | b']' => {
                keys.pop();
                last_key = None;
            }
            b',' => last_key = None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The elements of the array opening at `open`, read one at a time.
pub(super) struct Elements<'a> {
    text: &'a str,
    pub open: usize,
    pub pos: usize,
    /// The index of the next element.
    pub index: usize,
    /// Where the array's `]` is, once found.
    pub close: Option<usize>,
}

impl<'a> Elements<'a> {
    pub fn new(text: &'a str, open: usize) -> Elements<'a> {
        Elements {
            text,
            open,
            pos: open + 1,
            index: 0,
            close: None,
        }
    }

    /// The next element: `None` at the `]` (or the end of a cut-off text),
    /// `Some(Err(..))` for an element that cannot be parsed (the reading
    /// stops there: a damaged element leaves no sure place to go on from).
    pub fn next_value(&mut self) -> Option<Result<Value, String>> {
        if self.close.is_some() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let skip = rest
            .find(|c: char| !(c.is_ascii_whitespace() || c == ','))
            .unwrap_or(rest.len());
        self.pos += skip;
        let rest = &self.text[self.pos..];
        if rest.is_empty() {
            self.close = Some(self.text.len());
            return Some(Err("the file ends inside the array (it is cut off)".into()));
        }
        if rest.starts_with(']') {
            self.close = Some(self.pos);
            return None;
        }
        let mut it = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match it.next() {
            Some(Ok(v)) => {
                self.pos += it.byte_offset();
                self.index += 1;
                Some(Ok(v))
            }
            Some(Err(e)) => {
                self.close = Some(self.text.len());
                Some(Err(e.to_string()))
            }
            None => {
                self.close = Some(self.text.len());
                None
            }
        }
    }

    /// The document with the array emptied (what is left once every element
    /// is read), parsed; a cut-off document gives its error.
    pub fn rest(&self) -> Result<Value, String> {
        let close = self.close.unwrap_or(self.text.len());
        let after = self.text.get(close + 1..).unwrap_or("");
        let doc = format!("{}[]{}", &self.text[..self.open], after);
        serde_json::from_str(&doc).map_err(|e| e.to_string())
    }
}

/// Each non-blank line of a JSONL file, numbered from 1, parsed as JSON or
/// the reason it could not be (lines split as the datasets' own reader splits
/// them: LF or CRLF, byte order marks dropped).
pub(super) fn json_lines(
    bytes: &[u8],
) -> impl Iterator<Item = (usize, Result<Value, String>)> + '_ {
    crate::dataset::numbered_lines(bytes)
        .filter(|(_, text)| !matches!(text, Ok(t) if t.trim().is_empty()))
        .map(|(n, text)| {
            let v = text.and_then(|t| serde_json::from_str(t).map_err(|e| e.to_string()));
            (n, v)
        })
}

/// The line of `text` a byte offset is on (1-based).
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_nested_array_and_skips_lookalikes() {
        let t = r#"{"a": {"results": "x"}, "results": {"note": "\"results\": [", "results": [{"b": [1]}, 2, [3]], "after": 1}}"#;
        let open = find_array(t, &["results", "results"]).unwrap();
        let mut e = Elements::new(t, open);
        let mut got = Vec::new();
        while let Some(v) = e.next_value() {
            got.push(v.unwrap());
        }
        assert_eq!(got.len(), 3);
        assert_eq!(got[0]["b"][0], 1);
        let rest = e.rest().unwrap();
        assert_eq!(rest["results"]["results"], serde_json::json!([]));
        assert_eq!(rest["results"]["after"], 1);
        assert_eq!(find_array(t, &["a", "results"]), None);
        assert_eq!(find_array(t, &["results"]), None);
    }

    #[test]
    fn a_cut_off_array_keeps_what_came_before() {
        let t = r#"{"samples": [{"id": 1}, {"id": 2}, {"id": "#;
        let mut e = Elements::new(t, find_array(t, &["samples"]).unwrap());
        assert_eq!(e.next_value().unwrap().unwrap()["id"], 1);
        assert_eq!(e.next_value().unwrap().unwrap()["id"], 2);
        assert!(e.next_value().unwrap().is_err());
        assert!(e.next_value().is_none());
        assert!(e.rest().is_err());
    }
}
