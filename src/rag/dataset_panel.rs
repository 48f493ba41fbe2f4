//! Dataset loading: file picker, drag and drop, the demo dataset; a preview and
//! every line error.

use crate::components::{use_drop_zone, DropZone};
use crate::rag::state::LoadedDataset;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Dataset panel props.
#[derive(Properties, PartialEq)]
pub struct DatasetPanelProps {
    /// Language.
    pub lang: Lang,
    /// Loaded dataset.
    pub dataset: Option<Rc<LoadedDataset>>,
    /// Load error.
    pub error: Option<Rc<str>>,
    /// No loading while a run is going.
    pub disabled: bool,
    /// A file was chosen or dropped.
    pub on_file: Callback<web_sys::File>,
    /// Reload the demo dataset.
    pub on_demo: Callback<()>,
}

/// The dataset panel.
#[component]
pub fn DatasetPanel(p: &DatasetPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let DropZone {
        class: zone,
        ondrop,
        ondragover,
        ondragleave,
    } = use_drop_zone(p.on_file.clone(), p.disabled);
    let onchange = {
        let cb = p.on_file.clone();
        Callback::from(move |e: Event| {
            if let Some(file) = crate::components::chosen_file(&e) {
                cb.emit(file);
            }
        })
    };
    let on_demo = {
        let cb = p.on_demo.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <section class="panel" data-testid="dataset-panel">
            <h2>{t("数据集", "Dataset")}</h2>
            <div class={zone} {ondrop} {ondragover} {ondragleave}>
                <p id="dataset-file-hint">{t("把 JSONL 文件拖到这里，或选择文件（只在本机读取，不会上传）：",
                      "Drop a JSONL file here or choose one (read locally, never uploaded):")}</p>
                <input type="file" accept=".jsonl,.json,.txt" data-testid="dataset-file" aria-labelledby="dataset-file-hint" disabled={p.disabled} {onchange} />
                <button class="link" onclick={on_demo} disabled={p.disabled}>{t("使用内置示例数据集", "Use the built-in demo dataset")}</button>
            </div>
            if let Some(e) = &p.error { <p class="error" data-testid="load-error">{e.to_string()}</p> }
            if let Some(d) = &p.dataset { {preview(p.lang, d)} }
        </section>
    }
}

fn preview(lang: Lang, d: &LoadedDataset) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let parsed = &d.parsed;
    html! {
        <div class="preview">
            <p data-testid="dataset-summary">
                <strong>{&parsed.name}</strong>{" · "}
                {format!("{} {}", parsed.cases.len(), t("条有效用例", "valid cases"))}
                if !parsed.errors.is_empty() { {format!(" · {} {}", parsed.errors.len(), t("行有错误（已跳过）", "lines skipped"))}}
            </p>
            if !parsed.errors.is_empty() {
                <ul class="line-errors" data-testid="line-errors" tabindex="0">
                    { for parsed.errors.iter().map(|e| html!{ <li>{e.to_string()}</li> }) }
                </ul>
            }
            <div class="preview-scroll" tabindex="0" role="region" aria-label={t("数据集预览", "Dataset preview")}><table class="cases preview-table">
                <thead><tr><th>{"id"}</th><th>{"q"}</th><th>{"gold"}</th><th>{"doc_hint"}</th></tr></thead>
                <tbody>
                    { for parsed.cases.iter().take(5).map(|c| html!{
                        <tr><td>{&c.id}</td><td>{&c.q}</td><td>{c.gold.join(" | ")}</td><td>{c.doc_hint.join(", ")}</td></tr>
                    }) }
                </tbody>
            </table></div>
            if parsed.cases.len() > 5 { <p class="muted">{format!("… {} {}", parsed.cases.len() - 5, t("条未显示", "more"))}</p> }
        </div>
    }
}
