//! Drives the core's task engine (samples × models) in the browser, as
//! `runner` drives the RAG engine: performs its `Send` commands with `fetch`
//! (registry models) or the offline mock model (after a small pretend
//! latency), feeds outcomes back, honours `wake_at` for retries, aborts what is
//! in flight on cancel, keeps the event log, and reports snapshots to the page.
//! When the run stops it renders every artifact with the core's renderer.
//!
//! With `persist`, every event line is written to IndexedDB (the `journal`
//! shared with the RAG runner) and a settled call reaches the
//! page only once the transaction holding its `case` record has committed; a
//! run that ends is deleted from storage (its downloads are the record). With
//! `prior_log`, the calls an interrupted run settled are restored first (the
//! core's `task_run::resume`) and only the rest is sent. Keys live only in the
//! `OpenAiConfig`s of this runner, never in what is stored.

use super::journal::{Journal, Take};
use super::{fetch, now_ms};
use crate::state::task_check::CheckedTask;
use crate::state::task_data::RunData;
use crate::state::task_models::ModelCall;
use crate::state::task_results::{labels, Labels, ResultGrid};
use crate::state::task_stored::StoredTaskRun;
use crate::state::{RunProgress, RunStatus, TaskArtifacts, TaskSnapshot};
use evalpage_core::demo;
use evalpage_core::events::{self, jsonl_to_json_seq, to_jsonl};
use evalpage_core::provider::{CallOutcome, ChatMessage};
use evalpage_core::run::{self, Command, Input, Step};
use evalpage_core::task_run::artifacts::{self, Inputs};
use evalpage_core::task_run::engine::{TaskEngine, TaskRunConfig};
use evalpage_core::task_run::events::TaskRecord;
use evalpage_core::task_run::meta::RunMeta;
use evalpage_core::task_run::mock;
use evalpage_core::task_run::report::{AnswerSource, RunDescription};
use evalpage_core::task_run::resume;
use evalpage_core::Lang;
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::spawn_local;
use yew::Callback;

/// Least time between two progress updates of the page, in ms.
const FLUSH_MS: u32 = 250;

/// The mock's pretend latency is the demo model's divided by this (50-200 ms).
const MOCK_LATENCY_DIVISOR: u64 = 3;

/// Everything a task run needs.
pub struct TaskRunSpec {
    /// Identity, models (no key) and scheduling.
    pub cfg: TaskRunConfig,
    /// The validated task and its template.
    pub task: Rc<CheckedTask>,
    /// The dataset as read, with its bytes.
    pub run_data: Rc<RunData>,
    /// How each model of `cfg.models` is called, in the same order.
    pub calls: Vec<ModelCall>,
    /// Language of `report.md`.
    pub lang: Lang,
    /// Save the run as it goes (IndexedDB), to resume it after a reload.
    pub persist: Option<TaskPersist>,
    /// The event log (JSONL or json-seq text) of the interrupted run this one
    /// resumes: its settled calls are restored, the rest is sent.
    pub prior_log: Option<Rc<str>>,
}

/// Where a task run is saved as it goes.
pub struct TaskPersist {
    /// The run record (inputs and settings, no key).
    pub stored: StoredTaskRun,
    /// Replace events already stored under this run id (a resumed run
    /// rewrites its whole log, restored calls included, in its first transaction).
    pub replace: bool,
}

/// What the runner tells the page.
#[derive(Clone, Debug)]
pub enum TaskRunUpdate {
    /// Progress.
    Progress(Rc<TaskSnapshot>),
    /// The run stopped: its artifacts, or why they could not be rendered.
    Finished(Rc<TaskSnapshot>, Result<Rc<TaskArtifacts>, Rc<str>>),
}

/// A handle on a running task evaluation. Dropping it does not stop the run; `cancel` does.
#[derive(Clone)]
pub struct TaskRunHandle(Rc<RefCell<Runner>>);

struct Runner {
    engine: TaskEngine,
    task: Rc<CheckedTask>,
    run_data: Rc<RunData>,
    calls: Vec<ModelCall>,
    models: Rc<Vec<String>>,
    labels: Rc<Vec<Labels>>,
    lang: Lang,
    /// Results the page may count: saved first when persistence is on.
    results: ResultGrid,
    events_jsonl: String,
    /// Event lines on their way to storage, each with the job it settles.
    journal: Journal<StoredTaskRun, usize>,
    finished: bool,
    /// Calls in flight; `None` for a mock model's (nothing to abort).
    in_flight: HashMap<usize, Option<fetch::Pending>>,
    wake: Option<Timeout>,
    flush: Option<Timeout>,
    on_update: Callback<TaskRunUpdate>,
}

impl TaskRunHandle {
    /// Starts a run.
    pub fn start(spec: TaskRunSpec, on_update: Callback<TaskRunUpdate>) -> TaskRunHandle {
        let data = &spec.run_data.data;
        let models: Vec<String> = spec.cfg.models.iter().map(|m| m.name.clone()).collect();
        let mut engine = TaskEngine::new(
            spec.cfg,
            spec.task.task.clone(),
            spec.task.info.clone(),
            &spec.task.template,
            data,
        );
        if let Some(log) = &spec.prior_log {
            let prior = resume::resumable(&events::read(log.as_bytes()), &engine);
            engine.restore(prior.calls);
        }
        let journal = Journal::new(spec.persist.map(|p| (p.stored, p.replace)));
        let labels = data
            .samples
            .iter()
            .map(|s| Rc::new(labels(&spec.task.task, &s.sample)))
            .collect();
        let runner = Runner {
            results: vec![vec![None; data.samples.len()]; models.len()],
            labels: Rc::new(labels),
            engine,
            task: spec.task,
            run_data: spec.run_data,
            calls: spec.calls,
            models: Rc::new(models),
            lang: spec.lang,
            events_jsonl: String::new(),
            journal,
            finished: false,
            in_flight: HashMap::new(),
            wake: None,
            flush: None,
            on_update,
        };
        let rc = Rc::new(RefCell::new(runner));
        let step = rc.borrow_mut().engine.start(now_ms());
        apply(&rc, step);
        TaskRunHandle(rc)
    }

    /// Cancels the run: aborts requests in flight and settles the rest as cancelled.
    pub fn cancel(&self) {
        let step = self.0.borrow_mut().engine.handle(Input::Cancel, now_ms());
        apply(&self.0, step);
    }

    /// Pauses (nothing new is sent) or resumes.
    pub fn set_paused(&self, paused: bool) {
        let input = if paused { Input::Pause } else { Input::Resume };
        let step = self.0.borrow_mut().engine.handle(input, now_ms());
        apply(&self.0, step);
    }

    /// True while the engine still has jobs to settle.
    pub fn is_running(&self) -> bool {
        self.0.borrow().engine.status() == run::RunStatus::Running
    }
}

/// Records a step's events (each `case` with the job it settles), performs
/// its commands, and moves what is saved to the page.
fn apply(rc: &Rc<RefCell<Runner>>, step: Step<TaskRecord>) {
    let commands = {
        let mut r = rc.borrow_mut();
        let mut settled = step.finished.into_iter();
        for mut event in step.events {
            if let TaskRecord::Summary(s) = &mut event {
                s.final_report_path = Some("report.json".to_string());
            }
            let line = to_jsonl(&event);
            r.events_jsonl.push_str(&line);
            let settles = matches!(event, TaskRecord::Case(_))
                .then(|| settled.next())
                .flatten();
            r.journal.push(line, settles);
        }
        step.commands
    };
    schedule_wake(rc, step.wake_at);
    for command in commands {
        match command {
            Command::Send { case, messages, .. } => send(rc, case, messages),
            Command::Abort { case } => {
                let gone = rc.borrow_mut().in_flight.remove(&case);
                if let Some(Some(c)) = gone {
                    c.abort();
                }
            }
        }
    }
    if rc.borrow().engine.status() != run::RunStatus::Running {
        let mut r = rc.borrow_mut();
        r.flush = None;
        r.wake = None;
        r.in_flight.clear();
    }
    pump(rc);
}

/// Moves saved jobs to the page: at once without persistence, otherwise
/// after the IndexedDB transaction holding their `case` records has committed.
fn pump(rc: &Rc<RefCell<Runner>>) {
    let take = {
        let mut r = rc.borrow_mut();
        let status = match r.engine.status() {
            run::RunStatus::Done => "done",
            run::RunStatus::Cancelled => "cancelled",
            _ => "running",
        };
        r.journal.take(|s| s.status = status.to_string())
    };
    match take {
        Take::Wait => after_drain(rc),
        Take::Release(jobs) => {
            show(rc, jobs);
            after_drain(rc);
        }
        Take::Write(batch) => {
            let weak = Rc::downgrade(rc);
            spawn_local(async move {
                let written = batch.write().await;
                let Some(rc) = weak.upgrade() else { return };
                rc.borrow_mut().journal.written(written);
                show(&rc, batch.items);
                pump(&rc);
            });
        }
    }
}

/// The saved jobs' results become visible to the page.
fn show(rc: &Rc<RefCell<Runner>>, jobs: Vec<usize>) {
    let mut r = rc.borrow_mut();
    for job in jobs {
        let Some(j) = r.engine.job(job) else { continue };
        let settled = r.engine.results()[j.model][j.sample].clone().map(Rc::new);
        r.results[j.model][j.sample] = settled;
    }
}

/// After a batch reached the page: announce progress, or the end once all is saved.
fn after_drain(rc: &Rc<RefCell<Runner>>) {
    let (stopped, done) = {
        let r = rc.borrow();
        let stopped = r.engine.status() != run::RunStatus::Running;
        (stopped, stopped && r.journal.is_idle() && !r.finished)
    };
    if done {
        finish(rc);
    } else if !stopped {
        schedule_flush(rc);
    }
}

fn send(rc: &Rc<RefCell<Runner>>, job: usize, messages: Vec<ChatMessage>) {
    let weak = Rc::downgrade(rc);
    let (call, mock_answer, timeout_ms) = {
        let r = rc.borrow();
        let Some(j) = r.engine.job(job) else { return };
        let call = r.calls[j.model].clone();
        let answer = matches!(call, ModelCall::Mock(_)).then(|| {
            let sample = &r.engine.samples()[j.sample].sample;
            mock::answer(r.engine.task(), sample, &r.models[j.model], &messages)
        });
        (call, answer, r.engine.config().settings.timeout_ms)
    };
    match call {
        ModelCall::Mock(scale) => {
            let ms = (demo::latency_ms(&messages) / MOCK_LATENCY_DIVISOR) as f64 * scale;
            let answer = mock_answer.unwrap_or_default();
            rc.borrow_mut().in_flight.insert(job, None);
            spawn_local(async move {
                if ms >= 1.0 {
                    gloo_timers::future::TimeoutFuture::new(ms as u32).await;
                }
                feed(&weak, job, CallOutcome::text(answer));
            });
        }
        ModelCall::OpenAi(cfg, key_for) => {
            let on_done = {
                let weak = weak.clone();
                move |outcome| feed(&weak, job, outcome)
            };
            let started = fetch::start(
                timeout_ms,
                move |signal, timed_out| async move {
                    let to = fetch::To {
                        cfg: &cfg,
                        key_for: key_for.as_deref(),
                    };
                    fetch::chat(to, &messages, &signal, timed_out, timeout_ms).await
                },
                on_done,
            );
            match started {
                Ok(pending) => {
                    rc.borrow_mut().in_flight.insert(job, Some(pending));
                }
                Err(err) => spawn_local(async move { feed(&weak, job, CallOutcome::Failed(err)) }),
            }
        }
    }
}

fn feed(weak: &Weak<RefCell<Runner>>, job: usize, outcome: CallOutcome) {
    let Some(rc) = weak.upgrade() else { return };
    let step = {
        let mut r = rc.borrow_mut();
        r.in_flight.remove(&job);
        r.engine
            .handle(Input::Outcome { case: job, outcome }, now_ms())
    };
    apply(&rc, step);
}

fn schedule_wake(rc: &Rc<RefCell<Runner>>, wake_at: Option<u64>) {
    let Some(at) = wake_at else {
        rc.borrow_mut().wake = None;
        return;
    };
    let weak = Rc::downgrade(rc);
    let delay = at.saturating_sub(now_ms()).min(u32::MAX as u64) as u32;
    let timer = Timeout::new(delay, move || {
        if let Some(rc) = weak.upgrade() {
            let step = rc.borrow_mut().engine.handle(Input::Tick, now_ms());
            apply(&rc, step);
        }
    });
    rc.borrow_mut().wake = Some(timer);
}

/// Progress reaches the page at most every `FLUSH_MS`.
fn schedule_flush(rc: &Rc<RefCell<Runner>>) {
    if rc.borrow().flush.is_some() {
        return;
    }
    let weak = Rc::downgrade(rc);
    let timer = Timeout::new(FLUSH_MS, move || {
        if let Some(rc) = weak.upgrade() {
            rc.borrow_mut().flush = None;
            let (snap, cb) = {
                let r = rc.borrow();
                (snapshot(&r), r.on_update.clone())
            };
            cb.emit(TaskRunUpdate::Progress(Rc::new(snap)));
        }
    });
    rc.borrow_mut().flush = Some(timer);
}

fn snapshot(r: &Runner) -> TaskSnapshot {
    let (_, total) = r.engine.progress();
    let done = r.results.iter().flatten().flatten().count();
    let status = match r.engine.status() {
        run::RunStatus::Idle | run::RunStatus::Running => RunStatus::Running,
        run::RunStatus::Done => RunStatus::Done,
        run::RunStatus::Cancelled => RunStatus::Cancelled,
    };
    let cfg = r.engine.config();
    TaskSnapshot {
        status,
        progress: RunProgress {
            done,
            total,
            started_ms: cfg.started_at_ms,
            now_ms: now_ms(),
            paused: r.engine.is_paused(),
            limit: r.engine.current_limit(),
            concurrency: cfg.settings.concurrency,
            save_error: r.journal.error().cloned(),
        },
        task: r.task.clone(),
        data: r.run_data.data.clone(),
        models: r.models.clone(),
        results: r.results.clone(),
        labels: r.labels.clone(),
    }
}

fn finish(rc: &Rc<RefCell<Runner>>) {
    let (snap, artifacts, cb) = {
        let mut r = rc.borrow_mut();
        if r.finished {
            return;
        }
        r.finished = true;
        r.flush = None;
        r.wake = None;
        r.in_flight.clear();
        let artifacts = render(&r, now_ms())
            .map(Rc::new)
            .map_err(|e| Rc::from(e.as_str()));
        (snapshot(&r), artifacts, r.on_update.clone())
    };
    rc.borrow().journal.forget();
    cb.emit(TaskRunUpdate::Finished(Rc::new(snap), artifacts));
}

/// The eight artifacts (the core's renderer, as the CLI writes them) and the
/// two event logs.
fn render(r: &Runner, ended_at_ms: u64) -> Result<TaskArtifacts, String> {
    let cfg = r.engine.config();
    let data = &r.run_data.data;
    let scored = r.engine.scored();
    let source = AnswerSource::Run(RunDescription {
        run_id: cfg.run_id.clone(),
        backend: cfg.backend.clone(),
        models: cfg.models.clone(),
        settings: cfg.settings,
    });
    let meta = RunMeta {
        tool: cfg.tool.clone(),
        version: env!("CARGO_PKG_VERSION").into(),
        argv: cfg.argv.clone(),
        dataset: data.name.clone(),
        metadata: r.run_data.metadata.clone(),
        started_at_ms: cfg.started_at_ms,
        ended_at_ms,
    };
    let files = artifacts::render(&Inputs {
        task: &r.task.task,
        info: &r.task.info,
        data,
        dataset_bytes: &r.run_data.bytes,
        scored: &scored,
        line_errors: &data.errors,
        source: &source,
        meta: &meta,
        lang: r.lang,
    })
    .map_err(|e| format!("could not render summary.csv: {e}"))?;
    let mut files: Vec<(String, String)> = files
        .into_iter()
        .map(|(name, text)| (name.to_string(), text))
        .collect();
    let [jsonl, seq] = artifacts::EVENT_FILES;
    files.push((jsonl.to_string(), r.events_jsonl.clone()));
    files.push((seq.to_string(), jsonl_to_json_seq(&r.events_jsonl)));
    Ok(TaskArtifacts { files, ended_at_ms })
}
