//! Model choice of the RAG check: the offline demo model, an
//! OpenAI-compatible endpoint (the shared endpoint form: presets, base URL,
//! model, the key in sessionStorage unless remembered) or a GGUF model file
//! on this device run in the page, and run settings.

use crate::components::endpoint_form::EndpointForm;
use crate::components::field;
use crate::components::local_model_field::LocalModelField;
use crate::state::local::LocalModel;
use crate::state::{ModelSettings, Provider};
use evalpage_core::Lang;
use evalpage_core::MatchMode;
use std::rc::Rc;
use yew::prelude::*;

/// Model panel props.
#[derive(Properties, PartialEq)]
pub struct ModelPanelProps {
    /// Language.
    pub lang: Lang,
    /// Current settings.
    pub settings: Rc<ModelSettings>,
    /// No edits while a run is going.
    pub disabled: bool,
    /// Settings changed.
    pub on_change: Callback<ModelSettings>,
    /// Origins with a saved key (and whether it is remembered across sessions).
    #[prop_or_default]
    pub key_origins: Rc<Vec<(String, bool)>>,
    /// *Forget keys* pressed.
    #[prop_or_default]
    pub on_forget_keys: Callback<()>,
    /// The model file on this device.
    #[prop_or_default]
    pub local: LocalModel,
    /// A model file picked.
    #[prop_or_default]
    pub on_local_file: Callback<web_sys::File>,
    /// A model file's URL to load.
    #[prop_or_default]
    pub on_local_url: Callback<String>,
}

type Edit = fn(&mut ModelSettings, String);

/// The model panel.
#[component]
pub fn ModelPanel(p: &ModelPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let s = p.settings.clone();
    // Selects and boxes commit on change (a click or a pick, no blur);
    // text and number fields as they are typed (`field`), so nothing
    // changes when a field loses focus to a click on Start.
    let apply = |f: Edit| {
        let (s, cb) = (s.clone(), p.on_change.clone());
        Callback::from(move |v: String| {
            let mut next = (*s).clone();
            f(&mut next, v);
            if next != *s {
                cb.emit(next);
            }
        })
    };
    let edit = |f: Edit| apply(f).reform(|e: Event| field::value(&e).unwrap_or_default());
    let typed = |f: Edit| field::on_input(apply(f));
    let openai = s.provider == Provider::Openai;
    let local = s.provider == Provider::Local;
    let d = p.disabled;
    html! {
        <section class="panel" data-testid="model-panel">
            <h2>{t("模型", "Model")}</h2>
            <label>{t("提供方", "Provider")}
                <select data-testid="provider" disabled={d} onchange={edit(|s, v| s.provider = Provider::parse(&v).unwrap_or_default())}>
                    <option value="demo" selected={s.provider == Provider::Demo}>{t("内置离线演示模型", "Built-in offline demo model")}</option>
                    <option value="openai" selected={openai}>{t("OpenAI 兼容端点", "OpenAI-compatible endpoint")}</option>
                    <option value="local" selected={local}>{t("本机模型文件（GGUF，在页面内运行）", "A model file on this device (GGUF, run in the page)")}</option>
                </select>
            </label>
            if local {
                <LocalModelField lang={p.lang} local={p.local.clone()} disabled={d}
                    on_file={p.on_local_file.clone()} on_url={p.on_local_url.clone()} />
            }
            // The model file uses no URL, model name or key: they are not shown for it.
            if !local {
                <EndpointForm lang={p.lang} settings={s.clone()} disabled={d} on_change={p.on_change.clone()} remember=true
                    dimmed={!openai} key_origins={p.key_origins.clone()} on_forget_keys={p.on_forget_keys.clone()} />
            }
            <div class="grid">
                <label>{t("并发", "Concurrency")}<input data-testid="concurrency" type="number" min="1" max="64" disabled={d}
                    value={s.concurrency.to_string()} oninput={typed(|s, v| s.concurrency = v.parse().unwrap_or(s.concurrency).clamp(1, 64))} /></label>
                <label>{t("温度", "Temperature")}<input type="number" step="0.1" min="0" max="2" disabled={d}
                    value={s.temperature.map(|x| x.to_string()).unwrap_or_default()} oninput={typed(|s, v| s.temperature = v.parse().ok())} /></label>
                <label>{t("超时（秒）", "Timeout (s)")}<input type="number" min="1" disabled={d}
                    value={s.timeout_s.to_string()} oninput={typed(|s, v| s.timeout_s = v.parse().unwrap_or(s.timeout_s).max(1))} /></label>
                <label>{t("最多尝试次数", "Max attempts")}<input type="number" min="1" max="10" disabled={d}
                    value={s.max_attempts.to_string()} oninput={typed(|s, v| s.max_attempts = v.parse().unwrap_or(s.max_attempts).clamp(1, 10))} /></label>
                <label>{t("关键点匹配", "Keypoint match")}
                    <select data-testid="match-mode" disabled={d} onchange={edit(|s, v| s.match_mode = MatchMode::parse(&v).unwrap_or_default())}>
                        <option value="fuzzy" selected={s.match_mode == MatchMode::Fuzzy}>{t("模糊（二元组召回）", "fuzzy (bigram recall)")}</option>
                        <option value="strict" selected={s.match_mode == MatchMode::Strict}>{t("严格（原文包含）", "strict (verbatim)")}</option>
                    </select></label>
                <label>{t("模糊阈值", "Fuzzy threshold")}<input type="number" step="0.05" min="0.05" max="1" disabled={d}
                    value={s.fuzzy_threshold.to_string()} oninput={typed(|s, v| s.fuzzy_threshold = v.parse().unwrap_or(s.fuzzy_threshold))} /></label>
                <label>{t("输入价格（每百万 token）", "Input price (per M tokens)")}<input data-testid="price-in" type="number" step="0.01" min="0" disabled={d}
                    value={s.price_in.map(|x| x.to_string()).unwrap_or_default()} oninput={typed(|s, v| s.price_in = v.parse().ok().filter(|x: &f64| *x >= 0.0))} /></label>
                <label>{t("输出价格（每百万 token）", "Output price (per M tokens)")}<input data-testid="price-out" type="number" step="0.01" min="0" disabled={d}
                    value={s.price_out.map(|x| x.to_string()).unwrap_or_default()} oninput={typed(|s, v| s.price_out = v.parse().ok().filter(|x: &f64| *x >= 0.0))} /></label>
                <label>{t("费用上限（需填价格）", "Cost cap (needs the prices)")}<input data-testid="max-cost" type="number" step="0.01" min="0" disabled={d}
                    value={s.max_cost.map(|x| x.to_string()).unwrap_or_default()} oninput={typed(|s, v| s.max_cost = crate::state::limits::parse_cap(&v))} /></label>
            </div>
            <label class="check"><input type="checkbox" data-testid="truncated-as-failure" checked={s.truncated_as_failure} disabled={d}
                onchange={edit(|s, v| s.truncated_as_failure = v == "true")} />
                {t("被 max_tokens 截断的回答计为调用失败（默认按原样评分）", "Count an answer cut off at max_tokens as a failed call (by default it is scored as it is)")}</label>
            <label class="check"><input type="checkbox" data-testid="keep-going-on-fatal" checked={s.keep_going_on_fatal} disabled={d}
                onchange={edit(|s, v| s.keep_going_on_fatal = v == "true")} />
                {t("遇到 401/403/404 仍继续发送（默认停止运行）", "Keep sending after a 401, 403 or 404 (by default the run stops)")}</label>
            if s.above_browser_limit() {
                <p class="warning" data-testid="concurrency-warning">{t(
                    "提示：浏览器对同一个 HTTP/1.1 源最多同时打开 6 个连接。对 http:// 端点（浏览器只在 https 上使用 HTTP/2）本页最多同时发送 6 个请求；https 端点若支持 HTTP/2 则不受此限。",
                    "Note: a browser opens at most 6 HTTP/1.1 connections to one origin. To an http:// endpoint (browsers use HTTP/2 only over https) this page sends at most 6 requests at once; an https endpoint with HTTP/2 is not limited.")}</p>
            }
            <details>
                <summary>{t("系统提示词", "System prompt")}</summary>
                <textarea rows="4" disabled={d} value={s.system_prompt.clone()} oninput={typed(|s, v| s.system_prompt = v)} />
            </details>
        </section>
    }
}
