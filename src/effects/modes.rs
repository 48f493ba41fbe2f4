//! The page's modes as separate Wasm bundles (one bin per mode, `src/bin/`),
//! loaded into this one document by `www/init.js`: each mode's root is mounted
//! on its own element, `#evalpage-<mode>`, and the URL is what they share. A
//! mode is opened by writing `?mode=` (and `lang`) into the URL and firing
//! `evalpage-open` on the window; `init.js` loads that mode's bundle the first
//! time (showing that it loads, and a retry when it fails) and fires
//! `evalpage-show`, on which every loaded mode reads the URL and shows itself
//! when it is the URL's mode, or hides (keeping its state and its run).

use crate::effects::url;
use crate::state::Mode;
use evalpage_core::Lang;
use evalpage_core::RunKind;
use gloo_events::EventListener;
use yew::Callback;

/// The event `init.js` listens to: open the URL's mode.
const OPEN: &str = "evalpage-open";
/// The event `init.js` fires when the URL's mode is to show.
const SHOW: &str = "evalpage-show";

/// The element a mode's root is mounted on (made by `init.js`); `None` when
/// the page was not booted by it (the Wasm tests mount where they like).
pub fn root(mode: Mode) -> Option<web_sys::Element> {
    web_sys::window()?
        .document()?
        .get_element_by_id(&format!("evalpage-{}", mode.code()))
}

/// The mode the page was opened in (`init.js` notes it on `<html>`): the URL
/// parameters other than `mode` and `lang` are that mode's (a share link, a
/// dataset to fetch), not a mode opened later's.
pub fn first() -> Option<Mode> {
    let root = web_sys::window()?.document()?.document_element()?;
    Mode::parse(&root.get_attribute("data-evalpage-first-mode")?)
}

/// The URL's mode (the RAG check when it names none).
pub fn current() -> Mode {
    url::get("mode")
        .and_then(|m| Mode::parse(&m))
        .unwrap_or_default()
}

/// Opens `mode` in this page with the language `lang`: the URL says so and
/// `init.js` loads the mode's bundle if it is not loaded yet. The modes
/// already loaded keep their state.
pub fn open(mode: Mode, lang: Lang) {
    let mut pairs = vec![("lang", lang.code().to_string())];
    if mode != Mode::Run(RunKind::Rag) {
        pairs.push(("mode", mode.code().to_string()));
    }
    url::set_params(&["mode", "lang"], &pairs);
    if let Some(w) = web_sys::window() {
        if let Ok(e) = web_sys::Event::new(OPEN) {
            let _ = w.dispatch_event(&e);
        }
    }
}

/// Asks the mode that opens next to resume the run `run_id` (an offer
/// picked in another mode): kept in the URL until that mode takes it.
pub fn resume_next(run_id: &str) {
    url::set_params(&["resume"], &[("resume", run_id.to_string())]);
}

/// The run the URL asks this mode to resume, taken out of the URL.
pub fn take_resume() -> Option<String> {
    let id = url::get("resume")?;
    url::set_params(&["resume"], &[]);
    Some(id)
}

/// Calls `then` on each `evalpage-show` (drop the listener to stop).
pub fn on_show(then: Callback<()>) -> Option<EventListener> {
    let w = web_sys::window()?;
    Some(EventListener::new(&w, SHOW, move |_| then.emit(())))
}
