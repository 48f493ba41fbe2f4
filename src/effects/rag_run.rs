//! The RAG check (spec 002) as the runner shows it: the demo model answered
//! in the page or an endpoint, the `[EVAL]` console lines (shown in the page
//! and, as spec 002's 控制台输出 asks, logged to the browser's console, one
//! `console.log` per line as it is shown; the lines never hold a key), the
//! case table's results and counts, and at the end `report.json`, the two
//! event logs, `report.md` and the Notes.

use super::runner::{Handle, Launch, Persist, RunView, Transport, Update};
use crate::state::{Artifacts, ModelCall, RunProgress, RunSnapshot, RunStatus};
use evalpage_core::events::{jsonl_to_json_seq, PriorCall, Record};
use evalpage_core::rag::{case_line, finish_line, notes, start_line};
use evalpage_core::rag::{Engine, RagKind, RunConfig};
use evalpage_core::report::{self, RunMetrics};
use evalpage_core::run::{self};
use evalpage_core::Kind;
use evalpage_core::RagCase;
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
    /// The model's price, if set (the report's cost).
    price: Option<evalpage_core::Price>,
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

    fn record(&self, event: &mut Record) -> bool {
        if let Record::Summary(s) = event {
            s.final_report_path = Some("report.json".to_string());
        }
        matches!(event, Record::Case(_))
    }

    fn transport(
        &self,
        engine: &Engine,
        job: usize,
        _pool: usize,
        messages: &[ChatMessage],
    ) -> Transport {
        match &self.call {
            ModelCall::Mock(scale) => Transport::Local {
                answer: engine.kind().mock_answer(job, messages),
                latency_ms: (demo::latency_ms(messages) as f64 * scale) as u32,
            },
            ModelCall::OpenAi(cfg, key_for) => Transport::OpenAi(cfg.clone(), key_for.clone()),
        }
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

    fn finish(&mut self, engine: &Engine, events_jsonl: &str, ended_at_ms: u64) -> Rc<Artifacts> {
        let cancelled = engine.status() == run::RunStatus::Cancelled;
        let mut built = evalpage_core::rag::build(engine, ended_at_ms);
        let prices: evalpage_core::Prices = self
            .price
            .map(|p| (engine.config().info.model.clone(), p))
            .into_iter()
            .collect();
        evalpage_core::set_prices(&mut built, &prices);
        let metrics = RunMetrics::from_results(engine.results());
        let line = finish_line(self.lang, &metrics, cancelled);
        self.console.push(Rc::from(line));
        let info = &engine.config().info;
        let meta = report::RunMeta {
            tool: info.tool.clone(),
            version: env!("CARGO_PKG_VERSION").into(),
            argv: info.argv.clone(),
            dataset: info.dataset_name.clone(),
            metadata: None,
            started_at_ms: info.started_at_ms,
            ended_at_ms,
        };
        // The core's one renderer of every run's files, as the CLI writes them.
        let outputs = evalpage_core::rag::rag_outputs(
            engine,
            &built,
            self.lang,
            self.dataset.as_bytes(),
            &meta,
        );
        let events_json_seq = jsonl_to_json_seq(events_jsonl);
        let mut files: Vec<(String, String)> = report::render_outputs(&outputs)
            .unwrap_or_default()
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect();
        files.push(("report.events.jsonl".into(), events_jsonl.to_string()));
        files.push(("report.events.json-seq".into(), events_json_seq.clone()));
        self.log_new_lines();
        Rc::new(Artifacts {
            report_json: serde_json::to_string_pretty(&built).unwrap_or_default(),
            events_json_seq,
            events_jsonl: events_jsonl.to_string(),
            markdown: outputs.markdown.clone(),
            notes: notes(self.lang, engine),
            report: Rc::new(built),
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
            price: None,
            logged: 0,
        }
    }

    /// The model's price per million tokens, for the report's cost.
    pub fn with_price(mut self, price: Option<evalpage_core::Price>) -> RagView {
        self.price = price;
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
        let started_ms = cfg.info.started_at_ms;
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
