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
    yew::Renderer::<app::App>::new().render();
}

/// Mounts the viewer's page on `<body>` (the `evalpage-view` bundle).
pub fn start_viewer() {
    yew::Renderer::<view_page::ViewerPage>::new().render();
}
