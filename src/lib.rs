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
pub mod split;
pub mod state;
pub mod task;
pub mod view_page;
pub mod viewer;

/// A split module that did not load (its fetch failed; the next call of its
/// point tries again).
#[derive(Debug)]
pub struct NotLoaded;

impl From<wasm_split_helpers::SplitLoaderError> for NotLoaded {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> NotLoaded {
        NotLoaded
    }
}

/// Unicode NFKC by the browser (`String.prototype.normalize`): the core's
/// matchers fold text with it, so the page carries no normalization tables.
pub fn nfkc(s: &str) -> String {
    js_sys::JsString::from(s).normalize("NFKC").into()
}
