//! Where an endpoint backend takes answers from before (or instead of)
//! sending: the response cache (`--cache DIR`), or the answers of batch files
//! (`evalpage batch`), which answer every request and send none. `At` says
//! which call a request is.

use crate::cache::DirCache;
use evalpage_core::run::batch;
use evalpage_core::{cache_key, mock_judge_reply, Answer, CallError, CallOutcome, ChatMessage};
use evalpage_core::{ErrorKind, HttpRequest};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Which call a request is: its job (for a batch request's `custom_id`) and
/// which asking of the same request (the cache keys on it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct At {
    /// The engine's job number.
    pub job: usize,
    /// The repeat index (0 unless each sample is asked several times).
    pub repeat: u32,
    /// A judge's call: what follows it does not hang on its verdict (but
    /// for a repair), so a batch round can hold the job's next calls too.
    pub judge: bool,
}

/// Where a backend takes answers from before (or instead of) sending: the
/// response cache, or the answers of batch files (`evalpage batch`), which
/// answer every request and send none.
#[derive(Debug)]
pub enum Store {
    /// `--cache DIR`.
    Dir(DirCache),
    /// `evalpage batch export|import`.
    Batch(Arc<Book>),
}

impl Store {
    /// The outcome of a request before sending it, when the store has one
    /// (a batch store always has one: an answer, a failure, or not run).
    pub fn lookup(&self, req: &HttpRequest, at: At) -> Option<CallOutcome> {
        match self {
            Store::Dir(d) => d
                .get(&req.url, &req.body, at.repeat)
                .map(CallOutcome::Answer),
            Store::Batch(b) => Some(b.lookup(req, at)),
        }
    }

    /// Keeps an answer that was sent for (the response cache stores it).
    pub fn keep(&self, req: &HttpRequest, at: At, answer: &Answer, latency_ms: u64) {
        if let Store::Dir(d) = self {
            d.put(&req.url, &req.body, at.repeat, answer, latency_ms);
        }
    }
}

/// A request found in this drive, for the next round.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub(crate) custom_id: String,
    pub(crate) job: usize,
    pub(crate) nth: usize,
    pub(crate) key: String,
    pub(crate) body: Value,
}

/// What a batch drive answers requests from (see the module doc).
#[derive(Debug, Default)]
pub struct Book {
    /// By `custom_id`.
    answers: HashMap<String, CallOutcome>,
    /// Every request written, by (job, request key, occurrence of that key
    /// in the job): its `custom_id`.
    written: HashMap<(usize, String, usize), String>,
    /// Requests written per job (for the next `custom_id`).
    per_job: HashMap<usize, usize>,
    /// The round this drive's new requests go to.
    round: usize,
    /// Each job's case id, for `custom_id`s.
    names: OnceLock<Vec<Option<String>>>,
    /// This drive's state: how often each (job, key) was asked, and the
    /// requests found waiting.
    drive: Mutex<Drive>,
}

#[derive(Debug, Default)]
struct Drive {
    seen: HashMap<(usize, String), usize>,
    new_per_job: HashMap<usize, usize>,
    waiting: Vec<Waiting>,
}

impl Book {
    /// A book of these answers (by `custom_id`), of the requests written so
    /// far (by job, request key and occurrence), with the next round's number.
    pub fn new(
        answers: HashMap<String, CallOutcome>,
        written: HashMap<(usize, String, usize), String>,
        round: usize,
    ) -> Book {
        let mut per_job: HashMap<usize, usize> = HashMap::new();
        for (job, _, _) in written.keys() {
            *per_job.entry(*job).or_default() += 1;
        }
        Book {
            answers,
            written,
            per_job,
            round,
            ..Book::default()
        }
    }

    /// Names each job's case (for `custom_id`s), once, before the drive.
    pub fn name_jobs(&self, names: Vec<Option<String>>) {
        let _ = self.names.set(names);
    }

    /// The outcome of one request (never sent). A request the batch
    /// answered gets its answer; one written but not answered is not run;
    /// a new one waits for the next round. A judge's new request is
    /// answered meanwhile by the offline mock judge, so the job goes on to
    /// its later judge calls, which go into the same round (they do not
    /// hang on this verdict; a repair that the real verdict calls for
    /// comes in a round after).
    pub fn lookup(&self, req: &HttpRequest, at: At) -> CallOutcome {
        let Some(key) = cache_key(&req.url, &req.body, at.repeat) else {
            return CallOutcome::Failed(CallError::new(
                ErrorKind::InvalidResponse,
                "this request's body is not JSON; it cannot go into a batch file",
            ));
        };
        let Ok(mut drive) = self.drive.lock() else {
            return not_run("the batch's book is unusable".into());
        };
        let nth = {
            let n = drive.seen.entry((at.job, key.clone())).or_insert(0);
            *n += 1;
            *n - 1
        };
        if let Some(id) = self.written.get(&(at.job, key.clone(), nth)) {
            return match self.answers.get(id) {
                Some(o) => o.clone(),
                None => not_run(format!(
                    "no answer line for `{id}` in the batch answers imported"
                )),
            };
        }
        let name = self
            .names
            .get()
            .and_then(|n| n.get(at.job))
            .and_then(|n| n.as_deref());
        let new = {
            let n = drive.new_per_job.entry(at.job).or_insert(0);
            *n += 1;
            *n - 1
        };
        let call = self.per_job.get(&at.job).copied().unwrap_or(0) + new;
        let body: Value = serde_json::from_str(&req.body).unwrap_or(Value::Null);
        let stand_in = at
            .judge
            .then(|| {
                let messages: Vec<ChatMessage> =
                    serde_json::from_value(body.get("messages")?.clone()).ok()?;
                mock_judge_reply(&messages, nth as u64)
            })
            .flatten();
        drive.waiting.push(Waiting {
            custom_id: batch::custom_id(at.job, call, name),
            job: at.job,
            nth,
            key,
            body,
        });
        match stand_in {
            Some(verdict) => CallOutcome::Answer(Answer::from(verdict)),
            None => not_run(format!("waiting for round {}'s answer", self.round)),
        }
    }

    pub(crate) fn take_waiting(&self) -> Vec<Waiting> {
        self.drive
            .lock()
            .map(|mut d| std::mem::take(&mut d.waiting))
            .unwrap_or_default()
    }
}

fn not_run(message: String) -> CallOutcome {
    CallOutcome::Failed(CallError::new(ErrorKind::NotRun, message))
}
