//! The page's state: plain data and pure reducers that wrap core types.

pub mod app_state;
pub mod settings;

pub use app_state::{
    AppAction, AppState, Artifacts, LoadedDataset, ResumeOffer, RunSnapshot, RunStatus,
};
pub use settings::{ModelSettings, Preset, Provider, PRESETS};
