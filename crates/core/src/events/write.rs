//! Writers for JSONL (one record per line) and RFC 7464 json-seq (RS, JSON text, LF).

use serde::Serialize;
use std::io::{self, Write};

/// The RFC 7464 record separator.
pub const RS: u8 = 0x1E;

/// One record (a RAG [`super::Record`] or a task run's record) as a JSONL line, ending in `\n`.
pub fn to_jsonl<R: Serialize>(record: &R) -> String {
    let mut line = serde_json::to_string(record).unwrap_or_else(|_| "{}".into());
    line.push('\n');
    line
}

/// One record as an RFC 7464 text: RS, JSON, LF.
pub fn to_json_seq<R: Serialize>(record: &R) -> String {
    format!("\u{1e}{}", to_jsonl(record))
}

/// A JSONL log (as `to_jsonl` writes it) rewritten as RFC 7464 json-seq, so a
/// shell that keeps one copy of the log can offer both downloads.
pub fn jsonl_to_json_seq(jsonl: &str) -> String {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("\u{1e}{l}\n"))
        .collect()
}

/// Appends a record as JSONL.
pub fn write_jsonl<W: Write, R: Serialize>(out: &mut W, record: &R) -> io::Result<()> {
    out.write_all(to_jsonl(record).as_bytes())
}

/// Appends a record as json-seq.
pub fn write_json_seq<W: Write, R: Serialize>(out: &mut W, record: &R) -> io::Result<()> {
    out.write_all(&[RS])?;
    write_jsonl(out, record)
}

#[cfg(test)]
mod tests {
    use super::super::Record;
    use super::*;

    #[test]
    fn jsonl_log_converts_to_the_same_json_seq() {
        let records = [
            Record::error("r", "first", 1),
            Record::error("r", "second\nline", 2),
        ];
        let jsonl: String = records.iter().map(to_jsonl).collect();
        let seq: String = records.iter().map(to_json_seq).collect();
        assert_eq!(jsonl_to_json_seq(&jsonl), seq);
    }
}
