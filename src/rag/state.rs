//! The RAG check's reducer: the loaded dataset, the settings and the latest
//! snapshot of the run. Pure: the mode's effects are `rag::run` and
//! `rag::launch`.

use crate::state::keys::KeyPrompt;
use crate::state::shell::Mode;
use crate::state::stored::ModeInputs;
use crate::state::{ModelSettings, RunProgress, RunStatus};
use evalpage_core::rag::{CaseResult, RagCase, RagDataset};
use evalpage_core::report::{EvaluationResult, RunMetrics};
use evalpage_core::RunKind;
use serde::{Deserialize, Serialize};
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

/// What the runner reports after each batch of progress.
#[derive(Clone, Debug)]
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

/// Two snapshots are equal when they show the same thing: the same counts
/// and the same results, a result being equal to itself only (each settled
/// case's result is one `Rc`, made once and shared by every later snapshot).
/// The views compare their props at every flush; comparing cases and
/// results by content would walk every case each time.
impl PartialEq for RunSnapshot {
    fn eq(&self, o: &Self) -> bool {
        self.status == o.status
            && self.progress == o.progress
            && self.metrics == o.metrics
            && self.network_errors == o.network_errors
            && self.console.len() == o.console.len()
            && Rc::ptr_eq(&self.cases, &o.cases)
            && crate::state::same_each(&self.results, &o.results)
    }
}

/// The finished run's downloads.
#[derive(Clone, Debug)]
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

/// A finished run's downloads are equal when they are of the same report:
/// every file is made from it, once.
impl PartialEq for Artifacts {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.report, &o.report) && self.ended_at_ms == o.ended_at_ms
    }
}

/// The RAG check's state.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RagState {
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
    /// A run waiting for the user to confirm where its key goes.
    pub key_prompt: Option<Rc<KeyPrompt>>,
    /// The model file on this device, when that provider is chosen.
    pub local: crate::state::local::LocalModel,
    /// Start was pressed while the model file loads: the run waits for it.
    pub waiting: bool,
}

/// Everything that changes the RAG check's state.
#[derive(Clone, Debug)]
pub enum RagAction {
    /// A dataset was loaded.
    SetDataset(Rc<LoadedDataset>),
    /// A dataset could not be loaded.
    LoadFailed(Rc<str>),
    /// Settings edited.
    SetSettings(Rc<ModelSettings>),
    /// The model file on this device: being loaded, loaded, or failed.
    SetLocal(crate::state::local::LocalModel),
    /// The run could not start.
    StartFailed(Rc<str>),
    /// A run started: clear the previous run's results and errors.
    Started,
    /// Progress from the runner.
    Progress(Rc<RunSnapshot>),
    /// The run stopped and its artifacts are ready.
    Finished(Rc<RunSnapshot>, Rc<Artifacts>),
    /// A run waits for a click before its key is sent (or no longer does).
    PromptKey(Option<Rc<KeyPrompt>>),
    /// A run waits for the model file to load (or no longer does).
    Waiting(bool),
}

impl RagState {
    /// The status shown for the run.
    pub fn status(&self) -> RunStatus {
        if self.waiting {
            return RunStatus::Waiting;
        }
        if self.start_error.is_some() {
            return RunStatus::Failed;
        }
        self.run.as_ref().map_or(RunStatus::Idle, |r| r.status)
    }
}

impl Reducible for RagState {
    type Action = RagAction;

    fn reduce(self: Rc<Self>, action: RagAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            RagAction::SetDataset(d) => {
                next.dataset = Some(d);
                next.load_error = None;
            }
            RagAction::LoadFailed(e) => next.load_error = Some(e),
            RagAction::SetSettings(s) => next.settings = s,
            RagAction::SetLocal(l) => next.local = l,
            RagAction::StartFailed(e) => next.start_error = Some(e),
            RagAction::Started => {
                next.key_prompt = None;
                next.run = None;
                next.artifacts = None;
                next.start_error = None;
            }
            RagAction::Progress(snap) => next.run = Some(snap),
            RagAction::Finished(snap, artifacts) => {
                next.run = Some(snap);
                next.artifacts = Some(artifacts);
            }
            RagAction::PromptKey(prompt) => next.key_prompt = prompt,
            RagAction::Waiting(on) => {
                next.waiting = on;
                if on {
                    next.start_error = None;
                }
            }
        }
        Rc::new(next)
    }
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

impl ModeInputs for RagInputs {
    const MODE: Mode = Mode::Run(RunKind::Rag);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::stored::{StoredInputs, StoredRun};

    /// Another mode's inputs, for the test that a record reads as its own mode only.
    #[derive(Serialize, Deserialize)]
    struct OtherMode {}

    impl ModeInputs for OtherMode {
        const MODE: Mode = Mode::Run(RunKind::Dialog);
    }

    fn stored_rag() -> StoredRun {
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
        let json = serde_json::to_string(&stored_rag()).expect("json");
        assert!(json.contains(r#""mode":"rag""#), "{json}");
        assert!(!json.contains("sk-never-stored"));
        let back: StoredRun = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.mode(), Some(Mode::Run(RunKind::Rag)));
        assert_eq!(back.run_id, "r");
        let inputs = back.inputs.read::<RagInputs>().expect("the RAG inputs");
        assert_eq!(inputs.dataset_text, "{}");
        assert!(
            back.inputs.read::<OtherMode>().is_none(),
            "another mode's record"
        );
    }

    #[test]
    fn a_record_written_before_the_offer_fields_still_reads() {
        let mut v = serde_json::to_value(stored_rag()).expect("json");
        let o = v.as_object_mut().expect("an object");
        o.remove("shown");
        o.remove("origins");
        let back: StoredRun = serde_json::from_value(v).expect("parses");
        assert_eq!(back.mode(), Some(Mode::Run(RunKind::Rag)));
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

    #[test]
    fn start_error_shows_as_failed_and_a_start_clears_it() {
        let s = Rc::new(RagState::default());
        assert_eq!(s.status(), RunStatus::Idle);
        let s = s.reduce(RagAction::StartFailed(Rc::from("no cases")));
        assert_eq!(s.status().code(), "failed");
        let s = s.reduce(RagAction::Started);
        assert_eq!(s.status(), RunStatus::Idle);
    }
}
