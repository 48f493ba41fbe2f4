//! The viewer's page state (`?mode=view`): the saved run opened, the query
//! over its rows (kept in the URL), the rows it shows and the one drilled
//! into; and a saved run in the live modes' own state types, so the page
//! shows it through their views (`rag_view`). Pure;
//! reading files is `effects::files`, the rows and queries are the core's
//! `view`.

use crate::rag::state::RunSnapshot;
use crate::state::{RunProgress, RunStatus};
use evalpage_core::rag::{notes_of, RagCase};
use evalpage_core::report::RunMetrics;
use evalpage_core::view::{compare_views, rag_cases, Facets, Look, Manifest, Query, ViewData};
use evalpage_core::{
    CompareError, CompareMetrics, CompareModels, CompareOptions, Comparison, Lang,
};
use std::ops::Deref;
use std::rc::Rc;
use yew::Reducible;

/// A value shared between renders and compared by identity: a run of
/// 100,000 rows is never compared field by field to decide a re-render.
#[derive(Debug, Default)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Shared<T> {
    /// Shares `v`.
    pub fn new(v: T) -> Shared<T> {
        Shared(Rc::new(v))
    }
}

/// The viewer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewerState {
    /// The run opened.
    pub data: Option<Shared<ViewData>>,
    /// The values each filter can take (computed once per run).
    pub facets: Shared<Facets>,
    /// What the table shows.
    pub query: Query,
    /// Indices of the rows shown, filtered and sorted.
    pub shown: Shared<Vec<u32>>,
    /// The row drilled into.
    pub selected: Option<u32>,
    /// The file being read.
    pub loading: Option<String>,
    /// Why a file could not be opened.
    pub error: Option<Rc<str>>,
    /// The runs the opened one is compared with, each on its own (the opened
    /// one is the base), in the order they were opened.
    pub others: Vec<Shared<ViewData>>,
    /// Two models of the opened run compared with each other.
    pub models: Option<(String, String)>,
    /// What the opened run is paired on with a compared run: one model of
    /// each, one metric of each (two tools name their models and verdicts
    /// each its own way).
    pub pair: Pair,
    /// The comparisons (one per other run, or the models'), or why there is none.
    pub comparisons: Vec<Shared<Result<Comparison, String>>>,
    /// A published folder's manifest (`?eval=`) and its URL.
    pub manifest: Option<Shared<(String, Manifest)>>,
}

/// A saved RAG check as the RAG page held it live: the snapshot its metrics
/// panel and error summary show, and the Notes.
#[derive(Clone, Debug, PartialEq)]
pub struct RagView {
    /// The cases and results read back, with their counts.
    pub run: Rc<RunSnapshot>,
    /// The Notes block.
    pub notes: Rc<Vec<String>>,
}

/// The RAG page's view of a saved RAG check, when its report holds the
/// cases (`None` for other runs, and for an event log, which does not).
pub fn rag_view(data: &ViewData, lang: Lang) -> Option<RagView> {
    if data.look != Look::Rag {
        return None;
    }
    let read = rag_cases(data);
    if read.is_empty() {
        return None;
    }
    let mut cases: Vec<RagCase> = Vec::with_capacity(read.len());
    let mut results = Vec::with_capacity(read.len());
    for (i, (_, case, mut result)) in read.into_iter().enumerate() {
        result.index = i;
        cases.push(case);
        results.push(result);
    }
    let pairs: Vec<_> = cases.iter().zip(&results).collect();
    let notes = notes_of(lang, &pairs);
    let metrics = RunMetrics::of(results.iter());
    let n = results.len();
    Some(RagView {
        run: Rc::new(RunSnapshot {
            status: RunStatus::Done,
            progress: RunProgress {
                done: n,
                total: n,
                ..RunProgress::default()
            },
            cases: Rc::new(cases),
            results: results.into_iter().map(|r| Some(Rc::new(r))).collect(),
            metrics,
            console: Vec::new(),
            network_errors: 0,
        }),
        notes: Rc::new(notes),
    })
}

/// Bootstrap resamples of the page's comparisons (the CLI's gates use
/// 10,000; the page keeps a 100,000-case comparison within a second or two).
pub const PAGE_RESAMPLES: usize = 2_000;

impl ViewerState {
    fn recompare(&mut self) {
        self.comparisons.clear();
        let Some(data) = &self.data else {
            return;
        };
        let mut opts = CompareOptions {
            resamples: PAGE_RESAMPLES,
            ..CompareOptions::default()
        };
        let shared =
            |r: Result<Comparison, CompareError>| Shared::new(r.map_err(|e| e.to_string()));
        if let Some((a, b)) = &self.models {
            opts.models = Some(CompareModels {
                base: a.clone(),
                new: b.clone(),
            });
            self.comparisons
                .push(shared(compare_views(data, data, &opts)));
        } else {
            let pair = &self.pair;
            opts.models = pair
                .models
                .clone()
                .map(|(base, new)| CompareModels { base, new });
            opts.metrics = pair
                .metrics
                .clone()
                .map(|(base, new)| CompareMetrics { base, new });
            for other in &self.others {
                self.comparisons
                    .push(shared(compare_views(data, other, &opts)));
            }
        }
    }
}

/// One model and one metric of each side, when chosen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pair {
    /// Base's model, new's model.
    pub models: Option<(String, String)>,
    /// Base's metric, new's metric.
    pub metrics: Option<(String, String)>,
}

/// What changes the viewer.
#[derive(Clone, Debug)]
pub enum ViewerAction {
    /// A file is being read.
    Loading(String),
    /// A run was opened; `fresh` (a file the user picked) clears the query
    /// of the run before (a run opened from the URL keeps the URL's query).
    Loaded(Shared<ViewData>, bool),
    /// It could not be.
    Failed(Rc<str>),
    /// The query changed.
    SetQuery(Query),
    /// A row was drilled into (or closed).
    Select(Option<u32>),
    /// One more run was opened to compare with the opened one.
    Other(Shared<ViewData>),
    /// The n-th compared run is put away.
    DropOther(usize),
    /// Two models of the opened run, to compare.
    Models(String, String),
    /// The model and metric of each side a compared run is paired on.
    Pair(Pair),
    /// No comparison.
    ClearCompare,
    /// A published folder's manifest was read.
    Manifest(Shared<(String, Manifest)>),
}

impl Reducible for ViewerState {
    type Action = ViewerAction;

    fn reduce(self: Rc<Self>, action: ViewerAction) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            ViewerAction::Loading(name) => {
                s.loading = Some(name);
                s.error = None;
            }
            ViewerAction::Loaded(data, fresh) => {
                if fresh {
                    s.query = Query::default();
                }
                s.shown = Shared::new(s.query.apply(&data));
                s.facets = Shared::new(data.facets());
                s.data = Some(data);
                s.loading = None;
                s.error = None;
                s.selected = None;
                s.models = None;
                s.pair = Pair::default();
                s.recompare();
            }
            ViewerAction::Failed(why) => {
                s.loading = None;
                s.error = Some(why);
            }
            ViewerAction::SetQuery(q) => {
                if let Some(d) = &s.data {
                    s.shown = Shared::new(q.apply(d));
                }
                s.query = q;
            }
            ViewerAction::Select(i) => s.selected = i,
            ViewerAction::Other(o) => {
                s.others.push(o);
                s.models = None;
                s.recompare();
            }
            ViewerAction::DropOther(i) => {
                if i < s.others.len() {
                    s.others.remove(i);
                }
                s.recompare();
            }
            ViewerAction::Pair(pair) => {
                s.pair = pair;
                s.recompare();
            }
            ViewerAction::Models(a, b) => {
                s.others.clear();
                s.models = Some((a, b));
                s.recompare();
            }
            ViewerAction::ClearCompare => {
                s.others.clear();
                s.pair = Pair::default();
                s.models = None;
                s.comparisons.clear();
            }
            ViewerAction::Manifest(m) => s.manifest = Some(m),
        }
        Rc::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RAG report of two cases: one right, one citing a wrong document.
    fn report() -> String {
        let score = |id: &str, metric: &str, v: f64, detail: serde_json::Value| {
            serde_json::json!({"sample_id": id, "metric": metric, "value": v, "tags": [],
                "language": null, "length_bucket": "short", "detail": detail})
        };
        let kp = |k: &str, m: bool| {
            serde_json::json!({"keypoint": k, "matched": m,
            "method": if m {"exact"} else {"none"}, "score": if m {1.0} else {0.0}})
        };
        serde_json::json!({
            "metrics": {"cases": 2, "passed_cases": 1, "failed_calls": 0},
            "scores": [
                score("Q1", "accuracy", 1.0, serde_json::json!({"question": "q1?", "answer": "ChromaDB a.md",
                    "llm_call_ok": true, "error": null, "keypoints": [kp("ChromaDB", true)]})),
                score("Q1", "citation", 1.0, serde_json::json!({"question": "q1?", "answer": "ChromaDB a.md",
                    "llm_call_ok": true, "error": null, "cited": ["a.md"], "correct": ["a.md"], "wrong": [], "expected": ["a.md"]})),
                score("Q2", "accuracy", 0.0, serde_json::json!({"question": "q2?", "answer": "Milvus b.md",
                    "llm_call_ok": true, "error": null, "keypoints": [kp("Neo4j", false)]})),
                score("Q2", "citation", 0.0, serde_json::json!({"question": "q2?", "answer": "Milvus b.md",
                    "llm_call_ok": true, "error": null, "cited": ["b.md"], "correct": [], "wrong": ["b.md"], "expected": ["a.md"]})),
            ],
            "report": {
                "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl", "counts": {},
                    "languages": {}, "tags": {}}, "run_config": {},
                    "evaluator_config": {"metrics": [{"type": "rag_accuracy", "name": "accuracy"}]}},
                "summaries": [], "breakdowns": [], "error_cases": [], "llm_judge_details": []
            }
        })
        .to_string()
    }

    #[test]
    fn a_saved_rag_check_gives_the_rag_page_s_snapshot_and_notes() {
        let data = evalpage_core::view::load("report.json", report().as_bytes()).expect("report");
        let v = rag_view(&data, Lang::En).expect("a RAG check");
        assert_eq!(v.run.cases.len(), 2);
        assert_eq!(
            (
                v.run.metrics.cases_total,
                v.run.metrics.accurate_cases,
                v.run.metrics.cited_cases
            ),
            (2, 1, 1)
        );
        let r2 = v.run.results[1].as_ref().expect("settled");
        assert_eq!(r2.index, 1, "the error summary finds its case by index");
        assert_eq!(v.run.cases[r2.index].id, "Q2");
        assert_eq!(v.notes[0], "Notes:");
        assert!(v.notes[1].starts_with("1. Q2: "), "{:?}", v.notes);
        let log = "{\"record_type\":\"meta\",\"run_id\":\"r\",\"dataset\":\"d\",\"scoring\":{}}\n{\"record_type\":\"case\",\"case_id\":\"Q1\",\"accuracy\":true,\"citation\":false}\n";
        let from_log = evalpage_core::view::load("e.jsonl", log.as_bytes()).expect("log");
        assert_eq!(from_log.look, Look::Rag);
        assert!(
            rag_view(&from_log, Lang::En).is_none(),
            "a log has no questions"
        );
    }
}
