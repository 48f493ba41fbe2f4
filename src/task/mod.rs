//! The task mode (spec 004): its top component, the hook that keeps its
//! state and run for the whole page load (switching to the RAG check and back
//! keeps the task, its data and its run), its launch glue (`launch`) and its
//! own panels. Shared panels are in `components/`.

pub mod batch_panel;
pub mod code;
pub mod code_editor;
pub mod dataset_panel;
pub mod downloads;
pub mod editor;
pub mod endpoint_panel;
pub mod launch;
pub mod models_panel;
pub mod prompt_preview;
pub mod run;
pub mod sample_table;
pub mod share;
pub mod state;
pub mod summary;

use self::launch::{TaskLaunch, TaskSlot};
use crate::components::{
    resume_banner::ResumeBanner, resume_log::ResumeLog, run_controls::RunControls,
    share_link::ShareLink,
};
use crate::effects::{files, url};
use crate::launch as run_launch;
use crate::state::keys::TargetLine;
use crate::state::resume::Offers;
use crate::state::share::ShareSpec;
use crate::state::{Mode, ModelSettings, RunStatus};
use crate::task::state::data::{LoadedFile, LoadedMetadata};
use crate::task::state::models::{
    endpoint_name, EndpointModel, ModelSource, TaskRunSettings, MOCK_MODELS,
};
use crate::task::state::{DataAction, EditAction, ModelAction, RunAction, TaskAction, TaskState};
use batch_panel::TaskBatchPanel;
use dataset_panel::TaskDatasetPanel;
use downloads::TaskDownloads;
use editor::TaskEditor;
use endpoint_panel::EndpointPanel;
use evalpage_core::task::{ModelEntry, PRESETS};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use models_panel::TaskModelsPanel;
use prompt_preview::PromptPreview;
use sample_table::TaskSampleTable;
use std::collections::BTreeSet;
use std::rc::Rc;
use summary::TaskSummary;
use yew::prelude::*;

/// The task mode's first state: the preset of `?task=` (else the default),
/// the task and template inlined by a share link (`task_yaml`,
/// `task_template`: only texts to check, never run by themselves), the models
/// it ticks, the endpoint form, and the scheduling of `?concurrency=`,
/// `?demo_latency=`, `?timeout=` and `?attempts=`.
fn initial_state(params: &url::PageParams) -> TaskState {
    let mut s = TaskState::new(params.task.as_deref().unwrap_or_default(), None);
    let d = TaskRunSettings::default();
    s.run.settings = TaskRunSettings {
        concurrency: params.concurrency.map_or(d.concurrency, |c| c.clamp(1, 64)),
        mock_latency: params.demo_latency.map_or(d.mock_latency, |l| l.max(0.0)),
        timeout_s: params.timeout_s.map_or(d.timeout_s, |t| t.clamp(1, 600)),
        max_attempts: params.attempts.map_or(d.max_attempts, |a| a.clamp(1, 10)),
        truncated_as_failure: params
            .truncated_as_failure
            .unwrap_or(d.truncated_as_failure),
        keep_going_on_fatal: params.keep_going.unwrap_or(d.keep_going_on_fatal),
        repeats: d.repeats,
        max_cost: d.max_cost,
    };
    let e = &s.models.endpoint;
    s.models.endpoint = Rc::new(ModelSettings {
        base_url: params
            .endpoint
            .clone()
            .unwrap_or_else(|| e.base_url.clone()),
        model: params.model.clone().unwrap_or_else(|| e.model.clone()),
        temperature: params.temperature.unwrap_or(e.temperature),
        max_tokens: params.max_tokens.unwrap_or(e.max_tokens),
        api_key: String::new(),
        ..(**e).clone()
    });
    let mut s = Rc::new(s);
    // A shared text that cannot be read becomes a comment: the editor shows
    // it and the check reports the task as invalid, so nothing can run.
    let text = |r: &Result<String, String>| match r {
        Ok(t) => t.clone(),
        Err(e) => format!("# the shared link's task could not be read: {e}\n"),
    };
    let mut edited = false;
    if let Some(t) = &params.task_yaml {
        s = s.reduce(TaskAction::Edit(EditAction::EditTask(text(t))));
        edited = true;
    }
    if let Some(t) = &params.task_template {
        s = s.reduce(TaskAction::Edit(EditAction::EditTemplate(text(t))));
        edited = true;
    }
    if edited {
        s = s.reduce(TaskAction::Edit(EditAction::Check));
    }
    if let Some(models) = &params.models {
        for m in MOCK_MODELS {
            s = s.reduce(TaskAction::Models(ModelAction::Toggle(
                m.to_string(),
                models.iter().any(|n| n == m),
            )));
        }
    }
    for (model, base) in &params.endpoint_models {
        let Some(origin) = url::origin(base) else {
            continue;
        };
        if model.is_empty() {
            continue;
        }
        let entry = ModelEntry {
            name: endpoint_name(model, &origin, &s.models.choices),
            base_url: base.clone(),
            model: Some(model.clone()),
            api_key_env: None,
            default_params: Default::default(),
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        };
        s = s.reduce(TaskAction::Models(ModelAction::AddEndpoint(
            EndpointModel { entry, origin },
        )));
    }
    if let Some(j) = &params.judge {
        s = s.reduce(TaskAction::Models(ModelAction::SetJudge(j.clone())));
    }
    (*s).clone()
}

/// What a share link of the task mode is made of.
fn share_spec(state: &TaskState, lang: Lang) -> ShareSpec {
    let preset = state
        .editors
        .preset
        .and_then(|n| PRESETS.iter().find(|p| p.name == n));
    let ticked = state
        .models
        .choices
        .iter()
        .filter(|c| state.models.selected.contains(&c.name));
    let (mut mocks, mut endpoints, mut registry) = (Vec::new(), Vec::new(), Vec::new());
    for c in ticked {
        match &c.source {
            ModelSource::Mock => mocks.push(c.name.as_str()),
            ModelSource::Endpoint(e) => endpoints.push((
                e.entry.base_url.as_str(),
                e.entry.model.as_deref().unwrap_or(&c.name),
            )),
            ModelSource::Registry(_) => registry.push(c.name.as_str()),
            // A file on this device is not in a link: whoever opens it picks their own.
            ModelSource::InPage(_) => {}
        }
    }
    share::task(
        &share::TaskShare {
            preset: preset.map(|p| p.name),
            preset_yaml: preset.map(|p| p.yaml),
            task_text: &state.editors.task_text,
            template_text: &state.editors.template_text,
            file: state.data.file.as_deref(),
            dataset_url: state.data.dataset_url.as_deref(),
            mocks,
            endpoints,
            registry,
            endpoint: &state.models.endpoint,
            settings: state.run.settings,
            judge: &state.models.judge,
        },
        lang,
    )
}

/// Where the endpoint form's requests go: its origin, and whether the key
/// kept for that origin goes with them.
fn endpoint_target(state: &TaskState) -> Option<Rc<TargetLine>> {
    let e = &state.models.endpoint;
    Some(Rc::new(TargetLine::Endpoint {
        with_key: !e.api_key.trim().is_empty(),
        target: url::target(&e.base_url)?,
    }))
}

/// The task mode's state and run, kept for the whole page load; with
/// `?mode=task`, `?dataset=` is fetched once as the task's dataset.
#[hook]
pub fn use_task(params: Rc<url::PageParams>) -> (UseReducerHandle<TaskState>, TaskSlot) {
    let state = use_reducer(|| initial_state(&params));
    let slot = use_memo((), |_| TaskSlot::default());
    {
        let state = state.clone();
        let wanted = (params.mode == Some(Mode::Run(RunKind::Task)))
            .then(|| params.dataset.clone())
            .flatten();
        use_effect_with((), move |_| {
            code::fetch(state.clone());
            if let Some(u) = wanted {
                files::fetch_then(u.clone(), move |read| match read {
                    Ok((name, bytes)) => {
                        let file = Rc::new(LoadedFile {
                            name,
                            bytes: Rc::from(bytes),
                        });
                        state.dispatch(TaskAction::Data(DataAction::FetchedFile(
                            file,
                            Rc::from(u.as_str()),
                        )));
                    }
                    Err(e) => state.dispatch(TaskAction::Data(DataAction::LoadFailed(Rc::from(e)))),
                });
            }
        });
    }
    (state, (*slot).clone())
}

/// Task mode props.
#[derive(Properties, PartialEq)]
pub struct TaskAppProps {
    /// Language.
    pub lang: Lang,
    /// The task state (owned by the app).
    pub state: UseReducerHandle<TaskState>,
    /// The run (owned by the app).
    pub slot: TaskSlot,
    /// Page parameters.
    pub params: Rc<url::PageParams>,
    /// The unfinished runs offered (both modes).
    pub offers: UseReducerHandle<Offers>,
    /// Switch mode (to resume a run of the other mode).
    pub on_mode: Callback<Mode>,
}

type State = UseReducerHandle<TaskState>;

/// A callback that dispatches what `f` makes of its argument.
fn send<T: 'static>(state: &State, f: fn(T) -> TaskAction) -> Callback<T> {
    let s = state.clone();
    Callback::from(move |v: T| s.dispatch(f(v)))
}

/// A callback that reads a chosen file and dispatches what `f` makes of its
/// name and bytes; a file that cannot be read shows as a load error.
fn read_file(state: &State, f: fn(String, Vec<u8>) -> TaskAction) -> Callback<web_sys::File> {
    let s = state.clone();
    Callback::from(move |file: web_sys::File| {
        let s = s.clone();
        files::read_then(file, move |read| match read {
            Ok((name, bytes)) => s.dispatch(f(name, bytes)),
            Err(e) => s.dispatch(TaskAction::Data(DataAction::LoadFailed(Rc::from(e)))),
        });
    })
}

/// A callback that reads the chosen dataset: a Parquet file (Hugging
/// Face's) as the JSONL of its rows, read by the split point `parquet`; any
/// other file as it is.
fn read_dataset(state: &State) -> Callback<web_sys::File> {
    let s = state.clone();
    Callback::from(move |file: web_sys::File| {
        let s = s.clone();
        crate::effects::spawn(async move {
            let loaded = match files::read(file).await {
                Ok((name, bytes)) if evalpage_core::is_parquet(&bytes) => {
                    crate::effects::parquet::rows(&name, &bytes)
                        .await
                        .map(|rows| (name, rows))
                }
                other => other,
            };
            s.dispatch(match loaded {
                Ok((name, bytes)) => TaskAction::Data(DataAction::SetFile(Rc::new(LoadedFile {
                    name,
                    bytes: Rc::from(bytes),
                }))),
                Err(e) => TaskAction::Data(DataAction::LoadFailed(Rc::from(e))),
            });
        });
    })
}

/// A text file's content, or a load error naming the file.
fn text_action(name: String, bytes: Vec<u8>, ok: fn(String, String) -> TaskAction) -> TaskAction {
    match String::from_utf8(bytes) {
        Ok(text) => ok(name, text.trim_start_matches('\u{feff}').to_string()),
        Err(e) => TaskAction::Data(DataAction::LoadFailed(Rc::from(format!(
            "{name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )))),
    }
}

/// The task mode.
#[component]
pub fn TaskApp(p: &TaskAppProps) -> Html {
    let state = &p.state;
    let lang = p.lang;
    let status = state.status();
    let running = matches!(status, RunStatus::Running | RunStatus::Waiting);
    let task = TaskLaunch {
        state: state.clone(),
        slot: p.slot.clone(),
        params: p.params.clone(),
        lang,
        offers: p.offers.clone(),
    };
    {
        let task = task.clone();
        use_effect_with(
            (p.offers.pending.clone(), p.offers.list.clone()),
            move |_| run_launch::resume_pending(&task),
        );
    }
    let on_start = {
        let task = task.clone();
        Callback::from(move |_: ()| launch::start_checked(&task, false))
    };
    let on_confirm_key = {
        let task = task.clone();
        Callback::from(move |_: ()| launch::start_checked(&task, true))
    };
    let on_endpoint = {
        let state = state.clone();
        Callback::from(move |s: ModelSettings| launch::edit_endpoint(&state, s))
    };
    let on_add_endpoint = {
        let state = state.clone();
        Callback::from(move |_: ()| launch::add_endpoint(&state))
    };
    let on_retry = {
        let state = state.clone();
        Callback::from(move |_: ()| code::fetch(state.clone()))
    };
    let on_pause = {
        let slot = p.slot.clone();
        Callback::from(move |paused: bool| slot.set_paused(paused))
    };
    let on_cancel = {
        let slot = p.slot.clone();
        Callback::from(move |_: ()| slot.cancel())
    };
    let (on_resume, on_discard) = run_launch::offer_buttons(&task, &p.on_mode);
    let on_resume_log = {
        let task = task.clone();
        Callback::from(move |file: web_sys::File| {
            let task = task.clone();
            files::read_then(file, move |read| match read {
                Ok((_, bytes)) => run_launch::resume_from_log(&task, &bytes),
                Err(e) => task
                    .state
                    .dispatch(TaskAction::Run(RunAction::StartFailed(Rc::from(e)))),
            });
        })
    };
    let on_local = {
        let state = state.clone();
        let then =
            Callback::from(move |l| state.dispatch(TaskAction::Models(ModelAction::SetLocal(l))));
        crate::effects::local_model::picker(then)
    };
    let with_key: Rc<BTreeSet<String>> = Rc::new(state.models.keys.keys().cloned().collect());
    let blocked = state.blocker().map(|(zh, en)| lang.pick(zh, en));
    let share = Rc::new(share_spec(state, lang));
    // What Start would send, beside it: recomputed when the task, the data,
    // the models or the settings change (prompts are rendered once per change).
    let estimate = {
        let s = state.clone();
        use_memo(
            (
                state.editors.check.clone(),
                state.data.run_data.clone(),
                state.models.choices.clone(),
                state.models.selected.clone(),
                state.run.settings,
                state.editors.code.is_some(),
                lang,
            ),
            move |_| estimate_line(&s, lang),
        )
    };
    let on_batch_export = {
        let s = state.clone();
        Callback::from(move |done: Callback<Option<String>>| {
            let files = match crate::task::state::batch::export(&s) {
                Ok(files) => Rc::new(files),
                Err(e) => return done.emit(Some(e)),
            };
            crate::effects::spawn(async move {
                let saved =
                    crate::components::zip_button::zip(files, crate::effects::now_ms(), lang)
                        .await
                        .and_then(|zip| {
                            crate::effects::download::save_bytes(
                                "evalpage-batch.zip",
                                "application/zip",
                                &zip,
                            )
                        });
                done.emit(saved.err());
            });
        })
    };
    let on_batch_files = {
        let s = state.clone();
        Callback::from(move |list: Vec<web_sys::File>| {
            let s = s.clone();
            files::read_all_then(list, move |read| match read {
                Ok(files) => s.dispatch(TaskAction::Run(RunAction::SetBatch(Some(Rc::new(
                    crate::task::state::batch::BatchAnswers::read(&files),
                ))))),
                Err(e) => s.dispatch(TaskAction::Data(DataAction::LoadFailed(Rc::from(e)))),
            });
        })
    };
    // The finished run's report, read once from its report.json.
    let usage_report = use_memo(state.run.artifacts.clone(), |a| {
        a.as_ref()
            .and_then(|a| a.file("report.json"))
            .and_then(|t| serde_json::from_str::<evalpage_core::report::EvaluationResult>(t).ok())
            .map(std::rc::Rc::new)
    });
    html! {
        <>
            <ResumeBanner {lang} offers={p.offers.list.clone()} disabled={running} {on_resume} {on_discard} />
            <section class="setup">
                <div class="column">
                    <TaskEditor {lang} preset={state.editors.preset} task_text={state.editors.task_text.clone()}
                        template_text={state.editors.template_text.clone()} check={state.editors.check.clone()}
                        pending={state.editors.pending() && !state.editors.code_failed} disabled={running}
                        on_preset={send(state, |v: String| TaskAction::Edit(EditAction::ChoosePreset(v)))} on_task={send(state, |v: String| TaskAction::Edit(EditAction::EditTask(v)))}
                        on_template={send(state, |v: String| TaskAction::Edit(EditAction::EditTemplate(v)))} on_check={send(state, |_: ()| TaskAction::Edit(EditAction::Check))}
                        on_task_file={read_file(state, |n, b| text_action(n, b, |n, t| TaskAction::Edit(EditAction::LoadTask(n, t))))}
                        on_template_file={read_file(state, |n, b| text_action(n, b, |n, t| TaskAction::Edit(EditAction::LoadTemplate(n, t))))}
                        code_failed={state.editors.code_failed} {on_retry} />
                    <PromptPreview {lang} preview={state.preview.clone()} />
                </div>
                <div class="column">
                    <TaskDatasetPanel {lang} run_data={state.data.run_data.clone()} metadata={state.data.metadata.clone()}
                        error={state.data.load_error.clone()} disabled={running}
                        on_file={read_dataset(state)}
                        on_demo={send(state, |_: ()| TaskAction::Data(DataAction::UseDemo))}
                        on_metadata={read_file(state, |name, b| TaskAction::Data(DataAction::SetMetadata(Rc::new(LoadedMetadata::read(&name, &b)))))}
                        on_clear_metadata={send(state, |_: ()| TaskAction::Data(DataAction::ClearMetadata))} />
                    <TaskModelsPanel {lang} choices={state.models.choices.clone()} selected={state.models.selected.clone()} {with_key}
                        registry_text={state.models.registry_text.clone()} registry={state.models.registry.clone()}
                        pending={state.models.pending()} settings={state.run.settings} task_repeats={state.task_repeats()} disabled={running}
                        on_toggle={send(state, |(n, on): (String, bool)| TaskAction::Models(ModelAction::Toggle(n, on)))}
                        on_key={send(state, |(n, k): (String, String)| TaskAction::Models(ModelAction::SetKey(n, k)))}
                        on_registry={send(state, |v: String| TaskAction::Models(ModelAction::EditRegistry(v)))}
                        on_registry_check={send(state, |_: ()| TaskAction::Models(ModelAction::CheckRegistry))}
                        on_registry_file={read_file(state, |n, b| text_action(n, b, |n, t| TaskAction::Models(ModelAction::LoadRegistry(n, t))))}
                        on_settings={send(state, |s: TaskRunSettings| TaskAction::Run(RunAction::SetSettings(s)))}
                        judged={state.judged()} judge={state.models.judge.clone()}
                        on_judge={send(state, |v: String| TaskAction::Models(ModelAction::SetJudge(v)))}
                        local={state.models.local.clone()} {on_local} />
                    <EndpointPanel {lang} settings={state.models.endpoint.clone()} disabled={running} on_change={on_endpoint}
                        on_add={on_add_endpoint} key_origins={Rc::new(state.models.ring.origins())}
                        on_forget_keys={send(state, |_: ()| TaskAction::Models(ModelAction::ForgetKeys))} target={endpoint_target(state)} />
                </div>
            </section>
            <RunControls {lang} {status} progress={state.run.snapshot.as_ref().map(|r| r.controls_progress())}
                blocked={if running { None } else { blocked }} error={state.run.start_error.clone()}
                {on_start} {on_cancel} {on_pause} key_prompt={state.models.key_prompt.clone()} {on_confirm_key}
                on_dismiss_key={send(state, |_: ()| TaskAction::Models(ModelAction::PromptKey(None)))}
                estimate={(*estimate).clone()} />
            if let Some(why) = state.run.snapshot.as_ref().and_then(|r| r.prompt_stop(lang)) {
                <section class="panel"><p class="error" data-testid="stopped">{why}</p></section>
            }
            <TaskBatchPanel {lang} batch={state.run.batch.clone()} disabled={running} on_export={on_batch_export}
                on_files={on_batch_files} on_clear={send(state, |_: ()| TaskAction::Run(RunAction::SetBatch(None)))} />
            <ShareLink {lang} spec={share} />
            <TaskDownloads {lang} artifacts={state.run.artifacts.clone()} />
            <crate::components::usage_table::UsageTable {lang} report={(*usage_report).clone()} />
            <TaskSummary {lang} run={state.run.snapshot.clone()} />
            <TaskSampleTable {lang} run={state.run.snapshot.clone()} />
            <ResumeLog {lang} task=true disabled={running} {on_resume_log} />
        </>
    }
}

/// The line beside Start: calls, and an upper bound of tokens and cost per
/// model (`task::estimate`, as `evalpage run --estimate` counts them); `None`
/// until a valid task, data and ticked models are there.
fn estimate_line(state: &TaskState, lang: Lang) -> Option<AttrValue> {
    let task = state.editors.check.checked.as_ref()?;
    if state.data.run_data.data.samples.is_empty() {
        return None;
    }
    let models: Vec<(String, Option<evalpage_core::report::Price>, Option<u64>)> = state
        .models
        .choices
        .iter()
        .filter(|c| state.models.selected.contains(&c.name))
        .map(|c| {
            let (price, params) = c.price_and_params(&task.task.default_params);
            let max_tokens = params.get("max_tokens").and_then(serde_json::Value::as_u64);
            (c.name.clone(), price, max_tokens)
        })
        .collect();
    if models.is_empty() {
        return None;
    }
    let prompts = state.prompts()?;
    let settings = &state.run.settings;
    let repeats = settings.repeats(&task.task).n;
    let parts: Vec<String> = evalpage_core::task::estimate(&prompts, repeats, &models)
        .iter()
        .map(|e| {
            let completion = e.completion_tokens_max.map_or_else(
                || {
                    lang.pick(
                        "输出不设上限（无 max_tokens）",
                        "output unbounded (no max_tokens)",
                    )
                    .to_string()
                },
                |c| format!("≤ {c} {}", lang.pick("输出 token", "completion tokens")),
            );
            let cost = e
                .cost_max
                .map(|c| format!(", {} ≤ {c:.4}", lang.pick("费用", "cost")))
                .unwrap_or_default();
            format!(
                "{}: {} {}, ≤ {} {}, {completion}{cost}",
                e.model,
                e.calls,
                lang.pick("次调用", "calls"),
                e.prompt_tokens_max,
                lang.pick("提示 token", "prompt tokens"),
            )
        })
        .collect();
    Some(AttrValue::from(format!(
        "{} {}",
        lang.pick("预计：", "Estimate:"),
        parts.join("; ")
    )))
}

/// The task mode's root (the `evalpage-task` bundle).
#[component]
pub fn TaskRoot() -> Html {
    let shell = crate::app::use_shell(Mode::Run(RunKind::Task));
    let (state, slot) = use_task(shell.params.clone());
    let lang = shell.state.lang;
    shell.page(html! {
        <TaskApp {lang} {state} {slot} params={shell.params.clone()}
            offers={shell.offers.clone()} on_mode={shell.on_mode.clone()} />
    })
}
