//! A spec 001 dialog run on the one engine (issue 11): [`DialogKind`] makes
//! each playable dialog a job whose calls are its turns, in order. Each
//! request is the conversation so far: the optional system prompt, then for
//! every earlier pair the dataset's user turn and the model's own answer,
//! then this pair's user turn. Dialogs run in parallel up to the pool's
//! concurrency (`workers_dialog`): the pool sends the lowest-numbered pending
//! job first, so a dialog's next turn goes out before dialogs not yet
//! started, and about `workers_dialog` dialogs are in progress at once.
//!
//! Each answer is read for spec 001's trace fields (`reply.rs`). A turn has
//! a `recall` only when the system under test returned one: a plain chat
//! model recalls nothing, so its turns are not measured for M1 (`not_run`).
//! Only with the opt-in `ScoreOptions::m1_from_conversation` is the
//! conversation the run sent recorded as the turn's recall
//! (`recall.source: "run_conversation"`), so M1 searches what the model saw.
//!
//! Decisions where the spec is silent:
//! - A turn whose call fails for good (after the engine's retries) ends the
//!   dialog: later turns would be sent without the failed answer, a different
//!   conversation from the dataset's. The failed turn is recorded with
//!   `turn_status` `timeout` or `error` and the error; every later pair with
//!   `error` and "not sent". The dialog is `partial` when some turn was
//!   answered, `failed` when none was. None of these turns is eligible (§7).
//! - Skipped dialogs (not aligned) are not jobs: their trace lines are made
//!   up front (`dialog_status: skipped`, `valid_dialog: false`).
//! - A turn's `latency_ms` is its call's time from first send to answer
//!   (retries included; the judge's calls not); the dialog's `elapsed_ms`
//!   and `attempts` (judge calls included) are on its trace line.
//! - `worker_id` is the worker slot that played the dialog (0-based: the
//!   lowest free among the dialogs in progress when its first turn went
//!   out, see `JobOutcome::worker`); `session_id` and `user_id` are the
//!   dataset line's when it gives them, else `session_{dialog_id}` and
//!   `eval_user_{dialog_id}`: one session and one user per dialog.
//! - The event log (spec 000) gets `meta`, one `turn` record per turn pair
//!   as it settles (its answer and judging done: every call's answer as
//!   read, with its attempts and time, what a resume takes over, see
//!   `resume.rs`), one `case` per played dialog (`passed`: every turn
//!   answered; `turns_ok`: the turns answered; `metrics`: the dialog's
//!   M1–M5 values; with a judge, `judgements`: each judged turn's parts with
//!   the judge's raw answers and how each verdict was read, by
//!   `turn_pair_{id}`) and `summary`.
//!
//! With a judge (`judge.rs`), each turn's judge calls follow its answer as
//! dependent calls of the dialog's job on a second pool, the judge's
//! (`workers_judge` = its concurrency); the next turn is sent once the
//! turn's judging is done. Where the job stands is a pure function of its
//! answers ([`DialogKind`]'s `split`). A judge call that fails for good is
//! carried on past (its part unscored); the dialog's `attempts` and
//! `elapsed_ms` count its judge calls too (`judge_calls` says how many
//! answers were the judge's).

use super::artifacts::{Artifacts, ProgressEvent};
use super::dataset::{Dialog, DialogSet, TurnPair};
use super::judge::{turn_judgement, DialogJudge, TurnProgress};
use super::reply;
use super::score::score_dialog;
use super::summary::summarize_judged;
use super::trace::{
    conversation_text, Counters, DialogTrace, Recall, RunManifest, ShortTermTurn, TurnTrace,
    TRACE_VERSION,
};
use super::turn_eval::{MetricRun, ScoreOptions, TurnEval, TurnJudgement};
use super::vocab::{DialogStatus, TurnStatus};
use crate::events::{
    CaseRecord, MetaRecord, Record, SummaryMetrics, SummaryRecord, TurnCall, TurnRecord,
};
use crate::provider::{Answer, CallError, ChatMessage, ErrorKind};
use crate::report::{Counts, ErrorDetail};
use crate::run::{Call, JobOutcome, Kind, Pipeline, RunIdentity, RunSettings};
use crate::text::truncate_chars;
use crate::timefmt::rfc3339_ms;
use serde_json::json;
use std::collections::BTreeMap;

/// How a dialog run is set up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DialogRunConfig {
    /// Who runs what (`run.dataset`: the dataset as given, the manifest's
    /// `dataset_path`), and the scheduling of the one pool (`concurrency` is
    /// `workers_dialog`).
    pub run: RunIdentity,
    /// `openai`, `demo`.
    pub backend: String,
    /// The model evaluated.
    pub model_name: String,
    /// Endpoint base URL, if any.
    pub endpoint: Option<String>,
    /// The dataset's file name (the log's `dataset`).
    pub dataset_name: String,
    /// System prompt sent first in every request.
    pub system_prompt: Option<String>,
    /// Free text for the manifest's `notes`.
    pub notes: Option<String>,
    /// Scoring choices (M1 from the conversation), in the manifest.
    pub scoring: ScoreOptions,
}

/// A dialog evaluation as a kind of the one engine.
#[derive(Clone, Debug)]
pub struct DialogKind {
    cfg: DialogRunConfig,
    dialogs: Vec<Dialog>,
    bad_lines: usize,
    /// Job -> dialog index.
    jobs: Vec<usize>,
    /// By dialog index.
    traces: Vec<Option<DialogTrace>>,
    /// By dialog index.
    rows: Vec<Vec<TurnEval>>,
    progress: Vec<ProgressEvent>,
    done: usize,
    judge: Option<DialogJudge>,
}

/// A job's answers split by turn: the turns' answers, where each one is
/// among the job's answers, each answered turn's judge progress (by pair
/// index), and the call that is due next.
pub(super) struct Split {
    pub(super) turns: Vec<Answer>,
    pub(super) starts: Vec<usize>,
    judged: Vec<(usize, TurnProgress)>,
    pub(super) next: Option<Call>,
}

/// The dialog run: the one [`Pipeline`] over [`DialogKind`].
pub type DialogEngine = Pipeline<DialogKind>;

impl DialogKind {
    /// A run over the dialogs of `set` (skipped ones traced at once).
    pub fn new(cfg: DialogRunConfig, set: DialogSet) -> DialogKind {
        DialogKind::judged(cfg, set, None)
    }

    /// A run whose judged metrics are judged by `judge` (on its own pool).
    pub fn judged(cfg: DialogRunConfig, set: DialogSet, judge: Option<DialogJudge>) -> DialogKind {
        let n = set.dialogs.len();
        let mut k = DialogKind {
            jobs: (0..n)
                .filter(|i| set.dialogs[*i].skip_reason().is_none())
                .collect(),
            traces: vec![None; n],
            rows: vec![Vec::new(); n],
            progress: Vec::new(),
            done: 0,
            bad_lines: set.errors.len(),
            dialogs: set.dialogs,
            cfg,
            judge,
        };
        let t0 = k.cfg.run.started_at_ms;
        k.progress.push(ProgressEvent::run(
            &k.cfg.run.run_id,
            "run_started",
            0,
            n,
            t0,
        ));
        for i in 0..n {
            if let Some(why) = k.dialogs[i].skip_reason() {
                let t = skipped_trace(&k.cfg.run.run_id, &k.dialogs[i], why);
                k.done += 1;
                k.progress.push(ProgressEvent::dialog(&t, k.done, n, t0));
                k.traces[i] = Some(t);
            }
        }
        k
    }

    /// The conversation sent for pair `k` after `answers` (system prompt included).
    fn messages(&self, d: &Dialog, answers: &[Answer], k: usize) -> Vec<ChatMessage> {
        let mut m = Vec::new();
        if let Some(s) = self
            .cfg
            .system_prompt
            .as_deref()
            .filter(|s| !s.trim().is_empty())
        {
            m.push(ChatMessage::new("system", s));
        }
        let ask = |m: &mut Vec<ChatMessage>, p: &TurnPair| {
            for c in &p.context_before {
                m.push(ChatMessage::new("assistant", c.clone()));
            }
            for u in &p.user_messages {
                m.push(ChatMessage::new("user", u.clone()));
            }
        };
        for (p, a) in d.pairs().iter().zip(answers).take(k) {
            ask(&mut m, p);
            m.push(ChatMessage::new("assistant", reply::read(a).text));
        }
        if let Some(p) = d.pairs().get(k) {
            ask(&mut m, p);
        }
        m
    }

    /// Where a job stands after `answers` (see the module doc).
    pub(super) fn split(&self, d: &Dialog, answers: &[Answer]) -> Split {
        let mut turns: Vec<Answer> = Vec::new();
        let mut starts = Vec::new();
        let mut judged = Vec::new();
        let mut earlier: Vec<(String, String)> = Vec::new();
        let mut i = 0;
        for (k, p) in d.pairs().iter().enumerate() {
            let Some(a) = answers.get(i) else {
                let next = Call::chat(0, self.messages(d, &turns, k));
                return Split {
                    turns,
                    starts,
                    judged,
                    next: Some(next),
                };
            };
            starts.push(i);
            i += 1;
            turns.push(a.clone());
            let text = reply::read(a).text;
            if let Some(j) = &self.judge {
                let ctx = DialogJudge::context(d, p, &text, &earlier);
                let progress = j.walk(&ctx, answers.get(i..).unwrap_or_default());
                i += progress.consumed;
                let next = progress
                    .next
                    .as_ref()
                    .map(|(_, m)| Call::chat(1, m.clone()));
                judged.push((k, progress));
                if next.is_some() {
                    return Split {
                        turns,
                        starts,
                        judged,
                        next,
                    };
                }
            }
            earlier.push((p.user_text.clone(), text));
        }
        Split {
            turns,
            starts,
            judged,
            next: None,
        }
    }

    /// The `turn` record of the turn `answers` just completed (its answer
    /// and judging done: the next call is a new turn's, or none), with its
    /// calls from the job's answers and `calls` (attempts, ms); `None`
    /// while the last turn's judging goes on.
    fn turn_record(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Option<Record> {
        let d = self.dialog_of_job(job)?;
        let split = self.split(d, answers);
        if split.next.as_ref().is_some_and(|c| c.pool != 0) {
            return None;
        }
        let start = *split.starts.last()?;
        let pair = d.pairs().get(split.starts.len() - 1)?;
        let judge = self.judge.as_ref().map(|j| j.model.name.as_str());
        let calls = answers
            .iter()
            .enumerate()
            .skip(start)
            .map(|(i, a)| {
                let (attempts, elapsed_ms) = calls.get(i).copied().unwrap_or_default();
                let (role, model) = if i == start {
                    ("model", self.cfg.model_name.as_str())
                } else {
                    ("judge", judge.unwrap_or_default())
                };
                TurnCall {
                    role: role.into(),
                    model: model.into(),
                    answer: a.clone(),
                    attempts,
                    elapsed_ms,
                }
            })
            .collect();
        Some(Record::Turn(TurnRecord {
            run_id: self.cfg.run.run_id.clone(),
            ts_ms: now_ms,
            case_id: d.dialog_id.clone(),
            case_index: d.dataset_index,
            turn_pair_id: pair.turn_pair_id,
            user_text: pair.user_text.clone(),
            calls,
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &DialogRunConfig {
        &self.cfg
    }

    /// The judge, when the run has one.
    pub fn judge(&self) -> Option<&DialogJudge> {
        self.judge.as_ref()
    }

    /// Every dialog of the dataset, in order.
    pub fn dialogs(&self) -> &[Dialog] {
        &self.dialogs
    }

    /// The dialog of a job.
    pub fn dialog_of_job(&self, job: usize) -> Option<&Dialog> {
        self.dialogs.get(*self.jobs.get(job)?)
    }

    /// The trace of a job's dialog, once settled.
    pub fn trace_of_job(&self, job: usize) -> Option<&DialogTrace> {
        self.traces.get(*self.jobs.get(job)?)?.as_ref()
    }

    /// The `turn_eval.jsonl` rows of a job's dialog, once settled.
    pub fn rows_of_job(&self, job: usize) -> Option<&[TurnEval]> {
        let i = *self.jobs.get(job)?;
        self.traces.get(i)?.as_ref()?;
        self.rows.get(i).map(Vec::as_slice)
    }

    /// Progress events so far.
    pub fn progress(&self) -> &[ProgressEvent] {
        &self.progress
    }

    /// The five artifacts of the run as it stands (unsettled dialogs left
    /// out), closed at `now_ms`.
    pub fn artifacts(&self, now_ms: u64) -> Artifacts {
        let traces: Vec<DialogTrace> = self.traces.iter().flatten().cloned().collect();
        let rows: Vec<TurnEval> = self.rows.iter().flatten().cloned().collect();
        let counters = Counters::of(&traces, self.bad_lines);
        let info = self.judge.as_ref().map(DialogJudge::info);
        let summary = summarize_judged(
            &self.cfg.run.run_id,
            &self.cfg.model_name,
            counters.clone(),
            &rows,
            info.as_ref(),
        );
        let mut progress = self.progress.clone();
        progress.push(ProgressEvent::run(
            &self.cfg.run.run_id,
            "run_finished",
            self.done,
            self.dialogs.len(),
            now_ms,
        ));
        Artifacts {
            manifest: RunManifest {
                trace_version: TRACE_VERSION.into(),
                run_id: self.cfg.run.run_id.clone(),
                dataset_path: self.cfg.run.dataset.clone(),
                started_at: rfc3339_ms(self.cfg.run.started_at_ms),
                ended_at: Some(rfc3339_ms(now_ms)),
                model_name: self.cfg.model_name.clone(),
                workers_dialog: self.cfg.run.settings.concurrency,
                workers_judge: self.judge.as_ref().map_or(0, |j| j.settings.concurrency),
                counters,
                notes: self.cfg.notes.clone(),
                m1_from_conversation: self.cfg.scoring.m1_from_conversation,
                kind: Some(crate::RunKind::Dialog.tag().into()),
            },
            traces,
            rows,
            summary,
            progress,
        }
    }

    /// The trace line of a played dialog: `outcome.answers` are its turns'
    /// answers, `starts[i]` where turn `i`'s call is among `outcome.calls`.
    fn trace(&self, d: &Dialog, outcome: &JobOutcome, starts: &[usize]) -> DialogTrace {
        let pairs = d.pairs();
        let answered = outcome.answers.len();
        // The failed turn's call is the job's last (a judge call is carried on past).
        let failed_call = (outcome.error.is_some()
            && outcome.calls.len() > starts.last().map_or(0, |s| s + 1))
        .then(|| outcome.calls.len() - 1);
        let latency = |i: usize| -> Option<f64> {
            let at = starts
                .get(i)
                .copied()
                .or(failed_call.filter(|_| i == answered))?;
            outcome.calls.get(at).map(|(_, ms)| *ms as f64)
        };
        let mut turns = Vec::with_capacity(pairs.len());
        for (i, p) in pairs.iter().enumerate() {
            let mut t = match outcome.answers.get(i) {
                Some(a) => self.answered_turn(d, p, &outcome.answers[..i], a),
                None if i == answered => {
                    let e = outcome.error.clone().unwrap_or_else(|| {
                        CallError::new(
                            ErrorKind::InvalidResponse,
                            "the dialog ended without this turn",
                        )
                    });
                    let status = if e.kind == ErrorKind::Timeout {
                        TurnStatus::Timeout
                    } else {
                        TurnStatus::Error
                    };
                    failed_turn(p, status, e.message.clone())
                }
                None => failed_turn(
                    p,
                    TurnStatus::Error,
                    format!("not sent: turn pair {} failed before it", answered + 1),
                ),
            };
            t.latency_ms = latency(i);
            turns.push(t);
        }
        let status = match answered {
            0 => DialogStatus::Failed,
            n if n >= pairs.len() => DialogStatus::Ok,
            _ => DialogStatus::Partial,
        };
        let mut extra = serde_json::Map::new();
        extra.insert("elapsed_ms".into(), json!(outcome.elapsed_ms));
        extra.insert("attempts".into(), json!(outcome.attempts));
        extra.insert("line".into(), json!(d.line));
        if !d.alignment_notes.is_empty() {
            extra.insert("alignment_notes".into(), json!(d.alignment_notes));
        }
        if let Some(e) = &outcome.error {
            extra.insert("dialog_error_kind".into(), json!(e.kind));
        }
        DialogTrace {
            trace_version: TRACE_VERSION.into(),
            run_id: self.cfg.run.run_id.clone(),
            dialog_id: d.dialog_id.clone(),
            dataset_index: d.dataset_index,
            scenario_type: d.scenario_type.clone(),
            difficulty: d.difficulty.clone(),
            dialog_status: status,
            valid_dialog: true,
            skip_reason: None,
            worker_id: outcome.worker,
            session_id: Some(d.session()),
            user_id: Some(d.user()),
            turns,
            dialog_error: outcome.error.as_ref().map(|e| e.message.clone()),
            extra,
            line: 0,
        }
    }

    fn answered_turn(&self, d: &Dialog, p: &TurnPair, earlier: &[Answer], a: &Answer) -> TurnTrace {
        let r = reply::read(a);
        let mut extra = serde_json::Map::new();
        let recall = match r.recall {
            Some(recall) => Some(recall),
            None if !self.cfg.scoring.m1_from_conversation => None,
            None => {
                let sent: Vec<ChatMessage> = self
                    .messages(d, earlier, p.turn_pair_id - 1)
                    .into_iter()
                    .filter(|m| m.role != "system")
                    .collect();
                let mut recall = Recall {
                    query: Some(p.user_text.clone()),
                    short_term_context: Some(conversation_text(
                        sent.iter().map(|m| (m.role.as_str(), m.content.as_str())),
                    )),
                    short_term_turns: Some(
                        sent.iter()
                            .map(|m| ShortTermTurn {
                                role: m.role.clone(),
                                content: m.content.clone(),
                            })
                            .collect(),
                    ),
                    ..Recall::default()
                };
                recall
                    .extra
                    .insert("source".into(), json!("run_conversation"));
                Some(recall)
            }
        };
        extra.insert("trace_source".into(), json!(r.source.unwrap_or("run")));
        if !r.problems.is_empty() {
            extra.insert("trace_problems".into(), json!(r.problems));
        }
        if let Some(f) = &a.finish_reason {
            extra.insert("finish_reason".into(), json!(f));
        }
        if let Some(u) = &a.usage {
            extra.insert("usage".into(), json!(u));
        }
        TurnTrace {
            pred_assistant_text: Some(r.text),
            turn_status: TurnStatus::Ok,
            recall,
            tools: r.tools,
            compliance: r.compliance,
            profile_snapshot: r.profile_snapshot,
            extra,
            ..failed_turn(p, TurnStatus::Ok, String::new())
        }
        .without_error()
    }
}

impl TurnTrace {
    fn without_error(mut self) -> TurnTrace {
        self.error = None;
        self
    }
}

/// A turn pair that was not answered (or the base of one that was).
pub(crate) fn failed_turn(p: &TurnPair, status: TurnStatus, error: String) -> TurnTrace {
    TurnTrace {
        turn_pair_id: p.turn_pair_id,
        user_turn_abs_idx: p.user_turn_abs_idx,
        gt_assistant_abs_idx: p.gt_assistant_abs_idx,
        user_text: p.user_text.clone(),
        gt_assistant_text: p.gt_assistant_text.clone(),
        gt_turn_tags: p.tags.clone(),
        pred_assistant_text: None,
        latency_ms: None,
        turn_status: status,
        error: Some(error),
        recall: None,
        tools: None,
        compliance: None,
        profile_snapshot: None,
        extra: serde_json::Map::new(),
    }
}

/// The trace line of a dialog that is not played.
pub(crate) fn skipped_trace(run_id: &str, d: &Dialog, why: &str) -> DialogTrace {
    let mut extra = serde_json::Map::new();
    extra.insert("line".into(), json!(d.line));
    if !d.alignment_notes.is_empty() {
        extra.insert("alignment_notes".into(), json!(d.alignment_notes));
    }
    DialogTrace {
        trace_version: TRACE_VERSION.into(),
        run_id: run_id.into(),
        dialog_id: d.dialog_id.clone(),
        dataset_index: d.dataset_index,
        scenario_type: d.scenario_type.clone(),
        difficulty: d.difficulty.clone(),
        dialog_status: DialogStatus::Skipped,
        valid_dialog: false,
        skip_reason: Some(why.to_string()),
        worker_id: None,
        session_id: None,
        user_id: None,
        turns: Vec::new(),
        dialog_error: None,
        extra,
        line: 0,
    }
}

/// A dialog's own M1–M4 values for its `case` record (`None`: no eligible turn).
pub fn dialog_metrics(rows: &[TurnEval]) -> BTreeMap<String, Option<f64>> {
    let ratio = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
    let scored = |status: fn(&TurnEval) -> MetricRun| -> Vec<&TurnEval> {
        rows.iter()
            .filter(|r| status(r) == MetricRun::Scored)
            .collect()
    };
    let e1 = scored(|r| r.m1_status);
    let hit = e1
        .iter()
        .flat_map(|r| r.key_hit_flags.iter())
        .filter(|f| **f == 1)
        .count();
    let res = e1.iter().map(|r| r.key_hit_flags.len()).sum();
    let e2 = scored(|r| r.m2_status);
    let bad = e2
        .iter()
        .filter(|r| r.constraint_contradiction == 1)
        .count();
    let e3 = scored(|r| r.m3_status);
    let req: usize = e3.iter().map(|r| r.risk_required_tags.len()).sum();
    let found: usize = e3.iter().map(|r| r.risk_tag_hits).sum();
    let e4 = scored(|r| r.m4_status);
    let agree = e4
        .iter()
        .filter(|r| r.pred_compliance_label == r.gt_compliance_label)
        .count();
    let e3j = scored(|r| r.m3_judge_status);
    let req_j: usize = e3j.iter().map(|r| r.risk_required_tags.len()).sum();
    let found_j: usize = e3j.iter().filter_map(|r| r.risk_tag_hits_judge).sum();
    let e4j = scored(|r| r.m4_judge_status);
    let agree_j = e4j
        .iter()
        .filter(|r| r.pred_compliance_label_judge == r.gt_compliance_label)
        .count();
    let e5 = scored(|r| r.m5_status);
    let req5: usize = e5
        .iter()
        .filter(|r| r.rubric_hit_items.is_some())
        .map(|r| r.rubric_required.len())
        .sum();
    let met5: usize = e5
        .iter()
        .filter_map(|r| r.rubric_hit_items.as_ref())
        .map(Vec::len)
        .sum();
    let mut judged = BTreeMap::new();
    if rows.iter().any(|r| !r.judgements.is_empty()) {
        judged.insert(
            "m3_risk_disclosure_judge".to_string(),
            ratio(found_j, req_j),
        );
        judged.insert("m4_compliance_judge".to_string(), ratio(agree_j, e4j.len()));
        judged.insert("m5_explainability".to_string(), ratio(met5, req5));
    }
    let mut out = BTreeMap::from([
        ("m1_memory_recall".to_string(), ratio(hit, res)),
        (
            "m2_constraint_contradiction".to_string(),
            ratio(bad, e2.len()),
        ),
        ("m3_risk_disclosure".to_string(), ratio(found, req)),
        ("m4_compliance".to_string(), ratio(agree, e4.len())),
    ]);
    out.extend(judged);
    out
}

impl Kind for DialogKind {
    type Record = Record;

    fn identity(&self) -> &RunIdentity {
        &self.cfg.run
    }

    fn jobs(&self) -> usize {
        self.jobs.len()
    }

    fn case_id(&self, job: usize) -> Option<String> {
        Some(self.dialog_of_job(job)?.dialog_id.clone())
    }

    fn pools(&self) -> Vec<RunSettings> {
        let mut pools = vec![self.cfg.run.settings];
        pools.extend(self.judge.as_ref().map(|j| j.settings));
        pools
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        let Some(d) = self.dialog_of_job(job) else {
            return Ok(None);
        };
        Ok(self.split(d, answers).next)
    }

    fn carry_on(&self, job: usize, answers: &[Answer], error: &CallError) -> Option<Answer> {
        let d = self.dialog_of_job(job)?;
        let next = self.split(d, answers).next?;
        (next.pool == 1).then(|| DialogJudge::failed_call(error))
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<Record> {
        let Some(&i) = self.jobs.get(job) else {
            return Vec::new();
        };
        let d = &self.dialogs[i];
        let split = self.split(d, &outcome.answers);
        let judge_calls = outcome.answers.len() - split.turns.len();
        // the turns' answers, without a copy of every answer first
        let turns = JobOutcome {
            answers: split.turns,
            error: outcome.error.clone(),
            calls: outcome.calls.clone(),
            ..outcome
        };
        let mut trace = self.trace(d, &turns, &split.starts);
        let mut judgements: BTreeMap<usize, TurnJudgement> = BTreeMap::new();
        if let Some(j) = &self.judge {
            let info = j.info();
            let error = outcome.error.as_ref().map(|e| e.message.clone());
            for (k, progress) in split.judged {
                let parts = progress.finish(error.as_deref());
                if let Some(p) = d.pairs().get(k) {
                    judgements.insert(p.turn_pair_id, turn_judgement(&parts, &info));
                }
            }
            trace.extra.insert("judge_calls".into(), json!(judge_calls));
        }
        let rows = score_dialog(
            d,
            &trace,
            self.judge.as_ref().map(|_| &judgements),
            self.cfg.scoring,
        );
        let logged: BTreeMap<String, serde_json::Value> = judgements
            .iter()
            .map(|(id, j)| (format!("turn_pair_{id}"), json!(j.detail)))
            .collect();
        let last = trace
            .turns
            .iter()
            .rev()
            .find_map(|t| t.pred_assistant_text.clone());
        let record = Record::Case(CaseRecord {
            run_id: self.cfg.run.run_id.clone(),
            ts_ms: now_ms,
            case_id: d.dialog_id.clone(),
            case_index: d.dataset_index,
            line: d.line,
            passed: trace.dialog_status == DialogStatus::Ok,
            llm_call_ok: outcome.error.is_none(),
            metrics: Some(dialog_metrics(&rows)),
            elapsed_ms: outcome.elapsed_ms,
            attempts: outcome.attempts,
            answer_snippet: last.as_deref().map(|a| truncate_chars(a, 200)),
            error: outcome.error.as_ref().map(|e| e.message.clone()),
            error_detail: outcome.error.as_ref().map(ErrorDetail::from),
            judgements: (!logged.is_empty()).then_some(logged),
            turns_ok: Some(turns.answers.len()),
            ..CaseRecord::default()
        });
        self.done += 1;
        self.progress.push(ProgressEvent::dialog(
            &trace,
            self.done,
            self.dialogs.len(),
            now_ms,
        ));
        self.traces[i] = Some(trace);
        self.rows[i] = rows;
        vec![record]
    }

    fn restored(&self, _job: usize, _now_ms: u64) -> Option<Record> {
        None
    }

    fn meta(&self, now_ms: u64) -> Record {
        let c = &self.cfg;
        Record::Meta(MetaRecord {
            model: Some(c.model_name.clone()),
            endpoint: c.endpoint.clone(),
            ..MetaRecord::of(
                Some(crate::RunKind::Dialog),
                &c.run,
                &c.dataset_name,
                &c.backend,
                self.jobs.len(),
                now_ms,
            )
        })
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> Record {
        let played: Vec<&DialogTrace> = self
            .jobs
            .iter()
            .filter_map(|i| self.traces[*i].as_ref())
            .collect();
        let passed = played
            .iter()
            .filter(|t| t.dialog_status == DialogStatus::Ok)
            .count();
        let not_run = played
            .iter()
            .filter(|t| t.extra.get("dialog_error_kind") == Some(&json!(ErrorKind::NotRun)))
            .count();
        let metrics = SummaryMetrics {
            cases_total: played.len(),
            counts: Counts {
                passed_cases: passed,
                pass_rate: (!played.is_empty()).then(|| passed as f64 / played.len() as f64),
                failed_calls: played.len() - passed,
                not_run_cases: not_run,
                ..Counts::default()
            },
        };
        Record::Summary(SummaryRecord::of(&self.cfg.run, metrics, cancelled, now_ms))
    }

    fn mock_answer(&self, job: usize, messages: &[ChatMessage]) -> Answer {
        // The conversation alone says which dialog it follows, as it does for
        // `evalpage mock-server --dialogs` (which sees no job): two dialogs
        // that open with the same words are answered as the first of them.
        let _ = job;
        match crate::judge::mock::reply(messages, 0) {
            Some(text) => Answer {
                usage: Some(crate::demo::usage(messages, &text, None)),
                text,
                finish_reason: Some("stop".into()),
                ..Answer::default()
            },
            None => super::mock::reply(&self.dialogs, messages),
        }
    }

    fn error(&self, message: &str, now_ms: u64) -> Option<Record> {
        Some(Record::error(&self.cfg.run.run_id, message, now_ms))
    }

    fn answered(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Vec<Record> {
        self.turn_record(job, answers, calls, now_ms)
            .into_iter()
            .collect()
    }
}

impl Pipeline<DialogKind> {
    /// A dialog run over the dialogs of `set`.
    pub fn dialogs(cfg: DialogRunConfig, set: DialogSet) -> DialogEngine {
        Pipeline::over(DialogKind::new(cfg, set))
    }

    /// A dialog run whose judged metrics are judged by `judge`.
    pub fn judged_dialogs(
        cfg: DialogRunConfig,
        set: DialogSet,
        judge: Option<DialogJudge>,
    ) -> DialogEngine {
        Pipeline::over(DialogKind::judged(cfg, set, judge))
    }
}
