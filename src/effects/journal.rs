//! The write-ahead journal of every run: event lines queue here with what
//! each one settles, are written to IndexedDB in one transaction per batch
//! (`idb::save` with the run record when its status changed, else
//! `idb::append`), and are released to the page only once that transaction
//! has committed. [`Journal::mark`] and [`Journal::is_saved`] tell the runner
//! when the lines queued so far are on disk: it holds the calls a step asks
//! for until then, so a settled case is saved before the next call goes out.
//! Without persistence (or after a failed write, which is reported and ends
//! persistence for the run) everything counts as saved at once.

use super::idb;
use crate::state::stored::StoredRun;
use web_sys::IdbDatabase;

struct Saver {
    record: StoredRun,
    /// The record's status as last handed to a write (`None`: never written).
    written: Option<String>,
    db: Option<IdbDatabase>,
    replace: bool,
    writing: bool,
}

/// Event lines on their way to storage, each with the item it releases.
pub struct Journal<T> {
    saver: Option<Saver>,
    pending: Vec<((u32, String), Option<T>)>,
    next_seq: u32,
    /// Every line before this sequence number is saved.
    saved: u32,
    error: Option<String>,
}

/// What to do with the next batch.
pub enum Take<T> {
    /// Nothing to write now (empty, or a write is under way).
    Wait,
    /// Not persisted: release these items now.
    Release(Vec<T>),
    /// Write this batch, then release its items.
    Write(Box<Batch<T>>),
}

/// One batch to write in one transaction.
pub struct Batch<T> {
    run_id: String,
    /// The run record, when it changed since it was last written.
    record: Option<StoredRun>,
    db: Option<IdbDatabase>,
    replace: bool,
    lines: Vec<(u32, String)>,
    /// The sequence number after the batch's last line.
    upto: u32,
    /// Items released once the batch is written.
    pub items: Vec<T>,
}

impl<T> Batch<T> {
    /// The mark after the batch's last line (for [`Journal::written`]).
    pub fn upto(&self) -> u32 {
        self.upto
    }

    /// Writes the batch's lines, and the run record when it changed, in one
    /// transaction (opening the database the first time).
    pub async fn write(&self) -> Result<IdbDatabase, String> {
        let db = match &self.db {
            Some(db) => db.clone(),
            None => idb::open().await?,
        };
        match &self.record {
            Some(record) => idb::save(&db, record, &self.lines, self.replace).await?,
            None => idb::append(&db, &self.run_id, &self.lines).await?,
        }
        Ok(db)
    }
}

impl<T> Journal<T> {
    /// A journal saving under `record` (with `replace`, the run's stored
    /// events are replaced in the first transaction), or releasing at once.
    pub fn new(persist: Option<(StoredRun, bool)>) -> Journal<T> {
        Journal {
            saver: persist.map(|(record, replace)| Saver {
                record,
                written: None,
                db: None,
                replace,
                writing: false,
            }),
            pending: Vec::new(),
            next_seq: 0,
            saved: 0,
            error: None,
        }
    }

    /// Queues an event line and the item it releases.
    pub fn push(&mut self, line: String, item: Option<T>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.pending.push(((seq, line), item));
    }

    /// The mark of the lines queued so far (see [`Journal::is_saved`]).
    pub fn mark(&self) -> u32 {
        self.next_seq
    }

    /// True once every line queued before `mark` is saved (always, without
    /// persistence).
    pub fn is_saved(&self, mark: u32) -> bool {
        self.saver.is_none() || self.saved >= mark
    }

    /// True when nothing waits and no write is under way.
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty() && !self.saver.as_ref().is_some_and(|s| s.writing)
    }

    /// Why the run stopped being saved, if it did.
    pub fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }

    /// The next batch; `update` sets the record's status, and the record goes
    /// with the batch when its status is not the one last written (the first
    /// batch, and the one that ends the run).
    pub fn take(&mut self, update: impl FnOnce(&mut StoredRun)) -> Take<T> {
        if self.pending.is_empty() || self.saver.as_ref().is_some_and(|s| s.writing) {
            return Take::Wait;
        }
        let (lines, items): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pending).into_iter().unzip();
        let items = items.into_iter().flatten().collect();
        let Some(s) = self.saver.as_mut() else {
            return Take::Release(items);
        };
        update(&mut s.record);
        s.writing = true;
        let changed = s.written.as_deref() != Some(s.record.status.as_str());
        let record = changed.then(|| s.record.clone());
        s.written = Some(s.record.status.clone());
        let batch = Box::new(Batch {
            run_id: s.record.run_id.clone(),
            record,
            db: s.db.clone(),
            replace: s.replace,
            lines,
            upto: self.next_seq,
            items,
        });
        s.replace = false;
        Take::Write(batch)
    }

    /// Records how the write of the batch that ends at `upto` went; a failure
    /// ends persistence for the run.
    pub fn written(&mut self, upto: u32, result: Result<IdbDatabase, String>) {
        match result {
            Ok(db) => {
                self.saved = self.saved.max(upto);
                if let Some(s) = self.saver.as_mut() {
                    s.writing = false;
                    s.db = Some(db);
                }
            }
            Err(e) => {
                let run = self.saver.as_ref().map(|s| s.record.run_id.clone());
                web_sys::console::warn_1(
                    &format!(
                        "evalpage: the run {} is not saved in this browser: {e}",
                        run.unwrap_or_default()
                    )
                    .into(),
                );
                self.error = Some(e);
                self.saver = None;
            }
        }
    }

    /// Drops the saved copy of a run that ended (its downloads are the record).
    pub fn forget(&self) {
        let Some((db, run_id)) = self
            .saver
            .as_ref()
            .and_then(|s| s.db.clone().map(|db| (db, s.record.run_id.clone())))
        else {
            return;
        };
        super::spawn(async move {
            if let Err(e) = idb::delete(&db, &run_id).await {
                web_sys::console::warn_1(
                    &format!("evalpage: could not drop the saved run {run_id}: {e}").into(),
                );
            }
        });
    }
}
