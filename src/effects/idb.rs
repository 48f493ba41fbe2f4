//! IndexedDB persistence of runs, so a reload or a crash loses nothing.
//!
//! Two object stores with out-of-line keys: `runs` (run id -> JSON of the run's
//! `state::stored::StoredRun`, one shape for both modes: identity, status,
//! progress and the mode's inputs, never a key) and `events` (`[run id, seq]`
//! -> one JSONL event line; `labels` keeps the viewer's review labels the
//! same way). A batch of events is written in one readwrite
//! transaction and counts as saved only when the transaction completes.

use js_sys::{Array, Function, Promise};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbDatabase, IdbKeyRange, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode,
};

use crate::state::stored::StoredRun;

const DB: &str = "evalpage";
const RUNS: &str = "runs";
const EVENTS: &str = "events";
/// The response cache (*Reuse answers from earlier runs*): cache key ->
/// JSON of a `CacheEntry` (no API key: see `evalpage_core::cache_key`).
const CACHE: &str = "cache";
/// People's labels of saved runs (the viewer's review): `[run key, seq]` ->
/// one JSONL label event, appended as the reviewer goes.
const LABELS: &str = "labels";

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
    on_commit(tx).await.map(|_| ()).map_err(err)
}

/// The commit (or failure) of `tx`, listened for from now on.
fn on_commit(tx: &IdbTransaction) -> JsFuture {
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
    JsFuture::from(promise)
}

/// Opens (and if needed creates) the database.
pub async fn open() -> Result<IdbDatabase, String> {
    if let Some(db) = OPEN.with(|c| c.borrow().clone()) {
        return Ok(db);
    }
    let db = open_new().await?;
    // The page keeps one connection: a run's first write and every cache
    // lookup then skip opening the database. A newer page in another tab
    // that upgrades the database asks this one to let go: it is closed, and
    // the next call opens the database again.
    let on_change = Closure::once_into_js(move || {
        if let Some(db) = OPEN.with(|c| c.borrow_mut().take()) {
            db.close();
        }
    });
    db.set_onversionchange(Some(on_change.unchecked_ref()));
    OPEN.with(|c| *c.borrow_mut() = Some(db.clone()));
    Ok(db)
}

thread_local! {
    /// The page's connection to the database, once opened.
    static OPEN: std::cell::RefCell<Option<IdbDatabase>> = const { std::cell::RefCell::new(None) };
}

async fn open_new() -> Result<IdbDatabase, String> {
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()
        .map_err(err)?
        .ok_or("IndexedDB is not available in this browser")?;
    // Version 2 added the response cache's store, 3 the labels'.
    let req: IdbOpenDbRequest = factory.open_with_u32(DB, 3).map_err(err)?;
    let upgrade = {
        let req = req.clone();
        Closure::once_into_js(move || {
            if let Ok(db) = req.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
                for name in [RUNS, EVENTS, CACHE, LABELS] {
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

/// Writes the run record and a batch of `(seq, line)` events in one transaction;
/// with `replace_events`, the run's earlier events are deleted in it first.
pub async fn save(
    db: &IdbDatabase,
    run: &StoredRun,
    events: &[(u32, String)],
    replace_events: bool,
) -> Result<(), String> {
    write(db, &run.run_id, Some(run), events, replace_events).await
}

/// Adds a batch of `(seq, line)` events of run `run_id` in one transaction,
/// leaving its record as it is (a record holds the run's dataset: a long
/// run writes it when it changes, not with every batch).
pub async fn append(
    db: &IdbDatabase,
    run_id: &str,
    events: &[(u32, String)],
) -> Result<(), String> {
    write(db, run_id, None, events, false).await
}

async fn write(
    db: &IdbDatabase,
    run_id: &str,
    run: Option<&StoredRun>,
    events: &[(u32, String)],
    replace_events: bool,
) -> Result<(), String> {
    // An append touches the events alone: its transaction is scoped to them.
    let stores = match run {
        Some(_) => Array::of2(&JsValue::from_str(RUNS), &JsValue::from_str(EVENTS)),
        None => Array::of1(&JsValue::from_str(EVENTS)),
    };
    // Relaxed durability: the transaction counts as committed once the browser
    // has handed it to the operating system, without waiting for the disk. A
    // killed tab or browser keeps it (the journal is write-ahead against that);
    // a power cut may lose the last writes, and a resume then asks those
    // cases again. Waiting for the disk would hold every call behind a flush.
    // (web-sys has the options only behind its unstable APIs, so the call is
    // made through `Reflect`.)
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"durability".into(), &"relaxed".into()).map_err(err)?;
    let transaction: js_sys::Function = js_sys::Reflect::get(db, &"transaction".into())
        .map_err(err)?
        .dyn_into()
        .map_err(err)?;
    let tx: IdbTransaction = transaction
        .call3(db, &stores, &"readwrite".into(), &options)
        .map_err(err)?
        .dyn_into()
        .map_err(err)?;
    if let Some(run) = run {
        let runs = tx.object_store(RUNS).map_err(err)?;
        let json = serde_json::to_string(run).map_err(|e| e.to_string())?;
        runs.put_with_key(&JsValue::from_str(&json), &JsValue::from_str(run_id))
            .map_err(err)?;
    }
    let store = tx.object_store(EVENTS).map_err(err)?;
    if replace_events {
        store.delete(&event_range(run_id)?).map_err(err)?;
    }
    for (seq, line) in events {
        let key = Array::of2(
            &JsValue::from_str(run_id),
            &JsValue::from_f64(f64::from(*seq)),
        );
        store
            .put_with_key(&JsValue::from_str(line), &key)
            .map_err(err)?;
    }
    // Commit now rather than when the transaction goes idle: a run's next call
    // waits for this commit (web-sys marks `commit` deprecated, so through
    // `Reflect`; a browser without it commits when idle, as before).
    let done = on_commit(&tx);
    if let Ok(commit) = js_sys::Reflect::get(&tx, &"commit".into()) {
        if let Some(commit) = commit.dyn_ref::<js_sys::Function>() {
            commit.call0(&tx).map_err(err)?;
        }
    }
    done.await.map(|_| ()).map_err(err)
}

/// Every stored run, newest first (records of an earlier shape are skipped).
pub async fn runs(db: &IdbDatabase) -> Result<Vec<StoredRun>, String> {
    let tx = db.transaction_with_str(RUNS).map_err(err)?;
    let all = done(&tx.object_store(RUNS).map_err(err)?.get_all().map_err(err)?).await?;
    let mut out: Vec<StoredRun> = Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .filter_map(|s| serde_json::from_str(&s).ok())
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.started_at_ms));
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

/// Appends label events (`(seq, line)`) of the run keyed `run_key`, in one
/// transaction that has committed when this returns.
pub async fn labels_add(
    db: &IdbDatabase,
    run_key: &str,
    lines: &[(u32, String)],
) -> Result<(), String> {
    let tx = db
        .transaction_with_str_and_mode(LABELS, IdbTransactionMode::Readwrite)
        .map_err(err)?;
    let store = tx.object_store(LABELS).map_err(err)?;
    for (seq, line) in lines {
        let key = Array::of2(
            &JsValue::from_str(run_key),
            &JsValue::from_f64(f64::from(*seq)),
        );
        store
            .put_with_key(&JsValue::from_str(line), &key)
            .map_err(err)?;
    }
    committed(&tx).await
}

/// The label events stored for the run keyed `run_key`, in order, as JSONL.
pub async fn labels_of(db: &IdbDatabase, run_key: &str) -> Result<String, String> {
    let tx = db.transaction_with_str(LABELS).map_err(err)?;
    let store = tx.object_store(LABELS).map_err(err)?;
    let all = done(
        &store
            .get_all_with_key(&event_range(run_key)?)
            .map_err(err)?,
    )
    .await?;
    Ok(Array::from(&all)
        .iter()
        .filter_map(|v| v.as_string())
        .collect())
}

/// The cache entry stored under `key`, as JSON, if any.
pub async fn cache_get(db: &IdbDatabase, key: &str) -> Result<Option<String>, String> {
    let tx = db.transaction_with_str(CACHE).map_err(err)?;
    let store = tx.object_store(CACHE).map_err(err)?;
    let found = done(&store.get(&JsValue::from_str(key)).map_err(err)?).await?;
    Ok(found.as_string())
}

/// Stores a cache entry (JSON) under `key`.
pub async fn cache_put(db: &IdbDatabase, key: &str, json: &str) -> Result<(), String> {
    let tx = db
        .transaction_with_str_and_mode(CACHE, IdbTransactionMode::Readwrite)
        .map_err(err)?;
    tx.object_store(CACHE)
        .map_err(err)?
        .put_with_key(&JsValue::from_str(json), &JsValue::from_str(key))
        .map_err(err)?;
    committed(&tx).await
}
