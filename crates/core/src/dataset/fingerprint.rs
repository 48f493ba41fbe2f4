//! `dataset_fingerprint.json`: which bytes were evaluated.
//!
//! `sha256` is the hex SHA-256 of the dataset file's bytes exactly as read
//! (what `sha256sum FILE` prints); `sample_count` counts the valid samples;
//! `line_errors` the skipped lines; `field_inventory` maps each top-level key
//! of the valid samples' lines, as written in the file, to the number of
//! samples that have it (derived fields such as spec 003's `length_bucket` are
//! not counted).

use super::numbered_lines;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// The fingerprint of a dataset file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    /// The file as given.
    pub file: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    /// Valid samples.
    pub sample_count: usize,
    /// Skipped lines.
    pub line_errors: usize,
    /// Top-level key -> samples that have it.
    pub field_inventory: BTreeMap<String, usize>,
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256Parts::default();
    h.update(bytes);
    h.hex()
}

/// The SHA-256 of data given in parts (a file read a chunk at a time, never
/// whole in memory): the one SHA-256 of the CLI and the page.
#[derive(Clone, Default)]
pub struct Sha256Parts(Sha256);

impl Sha256Parts {
    /// Adds the next part.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The hash of every part given, as lowercase hex.
    pub fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Fingerprints `bytes`; `sample_lines` are the 1-based lines that gave a valid sample.
pub fn fingerprint(
    file: &str,
    bytes: &[u8],
    sample_lines: &[usize],
    line_errors: usize,
) -> Fingerprint {
    let wanted: BTreeSet<usize> = sample_lines.iter().copied().collect();
    let mut inventory: BTreeMap<String, usize> = BTreeMap::new();
    for (line, text) in numbered_lines(bytes) {
        let Ok(text) = text else { continue };
        if !wanted.contains(&line) {
            continue;
        }
        if let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text.trim()) {
            for k in obj.keys() {
                *inventory.entry(k.clone()).or_default() += 1;
            }
        }
    }
    Fingerprint {
        file: file.to_string(),
        bytes: bytes.len(),
        sha256: sha256_hex(bytes),
        sample_count: sample_lines.len(),
        line_errors,
        field_inventory: inventory,
    }
}

/// The hash an input is paired by when two runs' ids differ (runs of two
/// tools, `compare`): SHA-256 of its text with its whitespace runs made one
/// space and its ends trimmed (a chat input is its last user message).
pub fn input_hash(text: &str) -> String {
    let norm = text.split_whitespace().collect::<Vec<_>>().join(" ");
    sha256_hex(norm.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest_and_inventory_of_valid_lines_only() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let text = b"{\"a\":1,\"b\":2}\nbad\n\n{\"a\":3}\n";
        let f = fingerprint("d.jsonl", text, &[1, 4], 1);
        assert_eq!(f.field_inventory.get("a"), Some(&2));
        assert_eq!(f.field_inventory.get("b"), Some(&1));
        assert_eq!((f.sample_count, f.line_errors, f.bytes), (2, 1, text.len()));
    }
}
