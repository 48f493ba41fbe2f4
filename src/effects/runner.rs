//! Drives the core's run engine in the browser: performs its `Send` commands with
//! `fetch` (or the demo model), feeds outcomes back, keeps the event log, and
//! reports snapshots to the page. This is the only place that spawns the run's
//! async work; cancelling aborts every request in flight.

use super::{fetch, now_ms};
use crate::state::{Artifacts, RunSnapshot, RunStatus};
use evalpage_core::console::{case_line, finish_line, notes, start_line};
use evalpage_core::dataset::rag::RagCase;
use evalpage_core::events::{to_json_seq, to_jsonl, Record};
use evalpage_core::provider::openai::OpenAiConfig;
use evalpage_core::provider::{CallOutcome, ChatMessage, ErrorKind};
use evalpage_core::report::{self, RunMetrics};
use evalpage_core::run::{self, Command, Engine, Input, RunConfig, Step};
use evalpage_core::{demo, Lang};
use gloo_timers::callback::Timeout;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use wasm_bindgen_futures::spawn_local;
use web_sys::AbortController;
use yew::Callback;

/// How requests are answered.
#[derive(Clone, Debug)]
pub enum Transport {
    /// The offline demo model, with its pretend latency scaled by this factor.
    Demo(f64),
    /// An OpenAI-compatible endpoint.
    OpenAi(OpenAiConfig),
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

struct InFlight {
    controller: AbortController,
    _timer: Timeout,
}

struct Runner {
    engine: Engine,
    transport: Transport,
    lang: Lang,
    cases: Rc<Vec<RagCase>>,
    results: Vec<Option<Rc<run::CaseResult>>>,
    console: Vec<Rc<str>>,
    events_seq: String,
    events_jsonl: String,
    in_flight: HashMap<usize, InFlight>,
    wake: Option<Timeout>,
    flush: Option<Timeout>,
    on_update: Callback<RunUpdate>,
}

impl RunHandle {
    /// Starts a run.
    pub fn start(
        cfg: RunConfig,
        cases: Vec<RagCase>,
        transport: Transport,
        on_update: Callback<RunUpdate>,
    ) -> RunHandle {
        let lang = cfg.info.lang;
        let n = cases.len();
        let runner = Runner {
            engine: Engine::new(cfg, cases.clone()),
            transport,
            lang,
            cases: Rc::new(cases),
            results: vec![None; n],
            console: vec![Rc::from(start_line(lang, n))],
            events_seq: String::new(),
            events_jsonl: String::new(),
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

    /// True while the engine still has cases to settle.
    pub fn is_running(&self) -> bool {
        self.0.borrow().engine.status() == run::RunStatus::Running
    }
}

/// Records a step's events and results, then performs its commands.
fn apply(rc: &Rc<RefCell<Runner>>, step: Step) {
    let commands = {
        let mut r = rc.borrow_mut();
        for mut event in step.events {
            if let Record::Summary(s) = &mut event {
                s.final_report_path = Some("report.json".to_string());
            }
            r.events_seq.push_str(&to_json_seq(&event));
            r.events_jsonl.push_str(&to_jsonl(&event));
        }
        for i in step.finished {
            let result = r.engine.results()[i].clone();
            if let Some(result) = result {
                let line = case_line(r.lang, &r.cases[i], &result);
                r.console.push(Rc::from(line));
                r.results[i] = Some(Rc::new(result));
            }
        }
        step.commands
    };
    schedule_wake(rc, step.wake_at);
    for command in commands {
        match command {
            Command::Send { case, messages, .. } => send(rc, case, messages),
            Command::Abort { case } => {
                if let Some(f) = rc.borrow_mut().in_flight.remove(&case) {
                    f.controller.abort();
                }
            }
        }
    }
    let stopped = rc.borrow().engine.status() != run::RunStatus::Running;
    if stopped {
        finish(rc);
    } else {
        schedule_flush(rc);
    }
}

fn send(rc: &Rc<RefCell<Runner>>, case: usize, messages: Vec<ChatMessage>) {
    let weak = Rc::downgrade(rc);
    let transport = rc.borrow().transport.clone();
    let timeout_ms = rc.borrow().engine.config().settings.timeout_ms;
    let Ok(controller) = AbortController::new() else {
        let err = evalpage_core::provider::CallError::new(
            ErrorKind::Network,
            "this browser cannot abort requests",
        );
        return feed(&weak, case, CallOutcome::Failed(err));
    };
    let signal = controller.signal();
    let timed_out = Rc::new(Cell::new(false));
    let timer = {
        let (c, t) = (controller.clone(), timed_out.clone());
        Timeout::new(timeout_ms.min(u32::MAX as u64) as u32, move || {
            t.set(true);
            c.abort();
        })
    };
    rc.borrow_mut().in_flight.insert(
        case,
        InFlight {
            controller,
            _timer: timer,
        },
    );
    spawn_local(async move {
        let outcome = match transport {
            Transport::Demo(scale) => {
                let ms = (demo::latency_ms(&messages) as f64 * scale) as u32;
                if ms > 0 {
                    gloo_timers::future::TimeoutFuture::new(ms).await;
                }
                CallOutcome::Answer(demo::answer(&messages))
            }
            Transport::OpenAi(cfg) => {
                fetch::chat(&cfg, &messages, &signal, timed_out, timeout_ms).await
            }
        };
        feed(&weak, case, outcome);
    });
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

/// Progress reaches the page at most every 100 ms, so a fast endpoint does not
/// spend its time re-rendering.
fn schedule_flush(rc: &Rc<RefCell<Runner>>) {
    if rc.borrow().flush.is_some() {
        return;
    }
    let weak = Rc::downgrade(rc);
    let timer = Timeout::new(100, move || {
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
    let (done, total) = r.engine.progress();
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
        metrics: RunMetrics::from_results(r.engine.results()),
        console: r.console.clone(),
        network_errors,
    }
}

fn finish(rc: &Rc<RefCell<Runner>>) {
    let (snap, artifacts, cb) = {
        let mut r = rc.borrow_mut();
        r.flush = None;
        r.wake = None;
        r.in_flight.clear();
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
            events_json_seq: r.events_seq.clone(),
            events_jsonl: r.events_jsonl.clone(),
            markdown: report::render_markdown(&r.engine, &built, r.lang),
            notes: notes(r.lang, &r.engine),
            report: Rc::new(built),
        };
        (snapshot(&r), artifacts, r.on_update.clone())
    };
    cb.emit(RunUpdate::Finished(Rc::new(snap), Rc::new(artifacts)));
}
