//! A spec 001 dialog run as the runner shows it: each dialog a job whose
//! calls are its turns (the core's `DialogKind`), each turn sent to the
//! OpenAI-compatible endpoint named in the mode (no key) or answered by the
//! dialog mock in the page after a small pretend latency; each dialog's
//! conversation and verdicts as it settles; at the end the five files `evalpage
//! run --dialogs` writes (the core's renderer) with both event logs.
//!
//! A key typed for the endpoint's origin goes with each turn (and with the
//! judge's calls when the judge is that endpoint), to that origin only; the
//! run is saved and resumed after a reload through the one launch path
//! (`dialog::launch`).

use crate::dialog::state::{DialogResults, DialogSnapshot, ShownDialog};
use crate::effects::runner::{transport_of, Ending, Handle, RunView, Transport, Update};
use crate::state::ModelCall;
use crate::state::{RunProgress, RunStatus};
use evalpage_core::dialog::{DialogEngine, DialogKind};
use evalpage_core::report::Prices;
use evalpage_core::run::{Ended, Kind};
use evalpage_core::ChatMessage;
use std::rc::Rc;

/// Pretend latency of the dialog mock per turn, ms.
const MOCK_LATENCY_MS: u32 = 40;

/// A handle on a running dialog evaluation.
pub type DialogRunHandle = Handle<DialogView>;

/// What the runner tells the dialog page.
pub type DialogUpdate = Update<DialogSnapshot, Result<Rc<DialogResults>, Rc<str>>>;

/// The dialog mode's side of the runner.
pub struct DialogView {
    /// Who answers the turns: the endpoint (with its key, if any, and the
    /// origin it was entered for), the model file in the page, or the
    /// dialog mock (`Mock`).
    model: ModelCall,
    /// Settled dialogs, by job.
    shown: Vec<Option<Rc<ShownDialog>>>,
    /// The judge on pool 1, if any: an endpoint, the model file, or the
    /// mock judge in the page (`Mock`).
    judge: Option<ModelCall>,
    /// Identical judge requests of a job seen so far (the mock judge's
    /// repeats differ, as the CLI's do).
    judged: std::cell::RefCell<evalpage_core::MockJudge>,
}

impl RunView for DialogView {
    type Kind = DialogKind;
    type Shown = (usize, Rc<ShownDialog>);
    type Snapshot = DialogSnapshot;
    type Artifacts = Result<Rc<DialogResults>, Rc<str>>;

    fn transport(
        &self,
        engine: &DialogEngine,
        job: usize,
        pool: usize,
        messages: &[ChatMessage],
    ) -> Transport {
        let (call, judging) = match (pool, &self.judge) {
            (1, Some(judge)) => (judge, true),
            _ => (&self.model, false),
        };
        transport_of(call, |_| Transport::Local {
            answer: match judging {
                true => self.judged.borrow_mut().answer(job, messages),
                false => engine.kind().mock_answer(job, messages),
            },
            latency_ms: MOCK_LATENCY_MS,
        })
    }

    fn settled(&self, engine: &DialogEngine, job: usize) -> Option<(usize, Rc<ShownDialog>)> {
        let k = engine.kind();
        let shown = ShownDialog {
            trace: k.trace_of_job(job)?.clone(),
            rows: k.rows_of_job(job)?.to_vec(),
        };
        Some((job, Rc::new(shown)))
    }

    fn show(&mut self, shown: Vec<(usize, Rc<ShownDialog>)>) {
        for (job, dialog) in shown {
            if let Some(slot) = self.shown.get_mut(job) {
                *slot = Some(dialog);
            }
        }
    }

    fn snapshot(
        &self,
        _engine: &DialogEngine,
        status: RunStatus,
        progress: RunProgress,
    ) -> DialogSnapshot {
        DialogSnapshot {
            status,
            progress,
            dialogs: Rc::new(self.shown.clone()),
        }
    }

    fn ending(&mut self, _: &DialogEngine) -> Ending<DialogKind> {
        Ending {
            inputs: (),
            prices: Prices::new(),
            metadata: None,
        }
    }

    fn finished(
        &mut self,
        engine: &DialogEngine,
        ended: Result<Ended, String>,
        logs: [(String, String); 2],
        ended_at_ms: u64,
    ) -> Result<Rc<DialogResults>, Rc<str>> {
        let mut files = ended.map_err(|e| Rc::from(e.as_str()))?.files;
        files.extend(logs);
        // What the page shows of the run; the files are the kind's.
        let artifacts = engine.kind().artifacts(ended_at_ms);
        Ok(Rc::new(DialogResults::shown(
            &artifacts,
            files,
            ended_at_ms,
        )))
    }
}

impl DialogView {
    /// The view of a run over `engine`, its turns answered by `model` and
    /// judged by `judge` on pool 1, if any. A pool answered by the model
    /// file in the page keeps one call in flight (the engine answers one at
    /// a time).
    pub fn new(
        engine: &mut DialogEngine,
        model: ModelCall,
        judge: Option<ModelCall>,
    ) -> DialogView {
        for (pool, call) in [Some(&model), judge.as_ref()].into_iter().enumerate() {
            if matches!(call, Some(ModelCall::InPage(_))) {
                engine.cap_pool(pool, 1);
            }
        }
        DialogView {
            model,
            shown: vec![None; engine.kind().jobs()],
            judge,
            judged: Default::default(),
        }
    }
}
