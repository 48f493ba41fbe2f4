//! A tolerant reader for event logs in either format.
//!
//! A half-written last record (a process killed mid-write) is ignored and
//! flagged as `truncated_tail`; a broken record elsewhere is skipped and listed
//! with its position; everything parseable is kept.

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
            Err(_) if Some(i) == last_nonblank => log.truncated_tail = true,
            Err(reason) => log.skipped.push(Skipped {
                position: *position,
                reason,
            }),
        }
    }
    log
}

fn is_blank(chunk: &[u8]) -> bool {
    chunk.iter().all(u8::is_ascii_whitespace)
}

fn parse_record(chunk: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(chunk).map_err(|e| format!("not valid UTF-8: {e}"))?;
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err("expected a JSON object".into()),
        Err(e) => Err(format!("not valid JSON: {e}")),
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
    fn empty_input_reads_nothing() {
        let log = read(b"");
        assert!(log.records.is_empty() && !log.truncated_tail);
    }
}
