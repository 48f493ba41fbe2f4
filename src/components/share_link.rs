//! *Copy share link*: a link to this page with the current evaluation
//! (`state::share`), copied with `navigator.clipboard.writeText` when the
//! browser allows it and always shown in a read-only field to copy by hand.
//! What the link cannot carry (a local file, a key) is said beside the button.

use crate::effects::url;
use crate::state::share::ShareSpec;
use evalpage_core::Lang;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Share link props.
#[derive(Properties, PartialEq)]
pub struct ShareLinkProps {
    /// Language.
    pub lang: Lang,
    /// What the link is made of.
    pub spec: Rc<ShareSpec>,
}

/// Asks the browser to copy `text`; `false` when there is no clipboard API
/// (an insecure origin, an old browser) or it refused at once.
fn copy(text: &str, done: Callback<bool>) -> bool {
    let clipboard = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"navigator".into()).ok())
        .and_then(|n| js_sys::Reflect::get(&n, &"clipboard".into()).ok())
        .filter(|c| !c.is_undefined() && !c.is_null());
    let Some(clipboard) = clipboard else {
        return false;
    };
    let write = js_sys::Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(write) = write else {
        return false;
    };
    let Ok(promise) = write.call1(&clipboard, &text.into()) else {
        return false;
    };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else {
        return false;
    };
    crate::effects::spawn(async move {
        let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        done.emit(ok);
    });
    true
}

/// The button, the link and the notes.
#[component]
pub fn ShareLink(p: &ShareLinkProps) -> Html {
    let link = use_state(|| None::<String>);
    let copied = use_state(|| None::<bool>);
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let onclick = {
        let (spec, link, copied) = (p.spec.clone(), link.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(href) = url::share_link(&spec.pairs) else {
                return;
            };
            let done = {
                let copied = copied.clone();
                Callback::from(move |ok: bool| copied.set(Some(ok)))
            };
            if !copy(&href, done) {
                copied.set(Some(false));
            }
            link.set(Some(href));
        })
    };
    let onfocus = Callback::from(|e: FocusEvent| {
        if let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
            input.select();
        }
    });
    html! {
        <section class="panel share" data-testid="share">
            <button data-testid="share-button" {onclick}>{t("复制分享链接", "Copy share link")}</button>
            {" "}
            <span class="muted">{t(
                "链接包含数据集地址、任务、端点、模型和设置，从不包含密钥；打开后可直接开始，但不会自动运行",
                "The link carries the dataset URL, the task, endpoint, model and settings, never a key; it opens ready to run, not running",
            )}</span>
            if !p.spec.notes.is_empty() {
                <ul class="warning" data-testid="share-notes">
                    { for p.spec.notes.iter().map(|n| html! { <li>{n.clone()}</li> }) }
                </ul>
            }
            if let Some(href) = (*link).clone() {
                <label class="share-field">
                    <span class="label">{t("分享链接", "Share link")}</span>
                    <input type="text" readonly=true data-testid="share-link" value={href} {onfocus} />
                </label>
                <span class="muted" data-testid="share-copied">{match *copied {
                    Some(true) => t("已复制到剪贴板", "Copied to the clipboard"),
                    Some(false) => t("无法自动复制：请从上面的框中复制", "Could not copy by itself: copy it from the field above"),
                    None => "",
                }}</span>
            }
        </section>
    }
}
