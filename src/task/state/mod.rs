//! The task mode's reducer: the editors' texts and what their checks found,
//! the dataset, the models and keys, and the latest snapshot of the run.
//! Pure: reading calls the core, checking calls the task's code
//! ([`code`], which the page fetches after its first load); the mode's
//! effects are `task::run` and `task::launch`. `check` holds the editors'
//! checks, `data` the dataset, `models` the model list, `results` the grid,
//! `batch` the batch files and `stored` the IndexedDB record of a run.

pub mod batch;
pub mod check;
pub mod code;
pub mod data;
pub mod models;
pub mod results;
pub mod stored;

use self::check::{check_registry, CheckedTask, RegistryCheck, TaskCheck, TaskSource};
use self::code::{Prompts, TaskCode};
use self::data::{LoadedFile, LoadedMetadata, Preview, RunData};
use self::models::{
    choices, keys_that_fit, BoundKey, EndpointModel, KeySources, Keys, ModelChoice,
    TaskRunSettings, MOCK_MODELS,
};
use self::results::{Labels, ResultGrid};
use crate::state::keys::{KeyPrompt, KeyRing};
use crate::state::local::LocalModel;
use crate::state::settings::{ModelSettings, Provider};
use crate::state::{RunFiles, RunProgress, RunStatus};
use evalpage_core::run::StopReason;
use evalpage_core::task::{DatasetFormat, TaskDataset, PRESETS};
use evalpage_core::Lang;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::Reducible;

/// The preset shown when the page opens.
pub const DEFAULT_PRESET: &str = "event_eval";
/// File name of a template pasted into the page.
const TEMPLATE_FILE: &str = "template.yaml";
/// File name of a registry edited in the page.
const REGISTRY_FILE: &str = "registry.json";

/// What the runner reports: progress and the results so far.
#[derive(Clone, Debug)]
pub struct TaskSnapshot {
    /// Status.
    pub status: RunStatus,
    /// Counts and times for the progress bar.
    pub progress: RunProgress,
    /// The task that runs.
    pub task: Rc<CheckedTask>,
    /// Its dataset.
    pub data: Rc<TaskDataset>,
    /// Model names, in column order.
    pub models: Rc<Vec<String>>,
    /// Results by model, then answer: sample by sample, each sample's
    /// repeats in order (one per sample when each is asked once).
    pub results: ResultGrid,
    /// Each sample's labels as shown (computed once per run).
    pub labels: Rc<Vec<Labels>>,
    /// How many times each sample is asked.
    pub repeats: u32,
}

/// Equal when they show the same thing: the same run (task, data, models
/// and labels are made once per run) with the same counts and results, a
/// result equal to itself only (see `state::same_each`).
impl PartialEq for TaskSnapshot {
    fn eq(&self, o: &Self) -> bool {
        self.status == o.status
            && self.progress == o.progress
            && self.repeats == o.repeats
            && Rc::ptr_eq(&self.task, &o.task)
            && Rc::ptr_eq(&self.data, &o.data)
            && Rc::ptr_eq(&self.models, &o.models)
            && Rc::ptr_eq(&self.labels, &o.labels)
            && self.results.len() == o.results.len()
            && self
                .results
                .iter()
                .zip(&o.results)
                .all(|(a, b)| crate::state::same_each(a, b))
    }
}

impl TaskSnapshot {
    /// Why the run stopped before sending anything, as the task mode shows
    /// it under the run controls: no sample's prompt renders (the core's
    /// reason, naming the template and the missing field with the first
    /// sample's file and line), then what to do. `None` for any other run,
    /// whose stop (a fatal answer, the cost cap) the run controls show.
    pub fn prompt_stop(&self, lang: Lang) -> Option<String> {
        let why = self
            .progress
            .stopped
            .as_ref()
            .filter(|s| s.reason == StopReason::Prompt)
            .map(|s| s.message.as_str())?;
        Some(match lang {
            Lang::Zh => format!(
                "运行未发送任何请求就停止了：{why}。请给样本补上该字段或修改模板（“提示词预览”显示第一个样本的提示词），然后重新开始评测。"
            ),
            Lang::En => format!(
                "The run stopped before sending anything: {why}. Add the field to the samples or change the template (the prompt preview shows the first sample's prompt), then start the evaluation again."
            ),
        })
    }

    /// The progress the run controls show: without the stop
    /// [`TaskSnapshot::prompt_stop`] shows (it is no fatal answer to fix in
    /// the key, model or URL).
    pub fn controls_progress(&self) -> RunProgress {
        let mut progress = self.progress.clone();
        if progress
            .stopped
            .as_ref()
            .is_some_and(|s| s.reason == StopReason::Prompt)
        {
            progress.stopped = None;
        }
        progress
    }
}

/// The whole task mode state.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskState {
    /// The preset last chosen (`None` after loading a task file).
    pub preset: Option<&'static str>,
    /// File name of the task text (in messages).
    pub task_file: String,
    /// The task YAML as edited.
    pub task_text: Rc<str>,
    /// File name of the template text.
    pub template_file: String,
    /// The template YAML as edited (for a task that names no built-in template).
    pub template_text: Rc<str>,
    /// The code that checks the task and renders prompts: `None` until the
    /// page has fetched it (the task stays unchecked until then).
    pub code: Option<TaskCode>,
    /// The last fetch of that code failed (the editor offers to try again).
    pub code_failed: bool,
    /// The last check of task and template.
    pub check: Rc<TaskCheck>,
    checked: (Rc<str>, Rc<str>),
    /// The file the user loaded (`None`: the demo for the task's format).
    pub file: Option<Rc<LoadedFile>>,
    /// The URL `file` was fetched from (`?dataset=`); `None` for a local file.
    pub dataset_url: Option<Rc<str>>,
    /// The `metadata.json` the user loaded.
    pub metadata: Option<Rc<LoadedMetadata>>,
    /// The dataset as read in the task's format.
    pub run_data: Rc<RunData>,
    /// The first sample's prompt (`None` while the task is invalid).
    pub preview: Option<Rc<Preview>>,
    /// File name of the registry text.
    pub registry_file: String,
    /// The registry JSON as edited.
    pub registry_text: Rc<str>,
    /// The last check of the registry.
    pub registry: Rc<RegistryCheck>,
    registry_checked: Rc<str>,
    /// Mock models, then registry models.
    pub choices: Rc<Vec<ModelChoice>>,
    /// Ticked model names.
    pub selected: Rc<BTreeSet<String>>,
    /// Keys typed in, by registry model name (memory only).
    pub keys: Rc<Keys>,
    /// The endpoint form as edited (base URL, model, the key of its origin).
    pub endpoint: Rc<ModelSettings>,
    /// Keys typed in the endpoint form, by origin (memory only).
    pub ring: Rc<KeyRing>,
    /// The models added with the endpoint form.
    pub endpoints: Rc<Vec<EndpointModel>>,
    /// Origins the user agreed to send a key to over plain `http://`.
    pub plain_http_ok: Rc<BTreeSet<String>>,
    /// A run waiting for the user to confirm where a key goes.
    pub key_prompt: Option<Rc<KeyPrompt>>,
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// Latest run snapshot.
    pub run: Option<Rc<TaskSnapshot>>,
    /// Downloads of the finished run.
    pub artifacts: Option<Rc<RunFiles>>,
    /// Why the run could not start, or its artifacts could not be rendered.
    pub start_error: Option<Rc<str>>,
    /// Why a file could not be read.
    pub load_error: Option<Rc<str>>,
    /// The judge of `llm_judge` metrics: `mock` or a model of the list.
    pub judge: Rc<str>,
    /// Answers imported from batch files: Start scores them instead of
    /// calling the models (see `task_batch`).
    pub batch: Option<Rc<self::batch::BatchAnswers>>,
    /// The model file on this device (a model of the list once loaded).
    pub local: LocalModel,
}

impl Default for TaskState {
    /// The default preset, checked ([`TaskState::with_preset`]).
    fn default() -> Self {
        TaskState::with_preset(DEFAULT_PRESET)
    }
}

/// Everything that changes the task state.
#[derive(Clone, Debug)]
pub enum TaskAction {
    /// Fill the editor with a preset's YAML.
    ChoosePreset(String),
    /// The task editor's text changed (checked on `Check`).
    EditTask(String),
    /// A task file was loaded: (name, text).
    LoadTask(String, String),
    /// The template editor's text changed (checked on `Check`).
    EditTemplate(String),
    /// A template file was loaded: (name, text).
    LoadTemplate(String, String),
    /// Check the task and template texts (debounced after edits).
    Check,
    /// The code that checks the task arrived: check what the editors hold.
    CodeLoaded(TaskCode),
    /// That code could not be fetched.
    CodeFailed,
    /// The registry editor's text changed (checked on `CheckRegistry`).
    EditRegistry(String),
    /// A registry file was loaded: (name, text).
    LoadRegistry(String, String),
    /// Check the registry text (debounced after edits).
    CheckRegistry,
    /// A dataset file was loaded.
    SetFile(Rc<LoadedFile>),
    /// A dataset was fetched from this URL (`?dataset=`).
    FetchedFile(Rc<LoadedFile>, Rc<str>),
    /// Go back to the built-in demo dataset.
    UseDemo,
    /// A `metadata.json` was loaded.
    SetMetadata(Rc<LoadedMetadata>),
    /// Drop the `metadata.json`.
    ClearMetadata,
    /// A file could not be read.
    LoadFailed(Rc<str>),
    /// Tick or untick a model.
    Toggle(String, bool),
    /// A key was typed for a registry model (blank removes it).
    SetKey(String, String),
    /// Scheduling edited.
    SetSettings(TaskRunSettings),
    /// The judge of `llm_judge` metrics was chosen.
    SetJudge(String),
    /// The endpoint form was edited: its settings and the keys by origin.
    SetEndpoint(Rc<ModelSettings>, Rc<KeyRing>),
    /// A model was added with the endpoint form (and ticked).
    AddEndpoint(EndpointModel),
    /// Forget every key typed in the endpoint form.
    ForgetKeys,
    /// Batch answers were imported (or dropped).
    SetBatch(Option<Rc<self::batch::BatchAnswers>>),
    /// A run waits for a click before a key goes over plain `http://` (or no longer does).
    PromptKey(Option<Rc<KeyPrompt>>),
    /// The user agreed to send a key to this origin over plain `http://`.
    AllowPlainHttp(String),
    /// The run could not start.
    StartFailed(Rc<str>),
    /// A run started: clear the previous one.
    Started,
    /// The inputs of a stored run replace the page's (see `TaskState::restored`).
    Restore(Rc<TaskState>),
    /// Progress from the runner.
    Progress(Rc<TaskSnapshot>),
    /// The run stopped, with its artifacts or why they could not be rendered.
    Finished(Rc<TaskSnapshot>, Result<Rc<RunFiles>, Rc<str>>),
    /// Where the model file on this device stands.
    SetLocal(LocalModel),
}

impl TaskState {
    /// A fresh state showing `preset` (the default preset if unknown), with
    /// both mock models ticked, checked with [`TaskCode::HERE`].
    pub fn with_preset(preset: &str) -> TaskState {
        TaskState::new(preset, Some(TaskCode::HERE))
    }

    /// A fresh state showing `preset`, checked with `code` when there is code
    /// (the page's first state has none: it is fetched after the first load).
    pub fn new(preset: &str, code: Option<TaskCode>) -> TaskState {
        let p = PRESETS
            .iter()
            .find(|p| p.name == preset)
            .unwrap_or(&PRESETS[0]);
        let registry = Rc::new(RegistryCheck::default());
        let mut s = TaskState {
            preset: Some(p.name),
            task_file: format!("{}.yaml", p.name),
            task_text: Rc::from(p.yaml),
            template_file: TEMPLATE_FILE.into(),
            template_text: Rc::from(""),
            code,
            code_failed: false,
            check: Rc::new(TaskCheck {
                errors: Vec::new(),
                template: self::check::TemplateNeed::Unknown,
                checked: None,
            }),
            checked: (Rc::from(""), Rc::from("")),
            file: None,
            dataset_url: None,
            metadata: None,
            run_data: Rc::new(data::read(DatasetFormat::Samples, None, None, None)),
            preview: None,
            registry_file: REGISTRY_FILE.into(),
            registry_text: Rc::from(""),
            choices: Rc::new(choices(&registry.registry, &[], None)),
            registry,
            registry_checked: Rc::from(""),
            selected: Rc::new(MOCK_MODELS.iter().map(|m| m.to_string()).collect()),
            keys: Rc::default(),
            endpoint: Rc::new(ModelSettings {
                provider: Provider::Openai,
                ..ModelSettings::default()
            }),
            ring: Rc::default(),
            endpoints: Rc::default(),
            plain_http_ok: Rc::default(),
            key_prompt: None,
            settings: TaskRunSettings::default(),
            run: None,
            artifacts: None,
            start_error: None,
            load_error: None,
            judge: Rc::from(self::models::MOCK_JUDGE),
            batch: None,
            local: LocalModel::None,
        };
        s.recheck();
        s
    }

    /// How many times the checked task file asks each sample (1 when it
    /// does not say).
    pub fn task_repeats(&self) -> u32 {
        self.check
            .checked
            .as_ref()
            .map_or(1, |c| evalpage_core::task::Repeats::of(&c.task).n)
    }

    /// The checked task has `llm_judge` metrics.
    pub fn judged(&self) -> bool {
        self.check
            .checked
            .as_ref()
            .is_some_and(|c| !evalpage_core::task::judged_metrics(&c.task).is_empty())
    }

    /// The keys a run of this state may use.
    pub fn key_sources(&self) -> KeySources<'_> {
        KeySources {
            registry: &self.keys,
            origins: &self.ring,
        }
    }

    /// True while an editor's text has not been checked yet.
    pub fn pending(&self) -> bool {
        self.task_pending() || self.registry_pending()
    }

    /// True while the task or template text has not been checked yet.
    pub fn task_pending(&self) -> bool {
        self.checked.0 != self.task_text || self.checked.1 != self.template_text
    }

    /// True while the registry text has not been checked yet.
    pub fn registry_pending(&self) -> bool {
        self.registry_checked != self.registry_text
    }

    /// The status shown for the run.
    pub fn status(&self) -> RunStatus {
        if self.start_error.is_some() && self.run.is_none() {
            return RunStatus::Failed;
        }
        self.run.as_ref().map_or(RunStatus::Idle, |r| r.status)
    }

    /// Why the run cannot start now, in Chinese and English, if it cannot.
    /// While the code that checks the task is on its way, only the models
    /// are asked for: *Start* fetches that code, checks, then runs (or
    /// says what is wrong), as it does with the run's own code.
    pub fn blocker(&self) -> Option<(&'static str, &'static str)> {
        if self.code.is_none() {
            return self.no_model();
        }
        if self.pending() {
            return Some(("正在检查……", "Checking…"));
        }
        if self.check.checked.is_none() {
            return Some((
                "任务或提示词模板有错误，请先修正",
                "Fix the errors in the task or its prompt template first",
            ));
        }
        if self.run_data.data.samples.is_empty() {
            return Some(("数据集中没有有效样本", "The dataset has no valid sample"));
        }
        self.no_model()
    }

    fn no_model(&self) -> Option<(&'static str, &'static str)> {
        let ticked = self.choices.iter().any(|c| self.selected.contains(&c.name));
        (!ticked).then_some(("请至少勾选一个模型", "Tick at least one model"))
    }

    /// This state checked with `code` (nothing changes when it has code).
    pub fn with_code(&self, code: TaskCode) -> TaskState {
        let mut next = self.clone();
        next.take_code(code);
        next
    }

    /// Takes `code` and checks what the editors hold, unless it has code.
    fn take_code(&mut self, code: TaskCode) {
        if self.code.is_none() {
            self.code = Some(code);
            self.code_failed = false;
            self.refresh();
        }
    }

    /// Each sample's prompt as the task renders it, when the task is valid
    /// and its code is here.
    pub fn prompts(&self) -> Option<Prompts> {
        let (code, task) = (self.code?, self.check.checked.as_ref()?);
        Some((code.prompts)(
            &task.task,
            &task.template,
            &self.run_data.data.samples,
        ))
    }

    /// Checks task and template and, when the task is valid, reads the
    /// dataset in its format and renders the preview.
    fn recheck(&mut self) {
        let Some(code) = self.code else {
            return;
        };
        let preset_yaml = self
            .preset
            .and_then(|n| PRESETS.iter().find(|p| p.name == n))
            .map(|p| p.yaml);
        let check = (code.check)(&TaskSource {
            task_file: &self.task_file,
            task_text: &self.task_text,
            preset_yaml,
            template_file: &self.template_file,
            template_text: &self.template_text,
        });
        self.checked = (self.task_text.clone(), self.template_text.clone());
        self.check = Rc::new(check);
        if let Some(task) = self.check.checked.clone() {
            // Another format, or another built-in demo for this task's template.
            let demo = data::demo_dataset(task.format, Some(&task.task.prompt_template)).0;
            if task.format != self.run_data.data.format
                || (self.run_data.is_demo && self.run_data.data.name != demo)
            {
                self.reload();
            }
            self.preview = Some(Rc::new((code.preview)(&task, &self.run_data.data)));
        } else {
            self.preview = None;
        }
    }

    /// Reads the dataset again (new file, metadata or format).
    fn reload(&mut self) {
        let format = self
            .check
            .checked
            .as_ref()
            .map_or(self.run_data.data.format, |t| t.format);
        let template = self
            .check
            .checked
            .as_ref()
            .map(|t| t.task.prompt_template.as_str());
        self.run_data = Rc::new(data::read(
            format,
            template,
            self.file.as_deref(),
            self.metadata.as_deref(),
        ));
        if let (Some(task), Some(code)) = (&self.check.checked, self.code) {
            self.preview = Some(Rc::new((code.preview)(task, &self.run_data.data)));
        }
    }

    /// The models of the list: mocks, the model file, endpoints, registry.
    fn listed(&self) -> Vec<ModelChoice> {
        choices(
            &self.registry.registry,
            &self.endpoints,
            self.local.shared(),
        )
    }

    /// Checks registry, task and template again and reads the dataset.
    pub(super) fn refresh(&mut self) {
        self.recheck_registry();
        self.recheck();
        self.reload();
    }

    fn recheck_registry(&mut self) {
        self.registry = Rc::new(check_registry(&self.registry_file, &self.registry_text));
        self.registry_checked = self.registry_text.clone();
        self.choices = Rc::new(self.listed());
        // A key stays only with the base URL it was typed for.
        self.keys = Rc::new(keys_that_fit(&self.keys, &self.registry.registry));
    }

    fn edit(&mut self, action: TaskAction) {
        match action {
            TaskAction::ChoosePreset(name) => {
                if let Some(p) = PRESETS.iter().find(|p| p.name == name) {
                    self.preset = Some(p.name);
                    self.task_file = format!("{}.yaml", p.name);
                    self.task_text = Rc::from(p.yaml);
                    self.recheck();
                }
            }
            TaskAction::EditTask(text) => self.task_text = Rc::from(text),
            TaskAction::LoadTask(name, text) => {
                self.preset = None;
                self.task_file = name;
                self.task_text = Rc::from(text);
                self.recheck();
            }
            TaskAction::EditTemplate(text) => self.template_text = Rc::from(text),
            TaskAction::LoadTemplate(name, text) => {
                self.template_file = name;
                self.template_text = Rc::from(text);
                self.recheck();
            }
            TaskAction::Check => self.recheck(),
            TaskAction::CodeLoaded(code) => self.take_code(code),
            TaskAction::CodeFailed => self.code_failed = true,
            TaskAction::EditRegistry(text) => self.registry_text = Rc::from(text),
            TaskAction::LoadRegistry(name, text) => {
                self.registry_file = name;
                self.registry_text = Rc::from(text);
                self.recheck_registry();
            }
            TaskAction::CheckRegistry => self.recheck_registry(),
            _ => {}
        }
    }
}

impl Reducible for TaskState {
    type Action = TaskAction;

    fn reduce(self: Rc<Self>, action: TaskAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            TaskAction::SetFile(f) => {
                next.file = Some(f);
                next.dataset_url = None;
                next.load_error = None;
                next.reload();
            }
            TaskAction::FetchedFile(f, url) => {
                next.file = Some(f);
                next.dataset_url = Some(url);
                next.load_error = None;
                next.reload();
            }
            TaskAction::UseDemo => {
                next.file = None;
                next.dataset_url = None;
                next.metadata = None;
                next.load_error = None;
                next.reload();
            }
            TaskAction::SetMetadata(m) => {
                next.metadata = Some(m);
                next.reload();
            }
            TaskAction::ClearMetadata => {
                next.metadata = None;
                next.reload();
            }
            TaskAction::LoadFailed(e) => next.load_error = Some(e),
            TaskAction::Toggle(name, on) => {
                let mut s = (*next.selected).clone();
                if on {
                    s.insert(name);
                } else {
                    s.remove(&name);
                }
                next.selected = Rc::new(s);
            }
            TaskAction::SetKey(name, key) => {
                let mut keys = (*next.keys).clone();
                let models = &next.registry.registry.models;
                let entry = models.iter().find(|e| e.name == name);
                match entry.and_then(|e| BoundKey::new(e, &key)) {
                    Some(k) => keys.insert(name, k),
                    None => keys.remove(&name),
                };
                next.keys = Rc::new(keys);
            }
            TaskAction::SetSettings(s) => next.settings = s,
            TaskAction::SetJudge(j) => next.judge = Rc::from(j.as_str()),
            TaskAction::SetEndpoint(settings, ring) => {
                next.endpoint = settings;
                next.ring = ring;
                next.key_prompt = None;
            }
            TaskAction::AddEndpoint(m) => {
                let mut selected = (*next.selected).clone();
                selected.insert(m.entry.name.clone());
                next.selected = Rc::new(selected);
                let mut endpoints = (*next.endpoints).clone();
                endpoints.push(m);
                next.endpoints = Rc::new(endpoints);
                next.choices = Rc::new(next.listed());
            }
            TaskAction::SetBatch(b) => next.batch = b,
            TaskAction::SetLocal(local) => {
                // A file just loaded is ticked, as an endpoint just added is.
                if let LocalModel::Loaded(info) = &local {
                    let mut selected = (*next.selected).clone();
                    selected.insert(info.file.clone());
                    next.selected = Rc::new(selected);
                }
                next.local = local;
                next.choices = Rc::new(next.listed());
            }
            TaskAction::ForgetKeys => {
                next.ring = Rc::default();
                next.endpoint = Rc::new(ModelSettings {
                    api_key: String::new(),
                    ..(*next.endpoint).clone()
                });
            }
            TaskAction::PromptKey(prompt) => next.key_prompt = prompt,
            TaskAction::AllowPlainHttp(origin) => {
                let mut ok = (*next.plain_http_ok).clone();
                ok.insert(origin);
                next.plain_http_ok = Rc::new(ok);
            }
            TaskAction::StartFailed(e) => next.start_error = Some(e),
            // A stored run's inputs were read with the code this state had
            // then: if the code came since, they are checked with it.
            TaskAction::Restore(state) => {
                return match (state.code, next.code) {
                    (None, Some(code)) => Rc::new(state.with_code(code)),
                    _ => state,
                }
            }
            TaskAction::Started => {
                next.key_prompt = None;
                next.run = None;
                next.artifacts = None;
                next.start_error = None;
            }
            TaskAction::Progress(snap) => next.run = Some(snap),
            TaskAction::Finished(snap, artifacts) => {
                next.run = Some(snap);
                match artifacts {
                    Ok(a) => next.artifacts = Some(a),
                    Err(e) => next.start_error = Some(e),
                }
            }
            edit => next.edit(edit),
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run::Stopped;
    use evalpage_core::task::PROMPT_STOP;

    fn reduce(s: Rc<TaskState>, a: TaskAction) -> Rc<TaskState> {
        s.reduce(a)
    }

    #[test]
    fn a_run_no_prompt_of_which_renders_shows_its_own_stop_not_the_fatal_answer_line() {
        let s = TaskState::default();
        let Some(task) = s.check.checked.clone() else {
            panic!("the default task is valid")
        };
        let snapshot = |reason: StopReason, stopped: &str| TaskSnapshot {
            status: RunStatus::Done,
            progress: RunProgress {
                stopped: Some(Stopped {
                    reason,
                    message: stopped.to_string(),
                }),
                ..RunProgress::default()
            },
            task: task.clone(),
            data: s.run_data.data.clone(),
            models: Rc::new(Vec::new()),
            results: Vec::new(),
            labels: Rc::new(Vec::new()),
            repeats: 1,
        };
        let why = format!("{PROMPT_STOP} (2 sample(s)): template `ie_json` v1 (builtin; reads news_items, ticker): field `ticker` (user) is missing from 2 sample(s), first d.jsonl:1, sample `A`");
        let stopped = snapshot(StopReason::Prompt, &why);
        assert_eq!(stopped.controls_progress().stopped, None);
        assert_eq!(
            stopped.prompt_stop(Lang::En),
            Some(format!("The run stopped before sending anything: {why}. Add the field to the samples or change the template (the prompt preview shows the first sample's prompt), then start the evaluation again."))
        );
        let zh = stopped.prompt_stop(Lang::Zh).unwrap_or_default();
        assert!(
            zh.starts_with("运行未发送任何请求就停止了：no sample's prompt"),
            "{zh}"
        );
        // a fatal answer stays the run controls' to show
        let fatal = snapshot(StopReason::Fatal, "HTTP 401: invalid key");
        assert_eq!(fatal.prompt_stop(Lang::En), None);
        assert_eq!(
            fatal.controls_progress().stopped.map(|s| s.message),
            Some("HTTP 401: invalid key".to_string())
        );
    }

    #[test]
    fn starts_valid_with_the_default_preset_and_two_mocks() {
        let s = TaskState::default();
        assert!(s.check.checked.is_some());
        assert!(!s.pending());
        assert_eq!(s.blocker(), None);
        assert_eq!(s.run_data.data.samples.len(), 8);
        assert!(matches!(
            s.preview.as_deref(),
            Some(Preview::Messages { .. })
        ));
        assert_eq!(s.selected.len(), 2);
        assert_eq!(s.status(), RunStatus::Idle);
    }

    #[test]
    fn edits_wait_for_the_check_and_errors_block_the_run() {
        let s = Rc::new(TaskState::default());
        let broken = format!("{}oops: 1\n", s.task_text);
        let s = reduce(s, TaskAction::EditTask(broken));
        assert!(s.pending());
        assert_eq!(s.blocker().map(|b| b.1), Some("Checking…"));
        let s = reduce(s, TaskAction::Check);
        assert!(!s.pending());
        assert!(s.check.errors[0].text.contains("unknown field `oops`"));
        assert!(s.blocker().is_some());
        assert!(s.preview.is_none());
        let s = reduce(s, TaskAction::ChoosePreset("event_eval".into()));
        assert_eq!(s.blocker(), None);
    }

    #[test]
    fn without_its_code_the_task_waits_unchecked_and_start_asks_only_for_models() {
        let s = Rc::new(TaskState::new("support_qa", None));
        assert!(s.check.checked.is_none() && s.check.errors.is_empty());
        assert!(s.task_pending() && s.preview.is_none() && s.prompts().is_none());
        assert_eq!(s.blocker(), None, "Start fetches the code, then checks");
        let s = reduce(s, TaskAction::Check);
        assert!(s.task_pending(), "nothing checks without the code");
        let none = reduce(s.clone(), TaskAction::Toggle("mock-a".into(), false));
        let none = reduce(none, TaskAction::Toggle("mock-b".into(), false));
        assert_eq!(none.blocker().map(|b| b.1), Some("Tick at least one model"));
        let s = reduce(s, TaskAction::CodeFailed);
        assert!(s.code_failed);
        let s = reduce(s, TaskAction::CodeLoaded(TaskCode::HERE));
        assert!(!s.code_failed && !s.task_pending());
        assert_eq!(s.preset, Some("support_qa"));
        assert_eq!(s.run_data.data.format, DatasetFormat::TestSamples);
        assert!(matches!(
            s.preview.as_deref(),
            Some(Preview::Messages { .. })
        ));
        assert_eq!(s.prompts().map(|p| p.len()), Some(8));
        assert_eq!(s.blocker(), None);
        assert_eq!(*s, TaskState::with_preset("support_qa"));
    }

    #[test]
    fn a_broken_task_edited_before_the_code_came_is_reported_once_it_comes() {
        let s = Rc::new(TaskState::new("event_eval", None));
        let broken = format!("{}oops: 1\n", s.task_text);
        let s = reduce(s, TaskAction::EditTask(broken));
        let s = reduce(s, TaskAction::Check);
        assert!(s.check.errors.is_empty());
        // A run's page taken before the code came is checked with it.
        let checked = s.with_code(TaskCode::HERE);
        assert!(checked.check.errors[0]
            .text
            .contains("unknown field `oops`"));
        assert!(checked.blocker().is_some());
        // A stored run restored from a state without code, while the code
        // came in between, is checked too.
        let stale = Rc::new(TaskState::new("support_qa", None));
        let now = reduce(s, TaskAction::CodeLoaded(TaskCode::HERE));
        let restored = reduce(now, TaskAction::Restore(stale));
        assert!(restored.code.is_some() && restored.check.checked.is_some());
    }

    #[test]
    fn presets_switch_the_dataset_format_and_demo() {
        let s = Rc::new(TaskState::default());
        let s = reduce(s, TaskAction::ChoosePreset("support_qa".into()));
        assert_eq!(s.run_data.data.format, DatasetFormat::TestSamples);
        assert_eq!(s.run_data.data.name, "support_qa.jsonl");
        let s = reduce(s, TaskAction::ChoosePreset("news_analysis".into()));
        assert_eq!(s.run_data.data.name, "news_analysis.jsonl");
        let s = reduce(s, TaskAction::ChoosePreset("event_eval".into()));
        assert_eq!(s.run_data.data.name, "event_eval.jsonl");
        let s = reduce(s, TaskAction::ChoosePreset("rag_qa".into()));
        assert_eq!(s.run_data.data.format, DatasetFormat::Rag);
        assert_eq!(s.run_data.data.samples.len(), 10);
        let file = Rc::new(LoadedFile {
            name: "q.jsonl".into(),
            bytes: Rc::from(&b"{\"q\":\"a?\",\"gold\":[\"b\"]}\n{\"q\":1}\n"[..]),
        });
        let s = reduce(s, TaskAction::SetFile(file));
        assert_eq!(
            (s.run_data.data.samples.len(), s.run_data.data.errors.len()),
            (1, 1)
        );
        let s = reduce(s, TaskAction::UseDemo);
        assert!(s.run_data.is_demo);
    }

    #[test]
    fn a_key_is_never_reused_for_another_base_url_of_the_same_name() {
        let s = Rc::new(TaskState::default());
        let first =
            r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K"}]"#;
        let s = reduce(s, TaskAction::EditRegistry(first.into()));
        let s = reduce(s, TaskAction::CheckRegistry);
        let s = reduce(s, TaskAction::SetKey("local".into(), "sk-one".into()));
        assert_eq!(s.keys.len(), 1);
        let same = r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K", "model": "m2"}]"#;
        let s = reduce(s, TaskAction::EditRegistry(same.into()));
        let s = reduce(s, TaskAction::CheckRegistry);
        assert_eq!(s.keys.len(), 1, "same base URL: the key stays");
        let other =
            r#"[{"name": "local", "base_url": "https://other.example/v1", "api_key_env": "K"}]"#;
        let s = reduce(s, TaskAction::EditRegistry(other.into()));
        let s = reduce(s, TaskAction::CheckRegistry);
        assert!(
            s.keys.is_empty(),
            "another base URL under the same name gets no key"
        );
        let back = reduce(s, TaskAction::EditRegistry(first.into()));
        let back = reduce(back, TaskAction::CheckRegistry);
        assert!(
            back.keys.is_empty(),
            "a dropped key does not come back by itself"
        );
    }

    #[test]
    fn registry_models_join_the_choices_and_keys_stay_out_of_debug() {
        let s = Rc::new(TaskState::default());
        let text =
            r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K"}]"#;
        let s = reduce(s, TaskAction::EditRegistry(text.into()));
        assert!(s.pending());
        let s = reduce(s, TaskAction::CheckRegistry);
        assert_eq!(s.choices.len(), 3);
        let s = reduce(s, TaskAction::SetKey("local".into(), " sk-abc ".into()));
        assert_eq!(s.keys.get("local").map(|k| k.key.expose()), Some("sk-abc"));
        assert!(!format!("{s:?}").contains("sk-abc"));
        let s = reduce(s, TaskAction::SetKey("local".into(), "".into()));
        assert!(s.keys.is_empty());
        let s = reduce(s, TaskAction::Toggle("mock-a".into(), false));
        let s = reduce(s, TaskAction::Toggle("mock-b".into(), false));
        assert_eq!(s.blocker().map(|b| b.1), Some("Tick at least one model"));
        let s = reduce(s, TaskAction::LoadRegistry("r.json".into(), "{".into()));
        assert_eq!(s.choices.len(), 2);
        assert!(s.registry.errors[0].text.starts_with("r.json:1"));
    }
}
