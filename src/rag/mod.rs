//! The RAG check (spec 002): its top component, the hook that keeps its state
//! and run for the whole page load, its launch glue (`launch`) and its own
//! panels. Shared panels (run controls, resume banner, reconcile) are in
//! `components/`.

pub mod case_table;
pub mod console;
pub mod dataset_panel;
pub mod downloads;
pub mod error_summary;
pub mod launch;
pub mod metrics;
pub mod model_panel;
pub mod run;
pub mod share;
pub mod state;

use self::launch::{RagLaunch, RagSlot};
use crate::components::{
    reconcile_view::ReconcileView, resume_banner::ResumeBanner, resume_log::ResumeLog,
    run_controls::RunControls, share_link::ShareLink,
};
use crate::effects::{files, local_model, url};
use crate::launch as run_launch;
use crate::state::keys::TargetLine;
use crate::state::resume::Offers;
use crate::state::{Mode, ModelSettings, Provider, RunStatus, ShellState};
use case_table::CaseTable;
use console::ConsolePanel;
use dataset_panel::DatasetPanel;
use downloads::Downloads;
use error_summary::ErrorSummary;
use evalpage_core::demo;
use evalpage_core::RunKind;
use metrics::MetricsPanel;
use model_panel::ModelPanel;
use share::DatasetSource;
use state::{RagAction, RagState};
use std::rc::Rc;
use yew::prelude::*;

/// Parses bytes into a dataset and hands it to the reducer.
fn load_bytes(state: &UseReducerHandle<RagState>, name: &str, bytes: &[u8]) {
    state.dispatch(RagAction::SetDataset(launch::dataset(name, bytes)));
}

/// The RAG check's state and run, kept for the whole page load (switching
/// modes does not lose them): loads `?dataset=` (else the demo; in task mode
/// that parameter is the task's) once, and
/// starts the run once it is loaded when `?autorun=1` asks (never sending a
/// key by itself).
#[hook]
pub fn use_rag(
    params: Rc<url::PageParams>,
    shell: UseReducerHandle<ShellState>,
    offers: UseReducerHandle<Offers>,
) -> RagLaunch {
    let state = use_reducer(|| launch::first_state(&params, &shell.keys));
    let slot = use_memo((), |_| RagSlot::default());
    let autorun_done = use_mut_ref(|| false);
    let rag = RagLaunch {
        state: state.clone(),
        shell,
        slot: (*slot).clone(),
        params: params.clone(),
        offers,
    };
    {
        let (state, params) = (state.clone(), params.clone());
        // In task mode `?dataset=` is the task's dataset (see `task::use_task`).
        let wanted = (params.mode != Some(Mode::Run(RunKind::Task)))
            .then(|| params.dataset.clone())
            .flatten();
        use_effect_with((), move |_| match wanted {
            Some(u) => files::fetch_then(u.clone(), move |read| match read {
                Ok((name, bytes)) => {
                    let mut d = (*launch::dataset(&name, &bytes)).clone();
                    d.url = Some(Rc::from(u.as_str()));
                    state.dispatch(RagAction::SetDataset(Rc::new(d)));
                }
                Err(e) => state.dispatch(RagAction::LoadFailed(Rc::from(e))),
            }),
            None => load_bytes(&state, demo::DATASET_NAME, demo::DATASET.as_bytes()),
        });
    }
    {
        let (rag, done) = (rag.clone(), autorun_done);
        use_effect_with(state.dataset.clone(), move |d| {
            let here = rag.params.mode != Some(Mode::Run(RunKind::Task));
            if d.is_some() && rag.params.autorun && here && !*done.borrow() {
                *done.borrow_mut() = true;
                launch::start_checked(&rag, false, false);
            }
        });
    }
    rag
}

/// RAG mode props.
#[derive(Properties, PartialEq)]
pub struct RagAppProps {
    /// The mode's state, run and offers (kept by the app).
    pub rag: RagLaunch,
    /// Switch mode (to resume a run of the other mode).
    pub on_mode: Callback<Mode>,
}

/// Where the next run's requests go, shown beside Start: the endpoint's
/// origin and whether a key goes with them, or the offline demo model.
fn target_line(state: &RagState) -> Option<Rc<TargetLine>> {
    let s = &state.settings;
    let line = match s.provider {
        Provider::Demo => TargetLine::Offline,
        Provider::Local => TargetLine::InPage,
        Provider::Openai => TargetLine::Endpoint {
            with_key: !s.api_key.trim().is_empty(),
            target: url::target(&s.base_url)?,
        },
    };
    Some(Rc::new(line))
}

/// The RAG check.
#[component]
pub fn RagApp(p: &RagAppProps) -> Html {
    let rag = &p.rag;
    let state = &rag.state;
    {
        let rag = rag.clone();
        use_effect_with(
            (rag.offers.pending.clone(), rag.offers.list.clone()),
            move |_| run_launch::resume_pending(&rag),
        );
    }
    let on_start = {
        let rag = rag.clone();
        Callback::from(move |_: ()| launch::start_checked(&rag, true, false))
    };
    let on_confirm_key = {
        let rag = rag.clone();
        Callback::from(move |_: ()| {
            let plain_http = rag.state.key_prompt.as_ref();
            let plain_http = plain_http.is_some_and(|p| p.plain_http_remote);
            launch::start_checked(&rag, true, plain_http)
        })
    };
    let on_dismiss_key = {
        let state = state.clone();
        Callback::from(move |_: ()| state.dispatch(RagAction::PromptKey(None)))
    };
    let on_forget_keys = {
        let rag = rag.clone();
        Callback::from(move |_: ()| launch::forget_keys(&rag))
    };
    let on_pause = {
        let slot = rag.slot.clone();
        Callback::from(move |paused: bool| slot.set_paused(paused))
    };
    let on_cancel = {
        let slot = rag.slot.clone();
        Callback::from(move |_: ()| slot.cancel())
    };
    let (on_resume, on_discard) = run_launch::offer_buttons(rag, &p.on_mode);
    let on_resume_log = {
        let rag = rag.clone();
        Callback::from(move |file: web_sys::File| {
            let rag = rag.clone();
            files::read_then(file, move |read| match read {
                Ok((_, bytes)) => run_launch::resume_from_log(&rag, &bytes),
                Err(e) => rag.state.dispatch(RagAction::StartFailed(Rc::from(e))),
            });
        })
    };
    let on_settings = {
        let rag = rag.clone();
        Callback::from(move |new: ModelSettings| launch::edit_settings(&rag, new))
    };
    let on_file = {
        let s = state.clone();
        Callback::from(move |file: web_sys::File| {
            let s = s.clone();
            files::read_then(file, move |read| match read {
                Ok((name, bytes)) => load_bytes(&s, &name, &bytes),
                Err(e) => s.dispatch(RagAction::LoadFailed(Rc::from(e))),
            });
        })
    };
    let on_local = {
        let s = state.clone();
        local_model::picker(Callback::from(move |l| s.dispatch(RagAction::SetLocal(l))))
    };
    let on_local_file = on_local.reform(local_model::Source::File);
    let on_local_url = on_local.reform(local_model::Source::Url);
    let on_demo = {
        let s = state.clone();
        Callback::from(move |_: ()| load_bytes(&s, demo::DATASET_NAME, demo::DATASET.as_bytes()))
    };
    let lang = rag.shell.lang;
    let status = state.status();
    let running = matches!(status, RunStatus::Running | RunStatus::Waiting);
    let source = state
        .dataset
        .as_ref()
        .map_or(DatasetSource::None, |d| d.source());
    let share = Rc::new(share::rag(&state.settings, &source, lang));
    html! {
        <>
            <ResumeBanner {lang} offers={rag.offers.list.clone()} disabled={running} {on_resume} {on_discard} />
            <section class="setup">
                <DatasetPanel {lang} dataset={state.dataset.clone()} error={state.load_error.clone()}
                    disabled={running} {on_file} {on_demo} />
                <ModelPanel {lang} settings={state.settings.clone()} disabled={running} on_change={on_settings}
                    key_origins={Rc::new(rag.shell.keys.origins())} on_forget_keys={on_forget_keys}
                    local={state.local.clone()} {on_local_file} {on_local_url} />
            </section>
            <RunControls {lang} {status} progress={state.run.as_ref().map(|r| r.progress.clone())} error={state.start_error.clone()}
                {on_start} {on_cancel} {on_pause} target={target_line(state)}
                key_prompt={state.key_prompt.clone()} on_confirm_key={on_confirm_key} on_dismiss_key={on_dismiss_key} />
            <ShareLink {lang} spec={share} />
            <MetricsPanel {lang} run={state.run.clone()} />
            <Downloads {lang} artifacts={state.artifacts.clone()} />
            <crate::components::usage_table::UsageTable {lang} report={state.artifacts.as_ref().map(|a| a.report.clone())} />
            <ErrorSummary {lang} run={state.run.clone()} artifacts={state.artifacts.clone()}
                provider={state.settings.provider} base_url={state.settings.base_url.clone()} />
            <CaseTable {lang} run={state.run.clone()} />
            <ConsolePanel {lang} run={state.run.clone()} />
            <ResumeLog {lang} disabled={running} {on_resume_log} />
            <ReconcileView {lang} />
        </>
    }
}

/// The RAG check's root (the `evalpage-web` bundle).
#[component]
pub fn RagRoot() -> Html {
    let shell = crate::app::use_shell(Mode::Run(RunKind::Rag));
    let rag = use_rag(
        shell.params.clone(),
        shell.state.clone(),
        shell.offers.clone(),
    );
    shell.page(html! { <RagApp {rag} on_mode={shell.on_mode.clone()} /> })
}
