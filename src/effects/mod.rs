//! The only code that touches the browser: fetch, files, downloads, storage
//! (web storage, IndexedDB, Web Locks), timers and the URL, and the only code
//! that spawns async work (the page passes callbacks in). `runner` drives a
//! run of any kind; `rag_run`, `task_run`, `retrieval_run` and `dialog_run` are what each kind
//! shows of it;
//! `saved` and `locks` find the unfinished runs no other tab is running.

pub mod cache;
pub mod debounce;
pub mod dialog_run;
pub mod download;
pub mod fetch;
pub mod files;
pub mod idb;
pub mod journal;
pub mod locks;
pub mod modes;
pub mod rag_run;
pub mod report_slices;
pub mod retrieval_run;
pub mod runner;
pub mod saved;
pub mod storage;
pub mod task_run;
pub mod url;

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// 24 random bits from the browser, for run ids (`RunKind::run_id`).
pub fn entropy() -> u32 {
    (js_sys::Math::random() * f64::from(1u32 << 24)) as u32
}
