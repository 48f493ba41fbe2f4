//! The retrieval mode's page state (spec 000's retrieval evaluation): the
//! cases loaded, the endpoint (URL, request body template, list path), `k`
//! and concurrency, and the run's snapshot and files. Pure: the run itself
//! is `retrieval::run`.

use crate::state::keys::{EndpointForm, FormAction, Secret};
use crate::state::limits::Limits;
use crate::state::shell::Mode;
use crate::state::stored::{ModeInputs, StoredBytes, StoredFile};
use crate::state::{RunFiles, RunProgress, RunStatus};
use evalpage_core::retrieval::{
    bucket_means, parse_cases, RetrievalCase, Row, DEFAULT_BODY, DEFAULT_PATH, METRICS,
};
use evalpage_core::RunKind;
use evalpage_core::{demo, LineError};
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use yew::Reducible;

/// What the runner shows of a retrieval run.
#[derive(Clone, Debug, PartialEq)]
pub struct RetrievalSnapshot {
    /// Run status.
    pub status: RunStatus,
    /// Progress.
    pub progress: RunProgress,
    /// The cut-off.
    pub k: usize,
    /// Each case's row once settled, in dataset order.
    pub rows: Rc<Vec<Option<Row>>>,
}

impl RetrievalSnapshot {
    /// Each metric's mean over the settled cases (failed ones count as 0),
    /// with the number of cases, overall and per bucket.
    pub fn means(&self) -> Vec<(String, usize, [f64; 4])> {
        bucket_means(
            self.rows
                .iter()
                .flatten()
                .map(|r| (r.case.bucket.as_str(), r.score.values())),
        )
    }

    /// Settled cases without a list (failed calls, answers without a list).
    pub fn failed(&self) -> usize {
        self.rows.iter().flatten().filter(|r| !r.has_list()).count()
    }
}

/// The metric names in column order.
pub const COLUMNS: [&str; 4] = METRICS;

/// The retrieval page.
#[derive(Clone, Debug, PartialEq)]
pub struct RetrievalState {
    /// The cases file name.
    pub dataset_name: String,
    /// Its bytes.
    pub dataset_bytes: Rc<[u8]>,
    /// The valid cases.
    pub cases: Rc<Vec<RetrievalCase>>,
    /// Skipped lines.
    pub line_errors: Rc<Vec<LineError>>,
    /// The endpoint's URL (empty: the demo retriever in the page) and key,
    /// and a run's prompt before its key is sent.
    pub form: EndpointForm,
    /// Request body template.
    pub body: String,
    /// Path of the ranked list in the answer.
    pub path: String,
    /// The cut-off.
    pub k: usize,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// The answer policy (a retrieval service is not priced: no cap).
    pub limits: Limits,
    /// Why the run could not start.
    pub error: Option<Rc<str>>,
    /// The run, once started.
    pub snapshot: Option<Rc<RetrievalSnapshot>>,
    /// Its files, once it stopped (or why they could not be rendered).
    pub artifacts: Option<Result<Rc<RunFiles>, Rc<str>>>,
}

impl Default for RetrievalState {
    fn default() -> Self {
        let mut s = RetrievalState {
            dataset_name: String::new(),
            dataset_bytes: Rc::from(&[][..]),
            cases: Rc::default(),
            line_errors: Rc::default(),
            form: EndpointForm::default(),
            body: DEFAULT_BODY.to_string(),
            path: DEFAULT_PATH.to_string(),
            k: 5,
            concurrency: 4,
            limits: Limits::default(),
            error: None,
            snapshot: None,
            artifacts: None,
        };
        s.load(
            demo::RETRIEVAL_DATASET_NAME,
            demo::RETRIEVAL_DATASET.as_bytes(),
        );
        s
    }
}

impl RetrievalState {
    fn load(&mut self, name: &str, bytes: &[u8]) {
        let (cases, errors) = parse_cases(name, bytes);
        self.dataset_name = name.to_string();
        self.dataset_bytes = Rc::from(bytes);
        self.cases = Rc::new(cases);
        self.line_errors = Rc::new(errors);
    }

    /// What a run of this page stores (never the key).
    pub fn inputs(&self) -> RetrievalInputs {
        RetrievalInputs {
            cases: StoredFile {
                name: self.dataset_name.clone(),
                content: StoredBytes::of(&self.dataset_bytes),
            },
            url: self.form.url.clone(),
            body: self.body.clone(),
            path: self.path.clone(),
            k: self.k,
            concurrency: self.concurrency,
            limits: self.limits.clone(),
        }
    }

    /// True while a run is going.
    pub fn running(&self) -> bool {
        self.snapshot
            .as_ref()
            .is_some_and(|s| s.status == RunStatus::Running)
    }
}

/// What changes the retrieval page.
#[derive(Clone, Debug)]
pub enum RetrievalAction {
    /// A cases file was read.
    Load(String, Rc<[u8]>),
    /// A change of the endpoint form (URL, key, prompt).
    Form(FormAction),
    /// The body template.
    SetBody(String),
    /// The list path.
    SetPath(String),
    /// The cut-off.
    SetK(usize),
    /// Concurrency.
    SetConcurrency(usize),
    /// The answer policy.
    SetLimits(Limits),
    /// A stored run's inputs (resumed after a reload).
    Restore(Box<RetrievalInputs>, Secret),
    /// A run started.
    Started,
    /// The run could not start.
    Failed(Rc<str>),
    /// Progress.
    Progress(Rc<RetrievalSnapshot>),
    /// The run stopped.
    Finished(Rc<RetrievalSnapshot>, Result<Rc<RunFiles>, Rc<str>>),
}

impl Reducible for RetrievalState {
    type Action = RetrievalAction;

    fn reduce(self: Rc<Self>, action: RetrievalAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            RetrievalAction::Load(name, bytes) => {
                s.load(&name, &bytes);
                s.snapshot = None;
                s.artifacts = None;
                s.error = None;
            }
            RetrievalAction::Form(a) => s.form.apply(a),
            RetrievalAction::SetBody(b) => s.body = b,
            RetrievalAction::SetPath(p) => s.path = p,
            RetrievalAction::SetK(k) => s.k = k.max(1),
            RetrievalAction::SetConcurrency(c) => s.concurrency = c.clamp(1, 64),
            RetrievalAction::SetLimits(l) => s.limits = l,
            RetrievalAction::Restore(i, key) => {
                s.load(&i.cases.name, i.cases.content.bytes());
                s.form.url = i.url;
                s.body = i.body;
                s.path = i.path;
                s.k = i.k.max(1);
                s.concurrency = i.concurrency.clamp(1, 64);
                s.limits = i.limits;
                s.form.api_key = key;
            }
            RetrievalAction::Started => {
                s.form.key_prompt = None;
                s.error = None;
                s.snapshot = None;
                s.artifacts = None;
            }
            RetrievalAction::Failed(why) => s.error = Some(why),
            RetrievalAction::Progress(snap) => s.snapshot = Some(snap),
            RetrievalAction::Finished(snap, a) => {
                s.snapshot = Some(snap);
                s.artifacts = Some(a);
            }
        }
        Rc::new(s)
    }
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
    pub limits: crate::state::limits::Limits,
}

impl ModeInputs for RetrievalInputs {
    const MODE: Mode = Mode::Run(RunKind::Retrieval);
}
