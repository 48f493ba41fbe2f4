//! A task run's configuration: who runs what, the models and the repeats
//! (recorded in `meta`, never a key). Its own file so that the engine, its
//! event records and its resume each read it without reading one another.

use super::report::ModelSettings;
use crate::run::RunIdentity;

/// Who runs what (recorded in `meta`, never a key).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRunConfig {
    /// Who runs what, and the scheduling of each model's pool.
    pub run: RunIdentity,
    /// `mock` or `openai`.
    pub backend: String,
    /// The models, in report order.
    pub models: Vec<ModelSettings>,
    /// How many times each sample is asked, and the k of pass@k.
    pub repeats: super::repeats::Repeats,
}
