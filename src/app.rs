//! The one page: state, URL parameters, and wiring between panels and effects.
//! Served at `/` and `/eval`.

use crate::components::{
    case_table::CaseTable, console::ConsolePanel, dataset_panel::DatasetPanel,
    downloads::Downloads, error_summary::ErrorSummary, header::Header, metrics::MetricsPanel,
    model_panel::ModelPanel, reconcile_view::ReconcileView, resume_banner::ResumeBanner,
    run_controls::RunControls,
};
use crate::effects::runner::RunHandle;
use crate::effects::{files, storage, url};
use crate::launch::{self, Takeover};
use crate::state::{AppAction, AppState, ModelSettings};
use evalpage_core::{demo, Lang};
use std::rc::Rc;
use yew::prelude::*;

/// Parses bytes into a dataset and hands it to the reducer.
fn load_bytes(state: &UseReducerHandle<AppState>, name: &str, bytes: &[u8]) {
    state.dispatch(AppAction::SetDataset(launch::dataset(name, bytes)));
}

/// The application root.
#[component]
pub fn App() -> Html {
    let params = use_memo((), |_| url::read());
    let state = use_reducer(|| {
        let p = url::read();
        AppState {
            lang: p.lang.unwrap_or(Lang::Zh),
            settings: Rc::new(p.apply(storage::load())),
            ..AppState::default()
        }
    });
    let handle = use_mut_ref(|| None::<RunHandle>);
    let autorun_done = use_mut_ref(|| false);

    {
        let (state, params) = (state.clone(), params.clone());
        use_effect_with((), move |_| match params.dataset.clone() {
            Some(u) => wasm_bindgen_futures::spawn_local(async move {
                match files::fetch_url(&u).await {
                    Ok((name, bytes)) => load_bytes(&state, &name, &bytes),
                    Err(e) => state.dispatch(AppAction::LoadFailed(Rc::from(e))),
                }
            }),
            None => load_bytes(&state, demo::DATASET_NAME, demo::DATASET.as_bytes()),
        });
    }

    {
        let state = state.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(launch::find_unfinished(state))
        });
    }
    let on_start = {
        let (state, handle, params) = (state.clone(), handle.clone(), params.clone());
        Callback::from(move |_: ()| {
            let fresh = Takeover {
                run_id: None,
                started_at_ms: None,
                prior: Vec::new(),
                replace: false,
            };
            launch::start(
                &state,
                &handle,
                &params,
                state.dataset.clone(),
                state.settings.clone(),
                fresh,
            )
        })
    };
    let on_pause = {
        let handle = handle.clone();
        Callback::from(move |paused: bool| {
            if let Some(h) = handle.borrow().as_ref() {
                h.set_paused(paused);
            }
        })
    };
    let on_resume = {
        let (state, handle, params) = (state.clone(), handle.clone(), params.clone());
        Callback::from(move |_: ()| {
            if let Some(offer) = state.resume_offer.clone() {
                launch::resume_offer(&state, &handle, &params, &offer);
            }
        })
    };
    let on_discard = {
        let state = state.clone();
        Callback::from(move |_: ()| {
            if let Some(offer) = state.resume_offer.clone() {
                launch::discard(&state, &offer);
            }
        })
    };
    let on_resume_log = {
        let (state, handle, params) = (state.clone(), handle.clone(), params.clone());
        Callback::from(move |file: web_sys::File| {
            let (state, handle, params) = (state.clone(), handle.clone(), params.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match files::read(file).await {
                    Ok((_, bytes)) => launch::resume_from_log(&state, &handle, &params, &bytes),
                    Err(e) => state.dispatch(AppAction::StartFailed(Rc::from(e))),
                }
            });
        })
    };
    {
        let (state, on_start, done) = (state.clone(), on_start.clone(), autorun_done.clone());
        use_effect_with(state.dataset.clone(), move |d| {
            if d.is_some() && params.autorun && !*done.borrow() {
                *done.borrow_mut() = true;
                on_start.emit(());
            }
            let _ = &state;
        });
    }
    let on_cancel = {
        let handle = handle.clone();
        Callback::from(move |_: ()| {
            if let Some(h) = handle.borrow().as_ref() {
                h.cancel();
            }
        })
    };
    let on_lang = {
        let s = state.clone();
        Callback::from(move |l| s.dispatch(AppAction::SetLang(l)))
    };
    let on_settings = {
        let s = state.clone();
        Callback::from(move |new: ModelSettings| {
            storage::save(&new);
            s.dispatch(AppAction::SetSettings(Rc::new(new)));
        })
    };
    let on_file = {
        let s = state.clone();
        Callback::from(move |file: web_sys::File| {
            let s = s.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match files::read(file).await {
                    Ok((name, bytes)) => load_bytes(&s, &name, &bytes),
                    Err(e) => s.dispatch(AppAction::LoadFailed(Rc::from(e))),
                }
            });
        })
    };
    let on_demo = {
        let s = state.clone();
        Callback::from(move |_: ()| load_bytes(&s, demo::DATASET_NAME, demo::DATASET.as_bytes()))
    };

    let lang = state.lang;
    let status = state.status();
    let running = status == crate::state::RunStatus::Running;
    html! {
        <div class="page">
            <Header {lang} on_lang={on_lang} />
            <main>
                if state.resume_offer.is_some() {
                    <ResumeBanner {lang} offer={state.resume_offer.clone()} disabled={running}
                        on_resume={on_resume.clone()} on_discard={on_discard.clone()} on_resume_log={on_resume_log.clone()} />
                }
                <section class="setup">
                    <DatasetPanel {lang} dataset={state.dataset.clone()} error={state.load_error.clone()}
                        disabled={running} {on_file} {on_demo} />
                    <ModelPanel {lang} settings={state.settings.clone()} disabled={running} on_change={on_settings} />
                </section>
                <RunControls {lang} {status} run={state.run.clone()} error={state.start_error.clone()}
                    {on_start} {on_cancel} {on_pause} />
                <MetricsPanel {lang} run={state.run.clone()} />
                <Downloads {lang} artifacts={state.artifacts.clone()} />
                <ErrorSummary {lang} run={state.run.clone()} artifacts={state.artifacts.clone()}
                    provider={state.settings.provider} base_url={state.settings.base_url.clone()} />
                <CaseTable {lang} run={state.run.clone()} />
                <ConsolePanel {lang} run={state.run.clone()} />
                <ResumeBanner {lang} offer={None} disabled={running} {on_resume} {on_discard} {on_resume_log} />
                <ReconcileView {lang} />
            </main>
        </div>
    }
}
