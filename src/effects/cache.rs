//! *Reuse answers from earlier runs* in the page: the response cache in
//! IndexedDB (the `cache` store), under the core's rules (`cache_key`,
//! `cacheable`, `CacheEntry::hit`), the same as the CLI's `--cache DIR`. The
//! switch is page-wide and read when a run starts; a run that uses the cache
//! looks every request up before it is sent and stores what is worth
//! keeping after. A cache that cannot be read or written is skipped (the
//! request is sent, the answer is used): it never fails a case.

use super::idb;
use evalpage_core::{cache_key, Answer, CacheEntry};
use std::cell::{Cell, RefCell};
use web_sys::IdbDatabase;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Turns the switch on or off (for runs started after).
pub fn set_enabled(on: bool) {
    ENABLED.with(|e| e.set(on));
}

/// Whether runs started now use the cache.
pub fn enabled() -> bool {
    ENABLED.with(Cell::get)
}

async fn db() -> Option<IdbDatabase> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Some(db);
    }
    let db = idb::open().await.ok()?;
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Some(db)
}

/// The cached answer of the `repeat`-th request to `url` with this body,
/// marked as a hit.
pub async fn lookup(url: &str, body: &str, repeat: u32) -> Option<Answer> {
    let key = cache_key(url, body, repeat)?;
    let json = idb::cache_get(&db().await?, &key).await.ok()??;
    CacheEntry::read_hit(json.as_bytes(), &key)
}

/// Stores an answer worth keeping, with its latency.
pub async fn store(url: &str, body: &str, repeat: u32, answer: &Answer, latency_ms: u64) {
    let Some(entry) = CacheEntry::of(url, body, repeat, answer, latency_ms, super::now_ms()) else {
        return;
    };
    let (Some(db), Ok(json)) = (db().await, serde_json::to_string(&entry)) else {
        return;
    };
    if let Err(e) = idb::cache_put(&db, &entry.key, &json).await {
        web_sys::console::warn_1(&format!("the answer could not be cached: {e}").into());
    }
}
