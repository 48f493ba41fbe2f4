//! What is kept of a run in this browser's IndexedDB so that it can be
//! resumed after a reload: one record shape for every mode, its identity and
//! progress, and the inputs of its mode, tagged by the mode. Each mode owns
//! its inputs' type ([`ModeInputs`]: `rag::state::RagInputs`,
//! `task::state::stored::TaskInputs`, `retrieval::state::RetrievalInputs`,
//! `dialog::state::DialogInputs`); this file knows none of them. Never an API
//! key. Pure data; the effects that read and write it are `effects::idb` and
//! `effects::runner`.

use super::shell::Mode;
use serde::{Deserialize, Serialize};

/// A run as kept in IndexedDB (the `runs` store, keyed by run id).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    /// Run id (kept when the run is resumed).
    pub run_id: String,
    /// Start time, ms (kept when resumed: it also seeds the retry jitter).
    pub started_at_ms: u64,
    /// `running`, `done` or `cancelled`.
    pub status: String,
    /// Dataset file name as the run reads it.
    pub dataset_name: String,
    /// Interface language code (and of `report.md`).
    pub lang: String,
    /// Jobs: cases (RAG) or samples × models (task).
    pub total: usize,
    /// The mode's inputs.
    pub inputs: StoredInputs,
    /// What the resume offer names of the run besides its id, as the mode
    /// wrote it (the task and its models, the dialog model); empty in a
    /// record written before it was kept, which then names its dataset.
    #[serde(default)]
    pub shown: String,
    /// The origins its requests go to, as the mode read them from its
    /// inputs when the run started (the resume offer names them).
    #[serde(default)]
    pub origins: Vec<String>,
}

impl StoredRun {
    /// The run's mode; `None` for a record of a mode this page does not have.
    pub fn mode(&self) -> Option<Mode> {
        self.inputs.mode()
    }
}

/// A mode's inputs as kept in a run's record: each mode reads and writes its
/// own (`ModeInputs`), so the other modes' bundles carry no reader of them.
pub trait ModeInputs: Serialize + serde::de::DeserializeOwned {
    /// The mode whose inputs these are.
    const MODE: Mode;
}

/// What a run is made of: its mode's inputs, as JSON with a `"mode"` tag
/// (`"rag"`, `"task"`, `"retrieval"`, `"dialog"`) that names the mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StoredInputs(serde_json::Value);

impl StoredInputs {
    /// The record of `inputs`, tagged with their mode.
    pub fn of<I: ModeInputs>(inputs: &I) -> StoredInputs {
        // The inputs are plain structs with string keys: they always turn
        // into a JSON object.
        let mut value = serde_json::to_value(inputs).unwrap_or_default();
        if let Some(o) = value.as_object_mut() {
            o.insert("mode".into(), I::MODE.code().into());
        }
        StoredInputs(value)
    }

    /// The mode named by the tag.
    pub fn mode(&self) -> Option<Mode> {
        Mode::parse(self.0.get("mode")?.as_str()?)
    }

    /// The inputs, when they are `I`'s mode's and read as such.
    pub fn read<I: ModeInputs>(&self) -> Option<I> {
        if self.mode() != Some(I::MODE) {
            return None;
        }
        serde_json::from_value(self.0.clone()).ok()
    }
}

/// A file's content: text when it is UTF-8 (the usual case, compact in
/// storage), else its bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredBytes {
    /// UTF-8 text.
    Text(String),
    /// Anything else, byte by byte.
    Bytes(Vec<u8>),
}

impl StoredBytes {
    /// Keeps `bytes` as text when they are UTF-8.
    pub fn of(bytes: &[u8]) -> StoredBytes {
        match std::str::from_utf8(bytes) {
            Ok(t) => StoredBytes::Text(t.to_string()),
            Err(_) => StoredBytes::Bytes(bytes.to_vec()),
        }
    }

    /// The bytes as loaded.
    pub fn bytes(&self) -> &[u8] {
        match self {
            StoredBytes::Text(t) => t.as_bytes(),
            StoredBytes::Bytes(b) => b,
        }
    }
}

/// A file the user loaded: its name and content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredFile {
    /// File name.
    pub name: String,
    /// Content.
    pub content: StoredBytes,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_content_is_text_when_it_can_be() {
        assert_eq!(StoredBytes::of(b"ab"), StoredBytes::Text("ab".into()));
        let odd = StoredBytes::of(&[0xff, 0x00]);
        assert_eq!(odd.bytes(), &[0xff, 0x00]);
        let json = serde_json::to_string(&odd).expect("json");
        let back: StoredBytes = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, odd);
    }
}
