//! What is kept of a task run in this browser's IndexedDB so that it can be
//! resumed after a reload: its identity and inputs (task and template YAML,
//! dataset and `metadata.json` files, registry text, the chosen models with
//! their registry entries, scheduling). Never an API key: keys live only in
//! `TaskState::keys`, which has no `Serialize`. Pure data and pure functions;
//! the effects that read and write it are `effects::idb` and `effects::runner`.

use super::resume::Offer;
use super::task_data::{LoadedFile, LoadedMetadata};
use super::task_models::{ModelSource, TaskRunSettings};
use super::task_state::{TaskState, DEFAULT_PRESET};
use evalpage_core::task::PRESETS;
use evalpage_core::task_run::registry::ModelEntry;
use evalpage_core::Lang;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

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

/// One model of the run: its name and, for a registry model, its entry
/// (which names the key's variable, never the key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredModel {
    /// Name in reports.
    pub name: String,
    /// The registry entry; `None` for a built-in mock model.
    pub entry: Option<ModelEntry>,
}

/// A task run as kept in IndexedDB (the `runs` store, beside the RAG
/// check's `StoredRun`; its required `task` and `models` tell it apart).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredTaskRun {
    /// Run id (kept when the run is resumed).
    pub run_id: String,
    /// Start time, ms (kept when resumed: it also seeds the retry jitter).
    pub started_at_ms: u64,
    /// `running`, `done` or `cancelled`.
    pub status: String,
    /// Task and template.
    pub task: StoredTask,
    /// Dataset file name as the run reads it (the demo's name for the demo).
    pub dataset_name: String,
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
    /// Language of `report.md`.
    pub lang: String,
    /// Samples × models.
    pub total: usize,
}

impl StoredTaskRun {
    /// The record of a run about to start from `state` (which must have a
    /// checked task), with its identity.
    pub fn of(state: &TaskState, run_id: &str, started_at_ms: u64, lang: Lang) -> StoredTaskRun {
        let models: Vec<StoredModel> = state
            .choices
            .iter()
            .filter(|c| state.selected.contains(&c.name))
            .map(|c| StoredModel {
                name: c.name.clone(),
                entry: match &c.source {
                    ModelSource::Mock => None,
                    ModelSource::Registry(e) => Some(e.clone()),
                },
            })
            .collect();
        let task_name = state
            .check
            .checked
            .as_ref()
            .map_or_else(|| state.task_file.clone(), |t| t.info.name.clone());
        StoredTaskRun {
            run_id: run_id.to_string(),
            started_at_ms,
            status: "running".into(),
            task: StoredTask {
                name: task_name,
                preset: state.preset.map(str::to_string),
                file: state.task_file.clone(),
                text: state.task_text.to_string(),
                template_file: state.template_file.clone(),
                template_text: state.template_text.to_string(),
            },
            dataset_name: state.run_data.data.name.clone(),
            dataset: state.file.as_ref().map(|f| StoredFile {
                name: f.name.clone(),
                content: StoredBytes::of(&f.bytes),
            }),
            metadata: state.metadata.as_ref().map(|m| StoredFile {
                name: m.name.clone(),
                content: StoredBytes::of(&m.bytes),
            }),
            registry: StoredFile {
                name: state.registry_file.clone(),
                content: StoredBytes::Text(state.registry_text.to_string()),
            },
            total: state.run_data.data.samples.len() * models.len(),
            models,
            settings: state.settings,
            lang: lang.code().into(),
        }
    }

    /// Names of the models, comma-separated.
    pub fn model_names(&self) -> String {
        let names: Vec<&str> = self.models.iter().map(|m| m.name.as_str()).collect();
        names.join(", ")
    }
}

/// An unfinished task run found in this browser's storage after a reload.
pub type TaskResumeOffer = Offer<StoredTaskRun>;

impl Offer<StoredTaskRun> {
    /// The banner's line: task, dataset, models, settled/total.
    pub fn summary(&self, lang: Lang) -> String {
        let s = &self.stored;
        format!(
            "{} {} ({} · {} · {}): {}/{} {}",
            lang.pick("发现未完成的任务运行", "Unfinished task run"),
            s.run_id,
            s.task.name,
            s.dataset_name,
            s.model_names(),
            self.done,
            s.total,
            lang.pick("次调用已完成。", "calls settled."),
        )
    }
}

impl TaskState {
    /// This state with the inputs of a stored run: its task, template,
    /// dataset, metadata, registry, ticked models and scheduling. The keys
    /// typed in this session are kept (a stored run has none).
    pub fn restored(&self, s: &StoredTaskRun) -> TaskState {
        let preset = s
            .task
            .preset
            .as_deref()
            .and_then(|n| PRESETS.iter().find(|p| p.name == n))
            .map(|p| p.name);
        let mut next = TaskState::with_preset(preset.unwrap_or(DEFAULT_PRESET));
        next.preset = preset;
        next.task_file = s.task.file.clone();
        next.task_text = Rc::from(s.task.text.as_str());
        next.template_file = s.task.template_file.clone();
        next.template_text = Rc::from(s.task.template_text.as_str());
        next.file = s.dataset.as_ref().map(|f| {
            Rc::new(LoadedFile {
                name: f.name.clone(),
                bytes: Rc::from(f.content.bytes()),
            })
        });
        next.metadata = s
            .metadata
            .as_ref()
            .map(|m| Rc::new(LoadedMetadata::read(&m.name, m.content.bytes())));
        next.registry_file = s.registry.name.clone();
        next.registry_text = Rc::from(String::from_utf8_lossy(s.registry.content.bytes()).as_ref());
        next.selected = Rc::new(s.models.iter().map(|m| m.name.clone()).collect());
        next.settings = s.settings;
        next.keys = self.keys.clone();
        next.resume_offer = self.resume_offer.clone();
        next.refresh();
        next
    }

    /// Why the restored state cannot run the stored run, if it cannot: a
    /// model that is gone or changed, or a registry model whose key has not
    /// been typed in this session.
    pub fn resume_problem(&self, s: &StoredTaskRun, lang: Lang) -> Option<String> {
        for m in &s.models {
            let choice = self.choices.iter().find(|c| c.name == m.name);
            let same = match (choice.map(|c| &c.source), &m.entry) {
                (Some(ModelSource::Mock), None) => true,
                (Some(ModelSource::Registry(now)), Some(then)) => now == then,
                _ => false,
            };
            if !same {
                return Some(format!(
                    "{}: {}",
                    m.name,
                    lang.pick(
                        "该模型在保存的模型注册表中找不到或已改变",
                        "this model is missing from the stored registry or differs from it"
                    )
                ));
            }
            if let Some(var) = m.entry.as_ref().and_then(|e| e.api_key_env.as_deref()) {
                if !self.keys.contains_key(&m.name) {
                    return Some(format!(
                        "{}: {} ({var})",
                        m.name,
                        lang.pick(
                            "请在“模型”中重新输入 API 密钥（密钥只保存在内存中），然后再次点击继续运行",
                            "type its API key again under Models (keys are kept in memory only), then press Resume again"
                        )
                    ));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::TaskAction;
    use yew::Reducible;

    const REGISTRY: &str =
        r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "LOCAL_KEY"}]"#;

    fn edited() -> Rc<TaskState> {
        let s = Rc::new(TaskState::with_preset("support_qa"));
        let file = Rc::new(LoadedFile {
            name: "mine.jsonl".into(),
            bytes: Rc::from(
                &b"{\"id\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"expected\":\"hello\"}\n"[..],
            ),
        });
        let s = s.reduce(TaskAction::SetFile(file));
        let s = s.reduce(TaskAction::LoadRegistry("r.json".into(), REGISTRY.into()));
        let s = s.reduce(TaskAction::Toggle("local".into(), true));
        let s = s.reduce(TaskAction::Toggle("mock-a".into(), false));
        s.reduce(TaskAction::SetKey("local".into(), "sk-stored-never".into()))
    }

    #[test]
    fn a_stored_run_round_trips_through_json_without_the_key_and_restores_the_inputs() {
        let s = edited();
        let stored = StoredTaskRun::of(&s, "run-1", 42, Lang::En);
        assert_eq!(stored.total, 2);
        assert_eq!(stored.model_names(), "mock-b, local");
        let json = serde_json::to_string(&stored).expect("json");
        assert!(!json.contains("sk-stored-never"));
        assert!(json.contains("LOCAL_KEY"));
        let back: StoredTaskRun = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, stored);
        let fresh = TaskState::default();
        let restored = fresh.restored(&back);
        assert_eq!(restored.preset, Some("support_qa"));
        assert_eq!(restored.run_data.data.name, "mine.jsonl");
        assert_eq!(restored.run_data.data.samples.len(), 1);
        assert_eq!(restored.selected, s.selected);
        assert_eq!(restored.blocker(), None);
        assert!(restored.keys.is_empty());
        let problem = restored.resume_problem(&back, Lang::En).expect("no key");
        assert!(
            problem.starts_with("local: type its API key again"),
            "{problem}"
        );
        let keyed = Rc::new(restored).reduce(TaskAction::SetKey("local".into(), "sk-2".into()));
        let again = keyed.restored(&back);
        assert_eq!(
            again.keys.get("local").map(|k| k.key.expose()),
            Some("sk-2")
        );
        assert_eq!(again.resume_problem(&back, Lang::En), None);
    }

    #[test]
    fn a_changed_registry_or_a_rag_record_is_refused() {
        let s = edited();
        let mut stored = StoredTaskRun::of(&s, "run-2", 1, Lang::Zh);
        stored.registry.content = StoredBytes::Text("[]".into());
        let restored = s.restored(&stored);
        let problem = restored.resume_problem(&stored, Lang::En).expect("gone");
        assert!(
            problem.starts_with("local: this model is missing"),
            "{problem}"
        );
        let rag = r#"{"run_id":"r","started_at_ms":1,"status":"running","dataset_name":"d",
            "dataset_text":"","settings":{},"lang":"zh","total":1}"#;
        assert!(serde_json::from_str::<StoredTaskRun>(rag).is_err());
    }

    #[test]
    fn file_content_is_text_when_it_can_be() {
        assert_eq!(StoredBytes::of(b"ab"), StoredBytes::Text("ab".into()));
        let odd = StoredBytes::of(&[0xff, 0x00]);
        assert_eq!(odd.bytes(), &[0xff, 0x00]);
        let json = serde_json::to_string(&odd).expect("json");
        let back: StoredBytes = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, odd);
    }

    #[test]
    fn the_offer_names_task_dataset_models_and_progress() {
        let stored = StoredTaskRun::of(&TaskState::default(), "eval_task-1", 1, Lang::En);
        let offer = TaskResumeOffer {
            stored,
            events: Rc::from(""),
            done: 5,
        };
        assert_eq!(
            offer.summary(Lang::En),
            "Unfinished task run eval_task-1 (event_eval · event_eval.jsonl · mock-a, mock-b): 5/16 calls settled."
        );
    }
}
