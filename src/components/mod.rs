//! The components both modes use, one per file: props in, callbacks out.
//! Each mode's own components live in its folder (`rag/`, `task/`).

pub mod endpoint_form;
pub mod field;
pub mod header;
pub mod key_field;
pub mod local_model_field;
pub mod metric_cells;
pub mod metric_hints;
pub mod metric_list;
pub mod reconcile_view;
pub mod resume_banner;
pub mod resume_log;
pub mod run_controls;
pub mod run_limits;
pub mod share_link;
pub mod usage_table;
pub mod virtual_table;
pub mod zip_button;

/// The first file chosen in a file input's `change` event, if any.
pub fn chosen_file(e: &yew::Event) -> Option<web_sys::File> {
    use wasm_bindgen::JsCast;
    let input: web_sys::HtmlInputElement = e.target()?.dyn_into().ok()?;
    input.files()?.get(0)
}

/// Every file chosen in a file `<input multiple>` (from a change event), in order.
pub fn chosen_files(e: &yew::Event) -> Vec<web_sys::File> {
    use wasm_bindgen::JsCast;
    let Some(list) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .and_then(|i| i.files())
    else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// A file drop zone's class and handlers: a dropped file goes to `on_file`
/// (unless `disabled`), and the zone is highlighted while a file is dragged over.
pub struct DropZone {
    /// `dropzone`, or `dropzone over` while dragging.
    pub class: &'static str,
    /// `drop` handler.
    pub ondrop: yew::Callback<web_sys::DragEvent>,
    /// `dragover` handler.
    pub ondragover: yew::Callback<web_sys::DragEvent>,
    /// `dragleave` handler.
    pub ondragleave: yew::Callback<web_sys::DragEvent>,
}

fn file_list(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
        .unwrap_or_default()
}

/// The drop zone of a dataset panel (shared by the RAG and task panels).
#[yew::hook]
pub fn use_drop_zone(on_file: yew::Callback<web_sys::File>, disabled: bool) -> DropZone {
    let on_files = yew::Callback::from(move |files: Vec<web_sys::File>| {
        if let Some(file) = files.into_iter().next() {
            on_file.emit(file);
        }
    });
    use_drop_zone_files(on_files, disabled)
}

/// A drop zone that takes every file dropped on it (the viewer's: a run's
/// files dropped together).
#[yew::hook]
pub fn use_drop_zone_files(
    on_files: yew::Callback<Vec<web_sys::File>>,
    disabled: bool,
) -> DropZone {
    use yew::Callback;
    let dragging = yew::use_state(|| false);
    let ondrop = {
        let dragging = dragging.clone();
        Callback::from(move |e: web_sys::DragEvent| {
            e.prevent_default();
            dragging.set(false);
            let files = file_list(e.data_transfer().and_then(|d| d.files()));
            if !files.is_empty() && !disabled {
                on_files.emit(files);
            }
        })
    };
    let ondragover = {
        let d = dragging.clone();
        Callback::from(move |e: web_sys::DragEvent| {
            e.prevent_default();
            d.set(true);
        })
    };
    let ondragleave = {
        let d = dragging.clone();
        Callback::from(move |_: web_sys::DragEvent| d.set(false))
    };
    DropZone {
        class: if *dragging {
            "dropzone over"
        } else {
            "dropzone"
        },
        ondrop,
        ondragover,
        ondragleave,
    }
}
