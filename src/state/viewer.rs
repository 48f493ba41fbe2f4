//! The viewer's page state (`?mode=view`): the saved run opened, the query
//! over its rows (kept in the URL), the rows it shows and the one drilled
//! into. Pure; reading files is `effects::files`, the rows and queries are
//! the core's `view`.

use evalpage_core::view::{Facets, Query, ViewData};
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
        }
        Rc::new(s)
    }
}
