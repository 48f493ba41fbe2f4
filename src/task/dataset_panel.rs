//! The task's dataset: file picker and drag and drop (read locally), the
//! built-in demo for the task's format, an optional `metadata.json`, every
//! skipped line (file:line: field: message) and the first samples.

use crate::components::{use_drop_zone, DropZone};
use crate::task::state::data::{LoadedMetadata, RunData};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Task dataset panel props.
#[derive(Properties, PartialEq)]
pub struct TaskDatasetPanelProps {
    /// Language.
    pub lang: Lang,
    /// The dataset as read.
    pub run_data: Rc<RunData>,
    /// The loaded `metadata.json`.
    pub metadata: Option<Rc<LoadedMetadata>>,
    /// Why a file could not be read.
    pub error: Option<Rc<str>>,
    /// No loading while a run is going.
    pub disabled: bool,
    /// A dataset file was chosen or dropped.
    pub on_file: Callback<web_sys::File>,
    /// Back to the demo.
    pub on_demo: Callback<()>,
    /// A `metadata.json` was chosen.
    pub on_metadata: Callback<web_sys::File>,
    /// Drop the `metadata.json`.
    pub on_clear_metadata: Callback<()>,
}

/// The panel.
#[component]
pub fn TaskDatasetPanel(p: &TaskDatasetPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let DropZone {
        class: zone,
        ondrop,
        ondragover,
        ondragleave,
    } = use_drop_zone(p.on_file.clone(), p.disabled);
    let pick = |cb: Callback<web_sys::File>| {
        Callback::from(move |e: Event| {
            if let Some(file) = crate::components::chosen_file(&e) {
                cb.emit(file);
            }
        })
    };
    let click = |cb: Callback<()>| Callback::from(move |_: MouseEvent| cb.emit(()));
    let data = &p.run_data.data;
    html! {
        <section class="panel" data-testid="task-dataset-panel">
            <h2>{t("数据集", "Dataset")}</h2>
            <div class={zone} {ondrop} {ondragover} {ondragleave}>
                <p id="task-dataset-file-hint">{format!("{} {}", t("JSONL（或 Parquet），格式随任务而定：", "JSONL (or Parquet) in the task's format:"), data.format.describe())}</p>
                <input type="file" accept=".jsonl,.json,.txt,.parquet" data-testid="task-dataset-file" aria-labelledby="task-dataset-file-hint" disabled={p.disabled} onchange={pick(p.on_file.clone())} />
                if !p.run_data.is_demo {
                    <button class="link" data-testid="task-dataset-demo" onclick={click(p.on_demo.clone())} disabled={p.disabled}>{t("使用内置示例数据集", "Use the built-in demo dataset")}</button>
                }
                <label class="inline">{"metadata.json "}{t("（可选）", "(optional)")}
                    <input type="file" accept=".json" data-testid="task-metadata-file" disabled={p.disabled} onchange={pick(p.on_metadata.clone())} /></label>
                { metadata_status(p.lang, p.metadata.as_deref(), click(p.on_clear_metadata.clone()), p.disabled) }
            </div>
            if let Some(e) = &p.error { <p class="error" data-testid="task-load-error">{e.to_string()}</p> }
            <p data-testid="task-dataset-summary">
                <strong>{&data.name}</strong>
                if p.run_data.is_demo { <span class="muted">{t("（内置示例）", " (built-in demo)")}</span> }
                {format!(" · {} {}", data.samples.len(), t("个有效样本", "valid samples"))}
                if !data.errors.is_empty() { {format!(" · {} {}", data.errors.len(), t("行有错误（已跳过）", "lines skipped"))} }
            </p>
            if !data.errors.is_empty() {
                <ul class="line-errors" data-testid="task-line-errors" tabindex="0">
                    { for data.errors.iter().map(|e| html!{ <li>{e.to_string()}</li> }) }
                </ul>
            }
            <div class="preview-scroll" tabindex="0" role="region" aria-label={t("数据集预览", "Dataset preview")}><table class="cases preview-table">
                <thead><tr><th>{"id"}</th><th>{t("字段", "fields")}</th></tr></thead>
                <tbody>
                    { for data.samples.iter().take(5).map(|s| html!{
                        <tr><td>{&s.sample.id}</td><td class="clip-line">{fields_text(&s.sample.fields)}</td></tr>
                    }) }
                </tbody>
            </table></div>
            if data.samples.len() > 5 { <p class="muted">{format!("… {} {}", data.samples.len() - 5, t("个未显示", "more"))}</p> }
        </section>
    }
}

fn metadata_status(
    lang: Lang,
    meta: Option<&LoadedMetadata>,
    on_clear: Callback<MouseEvent>,
    disabled: bool,
) -> Html {
    let Some(m) = meta else { return html! {} };
    let (class, text) = match &m.parsed {
        Ok(d) => (
            "ok",
            format!("✓ {}: {} {}", m.name, d.dataset_id, d.version),
        ),
        Err(e) => ("error", format!("✗ {e}")),
    };
    html! {
        <p data-testid="task-metadata-status"><span class={class}>{text}</span>
            <button class="link" onclick={on_clear} {disabled}>{lang.pick("移除", "remove")}</button></p>
    }
}

/// The sample's fields as one line of JSON, cut at 300 characters.
fn fields_text(fields: &serde_json::Map<String, serde_json::Value>) -> String {
    let text = serde_json::to_string(fields).unwrap_or_default();
    evalpage_core::truncate_chars(&text, 300)
}
