//! The only code that touches the browser: fetch, files, downloads, storage,
//! timers and the URL. `runner` is the one place that spawns a run's async
//! work, for every kind of evaluation; `rag_run` and `task_run` are what each
//! kind shows of its run.

pub mod debounce;
pub mod download;
pub mod fetch;
pub mod files;
pub mod idb;
pub mod journal;
pub mod locks;
pub mod rag_run;
pub mod runner;
pub mod saved;
pub mod storage;
pub mod task_run;
pub mod url;

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
