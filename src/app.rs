//! The one page: state, URL parameters, and wiring between panels and effects.
//! Served at `/` and `/eval`. Two modes share the header: the RAG check (this
//! file) and the task mode (`task_app`), chosen by tab or `?mode=task`.

use crate::components::{
    case_table::CaseTable, console::ConsolePanel, dataset_panel::DatasetPanel,
    downloads::Downloads, error_summary::ErrorSummary, header::Header, metrics::MetricsPanel,
    model_panel::ModelPanel, reconcile_view::ReconcileView, resume_banner::ResumeBanner,
    resume_log::ResumeLog, run_controls::RunControls,
};
use crate::effects::{files, storage, url};
use crate::launch;
use crate::launch::rag::{self as rag_launch, RagLaunch, RagSlot};
use crate::launch::task::TaskSlot;
use crate::state::resume::Offers;
use crate::state::task_models::TaskRunSettings;
use crate::state::{AppAction, AppState, Mode, ModelSettings, TaskState};
use crate::task_app::TaskApp;
use evalpage_core::{demo, Lang};
use std::rc::Rc;
use yew::prelude::*;

/// Parses bytes into a dataset and hands it to the reducer.
fn load_bytes(state: &UseReducerHandle<AppState>, name: &str, bytes: &[u8]) {
    state.dispatch(AppAction::SetDataset(rag_launch::dataset(name, bytes)));
}

/// The application root.
#[component]
pub fn App() -> Html {
    let params = use_memo((), |_| url::read());
    let state = use_reducer(|| {
        let p = url::read();
        let (stored, keys) = storage::load();
        let mut settings = p.apply(stored);
        // The key field holds the key of the endpoint's own origin, or nothing.
        settings.api_key = url::origin(&settings.base_url)
            .and_then(|o| keys.get(&o).map(String::from))
            .unwrap_or_default();
        AppState {
            lang: p.lang.unwrap_or(Lang::Zh),
            settings: Rc::new(settings),
            keys: Rc::new(keys),
            ..AppState::default()
        }
    });
    let slot = use_memo((), |_| RagSlot::default());
    let autorun_done = use_mut_ref(|| false);
    let mode = use_state(|| params.mode.unwrap_or_default());
    let task_state = use_reducer(|| task_state(&params));
    let task_slot = use_memo((), |_| TaskSlot::default());
    let offers = use_reducer(Offers::default);
    let rag = RagLaunch {
        state: state.clone(),
        slot: (*slot).clone(),
        params: params.clone(),
        offers: offers.clone(),
    };

    {
        let (state, params) = (state.clone(), params.clone());
        use_effect_with((), move |_| match params.dataset.clone() {
            Some(u) => files::fetch_then(u, move |read| match read {
                Ok((name, bytes)) => load_bytes(&state, &name, &bytes),
                Err(e) => state.dispatch(AppAction::LoadFailed(Rc::from(e))),
            }),
            None => load_bytes(&state, demo::DATASET_NAME, demo::DATASET.as_bytes()),
        });
    }

    {
        let offers = offers.clone();
        use_effect_with((), move |_| launch::find_unfinished(&offers));
    }
    let on_start = {
        let rag = rag.clone();
        Callback::from(move |by_click: bool| rag_launch::start_checked(&rag, by_click, false))
    };
    let on_confirm_key = {
        let rag = rag.clone();
        Callback::from(move |_: ()| {
            let plain_http = rag
                .state
                .key_prompt
                .as_ref()
                .is_some_and(|p| p.plain_http_remote);
            rag_launch::start_checked(&rag, true, plain_http)
        })
    };
    let on_dismiss_key = {
        let state = state.clone();
        Callback::from(move |_: ()| state.dispatch(AppAction::PromptKey(None)))
    };
    let on_forget_keys = {
        let state = state.clone();
        Callback::from(move |_: ()| rag_launch::forget_keys(&state))
    };
    let on_pause = {
        let slot = (*slot).clone();
        Callback::from(move |paused: bool| slot.set_paused(paused))
    };
    let on_mode = {
        let mode = mode.clone();
        Callback::from(move |m: Mode| {
            url::set_mode(m);
            mode.set(m);
        })
    };
    let on_resume = {
        let (rag, on_mode) = (rag.clone(), on_mode.clone());
        Callback::from(move |run_id: String| launch::resume_picked(&rag, &run_id, &on_mode))
    };
    {
        let rag = rag.clone();
        let shown = (offers.pending.clone(), *mode);
        use_effect_with(shown, move |(_, mode)| {
            if *mode == Mode::Rag {
                launch::resume_pending(&rag);
            }
        });
    }
    let on_discard = {
        let offers = offers.clone();
        Callback::from(move |run_id: String| {
            if let Some(offer) = offers.get(&run_id) {
                launch::discard(&offers, &offer);
            }
        })
    };
    let on_resume_log = {
        let rag = rag.clone();
        Callback::from(move |file: web_sys::File| {
            let rag = rag.clone();
            files::read_then(file, move |read| match read {
                Ok((_, bytes)) => launch::resume_from_log(&rag, &bytes),
                Err(e) => rag.state.dispatch(AppAction::StartFailed(Rc::from(e))),
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
                on_start.emit(false);
            }
            let _ = &state;
        });
    }
    let on_cancel = {
        let slot = (*slot).clone();
        Callback::from(move |_: ()| slot.cancel())
    };
    let on_lang = {
        let s = state.clone();
        Callback::from(move |l| s.dispatch(AppAction::SetLang(l)))
    };
    let on_settings = {
        let s = state.clone();
        Callback::from(move |new: ModelSettings| rag_launch::edit_settings(&s, new))
    };
    let on_file = {
        let s = state.clone();
        Callback::from(move |file: web_sys::File| {
            let s = s.clone();
            files::read_then(file, move |read| match read {
                Ok((name, bytes)) => load_bytes(&s, &name, &bytes),
                Err(e) => s.dispatch(AppAction::LoadFailed(Rc::from(e))),
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
    if *mode == Mode::Task {
        return html! {
            <div class="page">
                <Header {lang} {on_lang} mode={*mode} on_mode={on_mode.clone()} />
                <main>
                    <TaskApp {lang} state={task_state} slot={(*task_slot).clone()} params={params.clone()}
                        offers={offers.clone()} on_mode={on_mode.clone()} />
                </main>
            </div>
        };
    }
    html! {
        <div class="page">
            <Header {lang} {on_lang} mode={*mode} {on_mode} />
            <main>
                <ResumeBanner {lang} offers={offers.list.clone()} disabled={running} {on_resume} {on_discard} />
                <section class="setup">
                    <DatasetPanel {lang} dataset={state.dataset.clone()} error={state.load_error.clone()}
                        disabled={running} {on_file} {on_demo} />
                    <ModelPanel {lang} settings={state.settings.clone()} disabled={running} on_change={on_settings}
                        key_origins={Rc::new(state.keys.origins())} on_forget_keys={on_forget_keys} />
                </section>
                <RunControls {lang} {status} progress={state.run.as_ref().map(|r| r.progress.clone())} error={state.start_error.clone()}
                    on_start={on_start.reform(|_| true)} {on_cancel} {on_pause} target={target_line(&state)}
                    key_prompt={state.key_prompt.clone()} on_confirm_key={on_confirm_key} on_dismiss_key={on_dismiss_key} />
                <MetricsPanel {lang} run={state.run.clone()} />
                <Downloads {lang} artifacts={state.artifacts.clone()} />
                <ErrorSummary {lang} run={state.run.clone()} artifacts={state.artifacts.clone()}
                    provider={state.settings.provider} base_url={state.settings.base_url.clone()} />
                <CaseTable {lang} run={state.run.clone()} />
                <ConsolePanel {lang} run={state.run.clone()} />
                <ResumeLog {lang} disabled={running} {on_resume_log} />
                <ReconcileView {lang} />
            </main>
        </div>
    }
}

/// Where the next run's requests go, shown beside Start: the endpoint's
/// origin and whether a key goes with them, or the offline demo model.
fn target_line(state: &AppState) -> Option<Rc<crate::state::keys::TargetLine>> {
    let s = &state.settings;
    let line = match s.provider {
        crate::state::Provider::Demo => crate::state::keys::TargetLine::Offline,
        crate::state::Provider::Openai => {
            let t = url::target(&s.base_url)?;
            crate::state::keys::TargetLine::Endpoint {
                with_key: !s.api_key.trim().is_empty(),
                target: t,
            }
        }
    };
    Some(Rc::new(line))
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
