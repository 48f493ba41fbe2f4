//! Dataset readers. One file per format; each returns the valid records plus a
//! line-numbered error for every record it had to skip, so nothing valid is lost.

pub mod rag;

use serde::Serialize;
use std::fmt;

/// One line of a dataset that could not be used, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Splits raw bytes into numbered lines: strips a leading UTF-8 BOM, accepts LF
/// and CRLF, and yields each line as text or as the reason it is not UTF-8.
pub fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<&str, String>)> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    body.split(|b| *b == b'\n')
        .filter(move |_| !empty)
        .enumerate()
        .map(|(i, raw)| {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let text = std::str::from_utf8(raw).map_err(|e| {
                format!(
                    "not valid UTF-8 (bad byte at column {})",
                    e.valid_up_to() + 1
                )
            });
            (i + 1, text)
        })
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
}
