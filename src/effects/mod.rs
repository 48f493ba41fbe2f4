//! The only code that touches the browser: fetch, files, downloads, storage,
//! timers and the URL. `runner` (RAG check) and `task_runner` (task mode) are
//! the places that spawn a run's async work.

pub mod debounce;
pub mod download;
pub mod fetch;
pub mod files;
pub mod idb;
pub mod journal;
pub mod runner;
pub mod storage;
pub mod task_runner;
pub mod url;

/// Milliseconds since the Unix epoch, from the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
