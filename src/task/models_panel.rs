//! The models of a task run: the built-in mock models and the registry's,
//! each with a tick box; a password field for a registry model that names
//! an `api_key_env` (kept in memory only); the registry editor (file or
//! textarea, live located errors); and the run's scheduling.

use crate::components::field;
use crate::components::local_model_field::LocalModelField;
use crate::effects::local_model;
use crate::state::local::LocalModel;
use crate::task::code_editor::CodeEditor;
use crate::task::state::check::RegistryCheck;
use crate::task::state::models::{EndpointModel, ModelChoice, ModelSource, TaskRunSettings};
use evalpage_core::Lang;
use std::collections::BTreeSet;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Registry example shown in the empty editor.
const PLACEHOLDER: &str = r#"{"models": [
  {"name": "local-llm", "base_url": "http://127.0.0.1:8000/v1", "model": "qwen2.5-7b",
   "api_key_env": "LOCAL_KEY", "default_params": {"temperature": 0}}
]}"#;

/// Task models panel props.
#[derive(Properties, PartialEq)]
pub struct TaskModelsPanelProps {
    /// Language.
    pub lang: Lang,
    /// Mock and registry models.
    pub choices: Rc<Vec<ModelChoice>>,
    /// Ticked names.
    pub selected: Rc<BTreeSet<String>>,
    /// Registry models that have a key typed in.
    pub with_key: Rc<BTreeSet<String>>,
    /// Registry text.
    pub registry_text: Rc<str>,
    /// Its last check.
    pub registry: Rc<RegistryCheck>,
    /// The registry text changed since its check.
    pub pending: bool,
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// The task file's `repeats` (1 when it does not say), shown until the
    /// field is set.
    pub task_repeats: u32,
    /// No edits while a run is going.
    pub disabled: bool,
    /// (model, ticked).
    pub on_toggle: Callback<(String, bool)>,
    /// (model, key).
    pub on_key: Callback<(String, String)>,
    /// Registry edits.
    pub on_registry: Callback<String>,
    /// Typing paused in the registry.
    pub on_registry_check: Callback<()>,
    /// A registry file was chosen.
    pub on_registry_file: Callback<web_sys::File>,
    /// Scheduling edited.
    pub on_settings: Callback<TaskRunSettings>,
    /// The task has `llm_judge` metrics: a judge must be chosen.
    pub judged: bool,
    /// The chosen judge (`mock` or a model of the list).
    pub judge: Rc<str>,
    /// A judge was chosen.
    pub on_judge: Callback<String>,
    /// The model file on this device.
    pub local: LocalModel,
    /// A model file picked, or its URL to load.
    pub on_local: Callback<local_model::Source>,
}

fn input_of(e: &Event) -> Option<HtmlInputElement> {
    e.target()
        .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
}

/// The panel.
#[component]
pub fn TaskModelsPanel(p: &TaskModelsPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let n = p.registry.registry.models.len();
    let ok = (!p.registry_text.trim().is_empty())
        .then(|| AttrValue::from(format!("{n} {}", t("个模型", "model(s)"))));
    html! {
        <section class="panel" data-testid="task-models-panel">
            <h2>{t("模型", "Models")}</h2>
            <ul class="model-choices">{ for p.choices.iter().map(|c| choice(p, c)) }</ul>
            if p.judged { { judge(p) } }
            { settings(p) }
            <details open={!p.registry.errors.is_empty() || n > 0}>
                <summary>{t("模型注册表（JSON，可选）", "Model registry (JSON, optional)")}</summary>
                <CodeEditor lang={p.lang} testid="registry" label={t("注册表", "Registry")}
                    value={p.registry_text.clone()} errors={p.registry.errors.clone()} pending={p.pending}
                    ok_text={ok} placeholder={PLACEHOLDER} accept=".json,.txt" rows={6} disabled={p.disabled}
                    on_input={p.on_registry.clone()} on_settle={p.on_registry_check.clone()} on_file={p.on_registry_file.clone()} />
            </details>
            <details open={!matches!(p.local, LocalModel::None)}>
                <summary data-testid="local-model-summary">{t("本机模型文件（GGUF，在页面内运行）", "A model file on this device (GGUF, run in the page)")}</summary>
                <LocalModelField lang={p.lang} local={p.local.clone()} disabled={p.disabled}
                    on_file={p.on_local.reform(local_model::Source::File)}
                    on_url={p.on_local.reform(local_model::Source::Url)} />
            </details>
        </section>
    }
}

fn choice(p: &TaskModelsPanelProps, c: &ModelChoice) -> Html {
    let name = c.name.clone();
    let onchange = {
        let (cb, name) = (p.on_toggle.clone(), name.clone());
        Callback::from(move |e: Event| {
            if let Some(i) = input_of(&e) {
                cb.emit((name.clone(), i.checked()));
            }
        })
    };
    let what = match &c.source {
        ModelSource::Mock => p
            .lang
            .pick("内置离线模拟模型", "built-in offline mock")
            .to_string(),
        ModelSource::InPage(info) => format!(
            "{} {} · {}",
            info.architecture,
            info.quantisation,
            p.lang.pick(
                "本机模型文件，在页面内运行",
                "model file on this device, run in the page"
            )
        ),
        ModelSource::Registry(e) | ModelSource::Endpoint(EndpointModel { entry: e, .. }) => {
            format!(
                "{} @ {}",
                e.model_id(),
                evalpage_core::strip_query(&e.base_url)
            )
        }
    };
    let key = c.key_env().map(|env| {
        // Committed as typed (`field`): nothing changes when it loses focus.
        let oninput = {
            let (cb, name) = (p.on_key.clone(), name.clone());
            field::on_input(Callback::from(move |v: String| cb.emit((name.clone(), v))))
        };
        let has = p.with_key.contains(&c.name);
        html! {
            <label class="key">{format!("{} ({env})", p.lang.pick("API 密钥", "API key"))}
                <input type="password" autocomplete="off" data-testid={format!("model-key-{name}")} disabled={p.disabled}
                    placeholder={if has { "••••" } else { "" }} {oninput} /></label>
        }
    });
    html! {
        // Keyed by name and base URL: when the registry points a name at
        // another endpoint, the row (and its key field) is new and empty.
        <li key={row_key(c)} data-testid="model-choice" data-model={name.clone()}>
            <label class="check"><input type="checkbox" data-testid={format!("model-toggle-{name}")}
                checked={p.selected.contains(&c.name)} disabled={p.disabled} {onchange} />
                <strong>{&c.name}</strong><span class="muted">{format!(" {what}")}</span></label>
            { key.unwrap_or_default() }
        </li>
    }
}

/// The judge of the task's `llm_judge` metrics: the built-in mock judge or
/// any model of the list (ticked or not), on its own pool.
fn judge(p: &TaskModelsPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let onchange = {
        let cb = p.on_judge.clone();
        Callback::from(move |e: Event| {
            let select = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok());
            if let Some(s) = select {
                cb.emit(s.value());
            }
        })
    };
    let mock = crate::task::state::models::MOCK_JUDGE;
    html! {
        <label data-testid="task-judge-row">{t("评审模型（llm_judge 指标）", "Judge (for the llm_judge metrics)")}
            <select data-testid="task-judge" disabled={p.disabled} {onchange}>
                <option value={mock} selected={&*p.judge == mock}>{t("内置模拟评审", "built-in mock judge")}</option>
                { for p.choices.iter().map(|c| html!{
                    <option value={c.name.clone()} selected={*p.judge == *c.name}>{&c.name}</option>
                }) }
            </select>
        </label>
    }
}

fn settings(p: &TaskModelsPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let s = p.settings;
    // Boxes commit on change (a click); number fields as they are typed
    // (`field`), so nothing changes when one loses focus.
    let apply = |f: fn(&mut TaskRunSettings, &str)| {
        let cb = p.on_settings.clone();
        Callback::from(move |v: String| {
            let mut next = s;
            f(&mut next, v.trim());
            if next != s {
                cb.emit(next);
            }
        })
    };
    let edit = |f| apply(f).reform(|e: Event| field::value(&e).unwrap_or_default());
    let typed = |f| field::on_input(apply(f));
    let d = p.disabled;
    html! {
        <div class="grid">
            <label>{t("每个模型的并发数", "Calls in flight per model")}<input type="number" min="1" max="64" disabled={d}
                value={s.concurrency.to_string()} oninput={typed(|s, v| s.concurrency = v.parse().unwrap_or(s.concurrency))} /></label>
            <label>{t("超时（秒）", "Timeout (s)")}<input type="number" min="1" max="600" disabled={d}
                value={s.timeout_s.to_string()} oninput={typed(|s, v| s.timeout_s = v.parse().unwrap_or(s.timeout_s))} /></label>
            <label>{t("最多尝试次数", "Max attempts")}<input type="number" min="1" max="10" disabled={d}
                value={s.max_attempts.to_string()} oninput={typed(|s, v| s.max_attempts = v.parse().unwrap_or(s.max_attempts))} /></label>
            <label>{t("每个样本询问次数（pass@k）", "Asks per sample (pass@k)")}<input type="number" min="1" max="100" disabled={d}
                data-testid="task-repeats" placeholder={p.task_repeats.to_string()}
                value={s.repeats.map(|r| r.to_string()).unwrap_or_default()}
                oninput={typed(|s, v| s.repeats = if v.is_empty() { None } else { v.parse().ok().or(s.repeats) })} /></label>
            <label>{t("费用上限（需登记价格）", "Cost cap (needs registry prices)")}<input type="number" step="0.01" min="0" disabled={d}
                data-testid="task-max-cost" value={s.max_cost.map(|x| x.to_string()).unwrap_or_default()}
                oninput={typed(|s, v| s.max_cost = crate::state::limits::parse_cap(v))} /></label>
            <label class="check"><input type="checkbox" data-testid="task-truncated-as-failure" checked={s.truncated_as_failure} disabled={d}
                onchange={edit(|s, v| s.truncated_as_failure = v == "true")} />
                {t("被 max_tokens 截断的回答计为调用失败", "Count an answer cut off at max_tokens as a failed call")}</label>
            <label class="check"><input type="checkbox" data-testid="task-keep-going-on-fatal" checked={s.keep_going_on_fatal} disabled={d}
                onchange={edit(|s, v| s.keep_going_on_fatal = v == "true")} />
                {t("遇到 401/403/404 仍继续发送", "Keep sending after a 401, 403 or 404")}</label>
        </div>
    }
}

/// The row's identity: the model's name and, for a registry model, its base URL.
fn row_key(c: &ModelChoice) -> String {
    match &c.source {
        ModelSource::Registry(e) | ModelSource::Endpoint(EndpointModel { entry: e, .. }) => {
            format!("{}@{}", c.name, e.base_url.trim())
        }
        ModelSource::Mock => c.name.clone(),
        ModelSource::InPage(info) => format!("{}@{}", c.name, info.sha256),
    }
}
