//! Title bar with the language switch.

use evalpage_core::Lang;
use yew::prelude::*;

/// Header props.
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// Current language.
    pub lang: Lang,
    /// Switch language.
    pub on_lang: Callback<Lang>,
}

/// The header.
#[component]
pub fn Header(p: &HeaderProps) -> Html {
    let button = |l: Lang, label: &'static str| {
        let cb = p.on_lang.clone();
        let class = if p.lang == l { "lang active" } else { "lang" };
        html! { <button {class} data-testid={format!("lang-{}", l.code())} onclick={move |_| cb.emit(l)}>{label}</button> }
    };
    html! {
        <header>
            <h1>{"evalpage"}</h1>
            <p class="tagline">{p.lang.pick(
                "在浏览器里评测 LLM / RAG：数据留在本机，结果可下载。",
                "Evaluate an LLM or RAG system in your browser: your data stays on your machine.")}</p>
            <nav>{button(Lang::Zh, "中文")}{button(Lang::En, "English")}</nav>
        </header>
    }
}
