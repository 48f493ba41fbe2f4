//! The model file on this device (本机模型文件), as every mode that calls a
//! model offers it: a GGUF file picked from disk (read here, never
//! uploaded) or fetched once from a URL and kept in this browser's storage,
//! and where the file stands (loading, loaded with what the engine says of
//! it, or why not).

use crate::components::field;
use crate::state::local::LocalModel;
use evalpage_core::Lang;
use yew::prelude::*;

/// Props of [`LocalModelField`].
#[derive(Properties, PartialEq)]
pub struct LocalModelFieldProps {
    /// Language.
    pub lang: Lang,
    /// Where the model file stands.
    pub local: LocalModel,
    /// No edits while a run is going.
    pub disabled: bool,
    /// A file was picked.
    pub on_file: Callback<web_sys::File>,
    /// *Load* pressed with this URL.
    pub on_url: Callback<String>,
}

/// The file input, the URL field and the status line.
#[component]
pub fn LocalModelField(p: &LocalModelFieldProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let url = use_state(String::new);
    let onchange = {
        let cb = p.on_file.clone();
        Callback::from(move |e: Event| {
            if let Some(f) = crate::components::chosen_file(&e) {
                cb.emit(f);
            }
            // Emptied, so that picking the same file again (after a failed
            // load, say) is a change the browser reports.
            if let Some(input) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                input.set_value("");
            }
        })
    };
    let on_url_input = {
        let url = url.clone();
        field::on_input(Callback::from(move |v: String| url.set(v)))
    };
    let on_load = {
        let (cb, url) = (p.on_url.clone(), url.clone());
        Callback::from(move |_: MouseEvent| {
            if !url.trim().is_empty() {
                cb.emit(url.trim().to_string());
            }
        })
    };
    let busy = p.disabled || matches!(p.local, LocalModel::Loading(_));
    let threads = use_state(crate::effects::storage::model_threads);
    let on_threads = {
        let threads = threads.clone();
        Callback::from(move |e: Event| {
            let n = field::value(&e).and_then(|v| v.parse().ok()).unwrap_or(0);
            threads.set(n);
            crate::effects::local_model::set_threads(n);
        })
    };
    let logical = logical_cpus();
    html! {
        <div data-testid="local-model">
            <label id="local-model-hint">{t(
                "选择本机的 GGUF 模型文件（只在本机读取，不会上传；模型在页面内运行）：",
                "Pick a GGUF model file on this device (read here, never uploaded; the model runs in the page):")}</label>
            <input type="file" accept=".gguf" data-testid="local-model-file" aria-labelledby="local-model-hint"
                disabled={busy} {onchange} />
            <div class="row">
                <label>{t("或模型文件的 URL（同源，或允许 CORS 的主机；下载一次，保存在本浏览器中）",
                    "or the model file's URL (same origin, or a host that allows CORS; downloaded once, kept in this browser)")}
                    <input type="url" data-testid="local-model-url" placeholder="https://…/model.gguf" disabled={busy}
                        value={(*url).clone()} oninput={on_url_input} /></label>
                <button data-testid="local-model-url-load" disabled={busy || url.trim().is_empty()} onclick={on_load}>
                    {t("加载", "Load")}</button>
            </div>
            <label class="inline">{t("线程 ", "Threads ")}
                <select data-testid="local-model-threads" disabled={busy} onchange={on_threads}>
                    <option value="0" selected={*threads == 0}>{t("自动（不超过核心数）", "auto (never more than the cores)")}</option>
                    { for (1..=logical.max(*threads)).map(|n| html! {
                        <option value={n.to_string()} selected={*threads == n}>{n.to_string()}</option>
                    }) }
                </select></label>
            <span class="muted">{t(
                "浏览器报告的是逻辑 CPU 数；超线程机器上线程多于物理核心会使生成慢上百倍，所以自动取其一半（2 个及以下全用）。没有超线程的机器（如 Apple 芯片）可以选择全部。",
                "The browser reports logical CPUs; on a machine with hyper-threading, more threads than cores makes decoding a hundred times slower, so auto takes half of them (all of them up to 2). On a machine without hyper-threading (Apple silicon, say) you may pick them all.")}</span>
            { status(p) }
        </div>
    }
}

/// The logical CPUs the browser reports (`navigator.hardwareConcurrency`).
fn logical_cpus() -> u32 {
    let navigator = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).ok();
    navigator
        .and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()).ok())
        .and_then(|v| v.as_f64())
        .map_or(1, |v| v.clamp(1.0, 1024.0) as u32)
}

fn status(p: &LocalModelFieldProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    match &p.local {
        LocalModel::None => html! {},
        LocalModel::Loading(name) => html! {
            <p data-testid="local-model-status" data-state="loading">{format!("{} {name} …", t("正在读取并加载", "Reading and loading"))}</p>
        },
        LocalModel::Failed(why) => html! {
            <p class="error" data-testid="local-model-status" data-state="failed">{why.clone()}</p>
        },
        LocalModel::Loaded(i) => {
            let device = if i.webgpu {
                format!(
                    "WebGPU ({}, {} {})",
                    i.webgpu_adapter,
                    i.gpu_layers,
                    t("层", "layers")
                )
            } else {
                "CPU".to_string()
            };
            let from = match (&i.source_url, i.from_cache) {
                (Some(u), true) => format!(
                    " · {} {u}",
                    t("取自本浏览器的存储：", "from this browser's storage:")
                ),
                (Some(u), false) => {
                    format!(" · {} {u}", t("已下载并保存：", "downloaded and kept:"))
                }
                (None, _) => String::new(),
            };
            html! {
                <p data-testid="local-model-status" data-state="loaded" data-from-cache={i.from_cache.to_string()}>{format!(
                    "{} {} · {} {} · {} · {} {} · {} ms{from}",
                    t("已加载", "Loaded"), i.file, i.architecture, i.quantisation, device,
                    i.threads, t("线程", "thread(s)"), i.load_ms)}<br />
                    <small>{format!("SHA-256 {} · {} {}", i.sha256, t("对话模板：", "chat template:"), i.chat_template)}</small>
                    if !i.gpu_note.is_empty() { <br /><small class="warning" data-testid="local-model-gpu-note">{i.gpu_note.clone()}</small> }</p>
            }
        }
    }
}
