//! A tolerant reader for event logs in either format.
//!
//! A half-written last record (a process killed mid-write) is ignored and
//! flagged as `truncated_tail`; a broken record elsewhere, or a last record that
//! is complete but wrong (not JSON, not an object), is skipped and listed with its
//! position; everything parseable is kept. A leading UTF-8 BOM is ignored. A
//! json-seq log that ends in a bare RS also counts as cut: the writer sends RS
//! first, so a process killed before the record's body leaves exactly that.

use crate::dataset::{json_error_at, kind};
use serde::Serialize;
use serde_json::Value;

/// Which format the bytes were in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LogFormat {
    /// RFC 7464 json-seq (starts with RS).
    JsonSeq,
    /// One JSON object per line.
    Jsonl,
}

/// A record that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// 1-based record number (json-seq) or line number (JSONL).
    pub position: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// What a log held.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReadLog {
    /// Detected format.
    pub format: LogFormat,
    /// Every readable record, in order.
    pub records: Vec<Value>,
    /// Broken records before the last one.
    pub skipped: Vec<Skipped>,
    /// True when the last record was cut off and ignored.
    pub truncated_tail: bool,
}

impl ReadLog {
    /// Records with this `record_type`.
    pub fn of_type<'a>(&'a self, record_type: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.records
            .iter()
            .filter(move |r| r.get("record_type").and_then(Value::as_str) == Some(record_type))
    }
}

/// Reads a log, detecting the format from its first non-blank byte.
pub fn read(bytes: &[u8]) -> ReadLog {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let format = if first == Some(&super::RS) {
        LogFormat::JsonSeq
    } else {
        LogFormat::Jsonl
    };
    let chunks: Vec<(usize, &[u8])> = match format {
        LogFormat::JsonSeq => bytes
            .split(|b| *b == super::RS)
            .skip(1)
            .enumerate()
            .map(|(i, c)| (i + 1, c))
            .collect(),
        LogFormat::Jsonl => bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .map(|(i, c)| (i + 1, c))
            .collect(),
    };
    let last_nonblank = chunks.iter().rposition(|(_, c)| !is_blank(c));
    let mut log = ReadLog {
        format,
        records: Vec::new(),
        skipped: Vec::new(),
        truncated_tail: false,
    };
    for (i, (position, chunk)) in chunks.iter().enumerate() {
        if is_blank(chunk) {
            continue;
        }
        match parse_record(chunk) {
            Ok(v) => log.records.push(v),
            Err(Bad::Cut(_)) if Some(i) == last_nonblank => log.truncated_tail = true,
            Err(Bad::Cut(reason) | Bad::Wrong(reason)) => log.skipped.push(Skipped {
                position: *position,
                reason,
            }),
        }
    }
    if format == LogFormat::JsonSeq && bytes.last() == Some(&super::RS) {
        log.truncated_tail = true;
    }
    log
}

fn is_blank(chunk: &[u8]) -> bool {
    chunk.iter().all(u8::is_ascii_whitespace)
}

/// Why a record could not be read: it ends early (what a killed writer leaves
/// behind), or it is complete but wrong.
enum Bad {
    Cut(String),
    Wrong(String),
}

fn parse_record(chunk: &[u8]) -> Result<Value, Bad> {
    let text = std::str::from_utf8(chunk).map_err(|e| {
        let reason = format!("not valid UTF-8: {e}");
        // `error_len() == None`: the bytes end inside a character
        if e.error_len().is_none() {
            Bad::Cut(reason)
        } else {
            Bad::Wrong(reason)
        }
    })?;
    let trimmed = text.trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(v) => Err(Bad::Wrong(format!(
            "expected a JSON object, found {}",
            kind(&v)
        ))),
        Err(e) => {
            let at = json_error_at(text, text.len() - text.trim_start().len(), &e);
            let place = if at.line > 1 {
                format!("line {} column {} of the record", at.line, at.column)
            } else {
                format!("column {}", at.column)
            };
            let reason = format!("not valid JSON at {place}: {}", at.message);
            Err(if e.is_eof() {
                Bad::Cut(reason)
            } else {
                Bad::Wrong(reason)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_seq_with_cut_tail() {
        let bytes =
            b"\x1e{\"record_type\":\"meta\"}\n\x1e{\"record_type\":\"case\"}\n\x1e{\"record_ty";
        let log = read(bytes);
        assert_eq!(log.format, LogFormat::JsonSeq);
        assert_eq!(log.records.len(), 2);
        assert!(log.truncated_tail);
        assert!(log.skipped.is_empty());
    }

    #[test]
    fn jsonl_with_broken_middle_line() {
        let bytes = b"{\"record_type\":\"meta\"}\nnope\n\n{\"record_type\":\"summary\"}\n";
        let log = read(bytes);
        assert_eq!(log.format, LogFormat::Jsonl);
        assert_eq!(log.records.len(), 2);
        assert_eq!(
            log.skipped,
            vec![Skipped {
                position: 2,
                reason: log.skipped[0].reason.clone()
            }]
        );
        assert!(!log.truncated_tail);
        assert_eq!(log.of_type("summary").count(), 1);
    }

    #[test]
    fn regression_complete_but_wrong_last_record_is_skipped_not_called_cut() {
        // before: any error on the last record set `truncated_tail` ("cut off")
        let log = read(b"{\"record_type\":\"meta\"}\nhello\n");
        assert!(!log.truncated_tail);
        assert_eq!(log.skipped.len(), 1);
        assert_eq!(log.skipped[0].position, 2);
        assert!(log.skipped[0]
            .reason
            .starts_with("not valid JSON at column 1"));
        let log = read(b"\x1e{\"record_type\":\"meta\"}\n\x1e[1,2]\n");
        assert!(!log.truncated_tail);
        assert_eq!(
            log.skipped[0].reason,
            "expected a JSON object, found an array"
        );
        // a record cut inside a multi-byte character is still a cut tail
        let log = read(
            "{\"a\":1}\n{\"q\":\"准"
                .as_bytes()
                .split_last()
                .expect("bytes")
                .1,
        );
        assert!(log.truncated_tail && log.skipped.is_empty());
    }

    #[test]
    fn regression_bom_before_json_seq_keeps_the_format() {
        let log = read(b"\xEF\xBB\xBF\x1e{\"record_type\":\"meta\"}\n");
        assert_eq!(log.format, LogFormat::JsonSeq);
        assert_eq!(log.records.len(), 1);
    }

    #[test]
    fn json_errors_name_the_column_in_the_line_or_record() {
        let log = read("{}\n  {\"准\": x}\n{}".as_bytes());
        assert_eq!(
            log.skipped[0].reason,
            "not valid JSON at column 9: expected value"
        );
        let log = read(b"\x1e{\n \"a\": x\n}\n\x1e{}\n");
        assert!(log.skipped[0]
            .reason
            .contains("line 2 column 7 of the record"));
    }

    #[test]
    fn regression_json_seq_ending_in_a_bare_rs_is_a_cut_tail() {
        let log = read(b"\x1e{\"record_type\":\"meta\"}\n\x1e");
        assert_eq!(log.records.len(), 1);
        assert!(log.truncated_tail && log.skipped.is_empty());
        assert!(!read(b"\x1e{}\n").truncated_tail);
    }

    #[test]
    fn empty_input_reads_nothing() {
        let log = read(b"");
        assert!(log.records.is_empty() && !log.truncated_tail);
    }
}
