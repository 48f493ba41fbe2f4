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
pub mod editors;
pub mod list;
pub mod models;
pub mod panel;
pub mod results;
pub mod stored;

use self::check::CheckedTask;
use self::code::{Prompts, TaskCode};
use self::data::{DataInputs, LoadedFile, LoadedMetadata, Preview};
use self::editors::Editors;
pub use self::list::ModelAction;
use self::list::ModelList;
pub use self::panel::{RunAction, RunPanel, TaskSnapshot};
use crate::state::RunStatus;
use std::rc::Rc;
use yew::Reducible;

/// The preset shown when the page opens.
pub const DEFAULT_PRESET: &str = "event_eval";

/// The whole task mode state, by concern: the editors, the dataset, the
/// model list and the run. What crosses them (a check reads the dataset in
/// the task's format, the prompt preview reads both) is here.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskState {
    /// The task and template editors and their check.
    pub editors: Editors,
    /// The dataset.
    pub data: DataInputs,
    /// The first sample's prompt (`None` while the task is invalid).
    pub preview: Option<Rc<Preview>>,
    /// The models and their keys.
    pub models: ModelList,
    /// The run.
    pub run: RunPanel,
}

impl Default for TaskState {
    /// The default preset, checked ([`TaskState::with_preset`]).
    fn default() -> Self {
        TaskState::with_preset(DEFAULT_PRESET)
    }
}

/// Everything that changes the task state, by concern.
#[derive(Clone, Debug)]
pub enum TaskAction {
    /// The task and template editors.
    Edit(EditAction),
    /// The dataset.
    Data(DataAction),
    /// The models and their keys.
    Models(ModelAction),
    /// The run.
    Run(RunAction),
    /// The inputs of a stored run replace the page's (see `TaskState::restored`).
    Restore(Rc<TaskState>),
}

/// What changes the editors (a check reads the dataset in the task's format).
#[derive(Clone, Debug)]
pub enum EditAction {
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
}

/// What changes the dataset (read again in the checked task's format).
#[derive(Clone, Debug)]
pub enum DataAction {
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
        let mut s = TaskState {
            editors: Editors::of_preset(preset, code),
            data: DataInputs::default(),
            preview: None,
            models: ModelList::default(),
            run: RunPanel::default(),
        };
        s.recheck();
        s
    }

    /// The checked task and template, when the task is valid.
    pub fn checked(&self) -> Option<&Rc<CheckedTask>> {
        self.editors.check.checked.as_ref()
    }

    /// How many times the checked task file asks each sample (1 when it
    /// does not say).
    pub fn task_repeats(&self) -> u32 {
        self.checked()
            .map_or(1, |c| evalpage_core::task::Repeats::of(&c.task).n)
    }

    /// The checked task has `llm_judge` metrics.
    pub fn judged(&self) -> bool {
        self.checked()
            .is_some_and(|c| !evalpage_core::task::judged_metrics(&c.task).is_empty())
    }

    /// True while an editor's text has not been checked yet.
    pub fn pending(&self) -> bool {
        self.editors.pending() || self.models.pending()
    }

    /// The status shown for the run.
    pub fn status(&self) -> RunStatus {
        self.run.status()
    }

    /// Why the run cannot start now, in Chinese and English, if it cannot.
    /// While the code that checks the task is on its way, only the models
    /// are asked for: *Start* fetches that code, checks, then runs (or
    /// says what is wrong), as it does with the run's own code.
    pub fn blocker(&self) -> Option<(&'static str, &'static str)> {
        if self.editors.code.is_none() {
            return self.models.no_model();
        }
        if self.pending() {
            return Some(("正在检查……", "Checking…"));
        }
        if self.checked().is_none() {
            return Some((
                "任务或提示词模板有错误，请先修正",
                "Fix the errors in the task or its prompt template first",
            ));
        }
        if self.data.run_data.data.samples.is_empty() {
            return Some(("数据集中没有有效样本", "The dataset has no valid sample"));
        }
        self.models.no_model()
    }

    /// This state checked with `code` (nothing changes when it has code).
    pub fn with_code(&self, code: TaskCode) -> TaskState {
        let mut next = self.clone();
        next.take_code(code);
        next
    }

    /// Takes `code` and checks what the editors hold, unless it has code.
    fn take_code(&mut self, code: TaskCode) {
        if self.editors.code.is_none() {
            self.editors.code = Some(code);
            self.editors.code_failed = false;
            self.refresh();
        }
    }

    /// Each sample's prompt as the task renders it, when the task is valid
    /// and its code is here.
    pub fn prompts(&self) -> Option<Prompts> {
        let (code, task) = (self.editors.code?, self.checked()?);
        Some((code.prompts)(
            &task.task,
            &task.template,
            &self.data.run_data.data.samples,
        ))
    }

    /// Checks task and template and, when the task is valid, reads the
    /// dataset in its format and renders the preview.
    fn recheck(&mut self) {
        let Some(check) = self.editors.check_now() else {
            return;
        };
        if let Some(task) = &check.checked {
            // Another format, or another built-in demo for this task's template.
            let demo = data::demo_dataset(task.format, Some(&task.task.prompt_template)).0;
            let run_data = &self.data.run_data;
            if task.format != run_data.data.format
                || (run_data.is_demo && run_data.data.name != demo)
            {
                // reads the dataset and renders the preview from it
                return self.reload();
            }
        }
        self.preview = self.preview_now();
    }

    /// The first sample's prompt, when the task is valid and its code here.
    fn preview_now(&self) -> Option<Rc<Preview>> {
        let (task, code) = (self.checked()?, self.editors.code?);
        Some(Rc::new((code.preview)(task, &self.data.run_data.data)))
    }

    /// Reads the dataset again (new file, metadata or format).
    fn reload(&mut self) {
        let task = self.editors.check.checked.clone();
        let format = task
            .as_ref()
            .map_or(self.data.run_data.data.format, |t| t.format);
        let template = task.as_ref().map(|t| t.task.prompt_template.as_str());
        self.data.reload(format, template);
        if task.is_some() && self.editors.code.is_some() {
            self.preview = self.preview_now();
        }
    }

    /// Checks registry, task and template again and reads the dataset.
    pub(super) fn refresh(&mut self) {
        self.models.recheck();
        self.recheck();
        self.reload();
    }
}

impl TaskState {
    fn edit(&mut self, action: EditAction) {
        match action {
            EditAction::ChoosePreset(name) => {
                if self.editors.choose_preset(&name) {
                    self.recheck();
                }
            }
            EditAction::EditTask(text) => self.editors.task_text = Rc::from(text),
            EditAction::LoadTask(name, text) => {
                self.editors.preset = None;
                self.editors.task_file = name;
                self.editors.task_text = Rc::from(text);
                self.recheck();
            }
            EditAction::EditTemplate(text) => self.editors.template_text = Rc::from(text),
            EditAction::LoadTemplate(name, text) => {
                self.editors.template_file = name;
                self.editors.template_text = Rc::from(text);
                self.recheck();
            }
            EditAction::Check => self.recheck(),
            EditAction::CodeLoaded(code) => self.take_code(code),
            EditAction::CodeFailed => self.editors.code_failed = true,
        }
    }

    fn change_data(&mut self, action: DataAction) {
        match action {
            DataAction::SetFile(f) => self.data.set_file(f, None),
            DataAction::FetchedFile(f, url) => self.data.set_file(f, Some(url)),
            DataAction::UseDemo => self.data.use_demo(),
            DataAction::SetMetadata(m) => self.data.metadata = Some(m),
            DataAction::ClearMetadata => self.data.metadata = None,
            DataAction::LoadFailed(e) => {
                self.data.load_error = Some(e);
                return;
            }
        }
        self.reload();
    }
}

impl Reducible for TaskState {
    type Action = TaskAction;

    fn reduce(self: Rc<Self>, action: TaskAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            TaskAction::Edit(a) => next.edit(a),
            TaskAction::Data(a) => next.change_data(a),
            TaskAction::Models(a) => next.models.apply(a),
            TaskAction::Run(a) => {
                if matches!(a, RunAction::Started) {
                    // a new run asks again where a key goes
                    next.models.key_prompt = None;
                }
                next.run.apply(a);
            }
            // A stored run's inputs were read with the code this state had
            // then: if the code came since, they are checked with it.
            TaskAction::Restore(state) => {
                return match (state.editors.code, next.editors.code) {
                    (None, Some(code)) => Rc::new(state.with_code(code)),
                    _ => state,
                }
            }
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run::Stopped;
    use crate::state::RunProgress;
    use evalpage_core::run::StopReason;
    use evalpage_core::task::{DatasetFormat, PROMPT_STOP};
    use evalpage_core::Lang;

    fn reduce(s: Rc<TaskState>, a: TaskAction) -> Rc<TaskState> {
        s.reduce(a)
    }

    #[test]
    fn a_run_no_prompt_of_which_renders_shows_its_own_stop_not_the_fatal_answer_line() {
        let s = TaskState::default();
        let Some(task) = s.editors.check.checked.clone() else {
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
            data: s.data.run_data.data.clone(),
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
        assert!(s.editors.check.checked.is_some());
        assert!(!s.pending());
        assert_eq!(s.blocker(), None);
        assert_eq!(s.data.run_data.data.samples.len(), 8);
        assert!(matches!(
            s.preview.as_deref(),
            Some(Preview::Messages { .. })
        ));
        assert_eq!(s.models.selected.len(), 2);
        assert_eq!(s.status(), RunStatus::Idle);
    }

    #[test]
    fn edits_wait_for_the_check_and_errors_block_the_run() {
        let s = Rc::new(TaskState::default());
        let broken = format!("{}oops: 1\n", s.editors.task_text);
        let s = reduce(s, TaskAction::Edit(EditAction::EditTask(broken)));
        assert!(s.pending());
        assert_eq!(s.blocker().map(|b| b.1), Some("Checking…"));
        let s = reduce(s, TaskAction::Edit(EditAction::Check));
        assert!(!s.pending());
        assert!(s.editors.check.errors[0]
            .text
            .contains("unknown field `oops`"));
        assert!(s.blocker().is_some());
        assert!(s.preview.is_none());
        let s = reduce(
            s,
            TaskAction::Edit(EditAction::ChoosePreset("event_eval".into())),
        );
        assert_eq!(s.blocker(), None);
    }

    #[test]
    fn without_its_code_the_task_waits_unchecked_and_start_asks_only_for_models() {
        let s = Rc::new(TaskState::new("support_qa", None));
        assert!(s.editors.check.checked.is_none() && s.editors.check.errors.is_empty());
        assert!(s.editors.pending() && s.preview.is_none() && s.prompts().is_none());
        assert_eq!(s.blocker(), None, "Start fetches the code, then checks");
        let s = reduce(s, TaskAction::Edit(EditAction::Check));
        assert!(s.editors.pending(), "nothing checks without the code");
        let none = reduce(
            s.clone(),
            TaskAction::Models(ModelAction::Toggle("mock-a".into(), false)),
        );
        let none = reduce(
            none,
            TaskAction::Models(ModelAction::Toggle("mock-b".into(), false)),
        );
        assert_eq!(none.blocker().map(|b| b.1), Some("Tick at least one model"));
        let s = reduce(s, TaskAction::Edit(EditAction::CodeFailed));
        assert!(s.editors.code_failed);
        let s = reduce(s, TaskAction::Edit(EditAction::CodeLoaded(TaskCode::HERE)));
        assert!(!s.editors.code_failed && !s.editors.pending());
        assert_eq!(s.editors.preset, Some("support_qa"));
        assert_eq!(s.data.run_data.data.format, DatasetFormat::TestSamples);
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
        let broken = format!("{}oops: 1\n", s.editors.task_text);
        let s = reduce(s, TaskAction::Edit(EditAction::EditTask(broken)));
        let s = reduce(s, TaskAction::Edit(EditAction::Check));
        assert!(s.editors.check.errors.is_empty());
        // A run's page taken before the code came is checked with it.
        let checked = s.with_code(TaskCode::HERE);
        assert!(checked.editors.check.errors[0]
            .text
            .contains("unknown field `oops`"));
        assert!(checked.blocker().is_some());
        // A stored run restored from a state without code, while the code
        // came in between, is checked too.
        let stale = Rc::new(TaskState::new("support_qa", None));
        let now = reduce(s, TaskAction::Edit(EditAction::CodeLoaded(TaskCode::HERE)));
        let restored = reduce(now, TaskAction::Restore(stale));
        assert!(restored.editors.code.is_some() && restored.editors.check.checked.is_some());
    }

    #[test]
    fn presets_switch_the_dataset_format_and_demo() {
        let s = Rc::new(TaskState::default());
        let s = reduce(
            s,
            TaskAction::Edit(EditAction::ChoosePreset("support_qa".into())),
        );
        assert_eq!(s.data.run_data.data.format, DatasetFormat::TestSamples);
        assert_eq!(s.data.run_data.data.name, "support_qa.jsonl");
        let s = reduce(
            s,
            TaskAction::Edit(EditAction::ChoosePreset("news_analysis".into())),
        );
        assert_eq!(s.data.run_data.data.name, "news_analysis.jsonl");
        let s = reduce(
            s,
            TaskAction::Edit(EditAction::ChoosePreset("event_eval".into())),
        );
        assert_eq!(s.data.run_data.data.name, "event_eval.jsonl");
        let s = reduce(
            s,
            TaskAction::Edit(EditAction::ChoosePreset("rag_qa".into())),
        );
        assert_eq!(s.data.run_data.data.format, DatasetFormat::Rag);
        assert_eq!(s.data.run_data.data.samples.len(), 10);
        let file = Rc::new(LoadedFile {
            name: "q.jsonl".into(),
            bytes: Rc::from(&b"{\"q\":\"a?\",\"gold\":[\"b\"]}\n{\"q\":1}\n"[..]),
        });
        let s = reduce(s, TaskAction::Data(DataAction::SetFile(file)));
        assert_eq!(
            (
                s.data.run_data.data.samples.len(),
                s.data.run_data.data.errors.len()
            ),
            (1, 1)
        );
        let s = reduce(s, TaskAction::Data(DataAction::UseDemo));
        assert!(s.data.run_data.is_demo);
    }

    #[test]
    fn a_key_is_never_reused_for_another_base_url_of_the_same_name() {
        let s = Rc::new(TaskState::default());
        let first =
            r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K"}]"#;
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::EditRegistry(first.into())),
        );
        let s = reduce(s, TaskAction::Models(ModelAction::CheckRegistry));
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::SetKey("local".into(), "sk-one".into())),
        );
        assert_eq!(s.models.keys.len(), 1);
        let same = r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K", "model": "m2"}]"#;
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::EditRegistry(same.into())),
        );
        let s = reduce(s, TaskAction::Models(ModelAction::CheckRegistry));
        assert_eq!(s.models.keys.len(), 1, "same base URL: the key stays");
        let other =
            r#"[{"name": "local", "base_url": "https://other.example/v1", "api_key_env": "K"}]"#;
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::EditRegistry(other.into())),
        );
        let s = reduce(s, TaskAction::Models(ModelAction::CheckRegistry));
        assert!(
            s.models.keys.is_empty(),
            "another base URL under the same name gets no key"
        );
        let back = reduce(
            s,
            TaskAction::Models(ModelAction::EditRegistry(first.into())),
        );
        let back = reduce(back, TaskAction::Models(ModelAction::CheckRegistry));
        assert!(
            back.models.keys.is_empty(),
            "a dropped key does not come back by itself"
        );
    }

    #[test]
    fn registry_models_join_the_choices_and_keys_stay_out_of_debug() {
        let s = Rc::new(TaskState::default());
        let text =
            r#"[{"name": "local", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "K"}]"#;
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::EditRegistry(text.into())),
        );
        assert!(s.pending());
        let s = reduce(s, TaskAction::Models(ModelAction::CheckRegistry));
        assert_eq!(s.models.choices.len(), 3);
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::SetKey("local".into(), " sk-abc ".into())),
        );
        assert_eq!(
            s.models.keys.get("local").map(|k| k.key.expose()),
            Some("sk-abc")
        );
        assert!(!format!("{s:?}").contains("sk-abc"));
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::SetKey("local".into(), "".into())),
        );
        assert!(s.models.keys.is_empty());
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::Toggle("mock-a".into(), false)),
        );
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::Toggle("mock-b".into(), false)),
        );
        assert_eq!(s.blocker().map(|b| b.1), Some("Tick at least one model"));
        let s = reduce(
            s,
            TaskAction::Models(ModelAction::LoadRegistry("r.json".into(), "{".into())),
        );
        assert_eq!(s.models.choices.len(), 2);
        assert!(s.models.registry.errors[0].text.starts_with("r.json:1"));
    }
}
