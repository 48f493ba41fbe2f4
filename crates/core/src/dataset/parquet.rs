//! Hugging Face datasets' Parquet files (what `datasets` writes with
//! `to_parquet`, and the Hub's `refs/convert/parquet` files) as spec 004
//! samples: one JSON object per row, with the row's columns as its fields,
//! for the same reader as a JSONL dataset (issue 32). A row's id is its
//! `sample_id`, else its `id` (as text), else `<file stem>.<row index>`
//! (0-based); a row shaped as the OpenAI Evals samples (`input`, `ideal`) is
//! left for that reader, which names it the same way. Behind the `parquet`
//! feature: the CLI has it, and the page loads it only when a Parquet file
//! is opened (the task bin's split point `parquet`).

use serde_json::{json, Value};

/// The rows of a Parquet file as JSONL; the error names the file and the
/// row that could not be read.
pub fn to_jsonl(name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let stem = crate::dataset::file_name(name)
        .trim_end_matches(".parquet")
        .to_string();
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes))
        .map_err(|e| format!("{name}: not a Parquet file this reads ({e})"))?;
    let rows = reader
        .get_row_iter(None)
        .map_err(|e| format!("{name}: its rows cannot be read ({e})"))?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| {
            format!("{name}: row {} cannot be read ({e}); a codec this build does not have? (it reads uncompressed, snappy, gzip, lz4 and, in the CLI, zstd)", i + 1)
        })?;
        let mut v = row.to_json_value();
        if let Value::Object(m) = &mut v {
            let evals = m.contains_key("input") && m.contains_key("ideal");
            if !m.contains_key("sample_id") && !evals {
                let id = match m.get("id") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => format!("{stem}.{i}"),
                };
                m.insert("sample_id".into(), json!(id));
            }
        }
        serde_json::to_writer(&mut out, &v).map_err(|e| format!("{name}: row {}: {e}", i + 1))?;
        out.push(b'\n');
    }
    Ok(out)
}
