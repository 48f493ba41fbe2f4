//! Drives the core's run engine in the browser: performs its `Send` commands with
//! `fetch` (or the demo model), feeds outcomes back, keeps the event log, and
//! reports snapshots to the page. This is the only place that spawns the run's
//! async work; cancelling aborts every request in flight.

use super::idb::StoredRun;
use super::journal::{Journal, Take};
use super::{fetch, now_ms};
use crate::state::{Artifacts, RunSnapshot, RunStatus};
use evalpage_core::console::{case_line, finish_line, notes, start_line};
use evalpage_core::dataset::rag::RagCase;
use evalpage_core::events::{jsonl_to_json_seq, to_jsonl, Record};
use evalpage_core::provider::openai::OpenAiConfig;
use evalpage_core::provider::{CallOutcome, ChatMessage, ErrorKind};
use evalpage_core::report::{self, RunMetrics};
use evalpage_core::run::{self, Command, Engine, Input, RunConfig, Step};
use evalpage_core::{demo, Lang};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::spawn_local;
use yew::Callback;

/// Least time between two progress updates of the page, in ms.
const FLUSH_MS: u32 = 250;

/// How requests are answered.
#[derive(Clone, Debug)]
pub enum Transport {
    /// The offline demo model, with its pretend latency scaled by this factor.
    Demo(f64),
    /// An OpenAI-compatible endpoint, with the origin its key (if any) was
    /// entered for: the key goes to that origin only.
    OpenAi(OpenAiConfig, Option<String>),
}

/// What the runner tells the page.
#[derive(Clone, Debug)]
pub enum RunUpdate {
    /// Progress.
    Progress(Rc<RunSnapshot>),
    /// The run stopped; downloads are ready.
    Finished(Rc<RunSnapshot>, Rc<Artifacts>),
}

/// A handle on a running evaluation. Dropping it does not stop the run; `cancel` does.
#[derive(Clone)]
pub struct RunHandle(Rc<RefCell<Runner>>);

/// Where a run is saved as it goes (IndexedDB), if it is.
pub struct Persist {
    /// The run record to keep (settings without key, dataset text).
    pub stored: StoredRun,
    /// Replace events already stored under this run id (a resumed run rewrites
    /// its whole log, restored cases included, in its first transaction).
    pub replace: bool,
}

/// A settled case as the page shows it: index, result, console line.
type Shown = (usize, Rc<run::CaseResult>, Rc<str>);

struct Runner {
    engine: Engine,
    transport: Transport,
    lang: Lang,
    cases: Rc<Vec<RagCase>>,
    /// Results the page may count: saved first when persistence is on.
    results: Vec<Option<Rc<run::CaseResult>>>,
    console: Vec<Rc<str>>,
    events_jsonl: String,
    /// Event lines on their way to storage, each with the case it settles.
    journal: Journal<StoredRun, Shown>,
    finished: bool,
    in_flight: HashMap<usize, fetch::Pending>,
    wake: Option<Timeout>,
    flush: Option<Timeout>,
    on_update: Callback<RunUpdate>,
}

impl RunHandle {
    /// Starts a run; `prior` are cases an interrupted run already settled.
    pub fn start(
        cfg: RunConfig,
        cases: Vec<RagCase>,
        prior: Vec<run::CaseResult>,
        transport: Transport,
        persist: Option<Persist>,
        on_update: Callback<RunUpdate>,
    ) -> RunHandle {
        let lang = cfg.info.lang;
        let n = cases.len();
        let mut engine = Engine::new(cfg, cases.clone());
        engine.restore(prior);
        let journal = Journal::new(persist.map(|p| (p.stored, p.replace)));
        let runner = Runner {
            engine,
            transport,
            lang,
            cases: Rc::new(cases),
            results: vec![None; n],
            console: vec![Rc::from(start_line(lang, n))],
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
        RunHandle(rc)
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

    /// True while the engine still has cases to settle.
    pub fn is_running(&self) -> bool {
        self.0.borrow().engine.status() == run::RunStatus::Running
    }
}

/// Records a step's events and results, then performs its commands.
fn apply(rc: &Rc<RefCell<Runner>>, step: Step<Record>) {
    let commands = {
        let mut r = rc.borrow_mut();
        let mut shown: Vec<Shown> = Vec::new();
        for i in step.finished {
            if let Some(result) = r.engine.results()[i].clone() {
                let line: Rc<str> = Rc::from(case_line(r.lang, &r.cases[i], &result));
                shown.push((i, Rc::new(result), line));
            }
        }
        let mut shown = shown.into_iter();
        for mut event in step.events {
            if let Record::Summary(s) = &mut event {
                s.final_report_path = Some("report.json".to_string());
            }
            let line = to_jsonl(&event);
            r.events_jsonl.push_str(&line);
            let settles = if matches!(event, Record::Case(_)) {
                shown.next()
            } else {
                None
            };
            r.journal.push(line, settles);
        }
        step.commands
    };
    schedule_wake(rc, step.wake_at);
    for command in commands {
        match command {
            Command::Send { case, messages, .. } => send(rc, case, messages),
            Command::Abort { case } => {
                if let Some(f) = rc.borrow_mut().in_flight.remove(&case) {
                    f.abort();
                }
            }
        }
    }
    let stopped = rc.borrow().engine.status() != run::RunStatus::Running;
    if stopped {
        stop_timers(rc);
    }
    pump(rc);
}

/// Moves settled cases to the page: at once without persistence, otherwise
/// after the IndexedDB transaction holding their events has committed.
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
        Take::Release(items) => {
            show(rc, items);
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

fn show(rc: &Rc<RefCell<Runner>>, items: Vec<Shown>) {
    let mut r = rc.borrow_mut();
    for (i, result, line) in items {
        r.results[i] = Some(result);
        r.console.push(line);
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

fn stop_timers(rc: &Rc<RefCell<Runner>>) {
    let mut r = rc.borrow_mut();
    r.flush = None;
    r.wake = None;
    r.in_flight.clear();
}

fn send(rc: &Rc<RefCell<Runner>>, case: usize, messages: Vec<ChatMessage>) {
    let weak = Rc::downgrade(rc);
    let transport = rc.borrow().transport.clone();
    let timeout_ms = rc.borrow().engine.config().settings.timeout_ms;
    let on_done = {
        let weak = weak.clone();
        move |outcome| feed(&weak, case, outcome)
    };
    let started = fetch::start(
        timeout_ms,
        move |signal, timed_out| async move {
            match transport {
                Transport::Demo(scale) => {
                    let ms = (demo::latency_ms(&messages) as f64 * scale) as u32;
                    if ms > 0 {
                        gloo_timers::future::TimeoutFuture::new(ms).await;
                    }
                    CallOutcome::Answer(demo::reply(&messages))
                }
                Transport::OpenAi(cfg, key_origin) => {
                    let to = fetch::To {
                        cfg: &cfg,
                        key_for: key_origin.as_deref(),
                    };
                    fetch::chat(to, &messages, &signal, timed_out, timeout_ms).await
                }
            }
        },
        on_done,
    );
    match started {
        Ok(pending) => {
            rc.borrow_mut().in_flight.insert(case, pending);
        }
        Err(err) => feed(&weak, case, CallOutcome::Failed(err)),
    }
}

fn feed(weak: &Weak<RefCell<Runner>>, case: usize, outcome: CallOutcome) {
    let Some(rc) = weak.upgrade() else { return };
    let step = {
        let mut r = rc.borrow_mut();
        r.in_flight.remove(&case);
        r.engine.handle(Input::Outcome { case, outcome }, now_ms())
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

/// Progress reaches the page at most every `FLUSH_MS`, so a fast endpoint does not
/// spend its time re-rendering.
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
            cb.emit(RunUpdate::Progress(Rc::new(snap)));
        }
    });
    rc.borrow_mut().flush = Some(timer);
}

fn snapshot(r: &Runner) -> RunSnapshot {
    let total = r.cases.len();
    let done = r.results.iter().flatten().count();
    let status = match r.engine.status() {
        run::RunStatus::Idle | run::RunStatus::Running => RunStatus::Running,
        run::RunStatus::Done => RunStatus::Done,
        run::RunStatus::Cancelled => RunStatus::Cancelled,
    };
    let network_errors = r
        .results
        .iter()
        .flatten()
        .filter(|c| {
            c.error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::Network)
        })
        .count();
    RunSnapshot {
        status,
        done,
        total,
        limit: r.engine.current_limit(),
        concurrency: r.engine.config().settings.concurrency,
        started_ms: r.engine.config().info.started_at_ms,
        now_ms: now_ms(),
        cases: r.cases.clone(),
        results: r.results.clone(),
        metrics: RunMetrics::of(r.results.iter().flatten().map(|c| c.as_ref())),
        console: r.console.clone(),
        network_errors,
        paused: r.engine.is_paused(),
        save_error: r.journal.error().cloned(),
    }
}

fn finish(rc: &Rc<RefCell<Runner>>) {
    let (snap, artifacts, cb) = {
        let mut r = rc.borrow_mut();
        r.finished = true;
        let now = now_ms();
        let cancelled = r.engine.status() == run::RunStatus::Cancelled;
        let built = report::build(&r.engine, now);
        let line = finish_line(
            r.lang,
            &RunMetrics::from_results(r.engine.results()),
            cancelled,
        );
        r.console.push(Rc::from(line));
        let artifacts = Artifacts {
            report_json: serde_json::to_string_pretty(&built).unwrap_or_default(),
            events_json_seq: jsonl_to_json_seq(&r.events_jsonl),
            events_jsonl: r.events_jsonl.clone(),
            markdown: report::rag_markdown(&r.engine, &built, r.lang),
            notes: notes(r.lang, &r.engine),
            report: Rc::new(built),
        };
        (snapshot(&r), artifacts, r.on_update.clone())
    };
    rc.borrow().journal.forget();
    cb.emit(RunUpdate::Finished(Rc::new(snap), Rc::new(artifacts)));
}
