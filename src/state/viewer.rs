//! The viewer's page state (`?mode=view`): the saved run opened, the query
//! over its rows (kept in the URL), the rows it shows and the one drilled
//! into. Pure; reading files is `effects::files`, the rows and queries are
//! the core's `view`.

use evalpage_core::view::{compare_views, Facets, Manifest, Query, ViewData};
use evalpage_core::{CompareError, CompareModels, CompareOptions, Comparison};
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
    /// The comparisons (one per other run, or the models'), or why there is none.
    pub comparisons: Vec<Shared<Result<Comparison, String>>>,
    /// A published folder's manifest (`?eval=`) and its URL.
    pub manifest: Option<Shared<(String, Manifest)>>,
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
            for other in &self.others {
                self.comparisons
                    .push(shared(compare_views(data, other, &opts)));
            }
        }
    }
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
            ViewerAction::Models(a, b) => {
                s.others.clear();
                s.models = Some((a, b));
                s.recompare();
            }
            ViewerAction::ClearCompare => {
                s.others.clear();
                s.models = None;
                s.comparisons.clear();
            }
            ViewerAction::Manifest(m) => s.manifest = Some(m),
        }
        Rc::new(s)
    }
}
