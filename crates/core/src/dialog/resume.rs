//! Resuming a dialog run from its event log (`evalpage run --dialogs
//! --resume-from`): the `turn` records of the interrupted run (each settled
//! turn's answer and judge calls, written as the turn settled) are read by
//! the one log reader (`events::prior_calls`, a job numbered as the run's
//! playable dialogs) and handed to the engine as the dialog's first answers
//! (`Pipeline::restore_calls`), so a dialog goes on at its first unsettled
//! turn with its conversation rebuilt from the answers, the judge's settled
//! verdicts are walked again instead of asked again, and a dialog whose
//! every turn settled is scored at start as if its answers had just come.
//!
//! Same rules as the other kinds: a dialog that failed for good (a turn's
//! call after its retries) is taken over with its failure, unless it was
//! cancelled, not run or stopped at a fatal answer (401, 403, 404: what the
//! resume fixed), which go on from their settled turns. A dialog's turns
//! are taken over in order while they fit this run: the same user message
//! was asked, the same model answered, the same judge (or none) judged, and
//! the answers split into the same turns and judge calls as this run's
//! dialogs and judge make them; from the first turn that does not fit, the
//! dialog is played again.

use super::kind::{DialogEngine, DialogKind};
use crate::events::resume::prior_calls;
use crate::events::{ReadLog, TurnRecord};
use crate::provider::Answer;
use crate::run::{Kind, PoolModel, PriorJob, Start, TakenOver};
use std::collections::{BTreeMap, HashMap};

/// What can be taken over from a dialog run's log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DialogResumable {
    /// The interrupted run's id (from `meta`; a resumed run keeps it).
    pub run_id: Option<String>,
    /// Each dialog's taken-over calls, by job.
    pub jobs: Vec<(usize, PriorJob)>,
    /// Turn pairs taken over, over every dialog.
    pub turns: usize,
    /// Dialogs the log settles whole (every turn, or their failure).
    pub settled: usize,
    /// Dialog ids in the log that this run does not play (ignored).
    pub unknown: Vec<String>,
    /// Dialog ids with a recorded turn that does not fit this run (another
    /// model or judge, or a changed dialog): played again from that turn.
    pub unfit: Vec<String>,
}

/// The settled turns of an interrupted dialog run, for `engine`'s dialogs.
pub fn resumable(log: &ReadLog, engine: &DialogEngine) -> DialogResumable {
    let k = engine.kind();
    let index: HashMap<&str, usize> = (0..k.jobs())
        .filter_map(|job| Some((k.dialog_of_job(job)?.dialog_id.as_str(), job)))
        .collect();
    let prior = prior_calls(log, |_, id, _| index.get(id).copied(), |_| false);
    let mut out = DialogResumable {
        run_id: prior.run_id,
        unknown: prior.unknown,
        ..DialogResumable::default()
    };
    let failures: BTreeMap<usize, _> = prior.calls.into_iter().map(|c| (c.job, c)).collect();
    for job in 0..k.jobs() {
        let empty = BTreeMap::new();
        let turns = prior.turns.get(&job).unwrap_or(&empty);
        let (answers, fit) = taken_turns(k, job, turns);
        let n = answers.len();
        if !fit {
            if let Some(d) = k.dialog_of_job(job) {
                out.unfit.push(d.dialog_id.clone());
            }
        }
        let whole = complete(k, job, &answers);
        let mut prior_job = PriorJob {
            answers: answers.into_iter().flatten().collect(),
            failed: None,
        };
        // a failure at a turn's own call, after exactly the turns taken
        if let Some(call) = failures.get(&job) {
            if let (Err(e), Some(ok)) = (&call.outcome, call.turns_ok) {
                if ok == n && fit {
                    let attempts: u32 = prior_job.answers.iter().map(|a| a.1).sum();
                    let ms: u64 = prior_job.answers.iter().map(|a| a.2).sum();
                    prior_job.failed = Some((
                        e.clone(),
                        call.attempts.saturating_sub(attempts),
                        call.elapsed_ms.saturating_sub(ms),
                    ));
                }
            }
        }
        if prior_job.answers.is_empty() && prior_job.failed.is_none() {
            continue;
        }
        out.turns += n;
        if whole || prior_job.failed.is_some() {
            out.settled += 1;
        }
        out.jobs.push((job, prior_job));
    }
    out
}

/// One turn's calls as the engine takes them over: each answer with its
/// attempts and ms.
type TurnCalls = Vec<(Answer, u32, u64)>;

/// Each recorded turn's calls, in turn order from the first, while they fit
/// this run; and whether every recorded turn did.
fn taken_turns(
    k: &DialogKind,
    job: usize,
    turns: &BTreeMap<usize, TurnRecord>,
) -> (Vec<TurnCalls>, bool) {
    let Some(d) = k.dialog_of_job(job) else {
        return (Vec::new(), turns.is_empty());
    };
    let judge = k.judge().map(|j| j.model.name.as_str());
    let mut taken: Vec<TurnCalls> = Vec::new();
    let mut answers: Vec<Answer> = Vec::new();
    for (n, (id, turn)) in (1..).zip(turns) {
        let models_fit = turn.calls.iter().enumerate().all(|(i, c)| match i {
            0 => c.role == "model" && c.model == k.config().model_name,
            _ => c.role == "judge" && Some(c.model.as_str()) == judge,
        });
        let start = answers.len();
        answers.extend(turn.calls.iter().map(|c| c.answer.clone()));
        let split = k.split(d, &answers);
        let asked = d.pairs().get(n - 1).map(|p| p.user_text.as_str());
        let fits = *id == n
            && asked == Some(turn.user_text.as_str())
            && models_fit
            && split.starts.len() == n
            && split.starts.last() == Some(&start)
            && split.next.as_ref().is_none_or(|c| c.pool == 0);
        if !fits {
            return (taken, false);
        }
        let calls = turn
            .calls
            .iter()
            .map(|c| (c.answer.clone(), c.attempts, c.elapsed_ms));
        taken.push(calls.collect());
    }
    if crate::planted::on(crate::planted::Bug::DialogTurnsReplayed) && taken.len() < d.pairs().len()
    {
        return (Vec::new(), true);
    }
    (taken, true)
}

/// True when these turns finish the dialog of `job`.
fn complete(k: &DialogKind, job: usize, turns: &[TurnCalls]) -> bool {
    let Some(d) = k.dialog_of_job(job) else {
        return false;
    };
    !turns.is_empty() && turns.len() == d.pairs().len()
}

impl DialogEngine {
    /// Takes over the turns an interrupted run settled (see [`resumable`]),
    /// before `start`: each dialog goes on at its first unsettled turn, and
    /// one the log settles whole is scored at start. Returns how many
    /// dialogs were taken over (whole or in part).
    pub fn restore(&mut self, prior: Vec<(usize, PriorJob)>) -> usize {
        prior
            .into_iter()
            .map(|(job, p)| self.restore_calls(job, p))
            .filter(|taken| *taken)
            .count()
    }
}

/// A dialog run's pools are the model's, then the judge's; a resume takes
/// over each dialog's settled turns.
impl Start for DialogKind {
    type Log = ReadLog;

    fn pool_models(&self) -> Vec<PoolModel> {
        let model = PoolModel {
            name: self.config().model_name.clone(),
            judge: false,
        };
        let judge = self.judge().map(|j| PoolModel {
            name: j.model.name.clone(),
            judge: true,
        });
        std::iter::once(model).chain(judge).collect()
    }

    fn take_over(engine: &mut DialogEngine, log: &ReadLog) -> TakenOver {
        let prior = resumable(log, engine);
        let mut notes: Vec<String> = prior
            .unknown
            .iter()
            .map(|id| format!("dialog `{id}` is not played in this run; ignored"))
            .collect();
        notes.extend(prior.unfit.iter().map(|id| {
            format!(
                "dialog `{id}`: a recorded turn does not fit this run (another model, judge or \
                 question); played again from that turn"
            )
        }));
        let turns = prior.turns;
        let dialogs = engine.restore(prior.jobs);
        notes.push(format!("{turns} turn(s) of {dialogs} dialog(s) taken over"));
        TakenOver {
            unit: "dialogs",
            jobs: prior.settled,
            total: engine.kind().jobs(),
            notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog::{parse_dialogs, DialogJudge, DialogRunConfig};
    use crate::events::{read, to_jsonl, Record};
    use crate::provider::{CallError, CallOutcome, ChatMessage, ErrorKind, ModelSettings};
    use crate::run::{Command, Input, Pipeline, RunSettings, RunStatus};
    use crate::Lang;

    /// One request as the engine sent it: (job, pool, messages).
    type Sent = (usize, usize, Vec<ChatMessage>);

    fn one_at_a_time() -> RunSettings {
        RunSettings {
            concurrency: 1,
            max_attempts: 1,
            ..RunSettings::default()
        }
    }

    fn engine() -> DialogEngine {
        // four dialogs of the demo set: 2, 3, 4 and 5 turn pairs
        let text: String = crate::demo::DIALOG_DATASET
            .lines()
            .take(4)
            .map(|l| format!("{l}\n"))
            .collect();
        let set = parse_dialogs("dialogs.jsonl", text.as_bytes());
        let cfg = DialogRunConfig {
            run: crate::run::RunIdentity {
                run_id: "eval_dialog-1".into(),
                settings: one_at_a_time(),
                ..crate::run::RunIdentity::default()
            },
            model_name: "m".into(),
            ..DialogRunConfig::default()
        };
        let grader = ModelSettings {
            name: "grader".into(),
            model: "grader-1".into(),
            base_url: None,
            api_key_env: None,
            params: serde_json::Map::new(),
            engine: None,
        };
        let judge = DialogJudge::new(grader, one_at_a_time(), Lang::Zh);
        Pipeline::judged_dialogs(cfg, set, Some(judge))
    }

    /// Runs to the end, one request at a time, each answered by `answer`
    /// (the mock model and mock judge by default); returns every request
    /// and every record.
    fn drive(
        e: &mut DialogEngine,
        answer: impl Fn(usize, usize, &[ChatMessage]) -> Option<CallOutcome>,
    ) -> (Vec<Sent>, Vec<Record>) {
        let (mut sent, mut records, mut queue) = (Vec::new(), Vec::new(), Vec::new());
        let mut step = e.start(0);
        let mut now = 0;
        loop {
            records.append(&mut step.events);
            for c in step.commands.drain(..) {
                if let Command::Send {
                    case,
                    messages,
                    pool,
                    ..
                } = c
                {
                    queue.push((case, pool, messages));
                }
            }
            if e.status() != RunStatus::Running || queue.is_empty() {
                break;
            }
            let (job, pool, messages) = queue.remove(0);
            now += 1;
            let outcome = answer(job, pool, &messages)
                .unwrap_or_else(|| CallOutcome::Answer(e.kind().mock_answer(job, &messages)));
            sent.push((job, pool, messages));
            step = e.handle(Input::Outcome { case: job, outcome }, now);
        }
        (sent, records)
    }

    fn log_of(records: &[Record]) -> ReadLog {
        let text: String = records.iter().map(to_jsonl).collect();
        read(text.as_bytes())
    }

    /// The artifacts with times left out (the dialogs' `elapsed_ms`).
    fn timeless(e: &DialogEngine) -> (Vec<serde_json::Value>, String, String) {
        let a = e.kind().artifacts(0);
        let traces = a
            .traces
            .iter()
            .map(|t| {
                let mut v = serde_json::to_value(t).unwrap_or_default();
                // timings, and the worker slot (which dialogs were in progress)
                v["elapsed_ms"] = serde_json::Value::Null;
                v["worker_id"] = serde_json::Value::Null;
                v
            })
            .collect();
        let rows = serde_json::to_string(&a.rows).unwrap_or_default();
        let summary = serde_json::to_string(&a.summary).unwrap_or_default();
        (traces, rows, summary)
    }

    #[test]
    fn a_dialog_goes_on_at_its_first_unsettled_turn_and_settled_ones_are_taken_over() {
        let mut full = engine();
        let (sent, records) = drive(&mut full, |_, _, _| None);
        assert_eq!(full.status(), RunStatus::Done);
        let turns = |r: &[Record]| r.iter().filter(|r| matches!(r, Record::Turn(_))).count();
        assert_eq!(
            turns(&records),
            2 + 3 + 4 + 5,
            "one turn record per turn pair"
        );
        // the log as a kill leaves it: dialog 1 whole, dialog 2 after its
        // second turn, then the first half of the next record
        let cut = records
            .iter()
            .position(|r| matches!(r, Record::Turn(t) if t.case_index == 1 && t.turn_pair_id == 2))
            .map(|i| i + 1)
            .unwrap_or_default();
        assert!(cut > 0);
        let mut text: String = records[..cut].iter().map(to_jsonl).collect();
        let next = to_jsonl(&records[cut]);
        text.push_str(&next[..40]);
        let log = read(text.as_bytes());
        assert!(log.truncated_tail);

        let mut resumed = engine();
        let prior = resumable(&log, &resumed);
        assert_eq!(prior.run_id.as_deref(), Some("eval_dialog-1"));
        assert_eq!((prior.turns, prior.settled), (2 + 2, 1));
        assert!(prior.unfit.is_empty() && prior.unknown.is_empty());
        assert_eq!(resumed.restore(prior.jobs), 2);
        let (sent2, records2) = drive(&mut resumed, |_, _, _| None);
        assert_eq!(resumed.status(), RunStatus::Done);

        // nothing settled is sent again: each dialog's requests are the
        // uninterrupted run's after its settled calls, dialog 2's first one
        // its third turn with the conversation so far rebuilt from the
        // recorded answers (a call answered but not settled by a turn
        // record, e.g. a turn whose judging was cut, is sent again)
        let mut settled = BTreeMap::new();
        for r in &records[..cut] {
            if let Record::Turn(t) = r {
                *settled.entry(t.case_index).or_insert(0) += t.calls.len();
            }
        }
        assert_eq!(
            settled.get(&0),
            Some(&(sent.iter().filter(|s| s.0 == 0).count()))
        );
        for job in 0..4 {
            let of =
                |s: &[Sent]| -> Vec<Sent> { s.iter().filter(|x| x.0 == job).cloned().collect() };
            let skip = settled.get(&job).copied().unwrap_or_default();
            assert_eq!(of(&sent2), of(&sent)[skip..].to_vec(), "dialog {job}");
        }
        let (pool, messages) = sent2
            .iter()
            .find(|s| s.0 == 1)
            .map(|s| (s.1, s.2.clone()))
            .unwrap_or_default();
        assert_eq!(pool, 0);
        assert_eq!(messages.iter().filter(|m| m.role == "user").count(), 3);
        assert_eq!(
            messages.len(),
            5,
            "two earlier pairs, then the third question"
        );
        assert!(sent2.len() < sent.len());

        // the same files as the uninterrupted run, and a log that holds
        // every turn again (so it can be resumed in turn)
        assert_eq!(timeless(&resumed), timeless(&full));
        assert_eq!(turns(&records2), turns(&records));
        let cases = |r: &[Record]| r.iter().filter(|r| matches!(r, Record::Case(_))).count();
        assert_eq!(cases(&records2), 4);
        let again = resumable(&log_of(&records2), &engine());
        assert_eq!((again.turns, again.settled), (14, 4));
    }

    #[test]
    fn a_failed_dialog_is_taken_over_with_its_failure_and_a_cancelled_one_goes_on() {
        // dialog 3's third turn fails for good; dialog 4 is cancelled at its second
        let third = |job: usize, pool: usize, m: &[ChatMessage], n: usize| {
            job == 2 && pool == 0 && m.iter().filter(|x| x.role == "user").count() == n
        };
        let mut full = engine();
        let (_, records) = drive(&mut full, |job, pool, m| {
            third(job, pool, m, 3).then(|| {
                CallOutcome::Failed(CallError::new(ErrorKind::Network, "connection reset"))
            })
        });
        let failed = full.kind().trace_of_job(2).map(|t| t.turns.len());
        assert_eq!(failed, Some(4));
        let mut log_records = records.clone();
        // dialog 4 as a cancel leaves it: its first turn, then a cancelled case
        let d4 = log_records
            .iter()
            .position(|r| matches!(r, Record::Turn(t) if t.case_index == 3 && t.turn_pair_id == 2))
            .unwrap_or_default();
        assert!(d4 > 0);
        log_records.truncate(d4);
        log_records.push(Record::Case(crate::events::CaseRecord {
            case_id: "memfin-004".into(),
            case_index: 3,
            llm_call_ok: false,
            error_detail: Some(crate::report::ErrorDetail::from(&CallError::new(
                ErrorKind::Cancelled,
                "cancelled",
            ))),
            turns_ok: Some(1),
            ..crate::events::CaseRecord::default()
        }));
        let mut resumed = engine();
        let prior = resumable(&log_of(&log_records), &resumed);
        assert_eq!((prior.turns, prior.settled), (2 + 3 + 2 + 1, 3));
        resumed.restore(prior.jobs);
        let (sent, _) = drive(&mut resumed, |job, pool, m| {
            third(job, pool, m, 3).then(|| panic!("the failed turn is not sent again"))
        });
        assert!(
            sent.iter().all(|(job, _, _)| *job == 3),
            "only dialog 4 goes on"
        );
        assert_eq!(sent[0].2.iter().filter(|m| m.role == "user").count(), 2);
        assert_eq!(timeless(&resumed), timeless(&full));
    }

    #[test]
    fn turns_of_another_model_judge_or_question_are_played_again() {
        let mut full = engine();
        let (_, records) = drive(&mut full, |_, _, _| None);
        let log = log_of(&records);
        // without the judge, the judged turns do not fit
        let text: String = crate::demo::DIALOG_DATASET
            .lines()
            .take(4)
            .map(|l| format!("{l}\n"))
            .collect();
        let cfg = full.kind().config().clone();
        let plain = DialogEngine::dialogs(cfg.clone(), parse_dialogs("d", text.as_bytes()));
        let prior = resumable(&log, &plain);
        assert_eq!(
            (prior.turns, prior.jobs.len(), prior.unfit.len()),
            (0, 0, 4)
        );
        // another model: nothing fits either
        let other = DialogRunConfig {
            model_name: "other".into(),
            ..cfg
        };
        let set = parse_dialogs("d", text.as_bytes());
        let judge = full.kind().judge().cloned();
        let e = DialogEngine::judged_dialogs(other, set, judge.clone());
        assert_eq!(resumable(&log, &e).turns, 0);
        // a changed second question: the first turn is taken over, then the dialog is played again
        let first = text.lines().next().unwrap_or_default();
        let second_q = full
            .kind()
            .dialog_of_job(0)
            .and_then(|d| d.pairs().get(1).map(|p| p.user_text.clone()))
            .unwrap_or_default();
        assert!(!second_q.is_empty() && first.contains(&second_q));
        let changed = first.replacen(&second_q, "换一个问题", 1);
        let set = parse_dialogs("d", format!("{changed}\n").as_bytes());
        let e = DialogEngine::judged_dialogs(full.kind().config().clone(), set, judge);
        let prior = resumable(&log, &e);
        assert_eq!((prior.turns, prior.settled), (1, 0));
        assert_eq!(prior.unfit, ["memfin-001"]);
        assert_eq!(
            prior.unknown.len(),
            3,
            "the other dialogs are not in this run"
        );
    }
}
