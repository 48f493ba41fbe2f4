//! The one page: state, URL parameters, and wiring between panels and effects.
//! Served at `/` and `/eval`.

use crate::components::{
    case_table::CaseTable, console::ConsolePanel, dataset_panel::DatasetPanel,
    downloads::Downloads, error_summary::ErrorSummary, header::Header, metrics::MetricsPanel,
    model_panel::ModelPanel, run_controls::RunControls,
};
use crate::effects::runner::{RunHandle, RunUpdate, Transport};
use crate::effects::{files, now_ms, storage, url};
use crate::state::{AppAction, AppState, LoadedDataset, ModelSettings, Provider};
use evalpage_core::dataset::rag;
use evalpage_core::run::{RunConfig, RunInfo};
use evalpage_core::{demo, Lang};
use serde_json::json;
use std::rc::Rc;
use yew::prelude::*;

/// Parses bytes into a dataset and hands it to the reducer.
fn load_bytes(state: &UseReducerHandle<AppState>, name: &str, bytes: &[u8], is_demo: bool) {
    let parsed = rag::parse(name, bytes);
    state.dispatch(AppAction::SetDataset(Rc::new(LoadedDataset {
        parsed,
        is_demo,
    })));
}

/// The run configuration for the current page state.
fn run_config(
    s: &ModelSettings,
    lang: Lang,
    dataset: &LoadedDataset,
    params: &url::PageParams,
) -> RunConfig {
    let started = now_ms();
    let demo = s.provider == Provider::Demo;
    let mut argv = vec![format!("provider={}", s.provider.code())];
    if params.autorun {
        argv.push("autorun=1".into());
    }
    RunConfig {
        info: RunInfo {
            run_id: format!(
                "eval_rag-{started}-{:x}",
                (js_sys::Math::random() * 65536.0) as u32
            ),
            tool: "evalpage-web".into(),
            started_at_ms: started,
            lang,
            backend: s.provider.code().into(),
            model: if demo {
                demo::MODEL_NAME.into()
            } else {
                s.model.trim().into()
            },
            endpoint: (!demo).then(|| evalpage_core::provider::strip_query(s.base_url.trim())),
            parameters: json!({ "temperature": s.temperature, "max_tokens": s.max_tokens }),
            dataset_name: dataset.parsed.name.clone(),
            dataset_line_errors: dataset.parsed.errors.len(),
            argv,
        },
        settings: s.run_settings(started),
        scoring: s.scoring(),
        system_prompt: s.system_prompt.clone(),
    }
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
                    Ok((name, bytes)) => load_bytes(&state, &name, &bytes, false),
                    Err(e) => state.dispatch(AppAction::LoadFailed(Rc::from(e))),
                }
            }),
            None => load_bytes(&state, demo::DATASET_NAME, demo::DATASET.as_bytes(), true),
        });
    }

    let on_start = {
        let (state, handle, params) = (state.clone(), handle.clone(), params.clone());
        Callback::from(move |_: ()| start(&state, &handle, &params))
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
                    Ok((name, bytes)) => load_bytes(&s, &name, &bytes, false),
                    Err(e) => s.dispatch(AppAction::LoadFailed(Rc::from(e))),
                }
            });
        })
    };
    let on_demo = {
        let s = state.clone();
        Callback::from(move |_: ()| {
            load_bytes(&s, demo::DATASET_NAME, demo::DATASET.as_bytes(), true)
        })
    };

    let lang = state.lang;
    let status = state.status();
    let running = status == crate::state::RunStatus::Running;
    html! {
        <div class="page">
            <Header {lang} on_lang={on_lang} />
            <main>
                <section class="setup">
                    <DatasetPanel {lang} dataset={state.dataset.clone()} error={state.load_error.clone()}
                        disabled={running} {on_file} {on_demo} />
                    <ModelPanel {lang} settings={state.settings.clone()} disabled={running} on_change={on_settings} />
                </section>
                <RunControls {lang} {status} run={state.run.clone()} error={state.start_error.clone()}
                    {on_start} {on_cancel} />
                <MetricsPanel {lang} run={state.run.clone()} />
                <Downloads {lang} artifacts={state.artifacts.clone()} />
                <ErrorSummary {lang} run={state.run.clone()} artifacts={state.artifacts.clone()}
                    provider={state.settings.provider} base_url={state.settings.base_url.clone()} />
                <CaseTable {lang} run={state.run.clone()} />
                <ConsolePanel {lang} run={state.run.clone()} />
            </main>
        </div>
    }
}

/// Validates and starts a run; a problem shows as a failed start with the reason.
fn start(
    state: &UseReducerHandle<AppState>,
    handle: &Rc<std::cell::RefCell<Option<RunHandle>>>,
    params: &url::PageParams,
) {
    if handle.borrow().as_ref().is_some_and(RunHandle::is_running) {
        return;
    }
    let lang = state.lang;
    let fail =
        |zh: &str, en: &str| state.dispatch(AppAction::StartFailed(Rc::from(lang.pick(zh, en))));
    let Some(dataset) = state.dataset.clone() else {
        return fail("请先加载数据集", "Load a dataset first");
    };
    if dataset.parsed.cases.is_empty() {
        return fail("数据集中没有有效用例", "The dataset has no valid case");
    }
    let s = state.settings.clone();
    if let Some((zh, en)) = s.problem() {
        return fail(zh, en);
    }
    let cfg = run_config(&s, lang, &dataset, params);
    let transport = match s.provider {
        Provider::Demo => Transport::Demo(s.demo_latency_scale),
        Provider::Openai => Transport::OpenAi(s.openai_config()),
    };
    let st = state.clone();
    let on_update = Callback::from(move |u: RunUpdate| match u {
        RunUpdate::Progress(snap) => st.dispatch(AppAction::Progress(snap)),
        RunUpdate::Finished(snap, a) => st.dispatch(AppAction::Finished(snap, a)),
    });
    state.dispatch(AppAction::Started);
    *handle.borrow_mut() = Some(RunHandle::start(
        cfg,
        dataset.parsed.cases.clone(),
        transport,
        on_update,
    ));
}
