//! Starting runs from the page: a fresh run, a run resumed from this browser's
//! storage after a reload, or a run resumed from a downloaded event log. Builds
//! the core's run configuration and hands it to the runner.

use crate::effects::idb::{self, StoredRun};
use crate::effects::rag_run::{RunHandle, RunUpdate};
use crate::effects::runner::{Persist, Update};
use crate::effects::storage;
use crate::effects::{now_ms, url};
use crate::state::keys::{self, KeyRing};
use crate::state::{
    AppAction, AppState, LoadedDataset, ModelCall, ModelSettings, Provider, ResumeOffer,
};
use evalpage_core::dataset::rag;
use evalpage_core::events;
use evalpage_core::run::{CaseResult, RunConfig, RunInfo};
use evalpage_core::{demo, Lang};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The page's run handle.
pub type Handle = Rc<RefCell<Option<RunHandle>>>;

/// What a resumed run takes over from the interrupted one.
pub struct Takeover {
    /// The interrupted run's id (kept, so both logs belong to one run).
    pub run_id: Option<String>,
    /// Its start time, when known (a resume from this browser's storage).
    pub started_at_ms: Option<u64>,
    /// Cases it settled.
    pub prior: Vec<CaseResult>,
    /// Replace the events stored under the run id.
    pub replace: bool,
}

fn run_config(
    s: &ModelSettings,
    lang: Lang,
    d: &LoadedDataset,
    params: &url::PageParams,
    t: &Takeover,
) -> RunConfig {
    let started = t.started_at_ms.unwrap_or_else(now_ms);
    let demo = s.provider == Provider::Demo;
    let mut argv = vec![format!("provider={}", s.provider.code())];
    if params.autorun {
        argv.push("autorun=1".into());
    }
    let fresh_id = || {
        format!(
            "eval_rag-{started}-{:x}",
            (js_sys::Math::random() * 65536.0) as u32
        )
    };
    RunConfig {
        info: RunInfo {
            run_id: t.run_id.clone().unwrap_or_else(fresh_id),
            tool: "evalpage-web".into(),
            started_at_ms: started,
            lang,
            backend: s.provider.code().into(),
            model: if demo {
                demo::MODEL_NAME.into()
            } else {
                s.model.trim().into()
            },
            endpoint: (!demo).then(|| evalpage_core::provider::strip_query(s.base_url.trim())),
            parameters: json!({ "temperature": s.temperature, "max_tokens": s.max_tokens }),
            dataset_name: d.parsed.name.clone(),
            dataset_line_errors: d.parsed.errors.len(),
            argv,
        },
        settings: s.run_settings(started),
        scoring: s.scoring(),
        system_prompt: s.system_prompt.clone(),
    }
}

/// Validates and starts a run; a problem shows as a failed start with the reason.
pub fn start(
    state: &UseReducerHandle<AppState>,
    handle: &Handle,
    params: &url::PageParams,
    dataset: Option<Rc<LoadedDataset>>,
    settings: Rc<ModelSettings>,
    takeover: Takeover,
) {
    if handle.borrow().as_ref().is_some_and(RunHandle::is_running) {
        return;
    }
    let lang = state.lang;
    let fail =
        |zh: &str, en: &str| state.dispatch(AppAction::StartFailed(Rc::from(lang.pick(zh, en))));
    let Some(dataset) = dataset else {
        return fail("请先加载数据集", "Load a dataset first");
    };
    if dataset.parsed.cases.is_empty() {
        return fail("数据集中没有有效用例", "The dataset has no valid case");
    }
    if let Some((zh, en)) = settings.problem() {
        return fail(zh, en);
    }
    let cfg = run_config(&settings, lang, &dataset, params, &takeover);
    let stored = StoredRun {
        run_id: cfg.info.run_id.clone(),
        started_at_ms: cfg.info.started_at_ms,
        status: "running".into(),
        dataset_name: dataset.parsed.name.clone(),
        dataset_text: dataset.text.to_string(),
        settings: (*settings).clone(),
        lang: lang.code().into(),
        total: dataset.parsed.cases.len(),
    };
    let call = match settings.provider {
        Provider::Demo => ModelCall::Mock(settings.demo_latency_scale),
        Provider::Openai => match key_origin(&state.keys, &settings) {
            Ok(origin) => ModelCall::OpenAi(settings.openai_config(), origin),
            Err(()) => {
                return fail(
                    "密钥框中的密钥不是为该端点的源保存的，请重新输入",
                    "The key in the field is not the one saved for this endpoint's origin: type it again",
                )
            }
        },
    };
    let st = state.clone();
    let on_update = Callback::from(move |u: RunUpdate| match u {
        Update::Progress(snap) => st.dispatch(AppAction::Progress(snap)),
        Update::Finished(snap, a) => st.dispatch(AppAction::Finished(snap, a)),
    });
    state.dispatch(AppAction::Started);
    let persist = Some(Persist {
        stored,
        replace: takeover.replace,
    });
    let cases = dataset.parsed.cases.clone();
    *handle.borrow_mut() = Some(RunHandle::start(
        cfg,
        cases,
        takeover.prior,
        call,
        persist,
        on_update,
    ));
}

/// The origin the key of these settings belongs to: a key is sent only when
/// it is the very key saved for the endpoint's own origin. `Ok(None)` when
/// no key is sent.
fn key_origin(ring: &KeyRing, s: &ModelSettings) -> Result<Option<String>, ()> {
    let key = s.api_key.trim();
    if key.is_empty() {
        return Ok(None);
    }
    let origin = url::origin(&s.base_url).ok_or(())?;
    match ring.get(&origin) {
        Some(saved) if saved == key => Ok(Some(origin)),
        _ => Err(()),
    }
}

/// Starts a fresh run once its key may be sent. A click on Start confirms
/// the origin shown beside it; `autorun` never sends a key by itself, and a
/// key goes over plain `http://` to a remote host only after the user agreed
/// (`plain_http_ok`, from the prompt's button). Otherwise the run waits for
/// that click with a prompt that names the origin.
pub fn start_checked(
    state: &UseReducerHandle<AppState>,
    handle: &Handle,
    params: &url::PageParams,
    by_click: bool,
    plain_http_ok: bool,
) {
    let settings = state.settings.clone();
    let target = url::target(&settings.base_url);
    let mut confirmed = (*state.confirmed).clone();
    if let (Some(t), true) = (&target, by_click) {
        confirmed.origins.insert(t.origin.clone());
        if plain_http_ok {
            confirmed.plain_http.insert(t.origin.clone());
        }
        state.dispatch(AppAction::Confirm(t.origin.clone(), plain_http_ok));
    }
    if let Err(prompt) = keys::gate(&settings, target.as_ref(), &confirmed) {
        return state.dispatch(AppAction::PromptKey(Some(Rc::new(prompt))));
    }
    let fresh = Takeover {
        run_id: None,
        started_at_ms: None,
        prior: Vec::new(),
        replace: false,
    };
    start(
        state,
        handle,
        params,
        state.dataset.clone(),
        settings,
        fresh,
    )
}

/// Applies an edit of the model panel: the key field follows the endpoint's
/// origin (see `keys::settle`), a typed key is saved for its origin and
/// confirms it, and the settings are saved without the key.
pub fn edit_settings(state: &UseReducerHandle<AppState>, new: ModelSettings) {
    let old = state.settings.clone();
    let mut ring = (*state.keys).clone();
    let old_origin = url::origin(&old.base_url);
    let new_origin = url::origin(&new.base_url);
    let (kept, typed) = keys::settle(
        &old,
        new,
        old_origin.as_deref(),
        new_origin.as_deref(),
        &mut ring,
    );
    if ring != *state.keys {
        storage::save_keys(&ring);
        state.dispatch(AppAction::SetKeys(Rc::new(ring)));
    }
    if let (true, Some(origin)) = (typed, new_origin) {
        state.dispatch(AppAction::Confirm(origin, false));
    }
    storage::save_settings(&kept);
    state.dispatch(AppAction::PromptKey(None));
    state.dispatch(AppAction::SetSettings(Rc::new(kept)));
}

/// *Forget keys*: removes every saved key from both storages and empties the
/// key field.
pub fn forget_keys(state: &UseReducerHandle<AppState>) {
    let ring = KeyRing::default();
    storage::save_keys(&ring);
    state.dispatch(AppAction::SetKeys(Rc::new(ring)));
    state.dispatch(AppAction::PromptKey(None));
    let settings = ModelSettings {
        api_key: String::new(),
        ..(*state.settings).clone()
    };
    state.dispatch(AppAction::SetSettings(Rc::new(settings)));
}

/// Parses dataset bytes into a loaded dataset.
pub fn dataset(name: &str, bytes: &[u8]) -> Rc<LoadedDataset> {
    Rc::new(LoadedDataset {
        parsed: rag::parse(name, bytes),
        text: Rc::from(String::from_utf8_lossy(bytes).as_ref()),
    })
}

/// Looks for an unfinished run saved in this browser and offers it.
pub async fn find_unfinished(state: UseReducerHandle<AppState>) {
    let found = async {
        let db = idb::open().await?;
        for stored in idb::runs::<StoredRun>(&db).await? {
            if stored.status == "running" {
                let events = idb::events(&db, &stored.run_id).await?;
                let done = events::read(events.as_bytes()).of_type("case").count();
                return Ok(Some(ResumeOffer {
                    stored,
                    events: Rc::from(events),
                    done,
                }));
            }
        }
        Ok::<_, String>(None)
    };
    match found.await {
        Ok(offer) => state.dispatch(AppAction::OfferResume(offer.map(Rc::new))),
        Err(e) => web_sys::console::warn_1(
            &format!("evalpage: cannot look for unfinished runs: {e}").into(),
        ),
    }
}

/// Resumes a run offered after a reload: its dataset, settings (with this
/// session's key) and settled cases; only the rest is sent.
pub fn resume_offer(
    state: &UseReducerHandle<AppState>,
    handle: &Handle,
    params: &url::PageParams,
    offer: &ResumeOffer,
) {
    let s = &offer.stored;
    let data = dataset(&s.dataset_name, s.dataset_text.as_bytes());
    // The stored run's endpoint gets the key saved for its own origin, if
    // any; the banner named that origin and the click on Resume confirms it.
    let origin = url::origin(&s.settings.base_url);
    let settings = ModelSettings {
        api_key: origin
            .as_deref()
            .and_then(|o| state.keys.get(o))
            .unwrap_or_default()
            .to_string(),
        ..s.settings.clone()
    };
    if let Some(o) = origin {
        state.dispatch(AppAction::Confirm(o, false));
    }
    let prior = events::resumable(
        &events::read(offer.events.as_bytes()),
        &data.parsed.cases,
        &settings.scoring(),
    );
    state.dispatch(AppAction::SetDataset(data.clone()));
    state.dispatch(AppAction::SetSettings(Rc::new(settings.clone())));
    let takeover = Takeover {
        run_id: Some(s.run_id.clone()),
        started_at_ms: Some(s.started_at_ms),
        prior: prior.results,
        replace: true,
    };
    start(
        state,
        handle,
        params,
        Some(data),
        Rc::new(settings),
        takeover,
    );
}

/// Resumes from a downloaded event log over the loaded dataset and current settings.
pub fn resume_from_log(
    state: &UseReducerHandle<AppState>,
    handle: &Handle,
    params: &url::PageParams,
    bytes: &[u8],
) {
    let Some(data) = state.dataset.clone() else {
        return state.dispatch(AppAction::StartFailed(Rc::from(
            state.lang.pick("请先加载数据集", "Load a dataset first"),
        )));
    };
    let log = events::read(bytes);
    if log.records.is_empty() {
        let msg = state.lang.pick(
            "该文件不是 evalpage 事件日志",
            "That file is not an evalpage event log",
        );
        return state.dispatch(AppAction::StartFailed(Rc::from(msg)));
    }
    let prior = events::resumable(&log, &data.parsed.cases, &state.settings.scoring());
    let takeover = Takeover {
        run_id: prior.run_id,
        started_at_ms: None,
        prior: prior.results,
        replace: true,
    };
    start(
        state,
        handle,
        params,
        Some(data),
        state.settings.clone(),
        takeover,
    );
}

/// Forgets an offered run.
pub fn discard(state: &UseReducerHandle<AppState>, offer: &ResumeOffer) {
    let (state, run_id) = (state.clone(), offer.stored.run_id.clone());
    wasm_bindgen_futures::spawn_local(async move {
        if let Ok(db) = idb::open().await {
            let _ = idb::delete(&db, &run_id).await;
        }
        state.dispatch(AppAction::OfferResume(None));
    });
}
