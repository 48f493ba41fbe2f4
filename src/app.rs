//! The page's router: the header with the mode switch and the language, the
//! mode kept in the URL (`?mode=task`), and the state both modes share (the
//! unfinished runs offered after a reload). Served at `/` and `/eval`. Each
//! mode lives in its folder: `rag` (the RAG check), `task` (task runs) and
//! `retrieval` (spec 000's retrieval evaluation) and `dialog` (spec 001's
//! multi-turn dialogs);
//! their state and runs are kept for the whole page load, so switching modes
//! loses nothing. The viewer (`?mode=view`) is not here: it is its own Wasm
//! bundle (`view_page.rs`, `src/bin/view.rs`), opened by a new page load.

use crate::components::header::{use_document_lang, Header};
use crate::dialog::{use_dialog, DialogApp};
use crate::effects::url;
use crate::launch;
use crate::rag::{use_rag, RagApp};
use crate::retrieval::{use_retrieval, RetrievalApp};
use crate::state::resume::Offers;
use crate::state::{AppAction, Mode, RunStatus};
use crate::task::{use_task, TaskApp};
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
    let retrieval = use_retrieval(offers.clone(), rag.state.clone());
    let dialog = use_dialog(offers.clone(), rag.state.clone());
    let lang = rag.state.lang;
    use_document_lang(lang);
    let on_lang = {
        let s = rag.state.clone();
        Callback::from(move |l| s.dispatch(AppAction::SetLang(l)))
    };
    // A run going in any mode: opening the viewer (a new page load) stops it.
    let live = rag.state.status() == RunStatus::Running
        || task_state.status() == RunStatus::Running
        || retrieval.state.running()
        || dialog.state.running();
    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |m: Mode| {
            if m == Mode::View {
                // The viewer is its own bundle: a new page load.
                let leave = !live
                    || url::confirm_leave(lang.pick(
                        "打开查看器会停止正在进行的运行（RAG 与任务运行可在重新打开后继续）。继续？",
                        "Opening the viewer stops the run in progress (RAG and task runs can be resumed afterwards). Open it?",
                    ));
                if leave {
                    url::open_mode(m, lang);
                }
            } else {
                url::set_mode(m);
                mode.set(m);
            }
        })
    };
    // *Reuse answers from earlier runs*: read by each run when it starts.
    let reuse = use_state(crate::effects::cache::enabled);
    let on_reuse = {
        let reuse = reuse.clone();
        Callback::from(move |on: bool| {
            crate::effects::cache::set_enabled(on);
            reuse.set(on);
        })
    };
    let body = match *mode {
        Mode::Rag => html! { <RagApp {rag} on_mode={on_mode.clone()} /> },
        Mode::Task => html! {
            <TaskApp {lang} state={task_state} slot={task_slot} {params}
                offers={offers.clone()} on_mode={on_mode.clone()} />
        },
        Mode::Retrieval => {
            html! { <RetrievalApp {lang} mode={retrieval} on_mode={on_mode.clone()} /> }
        }
        Mode::Dialog => html! { <DialogApp {lang} mode={dialog} on_mode={on_mode.clone()} /> },
        // www/init.js loads the viewer's own bundle for `?mode=view`; this
        // bundle only gets here when that bundle is missing from the build.
        Mode::View => html! {
            <p class="error" role="alert">{lang.pick(
                "此构建缺少查看器（evalpage-view）：请用 trunk build 重新构建。",
                "This build has no viewer bundle (evalpage-view): rebuild with trunk build.")}</p>
        },
    };
    html! {
        <div class="page">
            <Header {lang} {on_lang} mode={*mode} {on_mode} reuse={Some((*reuse, on_reuse))} />
            <main>{body}</main>
        </div>
    }
}
