//! Resuming interrupted runs: what a resumed run takes over, and an
//! unfinished run found in this browser's storage after a reload.

use std::rc::Rc;

/// What a resumed run takes over from the interrupted one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Takeover {
    /// The interrupted run's id (kept, so both logs belong to one run).
    pub run_id: Option<String>,
    /// Its start time, when known (a resume from this browser's storage; it
    /// also seeds the retry jitter).
    pub started_at_ms: Option<u64>,
    /// Its event log (JSONL or json-seq): what it settled is not sent again.
    pub log: Option<Rc<str>>,
}

/// An unfinished run found in this browser's storage after a reload.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer<R> {
    /// The stored run.
    pub stored: R,
    /// Its saved event lines (JSONL).
    pub events: Rc<str>,
    /// Jobs already settled (its `case` records).
    pub done: usize,
}

impl<R> Offer<R> {
    /// What resuming it takes over: its id, start time and log.
    pub fn takeover(&self, run_id: &str, started_at_ms: u64) -> Takeover {
        Takeover {
            run_id: Some(run_id.to_string()),
            started_at_ms: Some(started_at_ms),
            log: Some(self.events.clone()),
        }
    }
}
