//! The model file on this device (本机模型文件): what the page knows of the
//! GGUF file the user picked, as the engine in the page describes it once
//! loaded, and the file's SHA-256 (computed while reading it). Pure data;
//! the loading is `effects::local_model`.

use serde::{Deserialize, Serialize};

/// How the message of a call starts when the engine in the page stopped
/// under it (its worker died): the run stops, and is resumed once the file
/// is loaded again.
pub const ENGINE_STOPPED: &str = "the model in this page stopped";

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
    /// The thread setting: `auto` (every logical CPU up to 2, half of them
    /// above: never more than the cores) or the number asked.
    #[serde(default)]
    pub threads_asked: String,
    /// Logical CPUs the browser reports (`navigator.hardwareConcurrency`).
    #[serde(default)]
    pub logical_cpus: u32,
    /// The browser runs WebAssembly SIMD (128-bit).
    #[serde(default)]
    pub simd: bool,
    /// The multi-threaded build runs (the page is cross-origin isolated).
    #[serde(default)]
    pub multithread: bool,
    /// The page is cross-origin isolated.
    #[serde(default)]
    pub cross_origin_isolated: bool,
    /// The engine runs the model's layers on a WebGPU adapter.
    #[serde(default)]
    pub webgpu: bool,
    /// That adapter (vendor, architecture, device), when one is used.
    #[serde(default)]
    pub webgpu_adapter: String,
    /// Layers on the GPU, as the engine logged them (`19/19`).
    #[serde(default)]
    pub gpu_layers: String,
    /// Why the GPU is not used although the browser has an adapter (its
    /// path failed and the CPU runs the model), if so.
    #[serde(default)]
    pub gpu_note: String,
    /// The chat template applied (the file's, or a named built-in one).
    #[serde(default)]
    pub chat_template: String,
    /// Time to load the file into the engine, ms.
    #[serde(default)]
    pub load_ms: u64,
    /// The URL the file was fetched from (without its query), if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// It was read from this browser's storage, not fetched again.
    #[serde(default)]
    pub from_cache: bool,
    /// Tokens a request that names no `max_tokens` may generate.
    #[serde(default)]
    pub default_max_tokens: u32,
}

impl LocalModelInfo {
    /// Which file this is, as a run keeps it.
    pub fn reference(&self) -> LocalRef {
        LocalRef {
            file: self.file.clone(),
            sha256: self.sha256.clone(),
        }
    }
}

/// Which model file a run asks: its name and SHA-256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalRef {
    /// The file's name.
    pub file: String,
    /// Its SHA-256 (hex).
    pub sha256: String,
}

impl LocalRef {
    /// Why a run of this file cannot go on with `loaded` (none, or another
    /// file), in `lang`'s words; `None` when it is the same file.
    pub fn refusal(
        &self,
        loaded: Option<&LocalModelInfo>,
        lang: evalpage_core::Lang,
    ) -> Option<String> {
        let short = self.sha256.get(..12).unwrap_or(&self.sha256);
        match loaded {
            Some(l) if l.sha256 == self.sha256 => None,
            Some(l) => Some(match lang {
                evalpage_core::Lang::Zh => format!(
                    "该运行使用的模型文件是 {}（SHA-256 {short}…），当前加载的 {} 是另一个文件：请选择原文件后再继续",
                    self.file, l.file
                ),
                _ => format!(
                    "This run was made with the model file {} (SHA-256 {short}…); the loaded {} is another file: pick that file, then resume",
                    self.file, l.file
                ),
            }),
            None => Some(match lang {
                evalpage_core::Lang::Zh => format!(
                    "该运行使用本机模型文件 {}（SHA-256 {short}…）：请先选择该文件，等它加载完成后再继续",
                    self.file
                ),
                _ => format!(
                    "This run uses the model file {} (SHA-256 {short}…): pick it, wait until it is loaded, then resume",
                    self.file
                ),
            }),
        }
    }
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
    /// The loaded model, shared, if one is.
    pub fn shared(&self) -> Option<&std::rc::Rc<LocalModelInfo>> {
        match self {
            LocalModel::Loaded(i) => Some(i),
            _ => None,
        }
    }

    /// The loaded model, if one is.
    pub fn loaded(&self) -> Option<&LocalModelInfo> {
        match self {
            LocalModel::Loaded(i) => Some(i),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::Lang;

    fn info(sha: &str) -> LocalModelInfo {
        serde_json::from_value(serde_json::json!({
            "engine": "e", "file": "other.gguf", "size_bytes": 1, "sha256": sha
        }))
        .expect("an engine's description")
    }

    #[test]
    fn a_run_of_a_model_file_goes_on_with_that_file_only() {
        let r = LocalRef {
            file: "gemma.gguf".into(),
            sha256: "a5fd3b62230aa5ec60212297".into(),
        };
        assert_eq!(
            r.refusal(Some(&info("a5fd3b62230aa5ec60212297")), Lang::En),
            None
        );
        let other = r
            .refusal(Some(&info("ffff")), Lang::En)
            .expect("another file");
        assert!(
            other.contains("gemma.gguf")
                && other.contains("a5fd3b62230a…")
                && other.contains("other.gguf"),
            "{other}"
        );
        let none = r.refusal(None, Lang::En).expect("no file");
        assert!(none.contains("pick it"), "{none}");
    }
}
