//! Scoring a dialog trace produced elsewhere (issue 11, `evalpage score
//! --dialogs DATASET --dialog-trace TRACE`): no model call. The ground truth
//! (profile, tags, alignment) comes from the dataset; the predictions
//! (answers, `turn_status`, `recall`, `compliance`) from the trace, matched by
//! `dialog_id` and `turn_pair_id`. Judged metrics take the judge verdicts
//! given, or are reported as not run. With a judge, the shell reads the
//! trace first ([`prepare`]), runs the judge-only jobs of its answered turns
//! (`judge::JudgeOnlyKind`) and scores the trace with their verdicts
//! ([`score_prepared`]).
//!
//! Decisions where the spec is silent:
//! - A dataset dialog with no trace line is recorded as `failed` with
//!   `dialog_error` saying so, each of its pairs a failed turn: it stays in
//!   the denominators as failed, not silently dropped.
//! - A dialog the dataset cannot align is skipped whatever the trace says; a
//!   dialog the trace marks `valid_dialog: false` is skipped as the trace says.
//! - A pair of the dataset missing from a dialog's trace line is added to
//!   the written trace as a failed turn (`error: "not in the trace"`), so
//!   `dialog_trace.jsonl` and `turn_eval.jsonl` have the same pairs.
//! - A trace line whose `dialog_id` is not in the dataset, and a trace turn
//!   whose `user_text` differs from the dataset's, are reported as problems
//!   (file, line, field); the turn is still scored against the dataset.

use super::artifacts::{Artifacts, ProgressEvent};
use super::dataset::DialogSet;
use super::judge::JudgeInfo;
use super::kind::{failed_turn, skipped_trace};
use super::score::score_dialogs;
use super::summary::summarize_judged;
use super::trace::{read_traces, Counters, DialogTrace, RunManifest, TRACE_VERSION};
use super::turn_eval::{Judgements, ScoreOptions};
use super::vocab::{DialogStatus, TurnStatus};
use crate::dataset::LineError;
use crate::position::KeyError;
use crate::timefmt::rfc3339_ms;
use std::collections::BTreeMap;

/// What the caller knows about the scoring run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfflineRun {
    /// The dataset as given.
    pub dataset_path: String,
    /// The trace's file name, for problems.
    pub trace_file: String,
    /// The model evaluated, when known.
    pub model_name: Option<String>,
    /// Start and end, ms since the epoch (passed in).
    pub started_at_ms: u64,
    /// End.
    pub ended_at_ms: u64,
    /// Scoring choices (M1 from the conversation), in the manifest.
    pub scoring: ScoreOptions,
}

/// The artifacts of a scored trace, and the trace's problems.
#[derive(Clone, Debug, PartialEq)]
pub struct Offline {
    /// The five files' contents.
    pub artifacts: Artifacts,
    /// Trace lines that could not be read or matched.
    pub problems: Vec<LineError>,
}

/// A trace read and matched to the dataset, not yet scored.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The trace's run id (or, when it names none, `RunKind::scored_run_id`).
    pub run_id: String,
    /// One trace per dataset dialog, in dataset order.
    pub traces: Vec<DialogTrace>,
    /// Lines that could not be read or matched.
    pub problems: Vec<LineError>,
    progress: Vec<ProgressEvent>,
}

/// Scores `trace_bytes` against the dialogs of `set`.
pub fn score_trace(
    run: &OfflineRun,
    set: &DialogSet,
    trace_bytes: &[u8],
    judgements: &Judgements,
) -> Offline {
    score_prepared(run, set, prepare(run, set, trace_bytes), judgements, None)
}

/// Reads `trace_bytes` and matches it to the dialogs of `set` (see the module doc).
pub fn prepare(run: &OfflineRun, set: &DialogSet, trace_bytes: &[u8]) -> Prepared {
    let (read, mut problems) = read_traces(&run.trace_file, trace_bytes);
    let run_id = read.first().map_or_else(
        || crate::RunKind::scored_run_id(run.started_at_ms),
        |t| t.run_id.clone(),
    );
    let by_id: BTreeMap<&str, &DialogTrace> =
        read.iter().map(|t| (t.dialog_id.as_str(), t)).collect();
    for t in &read {
        if !set.dialogs.iter().any(|d| d.dialog_id == t.dialog_id) {
            problems.push(LineError::new(
                &run.trace_file,
                t.line,
                KeyError::new(
                    "dialog_id",
                    format!(
                        "`{}` is not a dialog of the dataset; not scored",
                        t.dialog_id
                    ),
                ),
            ));
        }
    }
    let mut traces = Vec::new();
    let mut progress = vec![ProgressEvent::run(
        &run_id,
        "run_started",
        0,
        set.dialogs.len(),
        run.started_at_ms,
    )];
    for d in &set.dialogs {
        let t = match (d.skip_reason(), by_id.get(d.dialog_id.as_str())) {
            (Some(why), _) => skipped_trace(&run_id, d, why),
            (None, Some(t)) => {
                for (i, turn) in t.turns.iter().enumerate() {
                    let differs = d
                        .pairs()
                        .iter()
                        .find(|p| p.turn_pair_id == turn.turn_pair_id)
                        .is_some_and(|p| p.user_text != turn.user_text);
                    if differs {
                        problems.push(LineError::new(
                            &run.trace_file,
                            t.line,
                            KeyError::new(
                                format!("turns[{i}].user_text"),
                                "differs from the dataset's user turn of this pair; scored against the dataset",
                            ),
                        ));
                    }
                }
                let mut t = (*t).clone();
                t.run_id = run_id.clone();
                for p in d.pairs() {
                    if !t.turns.iter().any(|x| x.turn_pair_id == p.turn_pair_id) {
                        let why = "not in the trace";
                        t.turns.push(failed_turn(p, TurnStatus::Error, why.into()));
                    }
                }
                t.turns.sort_by_key(|x| x.turn_pair_id);
                t
            }
            (None, None) => {
                let mut t = skipped_trace(&run_id, d, "");
                t.dialog_status = DialogStatus::Failed;
                t.valid_dialog = true;
                t.skip_reason = None;
                t.dialog_error = Some(format!("no line for this dialog_id in {}", run.trace_file));
                t.turns = d
                    .pairs()
                    .iter()
                    .map(|p| failed_turn(p, TurnStatus::Error, "not in the trace".into()))
                    .collect();
                t
            }
        };
        progress.push(ProgressEvent::dialog(
            &t,
            progress.len(),
            set.dialogs.len(),
            run.ended_at_ms,
        ));
        traces.push(t);
    }
    problems.sort_by_key(|e| e.line);
    Prepared {
        run_id,
        traces,
        problems,
        progress,
    }
}

/// Scores a prepared trace with the judge's verdicts (`judge`: the judge
/// that gave them, when one ran).
pub fn score_prepared(
    run: &OfflineRun,
    set: &DialogSet,
    prepared: Prepared,
    judgements: &Judgements,
    judge: Option<&JudgeInfo>,
) -> Offline {
    let Prepared {
        run_id,
        traces,
        problems,
        mut progress,
    } = prepared;
    let rows = score_dialogs(&set.dialogs, &traces, judgements, run.scoring);
    let counters = Counters::of(&traces, set.errors.len());
    let model = run
        .model_name
        .clone()
        .unwrap_or_else(|| "unknown (scored from a trace)".into());
    let summary = summarize_judged(&run_id, &model, counters.clone(), &rows, judge);
    progress.push(ProgressEvent::run(
        &run_id,
        "run_finished",
        set.dialogs.len(),
        set.dialogs.len(),
        run.ended_at_ms,
    ));
    Offline {
        artifacts: Artifacts {
            manifest: RunManifest {
                trace_version: TRACE_VERSION.into(),
                run_id,
                dataset_path: run.dataset_path.clone(),
                started_at: rfc3339_ms(run.started_at_ms),
                ended_at: Some(rfc3339_ms(run.ended_at_ms)),
                model_name: model,
                workers_dialog: 0,
                workers_judge: judge.map_or(0, |j| j.workers_judge),
                counters,
                notes: Some(format!(
                    "scored from {} without model calls; workers_dialog 0: no dialog was played here",
                    run.trace_file
                )),
                m1_from_conversation: run.scoring.m1_from_conversation,
                kind: Some(crate::RunKind::Dialog.tag().into()),
            },
            traces,
            rows,
            summary,
            progress,
        },
        problems,
    }
}
