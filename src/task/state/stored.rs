//! A task run's record in this browser's IndexedDB (the shared
//! `stored::StoredRun` with task inputs), made from the task state as a run
//! starts, and the task state made back from it when the run is resumed
//! (keys typed again: a stored run has none). Pure functions.

use super::data::{LoadedFile, LoadedMetadata};
use super::models::{EndpointModel, ModelSource, TaskRunSettings};
use super::{TaskState, DEFAULT_PRESET};
use crate::state::shell::Mode;
use crate::state::stored::{ModeInputs, StoredBytes, StoredFile, StoredInputs, StoredRun};
use evalpage_core::task::{ModelEntry, PRESETS};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

impl StoredRun {
    /// The record of a task run about to start from `state` (which must
    /// have a checked task), with its identity; `origin` reads the origin of
    /// each endpoint model's base URL (the resume offer names them).
    pub fn of_task(
        state: &TaskState,
        run_id: &str,
        started_at_ms: u64,
        lang: Lang,
        origin: fn(&str) -> Option<String>,
    ) -> StoredRun {
        let inputs = TaskInputs::of(state);
        let mut origins: Vec<String> = (inputs.models.iter())
            .filter_map(|m| m.entry.as_ref())
            .filter_map(|e| origin(&e.base_url))
            .collect();
        origins.dedup();
        let shown = format!(
            "{} · {} · {}",
            inputs.task.name,
            state.data.run_data.data.name,
            inputs.model_names()
        );
        StoredRun {
            run_id: run_id.to_string(),
            started_at_ms,
            status: "running".into(),
            dataset_name: state.data.run_data.data.name.clone(),
            lang: lang.code().into(),
            total: state.data.run_data.data.samples.len()
                * inputs.models.len()
                * state
                    .editors
                    .check
                    .checked
                    .as_ref()
                    .map_or(1, |c| state.run.settings.repeats(&c.task).n as usize),
            inputs: StoredInputs::of(&inputs),
            shown,
            origins,
        }
    }
}

impl TaskInputs {
    /// What a run of `state` is made of.
    pub fn of(state: &TaskState) -> TaskInputs {
        let models: Vec<StoredModel> = state
            .models
            .choices
            .iter()
            .filter(|c| state.models.selected.contains(&c.name))
            .map(|c| match &c.source {
                ModelSource::Mock => StoredModel {
                    name: c.name.clone(),
                    entry: None,
                    endpoint_origin: None,
                    keyed: false,
                    local: None,
                },
                ModelSource::InPage(info) => StoredModel {
                    name: c.name.clone(),
                    entry: None,
                    endpoint_origin: None,
                    keyed: false,
                    local: Some(info.reference()),
                },
                ModelSource::Registry(e) => StoredModel {
                    name: c.name.clone(),
                    entry: Some(e.clone()),
                    endpoint_origin: None,
                    keyed: state.models.keys.contains_key(&c.name),
                    local: None,
                },
                ModelSource::Endpoint(m) => StoredModel {
                    name: c.name.clone(),
                    entry: Some(m.entry.clone()),
                    endpoint_origin: Some(m.origin.clone()),
                    keyed: state.models.ring.get(&m.origin).is_some(),
                    local: None,
                },
            })
            .collect();
        let task_name = state
            .editors
            .check
            .checked
            .as_ref()
            .map_or_else(|| state.editors.task_file.clone(), |t| t.info.name.clone());
        TaskInputs {
            task: StoredTask {
                name: task_name,
                preset: state.editors.preset.map(str::to_string),
                file: state.editors.task_file.clone(),
                text: state.editors.task_text.to_string(),
                template_file: state.editors.template_file.clone(),
                template_text: state.editors.template_text.to_string(),
            },
            dataset: state.data.file.as_ref().map(|f| StoredFile {
                name: f.name.clone(),
                content: StoredBytes::of(&f.bytes),
            }),
            metadata: state.data.metadata.as_ref().map(|m| StoredFile {
                name: m.name.clone(),
                content: StoredBytes::of(&m.bytes),
            }),
            registry: StoredFile {
                name: state.models.registry_file.clone(),
                content: StoredBytes::Text(state.models.registry_text.to_string()),
            },
            models,
            settings: state.run.settings,
            judge: Some(state.models.judge.to_string()),
        }
    }
}

impl TaskState {
    /// This state with the inputs of a stored run: its task, template,
    /// dataset, metadata, registry, ticked models and scheduling. The keys
    /// typed in this session are kept (a stored run has none).
    pub fn restored(&self, s: &TaskInputs) -> TaskState {
        let preset = s
            .task
            .preset
            .as_deref()
            .and_then(|n| PRESETS.iter().find(|p| p.name == n))
            .map(|p| p.name);
        let mut next = TaskState::new(preset.unwrap_or(DEFAULT_PRESET), self.editors.code);
        next.editors.preset = preset;
        next.editors.task_file = s.task.file.clone();
        next.editors.task_text = Rc::from(s.task.text.as_str());
        next.editors.template_file = s.task.template_file.clone();
        next.editors.template_text = Rc::from(s.task.template_text.as_str());
        next.data.file = s.dataset.as_ref().map(|f| {
            Rc::new(LoadedFile {
                name: f.name.clone(),
                bytes: Rc::from(f.content.bytes()),
            })
        });
        next.data.metadata = s
            .metadata
            .as_ref()
            .map(|m| Rc::new(LoadedMetadata::read(&m.name, m.content.bytes())));
        next.models.registry_file = s.registry.name.clone();
        next.models.registry_text =
            Rc::from(String::from_utf8_lossy(s.registry.content.bytes()).as_ref());
        next.models.selected = Rc::new(s.models.iter().map(|m| m.name.clone()).collect());
        next.run.settings = s.settings;
        if let Some(j) = &s.judge {
            next.models.judge = Rc::from(j.as_str());
        }
        next.models.keys = self.models.keys.clone();
        next.models.ring = self.models.ring.clone();
        next.models.endpoint = self.models.endpoint.clone();
        next.models.plain_http_ok = self.models.plain_http_ok.clone();
        next.models.local = self.models.local.clone();
        next.models.endpoints = Rc::new(
            s.models
                .iter()
                .filter_map(|m| {
                    Some(EndpointModel {
                        entry: m.entry.clone()?,
                        origin: m.endpoint_origin.clone()?,
                    })
                })
                .collect(),
        );
        next.refresh();
        next
    }

    /// Why the restored state cannot run the stored run, if it cannot: a
    /// model that is gone or changed, or a registry model whose key has not
    /// been typed in this session.
    pub fn resume_problem(&self, s: &TaskInputs, lang: Lang) -> Option<String> {
        for m in &s.models {
            if let Some(file) = &m.local {
                match file.refusal(self.models.local.loaded(), lang) {
                    Some(why) => return Some(why),
                    None => continue,
                }
            }
            let choice = self.models.choices.iter().find(|c| c.name == m.name);
            let same = match (choice.map(|c| &c.source), &m.entry) {
                (Some(ModelSource::Mock), None) => true,
                (Some(ModelSource::Registry(now)), Some(then)) => now == then,
                (Some(ModelSource::Endpoint(now)), Some(then)) => &now.entry == then,
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
                if !self.models.keys.contains_key(&m.name) {
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
            if let (Some(origin), true) = (&m.endpoint_origin, m.keyed) {
                if self.models.ring.get(origin).is_none() {
                    return Some(format!(
                        "{}: {} ({origin})",
                        m.name,
                        lang.pick(
                            "请在端点表单中为该源重新输入 API 密钥（密钥只保存在内存中），然后再次点击继续运行",
                            "type the API key for its origin again in the endpoint form (keys are kept in memory only), then press Resume again"
                        )
                    ));
                }
            }
        }
        None
    }
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

impl ModeInputs for TaskInputs {
    const MODE: Mode = Mode::Run(RunKind::Task);
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
    use crate::task::state::{DataAction, ModelAction, TaskAction};
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
        let s = s.reduce(TaskAction::Data(DataAction::SetFile(file)));
        let s = s.reduce(TaskAction::Models(ModelAction::LoadRegistry(
            "r.json".into(),
            REGISTRY.into(),
        )));
        let s = s.reduce(TaskAction::Models(ModelAction::Toggle(
            "local".into(),
            true,
        )));
        let s = s.reduce(TaskAction::Models(ModelAction::Toggle(
            "mock-a".into(),
            false,
        )));
        s.reduce(TaskAction::Models(ModelAction::SetKey(
            "local".into(),
            "sk-stored-never".into(),
        )))
    }

    fn inputs(s: &StoredRun) -> TaskInputs {
        s.inputs.read::<TaskInputs>().expect("a task run's record")
    }

    #[test]
    fn a_stored_run_round_trips_through_json_without_the_key_and_restores_the_inputs() {
        let s = edited();
        let stored = StoredRun::of_task(&s, "run-1", 42, Lang::En, |_| None);
        assert_eq!(stored.total, 2);
        assert_eq!(inputs(&stored).model_names(), "mock-b, local");
        let json = serde_json::to_string(&stored).expect("json");
        assert!(!json.contains("sk-stored-never"));
        assert!(json.contains("LOCAL_KEY"));
        let back: StoredRun = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, stored);
        let back = &inputs(&back);
        let fresh = TaskState::default();
        let restored = fresh.restored(back);
        assert_eq!(restored.editors.preset, Some("support_qa"));
        assert_eq!(restored.data.run_data.data.name, "mine.jsonl");
        assert_eq!(restored.data.run_data.data.samples.len(), 1);
        assert_eq!(restored.models.selected, s.models.selected);
        assert_eq!(restored.blocker(), None);
        assert!(restored.models.keys.is_empty());
        let problem = restored.resume_problem(back, Lang::En).expect("no key");
        assert!(
            problem.starts_with("local: type its API key again"),
            "{problem}"
        );
        let keyed = Rc::new(restored).reduce(TaskAction::Models(ModelAction::SetKey(
            "local".into(),
            "sk-2".into(),
        )));
        let again = keyed.restored(back);
        assert_eq!(
            again.models.keys.get("local").map(|k| k.key.expose()),
            Some("sk-2")
        );
        assert_eq!(again.resume_problem(back, Lang::En), None);
    }

    #[test]
    fn a_run_of_a_model_file_resumes_with_that_file_only() {
        use crate::state::local::{LocalModel, LocalModelInfo};
        let info = |file: &str, sha: &str| -> LocalModel {
            LocalModel::Loaded(Rc::new(
                serde_json::from_value::<LocalModelInfo>(serde_json::json!({
                    "engine": "e", "file": file, "size_bytes": 1, "sha256": sha
                }))
                .expect("an engine's description"),
            ))
        };
        let s = Rc::new(TaskState::with_preset("support_qa")).reduce(TaskAction::Models(
            ModelAction::SetLocal(info("gemma.gguf", "a5fd3b62230aa5ec")),
        ));
        assert!(
            s.models.selected.contains("gemma.gguf"),
            "a file just loaded is ticked"
        );
        let stored = StoredRun::of_task(&s, "run-3", 1, Lang::En, |_| None);
        let back = inputs(&stored);
        let m = back
            .models
            .iter()
            .find(|m| m.name == "gemma.gguf")
            .expect("stored");
        assert_eq!(
            m.local.as_ref().map(|l| l.sha256.as_str()),
            Some("a5fd3b62230aa5ec")
        );
        // After a reload no file is loaded: the resume asks for it.
        let fresh = TaskState::default().restored(&back);
        let why = fresh.resume_problem(&back, Lang::En).expect("no file");
        assert!(why.contains("pick it"), "{why}");
        // Another file is refused; the same file goes on.
        let other = Rc::new(TaskState::default())
            .reduce(TaskAction::Models(ModelAction::SetLocal(info(
                "other.gguf",
                "ffff",
            ))))
            .restored(&back);
        let why = other.resume_problem(&back, Lang::En).expect("another file");
        assert!(why.contains("other.gguf"), "{why}");
        let same = Rc::new(TaskState::default())
            .reduce(TaskAction::Models(ModelAction::SetLocal(info(
                "gemma.gguf",
                "a5fd3b62230aa5ec",
            ))))
            .restored(&back);
        assert_eq!(same.resume_problem(&back, Lang::En), None);
        assert!(same.models.selected.contains("gemma.gguf"));
    }

    #[test]
    fn a_changed_registry_or_a_rag_record_is_refused() {
        let s = edited();
        let stored = StoredRun::of_task(&s, "run-2", 1, Lang::Zh, |_| None);
        let mut stored = inputs(&stored);
        stored.registry.content = StoredBytes::Text("[]".into());
        let restored = s.restored(&stored);
        let problem = restored.resume_problem(&stored, Lang::En).expect("gone");
        assert!(
            problem.starts_with("local: this model is missing"),
            "{problem}"
        );
        let rag = r#"{"mode":"rag","dataset_text":"","settings":{}}"#;
        assert!(serde_json::from_str::<TaskInputs>(rag).is_err());
    }

    #[test]
    fn an_endpoint_form_model_is_stored_with_its_origin_and_its_key_is_asked_again() {
        use crate::state::keys::KeyRing;
        use crate::task::state::models::EndpointModel;
        use evalpage_core::task::ModelEntry;
        let origin = "http://127.0.0.1:8091".to_string();
        let entry = ModelEntry {
            name: "evalpage-demo".into(),
            base_url: "http://127.0.0.1:8091/v1".into(),
            model: Some("evalpage-demo".into()),
            api_key_env: None,
            default_params: Default::default(),
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        };
        let mut ring = KeyRing::default();
        ring.set(&origin, "sk-form-never-stored", false);
        let s = Rc::new(TaskState::default());
        let endpoint = s.models.endpoint.clone();
        let s = s.reduce(TaskAction::Models(ModelAction::SetEndpoint(
            endpoint,
            Rc::new(ring),
        )));
        let added = EndpointModel {
            entry,
            origin: origin.clone(),
        };
        let s = s.reduce(TaskAction::Models(ModelAction::AddEndpoint(added)));
        let stored = StoredRun::of_task(&s, "run-3", 1, Lang::En, |_| None);
        let json = serde_json::to_string(&stored).expect("json");
        assert!(!json.contains("sk-form-never-stored"));
        let inputs = &inputs(&stored);
        assert_eq!(inputs.model_names(), "mock-a, mock-b, evalpage-demo");
        let fresh = TaskState::default();
        let restored = fresh.restored(inputs);
        assert_eq!(restored.models.choices.len(), 3);
        assert_eq!(restored.models.selected.len(), 3);
        let problem = restored.resume_problem(inputs, Lang::En).expect("no key");
        assert!(problem.contains("in the endpoint form"), "{problem}");
        assert!(problem.contains(&origin), "{problem}");
        let keyed = s.restored(inputs);
        assert_eq!(keyed.resume_problem(inputs, Lang::En), None);
    }
}
