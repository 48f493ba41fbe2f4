//! Writers for JSONL (one record per line) and RFC 7464 json-seq (RS, JSON text, LF).

use super::Record;
use std::io::{self, Write};

/// The RFC 7464 record separator.
pub const RS: u8 = 0x1E;

/// One record as a JSONL line, ending in `\n`.
pub fn to_jsonl(record: &Record) -> String {
    let mut line = serde_json::to_string(record).unwrap_or_else(|_| "{}".into());
    line.push('\n');
    line
}

/// One record as an RFC 7464 text: RS, JSON, LF.
pub fn to_json_seq(record: &Record) -> String {
    format!("\u{1e}{}", to_jsonl(record))
}

/// Appends a record as JSONL.
pub fn write_jsonl<W: Write>(out: &mut W, record: &Record) -> io::Result<()> {
    out.write_all(to_jsonl(record).as_bytes())
}

/// Appends a record as json-seq.
pub fn write_json_seq<W: Write>(out: &mut W, record: &Record) -> io::Result<()> {
    out.write_all(&[RS])?;
    write_jsonl(out, record)
}
