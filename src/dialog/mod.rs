//! The dialog mode (`?mode=dialog`): spec 001's multi-turn dialogs in the
//! page. Dialogs come from the user's disk (or the built-in demo dialogs);
//! "Start" plays them turn by turn against the OpenAI-compatible endpoint
//! named here (base URL and model, no key) or, with no URL, the dialog mock
//! in the page; "Score trace" scores a `dialog_trace.jsonl` picked here with
//! no model call (`evalpage score --dialogs`). Either way the page shows the
//! per-metric summary and each dialog as a conversation with each turn's
//! verdicts, and offers the five files (and a run's event logs) as one zip
//! and `metrics_summary.json`.

pub mod conversation;
mod inputs;
pub mod results;
mod table;

use crate::components::unsaved_mode::{use_unsaved_mode, UnsavedMode};
use crate::effects::dialog_run::{DialogRunHandle, DialogUpdate, DialogView};
use crate::effects::runner::Update;
use crate::effects::{now_ms, url};
use crate::state::dialog::{DialogAction, DialogState};
use evalpage_core::dialog::{DialogJudge, MOCK_MODEL_NAME};
use evalpage_core::provider::strip_query;
use evalpage_core::{
    DialogEngine, DialogRunConfig, Lang, ModelSettings, OpenAiConfig, RunSettings,
};
use std::rc::Rc;
use yew::prelude::*;

/// The mode's state and its run, kept by the app for the page load.
pub type DialogMode = UnsavedMode<DialogState, DialogView>;

/// The mode's state (call once, in the app).
#[hook]
pub fn use_dialog() -> DialogMode {
    use_unsaved_mode::<DialogState, DialogView>()
}

/// The endpoint typed in the mode, checked: `None` for the dialog mock.
fn endpoint(s: &DialogState, lang: Lang) -> Result<Option<OpenAiConfig>, String> {
    let base = s.url.trim();
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
                "此模式不发送密钥：基础 URL 不能带用户名、密码或查询参数",
                "This mode sends no key: the base URL may not carry a user name, a password or a query",
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
        ..OpenAiConfig::default()
    }))
}

/// Builds the run from the page and starts it, or says why it cannot start.
fn start(mode: &DialogMode, lang: Lang) -> Result<(), String> {
    let s = &*mode.state;
    if s.playable() == 0 {
        return Err(lang
            .pick(
                "没有可播放的对话：需要每行一个 {dialog_id, profile_gt, turns[]} 的 JSONL，且 user/assistant 轮次交替",
                "No dialog to play: expected JSONL of {dialog_id, profile_gt, turns[]} with user and assistant turns alternating",
            )
            .to_string());
    }
    let endpoint = endpoint(s, lang)?;
    let started_at_ms = now_ms();
    let mut argv = vec![
        "mode=dialog".to_string(),
        format!("dialogs={}", s.dataset_name),
        format!("workers_dialog={}", s.concurrency),
    ];
    let (backend, model_name) = match &endpoint {
        Some(cfg) => {
            argv.push(format!("endpoint={}", cfg.base_url));
            argv.push(format!("model={}", cfg.model));
            ("openai", cfg.model.clone())
        }
        None => ("demo", MOCK_MODEL_NAME.to_string()),
    };
    let cfg = DialogRunConfig {
        run_id: format!("eval_dialog-{started_at_ms}"),
        tool: "evalpage-web".into(),
        started_at_ms,
        backend: backend.into(),
        model_name,
        endpoint: endpoint.as_ref().map(|c| c.base_url.clone()),
        dataset_path: s.dataset_name.clone(),
        dataset_name: s.dataset_name.clone(),
        system_prompt: None,
        settings: RunSettings {
            concurrency: s.concurrency,
            ..RunSettings::default()
        },
        argv,
        notes: None,
    };
    let judge_model = |name: &str, base_url: Option<String>| ModelSettings {
        name: name.to_string(),
        model: name.to_string(),
        base_url,
        api_key_env: None,
        params: Default::default(),
    };
    let settings = cfg.settings;
    let (judge, judge_call) = match (s.judge.as_str(), &endpoint) {
        ("mock", _) => (
            Some(DialogJudge::new(judge_model("mock", None), settings, lang)),
            None,
        ),
        ("endpoint", Some(c)) => (
            Some(DialogJudge::new(
                judge_model(&c.model, Some(c.base_url.clone())),
                settings,
                lang,
            )),
            Some(c.clone()),
        ),
        ("endpoint", None) => {
            return Err(lang
                .pick(
                    "评审选择了端点，但没有填写基础 URL",
                    "The judge is the endpoint, but no base URL is given",
                )
                .to_string())
        }
        _ => (None, None),
    };
    let judged = judge.is_some();
    let engine = DialogEngine::judged_dialogs(cfg, s.set.as_ref().clone(), judge);
    let on_update = {
        let state = mode.state.clone();
        Callback::from(move |u: DialogUpdate| match u {
            Update::Progress(snap) => state.dispatch(DialogAction::Progress(snap)),
            Update::Finished(snap, r) => state.dispatch(DialogAction::Finished(snap, r)),
        })
    };
    mode.state.dispatch(DialogAction::Started);
    let handle = DialogRunHandle::start(engine, endpoint, judged.then_some(judge_call), on_update);
    *mode.run.borrow_mut() = Some(handle);
    Ok(())
}

/// Scores the picked trace with no model call.
fn score(mode: &DialogMode) {
    let started = now_ms();
    match mode.state.score(started, now_ms()) {
        Ok(r) => mode.state.dispatch(DialogAction::Scored(Rc::new(r))),
        Err(why) => mode
            .state
            .dispatch(DialogAction::Failed(Rc::from(why.as_str()))),
    }
}

/// Dialog page props.
#[derive(Properties, PartialEq)]
pub struct DialogAppProps {
    /// Language.
    pub lang: Lang,
    /// The mode's state and run.
    pub mode: DialogMode,
}

/// The dialog page.
#[component]
pub fn DialogApp(p: &DialogAppProps) -> Html {
    let lang = p.lang;
    let on_start = {
        let mode = p.mode.clone();
        Callback::from(move |_: MouseEvent| {
            if let Err(why) = start(&mode, lang) {
                mode.state
                    .dispatch(DialogAction::Failed(Rc::from(why.as_str())));
            }
        })
    };
    let on_score = {
        let mode = p.mode.clone();
        Callback::from(move |_: MouseEvent| score(&mode))
    };
    let on_cancel = {
        let run = p.mode.run.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(h) = run.borrow().as_ref() {
                h.cancel();
            }
        })
    };
    html! {
        <div class="dialog-mode">
            <inputs::DialogInputs {lang} state={p.mode.state.clone()} {on_start} {on_score} {on_cancel} />
            <results::DialogResultsView {lang} state={p.mode.state.clone()} />
        </div>
    }
}
