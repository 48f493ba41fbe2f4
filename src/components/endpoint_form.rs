//! The endpoint form both modes add a model with: presets, the API base URL,
//! the model name and the key, which belongs to the origin it was entered
//! for (`state::keys`): the field holds only the key of the endpoint's own
//! origin, and the origins with a key can be listed and forgotten. In the
//! RAG check the key can be remembered across sessions; in task mode keys
//! stay in memory. Optionally the line naming the origin that will receive
//! the requests (and whether a key goes with them).

use super::field;
use super::run_controls::target_view;
use crate::state::keys::TargetLine;
use crate::state::{ModelSettings, Provider, PRESETS};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Endpoint form props.
#[derive(Properties, PartialEq)]
pub struct EndpointFormProps {
    /// Language.
    pub lang: Lang,
    /// The endpoint (base URL, model, key) as edited.
    pub settings: Rc<ModelSettings>,
    /// No edits while a run is going.
    pub disabled: bool,
    /// Settings changed.
    pub on_change: Callback<ModelSettings>,
    /// Offer *remember the key in this browser* (else keys stay in memory).
    #[prop_or_default]
    pub remember: bool,
    /// Shown dimmed (another provider is chosen).
    #[prop_or_default]
    pub dimmed: bool,
    /// Origins with a saved key (and whether it is remembered across sessions).
    #[prop_or_default]
    pub key_origins: Rc<Vec<(String, bool)>>,
    /// *Forget keys* pressed.
    #[prop_or_default]
    pub on_forget_keys: Callback<()>,
    /// Where requests of this endpoint go, shown under the form.
    #[prop_or_default]
    pub target: Option<Rc<TargetLine>>,
}

/// The origins that have a saved key, and *Forget keys*.
fn saved_keys(p: &EndpointFormProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let forget = p.on_forget_keys.reform(|_: MouseEvent| ());
    let where_ = |remembered: bool| match (remembered, p.remember) {
        (true, _) => t("（本浏览器）", " (this browser)"),
        (false, true) => t("（本标签页）", " (this tab)"),
        (false, false) => t("（仅内存）", " (memory only)"),
    };
    html! {
        <div class="saved-keys" data-testid="saved-keys">
            <span>{t("已保存密钥的源：", "Origins with a saved key: ")}</span>
            if p.key_origins.is_empty() {
                <span class="muted" data-testid="no-saved-keys">{t("无", "none")}</span>
            } else {
                <ul data-testid="saved-key-origins">
                    { for p.key_origins.iter().map(|(o, r)| html! { <li><code>{o.clone()}</code>{where_(*r)}</li> }) }
                </ul>
            }
            <button data-testid="forget-keys" disabled={p.disabled || p.key_origins.is_empty()} onclick={forget}>{t("忘记所有密钥", "Forget keys")}</button>
        </div>
    }
}

type Edit = fn(&mut ModelSettings, String);

/// The endpoint form.
#[component]
pub fn EndpointForm(p: &EndpointFormProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let s = p.settings.clone();
    // Text fields commit as they are typed (`field`): nothing changes on blur.
    let edit = |f: Edit| {
        let (s, cb) = (s.clone(), p.on_change.clone());
        field::on_input(Callback::from(move |v: String| {
            let mut next = (*s).clone();
            f(&mut next, v);
            if next != *s {
                cb.emit(next);
            }
        }))
    };
    let remember = {
        let (s, cb) = (s.clone(), p.on_change.clone());
        Callback::from(move |e: Event| {
            let mut next = (*s).clone();
            next.remember_key = field::value(&e).as_deref() == Some("true");
            cb.emit(next);
        })
    };
    let preset = |i: usize| {
        let (s, cb) = (s.clone(), p.on_change.clone());
        Callback::from(move |_: MouseEvent| {
            let mut next = (*s).clone();
            next.provider = Provider::Openai;
            next.base_url = PRESETS[i].base_url.into();
            next.model = PRESETS[i].model.into();
            cb.emit(next);
        })
    };
    let d = p.disabled;
    html! {
        <>
            <div class="presets">
                <span>{t("预设：", "Presets: ")}</span>
                { for PRESETS.iter().enumerate().map(|(i, pr)| html!{ <button class="link" disabled={d} onclick={preset(i)}>{pr.name}</button> }) }
            </div>
            <div class={if p.dimmed { "endpoint dimmed" } else { "endpoint" }}>
                <label>{t("API 基础地址", "API base URL")}
                    <input data-testid="endpoint-url" disabled={d} value={s.base_url.clone()} placeholder="http://127.0.0.1:8091/v1"
                        oninput={edit(|s, v| { s.base_url = v; s.provider = Provider::Openai; })} /></label>
                <label>{t("模型名称", "Model name")}
                    <input data-testid="model-name" disabled={d} value={s.model.clone()} oninput={edit(|s, v| s.model = v)} /></label>
                <label>{t("API 密钥（可选）", "API key (optional)")}
                    <input data-testid="api-key" type="password" autocomplete="off" disabled={d} value={s.api_key.clone()}
                        oninput={edit(|s, v| s.api_key = v.trim().to_string())} /></label>
                if p.remember {
                    <label class="check"><input type="checkbox" data-testid="remember-key" checked={s.remember_key} disabled={d}
                        onchange={remember} />
                        {t("在本浏览器记住密钥（默认仅保存在本标签页会话中）", "Remember the key in this browser (by default it stays in this tab's session only)")}</label>
                }
                <p class="muted">{t("密钥只属于输入它时端点的源（协议、主机、端口），只会发送到该源。",
                    "A key belongs to the origin (scheme, host, port) of the endpoint it was entered for and is only ever sent there.")}
                    if !p.remember { {t("此处输入的密钥只保存在内存中。", " Keys typed here stay in memory only.")} }</p>
                {saved_keys(p)}
                if let Some(line) = &p.target { <p class="target-line">{target_view(p.lang, line)}</p> }
            </div>
        </>
    }
}
