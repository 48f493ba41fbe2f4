//! Title bar with the mode tabs (RAG check / task / retrieval / dialogs) and the language switch.

use crate::state::Mode;
use evalpage_core::Lang;
use yew::prelude::*;

/// Header props.
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// Current language.
    pub lang: Lang,
    /// Switch language.
    pub on_lang: Callback<Lang>,
    /// Current mode.
    pub mode: Mode,
    /// Switch mode.
    pub on_mode: Callback<Mode>,
    /// *Reuse answers from earlier runs* (the run modes' page only): on or
    /// off, and the switch.
    #[prop_or_default]
    pub reuse: Option<(bool, Callback<bool>)>,
}

/// The header.
#[component]
pub fn Header(p: &HeaderProps) -> Html {
    let button = |l: Lang, label: &'static str| {
        let cb = p.on_lang.clone();
        let class = if p.lang == l { "lang active" } else { "lang" };
        html! { <button {class} data-testid={format!("lang-{}", l.code())} onclick={move |_| cb.emit(l)}>{label}</button> }
    };
    let tab = |m: Mode| {
        let cb = p.on_mode.clone();
        let class = if p.mode == m { "tab active" } else { "tab" };
        html! {
            <button {class} role="tab" aria-selected={(p.mode == m).to_string()}
                data-testid={format!("mode-{}", m.code())} onclick={move |_| cb.emit(m)}>{m.title().get(p.lang)}</button>
        }
    };
    html! {
        <header>
            <h1>{"evalpage"}</h1>
            <nav class="tabs" role="tablist">
                {for Mode::all().map(tab)}
            </nav>
            <p class="tagline">{p.lang.pick(
                "在浏览器里评测 LLM / RAG：数据留在本机，结果可下载。",
                "Evaluate an LLM or RAG system in your browser: your data stays on your machine.")}</p>
            <nav>{button(Lang::Zh, "中文")}{button(Lang::En, "English")}</nav>
            {p.reuse.as_ref().map(|(on, cb)| {
                let cb = cb.clone();
                let onchange = Callback::from(move |e: Event| {
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    cb.emit(input.checked());
                });
                html! {
                    <label class="reuse" title={p.lang.pick(
                        "同一端点、同一请求体已有的回答直接取自本浏览器的缓存（IndexedDB），不再发送请求；失败或被截断的回答不缓存。",
                        "An answer this browser already has for the same endpoint and request body is taken from its cache (IndexedDB) without a request; failed and truncated answers are not kept.")}>
                        <input type="checkbox" data-testid="reuse-answers" checked={*on} {onchange} />
                        {p.lang.pick(" 复用之前运行的回答", " Reuse answers from earlier runs")}
                    </label>
                }
            })}
        </header>
    }
}

/// Keeps `<html lang>` on the language shown, so screen readers pronounce it right.
#[hook]
pub fn use_document_lang(lang: Lang, shown: bool) {
    use_effect_with((lang, shown), |(l, shown)| {
        if !*shown {
            return;
        }
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", l.code());
        }
    });
}
