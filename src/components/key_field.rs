//! The key field of a mode whose requests go to one endpoint URL (retrieval,
//! dialogs): the key of the URL's origin (it belongs to that origin and is
//! sent there only), the line naming where the requests go and whether a
//! key goes with them, and the prompt of a run that waits for a click
//! before its key is sent.

use super::field;
use super::run_controls::{key_prompt_view, target_view};
use crate::state::keys::{KeyPrompt, TargetLine};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Key field props.
#[derive(Properties, PartialEq)]
pub struct KeyFieldProps {
    /// Language.
    pub lang: Lang,
    /// The field's test id (`retrieval-key`, `dialog-key`).
    pub testid: AttrValue,
    /// The key of the URL's origin, as the field shows it.
    pub value: AttrValue,
    /// Where the requests go (`None`: no URL, the mock in the page).
    pub target: Option<Rc<TargetLine>>,
    /// No edits while a run is going.
    pub disabled: bool,
    /// The key as typed.
    pub on_key: Callback<String>,
    /// A run waiting for a click before its key is sent.
    pub prompt: Option<Rc<KeyPrompt>>,
    /// The user agreed to send the key.
    pub on_confirm: Callback<()>,
    /// The user declined.
    pub on_dismiss: Callback<()>,
}

/// The key field.
#[component]
pub fn KeyField(p: &KeyFieldProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    html! {
        <>
            <label>{t("API 密钥（可选，只发送到该 URL 的源）", "API key (optional; sent to this URL's origin only)")}
                <input type="password" autocomplete="off" data-testid={p.testid.clone()} disabled={p.disabled}
                    value={p.value.clone()} oninput={field::on_input(p.on_key.clone())} />
            </label>
            if let Some(line) = &p.target { <p class="target-line">{target_view(p.lang, line)}</p> }
            if let (Some(prompt), false) = (&p.prompt, p.disabled) {
                {key_prompt_view(p.lang, prompt, &p.on_confirm, &p.on_dismiss)}
            }
        </>
    }
}
