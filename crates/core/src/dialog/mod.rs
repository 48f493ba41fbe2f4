//! Spec 001 multi-turn dialog evaluation (issue 11, the dialog part): the
//! dialog dataset and its turn-pair alignment (`dataset`), the trace records
//! and their v1/v1.x reader (`trace`), the enums and risk-tag set (`vocab`),
//! the §6 resolver (`resolve`), the `turn_eval.jsonl` row (`turn_eval`),
//! M1–M5 one unit per metric with §7's eligibility and its aggregate
//! (`metrics`, registered once), run over each turn pair (`score`) and over
//! the rows (`summary`), the five artifacts (`artifacts`),
//! the run as a kind of the one engine (`kind`, reading endpoint trace
//! fields with `reply`), resuming a run from its event log's `turn` records
//! (`resume`), scoring a trace produced elsewhere (`offline`), and the
//! deterministic mock model (`mock`).
//!
//! Judged metrics (M3 and M4 by a judge, M5) take a [`TurnJudgement`] per
//! turn, from the dialog judge (`judge`: built-in prompts, strict verdicts,
//! repairs; in a run its calls follow each turn on the judge's pool, for a
//! trace they are a run of judge-only jobs); without one they are reported
//! as not run.

pub(crate) mod artifacts;
pub(crate) mod dataset;
mod end;
pub(crate) use end::KIND;
pub(crate) mod judge;
pub(crate) mod kind;
pub(crate) mod metrics;
pub(crate) mod mock;
pub(crate) mod offline;
pub(crate) mod reply;
pub(crate) mod resolve;
pub(crate) mod resume;
pub(crate) mod score;
pub(crate) mod summary;
pub(crate) mod trace;
pub(crate) mod turn_eval;
pub(crate) mod vocab;

pub use artifacts::{file_names, progress_file, render, Artifacts, ProgressEvent};
pub use dataset::{parse as parse_dialogs, Dialog, DialogSet};
pub use end::metric_lines;
pub use judge::{
    prompts as judge_prompts, DialogJudge, JudgeInfo, JudgeOnlyEngine, JudgeOnlyKind, JudgePrompts,
};
pub use kind::{DialogEngine, DialogKind, DialogRunConfig};
pub use mock::{answer as mock_answer, reply as mock_reply, MODEL_NAME as MOCK_MODEL_NAME};
pub use offline::{
    prepare as prepare_trace, score_prepared, score_trace, Offline, OfflineRun, Prepared,
};
pub use resume::{resumable, DialogResumable};
pub use summary::MetricsSummary;
pub use trace::{read_traces, DialogTrace, ToolCall};
pub use turn_eval::{JudgedPart, Judgements, MetricRun, ScoreOptions, TurnEval, TurnJudgement};
pub use vocab::{ComplianceLabel, DialogStatus, TurnStatus};
