//! Dataset readers. One file per format; each returns the valid records plus a
//! line-numbered error for every record it had to skip, so nothing valid is lost.

pub mod evals;
pub mod fingerprint;
pub(crate) mod jsonl;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod rag;
pub mod sample;
pub mod spec003;

use crate::position::{KeyError, PathLabel, Position};
use serde::Serialize;
use std::fmt;

/// One line of a dataset that could not be used, and why: a row of the report's
/// `line_errors`, whose flat shape (`file`, `line`, `field`, `message`) the
/// report keeps; [`LineError::position`] gives its [`Position`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LineError {
    /// File name as the user gave it.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// The field at fault, when one is.
    pub field: Option<String>,
    /// What was wrong and what was expected.
    pub message: String,
}

impl LineError {
    /// The problem `e` with the record on `line` of `file`; `e`'s key is the field.
    pub fn new(file: &str, line: usize, e: KeyError) -> LineError {
        LineError {
            file: file.to_string(),
            line,
            field: e.key().map(str::to_string),
            message: e.message,
        }
    }

    /// Where the line is, as every input error says it (`file:line: field `gold`: `).
    pub fn position(&self) -> Position {
        let at = Position::new(&self.file, Some(self.line));
        match &self.field {
            Some(field) => at.with_path(field, PathLabel::Field),
            None => at,
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.position(), self.message)
    }
}

/// Splits raw bytes into numbered lines and yields each line as text or as the
/// reason it is not UTF-8.
///
/// Lines end in LF or CRLF. A file with no LF at all but with CRs (old Mac
/// line endings) is split on CR, so its records are not glued into one line. A
/// UTF-8 byte order mark is stripped at the start of the file and at the start of
/// any line: a BOM in the middle of a file comes from concatenating files saved
/// with one (`cat a.jsonl b.jsonl`) and carries no meaning.
pub fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<&str, String>)> {
    let bytes = strip_bom(bytes);
    let cr_only = !bytes.contains(&b'\n') && bytes.contains(&b'\r');
    let sep = if cr_only { b'\r' } else { b'\n' };
    let body = bytes.strip_suffix(&[sep]).unwrap_or(bytes);
    let empty = bytes.is_empty();
    body.split(move |b| *b == sep)
        .filter(move |_| !empty)
        .enumerate()
        .map(|(i, raw)| {
            let raw = strip_bom(raw.strip_suffix(b"\r").unwrap_or(raw));
            let text = std::str::from_utf8(raw).map_err(|e| {
                let column = String::from_utf8_lossy(&raw[..e.valid_up_to()])
                    .chars()
                    .count();
                format!(
                    "not valid UTF-8 (bad byte at column {}); save the file as UTF-8",
                    column + 1
                )
            });
            (i + 1, text)
        })
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A short name for a JSON value's type, for error messages (it lives in the base
/// layer, `json_path`, so that schema and provider need not import dataset).
pub use crate::json_path::kind;

/// A JSON syntax error placed in the text the user sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JsonErrorAt {
    /// serde_json's message without its own position, plus a hint for common causes.
    pub message: String,
    /// 1-based line within the text.
    pub line: usize,
    /// 1-based column, counted in characters as editors count them.
    pub column: usize,
}

/// The file name of a path in a folder or a zip (`run/turn_eval.jsonl`,
/// `C:\runs\report.json`), without its folders.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Places `e`, raised while parsing `text[offset..]`, in `text`. serde_json counts
/// columns in bytes from the start of what it was given; a reader that trimmed the
/// text or holds CJK text would otherwise report a column the user cannot find.
pub(crate) fn json_error_at(text: &str, offset: usize, e: &serde_json::Error) -> JsonErrorAt {
    let shown = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let mut message = shown.strip_suffix(&suffix).unwrap_or(&shown).to_string();
    if message == "trailing characters" {
        message.push_str(" after the JSON value (expected exactly one JSON value)");
    } else if message == "recursion limit exceeded" {
        message.push_str(" (nested more than 128 levels deep)");
    } else if message.contains("surrogate") || message == "unexpected end of hex escape" {
        message
            .push_str(" (a \\uD800-\\uDBFF escape must be followed by a \\uDC00-\\uDFFF escape)");
    }
    let parsed = text.get(offset..).unwrap_or("");
    let line_start: usize = parsed
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (offset + line_start + e.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let last_line = before.rsplit('\n').next().unwrap_or(before);
    JsonErrorAt {
        message,
        line: before.matches('\n').count() + 1,
        column: last_line.chars().count() + 1,
    }
}

/// Whether `bytes` are a Parquet file (its magic at both ends): the shells
/// turn such a dataset into JSONL first (`dataset::parquet`, feature
/// `parquet`).
pub fn is_parquet(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_with_bom_crlf_and_bad_utf8() {
        let input = b"\xEF\xBB\xBFa\r\n\xFF\n\nb";
        let lines: Vec<_> = numbered_lines(input).collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], (1, Ok("a")));
        assert!(lines[1].1.is_err());
        assert_eq!(lines[2], (3, Ok("")));
        assert_eq!(lines[3], (4, Ok("b")));
        assert_eq!(numbered_lines(b"").count(), 0);
    }

    #[test]
    fn cr_only_files_are_split_on_cr() {
        let lines: Vec<_> = numbered_lines(b"a\rb\r\rc\r").collect();
        assert_eq!(
            lines,
            vec![(1, Ok("a")), (2, Ok("b")), (3, Ok("")), (4, Ok("c"))]
        );
        // with any LF in the file, a lone CR stays part of its line
        let lines: Vec<_> = numbered_lines(b"a\rb\nc").collect();
        assert_eq!(lines, vec![(1, Ok("a\rb")), (2, Ok("c"))]);
    }

    #[test]
    fn bom_at_the_start_of_a_later_line_is_stripped() {
        let lines: Vec<_> = numbered_lines(b"a\n\xEF\xBB\xBFb\r\nc\xEF\xBB\xBF").collect();
        assert_eq!(lines[1], (2, Ok("b")));
        assert_eq!(lines[2], (3, Ok("c\u{feff}")));
    }

    #[test]
    fn utf8_error_column_counts_characters() {
        let bad = ["准确".as_bytes(), b"\xFF"].concat();
        let (_, err) = numbered_lines(&bad).next().expect("one line");
        assert!(err.expect_err("bad").contains("column 3"));
    }

    #[test]
    fn json_errors_are_placed_in_characters_of_the_untrimmed_text() {
        let text = "  {\"q\":\"准确率\" x}";
        let e = serde_json::from_str::<serde_json::Value>(text.trim()).expect_err("bad");
        let at = json_error_at(text, 2, &e);
        assert_eq!((at.line, at.column), (1, 14));
        assert_eq!(text.chars().nth(13), Some('x'));
        assert!(!at.message.contains("line 1"), "{}", at.message);
        let text = "{\n  \"a\": x\n}";
        let e = serde_json::from_str::<serde_json::Value>(text).expect_err("bad");
        let at = json_error_at(text, 0, &e);
        assert_eq!((at.line, at.column), (2, 8));
        let e = serde_json::from_str::<serde_json::Value>("{} {}").expect_err("bad");
        assert!(json_error_at("{} {}", 0, &e)
            .message
            .contains("exactly one JSON value"));
    }
}
