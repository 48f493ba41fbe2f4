//! evalpage-core: the pure heart of evalpage.
//!
//! Everything that decides a number lives here: dataset parsing, text normalization,
//! scoring, the sans-IO run engine, the event log and the final report. The crate
//! never touches a clock, a socket, a file or a random source: time, seeds and
//! model answers are passed in by the caller (the Yew page or the CLI), so both
//! shells produce the same report from the same answers.

pub mod console;
pub mod dataset;
pub mod demo;
pub mod events;
pub mod lang;
pub mod metric;
pub mod position;
pub mod prompt;
pub mod provider;
pub mod report;
pub mod run;
pub mod schema;
pub mod scorer;
pub mod task;
pub mod task_run;
pub mod text;
pub mod timefmt;

pub use lang::Lang;
