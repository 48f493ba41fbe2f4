//! Drives the core's one run engine (`run::Pipeline<K>`) in the browser, for
//! every kind of evaluation: performs its `Send` commands (with `fetch`, or
//! a model answered in the page after a pretend latency), feeds the outcomes
//! back, honours `wake_at` for retries, aborts what is in flight on cancel,
//! keeps the event log, and reports snapshots to the page at most every
//! `FLUSH_MS`. A run's async work is started here alone (through `effects::spawn`).
//!
//! With persistence, every event line goes through the write-ahead
//! [`Journal`]: the calls a step asks for go out only once the lines before
//! them are saved (so a killed browser re-asks, on resume, only the calls
//! that were in flight), a settled job reaches the page only once the
//! IndexedDB transaction holding its `case` record has committed, and a run
//! that ends is deleted from storage (its downloads are the record).
//!
//! What differs between kinds (the RAG check, task runs) is a [`RunView`]:
//! how a job is sent, what a settled job shows, the snapshot the page gets
//! and the downloads rendered at the end.

use super::journal::{Journal, Take};
use super::{fetch, now_ms};
use crate::state::settings::ModelCall;
use crate::state::stored::StoredRun;
use crate::state::{RunProgress, RunStatus};
use evalpage_core::events::{jsonl_to_json_seq, to_jsonl, Record};
use evalpage_core::report::Prices;
use evalpage_core::run::{self, Command, Input, Kind, Pipeline, RunSettings, Step};
use evalpage_core::run::{finish as finish_run, Ended, Finish, RunEnd};
use evalpage_core::{ApiKey, OpenAiConfig};
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use yew::Callback;

/// Least time between two progress updates of the page, in ms: at 250 the
/// re-rendering took about 5% of a fast run's time (`bench/runner_overhead.sh`).
const FLUSH_MS: u32 = 500;

/// How one call goes out.
#[derive(Clone, Debug)]
pub enum Transport {
    /// Answered in the page (the demo or a mock model) after a pretend latency.
    Local {
        /// The answer.
        answer: evalpage_core::Answer,
        /// Pretend latency, ms (0: at once).
        latency_ms: u32,
    },
    /// An OpenAI-compatible endpoint, with what its key (if any) was entered
    /// for (an origin or a base URL): the key goes to that origin only.
    OpenAi(OpenAiConfig, Option<String>),
    /// Already settled, nothing sent (an answer read from a batch file, or
    /// why there is none).
    Settled(CallOutcome),
    /// The model file on this device: the request this config builds is
    /// answered by the engine in the page (`effects::local_model`).
    InPage(OpenAiConfig),
    /// A JSON endpoint that is not a chat model (a retrieval service): the
    /// job's body POSTed to this URL, with its key (if any) and the origin
    /// the key was entered for: the key goes to that origin only.
    Json(String, Option<(ApiKey, String)>),
    /// An MCP server over Streamable HTTP: the job's JSON-RPC body in the
    /// job's session (`effects::mcp`); no key goes to it.
    Mcp(Rc<super::mcp::McpSessions>),
}

/// How a call to `call` goes out: to its endpoint, to the model file in the
/// page, or answered in the page by the mock `mock` makes (given the mock's
/// latency factor). Every mode's model calls go out by this one mapping.
pub fn transport_of(call: &ModelCall, mock: impl FnOnce(f64) -> Transport) -> Transport {
    match call {
        ModelCall::Mock(scale) => mock(*scale),
        ModelCall::OpenAi(cfg, key_for) => Transport::OpenAi(cfg.clone(), key_for.clone()),
        ModelCall::InPage(cfg) => Transport::InPage(cfg.clone()),
    }
}

/// What one kind of evaluation shows of its run, over the engine.
pub trait RunView: 'static {
    /// The core's kind of evaluation (its records go to the event log).
    type Kind: Kind<Record = Record> + Finish;
    /// What a settled job shows once it is saved.
    type Shown: 'static;
    /// What the page gets as progress.
    type Snapshot: 'static;
    /// The downloads at the end (or why they could not be rendered).
    type Artifacts: 'static;

    /// The run is about to start (the view may announce it).
    fn launched(&mut self) {}
    /// Readies an event record for the log (the summary names the report
    /// file); true when it is the `case` record of a settled job.
    fn record(&self, event: &mut Record) -> bool {
        if let Record::Summary(s) = event {
            s.final_report_path = Some(<Self::Kind as Finish>::NAMES.report.to_string());
        }
        matches!(event, Record::Case(_))
    }
    /// How the current call of `job` goes out; `pool` is the kind's pool
    /// that answers it (a task's models, then its judge).
    fn transport(
        &self,
        engine: &Pipeline<Self::Kind>,
        job: usize,
        pool: usize,
        messages: &[ChatMessage],
    ) -> Transport;
    /// What `job`, which just settled, will show once saved.
    fn settled(&self, engine: &Pipeline<Self::Kind>, job: usize) -> Option<Self::Shown>;
    /// `job` settled: what it held open (an MCP session) may be let go.
    fn release(&self, _job: usize) {}
    /// Saved jobs become visible.
    fn show(&mut self, shown: Vec<Self::Shown>);
    /// The snapshot of the run as the page may show it.
    fn snapshot(
        &self,
        engine: &Pipeline<Self::Kind>,
        status: RunStatus,
        progress: RunProgress,
    ) -> Self::Snapshot;
    /// The run stopped: what its kind renders the files from, and the
    /// prices of its models (the judge's included), handed over.
    fn ending(&mut self, engine: &Pipeline<Self::Kind>) -> Ending<Self::Kind>;
    /// The run stopped and everything is saved: the downloads, from the
    /// files the kind rendered (or why it could not) and the two event logs.
    fn finished(
        &mut self,
        engine: &Pipeline<Self::Kind>,
        ended: Result<Ended, String>,
        logs: [(String, String); 2],
        ended_at_ms: u64,
    ) -> Self::Artifacts;
}

/// What a view hands over at the end of a run, for its kind's files.
pub struct Ending<K: Finish> {
    /// What the kind's files are rendered from.
    pub inputs: K::Inputs,
    /// Prices per million tokens by model name, the judge's included.
    pub prices: Prices,
    /// The dataset's `metadata.json`, as named, if one was loaded.
    pub metadata: Option<String>,
}

/// What the runner tells the page.
#[derive(Clone, Debug)]
pub enum Update<S, A> {
    /// Progress.
    Progress(Rc<S>),
    /// The run stopped: the last snapshot and the downloads.
    Finished(Rc<S>, A),
}

/// The updates of a run of view `V`.
pub type ViewUpdate<V> = Update<<V as RunView>::Snapshot, <V as RunView>::Artifacts>;

/// Where a run is saved as it goes (IndexedDB).
pub struct Persist {
    /// The run record to keep (inputs and settings, never a key).
    pub stored: StoredRun,
    /// Replace events already stored under this run id (a resumed run
    /// rewrites its whole log, restored jobs included, in its first transaction).
    pub replace: bool,
}

/// Everything a run needs to start.
pub struct Launch<V: RunView> {
    /// The engine, with the jobs of an interrupted run already restored.
    pub engine: Pipeline<V::Kind>,
    /// The kind's view.
    pub view: V,
    /// Start time, ms.
    pub started_ms: u64,
    /// Save the run as it goes, to resume it after a reload.
    pub persist: Option<Persist>,
    /// Where updates go.
    pub on_update: Callback<ViewUpdate<V>>,
}

/// A handle on a running evaluation. Dropping it does not stop the run; `cancel` does.
pub struct Handle<V: RunView> {
    rc: Rc<RefCell<Runner<V>>>,
    /// [`control`], called through a pointer made by [`Handle::launch`]: a
    /// page that launches through a split point (`crate::launch::RunFns`)
    /// then reaches the engine's input handling and everything after it only
    /// from the split module.
    control: fn(&Shared<V>, Input),
}

impl<V: RunView> Clone for Handle<V> {
    fn clone(&self) -> Self {
        Handle {
            rc: self.rc.clone(),
            control: self.control,
        }
    }
}

struct Runner<V: RunView> {
    engine: Pipeline<V::Kind>,
    view: V,
    settings: RunSettings,
    started_ms: u64,
    /// Jobs the page shows (saved first when persistence is on).
    shown: usize,
    events_jsonl: String,
    /// Event lines on their way to storage, each with the job it settles.
    journal: Journal<V::Shown>,
    finished: bool,
    /// Calls in flight; `None` for a call answered in the page (nothing to abort).
    in_flight: HashMap<usize, Option<fetch::Pending>>,
    /// Calls the engine asked for, each waiting until the journal lines
    /// queued before it (up to its mark) are saved.
    held: Vec<(u32, Command)>,
    /// The run answers from the response cache first (the page's switch
    /// when it started).
    cache: bool,
    wake: Option<Timeout>,
    flush: Option<Timeout>,
    on_update: Callback<ViewUpdate<V>>,
}

type Shared<V> = Rc<RefCell<Runner<V>>>;

impl<V: RunView> Handle<V> {
    /// Starts a run.
    pub fn launch(mut launch: Launch<V>) -> Handle<V> {
        launch.view.launched();
        let settings = launch
            .engine
            .kind()
            .pools()
            .first()
            .copied()
            .unwrap_or_default();
        let runner = Runner {
            engine: launch.engine,
            view: launch.view,
            settings,
            started_ms: launch.started_ms,
            shown: 0,
            events_jsonl: String::new(),
            journal: Journal::new(launch.persist.map(|p| (p.stored, p.replace))),
            finished: false,
            in_flight: HashMap::new(),
            held: Vec::new(),
            cache: super::cache::enabled(),
            wake: None,
            flush: None,
            on_update: launch.on_update,
        };
        let rc = Rc::new(RefCell::new(runner));
        let step = rc.borrow_mut().engine.start(now_ms());
        apply(&rc, step);
        Handle {
            rc,
            control: control::<V>,
        }
    }

    /// Cancels the run: aborts requests in flight and settles the rest as cancelled.
    pub fn cancel(&self) {
        (self.control)(&self.rc, Input::Cancel);
    }

    /// Pauses (nothing new is sent) or resumes.
    pub fn set_paused(&self, paused: bool) {
        let input = if paused { Input::Pause } else { Input::Resume };
        (self.control)(&self.rc, input);
    }

    /// True while the engine still has jobs to settle.
    pub fn is_running(&self) -> bool {
        self.rc.borrow().engine.status() == run::RunStatus::Running
    }
}

/// Hands the engine a control input (cancel, pause, resume) and applies its step.
fn control<V: RunView>(rc: &Shared<V>, input: Input) {
    let step = rc.borrow_mut().engine.handle(input, now_ms());
    apply(rc, step);
}

/// Records a step's events (each `case` with what its job shows), performs
/// its commands (a call waits until the lines before it are saved), and
/// moves what is saved to the page.
fn apply<V: RunView>(rc: &Shared<V>, step: Step<<V::Kind as Kind>::Record>) {
    let (commands, mark) = {
        let mut guard = rc.borrow_mut();
        let r = &mut *guard;
        for &j in &step.finished {
            r.view.release(j);
        }
        let mut settled = step.finished.iter().map(|&j| r.view.settled(&r.engine, j));
        for mut event in step.events {
            let settles = r.view.record(&mut event);
            let line = to_jsonl(&event);
            r.events_jsonl.push_str(&line);
            let item = if settles {
                settled.next().flatten()
            } else {
                None
            };
            r.journal.push(line, item);
        }
        (step.commands, r.journal.mark())
    };
    schedule_wake(rc, step.wake_at);
    for command in commands {
        if let Command::Abort { case } = &command {
            // A call still held never went out: it is dropped, not aborted.
            let case = *case;
            rc.borrow_mut()
                .held
                .retain(|(_, held)| !matches!(held, Command::Send { case: c, .. } if *c == case));
            perform(rc, command);
        } else if rc.borrow().journal.is_saved(mark) {
            perform(rc, command);
        } else {
            rc.borrow_mut().held.push((mark, command));
        }
    }
    if stopped(&rc.borrow()) {
        let mut r = rc.borrow_mut();
        r.flush = None;
        r.wake = None;
        r.in_flight.clear();
        r.held.clear();
    }
    pump(rc);
}

/// Sends a call, or aborts one in flight.
fn perform<V: RunView>(rc: &Shared<V>, command: Command) {
    match command {
        Command::Send {
            case,
            messages,
            body,
            pool,
            repeat,
            tools,
            ..
        } => send(rc, case, pool, messages, body, repeat, tools),
        Command::Abort { case } => {
            let gone = rc.borrow_mut().in_flight.remove(&case);
            if let Some(Some(pending)) = gone {
                pending.abort();
            }
        }
    }
}

/// Sends the held calls whose lines are now saved, in the order they were asked for.
fn release_held<V: RunView>(rc: &Shared<V>) {
    let ready: Vec<Command> = {
        let mut guard = rc.borrow_mut();
        let r = &mut *guard;
        let journal = &r.journal;
        let (ready, wait): (Vec<_>, Vec<_>) = std::mem::take(&mut r.held)
            .into_iter()
            .partition(|(mark, _)| journal.is_saved(*mark));
        r.held = wait;
        ready.into_iter().map(|(_, c)| c).collect()
    };
    for command in ready {
        perform(rc, command);
    }
}

fn stopped<V: RunView>(r: &Runner<V>) -> bool {
    r.engine.status() != run::RunStatus::Running
}

/// The run stopped because the engine in the page stopped under it.
fn engine_stopped<V: RunView>(r: &Runner<V>) -> bool {
    r.engine.stop_reason() == Some(run::StopReason::EngineStopped)
}

/// Moves saved jobs to the page: at once without persistence, otherwise
/// after the IndexedDB transaction holding their `case` records has committed.
fn pump<V: RunView>(rc: &Shared<V>) {
    let take = {
        let mut r = rc.borrow_mut();
        let status = match r.engine.status() {
            // Resumable once the model file is loaded again: saved as unfinished.
            _ if engine_stopped(&r) => "running",
            run::RunStatus::Done => "done",
            run::RunStatus::Cancelled => "cancelled",
            _ => "running",
        };
        r.journal.take(|s| s.status = status.to_string())
    };
    match take {
        Take::Wait => after_drain(rc),
        Take::Release(items) => {
            release_held(rc);
            show(rc, items);
            after_drain(rc);
        }
        Take::Write(batch) => {
            let weak = Rc::downgrade(rc);
            super::spawn(async move {
                let written = batch.write().await;
                let Some(rc) = weak.upgrade() else { return };
                if let Err(e) = &written {
                    record_storage_failure(&rc, e);
                }
                rc.borrow_mut().journal.written(batch.upto(), written);
                release_held(&rc);
                show(&rc, batch.items);
                pump(&rc);
            });
        }
    }
}

/// A storage failure is a failure of the run itself, not of a case: spec
/// 000's `error` record goes into the run's event log (the run goes on,
/// unsaved, and the page says so).
fn record_storage_failure<V: RunView>(rc: &Shared<V>, e: &str) {
    let mut r = rc.borrow_mut();
    if r.journal.error().is_some() {
        return;
    }
    let why =
        format!("the run could not be saved in this browser (IndexedDB): {e}; it goes on unsaved");
    if let Some(record) = r.engine.kind().error(&why, now_ms()) {
        let line = to_jsonl(&record);
        r.events_jsonl.push_str(&line);
    }
}

fn show<V: RunView>(rc: &Shared<V>, items: Vec<V::Shown>) {
    let mut r = rc.borrow_mut();
    r.shown += items.len();
    r.view.show(items);
}

/// After a batch reached the page: announce progress, or the end once all is saved.
fn after_drain<V: RunView>(rc: &Shared<V>) {
    let (stopped, done) = {
        let r = rc.borrow();
        let stopped = stopped(&r);
        (stopped, stopped && r.journal.is_idle() && !r.finished)
    };
    if done {
        finish(rc);
    } else if !stopped {
        schedule_flush(rc);
    }
}

/// How long a call of the model file may run before it is given up.
const IN_PAGE_TIMEOUT_MS: u64 = 600_000;

fn send<V: RunView>(
    rc: &Shared<V>,
    job: usize,
    pool: usize,
    messages: Vec<ChatMessage>,
    body: Option<serde_json::Value>,
    repeat: u32,
    tools: Option<std::sync::Arc<serde_json::Value>>,
) {
    let weak = Rc::downgrade(rc);
    let (transport, timeout_ms, cache) = {
        let r = rc.borrow();
        let t = r.view.transport(&r.engine, job, pool, &messages);
        (t, r.settings.timeout_ms, r.cache)
    };
    match transport {
        Transport::Local { answer, latency_ms } => {
            rc.borrow_mut().in_flight.insert(job, None);
            super::spawn(async move {
                if latency_ms > 0 {
                    gloo_timers::future::TimeoutFuture::new(latency_ms).await;
                }
                feed(&weak, job, CallOutcome::Answer(answer));
            });
        }
        Transport::Settled(outcome) => {
            rc.borrow_mut().in_flight.insert(job, None);
            super::spawn(async move { feed(&weak, job, outcome) });
        }
        Transport::InPage(cfg) => {
            // The model file's generation is bounded by its max_tokens, not by
            // a network: its calls get the longest timeout the settings allow
            // (the timeout field is hidden with the endpoint's, and a CPU
            // answering 512 tokens can take minutes).
            let timeout_ms = timeout_ms.max(IN_PAGE_TIMEOUT_MS);
            start_call(rc, job, timeout_ms, move |signal, timed_out| async move {
                let outcome =
                    super::local_model::chat(&cfg, &messages, tools.as_deref(), &signal).await;
                if timed_out.get() {
                    let why = format!("no answer within {} s", timeout_ms / 1000);
                    return CallOutcome::Failed(CallError::new(ErrorKind::Timeout, why));
                }
                outcome
            })
        }
        Transport::Mcp(sessions) => {
            // never cached: a call changes the session's world
            let body = body.unwrap_or_default();
            start_call(rc, job, timeout_ms, move |signal, timed_out| async move {
                let bound = super::mcp::Bound {
                    signal: &signal,
                    timed_out,
                    timeout_ms,
                };
                sessions.call(job, &body, bound).await
            })
        }
        Transport::Json(url, key) => {
            let body = body.unwrap_or_default();
            start_call(rc, job, timeout_ms, move |signal, timed_out| async move {
                let key = key.as_ref().map(|(k, owner)| (k, owner.as_str()));
                // The cache's key: the URL and the body, never the API key.
                let key_of = || {
                    let req = evalpage_core::build_json_request(&url, &body, None);
                    (req.url, req.body)
                };
                through_cache(cache.then(key_of), repeat, async {
                    fetch::post_json(&url, &body, key, &signal, timed_out, timeout_ms).await
                })
                .await
            })
        }
        Transport::OpenAi(cfg, key_for) => {
            start_call(rc, job, timeout_ms, move |signal, timed_out| async move {
                let to = fetch::To {
                    cfg: &cfg,
                    key_for: key_for.as_deref(),
                };
                // The cache's key: the URL and the body (the API key travels in a
                // header), made only when the run uses the cache.
                let key_of = || {
                    let req = evalpage_core::build_chat_request(&cfg, &messages, tools.as_deref());
                    (req.url, req.body)
                };
                through_cache(cache.then(key_of), repeat, async {
                    fetch::chat(
                        to,
                        &messages,
                        tools.as_deref(),
                        &signal,
                        timed_out,
                        timeout_ms,
                    )
                    .await
                })
                .await
            })
        }
    }
}

/// Starts one sent call of `job` under the run's timeout (`fetch::start`,
/// which aborts it on cancel): its outcome is fed back to the run, and a
/// call that cannot start is fed its error.
fn start_call<V: RunView, F>(
    rc: &Shared<V>,
    job: usize,
    timeout_ms: u64,
    call: impl FnOnce(web_sys::AbortSignal, Rc<std::cell::Cell<bool>>) -> F,
) where
    F: std::future::Future<Output = CallOutcome> + 'static,
{
    let weak = Rc::downgrade(rc);
    let on_done = {
        let weak = weak.clone();
        move |outcome| feed(&weak, job, outcome)
    };
    match fetch::start(timeout_ms, call, on_done) {
        Ok(pending) => {
            rc.borrow_mut().in_flight.insert(job, Some(pending));
        }
        Err(err) => super::spawn(async move { feed(&weak, job, CallOutcome::Failed(err)) }),
    }
}

/// `send` through the response cache when the run uses it (`key`: the
/// request's URL and body): a hit answers without a request; an answer worth
/// keeping is stored with its latency.
async fn through_cache(
    key: Option<(String, String)>,
    repeat: u32,
    send: impl std::future::Future<Output = CallOutcome>,
) -> CallOutcome {
    let Some((url, body)) = key else {
        return send.await;
    };
    if let Some(hit) = super::cache::lookup(&url, &body, repeat).await {
        return CallOutcome::Answer(hit);
    }
    let started = now_ms();
    let outcome = send.await;
    if let CallOutcome::Answer(a) = &outcome {
        super::cache::store(&url, &body, repeat, a, now_ms().saturating_sub(started)).await;
    }
    outcome
}

fn feed<V: RunView>(weak: &Weak<RefCell<Runner<V>>>, job: usize, outcome: CallOutcome) {
    let Some(rc) = weak.upgrade() else { return };
    let step = {
        let mut r = rc.borrow_mut();
        r.in_flight.remove(&job);
        r.engine
            .handle(Input::Outcome { case: job, outcome }, now_ms())
    };
    apply(&rc, step);
}

fn schedule_wake<V: RunView>(rc: &Shared<V>, wake_at: Option<u64>) {
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

/// Progress reaches the page at most every `FLUSH_MS`, so a fast endpoint does
/// not spend its time re-rendering.
fn schedule_flush<V: RunView>(rc: &Shared<V>) {
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
            cb.emit(Update::Progress(Rc::new(snap)));
        }
    });
    rc.borrow_mut().flush = Some(timer);
}

fn snapshot<V: RunView>(r: &Runner<V>) -> V::Snapshot {
    let status = match r.engine.status() {
        run::RunStatus::Idle | run::RunStatus::Running => RunStatus::Running,
        run::RunStatus::Done => RunStatus::Done,
        run::RunStatus::Cancelled => RunStatus::Cancelled,
    };
    let concurrency = r.settings.concurrency;
    let progress = RunProgress {
        done: r.shown,
        total: r.engine.progress().1,
        started_ms: r.started_ms,
        now_ms: now_ms(),
        paused: r.engine.is_paused(),
        // The lowest pool's limit (the configured one when none was rate limited).
        limit: r
            .engine
            .current_limits()
            .into_iter()
            .min()
            .unwrap_or(concurrency),
        concurrency,
        save_error: r.journal.error().cloned(),
        stopped: r
            .engine
            .stop_reason()
            .zip(r.engine.stopped())
            .map(|(reason, e)| crate::state::run::Stopped {
                reason,
                message: e.message.clone(),
            }),
    };
    r.view.snapshot(&r.engine, status, progress)
}

fn finish<V: RunView>(rc: &Shared<V>) {
    let (snap, artifacts, cb) = {
        let mut guard = rc.borrow_mut();
        let r = &mut *guard;
        if r.finished {
            return;
        }
        r.finished = true;
        r.flush = None;
        r.wake = None;
        r.in_flight.clear();
        // The one end of every kind's run: the kind renders its files.
        let ended_at_ms = now_ms();
        let ending = r.view.ending(&r.engine);
        let end = RunEnd {
            version: env!("CARGO_PKG_VERSION").into(),
            metadata: ending.metadata,
            ended_at_ms,
            prices: ending.prices,
        };
        let ended = finish_run(&r.engine, ending.inputs, &end);
        let [jsonl, seq] = <V::Kind as Finish>::NAMES.events();
        let logs = [
            (jsonl.to_string(), r.events_jsonl.clone()),
            (seq.to_string(), jsonl_to_json_seq(&r.events_jsonl)),
        ];
        let artifacts = r.view.finished(&r.engine, ended, logs, ended_at_ms);
        (snapshot(r), artifacts, r.on_update.clone())
    };
    // A run the in-page engine stopped under stays saved: once the model
    // file is loaded again it is resumed like an interrupted run.
    if !engine_stopped(&rc.borrow()) {
        rc.borrow().journal.forget();
    }
    cb.emit(Update::Finished(Rc::new(snap), artifacts));
}
