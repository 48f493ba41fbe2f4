//! A task run (spec 004, samples × models) as the runner shows it: the mock
//! models answered in the page (after a small pretend latency) or registry
//! endpoints, the result grid, and at the end every artifact rendered by the
//! core's renderer (as the CLI writes them) with both event logs.
//!
//! With `prior_log`, the calls an interrupted run settled are restored first
//! (the task kind's `run::Start` impl) and only the rest is sent. Keys live only
//! in the `OpenAiConfig`s of `calls`, never in what is stored.

use crate::effects::mcp::McpSessions;
use crate::effects::runner::{
    transport_of, Ending, Handle, Launch, Persist, RunView, Transport, Update,
};
use crate::state::{ModelCall, RunFiles, RunProgress, RunStatus};
use crate::task::state::check::CheckedTask;
use crate::task::state::data::RunData;
use crate::task::state::results::{labels, Labels, ResultGrid};
use crate::task::state::TaskSnapshot;
use evalpage_core::demo;
use evalpage_core::events;
use evalpage_core::run::{Ended, Pipeline, StartError, StartSpec};
use evalpage_core::task::TaskFiles;

use evalpage_core::run::Kind;
use evalpage_core::task::{SampleResult, TaskEngine, TaskJudge, TaskKind, TaskRunConfig};
use evalpage_core::ChatMessage;
use evalpage_core::Lang;
use evalpage_core::{McpServer, ToolEnvironment};
use std::rc::Rc;
use yew::Callback;

/// The mock's pretend latency is the demo model's divided by this (50-200 ms).
const MOCK_LATENCY_DIVISOR: u64 = 3;

/// A handle on a running task evaluation.
pub type TaskRunHandle = Handle<TaskView>;

/// What the task runner tells the page: progress, then the artifacts or why
/// they could not be rendered.
pub type TaskRunUpdate = Update<TaskSnapshot, Result<Rc<RunFiles>, Rc<str>>>;

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
    /// The judge of the task's `llm_judge` metrics and how it is called.
    pub judge: Option<(TaskJudge, ModelCall)>,
    /// Language of `report.md`.
    pub lang: Lang,
    /// The start every kind shares: the answer policy, the cost cap, the
    /// models' prices by name and the judge's (the report's cost).
    pub start: StartSpec,
    /// Answers imported from batch files: the models' calls are answered
    /// from them (final, never retried), nothing is sent to the models.
    pub batch: Option<Rc<crate::task::state::batch::BatchAnswers>>,
    /// Save the run as it goes (IndexedDB), to resume it after a reload.
    pub persist: Option<Persist>,
    /// The event log (JSONL or json-seq text) of the interrupted run this one
    /// resumes: its settled calls are restored, the rest is sent.
    pub prior_log: Option<Rc<str>>,
}

/// A settled call as the page shows it: model, answer (sample × repeats +
/// repeat), result.
pub type Shown = (usize, usize, Rc<SampleResult>);

/// The task mode's side of the runner.
pub struct TaskView {
    task: Rc<CheckedTask>,
    run_data: Rc<RunData>,
    calls: Vec<ModelCall>,
    models: Rc<Vec<String>>,
    labels: Rc<Vec<Labels>>,
    lang: Lang,
    /// Every priced model, the judge's price under its name.
    prices: evalpage_core::report::Prices,
    /// Results the page may count: saved first when persistence is on.
    results: ResultGrid,
    /// Answers imported from batch files, for the models' calls.
    batch: Option<Rc<crate::task::state::batch::BatchAnswers>>,
    /// How many times each sample is asked.
    repeats: u32,
    /// Identical judge requests of a job seen so far: the mock judge's
    /// repeats differ as a real judge's do (as in the CLI).
    judged: std::cell::RefCell<evalpage_core::MockJudge>,
    /// The sessions of the task's MCP server, when its tools are one's at a URL.
    mcp: Option<Rc<McpSessions>>,
}

impl RunView for TaskView {
    type Kind = TaskKind;
    type Shown = Shown;
    type Snapshot = TaskSnapshot;
    type Artifacts = Result<Rc<RunFiles>, Rc<str>>;

    fn transport(
        &self,
        engine: &TaskEngine,
        job: usize,
        pool: usize,
        messages: &[ChatMessage],
    ) -> Transport {
        if let (Some(b), true) = (&self.batch, pool < engine.config().models.len()) {
            return Transport::Settled(b.outcome(job));
        }
        if Some(pool) == engine.kind().mcp_pool() {
            return match &self.mcp {
                Some(sessions) => Transport::Mcp(sessions.clone()),
                // told on each case, nothing sent (docs/guide/agents.md)
                None => Transport::Settled(evalpage_core::CallOutcome::Failed(
                    evalpage_core::CallError::new(
                        evalpage_core::ErrorKind::Prompt,
                        "the task's MCP server is a command (stdio): the page cannot start a \
                         process; give the server's URL (tools: {mcp: http://...}) or run the \
                         task from the CLI (evalpage run --task ...)",
                    ),
                )),
            };
        }
        // `calls` holds the models in order, then the judge: a pool's index.
        let Some(call) = self.calls.get(pool) else {
            return Transport::Local {
                answer: String::new().into(),
                latency_ms: 0,
            };
        };
        transport_of(call, |scale| {
            let ms = (demo::latency_ms(messages) / MOCK_LATENCY_DIVISOR) as f64 * scale;
            let judge = pool == engine.config().models.len();
            let answer = if judge {
                self.judged.borrow_mut().answer(job, messages)
            } else {
                engine.kind().mock_answer(job, messages)
            };
            Transport::Local {
                answer,
                latency_ms: ms as u32,
            }
        })
    }

    fn settled(&self, engine: &TaskEngine, job: usize) -> Option<Shown> {
        let j = engine.job(job)?;
        let r = engine.result(job)?.clone();
        let slot = j.sample * engine.repeats() as usize + j.repeat as usize;
        Some((j.model, slot, Rc::new(r)))
    }

    fn release(&self, job: usize) {
        if let Some(sessions) = &self.mcp {
            sessions.close(job);
        }
    }

    fn show(&mut self, shown: Vec<Shown>) {
        for (model, slot, r) in shown {
            if let Some(cell) = self.results.get_mut(model).and_then(|m| m.get_mut(slot)) {
                *cell = Some(r);
            }
        }
    }

    fn snapshot(&self, _: &TaskEngine, status: RunStatus, progress: RunProgress) -> TaskSnapshot {
        TaskSnapshot {
            status,
            progress,
            task: self.task.clone(),
            data: self.run_data.data.clone(),
            models: self.models.clone(),
            results: self.results.clone(),
            repeats: self.repeats,
            labels: self.labels.clone(),
        }
    }

    fn ending(&mut self, _: &TaskEngine) -> Ending<TaskKind> {
        if let Some(sessions) = &self.mcp {
            sessions.close_all();
        }
        Ending {
            inputs: TaskFiles {
                task: self.task.task.clone(),
                info: self.task.info.clone(),
                data: self.run_data.data.as_ref().clone(),
                dataset_bytes: self.run_data.bytes.to_vec(),
                lang: self.lang,
            },
            prices: self.prices.clone(),
            metadata: self.run_data.metadata.clone(),
        }
    }

    fn finished(
        &mut self,
        _: &TaskEngine,
        ended: Result<Ended, String>,
        logs: [(String, String); 2],
        ended_at_ms: u64,
    ) -> Result<Rc<RunFiles>, Rc<str>> {
        let mut files = ended.map_err(|e| Rc::from(e.as_str()))?.files;
        files.extend(logs);
        Ok(Rc::new(RunFiles { files, ended_at_ms }))
    }
}

impl TaskRunSpec {
    /// The engine (with the calls of `prior_log` restored) and the view of
    /// this run; `persist` is left to the caller.
    pub fn parts(mut self) -> Result<(TaskEngine, TaskView), StartError> {
        let data = &self.run_data.data;
        let models: Vec<String> = self.cfg.models.iter().map(|m| m.name.clone()).collect();
        let (judge, judge_call) = self.judge.take().unzip();
        // The judge's pool comes after the models': its call goes last.
        self.calls.extend(judge_call);
        let kind = TaskKind::judged(
            self.cfg,
            self.task.task.clone(),
            self.task.info.clone(),
            &self.task.template,
            data,
            judge,
        );
        let log = self.prior_log.as_ref().map(|l| events::read(l.as_bytes()));
        let (mut engine, _) = Pipeline::prepare(kind, &self.start, log.as_ref())?;
        if self.batch.is_some() {
            engine.answers_from_batch();
        }
        // The model file in the page answers one call at a time: its pool
        // (a model's, or the judge's) keeps one in flight, the others theirs.
        for (pool, call) in self.calls.iter().enumerate() {
            if matches!(call, ModelCall::InPage(_)) {
                engine.cap_pool(pool, 1);
            }
        }
        let prices = engine.priced(&self.start);
        let labels = data
            .samples
            .iter()
            .map(|s| Rc::new(labels(&self.task.task, &s.sample)))
            .collect();
        let repeats = engine.repeats();
        let mcp = match self.task.task.agent.as_deref().map(|a| &a.env) {
            Some(ToolEnvironment::Mcp(McpServer::Url(url))) => Some(McpSessions::new(url)),
            _ => None,
        };
        let view = TaskView {
            mcp,
            results: vec![vec![None; data.samples.len() * repeats as usize]; models.len()],
            repeats,
            batch: self.batch,
            labels: Rc::new(labels),
            task: self.task,
            run_data: self.run_data,
            calls: self.calls,
            models: Rc::new(models),
            lang: self.lang,
            prices,
            judged: Default::default(),
        };
        Ok((engine, view))
    }
}

impl Handle<TaskView> {
    /// Starts a task run (refused as `Pipeline::prepare` refuses it).
    pub fn start(
        mut spec: TaskRunSpec,
        on_update: Callback<TaskRunUpdate>,
    ) -> Result<TaskRunHandle, StartError> {
        let started_ms = spec.cfg.run.started_at_ms;
        let persist = spec.persist.take();
        let (engine, view) = spec.parts()?;
        Ok(Handle::launch(Launch {
            engine,
            view,
            started_ms,
            persist,
            on_update,
        }))
    }
}
