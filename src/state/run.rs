//! What every run mode shows of a run: its status, its progress and the
//! files of a finished run.

use std::rc::Rc;

/// The run's state as shown (`data-testid="run-status"` text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Nothing started.
    Idle,
    /// Cases in flight.
    Running,
    /// Start was pressed while the model file on this device loads: the run
    /// starts once it is loaded (Cancel ends the wait).
    Waiting,
    /// Finished.
    Done,
    /// Cancelled by the user.
    Cancelled,
    /// Could not start or broke down.
    Failed,
}

impl RunStatus {
    /// `idle`, `running`, `waiting`, `done`, `cancelled`, `failed`.
    pub fn code(self) -> &'static str {
        match self {
            RunStatus::Idle => "idle",
            RunStatus::Running => "running",
            RunStatus::Waiting => "waiting",
            RunStatus::Done => "done",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
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
    /// Why the run stopped sending (a fatal answer, the engine in the page
    /// gone, the cost cap, no prompt rendered), if it did.
    pub stopped: Option<Stopped>,
}

/// The finished run's downloads.
#[derive(Clone, Debug, PartialEq)]
pub struct RunFiles {
    /// The eight artifacts, then the two event logs: (file name, text).
    pub files: Vec<(String, String)>,
    /// When the run ended (the zip entries' time), ms since the epoch.
    pub ended_at_ms: u64,
}

impl RunFiles {
    /// The text of one file.
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }
}

/// Whether two lists of settled results hold the same results, each compared
/// by identity: a result is made once, as one `Rc`, and every later snapshot
/// shares it, so this is what changed between two snapshots without walking
/// what each result holds.
pub fn same_each<T>(a: &[Option<Rc<T>>], b: &[Option<Rc<T>>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        })
}

/// Why a run stopped sending, as the core says it, and its message.
#[derive(Clone, Debug, PartialEq)]
pub struct Stopped {
    /// What stopped it: what the page advises follows from this.
    pub reason: evalpage_core::run::StopReason,
    /// The error that stopped it, as the core wrote it.
    pub message: String,
}
