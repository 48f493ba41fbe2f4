//! The model file on this device, run in the page: `www/local_model.js`
//! (fetched on demand through init.js's `evalpageLocalModel`, with the engine,
//! llama.cpp in WebAssembly through @wllama/wllama, under `vendor/wllama/`)
//! loads the GGUF file and answers chat completion requests. A call is the
//! request body the core builds for an OpenAI-compatible endpoint, answered by
//! the engine in OpenAI's shape and read by the same parser, so an answer from
//! the file is recorded as one from an endpoint is; nothing is sent anywhere.
//! Loading a file (its SHA-256, the description's reader) sits behind the RAG
//! bin's wasm-split point `local`, so no first load carries it; a call is made
//! by the run code, itself behind the point `run`.

use crate::state::local::{LocalModel, LocalModelInfo};
use evalpage_core::{build_chat_request, parse_response, OpenAiConfig};
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, File};

/// The `name` of the error `www/local_model.js` throws once its engine
/// stopped (its worker died or aborted).
const ENGINE_STOPPED: &str = "EngineStopped";

/// The context the engine is given (prompt and answer together).
pub const CONTEXT: u32 = 4096;

fn message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "an unknown error".into())
}

/// What the engine's module threw: its engine stopped (with why), or any
/// other failure (its message).
enum Thrown {
    EngineStopped(String),
    Other(String),
}

impl Thrown {
    fn of(e: JsValue) -> Thrown {
        let stopped = e
            .dyn_ref::<js_sys::Error>()
            .is_some_and(|e| e.name() == ENGINE_STOPPED);
        if stopped {
            Thrown::EngineStopped(message(e))
        } else {
            Thrown::Other(message(e))
        }
    }
}

impl From<Thrown> for String {
    fn from(t: Thrown) -> String {
        match t {
            Thrown::EngineStopped(why) => {
                format!("{} ({why})", crate::state::local::ENGINE_STOPPED)
            }
            Thrown::Other(m) => m,
        }
    }
}

/// Calls `name` of the module with `args` and awaits its promise.
async fn call(name: &str, args: &[&JsValue]) -> Result<JsValue, String> {
    call_typed(name, args).await.map_err(String::from)
}

/// [`call`], saying what was thrown.
async fn call_typed(name: &str, args: &[&JsValue]) -> Result<JsValue, Thrown> {
    let other = |e: JsValue| Thrown::Other(message(e));
    let loader: Function = Reflect::get(&js_sys::global(), &"evalpageLocalModel".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| {
            Thrown::Other("this page has no loader for the model file (init.js)".into())
        })?;
    let module: Promise = loader
        .call0(&JsValue::NULL)
        .map_err(other)?
        .dyn_into()
        .map_err(other)?;
    let module = JsFuture::from(module).await.map_err(|e| {
        Thrown::Other(format!(
            "the in-page engine could not be fetched: {}",
            message(e)
        ))
    })?;
    let f: Function = Reflect::get(&module, &name.into())
        .map_err(other)?
        .dyn_into()
        .map_err(other)?;
    let called = match args {
        [a] => f.call1(&module, a),
        [a, b] => f.call2(&module, a, b),
        [a, b, c] => f.call3(&module, a, b, c),
        _ => f.call0(&module),
    }
    .map_err(other)?;
    let promise: Promise = called.dyn_into().map_err(other)?;
    JsFuture::from(promise).await.map_err(Thrown::of)
}

/// The SHA-256 of `file`, read 8 MiB at a time (never whole in memory).
async fn sha256(file: &File) -> Result<String, String> {
    const CHUNK: f64 = 8.0 * 1024.0 * 1024.0;
    let size = file.size();
    let mut hasher = evalpage_core::Sha256Parts::default();
    let mut at = 0.0;
    while at < size {
        let end = (at + CHUNK).min(size);
        let part = file.slice_with_f64_and_f64(at, end).map_err(message)?;
        let bytes = JsFuture::from(part.array_buffer()).await.map_err(message)?;
        hasher.update(&Uint8Array::new(&bytes).to_vec());
        at = end;
    }
    Ok(hasher.hex())
}

/// Where a model file comes from: picked from disk, or a URL fetched once
/// and kept in this browser's storage (Cache Storage), read from there on
/// the next visit.
#[derive(Clone)]
pub enum Source {
    /// A file picked or dropped.
    File(File),
    /// The file's URL (same origin, or a host that allows CORS).
    Url(String),
}

impl Source {
    /// What the status line says is loading.
    pub fn shown(&self) -> String {
        match self {
            Source::File(f) => f.name(),
            Source::Url(u) => u.clone(),
        }
    }
}

/// A file on its way into the engine (see [`load`]).
pub type Loading =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<LocalModelInfo, String>>>>;

/// What loads a file: [`load_boxed`], reached through the bin's split point.
pub type LocalLoad = fn(Source) -> Loading;

/// [`load`], boxed: the value of the split point `local`.
pub fn load_boxed(source: Source) -> Loading {
    Box::pin(load(source))
}

thread_local! {
    static LOADER: crate::split::SplitCode<LocalLoad> = const { crate::split::SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub(crate) fn set_loader(loader: Option<crate::split::Loader<LocalLoad>>) {
    LOADER.with(|l| l.set_loader(loader));
}

/// The file at `url`, from this browser's storage when it was fetched
/// before (and whether it was), else fetched and kept there.
async fn from_url(url: &str) -> Result<(File, bool), String> {
    let got = call("fromUrl", &[&JsValue::from_str(url)]).await?;
    let file: File = Reflect::get(&got, &"file".into())
        .map_err(message)?
        .dyn_into()
        .map_err(|_| format!("{url}: the page could not read the downloaded file"))?;
    let cached = Reflect::get(&got, &"cached".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    Ok((file, cached))
}

/// Reads the file (its SHA-256 first), loads it into the engine and says
/// what it is; the error says what went wrong, naming the file.
pub async fn load(source: Source) -> Result<LocalModelInfo, String> {
    let (file, url, from_cache) = match source {
        Source::File(f) => (f, None, false),
        Source::Url(u) => {
            let (f, cached) = from_url(&u).await?;
            (f, Some(evalpage_core::strip_query(&u)), cached)
        }
    };
    let name = file.name();
    let sha = sha256(&file)
        .await
        .map_err(|e| format!("{name}: could not be read: {e}"))?;
    let threads = JsValue::from(super::storage::model_threads());
    let described = call("load", &[file.as_ref(), &JsValue::from(CONTEXT), &threads]).await?;
    let text = described
        .as_string()
        .ok_or_else(|| format!("{name}: the engine did not describe the model"))?;
    let mut info: LocalModelInfo = serde_json::from_str(&text)
        .map_err(|e| format!("{name}: the engine's description of the model: {e}"))?;
    info.sha256 = sha;
    info.source_url = url;
    info.from_cache = from_cache;
    Ok(info)
}

/// One chat completion by the model in the page: the request an endpoint
/// would get (`cfg` names the model file), answered without leaving the page.
pub async fn chat(
    cfg: &OpenAiConfig,
    messages: &[ChatMessage],
    tools: Option<&serde_json::Value>,
    signal: &AbortSignal,
) -> CallOutcome {
    // the request an endpoint would get, the task's tools included
    let req = build_chat_request(cfg, messages, tools);
    let answered = call_typed("chat", &[&JsValue::from_str(&req.body), signal.as_ref()]).await;
    match answered.map(|v| v.as_string()) {
        Ok(Some(text)) => parse_response(&req.url, 200, None, &text),
        Ok(None) => CallOutcome::Failed(CallError::new(
            ErrorKind::InvalidResponse,
            "the model in this page gave no answer text",
        )),
        // Every later call would fail the same way: the run stops, and goes
        // on once the file is loaded again and the run resumed.
        Err(Thrown::EngineStopped(why)) => CallOutcome::Failed(CallError::new(
            ErrorKind::EngineStopped,
            format!("{} ({why})", crate::state::local::ENGINE_STOPPED),
        )),
        Err(Thrown::Other(e)) => CallOutcome::Failed(CallError::new(
            ErrorKind::Network,
            format!("the model in this page failed: {e}"),
        )),
    }
}

/// The page's one engine holds one file at a time: where that file stands
/// now (every mode's state is told the same through its picker), the runs
/// waiting for it to be loaded, and the last file picked with who was told
/// (loaded again when the thread setting changes).
#[derive(Default)]
struct Current {
    state: LocalModel,
    waiting: Vec<std::rc::Rc<std::cell::RefCell<Waiter>>>,
    last: Option<(Source, yew::Callback<LocalModel>)>,
    /// Counts the picks: only the latest one's load says where the file stands.
    picks: u64,
}

#[derive(Default)]
struct Waiter {
    settled: Option<LocalModel>,
    waker: Option<std::task::Waker>,
}

thread_local! {
    static CURRENT: std::cell::RefCell<Current> = std::cell::RefCell::default();
}

/// Where the page's model file stands, once it is no longer loading: a run
/// started while the file loads waits on this (`launch::start`).
pub struct Settled(std::rc::Rc<std::cell::RefCell<Waiter>>);

impl std::future::Future for Settled {
    type Output = LocalModel;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<LocalModel> {
        let mut w = self.0.borrow_mut();
        match w.settled.take() {
            Some(s) => std::task::Poll::Ready(s),
            None => {
                w.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

/// The model file as it stands once its load ends (at once when none is loading).
pub fn settled() -> Settled {
    let waiter = std::rc::Rc::new(std::cell::RefCell::new(Waiter::default()));
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        match &c.state {
            LocalModel::Loading(_) => c.waiting.push(waiter.clone()),
            now => waiter.borrow_mut().settled = Some(now.clone()),
        }
    });
    Settled(waiter)
}

/// Records where the file stands and wakes the runs waiting for its load.
fn stands(now: LocalModel) {
    let woken = CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        c.state = now.clone();
        if matches!(now, LocalModel::Loading(_)) {
            Vec::new()
        } else {
            std::mem::take(&mut c.waiting)
        }
    });
    for w in woken {
        let waker = {
            let mut w = w.borrow_mut();
            w.settled = Some(now.clone());
            w.waker.take()
        };
        if let Some(k) = waker {
            k.wake();
        }
    }
}

/// Sets the thread count (`0`: auto), remembered in this browser; a file
/// already picked is loaded again with it.
pub fn set_threads(n: u32) {
    super::storage::save_model_threads(n);
    let last = CURRENT.with(|c| c.borrow().last.clone());
    if let Some((source, then)) = last {
        pick(source, then);
    }
}

/// What a model-file picker calls: each source it is handed is loaded with
/// [`pick`], and `then` is told where the file stands.
pub fn picker(then: yew::Callback<crate::state::local::LocalModel>) -> yew::Callback<Source> {
    yew::Callback::from(move |source| pick(source, then.clone()))
}

/// Loads the model file from `source` and tells `then` where it stands:
/// loading at once, then loaded or why not.
fn pick(source: Source, then: yew::Callback<LocalModel>) {
    let shown = source.shown();
    let this = CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        c.last = Some((source.clone(), then.clone()));
        c.picks += 1;
        c.picks
    });
    let tell = move |now: LocalModel| {
        if CURRENT.with(|c| c.borrow().picks) == this {
            stands(now.clone());
            then.emit(now);
        }
    };
    tell(LocalModel::Loading(shown));
    super::spawn(async move {
        let Ok(load) = crate::split::load(&LOADER).await else {
            let why = "the code that loads a model file could not be fetched: check the network and pick the file again";
            return tell(LocalModel::Failed(why.into()));
        };
        tell(match load(source).await {
            Ok(info) => LocalModel::Loaded(std::rc::Rc::new(info)),
            Err(why) => LocalModel::Failed(why),
        })
    });
}
