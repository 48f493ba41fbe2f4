//! The browser's services: fetch, files, downloads, storage (web storage,
//! IndexedDB, Web Locks), timers and the URL. `runner` drives a run of any
//! kind (each mode's `run` module says what that mode shows of it) and
//! `journal` keeps its write-ahead record; `saved` and `locks` find the
//! unfinished runs no other tab is running. Async work is started here:
//! [`spawn`] is the page's one way to spawn it.

pub mod cache;
pub mod debounce;
pub mod download;
pub mod fetch;
pub mod files;
pub mod idb;
pub mod import;
pub mod journal;
pub mod local_model;
pub mod locks;
pub mod mcp;
pub mod modes;
pub mod parquet;
pub mod report_slices;
pub mod runner;
pub mod saved;
pub mod storage;
pub mod url;

/// Runs `work` on the page's event loop: the one place the page spawns
/// async work (`scripts/test.sh` checks that nothing else calls
/// `spawn_local`).
pub fn spawn(work: impl std::future::Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(work);
}

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// 24 random bits from the browser, for run ids (`RunKind::run_id`).
pub fn entropy() -> u32 {
    (js_sys::Math::random() * f64::from(1u32 << 24)) as u32
}
