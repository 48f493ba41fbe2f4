//! The dialog mode's side of the one launch path (`crate::launch`): its run
//! from the page (dialogs, endpoint and model, the key of the endpoint's
//! origin, the judge), the key rules before a run starts, a stored run's
//! inputs brought back after a reload (only the unsettled turns and judge
//! calls are sent again: `dialog::resumable`), and what the page is told.

use super::judges;
use crate::dialog::run::DialogView;
use crate::dialog::state::{DialogAction, DialogInputs, DialogState};
use crate::effects::entropy;
use crate::effects::runner::Update;
use crate::effects::{now_ms, url};
use crate::launch::{
    endpoint_fields, endpoint_key, start_error, EndpointMode, Event, Fetching, ModeLaunch,
    Prepared, Slot,
};
use crate::state::keys::{EndpointForm, FormAction};
use crate::state::local::{LocalModel, LocalModelInfo};
use crate::state::resume::{Offers, Takeover};
use crate::state::settings::in_page;
use crate::state::settings::Provider;
use crate::state::stored::{StoredInputs, StoredRun};
use crate::state::{Mode, ModelCall, ShellState};
use evalpage_core::dialog::{
    DialogJudge, DialogKind, DialogRunConfig, ScoreOptions, MOCK_MODEL_NAME,
};
use evalpage_core::events::{self, ReadLog};
use evalpage_core::run::{Pipeline, RunIdentity, RunSettings};
use evalpage_core::strip_query;
use evalpage_core::RunKind;
use evalpage_core::{Lang, ModelSettings, OpenAiConfig};
use std::rc::Rc;
use yew::prelude::*;

/// The dialog mode's run slot.
pub type DialogSlot = Slot<DialogView>;

/// The dialog mode as the launch path sees it.
#[derive(Clone, PartialEq)]
pub struct DialogLaunch {
    /// The mode's page state.
    pub state: UseReducerHandle<DialogState>,
    /// Its run.
    pub slot: DialogSlot,
    /// The unfinished runs offered.
    pub offers: UseReducerHandle<Offers>,
    /// The page's keys (by origin) and language.
    pub shell: UseReducerHandle<ShellState>,
}

/// The endpoint typed in the mode, checked: `None` for the dialog mock.
fn endpoint(s: &DialogState, lang: Lang) -> Result<Option<OpenAiConfig>, String> {
    let base = s.form.url.trim();
    if base.is_empty() {
        return Ok(None);
    }
    let parsed = web_sys::Url::new(base)
        .ok()
        .filter(|_| url::origin(base).is_some());
    let Some(parsed) = parsed else {
        return Err(lang
            .pick(
                "基础 URL 须为 http:// 或 https:// 地址，例如 http://127.0.0.1:8091/v1",
                "The base URL must be an http:// or https:// URL, e.g. http://127.0.0.1:8091/v1",
            )
            .to_string());
    };
    if !parsed.username().is_empty() || !parsed.password().is_empty() || !parsed.search().is_empty()
    {
        return Err(lang
            .pick(
                "基础 URL 不能带用户名、密码或查询参数：密钥请填在密钥框中",
                "The base URL may not carry a user name, a password or a query: put a key in the key field",
            )
            .to_string());
    }
    let model = s.model.trim();
    if model.is_empty() {
        return Err(lang
            .pick("请填写模型名称", "Name the model to call")
            .to_string());
    }
    Ok(Some(OpenAiConfig {
        base_url: strip_query(base),
        model: model.to_string(),
        max_tokens: s.max_tokens,
        ..OpenAiConfig::default()
    }))
}

fn run_config(
    s: &DialogState,
    endpoint: Option<&OpenAiConfig>,
    file: Option<&LocalModelInfo>,
    t: &Takeover,
) -> DialogRunConfig {
    let started_at_ms = t.started_at_ms.unwrap_or_else(now_ms);
    let run_id = t
        .run_id
        .clone()
        .unwrap_or_else(|| RunKind::Dialog.run_id(started_at_ms, entropy()));
    let mut argv = vec![
        "mode=dialog".to_string(),
        format!("dialogs={}", s.dataset_name),
        format!("workers_dialog={}", s.concurrency),
    ];
    if let Some(n) = s.max_tokens {
        argv.push(format!("max_tokens={n}"));
    }
    let (backend, model_name) = match (file, endpoint) {
        (Some(info), _) => {
            argv.push(format!("model_file={}", info.file));
            ("local", info.file.clone())
        }
        (None, Some(cfg)) => {
            argv.push(format!("endpoint={}", cfg.base_url));
            argv.push(format!("model={}", cfg.model));
            ("openai", cfg.model.clone())
        }
        (None, None) => ("demo", MOCK_MODEL_NAME.to_string()),
    };
    DialogRunConfig {
        run: RunIdentity {
            run_id,
            tool: "evalpage-web".into(),
            started_at_ms,
            argv,
            dataset: s.dataset_name.clone(),
            settings: RunSettings {
                concurrency: s.concurrency,
                ..RunSettings::default()
            },
        },
        backend: backend.into(),
        model_name,
        endpoint: endpoint.map(|c| c.base_url.clone()),
        dataset_name: s.dataset_name.clone(),
        system_prompt: None,
        // What the manifest says of a model file run in the page.
        notes: file.map(|info| {
            format!(
                "model file on this device, run in the page: {}",
                serde_json::to_string(info).unwrap_or_default()
            )
        }),
        scoring: ScoreOptions {
            m1_from_conversation: s.m1_from_conversation,
        },
    }
}

/// The judge of M3/M4/M5 (`none`, the mock judge, the dialogs' own
/// endpoint with its key, or the model file in the page) and how its calls
/// are answered.
type Judging = (Option<DialogJudge>, Option<ModelCall>);

/// Whether the page's run is judged (its prompts are then needed).
fn judged(s: &DialogState) -> bool {
    s.judge.is_some()
}

fn judging(
    s: &DialogState,
    cfg: &DialogRunConfig,
    endpoint: Option<&ModelCall>,
    lang: Lang,
) -> Result<Judging, String> {
    if !judged(s) {
        return Ok((None, None));
    }
    let prompts = judges::made(lang).ok_or_else(|| {
        lang.pick(
            "评审提示词尚未加载",
            "The judge's prompts are not loaded yet",
        )
        .to_string()
    })?;
    let judge_model = |name: &str, base_url: Option<String>| ModelSettings {
        name: name.to_string(),
        model: name.to_string(),
        base_url,
        api_key_env: None,
        params: Default::default(),
        engine: None,
    };
    let settings = cfg.run.settings;
    let judge = |model: ModelSettings, call: ModelCall| {
        (
            Some(DialogJudge::with_prompts(model, settings, prompts.clone())),
            Some(call),
        )
    };
    Ok(match (s.judge, endpoint) {
        (None, _) => (None, None),
        (Some(Provider::Demo), _) => judge(judge_model("mock", None), ModelCall::Mock(1.0)),
        (Some(Provider::Openai), Some(c @ ModelCall::OpenAi(cfg, _))) => judge(
            judge_model(&cfg.model, Some(cfg.base_url.clone())),
            c.clone(),
        ),
        (Some(Provider::Local), _) => {
            let info = s.local.loaded().ok_or_else(|| no_file(lang))?;
            let model = ModelSettings {
                engine: serde_json::to_value(info).ok(),
                ..judge_model(&info.file, None)
            };
            judge(model, ModelCall::InPage(bounded(in_page(&info.file), s)))
        }
        (Some(Provider::Openai), _) => {
            return Err(lang
                .pick(
                    "评审选择了端点，但没有填写基础 URL",
                    "The judge is the endpoint, but no base URL is given",
                )
                .to_string())
        }
    })
}

/// The model file's requests with the page's bound on answer tokens.
fn bounded(cfg: OpenAiConfig, s: &DialogState) -> OpenAiConfig {
    OpenAiConfig {
        max_tokens: s.max_tokens,
        ..cfg
    }
}

/// Why a run that asks the model file cannot start.
fn no_file(lang: Lang) -> String {
    lang.pick(
        "请先在“本机模型文件”中选择 GGUF 文件，等它加载完成",
        "Pick the GGUF file under “A model file on this device” and wait until it is loaded",
    )
    .to_string()
}

impl ModeLaunch for DialogLaunch {
    const MODE: Mode = Mode::Run(RunKind::Dialog);
    type View = DialogView;
    /// The page as it is, or as restored from a stored run.
    type Page = Rc<DialogState>;

    fn slot(&self) -> &DialogSlot {
        &self.slot
    }

    fn offers(&self) -> &UseReducerHandle<Offers> {
        &self.offers
    }

    fn lang(&self) -> Lang {
        self.shell.lang
    }

    fn page(&self) -> Rc<DialogState> {
        Rc::new((*self.state).clone())
    }

    fn awaits_model_file(&self, s: &Rc<DialogState>) -> bool {
        (s.by_file || s.judge == Some(Provider::Local)) && matches!(s.local, LocalModel::Loading(_))
    }

    fn with_model_file(&self, s: Rc<DialogState>, local: LocalModel) -> Rc<DialogState> {
        Rc::new(DialogState {
            local,
            ..(*s).clone()
        })
    }

    fn fetch(&self, s: &Rc<DialogState>) -> Option<Fetching> {
        let lang = self.lang();
        (judged(s) && !judges::ready()).then(|| Box::pin(judges::make(lang)) as Fetching)
    }

    fn prepare(&self, s: &Rc<DialogState>, t: &Takeover) -> Result<Prepared<DialogView>, String> {
        let lang = self.lang();
        if s.playable() == 0 {
            return Err(lang
                .pick(
                    "没有可播放的对话：需要每行一个 {dialog_id, profile_gt, turns[]} 的 JSONL，且 user/assistant 轮次交替",
                    "No dialog to play: expected JSONL of {dialog_id, profile_gt, turns[]} with user and assistant turns alternating",
                )
                .to_string());
        }
        let file = match s.by_file {
            true => Some(s.local.loaded().ok_or_else(|| no_file(lang))?),
            false => None,
        };
        // With the file answering, the endpoint is read only when it judges.
        let mut endpoint = match (file, s.judge) {
            (Some(_), j) if j != Some(Provider::Openai) => None,
            _ => endpoint(s, lang)?,
        };
        let mut key_for = None;
        if let Some(cfg) = endpoint.as_mut() {
            let bound = endpoint_key::bound(&self.shell, &cfg.base_url, &s.form.api_key).map_err(|_| {
                lang.pick(
                    "密钥框中的密钥不是为该端点的源保存的，请重新输入",
                    "The key in the field is not the one saved for this endpoint's origin: type it again",
                )
                .to_string()
            })?;
            if let Some((key, origin)) = bound {
                cfg.api_key = Some(key);
                key_for = Some(origin);
            }
        }
        let asked = endpoint.as_ref().filter(|_| file.is_none());
        let cfg = run_config(s, asked, file, t);
        let endpoint = endpoint.map(|c| ModelCall::OpenAi(c, key_for));
        let model = match (file, &endpoint) {
            (Some(info), _) => ModelCall::InPage(bounded(in_page(&info.file), s)),
            (None, Some(call)) => call.clone(),
            (None, None) => ModelCall::Mock(1.0),
        };
        let (judge, judge_call) = judging(s, &cfg, endpoint.as_ref(), lang)?;
        let stored = StoredRun {
            run_id: cfg.run.run_id.clone(),
            started_at_ms: cfg.run.started_at_ms,
            status: "running".into(),
            dataset_name: s.dataset_name.clone(),
            lang: lang.code().into(),
            total: s.playable(),
            inputs: StoredInputs::of(&s.inputs()),
            shown: format!("{} · {}", s.dataset_name, s.model_shown()),
            origins: url::origin(&s.form.url).into_iter().collect(),
        };
        let started_ms = cfg.run.started_at_ms;
        let spec = s
            .limits
            .start_spec(&cfg.model_name, s.judge == Some(Provider::Openai));
        let kind = DialogKind::judged(cfg, s.set.as_ref().clone(), judge);
        let log = t.log.as_ref().map(|log| events::read(log.as_bytes()));
        let (mut engine, _) =
            Pipeline::prepare(kind, &spec, log.as_ref()).map_err(|e| start_error(lang, &e))?;
        let view = DialogView::new(&mut engine, model, judge_call);
        Ok(Prepared {
            engine,
            view,
            started_ms,
            stored,
        })
    }

    fn restore(&self, stored: &StoredRun) -> (Rc<DialogState>, Option<String>) {
        let Some(i) = stored.inputs.read::<DialogInputs>() else {
            let why = self
                .lang()
                .pick("这不是对话运行", "That is not a dialog run");
            return (self.page(), Some(why.into()));
        };
        let key = endpoint_fields::resumed_key(self, &i.url);
        let action = || DialogAction::Restore(Box::new(i.clone()), key.clone());
        let page = self.page().reduce(action());
        self.state.dispatch(action());
        // A run of a model file goes on with that very file only.
        let problem =
            (i.local_model.as_ref()).and_then(|r| r.refusal(page.local.loaded(), self.lang()));
        (page, problem)
    }

    fn log_problem(&self, log: &ReadLog) -> Option<String> {
        endpoint_fields::log_problem(self, log)
    }

    fn tell(&self, event: Event<DialogView>) {
        let action = match event {
            Event::Started => DialogAction::Started,
            Event::Waiting(on) => DialogAction::Waiting(on),
            Event::Failed(why) => DialogAction::Failed(why),
            Event::Update(Update::Progress(snap)) => DialogAction::Progress(snap),
            Event::Update(Update::Finished(snap, r)) => DialogAction::Finished(snap, r),
        };
        self.state.dispatch(action);
    }
}

impl EndpointMode for DialogLaunch {
    fn shell(&self) -> &UseReducerHandle<ShellState> {
        &self.shell
    }
    fn form(&self) -> &EndpointForm {
        &self.state.form
    }
    fn change(&self, action: FormAction) {
        self.state.dispatch(DialogAction::Form(action));
    }
}
