//! The one launch path of both modes: a fresh run, a run resumed from this
//! browser's storage after a reload, a run resumed from a downloaded event
//! log, and discarding an offered run. What differs per mode (how the page's
//! inputs become a run, how a stored run's inputs come back, which logs fit)
//! is a [`ModeLaunch`]: `rag` (the RAG check) and `task` (task runs).

pub mod rag;
pub mod task;

use crate::effects::idb::{self, RunRecord};
use crate::effects::runner::{Handle, Launch, Persist, RunView, ViewUpdate};
use crate::state::resume::{Offer, Takeover};
use evalpage_core::events::{self, ReadLog};
use evalpage_core::run::Pipeline;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use yew::Callback;

/// The run of one mode (kept by the app, so switching modes does not lose a run).
pub struct Slot<V: RunView>(Rc<RefCell<Option<Handle<V>>>>);

impl<V: RunView> Default for Slot<V> {
    fn default() -> Self {
        Slot(Rc::default())
    }
}

impl<V: RunView> Clone for Slot<V> {
    fn clone(&self) -> Self {
        Slot(self.0.clone())
    }
}

impl<V: RunView> PartialEq for Slot<V> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<V: RunView> Slot<V> {
    /// True while a run has jobs to settle.
    pub fn is_running(&self) -> bool {
        self.0.borrow().as_ref().is_some_and(Handle::is_running)
    }

    /// Cancels the run, if one is going.
    pub fn cancel(&self) {
        let handle = self.0.borrow().clone();
        if let Some(h) = handle {
            h.cancel();
        }
    }

    /// Pauses or resumes the run, if one is going.
    pub fn set_paused(&self, paused: bool) {
        let handle = self.0.borrow().clone();
        if let Some(h) = handle {
            h.set_paused(paused);
        }
    }
}

/// A run ready to start.
pub struct Prepared<V: RunView> {
    /// The engine, with what the interrupted run settled restored.
    pub engine: Pipeline<V::Kind>,
    /// The kind's view.
    pub view: V,
    /// Start time, ms.
    pub started_ms: u64,
    /// What is saved in IndexedDB (never a key).
    pub stored: V::Stored,
}

/// What the launch path tells a mode's page.
pub enum Event<V: RunView> {
    /// A run started: clear the previous one.
    Started,
    /// The run could not start, with the reason.
    Failed(Rc<str>),
    /// Progress or the end of the run.
    Update(ViewUpdate<V>),
    /// An unfinished run was found (or the offer is withdrawn with `None`).
    Offer(Option<Rc<Offer<V::Stored>>>),
}

/// One mode as the launch path sees it.
pub trait ModeLaunch: Clone + 'static {
    /// The mode's run view.
    type View: RunView;
    /// The page's inputs a run is made of.
    type Page;
    /// Where the mode's run is kept.
    fn slot(&self) -> &Slot<Self::View>;
    /// The page's inputs as they are.
    fn page(&self) -> Self::Page;
    /// Builds the run of `page`, or says why it cannot start.
    fn prepare(&self, page: &Self::Page, t: &Takeover) -> Result<Prepared<Self::View>, String>;
    /// The page with a stored run's inputs (shown at once), and why it
    /// cannot run yet, if it cannot (a key to type again).
    fn restore(&self, stored: &<Self::View as RunView>::Stored) -> (Self::Page, Option<String>);
    /// Why a downloaded log cannot be resumed over what is loaded, if it cannot.
    fn log_problem(&self, log: &ReadLog) -> Option<String>;
    /// Tells the page.
    fn tell(&self, event: Event<Self::View>);
}

/// Starts a run of `page` (a fresh one, or one that takes over an
/// interrupted run); a problem shows as a failed start with the reason.
pub fn start<M: ModeLaunch>(m: &M, page: &M::Page, takeover: Takeover) {
    if m.slot().is_running() {
        return;
    }
    let p = match m.prepare(page, &takeover) {
        Ok(p) => p,
        Err(why) => return m.tell(Event::Failed(Rc::from(why))),
    };
    let on_update = {
        let m = m.clone();
        Callback::from(move |u| m.tell(Event::Update(u)))
    };
    m.tell(Event::Started);
    let handle = Handle::launch(Launch {
        engine: p.engine,
        view: p.view,
        started_ms: p.started_ms,
        persist: Some(Persist {
            stored: p.stored,
            replace: takeover.run_id.is_some(),
        }),
        on_update,
    });
    *m.slot().0.borrow_mut() = Some(handle);
}

/// Starts a fresh run of what the page holds.
pub fn start_fresh<M: ModeLaunch>(m: &M) {
    start(m, &m.page(), Takeover::default());
}

/// Resumes a run offered after a reload: its stored inputs replace the
/// page's, then (unless a key must be typed again first) only the jobs not
/// yet settled are sent, under the same run id.
pub fn resume_offer<M: ModeLaunch>(m: &M, offer: &Offer<<M::View as RunView>::Stored>) {
    if m.slot().is_running() {
        return;
    }
    let s = &offer.stored;
    let (page, problem) = m.restore(s);
    if let Some(p) = problem {
        return m.tell(Event::Failed(Rc::from(p)));
    }
    start(m, &page, offer.takeover(s.run_id(), s.started_at_ms()));
}

/// Resumes from a downloaded event log over what the page holds.
pub fn resume_from_log<M: ModeLaunch>(m: &M, bytes: &[u8]) {
    let log = events::read(bytes);
    if let Some(p) = m.log_problem(&log) {
        return m.tell(Event::Failed(Rc::from(p)));
    }
    let run_id = log
        .of_type("meta")
        .next()
        .and_then(|m| m.get("run_id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let takeover = Takeover {
        run_id,
        started_at_ms: None,
        log: Some(Rc::from(String::from_utf8_lossy(bytes).as_ref())),
    };
    start(m, &m.page(), takeover);
}

/// Looks for an unfinished run of this mode saved in this browser and offers it.
pub async fn find_unfinished<M: ModeLaunch>(m: M) {
    let found = async {
        let db = idb::open().await?;
        for stored in idb::runs::<<M::View as RunView>::Stored>(&db).await? {
            if stored.status() == "running" {
                let events = idb::events(&db, stored.run_id()).await?;
                let done = events::read(events.as_bytes()).of_type("case").count();
                return Ok(Some(Offer {
                    stored,
                    events: Rc::from(events),
                    done,
                }));
            }
        }
        Ok::<_, String>(None)
    };
    match found.await {
        Ok(offer) => m.tell(Event::Offer(offer.map(Rc::new))),
        Err(e) => web_sys::console::warn_1(
            &format!("evalpage: cannot look for unfinished runs: {e}").into(),
        ),
    }
}

/// Forgets an offered run (deletes it from storage).
pub fn discard<M: ModeLaunch>(m: &M, offer: &Offer<<M::View as RunView>::Stored>) {
    let (m, run_id) = (m.clone(), offer.stored.run_id().to_string());
    wasm_bindgen_futures::spawn_local(async move {
        match idb::open().await {
            Ok(db) => {
                if let Err(e) = idb::delete(&db, &run_id).await {
                    web_sys::console::warn_1(
                        &format!("evalpage: could not delete the run {run_id}: {e}").into(),
                    );
                }
            }
            Err(e) => web_sys::console::warn_1(&format!("evalpage: {e}").into()),
        }
        m.tell(Event::Offer(None));
    });
}
