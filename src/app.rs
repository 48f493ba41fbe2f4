//! The page's router: the header with the mode switch and the language, the
//! mode kept in the URL (`?mode=task`), and the state both modes share (the
//! unfinished runs offered after a reload). Served at `/` and `/eval`. Each
//! mode lives in its folder: `rag` (the RAG check), `task` (task runs) and
//! `retrieval` (spec 000's retrieval evaluation) and `dialog` (spec 001's
//! multi-turn dialogs);
//! their state and runs are kept for the whole page load, so switching modes
//! loses nothing.

use crate::components::header::Header;
use crate::dialog::{use_dialog, DialogApp};
use crate::effects::url;
use crate::launch;
use crate::rag::{use_rag, RagApp};
use crate::retrieval::{use_retrieval, RetrievalApp};
use crate::state::resume::Offers;
use crate::state::{AppAction, Mode};
use crate::task::{use_task, TaskApp};
use crate::viewer::{use_viewer, ViewerApp};
use yew::prelude::*;

/// The application root.
#[component]
pub fn App() -> Html {
    let params = use_memo((), |_| url::read());
    let mode = use_state(|| params.mode.unwrap_or_default());
    let offers = use_reducer(Offers::default);
    {
        let offers = offers.clone();
        use_effect_with((), move |_| launch::find_unfinished(&offers));
    }
    let rag = use_rag(params.clone(), offers.clone());
    let (task_state, task_slot) = use_task(params.clone());
    let retrieval = use_retrieval();
    let dialog = use_dialog();
    let viewer = use_viewer();
    let lang = rag.state.lang;
    // `<html lang>` follows the language shown, so screen readers pronounce it right.
    use_effect_with(lang, |l| {
        if let Some(root) = document_root() {
            let _ = root.set_attribute("lang", l.code());
        }
    });
    let on_lang = {
        let s = rag.state.clone();
        Callback::from(move |l| s.dispatch(AppAction::SetLang(l)))
    };
    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |m: Mode| {
            url::set_mode(m);
            mode.set(m);
        })
    };
    let body = match *mode {
        Mode::Rag => html! { <RagApp {rag} on_mode={on_mode.clone()} /> },
        Mode::Task => html! {
            <TaskApp {lang} state={task_state} slot={task_slot} {params}
                offers={offers.clone()} on_mode={on_mode.clone()} />
        },
        Mode::Retrieval => html! { <RetrievalApp {lang} mode={retrieval} /> },
        Mode::Dialog => html! { <DialogApp {lang} mode={dialog} /> },
        Mode::View => html! { <ViewerApp {lang} state={viewer} /> },
    };
    html! {
        <div class="page">
            <Header {lang} {on_lang} mode={*mode} {on_mode} />
            <main>{body}</main>
        </div>
    }
}

/// The document's root element (`<html>`).
fn document_root() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}
