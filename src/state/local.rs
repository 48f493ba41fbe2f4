//! The model file on this device (本机模型文件): what the page knows of the
//! GGUF file the user picked, as the engine in the page describes it once
//! loaded, and the file's SHA-256 (computed while reading it). Pure data;
//! the loading is `effects::local_model`.

use serde::{Deserialize, Serialize};

/// A loaded model file, as the report records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalModelInfo {
    /// The engine (`llama.cpp (@wllama/wllama)`).
    pub engine: String,
    /// Its llama.cpp build.
    #[serde(default)]
    pub engine_version: String,
    /// The file's name.
    pub file: String,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// Its SHA-256 (hex), computed while reading it.
    #[serde(default)]
    pub sha256: String,
    /// `general.architecture`.
    #[serde(default)]
    pub architecture: String,
    /// `general.name`.
    #[serde(default)]
    pub name: String,
    /// The quantisation (`general.file_type`, as llama.cpp names it).
    #[serde(default)]
    pub quantisation: String,
    /// The context the model was trained for.
    #[serde(default)]
    pub context_train: u64,
    /// The context the engine runs with.
    #[serde(default)]
    pub context: u64,
    /// Threads the engine uses.
    #[serde(default)]
    pub threads: u32,
    /// The multi-threaded build runs (the page is cross-origin isolated).
    #[serde(default)]
    pub multithread: bool,
    /// The page is cross-origin isolated.
    #[serde(default)]
    pub cross_origin_isolated: bool,
    /// The browser has WebGPU.
    #[serde(default)]
    pub webgpu: bool,
    /// The chat template applied (the file's, or a named built-in one).
    #[serde(default)]
    pub chat_template: String,
    /// Time to load the file into the engine, ms.
    #[serde(default)]
    pub load_ms: u64,
}

/// Where the model file stands.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum LocalModel {
    /// No file picked.
    #[default]
    None,
    /// Being read and loaded.
    Loading(String),
    /// Ready.
    Loaded(std::rc::Rc<LocalModelInfo>),
    /// Could not be loaded: why.
    Failed(String),
}

impl LocalModel {
    /// The loaded model, if one is.
    pub fn loaded(&self) -> Option<&LocalModelInfo> {
        match self {
            LocalModel::Loaded(i) => Some(i),
            _ => None,
        }
    }
}
