//! The RAG check's side of the launch path: its run configuration from the
//! loaded dataset and the model settings, the key rules before a run starts
//! (a key goes only to the origin it was saved for, after a click), and the
//! model panel's edits.

use crate::effects::{entropy, now_ms, storage, url};
use crate::launch::{start_error, start_fresh, Event, ModeLaunch, Prepared, Slot};
use crate::rag::run::RagView;
use crate::rag::state::{LoadedDataset, RagAction, RagInputs, RagState};
use crate::state::keys::{self, KeyRing};
use crate::state::local::LocalModelInfo;
use crate::state::resume::{Offers, Takeover};
use crate::state::stored::{StoredInputs, StoredRun};
use crate::state::{Mode, ModelCall, ModelSettings, Provider, ShellAction, ShellState};
use evalpage_core::events::{self, ReadLog};
use evalpage_core::rag;
use evalpage_core::rag::{RagKind, RunConfig};
use evalpage_core::run::Pipeline;
use evalpage_core::run::RunIdentity;
use evalpage_core::run::RunInfo;
use evalpage_core::RunKind;
use evalpage_core::{demo, Lang};
use serde_json::json;
use std::rc::Rc;
use yew::prelude::*;

/// The RAG check's run slot.
pub type RagSlot = Slot<RagView>;

/// The RAG check as the launch path sees it.
#[derive(Clone, PartialEq)]
pub struct RagLaunch {
    /// The mode's state.
    pub state: UseReducerHandle<RagState>,
    /// The language and the key ring.
    pub shell: UseReducerHandle<ShellState>,
    /// Its run.
    pub slot: RagSlot,
    /// Page parameters.
    pub params: Rc<url::PageParams>,
    /// The unfinished runs offered.
    pub offers: UseReducerHandle<Offers>,
}

fn run_config(
    s: &ModelSettings,
    lang: Lang,
    d: &LoadedDataset,
    params: &url::PageParams,
    t: &Takeover,
    local: Option<&LocalModelInfo>,
) -> RunConfig {
    let started = t.started_at_ms.unwrap_or_else(now_ms);
    let demo = s.provider == Provider::Demo;
    let mut parameters = json!({ "temperature": s.temperature, "max_tokens": s.max_tokens });
    if let Some(info) = local {
        // What the report says of the model file: engine, file, size,
        // SHA-256, architecture, quantisation, context, threads, CPU or GPU.
        parameters["local_model"] = json!(info);
    }
    let mut argv = vec![format!("provider={}", s.provider.code())];
    if params.autorun {
        argv.push("autorun=1".into());
    }
    let fresh_id = || RunKind::Rag.run_id(started, entropy());
    RunConfig {
        run: RunIdentity {
            run_id: t.run_id.clone().unwrap_or_else(fresh_id),
            tool: "evalpage-web".into(),
            started_at_ms: started,
            argv,
            dataset: d.parsed.name.clone(),
            settings: s.run_settings(started),
        },
        info: RunInfo {
            lang,
            backend: s.provider.code().into(),
            model: match (demo, local) {
                (true, _) => demo::MODEL_NAME.into(),
                (_, Some(info)) => info.file.clone(),
                _ => s.model.trim().into(),
            },
            endpoint: (s.provider == Provider::Openai)
                .then(|| evalpage_core::strip_query(s.base_url.trim())),
            parameters,
            dataset_name: d.parsed.name.clone(),
            dataset_line_errors: d.parsed.errors.len(),
        },
        scoring: s.scoring(),
        system_prompt: s.system_prompt.clone(),
        dataset_meta: None,
    }
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

impl ModeLaunch for RagLaunch {
    const MODE: Mode = Mode::Run(RunKind::Rag);
    type View = RagView;
    /// The loaded dataset, the settings (with this session's key) and the
    /// model file on this device.
    type Page = (
        Option<Rc<LoadedDataset>>,
        Rc<ModelSettings>,
        crate::state::local::LocalModel,
    );

    fn slot(&self) -> &RagSlot {
        &self.slot
    }

    fn offers(&self) -> &UseReducerHandle<Offers> {
        &self.offers
    }

    fn lang(&self) -> Lang {
        self.shell.lang
    }

    fn page(&self) -> Self::Page {
        (
            self.state.dataset.clone(),
            self.state.settings.clone(),
            self.state.local.clone(),
        )
    }

    fn awaits_model_file(&self, page: &Self::Page) -> bool {
        page.1.provider == Provider::Local
            && matches!(page.2, crate::state::local::LocalModel::Loading(_))
    }

    fn with_model_file(
        &self,
        page: Self::Page,
        local: crate::state::local::LocalModel,
    ) -> Self::Page {
        (page.0, page.1, local)
    }

    fn prepare(&self, page: &Self::Page, t: &Takeover) -> Result<Prepared<RagView>, String> {
        let lang = self.shell.lang;
        let fail = |zh: &str, en: &str| Err(lang.pick(zh, en).to_string());
        let (Some(dataset), settings, local_model) = page else {
            return fail("请先加载数据集", "Load a dataset first");
        };
        if dataset.parsed.cases.is_empty() {
            return fail("数据集中没有有效用例", "The dataset has no valid case");
        }
        if let Some((zh, en)) = settings.problem() {
            return fail(zh, en);
        }
        let call = match settings.provider {
            Provider::Demo => ModelCall::Mock(settings.demo_latency_scale),
            Provider::Local => match local_model.loaded() {
                Some(info) => ModelCall::InPage(settings.in_page_config(&info.file)),
                None => {
                    return fail(
                        "请先选择本机的 GGUF 模型文件，并等它加载完成",
                        "Pick a GGUF model file on this device first, and wait until it is loaded",
                    )
                }
            },
            Provider::Openai => match key_origin(&self.shell.keys, settings) {
                Ok(origin) => ModelCall::OpenAi(settings.openai_config(), origin),
                Err(()) => {
                    return fail(
                        "密钥框中的密钥不是为该端点的源保存的，请重新输入",
                        "The key in the field is not the one saved for this endpoint's origin: type it again",
                    )
                }
            },
        };
        let local = (settings.provider == Provider::Local)
            .then(|| local_model.loaded())
            .flatten();
        let cfg = run_config(settings, lang, dataset, &self.params, t, local);
        let cases = dataset.parsed.cases.clone();
        let stored = StoredRun {
            run_id: cfg.run.run_id.clone(),
            started_at_ms: cfg.run.started_at_ms,
            status: "running".into(),
            dataset_name: dataset.parsed.name.clone(),
            lang: lang.code().into(),
            total: cases.len(),
            inputs: StoredInputs::of(&RagInputs {
                dataset_text: dataset.text.to_string(),
                settings: (**settings).clone(),
                local_model: local.map(LocalModelInfo::reference),
            }),
            shown: dataset.parsed.name.clone(),
            origins: match settings.provider {
                Provider::Openai => url::origin(&settings.base_url).into_iter().collect(),
                _ => Vec::new(),
            },
        };
        let started_ms = cfg.run.started_at_ms;
        let spec = settings.limits().start_spec(&cfg.info.model, false);
        let log = t.log.as_ref().map(|log| events::read(log.as_bytes()));
        let (engine, _) = Pipeline::prepare(RagKind::new(cfg, cases), &spec, log.as_ref())
            .map_err(|e| start_error(lang, &e))?;
        let view = RagView::new(&engine, call)
            .with_dataset(dataset.text.clone())
            .with_prices(engine.priced(&spec));
        Ok(Prepared {
            engine,
            view,
            started_ms,
            stored,
        })
    }

    fn restore(&self, stored: &StoredRun) -> (Self::Page, Option<String>) {
        let Some(s) = stored.inputs.read::<RagInputs>() else {
            let why = self
                .lang()
                .pick("这不是 RAG 检查的运行", "That is not a RAG check's run");
            return (self.page(), Some(why.into()));
        };
        // A run of a model file goes on only with that very file.
        if let Some(why) =
            (s.local_model.as_ref()).and_then(|r| r.refusal(self.state.local.loaded(), self.lang()))
        {
            return (self.page(), Some(why));
        }
        let data = dataset(&stored.dataset_name, s.dataset_text.as_bytes());
        // The stored run's endpoint gets the key saved for its own origin, if
        // any; the banner named that origin and the click on Resume confirms it.
        let origin = url::origin(&s.settings.base_url);
        let settings = ModelSettings {
            api_key: origin
                .as_deref()
                .and_then(|o| self.shell.keys.get(o))
                .unwrap_or_default()
                .to_string(),
            ..s.settings.clone()
        };
        if let Some(o) = origin {
            self.shell.dispatch(ShellAction::Confirm(o, false));
        }
        let settings = Rc::new(settings);
        self.state.dispatch(RagAction::SetDataset(data.clone()));
        self.state
            .dispatch(RagAction::SetSettings(settings.clone()));
        ((Some(data), settings, self.state.local.clone()), None)
    }

    fn log_problem(&self, log: &ReadLog) -> Option<String> {
        let lang = self.shell.lang;
        if self.state.dataset.is_none() {
            return Some(lang.pick("请先加载数据集", "Load a dataset first").into());
        }
        if log.records.is_empty() {
            let msg = lang.pick(
                "该文件不是 evalpage 事件日志",
                "That file is not an evalpage event log",
            );
            return Some(msg.into());
        }
        None
    }

    fn tell(&self, event: Event<RagView>) {
        use crate::effects::runner::Update;
        let action = match event {
            Event::Started => RagAction::Started,
            Event::Waiting(on) => RagAction::Waiting(on),
            Event::Failed(why) => RagAction::StartFailed(why),
            Event::Update(Update::Progress(snap)) => RagAction::Progress(snap),
            Event::Update(Update::Finished(snap, a)) => RagAction::Finished(snap, a),
        };
        self.state.dispatch(action);
    }
}

/// Starts a fresh run once its key may be sent. A click on Start confirms
/// the origin shown beside it; `autorun` never sends a key by itself, and a
/// key goes over plain `http://` to a remote host only after the user agreed
/// (`plain_http_ok`, from the prompt's button). Otherwise the run waits for
/// that click with a prompt that names the origin.
pub fn start_checked(m: &RagLaunch, by_click: bool, plain_http_ok: bool) {
    let state = &m.state;
    let settings = state.settings.clone();
    let target = url::target(&settings.base_url);
    let mut confirmed = (*m.shell.confirmed).clone();
    if let (Some(t), true) = (&target, by_click) {
        confirmed.origins.insert(t.origin.clone());
        if plain_http_ok {
            confirmed.plain_http.insert(t.origin.clone());
        }
        m.shell
            .dispatch(ShellAction::Confirm(t.origin.clone(), plain_http_ok));
    }
    if let Err(prompt) = keys::gate(&settings, target.as_ref(), &confirmed) {
        return state.dispatch(RagAction::PromptKey(Some(Rc::new(prompt))));
    }
    start_fresh(m)
}

/// Applies an edit of the model panel: the key field follows the endpoint's
/// origin (see `keys::settle`), a typed key is saved for its origin and
/// confirms it, and the settings are saved without the key.
pub fn edit_settings(m: &RagLaunch, new: ModelSettings) {
    let (state, shell) = (&m.state, &m.shell);
    let old = state.settings.clone();
    let mut ring = (*shell.keys).clone();
    let old_origin = url::origin(&old.base_url);
    let new_origin = url::origin(&new.base_url);
    let (kept, typed) = keys::settle(
        &old,
        new,
        old_origin.as_deref(),
        new_origin.as_deref(),
        &mut ring,
    );
    if ring != *shell.keys {
        storage::save_keys(&ring);
        shell.dispatch(ShellAction::SetKeys(Rc::new(ring)));
    }
    if let (true, Some(origin)) = (typed, new_origin) {
        shell.dispatch(ShellAction::Confirm(origin, false));
    }
    storage::save_settings(&kept);
    state.dispatch(RagAction::PromptKey(None));
    state.dispatch(RagAction::SetSettings(Rc::new(kept)));
}

/// *Forget keys*: removes every saved key from both storages and empties the
/// key field.
pub fn forget_keys(m: &RagLaunch) {
    let state = &m.state;
    let ring = KeyRing::default();
    storage::save_keys(&ring);
    m.shell.dispatch(ShellAction::SetKeys(Rc::new(ring)));
    state.dispatch(RagAction::PromptKey(None));
    let settings = ModelSettings {
        api_key: String::new(),
        ..(*state.settings).clone()
    };
    state.dispatch(RagAction::SetSettings(Rc::new(settings)));
}

/// The mode's first state: the saved settings under the URL's parameters,
/// the key field holding the key of the endpoint's own origin (or nothing).
pub fn first_state(p: &url::PageParams, keys: &KeyRing) -> RagState {
    // In task mode the endpoint, model and sampling of the URL are the task's
    // endpoint form (a task share link), not the RAG check's.
    let task = p.mode == Some(Mode::Run(RunKind::Task));
    let own = url::PageParams {
        endpoint: p.endpoint.clone().filter(|_| !task),
        model: p.model.clone().filter(|_| !task),
        provider: p.provider.filter(|_| !task),
        temperature: p.temperature.filter(|_| !task),
        max_tokens: p.max_tokens.filter(|_| !task),
        ..p.clone()
    };
    let mut settings = own.apply(storage::load_settings());
    settings.api_key = url::origin(&settings.base_url)
        .and_then(|o| keys.get(&o).map(String::from))
        .unwrap_or_default();
    RagState {
        settings: Rc::new(settings),
        ..RagState::default()
    }
}

/// Parses dataset bytes into a loaded dataset.
pub fn dataset(name: &str, bytes: &[u8]) -> Rc<LoadedDataset> {
    Rc::new(LoadedDataset {
        parsed: rag::parse(name, bytes),
        text: Rc::from(String::from_utf8_lossy(bytes).as_ref()),
        url: None,
    })
}
