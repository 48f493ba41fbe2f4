//! The one launch path of every run mode: a fresh run, a run resumed from
//! this browser's storage after a reload, a run resumed from a downloaded
//! event log, and discarding an offered run. What differs per mode (how the
//! page's inputs become a run, the code a run needs beyond the first load,
//! how a stored run's inputs come back, which logs fit) is a [`ModeLaunch`]:
//! `rag::launch`, `task::launch`, `retrieval::launch` and `dialog::launch`.

use crate::effects::locks::{self, RunLock};
use crate::effects::runner::{Handle, Launch, Persist, RunView, Update, ViewUpdate};
use crate::effects::saved;
use crate::split::{self, Loader, SplitCode, SplitFuture};
use crate::state::local::LocalModel;
use crate::state::resume::{Offer, Offers, OffersAction, Takeover};
use crate::state::stored::StoredRun;
use crate::state::Mode;
use crate::NotLoaded;
use evalpage_core::events::{self, ReadLog};
use evalpage_core::run::{Pipeline, StartError};
use evalpage_core::Lang;
use serde_json::Value;
use std::any::Any;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use yew::{Callback, UseReducerHandle};

/// A run going in this tab, with the lock that keeps other tabs off it.
struct Running<V: RunView> {
    handle: Handle<V>,
    _lock: Option<RunLock>,
}

/// A run that waits for the model file on this device to load before it
/// starts: which wait it is (a cancel ends it), and what tells the mode's
/// page that it was cancelled.
#[derive(Default)]
struct Wait {
    /// Counts the waits begun and cancelled: a wait goes on only while it is the latest.
    serial: u64,
    waiting: bool,
    on_cancel: Option<Box<dyn Fn()>>,
}

/// The run of one mode (kept by the app, so switching modes does not lose a run).
pub struct Slot<V: RunView>(Rc<RefCell<Option<Running<V>>>>, Rc<RefCell<Wait>>);

impl<V: RunView> Default for Slot<V> {
    fn default() -> Self {
        Slot(Rc::default(), Rc::default())
    }
}

impl<V: RunView> Clone for Slot<V> {
    fn clone(&self) -> Self {
        Slot(self.0.clone(), self.1.clone())
    }
}

impl<V: RunView> PartialEq for Slot<V> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<V: RunView> Slot<V> {
    /// True while a run has jobs to settle, or waits for the model file.
    pub fn is_running(&self) -> bool {
        self.1.borrow().waiting
            || self
                .0
                .borrow()
                .as_ref()
                .is_some_and(|r| r.handle.is_running())
    }

    /// Begins a wait for the model file; `on_cancel` tells the page if it is cancelled.
    fn begin_wait(&self, on_cancel: Box<dyn Fn()>) -> u64 {
        let mut w = self.1.borrow_mut();
        w.serial += 1;
        w.waiting = true;
        w.on_cancel = Some(on_cancel);
        w.serial
    }

    /// Ends wait `serial`: true when it was not cancelled (the run may start).
    fn end_wait(&self, serial: u64) -> bool {
        let mut w = self.1.borrow_mut();
        if w.serial != serial || !w.waiting {
            return false;
        }
        w.waiting = false;
        w.on_cancel = None;
        true
    }

    fn handle(&self) -> Option<Handle<V>> {
        self.0.borrow().as_ref().map(|r| r.handle.clone())
    }

    /// The run ended: other tabs may have its id again.
    fn unlock(&self) {
        if let Some(r) = self.0.borrow_mut().as_mut() {
            r._lock = None;
        }
    }

    /// Cancels the run, if one is going, or its wait for the model file.
    pub fn cancel(&self) {
        let cancelled = {
            let mut w = self.1.borrow_mut();
            if w.waiting {
                w.serial += 1;
                w.waiting = false;
                w.on_cancel.take()
            } else {
                None
            }
        };
        if let Some(tell) = cancelled {
            return tell();
        }
        if let Some(h) = self.handle() {
            h.cancel();
        }
    }

    /// Pauses or resumes the run, if one is going.
    pub fn set_paused(&self, paused: bool) {
        if let Some(h) = self.handle() {
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
    pub stored: StoredRun,
}

/// What the launch path tells a mode's page.
pub enum Event<V: RunView> {
    /// A run started: clear the previous one.
    Started,
    /// The run could not start, with the reason.
    Failed(Rc<str>),
    /// Progress or the end of the run.
    Update(ViewUpdate<V>),
    /// The run waits for the model file on this device to load (`true`),
    /// or its wait was cancelled (`false`).
    Waiting(bool),
}

/// A split module on its way (see [`ModeLaunch::fetch`]).
pub type Fetching = Pin<Box<dyn Future<Output = Result<(), String>>>>;

/// A run of mode `M` made ready to start, or why it cannot start.
pub type Preparing<M> = Result<Prepared<<M as ModeLaunch>::View>, String>;

/// What prepares and starts a run of mode `M` ([`ModeLaunch::prepare`] and
/// [`Handle::launch`]), reached through the bin's run code ([`RunCode`]):
/// with the `run` split point the runner, the engine, the
/// scorers and the end of the run are in no first load: they are fetched
/// once the page is up ([`prefetch_run_code`]), at the latest at the first
/// *Start* (or resume) of the page load.
pub struct RunFns<M: ModeLaunch> {
    /// The mode's [`ModeLaunch::prepare`].
    pub prepare: fn(&M, &M::Page, &Takeover) -> Preparing<M>,
    /// [`Handle::launch`] of the mode's view.
    pub launch: fn(Launch<M::View>) -> Handle<M::View>,
}

impl<M: ModeLaunch> Clone for RunFns<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: ModeLaunch> Copy for RunFns<M> {}

/// The [`RunFns`] of mode `M`.
fn run_fns<M: ModeLaunch>() -> RunFns<M> {
    RunFns {
        prepare: M::prepare,
        launch: Handle::launch,
    }
}

/// The bin's [`RunFns`] as `Rc<dyn Any>` (each bin runs one mode; [`start`]
/// takes them back as its mode's).
pub type AnyRunFns = Rc<dyn Any>;

/// What gives the bin's [`RunFns`]: its split point (`run`, declared with
/// [`split_point!`](crate::split_point) over [`run_code`]) or, in a test,
/// [`run_here`].
pub type RunCode = Loader<AnyRunFns>;

/// A [`RunCode`] without a split point, for a test that mounts a mode's root
/// itself (every run mode's bin declares the `run` point).
pub fn run_here<M: ModeLaunch>() -> SplitFuture<AnyRunFns> {
    Box::pin(async { Ok(run_code::<M>()) })
}

/// The run code of mode `M`, as the `run` point gives it.
pub fn run_code<M: ModeLaunch>() -> AnyRunFns {
    Rc::new(run_fns::<M>())
}

thread_local! {
    static RUN: SplitCode<AnyRunFns> = const { SplitCode::new() };
}

/// The bin's run code, set once by [`crate::start`] (or by a test that
/// mounts a mode's root itself).
pub fn set_run_code(code: Option<RunCode>) {
    RUN.with(|c| c.set_loader(code));
}

/// The run code of mode `M`, once loaded.
fn loaded<M: ModeLaunch>() -> Option<RunFns<M>> {
    RUN.with(SplitCode::loaded)?
        .downcast_ref::<RunFns<M>>()
        .copied()
}

/// Fetches the bin's run code in the background once a mode's page is up,
/// so that *Start* seldom waits for it; a failed fetch here says nothing
/// (the first *Start* fetches again, and says so if that fails too).
pub fn prefetch_run_code() {
    if RUN.with(SplitCode::to_load) {
        crate::effects::spawn(async {
            let _ = split::load(&RUN).await;
        });
    }
}

/// Loads the bin's run code (once per page load; a failed fetch is tried
/// again at the next call), or says, in `lang`, why it could not.
async fn load_run_code(lang: Lang) -> Result<(), String> {
    split::load(&RUN).await.map(drop).map_err(|NotLoaded| {
        lang.pick(
            "运行评测的代码未能加载，请检查网络后再点一次“开始”",
            "The code that runs the evaluation could not be fetched; check the network and press Start again",
        )
        .to_string()
    })
}

/// One mode as the launch path sees it.
pub trait ModeLaunch: Clone + 'static {
    /// The mode.
    const MODE: Mode;
    /// The mode's run view.
    type View: RunView;
    /// The page's inputs a run is made of.
    type Page: Clone + 'static;
    /// Where the mode's run is kept.
    fn slot(&self) -> &Slot<Self::View>;
    /// The unfinished runs offered (a resumed run is offered no more).
    fn offers(&self) -> &UseReducerHandle<Offers>;
    /// Interface language.
    fn lang(&self) -> Lang;
    /// The page's inputs as they are.
    fn page(&self) -> Self::Page;
    /// The code a run of `page` needs that is not loaded yet (a split
    /// module), fetched before [`ModeLaunch::prepare`]; its error says why the
    /// run cannot start. `None` when there is nothing to fetch.
    fn fetch(&self, _page: &Self::Page) -> Option<Fetching> {
        None
    }
    /// True when a run of `page` asks the model file on this device and that
    /// file is still loading: the run waits for it ([`start`]).
    fn awaits_model_file(&self, _page: &Self::Page) -> bool {
        false
    }
    /// `page` with the model file as it stands once its load ended.
    fn with_model_file(&self, page: Self::Page, _local: LocalModel) -> Self::Page {
        page
    }
    /// Builds the run of `page`, or says why it cannot start.
    fn prepare(&self, page: &Self::Page, t: &Takeover) -> Result<Prepared<Self::View>, String>;
    /// The page with a stored run's inputs (shown at once), and why it
    /// cannot run yet, if it cannot (a key to type again, a run of the other mode).
    fn restore(&self, stored: &StoredRun) -> (Self::Page, Option<String>);
    /// Why a downloaded log cannot be resumed over what is loaded, if it cannot.
    fn log_problem(&self, log: &ReadLog) -> Option<String>;
    /// Tells the page.
    fn tell(&self, event: Event<Self::View>);
}

/// What a run that cannot start as asked says (every mode starts through
/// `Pipeline::prepare`).
pub fn start_error(lang: Lang, e: &StartError) -> String {
    match e {
        StartError::CapWithoutPrice => lang
            .pick(
                "花费上限需要价格才能计算：请给模型（或评审）填写价格",
                "A cost cap needs a price to count: give the model (or the judge) a price",
            )
            .to_string(),
    }
}

/// Starts a run of `page` (a fresh one, or one that takes over an
/// interrupted run) once this tab holds its lock; a problem shows as a
/// failed start with the reason.
pub fn start<M: ModeLaunch>(m: &M, page: &M::Page, takeover: Takeover) {
    if m.slot().is_running() {
        return;
    }
    let code = loaded::<M>().is_none();
    let fetching = m.fetch(page);
    let waits = m.awaits_model_file(page);
    if !code && fetching.is_none() && !waits {
        return prepared(m, page, takeover);
    }
    // Start pressed while the model file loads: the run waits for it (the
    // page says so, Cancel ends the wait), then starts, or fails with the
    // load's reason.
    let wait = waits.then(|| {
        let told = m.clone();
        m.tell(Event::Waiting(true));
        m.slot()
            .begin_wait(Box::new(move || told.tell(Event::Waiting(false))))
    });
    let (m, page) = (m.clone(), page.clone());
    crate::effects::spawn(async move {
        let loaded = async {
            if code {
                load_run_code(m.lang()).await?;
            }
            match fetching {
                Some(f) => f.await,
                None => Ok(()),
            }
        };
        let loaded = loaded.await;
        let page = match wait {
            Some(serial) => {
                let local = crate::effects::local_model::settled().await;
                if !m.slot().end_wait(serial) {
                    return;
                }
                m.tell(Event::Waiting(false));
                if let LocalModel::Failed(why) = &local {
                    let said = m
                        .lang()
                        .pick("模型文件未能加载：", "The model file could not be loaded: ");
                    return m.tell(Event::Failed(Rc::from(format!("{said}{why}"))));
                }
                m.with_model_file(page, local)
            }
            None => page,
        };
        match loaded {
            Ok(()) => prepared(&m, &page, takeover),
            Err(why) => m.tell(Event::Failed(Rc::from(why))),
        }
    });
}

/// [`start`] once the run's code is loaded.
fn prepared<M: ModeLaunch>(m: &M, page: &M::Page, takeover: Takeover) {
    if m.slot().is_running() {
        return;
    }
    let Some(RunFns { prepare, launch }) = loaded::<M>() else {
        let why = m.lang().pick(
            "运行评测的代码尚未加载",
            "The code that runs the evaluation is not loaded yet",
        );
        return m.tell(Event::Failed(Rc::from(why)));
    };
    let p = match prepare(m, page, &takeover) {
        Ok(p) => p,
        Err(why) => return m.tell(Event::Failed(Rc::from(why))),
    };
    let run_id = p.stored.run_id.clone();
    let m = m.clone();
    locks::lock(&run_id.clone(), move |lock| {
        let Some(lock) = lock else {
            m.offers().dispatch(OffersAction::Remove(run_id));
            let why = m.lang().pick(
                "该运行正在另一个标签页中进行，不能在这里继续",
                "This run is going on in another tab; it cannot be resumed here",
            );
            return m.tell(Event::Failed(Rc::from(why)));
        };
        if m.slot().is_running() {
            return;
        }
        let on_update = {
            let m = m.clone();
            Callback::from(move |u: ViewUpdate<M::View>| {
                if matches!(u, Update::Finished(..)) {
                    m.slot().unlock();
                }
                m.tell(Event::Update(u))
            })
        };
        m.tell(Event::Started);
        if takeover.run_id.is_some() {
            m.offers().dispatch(OffersAction::Remove(run_id));
        }
        let handle = launch(Launch {
            engine: p.engine,
            view: p.view,
            started_ms: p.started_ms,
            persist: Some(Persist {
                stored: p.stored,
                replace: takeover.run_id.is_some(),
            }),
            on_update,
        });
        *m.slot().0.borrow_mut() = Some(Running {
            handle,
            _lock: Some(lock),
        });
    });
}

/// Starts a fresh run of what the page holds.
pub fn start_fresh<M: ModeLaunch>(m: &M) {
    start(m, &m.page(), Takeover::default());
}

/// Resumes a run offered after a reload: its stored inputs replace the
/// page's, then (unless a key must be typed again first) only the jobs not
/// yet settled are sent, under the same run id.
pub fn resume_offer<M: ModeLaunch>(m: &M, offer: &Offer) {
    if m.slot().is_running() {
        return;
    }
    let (page, problem) = m.restore(&offer.stored);
    if let Some(p) = problem {
        return m.tell(Event::Failed(Rc::from(p)));
    }
    start(m, &page, offer.takeover());
}

/// *Resume it* on an offer: resumed here when it is a run of this mode,
/// else handed to its mode (`modes::resume_next`), resumed there once
/// `on_mode` shows that mode (its bundle loaded if need be).
pub fn resume_picked<M: ModeLaunch>(m: &M, run_id: &str, on_mode: &Callback<Mode>) {
    let Some(offer) = m.offers().get(run_id) else {
        return;
    };
    if offer.mode() == M::MODE {
        return resume_offer(m, &offer);
    }
    crate::effects::modes::resume_next(run_id);
    on_mode.emit(offer.mode());
}

/// Resumes the offer picked in the other mode, if it is one of this mode's
/// (call when this mode shows).
pub fn resume_pending<M: ModeLaunch>(m: &M) {
    let Some(offer) = m
        .offers()
        .pending
        .as_deref()
        .and_then(|id| m.offers().get(id))
    else {
        return;
    };
    if offer.mode() == M::MODE {
        m.offers().dispatch(OffersAction::Pick(None));
        resume_offer(m, &offer);
    }
}

/// Resumes from a downloaded event log over what the page holds; code the
/// run needs that is not loaded yet (the task mode's, which the log is
/// checked against) is fetched first, as *Start* does.
pub fn resume_from_log<M: ModeLaunch>(m: &M, bytes: &[u8]) {
    let Some(fetching) = m.fetch(&m.page()) else {
        return resume_from_read(m, bytes);
    };
    let (m, bytes) = (m.clone(), bytes.to_vec());
    crate::effects::spawn(async move {
        match fetching.await {
            Ok(()) => resume_from_read(&m, &bytes),
            Err(why) => m.tell(Event::Failed(Rc::from(why))),
        }
    });
}

/// [`resume_from_log`] once the code is here.
fn resume_from_read<M: ModeLaunch>(m: &M, bytes: &[u8]) {
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

/// Offers the unfinished runs saved in this browser that no tab is running.
pub fn find_unfinished(offers: &UseReducerHandle<Offers>) {
    let offers = offers.clone();
    saved::find_unfinished(Callback::from(move |found| {
        offers.dispatch(OffersAction::Found(found))
    }));
}

/// Forgets an offered run: deletes it from storage and from the offers.
pub fn discard(offers: &UseReducerHandle<Offers>, offer: &Offer) {
    let (offers, run_id) = (offers.clone(), offer.stored.run_id.clone());
    saved::discard(run_id.clone(), move || {
        offers.dispatch(OffersAction::Remove(run_id))
    });
}

/// The key of a mode whose requests go to one endpoint URL (retrieval,
/// dialogs): kept in the page's one key ring by origin (as the RAG check's),
/// so it belongs to the origin it was typed for, comes back on that origin
/// only and is listed and forgotten with the others.
pub mod endpoint_key {
    use crate::effects::{storage, url};
    use crate::state::keys::{self, KeyPrompt, Secret};
    use crate::state::{ShellAction, ShellState};
    use std::rc::Rc;
    use yew::UseReducerHandle;

    /// The key saved for `url`'s origin (what the key field shows once the
    /// URL names another origin).
    pub fn saved(shell: &ShellState, url: &str) -> Secret {
        url::origin(url)
            .and_then(|o| shell.keys.get(&o).map(Secret::new))
            .unwrap_or_default()
    }

    /// A key typed for `url`: saved for its origin (in the storage that
    /// origin's key was kept in; this tab's session for a new one; a blank
    /// key forgets it), which confirms the origin for this page load.
    pub fn typed(shell: &UseReducerHandle<ShellState>, url: &str, key: &Secret) {
        let Some(origin) = url::origin(url) else {
            return;
        };
        let remembered = shell.keys.origins().iter().any(|(o, r)| *o == origin && *r);
        let mut ring = (*shell.keys).clone();
        ring.set(&origin, key.get(), remembered);
        if ring != *shell.keys {
            storage::save_keys(&ring);
            shell.dispatch(ShellAction::SetKeys(Rc::new(ring)));
        }
        if !key.is_empty() {
            shell.dispatch(ShellAction::Confirm(origin, false));
        }
    }

    /// The field's key is not the one saved for the URL's own origin.
    #[derive(Debug)]
    pub struct NotThisOrigins;

    /// The key a run sends to `url`, with the origin it was entered for:
    /// `None` when the field is blank; `Err` when the field's key is not the
    /// one saved for the URL's own origin (it must be typed again).
    pub fn bound(
        shell: &ShellState,
        url: &str,
        key: &Secret,
    ) -> Result<Option<(evalpage_core::ApiKey, String)>, NotThisOrigins> {
        let Some(k) = evalpage_core::ApiKey::new(key.get()) else {
            return Ok(None);
        };
        let origin = url::origin(url).ok_or(NotThisOrigins)?;
        match shell.keys.get(&origin) {
            Some(saved) if saved == key.get() => Ok(Some((k, origin))),
            _ => Err(NotThisOrigins),
        }
    }

    /// Whether a run may send `key` to `url` now, with the RAG check's
    /// rules: a click on Start confirms the origin it names, a key goes over
    /// plain `http://` to a remote host only after the prompt's button
    /// (`plain_http_ok`), and the key must be the one saved for the URL's
    /// own origin. `Ok(Some(origin))`: the key goes, to that origin only;
    /// `Ok(None)`: no key goes; `Err(Some(prompt))`: wait for a click;
    /// `Err(None)`: the field's key is not this origin's.
    pub fn gate(
        shell: &UseReducerHandle<ShellState>,
        url: &str,
        key: &Secret,
        plain_http_ok: bool,
    ) -> Result<Option<String>, Option<KeyPrompt>> {
        if key.is_empty() {
            return Ok(None);
        }
        let Some(target) = url::target(url) else {
            return Err(None);
        };
        if shell.keys.get(&target.origin) != Some(key.get()) {
            return Err(None);
        }
        let mut confirmed = (*shell.confirmed).clone();
        confirmed.origins.insert(target.origin.clone());
        if plain_http_ok {
            confirmed.plain_http.insert(target.origin.clone());
        }
        shell.dispatch(ShellAction::Confirm(target.origin.clone(), plain_http_ok));
        keys::gate_key(key.get(), Some(&target), &confirmed).map_err(Some)?;
        Ok(Some(target.origin))
    }
}

/// *Resume it* and *Discard* of a mode's resume banner.
pub fn offer_buttons<M: ModeLaunch>(
    m: &M,
    on_mode: &Callback<Mode>,
) -> (Callback<String>, Callback<String>) {
    let resume = {
        let (m, on_mode) = (m.clone(), on_mode.clone());
        Callback::from(move |run_id: String| resume_picked(&m, &run_id, &on_mode))
    };
    let offers = m.offers().clone();
    let discard_ = Callback::from(move |run_id: String| {
        if let Some(offer) = offers.get(&run_id) {
            discard(&offers, &offer);
        }
    });
    (resume, discard_)
}

/// A mode whose requests go to one endpoint URL (retrieval, dialogs): its
/// URL and key fields, and the prompt of a run waiting for a click, over
/// the page's one key ring ([`endpoint_key`]).
pub trait EndpointMode: ModeLaunch {
    /// The page's keys (by origin).
    fn shell(&self) -> &UseReducerHandle<crate::state::ShellState>;
    /// The mode's endpoint form as it is.
    fn form(&self) -> &crate::state::keys::EndpointForm;
    /// Changes the mode's endpoint form.
    fn change(&self, action: crate::state::keys::FormAction);
    /// The URL as typed.
    fn url(&self) -> String {
        self.form().url.clone()
    }
    /// The key field.
    fn key(&self) -> crate::state::keys::Secret {
        self.form().api_key.clone()
    }
    /// The prompt of a run waiting for a click before its key is sent.
    fn prompt(&self) -> Option<Rc<crate::state::keys::KeyPrompt>> {
        self.form().key_prompt.clone()
    }
    /// Sets the URL.
    fn set_url(&self, url: String) {
        self.change(crate::state::keys::FormAction::SetUrl(url));
    }
    /// Sets the key field.
    fn set_key(&self, key: crate::state::keys::Secret) {
        self.change(crate::state::keys::FormAction::SetKey(key));
    }
    /// Shows (or clears) the prompt.
    fn set_prompt(&self, prompt: Option<Rc<crate::state::keys::KeyPrompt>>) {
        self.change(crate::state::keys::FormAction::PromptKey(prompt));
    }
}

/// The URL, key and prompt callbacks of an [`EndpointMode`]'s fields.
pub mod endpoint_fields {
    use super::{endpoint_key, start_fresh, EndpointMode, Event};
    use crate::effects::url;
    use crate::state::keys::Secret;
    use std::rc::Rc;
    use yew::Callback;

    /// A typed URL; one of another origin brings that origin's own key (or none).
    pub fn on_url<M: EndpointMode>(m: &M) -> Callback<String> {
        let m = m.clone();
        Callback::from(move |v: String| {
            if url::origin(&m.url()) != url::origin(&v) {
                m.set_key(endpoint_key::saved(m.shell(), &v));
            }
            m.set_url(v);
        })
    }

    /// A typed key: saved for the URL's origin, which it confirms.
    pub fn on_key<M: EndpointMode>(m: &M) -> Callback<String> {
        let m = m.clone();
        Callback::from(move |v: String| {
            let key = Secret::new(&v);
            endpoint_key::typed(m.shell(), m.url().trim(), &key);
            m.set_key(key);
        })
    }

    /// The prompt's *send the key and start*.
    pub fn on_confirm<M: EndpointMode>(m: &M) -> Callback<()> {
        let m = m.clone();
        Callback::from(move |_: ()| {
            let plain = m.prompt().is_some_and(|k| k.plain_http_remote);
            start_checked(&m, plain)
        })
    }

    /// The prompt's *not now*.
    pub fn on_dismiss<M: EndpointMode>(m: &M) -> Callback<()> {
        let m = m.clone();
        Callback::from(move |_: ()| m.set_prompt(None))
    }

    /// Starts a fresh run once its key may be sent: the click on Start
    /// confirms the origin it names; over plain `http://` to a remote host
    /// the run waits for the prompt's button (`plain_http_ok`).
    pub fn start_checked<M: EndpointMode>(m: &M, plain_http_ok: bool) {
        let url = m.url();
        if url.trim().is_empty() {
            return start_fresh(m);
        }
        match endpoint_key::gate(m.shell(), url.trim(), &m.key(), plain_http_ok) {
            Ok(_) => start_fresh(m),
            Err(Some(prompt)) => m.set_prompt(Some(Rc::new(prompt))),
            Err(None) => m.tell(Event::Failed(Rc::from(m.lang().pick(
                "密钥框中的密钥不是为该端点的源保存的，请重新输入",
                "The key in the field is not the one saved for this endpoint's origin: type it again",
            )))),
        }
    }

    /// The key a stored run's URL gets when it is resumed: the one saved for
    /// its origin; the banner named that origin and the click on *Resume
    /// it* confirms it.
    pub fn resumed_key<M: EndpointMode>(m: &M, stored_url: &str) -> Secret {
        if let Some(o) = url::origin(stored_url) {
            m.shell()
                .dispatch(crate::state::ShellAction::Confirm(o, false));
        }
        endpoint_key::saved(m.shell(), stored_url)
    }

    /// Why a file cannot be resumed from: it holds no event record.
    pub fn log_problem<M: EndpointMode>(
        m: &M,
        log: &evalpage_core::events::ReadLog,
    ) -> Option<String> {
        log.records.is_empty().then(|| {
            m.lang()
                .pick(
                    "该文件不是 evalpage 事件日志",
                    "That file is not an evalpage event log",
                )
                .to_string()
        })
    }
}
