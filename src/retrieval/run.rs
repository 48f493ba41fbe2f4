//! A retrieval evaluation (spec 000) as the runner shows it: each case's
//! query sent to the retrieval endpoint as its JSON body (or answered by the
//! demo retriever in the page after a small pretend latency), the case rows
//! as they settle, and at the end every file the CLI writes for
//! `run --retrieval` (the core's renderer) with both event logs.
//! A key typed for the endpoint's origin goes with each request as a bearer
//! token, to that origin only; the run is saved and resumed after a reload
//! through the one launch path (`retrieval::launch`).

use crate::effects::runner::{Ending, Handle, RunView, Transport, Update};
use crate::retrieval::state::RetrievalSnapshot;
use crate::state::{RunFiles, RunProgress, RunStatus};
use evalpage_core::report::Prices;
pub use evalpage_core::retrieval::RetrievalFiles;
use evalpage_core::retrieval::{RetrievalEngine, RetrievalKind, Row};
use evalpage_core::run::{Ended, Kind};
use evalpage_core::ApiKey;
use evalpage_core::ChatMessage;
use std::rc::Rc;

/// Pretend latency of the demo retriever, ms.
const DEMO_LATENCY_MS: u32 = 60;

/// A handle on a running retrieval evaluation.
pub type RetrievalRunHandle = Handle<RetrievalView>;

/// What the runner tells the retrieval page.
pub type RetrievalUpdate = Update<RetrievalSnapshot, Result<Rc<RunFiles>, Rc<str>>>;

/// The retrieval mode's side of the runner.
pub struct RetrievalView {
    demo: bool,
    /// The key and the origin it was entered for.
    key: Option<(ApiKey, String)>,
    rows: Vec<Option<Row>>,
    files: RetrievalFiles,
}

impl RunView for RetrievalView {
    type Kind = RetrievalKind;
    type Shown = (usize, Row);
    type Snapshot = RetrievalSnapshot;
    type Artifacts = Result<Rc<RunFiles>, Rc<str>>;

    fn transport(
        &self,
        engine: &RetrievalEngine,
        job: usize,
        _pool: usize,
        messages: &[ChatMessage],
    ) -> Transport {
        if self.demo {
            Transport::Local {
                answer: engine.kind().mock_answer(job, messages),
                latency_ms: DEMO_LATENCY_MS,
            }
        } else {
            Transport::Json(engine.config().endpoint.url.clone(), self.key.clone())
        }
    }

    fn settled(&self, engine: &RetrievalEngine, job: usize) -> Option<(usize, Row)> {
        Some((job, engine.row(job)?.clone()))
    }

    fn show(&mut self, shown: Vec<(usize, Row)>) {
        for (job, row) in shown {
            if let Some(slot) = self.rows.get_mut(job) {
                *slot = Some(row);
            }
        }
    }

    fn snapshot(
        &self,
        engine: &RetrievalEngine,
        status: RunStatus,
        progress: RunProgress,
    ) -> RetrievalSnapshot {
        RetrievalSnapshot {
            status,
            progress,
            k: engine.config().k,
            rows: Rc::new(self.rows.clone()),
        }
    }

    fn ending(&mut self, _: &RetrievalEngine) -> Ending<RetrievalKind> {
        Ending {
            inputs: self.files.clone(),
            prices: Prices::new(),
            metadata: self
                .files
                .metadata
                .as_ref()
                .map(|_| "metadata.json".to_string()),
        }
    }

    fn finished(
        &mut self,
        _: &RetrievalEngine,
        ended: Result<Ended, String>,
        logs: [(String, String); 2],
        ended_at_ms: u64,
    ) -> Result<Rc<RunFiles>, Rc<str>> {
        let mut files = ended.map_err(|e| Rc::from(e.as_str()))?.files;
        files.extend(logs);
        Ok(Rc::new(RunFiles { files, ended_at_ms }))
    }
}

impl RetrievalView {
    /// The view of a run over `engine`: the demo retriever in the page, or
    /// the endpoint with this key (and the origin it was entered for).
    pub fn new(
        engine: &RetrievalEngine,
        demo: bool,
        files: RetrievalFiles,
        key: Option<(ApiKey, String)>,
    ) -> RetrievalView {
        RetrievalView {
            demo,
            key,
            rows: vec![None; engine.cases().len()],
            files,
        }
    }
}
