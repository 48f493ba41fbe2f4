//! evalpage-web: the Yew page. It loads a dataset from the user's disk, calls the
//! model the user names (or the offline demo model), and shows and exports what
//! `evalpage-core` computes. No scoring logic lives here.

pub mod app;
pub mod archive;
pub mod components;
pub mod dialog;
pub mod effects;
pub mod launch;
pub mod rag;
pub mod retrieval;
pub mod state;
pub mod task;
pub mod view_page;
pub mod viewer;

/// Mounts the run modes' app on `<body>` (the `evalpage-web` bundle).
pub fn start() {
    evalpage_core::use_nfkc(nfkc);
    yew::Renderer::<app::App>::new().render();
}

/// Unicode NFKC by the browser (`String.prototype.normalize`): the core's
/// matchers fold text with it, so the page carries no normalization tables.
pub fn nfkc(s: &str) -> String {
    js_sys::JsString::from(s).normalize("NFKC").into()
}

/// Mounts the viewer's page on `<body>` (the `evalpage-view` bundle).
pub fn start_viewer() {
    evalpage_core::use_nfkc(nfkc);
    yew::Renderer::<view_page::ViewerPage>::new().render();
}
