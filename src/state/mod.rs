//! The state every mode shares: plain data and pure reducers that wrap core
//! types; no effects. `shell` is what every mode's root holds (language, key
//! ring, the mode shown); `run` what every mode shows of a run; `settings`
//! the model settings of an endpoint; `keys` the origin-bound key rules;
//! `limits` a run's price, spending cap and answer policy; `stored` the one
//! IndexedDB record of a run of any mode and `resume` the unfinished runs
//! offered after a reload; `share` a share link's fields. Each mode's own
//! state is in its folder (`rag::state`, `task::state`, `retrieval::state`,
//! `dialog::state`, `viewer::state`).

pub mod keys;
pub mod limits;
pub mod local;
pub mod resume;
pub mod run;
pub mod settings;
pub mod share;
pub mod shell;
pub mod stored;

pub use run::{same_each, RunFiles, RunProgress, RunStatus};
pub use settings::{ModelCall, ModelSettings, Preset, Provider, PRESETS};
pub use shell::{Mode, ShellAction, ShellState};
