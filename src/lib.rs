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

/// The code a bin fetches after its first load: the loaders of the
/// wasm-split points it declares with [`split_point!`] (none in the viewer).
/// Each is named after its point.
#[derive(Default)]
pub struct Splits {
    /// `run`: what runs the bin's mode ([`launch::run_code`]).
    pub run: Option<launch::RunCode>,
    /// `zip`: what makes a finished run's zip (`archive::zip_files`).
    pub zip: Option<split::Loader<components::zip_button::Zipper>>,
    /// `judges`: what makes the dialog judge's prompts (the dialog mode's bin).
    pub judges: Option<split::Loader<dialog::judges::PromptMaker>>,
    /// `task_code`: what checks a task and renders its prompts (the task
    /// mode's bin).
    pub task_code: Option<split::Loader<task::state::code::TaskCode>>,
}

/// A split module that did not load (its fetch failed; the next call of its
/// point tries again).
#[derive(Debug)]
pub struct NotLoaded;

impl From<wasm_split_helpers::SplitLoaderError> for NotLoaded {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> NotLoaded {
        NotLoaded
    }
}

/// Mounts the root `C` of the bundle of `mode` on the element `www/init.js`
/// made for it (on `<body>` when there is none), with the bin's split points.
pub fn start<C: yew::BaseComponent<Properties = ()>>(mode: state::Mode, splits: Splits) {
    evalpage_core::use_nfkc(nfkc);
    components::zip_button::set_loader(splits.zip);
    dialog::judges::set_loader(splits.judges);
    launch::set_run_code(splits.run);
    task::code::set_loader(splits.task_code);
    match effects::modes::root(mode) {
        Some(root) => yew::Renderer::<C>::with_root(root).render(),
        None => yew::Renderer::<C>::new().render(),
    };
}

/// Unicode NFKC by the browser (`String.prototype.normalize`): the core's
/// matchers fold text with it, so the page carries no normalization tables.
pub fn nfkc(s: &str) -> String {
    js_sys::JsString::from(s).normalize("NFKC").into()
}
