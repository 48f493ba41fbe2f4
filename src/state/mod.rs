//! The page's state: plain data and pure reducers that wrap core types; no
//! effects. `app_state` and `settings` are the RAG check's; the `task_*`
//! modules are the task mode's (editors and their checks, dataset, models,
//! results); `dialog` and `retrieval` are the
//! lean modes on the generic runner; `keys` holds the origin-bound key rules; `stored` is the one
//! IndexedDB record of a run of either mode and `resume` the unfinished runs
//! offered after a reload.

pub mod app_state;
pub mod dialog;
pub mod keys;
pub mod limits;
pub mod resume;
pub mod retrieval;
pub mod settings;
pub mod share;
pub mod stored;
pub mod task_batch;
pub mod task_check;
pub mod task_code;
pub mod task_data;
pub mod task_models;
pub mod task_results;
pub mod task_state;
pub mod task_stored;
pub mod viewer;

pub use app_state::{
    AppAction, AppState, Artifacts, LoadedDataset, Mode, RunProgress, RunSnapshot, RunStatus,
};
pub use settings::{ModelCall, ModelSettings, Preset, Provider, PRESETS};
pub use task_state::{TaskAction, TaskArtifacts, TaskSnapshot, TaskState};
