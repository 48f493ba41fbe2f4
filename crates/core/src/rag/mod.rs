//! The RAG accuracy/citation check of spec 002, one room: its dataset reader
//! (`q`, `gold`, `doc_hint`), its run (the built-in `rag_qa` task on the one
//! [`Pipeline`](crate::run::Pipeline)), its case results and verdicts, its
//! `[EVAL]` console lines and Notes, its event-log records, its resume and its
//! report and files.

pub(crate) mod console;
mod end;
pub(crate) use report::KIND;

mod engine;
mod metrics;
mod records;
pub(crate) mod report;
mod result;
mod resume;

pub use crate::dataset::rag::{parse, RagCase, RagDataset};
pub use crate::rag_rules::accuracy::AccuracyVerdict;
pub use crate::rag_rules::citation::CitationVerdict;
pub use console::{case_line, finish_line, notes, notes_of, percent, reasons, start_line};
pub use engine::{Engine, RagKind};
pub use report::{build, rag_markdown, rag_outputs, RAG_METRICS};
pub use result::{CaseResult, RunConfig};
pub use resume::resumable;
