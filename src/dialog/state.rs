//! The dialog mode's page state (spec 001's multi-turn dialogs): the dialogs
//! loaded (the built-in demo dialogs or a file), an optional dialog trace to
//! score, the endpoint (base URL and model; empty: the dialog mock in the
//! page), `workers_dialog`, and the run's snapshot and results. Pure: the run
//! is `dialog::run`; scoring a trace is the core's `score_trace`,
//! with the times passed in.

use crate::state::keys::{EndpointForm, FormAction, Secret};
use crate::state::limits::Limits;
use crate::state::local::{LocalModel, LocalModelInfo};
use crate::state::settings::Provider;
use crate::state::shell::Mode;
use crate::state::stored::{ModeInputs, StoredBytes, StoredFile};
use crate::state::{RunProgress, RunStatus};
use evalpage_core::dialog::{parse_dialogs, score_trace, DialogSet, OfflineRun};
use evalpage_core::dialog::{
    render, Artifacts, DialogTrace, Judgements, MetricsSummary, ScoreOptions, TurnEval,
};
use evalpage_core::RunKind;
use evalpage_core::{demo, LineError};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::rc::Rc;
use yew::Reducible;

/// A dialog as the page shows it: its trace line and its `turn_eval` rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ShownDialog {
    /// The `dialog_trace.jsonl` line.
    pub trace: DialogTrace,
    /// Its `turn_eval.jsonl` rows (none for a skipped dialog).
    pub rows: Vec<TurnEval>,
}

/// What the runner shows of a dialog run.
#[derive(Clone, Debug)]
pub struct DialogSnapshot {
    /// Run status.
    pub status: RunStatus,
    /// Progress (played dialogs).
    pub progress: RunProgress,
    /// Each played dialog once settled, by job.
    pub dialogs: Rc<Vec<Option<Rc<ShownDialog>>>>,
}

/// Equal when they show the same counts and the same dialogs, a settled
/// dialog equal to itself only (see `state::same_each`).
impl PartialEq for DialogSnapshot {
    fn eq(&self, o: &Self) -> bool {
        self.status == o.status
            && self.progress == o.progress
            && crate::state::same_each(&self.dialogs, &o.dialogs)
    }
}

/// What a finished run or a scored trace leaves behind.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogResults {
    /// `metrics_summary.json`.
    pub summary: MetricsSummary,
    /// Every dialog of the dataset, in order (skipped ones included); each
    /// is `Some`, in the shape of a run's snapshot so one table shows both.
    pub dialogs: Rc<Vec<Option<Rc<ShownDialog>>>>,
    /// The files to download: the five artifacts (and a run's event logs).
    pub files: Rc<Vec<(String, String)>>,
    /// When it ended, ms.
    pub ended_at_ms: u64,
    /// Trace lines that could not be read or matched (scoring only).
    pub problems: Vec<LineError>,
    /// The trace file scored, when these results come from one.
    pub scored_from: Option<String>,
}

impl DialogResults {
    /// The results of `artifacts`, their files rendered with `extra` files
    /// (a run's event logs) after them.
    pub fn of(
        artifacts: &Artifacts,
        extra: Vec<(String, String)>,
        ended_at_ms: u64,
    ) -> Result<DialogResults, String> {
        let mut files =
            render(artifacts).map_err(|e| format!("could not render the artifacts: {e}"))?;
        files.extend(extra);
        Ok(DialogResults::shown(artifacts, files, ended_at_ms))
    }

    /// What the page shows of a run's artifacts, with its files.
    pub fn shown(
        artifacts: &Artifacts,
        files: Vec<(String, String)>,
        ended_at_ms: u64,
    ) -> DialogResults {
        let mut rows: HashMap<&str, Vec<TurnEval>> = HashMap::new();
        for r in &artifacts.rows {
            rows.entry(r.dialog_id.as_str())
                .or_default()
                .push(r.clone());
        }
        let dialogs = artifacts
            .traces
            .iter()
            .map(|t| {
                Some(Rc::new(ShownDialog {
                    rows: rows.remove(t.dialog_id.as_str()).unwrap_or_default(),
                    trace: t.clone(),
                }))
            })
            .collect();
        DialogResults {
            summary: artifacts.summary.clone(),
            dialogs: Rc::new(dialogs),
            files: Rc::new(files),
            ended_at_ms,
            problems: Vec::new(),
            scored_from: None,
        }
    }

    /// The text of one file, by name.
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }
}

/// A dialog trace picked to be scored.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceFile {
    /// Its file name.
    pub name: String,
    /// Its bytes.
    pub bytes: Rc<[u8]>,
}

/// The dialog page.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogState {
    /// The dialogs file name.
    pub dataset_name: String,
    /// Its dialogs (skipped ones included) and its bad lines.
    pub set: Rc<DialogSet>,
    /// The file's bytes (kept with a run, to resume it after a reload).
    pub dataset_bytes: Rc<[u8]>,
    /// A trace to score, if one was picked.
    pub trace: Option<TraceFile>,
    /// The endpoint's URL (empty: the dialog mock in the page) and key, and
    /// a run's prompt before its key is sent.
    pub form: EndpointForm,
    /// Model name sent to the endpoint.
    pub model: String,
    /// Dialogs in progress at most (`workers_dialog`).
    pub concurrency: usize,
    /// The most tokens of each answer, the model's and the judge's (none:
    /// the endpoint's own bound, or the model file engine's default).
    pub max_tokens: Option<u32>,
    /// Who judges M3/M4/M5: no one (reported as not run), the mock judge in
    /// the page, the dialogs' own endpoint and model, or the model file.
    pub judge: Option<Provider>,
    /// M1 of a turn without a recall trace searches the conversation sent
    /// (`--m1-from-conversation`); off: such a turn is not eligible for M1.
    pub m1_from_conversation: bool,
    /// The answer policy, the model's price and the cost cap.
    pub limits: Limits,
    /// Why the run or the scoring could not start.
    pub error: Option<Rc<str>>,
    /// Start was pressed while the model file loads: the run waits for it.
    pub waiting: bool,
    /// The run, once started.
    pub snapshot: Option<Rc<DialogSnapshot>>,
    /// The results of the run or of the scored trace (or why there are none).
    pub results: Option<Result<Rc<DialogResults>, Rc<str>>>,
    /// The turns are answered by the model file on this device (not the
    /// endpoint or the mock).
    pub by_file: bool,
    /// The model file on this device.
    pub local: LocalModel,
}

impl Default for DialogState {
    fn default() -> Self {
        DialogState {
            dataset_name: demo::DIALOG_DATASET_NAME.to_string(),
            set: Rc::new(parse_dialogs(
                demo::DIALOG_DATASET_NAME,
                demo::DIALOG_DATASET.as_bytes(),
            )),
            dataset_bytes: Rc::from(demo::DIALOG_DATASET.as_bytes()),
            trace: None,
            form: EndpointForm::default(),
            model: String::new(),
            concurrency: 4,
            max_tokens: None,
            judge: None,
            m1_from_conversation: false,
            limits: Limits::default(),
            error: None,
            waiting: false,
            snapshot: None,
            results: None,
            by_file: false,
            local: LocalModel::None,
        }
    }
}

impl DialogState {
    /// What a run of this page stores (never the key).
    pub fn inputs(&self) -> DialogInputs {
        DialogInputs {
            dialogs: StoredFile {
                name: self.dataset_name.clone(),
                content: StoredBytes::of(&self.dataset_bytes),
            },
            url: self.form.url.clone(),
            model: self.model.clone(),
            judge: self.judge,
            concurrency: self.concurrency,
            max_tokens: self.max_tokens,
            m1_from_conversation: self.m1_from_conversation,
            limits: self.limits.clone(),
            by_file: self.by_file,
            local_model: (self.by_file || self.judge == Some(Provider::Local))
                .then(|| self.local.loaded())
                .flatten()
                .map(LocalModelInfo::reference),
        }
    }

    /// The name of the model that answers the turns.
    pub fn model_shown(&self) -> &str {
        match (self.by_file, self.local.loaded(), self.model.trim()) {
            (true, Some(i), _) => &i.file,
            (true, None, _) => "model file",
            (false, _, "") => "mock",
            (false, _, m) => m,
        }
    }

    /// True while a run is going (or waits for the model file).
    pub fn running(&self) -> bool {
        self.waiting
            || self
                .snapshot
                .as_ref()
                .is_some_and(|s| s.status == RunStatus::Running)
    }

    /// Dialogs that can be played (aligned).
    pub fn playable(&self) -> usize {
        self.set
            .dialogs
            .iter()
            .filter(|d| d.skip_reason().is_none())
            .count()
    }

    /// Scores the picked trace against the dialogs with no model call
    /// (`evalpage score --dialogs`); the times are passed in.
    pub fn score(&self, started_at_ms: u64, ended_at_ms: u64) -> Result<DialogResults, String> {
        let Some(trace) = &self.trace else {
            return Err("pick a dialog_trace.jsonl first".into());
        };
        if self.set.dialogs.is_empty() {
            return Err(format!("{}: no valid dialog to score", self.dataset_name));
        }
        let run = OfflineRun {
            dataset_path: self.dataset_name.clone(),
            trace_file: trace.name.clone(),
            model_name: None,
            started_at_ms,
            ended_at_ms,
            scoring: ScoreOptions {
                m1_from_conversation: self.m1_from_conversation,
            },
        };
        let scored = score_trace(&run, &self.set, &trace.bytes, &Judgements::new());
        let mut results = DialogResults::of(&scored.artifacts, Vec::new(), ended_at_ms)?;
        results.problems = scored.problems;
        results.scored_from = Some(trace.name.clone());
        Ok(results)
    }
}

/// What changes the dialog page.
#[derive(Clone, Debug)]
pub enum DialogAction {
    /// A dialogs file was read.
    LoadDialogs(String, Rc<[u8]>),
    /// A dialog trace was read.
    LoadTrace(String, Rc<[u8]>),
    /// A change of the endpoint form (URL, key, prompt).
    Form(FormAction),
    /// The model name.
    SetModel(String),
    /// `workers_dialog`.
    SetConcurrency(usize),
    /// The most tokens of each answer (none: no bound sent).
    SetMaxTokens(Option<u32>),
    /// The judge choice (`none`, `mock`, `endpoint`).
    SetJudge(Option<Provider>),
    /// M1 from the conversation sent (on) or only from recall traces (off).
    SetM1FromConversation(bool),
    /// The answer policy, the price and the cap.
    SetLimits(Limits),
    /// A stored run's inputs (resumed after a reload).
    Restore(Box<DialogInputs>, Secret),
    /// A run started.
    Started,
    /// The run or the scoring could not start.
    Failed(Rc<str>),
    /// Progress.
    Progress(Rc<DialogSnapshot>),
    /// The run stopped.
    Finished(Rc<DialogSnapshot>, Result<Rc<DialogResults>, Rc<str>>),
    /// A trace was scored.
    Scored(Rc<DialogResults>),
    /// The turns are answered by the model file (true) or the endpoint.
    SetByFile(bool),
    /// Where the model file on this device stands.
    SetLocal(LocalModel),
    /// A run waits for the model file to load (or no longer does).
    Waiting(bool),
}

impl Reducible for DialogState {
    type Action = DialogAction;

    fn reduce(self: Rc<Self>, action: DialogAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            DialogAction::LoadDialogs(name, bytes) => {
                s.set = Rc::new(parse_dialogs(&name, &bytes));
                s.dataset_bytes = bytes;
                s.dataset_name = name;
                s.snapshot = None;
                s.results = None;
                s.error = None;
            }
            DialogAction::LoadTrace(name, bytes) => {
                s.trace = Some(TraceFile { name, bytes });
                s.error = None;
            }
            DialogAction::Form(a) => s.form.apply(a),
            DialogAction::SetByFile(on) => s.by_file = on,
            DialogAction::SetLocal(l) => s.local = l,
            DialogAction::SetModel(m) => s.model = m,
            DialogAction::SetConcurrency(c) => s.concurrency = c.clamp(1, 64),
            DialogAction::SetMaxTokens(n) => s.max_tokens = n.filter(|n| *n > 0),
            DialogAction::SetJudge(j) => s.judge = j,
            DialogAction::SetM1FromConversation(on) => s.m1_from_conversation = on,
            DialogAction::SetLimits(l) => s.limits = l,
            DialogAction::Restore(i, key) => {
                let bytes = i.dialogs.content.bytes();
                s.set = Rc::new(parse_dialogs(&i.dialogs.name, bytes));
                s.dataset_bytes = Rc::from(bytes);
                s.dataset_name = i.dialogs.name;
                s.form.url = i.url;
                s.model = i.model;
                s.judge = i.judge;
                s.m1_from_conversation = i.m1_from_conversation;
                s.by_file = i.by_file;
                s.limits = i.limits;
                s.concurrency = i.concurrency.clamp(1, 64);
                s.max_tokens = i.max_tokens;
                s.form.api_key = key;
                s.snapshot = None;
                s.results = None;
                s.error = None;
            }
            DialogAction::Started => {
                s.form.key_prompt = None;
                s.error = None;
                s.snapshot = None;
                s.results = None;
            }
            DialogAction::Failed(why) => s.error = Some(why),
            DialogAction::Waiting(on) => {
                s.waiting = on;
                if on {
                    s.error = None;
                }
            }
            DialogAction::Progress(snap) => s.snapshot = Some(snap),
            DialogAction::Finished(snap, r) => {
                s.snapshot = Some(snap);
                s.results = Some(r);
            }
            DialogAction::Scored(r) => {
                s.error = None;
                s.snapshot = None;
                s.results = Some(Ok(r));
            }
        }
        Rc::new(s)
    }
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
    /// The judge choice, stored as `none`, `mock`, `endpoint` or `local`.
    #[serde(with = "crate::state::settings::judge_choice")]
    pub judge: Option<Provider>,
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
    pub limits: crate::state::limits::Limits,
    /// The turns are answered by the model file on this device.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_file: bool,
    /// The model file the run asks (to answer the turns, or as the judge):
    /// a resume runs only with the very same file (by SHA-256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_model: Option<crate::state::local::LocalRef>,
}

impl ModeInputs for DialogInputs {
    const MODE: Mode = Mode::Run(RunKind::Dialog);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_dialogs_are_loaded_and_a_bad_line_is_kept_as_an_error() {
        let s = DialogState::default();
        assert_eq!(s.set.dialogs.len(), 22);
        assert!(s.set.errors.is_empty());
        let bytes: Rc<[u8]> = Rc::from(&b"{\"dialog_id\":\"a\",\"turns\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"ok\"}]}\nnot json\n"[..]);
        let s = Rc::new(s).reduce(DialogAction::LoadDialogs("d.jsonl".into(), bytes));
        assert_eq!((s.set.dialogs.len(), s.set.errors.len()), (1, 1));
        assert!(s.set.errors[0].to_string().starts_with("d.jsonl:2"));
    }

    #[test]
    fn scoring_needs_a_trace_and_reads_it_with_its_problems() {
        let s = DialogState::default();
        assert!(s.score(1, 2).is_err());
        let trace = b"{\"trace_version\":\"v1\",\"run_id\":\"r\",\"dialog_id\":\"nope\",\"dataset_index\":0,\"dialog_status\":\"ok\",\"valid_dialog\":true,\"turns\":[]}\n";
        let s = Rc::new(s).reduce(DialogAction::LoadTrace(
            "t.jsonl".into(),
            Rc::from(&trace[..]),
        ));
        let r = s.score(1, 2).expect("scored");
        assert_eq!(r.dialogs.len(), 22);
        assert!(r.problems.iter().any(|p| p.to_string().contains("nope")));
        assert!(r.file("metrics_summary.json").is_some());
        assert_eq!(r.files.len(), 5);
        assert_eq!(r.scored_from.as_deref(), Some("t.jsonl"));
    }
}
