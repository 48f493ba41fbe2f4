//! The streaming event log of spec 000: record types, the JSONL and RFC 7464
//! json-seq writers, a tolerant reader, and reconciliation against the final report.
//!
//! The log is a side channel for watching and auditing a run; the final report
//! stays the source of truth. Every record carries `record_type`, `run_id` and
//! `ts_ms`; `meta` carries `tool` and `schema_version`. A dialog run adds a
//! `turn` record per settled turn pair (so it can resume mid-dialog), which
//! readers of the other records pass over. Fields are only ever added,
//! never renamed.

mod read;
mod reconcile;
pub(crate) mod record;
pub(crate) mod resume;
mod write;

pub use read::{read, LogFormat, ReadLog, Skipped};
pub use reconcile::{reconcile, Check, Reconciliation};
pub use record::{
    CaseRecord, ErrorRecord, MetaRecord, Record, StepRecord, SummaryMetrics, SummaryRecord,
    TurnCall, TurnRecord, SCHEMA_VERSION,
};
pub use resume::{PriorCall, Resumable};
pub use write::{jsonl_to_json_seq, to_json_seq, to_jsonl, write_json_seq, write_jsonl, RS};
