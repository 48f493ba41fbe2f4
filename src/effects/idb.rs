//! IndexedDB persistence of runs, so a reload or a crash loses nothing.
//!
//! Two object stores with out-of-line keys: `runs` (run id -> JSON of the run's
//! record: a RAG check's `StoredRun` or a task run's `StoredTaskRun`, inputs
//! and settings without any key, status) and `events` (`[run id, seq]` -> one
//! JSONL event line). A batch of events is written in one readwrite transaction
//! and counts as saved only when the transaction completes. Both kinds of run
//! share the stores: each reader keeps the records that parse as its own kind
//! (their required fields differ: `dataset_text`/`settings` vs `task`/`models`).

use js_sys::{Array, Function, Promise};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbDatabase, IdbKeyRange, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode,
};

use crate::state::task_stored::StoredTaskRun;
use crate::state::ModelSettings;

const DB: &str = "evalpage";
const RUNS: &str = "runs";
const EVENTS: &str = "events";

/// What is kept of a run besides its events. Never holds the API key
/// (`ModelSettings` does not serialize it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    /// Run id.
    pub run_id: String,
    /// Start time, ms.
    pub started_at_ms: u64,
    /// `running`, `done` or `cancelled`.
    pub status: String,
    /// Dataset file name.
    pub dataset_name: String,
    /// Dataset text, to rebuild the cases on resume.
    pub dataset_text: String,
    /// Settings of the run.
    pub settings: ModelSettings,
    /// Interface language code.
    pub lang: String,
    /// Number of cases.
    pub total: usize,
}

fn err(e: JsValue) -> String {
    e.as_string().unwrap_or_else(|| format!("{e:?}"))
}

/// Resolves with the request's result when it succeeds.
async fn done(req: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let r = req.clone();
        let ok = Closure::once_into_js(move || {
            let _ = resolve.call1(&JsValue::NULL, &r.result().unwrap_or(JsValue::UNDEFINED));
        });
        let fail = Closure::once_into_js(move || {
            let _ = reject.call1(
                &JsValue::NULL,
                &JsValue::from_str("IndexedDB request failed"),
            );
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(fail.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(err)
}

/// Resolves when the transaction commits.
async fn committed(tx: &IdbTransaction) -> Result<(), String> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let fail = Closure::once_into_js(move || {
            let _ = reject.call1(
                &JsValue::NULL,
                &JsValue::from_str("IndexedDB transaction failed"),
            );
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onerror(Some(fail.unchecked_ref()));
        tx.set_onabort(Some(fail.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(err)
}

/// Opens (and if needed creates) the database.
pub async fn open() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(err)?
        .ok_or("IndexedDB is not available in this browser")?;
    let req: IdbOpenDbRequest = factory.open_with_u32(DB, 1).map_err(err)?;
    let upgrade = {
        let req = req.clone();
        Closure::once_into_js(move || {
            if let Ok(db) = req.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
                for name in [RUNS, EVENTS] {
                    if !db.object_store_names().contains(name) {
                        let _ = db.create_object_store(name);
                    }
                }
            }
        })
    };
    req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    done(&req).await?.dyn_into::<IdbDatabase>().map_err(err)
}

fn event_range(run_id: &str) -> Result<JsValue, String> {
    let lower = Array::of2(&JsValue::from_str(run_id), &JsValue::from_f64(0.0));
    let upper = Array::of2(&JsValue::from_str(run_id), &JsValue::from_f64(f64::MAX));
    IdbKeyRange::bound(&lower, &upper)
        .map(JsValue::from)
        .map_err(err)
}

/// What is stored as a run's record: it names its run.
pub trait RunRecord: Serialize + DeserializeOwned {
    /// The run id (the record's key).
    fn run_id(&self) -> &str;
    /// Start time, ms (newest first in [`runs`]).
    fn started_at_ms(&self) -> u64;
    /// `running`, `done` or `cancelled`.
    fn status(&self) -> &str;
    /// Sets `running`, `done` or `cancelled`.
    fn set_status(&mut self, status: &str);
}

impl RunRecord for StoredRun {
    fn run_id(&self) -> &str {
        &self.run_id
    }
    fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }
    fn status(&self) -> &str {
        &self.status
    }
    fn set_status(&mut self, status: &str) {
        self.status = status.to_string();
    }
}

impl RunRecord for StoredTaskRun {
    fn run_id(&self) -> &str {
        &self.run_id
    }
    fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }
    fn status(&self) -> &str {
        &self.status
    }
    fn set_status(&mut self, status: &str) {
        self.status = status.to_string();
    }
}

/// Writes the run record and a batch of `(seq, line)` events in one transaction;
/// with `replace_events`, the run's earlier events are deleted in it first.
pub async fn save<R: RunRecord>(
    db: &IdbDatabase,
    run: &R,
    events: &[(u32, String)],
    replace_events: bool,
) -> Result<(), String> {
    let stores = Array::of2(&JsValue::from_str(RUNS), &JsValue::from_str(EVENTS));
    let tx = db
        .transaction_with_str_sequence_and_mode(&stores, IdbTransactionMode::Readwrite)
        .map_err(err)?;
    let runs = tx.object_store(RUNS).map_err(err)?;
    let json = serde_json::to_string(run).map_err(|e| e.to_string())?;
    runs.put_with_key(&JsValue::from_str(&json), &JsValue::from_str(run.run_id()))
        .map_err(err)?;
    let store = tx.object_store(EVENTS).map_err(err)?;
    if replace_events {
        store.delete(&event_range(run.run_id())?).map_err(err)?;
    }
    for (seq, line) in events {
        let key = Array::of2(
            &JsValue::from_str(run.run_id()),
            &JsValue::from_f64(f64::from(*seq)),
        );
        store
            .put_with_key(&JsValue::from_str(line), &key)
            .map_err(err)?;
    }
    committed(&tx).await
}

/// Every stored run of kind `R`, newest first.
pub async fn runs<R: RunRecord>(db: &IdbDatabase) -> Result<Vec<R>, String> {
    let tx = db.transaction_with_str(RUNS).map_err(err)?;
    let all = done(&tx.object_store(RUNS).map_err(err)?.get_all().map_err(err)?).await?;
    let mut out: Vec<R> = Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .filter_map(|s| serde_json::from_str(&s).ok())
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.started_at_ms()));
    Ok(out)
}

/// The stored event lines of a run, in order, as one JSONL text.
pub async fn events(db: &IdbDatabase, run_id: &str) -> Result<String, String> {
    let tx = db.transaction_with_str(EVENTS).map_err(err)?;
    let store = tx.object_store(EVENTS).map_err(err)?;
    let all = done(&store.get_all_with_key(&event_range(run_id)?).map_err(err)?).await?;
    Ok(Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .collect())
}

/// Deletes a run and its events.
pub async fn delete(db: &IdbDatabase, run_id: &str) -> Result<(), String> {
    let stores = Array::of2(&JsValue::from_str(RUNS), &JsValue::from_str(EVENTS));
    let tx = db
        .transaction_with_str_sequence_and_mode(&stores, IdbTransactionMode::Readwrite)
        .map_err(err)?;
    tx.object_store(RUNS)
        .map_err(err)?
        .delete(&JsValue::from_str(run_id))
        .map_err(err)?;
    tx.object_store(EVENTS)
        .map_err(err)?
        .delete(&event_range(run_id)?)
        .map_err(err)?;
    committed(&tx).await
}
