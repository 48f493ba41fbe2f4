//! What is kept of a run in this browser's IndexedDB so that it can be
//! resumed after a reload: one record shape for both modes, its identity and
//! progress, and the inputs of its mode (the RAG check's dataset text and
//! settings; a task run's task and template YAML, dataset and
//! `metadata.json` files, registry text, chosen models and scheduling).
//! Never an API key: `ModelSettings` does not serialize it and task keys live
//! only in `TaskState::keys`, which has no `Serialize`. Pure data; the effects
//! that read and write it are `effects::idb` and `effects::runner`.

use super::settings::ModelSettings;
use super::shell::Mode;
use crate::task::state::models::TaskRunSettings;
use evalpage_core::task::ModelEntry;
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

impl ModeInputs for RagInputs {
    const MODE: Mode = Mode::Rag;
}

impl ModeInputs for TaskInputs {
    const MODE: Mode = Mode::Task;
}

impl ModeInputs for RetrievalInputs {
    const MODE: Mode = Mode::Retrieval;
}

impl ModeInputs for DialogInputs {
    const MODE: Mode = Mode::Dialog;
}

/// The inputs of a retrieval evaluation (never a key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrievalInputs {
    /// The cases file.
    pub cases: StoredFile,
    /// Endpoint URL (empty: the demo retriever).
    pub url: String,
    /// Request body template.
    pub body: String,
    /// Path of the ranked list in the answer.
    pub path: String,
    /// The cut-off.
    pub k: usize,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// The answer policy.
    #[serde(default)]
    pub limits: super::limits::Limits,
}

/// The inputs of a dialog run (never a key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DialogInputs {
    /// The dialogs file.
    pub dialogs: StoredFile,
    /// Endpoint base URL (empty: the dialog mock).
    pub url: String,
    /// Model name.
    pub model: String,
    /// The judge choice (`none`, `mock`, `endpoint`).
    pub judge: String,
    /// Dialogs in progress at most.
    pub concurrency: usize,
    /// The most tokens of each answer (the model's, and the judge's when it
    /// is the endpoint or the file): none, the model's own bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// M1 from the conversation sent (no recall trace).
    #[serde(default)]
    pub m1_from_conversation: bool,
    /// The answer policy, the price and the cap.
    #[serde(default)]
    pub limits: super::limits::Limits,
    /// The turns are answered by the model file on this device.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_file: bool,
    /// The model file the run asks (to answer the turns, or as the judge):
    /// a resume runs only with the very same file (by SHA-256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_model: Option<crate::state::local::LocalRef>,
}

/// The inputs of a RAG check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RagInputs {
    /// Dataset text, to rebuild the cases on resume.
    pub dataset_text: String,
    /// Settings of the run (never the key).
    pub settings: ModelSettings,
    /// The model file on this device the run asks, when it asks one: a
    /// resume runs only with the very same file (by SHA-256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_model: Option<crate::state::local::LocalRef>,
}

/// The inputs of a task run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskInputs {
    /// Task and template.
    pub task: StoredTask,
    /// The loaded dataset file; `None` for the built-in demo of the task's format.
    pub dataset: Option<StoredFile>,
    /// The `metadata.json`, if one was loaded.
    pub metadata: Option<StoredFile>,
    /// The registry text and its file name (empty when none was given).
    pub registry: StoredFile,
    /// The ticked models, in run order.
    pub models: Vec<StoredModel>,
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// The judge of `llm_judge` metrics (`mock` or a model of the list).
    #[serde(default)]
    pub judge: Option<String>,
}

impl TaskInputs {
    /// Names of the models, comma-separated.
    pub fn model_names(&self) -> String {
        let names: Vec<&str> = self.models.iter().map(|m| m.name.as_str()).collect();
        names.join(", ")
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

/// The task as edited.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredTask {
    /// The task's `name` (for the resume offer).
    pub name: String,
    /// The preset it came from, if it was not loaded from a file.
    pub preset: Option<String>,
    /// File name of the task text.
    pub file: String,
    /// The task YAML.
    pub text: String,
    /// File name of the template text.
    pub template_file: String,
    /// The template YAML (empty for a built-in template).
    pub template_text: String,
}

/// One model of a task run: its name and, for an endpoint model, its
/// registry entry (which names the key's variable, never the key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredModel {
    /// Name in reports.
    pub name: String,
    /// The registry entry; `None` for a built-in mock model.
    pub entry: Option<ModelEntry>,
    /// For a model added with the endpoint form: the origin of its base URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_origin: Option<String>,
    /// A key was sent to it (never the key itself): resuming asks for it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keyed: bool,
    /// For the model file on this device: which file (resuming asks for it
    /// and refuses another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<crate::state::local::LocalRef>,
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

    fn rag() -> StoredRun {
        StoredRun {
            run_id: "r".into(),
            started_at_ms: 1,
            status: "running".into(),
            dataset_name: "d.jsonl".into(),
            lang: "en".into(),
            total: 3,
            inputs: StoredInputs::of(&RagInputs {
                dataset_text: "{}".into(),
                settings: ModelSettings {
                    api_key: "sk-never-stored".into(),
                    ..ModelSettings::default()
                },
                local_model: None,
            }),
            shown: "d.jsonl".into(),
            origins: Vec::new(),
        }
    }

    #[test]
    fn one_record_shape_for_every_mode_tagged_by_mode_and_without_the_key() {
        let json = serde_json::to_string(&rag()).expect("json");
        assert!(json.contains(r#""mode":"rag""#), "{json}");
        assert!(!json.contains("sk-never-stored"));
        let back: StoredRun = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.mode(), Some(Mode::Rag));
        assert_eq!(back.run_id, "r");
        let inputs = back.inputs.read::<RagInputs>().expect("the RAG inputs");
        assert_eq!(inputs.dataset_text, "{}");
        assert!(
            back.inputs.read::<DialogInputs>().is_none(),
            "another mode's record"
        );
    }

    #[test]
    fn a_record_written_before_the_offer_fields_still_reads() {
        let mut v = serde_json::to_value(rag()).expect("json");
        let o = v.as_object_mut().expect("an object");
        o.remove("shown");
        o.remove("origins");
        let back: StoredRun = serde_json::from_value(v).expect("parses");
        assert_eq!(back.mode(), Some(Mode::Rag));
        assert!(back.shown.is_empty() && back.origins.is_empty());
        assert!(back.inputs.read::<RagInputs>().is_some());
    }

    #[test]
    fn a_record_of_an_unknown_mode_names_none() {
        let v = serde_json::json!({"run_id": "x", "started_at_ms": 1, "status": "running",
            "dataset_name": "d", "lang": "en", "total": 1, "inputs": {"mode": "gguf"}});
        let back: StoredRun = serde_json::from_value(v).expect("parses");
        assert_eq!(back.mode(), None);
        assert!(back.inputs.read::<RagInputs>().is_none());
    }
}
