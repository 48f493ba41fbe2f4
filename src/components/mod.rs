//! One component per file: props in, callbacks out.

pub mod case_table;
pub mod code_editor;
pub mod console;
pub mod dataset_panel;
pub mod downloads;
pub mod error_summary;
pub mod header;
pub mod metrics;
pub mod model_panel;
pub mod prompt_preview;
pub mod reconcile_view;
pub mod resume_banner;
pub mod run_controls;
pub mod task_dataset_panel;
pub mod task_downloads;
pub mod task_editor;
pub mod task_models_panel;
pub mod task_sample_table;
pub mod task_summary;

/// The first file chosen in a file input's `change` event, if any.
pub fn chosen_file(e: &yew::Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    let input: web_sys::HtmlInputElement = e.target()?.dyn_into().ok()?;
    input.files()?.get(0)
}
