//! The one page: state, URL parameters, and wiring between panels and effects.
//! Served at `/` and `/eval`. Two modes share the header: the RAG check (this
//! file) and the task mode (`task_app`), chosen by tab or `?mode=task`.

use crate::components::{
    case_table::CaseTable, console::ConsolePanel, dataset_panel::DatasetPanel,
    downloads::Downloads, error_summary::ErrorSummary, header::Header, metrics::MetricsPanel,
    model_panel::ModelPanel, reconcile_view::ReconcileView, resume_banner::ResumeBanner,
    run_controls::RunControls,
};
use crate::effects::runner::RunHandle;
use crate::effects::{files, storage, url};
use crate::launch::{self, Takeover};
use crate::state::task_models::TaskRunSettings;
use crate::state::{AppAction, AppState, Mode, ModelSettings, TaskState};
use crate::task_app::TaskApp;
use crate::task_launch::TaskHandle;
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
    let mode = use_state(|| params.mode.unwrap_or_default());
    let task_state = use_reducer(|| task_state(&params));
    let task_handle = use_memo((), |_| TaskHandle::default());

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
        let (state, task_state) = (state.clone(), task_state.clone());
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(launch::find_unfinished(state));
            wasm_bindgen_futures::spawn_local(crate::task_launch::find_unfinished(task_state));
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
        let params = params.clone();
        use_effect_with(state.dataset.clone(), move |d| {
            let rag = params.mode != Some(Mode::Task);
            if d.is_some() && params.autorun && rag && !*done.borrow() {
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

    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |m: Mode| {
            url::set_mode(m);
            mode.set(m);
        })
    };
    let lang = state.lang;
    let status = state.status();
    let running = status == crate::state::RunStatus::Running;
    if *mode == Mode::Task {
        return html! {
            <div class="page">
                <Header {lang} {on_lang} mode={*mode} {on_mode} />
                <main>
                    <TaskApp {lang} state={task_state} handle={(*task_handle).clone()} params={params.clone()} />
                </main>
            </div>
        };
    }
    html! {
        <div class="page">
            <Header {lang} {on_lang} mode={*mode} {on_mode} />
            <main>
                if state.resume_offer.is_some() {
                    <ResumeBanner {lang} offer={state.resume_offer.as_ref().map(|o| Rc::from(o.summary(lang)))} disabled={running}
                        on_resume={on_resume.clone()} on_discard={on_discard.clone()} on_resume_log={on_resume_log.clone()} />
                }
                <section class="setup">
                    <DatasetPanel {lang} dataset={state.dataset.clone()} error={state.load_error.clone()}
                        disabled={running} {on_file} {on_demo} />
                    <ModelPanel {lang} settings={state.settings.clone()} disabled={running} on_change={on_settings} />
                </section>
                <RunControls {lang} {status} progress={state.run.as_ref().map(|r| r.progress())} error={state.start_error.clone()}
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

/// The task mode's first state: the preset of `?task=` (else the default)
/// and the scheduling of `?concurrency=` and `?demo_latency=`.
fn task_state(params: &url::PageParams) -> TaskState {
    let mut s = TaskState::with_preset(params.task.as_deref().unwrap_or_default());
    let d = TaskRunSettings::default();
    s.settings = TaskRunSettings {
        concurrency: params.concurrency.map_or(d.concurrency, |c| c.clamp(1, 64)),
        mock_latency: params.demo_latency.map_or(d.mock_latency, |l| l.max(0.0)),
        ..d
    };
    s
}
