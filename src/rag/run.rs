//! The RAG check (spec 002) as the runner shows it: the demo model answered
//! in the page or an endpoint, the `[EVAL]` console lines (shown in the page
//! and, as spec 002's 控制台输出 asks, logged to the browser's console, one
//! `console.log` per line as it is shown; the lines never hold a key), the
//! case table's results and counts, and at the end `report.json`, the two
//! event logs, `report.md` and the Notes.

use crate::effects::runner::{
    transport_of, Ending, Handle, Launch, Persist, RunView, Transport, Update,
};
use crate::rag::state::{Artifacts, RunSnapshot};
use crate::state::{ModelCall, RunProgress, RunStatus};
use evalpage_core::events::PriorCall;
use evalpage_core::rag::{case_line, notes, start_line, Engine, RagCase, RagKind, RunConfig};
use evalpage_core::report::RunMetrics;
use evalpage_core::run::{Ended, Finish, Kind};
use evalpage_core::{demo, Lang};
use evalpage_core::{ChatMessage, ErrorKind};
use std::rc::Rc;
use wasm_bindgen::JsValue;
use yew::Callback;

/// A handle on a running RAG check.
pub type RunHandle = Handle<RagView>;

/// What the RAG runner tells the page.
pub type RunUpdate = Update<RunSnapshot, Rc<Artifacts>>;

/// A settled case as the page shows it: index, result, console line.
pub type Shown = (usize, Rc<evalpage_core::rag::CaseResult>, Rc<str>);

/// The RAG check's side of the runner.
pub struct RagView {
    call: ModelCall,
    lang: Lang,
    cases: Rc<Vec<RagCase>>,
    /// Results the page may count: saved first when persistence is on.
    results: Vec<Option<Rc<evalpage_core::rag::CaseResult>>>,
    console: Vec<Rc<str>>,
    /// The dataset file's text (for `dataset_fingerprint.json`).
    dataset: Rc<str>,
    /// The run's priced models (the report's cost), as the start priced them.
    prices: evalpage_core::report::Prices,
    /// Console lines already logged to the browser's console.
    logged: usize,
}

impl RagView {
    /// Logs the console lines not logged yet to the browser's console.
    fn log_new_lines(&mut self) {
        for line in &self.console[self.logged..] {
            web_sys::console::log_1(&JsValue::from_str(line));
        }
        self.logged = self.console.len();
    }
}

impl RunView for RagView {
    type Kind = RagKind;
    type Shown = Shown;
    type Snapshot = RunSnapshot;
    type Artifacts = Rc<Artifacts>;

    fn launched(&mut self) {
        self.log_new_lines();
    }

    fn transport(
        &self,
        engine: &Engine,
        job: usize,
        _pool: usize,
        messages: &[ChatMessage],
    ) -> Transport {
        transport_of(&self.call, |scale| Transport::Local {
            answer: engine.kind().mock_answer(job, messages),
            latency_ms: (demo::latency_ms(messages) as f64 * scale) as u32,
        })
    }

    fn settled(&self, engine: &Engine, job: usize) -> Option<Shown> {
        let result = engine.results().get(job)?.clone()?;
        let line = case_line(self.lang, &self.cases[job], &result);
        Some((job, Rc::new(result), Rc::from(line)))
    }

    fn show(&mut self, shown: Vec<Shown>) {
        for (i, result, line) in shown {
            self.results[i] = Some(result);
            self.console.push(line);
        }
        self.log_new_lines();
    }

    fn snapshot(&self, _: &Engine, status: RunStatus, progress: RunProgress) -> RunSnapshot {
        let network_errors = self
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
            progress,
            cases: self.cases.clone(),
            results: self.results.clone(),
            metrics: RunMetrics::of(self.results.iter().flatten().map(|c| c.as_ref())),
            console: self.console.clone(),
            network_errors,
        }
    }

    fn ending(&mut self, _: &Engine) -> Ending<RagKind> {
        Ending {
            inputs: self.dataset.as_bytes().to_vec(),
            prices: self.prices.clone(),
            metadata: None,
        }
    }

    fn finished(
        &mut self,
        engine: &Engine,
        ended: Result<Ended, String>,
        logs: [(String, String); 2],
        ended_at_ms: u64,
    ) -> Rc<Artifacts> {
        let (mut files, report) = match ended {
            Ok(ended) => {
                self.console
                    .extend(ended.lines.iter().map(|l| Rc::from(l.as_str())));
                (ended.files, ended.report)
            }
            Err(e) => {
                self.console.push(Rc::from(format!("[EVAL] {e}").as_str()));
                (Vec::new(), None)
            }
        };
        files.extend(logs);
        let text = |name: &str| {
            files
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .unwrap_or_default()
        };
        // The page shows the report it offers for download (built again only
        // when its files could not be rendered, to show the run anyway).
        let report_json = text(RagKind::NAMES.report);
        let markdown = text("report.md");
        let [jsonl, seq] = RagKind::NAMES.events();
        let (events_jsonl, events_json_seq) = (text(jsonl), text(seq));
        let report = report.unwrap_or_else(|| evalpage_core::rag::build(engine, ended_at_ms));
        self.log_new_lines();
        Rc::new(Artifacts {
            report_json,
            events_json_seq,
            events_jsonl,
            markdown,
            notes: notes(self.lang, engine),
            report: Rc::new(report),
            files,
            ended_at_ms,
        })
    }
}

impl RagView {
    /// The view of a RAG check over `engine`'s cases, called through `call`.
    pub fn new(engine: &Engine, call: ModelCall) -> RagView {
        let lang = engine.config().info.lang;
        let cases = engine.cases().to_vec();
        let n = cases.len();
        RagView {
            call,
            lang,
            cases: Rc::new(cases),
            results: vec![None; n],
            console: vec![Rc::from(start_line(lang, n))],
            dataset: Rc::from(""),
            prices: Default::default(),
            logged: 0,
        }
    }

    /// The run's priced models (`Pipeline::priced`), for the report's cost.
    pub fn with_prices(mut self, prices: evalpage_core::report::Prices) -> RagView {
        self.prices = prices;
        self
    }

    /// The dataset file's text, fingerprinted in the run's files.
    pub fn with_dataset(mut self, text: Rc<str>) -> RagView {
        self.dataset = text;
        self
    }
}

impl Handle<RagView> {
    /// Starts a RAG check; `prior` are cases an interrupted run already settled.
    pub fn start(
        cfg: RunConfig,
        cases: Vec<RagCase>,
        prior: Vec<PriorCall>,
        call: ModelCall,
        persist: Option<Persist>,
        on_update: Callback<RunUpdate>,
    ) -> RunHandle {
        let started_ms = cfg.run.started_at_ms;
        let mut engine = Engine::new(cfg, cases);
        engine.restore(prior);
        let view = RagView::new(&engine, call);
        Handle::launch(Launch {
            engine,
            view,
            started_ms,
            persist,
            on_update,
        })
    }
}
