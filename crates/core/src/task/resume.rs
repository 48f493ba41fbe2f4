//! Resuming a task run from its event log (`evalpage run --task
//! --resume-from`, the page's reload): the `case` records of the interrupted
//! run become prior outcomes for [`TaskEngine::restore`], so only the rest is
//! sent. Same rules as the RAG run's `events::resumable`: a record counts when
//! its call succeeded and it carries the full `answer` (scored again, so the
//! resumed report equals an uninterrupted one), or when its call failed for a
//! reason other than a cancel. Cancelled calls and records without an answer
//! are sent again; records naming a model or sample this run does not have are
//! reported; prompt failures are not taken over (they are found again at start).

use super::engine::{PriorCall, TaskEngine, TaskKind};
use crate::events::resume::prior_calls;
use crate::events::ReadLog;
use crate::provider::ErrorKind;
use crate::run::{PoolModel, Start, TakenOver};
use std::collections::HashMap;

/// What can be taken over from a task run's log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskResumable {
    /// The interrupted run's id (from `meta`).
    pub run_id: Option<String>,
    /// Settled calls, in job order.
    pub calls: Vec<PriorCall>,
    /// `model/sample` of records this run has no job for (ignored).
    pub unknown: Vec<String>,
    /// `model/sample` of records that will be sent again.
    pub rerun: Vec<String>,
    /// Agent cases with `step` records, by job (`model/sample` keys).
    pub stepped: std::collections::BTreeMap<usize, String>,
}

/// The settled calls of an interrupted task run, read by the one log
/// reader (`events::prior_calls`) with a job numbered as the engine numbers
/// it (`(model * samples + sample) * repeats + repeat`).
pub fn resumable(log: &ReadLog, engine: &TaskEngine) -> TaskResumable {
    let n = engine.samples().len();
    let samples: HashMap<&str, usize> = engine
        .samples()
        .iter()
        .enumerate()
        .map(|(i, s)| (s.sample.id.as_str(), i))
        .collect();
    let models: HashMap<&str, usize> = engine
        .config()
        .models
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let repeats = engine.repeats();
    let job_of = |model: Option<&str>, id: &str, repeat: Option<u32>| {
        let repeat = repeat.unwrap_or(0);
        (repeat < repeats).then_some(())?;
        let case = models.get(model?)? * n + samples.get(id)?;
        Some(case * repeats as usize + repeat as usize)
    };
    let prior = prior_calls(log, job_of, |e| e.kind == ErrorKind::Prompt);
    TaskResumable {
        run_id: prior.run_id,
        calls: prior.calls,
        unknown: prior.unknown,
        rerun: prior.rerun,
        stepped: prior.stepped,
    }
}

/// A task run's pools are its models' in order, then the judge's; a resume
/// takes over the settled calls of its samples × models.
impl Start for TaskKind {
    type Log = ReadLog;

    fn pool_models(&self) -> Vec<PoolModel> {
        let models = self.cfg.models.iter().map(|m| PoolModel {
            name: m.name.clone(),
            judge: false,
        });
        let judge = self.judge.as_ref().map(|j| PoolModel {
            name: j.model.name.clone(),
            judge: true,
        });
        models.chain(judge).collect()
    }

    fn take_over(engine: &mut TaskEngine, log: &ReadLog) -> TakenOver {
        let prior = resumable(log, engine);
        let mut notes: Vec<String> = prior
            .unknown
            .iter()
            .map(|key| format!("`{key}` is not a sample and model of this run; ignored"))
            .collect();
        let jobs = engine.restore(prior.calls);
        // An agent case the log cut mid-trajectory is run again from its
        // first step, in a new session: its first new step record says so.
        for (job, key) in prior.stepped {
            if engine.result(job).is_none() {
                notes.push(format!(
                    "`{key}`: its trajectory was cut; run again from its first step"
                ));
                engine.kind_mut().restarted.insert(job);
            }
        }
        TakenOver {
            unit: "cases",
            jobs,
            total: engine.jobs(),
            notes,
        }
    }
}
