//! The page's reducer: the loaded dataset, the settings, the language and the
//! latest snapshot of the run. Pure: effects live in `effects/`.

use super::keys::{Confirmed, KeyPrompt, KeyRing};
use super::ModelSettings;
use evalpage_core::rag::{CaseResult, RagCase, RagDataset};
use evalpage_core::report::{EvaluationResult, RunMetrics};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::Reducible;

/// Where the dataset came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedDataset {
    /// Parsed cases and line errors.
    pub parsed: RagDataset,
    /// The file's text (kept so an interrupted run can be resumed after a reload).
    pub text: Rc<str>,
    /// The URL it was fetched from (`?dataset=`); `None` for a local file
    /// or the demo. A share link carries it.
    pub url: Option<Rc<str>>,
}

impl LoadedDataset {
    /// Where it came from, as a share link sees it.
    pub fn source(&self) -> super::share::DatasetSource {
        use super::share::DatasetSource;
        match &self.url {
            Some(u) => DatasetSource::Url(u.to_string()),
            None if self.parsed.name == evalpage_core::demo::DATASET_NAME
                && &*self.text == evalpage_core::demo::DATASET =>
            {
                DatasetSource::Demo
            }
            None => DatasetSource::Local(self.parsed.name.clone()),
        }
    }
}

/// The run's state as shown (`data-testid="run-status"` text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Nothing started.
    Idle,
    /// Cases in flight.
    Running,
    /// Finished.
    Done,
    /// Cancelled by the user.
    Cancelled,
    /// Could not start or broke down.
    Failed,
}

impl RunStatus {
    /// `idle`, `running`, `done`, `cancelled`, `failed`.
    pub fn code(self) -> &'static str {
        match self {
            RunStatus::Idle => "idle",
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        }
    }
}

/// Which evaluation the page shows: the RAG check or a prompt-driven task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The RAG check (questions, keypoints, cited documents).
    #[default]
    Rag,
    /// A task (spec 004): YAML contract, several models side by side.
    Task,
    /// A retrieval evaluation (spec 000): ranked lists from a retrieval endpoint.
    Retrieval,
    /// Multi-turn dialogs (spec 001): played turn by turn, or a trace scored.
    Dialog,
    /// The viewer of saved runs (issue 12).
    View,
}

impl Mode {
    /// Parses `rag` / `task` (the `mode` URL parameter).
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "rag" => Some(Mode::Rag),
            "task" => Some(Mode::Task),
            "retrieval" => Some(Mode::Retrieval),
            "dialog" => Some(Mode::Dialog),
            "view" => Some(Mode::View),
            _ => None,
        }
    }

    /// `rag` or `task`.
    pub fn code(self) -> &'static str {
        match self {
            Mode::Rag => "rag",
            Mode::Task => "task",
            Mode::Retrieval => "retrieval",
            Mode::Dialog => "dialog",
            Mode::View => "view",
        }
    }
}

/// What the run controls show: counts, times and the scheduling state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunProgress {
    /// Settled cases.
    pub done: usize,
    /// All cases.
    pub total: usize,
    /// Start time, ms.
    pub started_ms: u64,
    /// Time of this snapshot, ms.
    pub now_ms: u64,
    /// Paused by the user.
    pub paused: bool,
    /// Current concurrency limit (lower than configured after 429s).
    pub limit: usize,
    /// Configured concurrency.
    pub concurrency: usize,
    /// Why the run is not being saved in this browser, if it is not.
    pub save_error: Option<String>,
    /// The fatal answer (401, 403, 404) that stopped the run, if one did.
    pub stopped: Option<String>,
}

/// What the runner reports after each batch of progress.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSnapshot {
    /// Status.
    pub status: RunStatus,
    /// Counts, times and the scheduling state.
    pub progress: RunProgress,
    /// The cases of this run.
    pub cases: Rc<Vec<RagCase>>,
    /// Results by case index.
    pub results: Vec<Option<Rc<CaseResult>>>,
    /// Counts so far.
    pub metrics: RunMetrics,
    /// `[EVAL]` console lines so far.
    pub console: Vec<Rc<str>>,
    /// Cases that failed with a network error (CORS or unreachable).
    pub network_errors: usize,
}

/// The finished run's downloads.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifacts {
    /// `report.json`.
    pub report_json: String,
    /// `report.events.json-seq`.
    pub events_json_seq: String,
    /// `report.events.jsonl`.
    pub events_jsonl: String,
    /// `report.md`.
    pub markdown: String,
    /// Notes lines.
    pub notes: Vec<String>,
    /// The report itself.
    pub report: Rc<EvaluationResult>,
    /// Every file of the run (the files every run writes and both event
    /// logs), for the zip.
    pub files: Vec<(String, String)>,
    /// When the run ended, ms (the zip's file times).
    pub ended_at_ms: u64,
}

/// The whole page state.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AppState {
    /// Interface language.
    pub lang: Lang,
    /// The dataset, once loaded.
    pub dataset: Option<Rc<LoadedDataset>>,
    /// Why loading failed, if it did.
    pub load_error: Option<Rc<str>>,
    /// Model settings.
    pub settings: Rc<ModelSettings>,
    /// Latest run snapshot.
    pub run: Option<Rc<RunSnapshot>>,
    /// Downloads of the finished run.
    pub artifacts: Option<Rc<Artifacts>>,
    /// Why the run could not start, if it could not.
    pub start_error: Option<Rc<str>>,
    /// Saved API keys by origin.
    pub keys: Rc<KeyRing>,
    /// Origins the user entered a key for or confirmed in this page load.
    pub confirmed: Rc<Confirmed>,
    /// A run waiting for the user to confirm where its key goes.
    pub key_prompt: Option<Rc<KeyPrompt>>,
}

/// Everything that changes the state.
#[derive(Clone, Debug)]
pub enum AppAction {
    /// Switch language.
    SetLang(Lang),
    /// A dataset was loaded.
    SetDataset(Rc<LoadedDataset>),
    /// A dataset could not be loaded.
    LoadFailed(Rc<str>),
    /// Settings edited.
    SetSettings(Rc<ModelSettings>),
    /// The run could not start.
    StartFailed(Rc<str>),
    /// A run started: clear the previous run's results and errors.
    Started,
    /// Progress from the runner.
    Progress(Rc<RunSnapshot>),
    /// The run stopped and its artifacts are ready.
    Finished(Rc<RunSnapshot>, Rc<Artifacts>),
    /// The saved keys changed.
    SetKeys(Rc<KeyRing>),
    /// The user entered a key for, or confirmed, this origin (and agreed to
    /// plain `http://` when the flag is set).
    Confirm(String, bool),
    /// A run waits for a click before its key is sent (or no longer does).
    PromptKey(Option<Rc<KeyPrompt>>),
}

impl AppState {
    /// The status shown for the run.
    pub fn status(&self) -> RunStatus {
        if self.start_error.is_some() {
            return RunStatus::Failed;
        }
        self.run.as_ref().map_or(RunStatus::Idle, |r| r.status)
    }
}

impl Reducible for AppState {
    type Action = AppAction;

    fn reduce(self: Rc<Self>, action: AppAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            AppAction::SetLang(lang) => next.lang = lang,
            AppAction::SetDataset(d) => {
                next.dataset = Some(d);
                next.load_error = None;
            }
            AppAction::LoadFailed(e) => next.load_error = Some(e),
            AppAction::SetSettings(s) => next.settings = s,
            AppAction::StartFailed(e) => next.start_error = Some(e),
            AppAction::Started => {
                next.key_prompt = None;
                next.run = None;
                next.artifacts = None;
                next.start_error = None;
            }
            AppAction::Progress(snap) => next.run = Some(snap),
            AppAction::Finished(snap, artifacts) => {
                next.run = Some(snap);
                next.artifacts = Some(artifacts);
            }
            AppAction::SetKeys(keys) => next.keys = keys,
            AppAction::Confirm(origin, plain_http) => {
                let mut c = (*next.confirmed).clone();
                if plain_http {
                    c.plain_http.insert(origin.clone());
                }
                c.origins.insert(origin);
                next.confirmed = Rc::new(c);
            }
            AppAction::PromptKey(prompt) => next.key_prompt = prompt,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_error_shows_as_failed_and_lang_switches() {
        let s = Rc::new(AppState::default());
        assert_eq!(s.status(), RunStatus::Idle);
        let s = s.reduce(AppAction::StartFailed(Rc::from("no cases")));
        assert_eq!(s.status().code(), "failed");
        let s = s.reduce(AppAction::SetLang(Lang::En));
        assert_eq!(s.lang, Lang::En);
        assert_eq!(Mode::parse("task").map(Mode::code), Some("task"));
        assert_eq!(Mode::parse("x"), None);
    }
}
