//! The dialog mode's inputs: the dialogs file (its skipped lines and the
//! dialogs that cannot be aligned listed), a dialog trace to score, and the
//! endpoint the dialogs are played against (or the dialog mock).

use super::launch::DialogLaunch;
use crate::components::key_field::KeyField;
use crate::components::local_model_field::LocalModelField;
use crate::components::run_limits::RunLimits;
use crate::components::{chosen_file, field, use_drop_zone, DropZone};
use crate::dialog::state::{DialogAction, DialogState};
use crate::effects::{files, local_model, url};
use crate::launch::endpoint_fields;
use crate::state::keys::TargetLine;
use crate::state::settings::Provider;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Inputs props.
#[derive(Properties, PartialEq)]
pub struct DialogInputsProps {
    /// Language.
    pub lang: Lang,
    /// The mode's state, run and keys.
    pub mode: DialogLaunch,
    /// Start a run.
    pub on_start: Callback<MouseEvent>,
    /// Score the picked trace.
    pub on_score: Callback<MouseEvent>,
    /// Cancel the run.
    pub on_cancel: Callback<MouseEvent>,
}

/// A file read locally, then dispatched with `action` (or its read error).
fn reader(
    state: &UseReducerHandle<DialogState>,
    action: fn(String, Rc<[u8]>) -> DialogAction,
) -> Callback<web_sys::File> {
    let state = state.clone();
    Callback::from(move |file: web_sys::File| {
        let state = state.clone();
        files::read_then(file, move |read| match read {
            Ok((name, bytes)) => state.dispatch(action(name, Rc::from(bytes))),
            Err(e) => state.dispatch(DialogAction::Failed(Rc::from(e.as_str()))),
        });
    })
}

fn picked(on_file: Callback<web_sys::File>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        if let Some(file) = chosen_file(&e) {
            on_file.emit(file);
        }
    })
}

fn input_value(e: &Event) -> Option<String> {
    use wasm_bindgen::JsCast;
    let t = e.target()?;
    if let Some(s) = t.dyn_ref::<web_sys::HtmlSelectElement>() {
        return Some(s.value());
    }
    t.dyn_ref::<web_sys::HtmlInputElement>().map(|i| i.value())
}

/// Where the next run's requests go, and whether a key goes with them.
fn target_line(s: &DialogState) -> Option<Rc<TargetLine>> {
    let base = s.form.url.trim();
    if base.is_empty() {
        return None;
    }
    Some(Rc::new(TargetLine::Endpoint {
        with_key: !s.form.api_key.is_empty(),
        target: url::target(base)?,
    }))
}

/// The dialogs, the trace and the endpoint panels.
#[component]
pub fn DialogInputs(p: &DialogInputsProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let s = &*p.mode.state;
    let running = s.running();
    let on_dialogs = reader(&p.mode.state, DialogAction::LoadDialogs);
    let on_trace = reader(&p.mode.state, DialogAction::LoadTrace);
    let DropZone {
        class: dialogs_zone,
        ondrop: dialogs_drop,
        ondragover: dialogs_over,
        ondragleave: dialogs_leave,
    } = use_drop_zone(on_dialogs.clone(), running);
    let DropZone {
        class: trace_zone,
        ondrop: trace_drop,
        ondragover: trace_over,
        ondragleave: trace_leave,
    } = use_drop_zone(on_trace.clone(), running);
    let text = |f: fn(String) -> DialogAction| {
        let state = p.mode.state.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = input_value(&e) {
                state.dispatch(f(v));
            }
        })
    };
    // Fields commit as they are typed (`field`): nothing changes on blur.
    let typed = |f: fn(String) -> DialogAction| {
        let state = p.mode.state.clone();
        field::on_input(Callback::from(move |v: String| state.dispatch(f(v))))
    };
    let on_url = field::on_input(endpoint_fields::on_url(&p.mode));
    let on_key = endpoint_fields::on_key(&p.mode);
    let on_confirm = endpoint_fields::on_confirm(&p.mode);
    let on_dismiss = endpoint_fields::on_dismiss(&p.mode);
    let on_concurrency = {
        let state = p.mode.state.clone();
        field::on_input(Callback::from(move |v: String| {
            if let Ok(n) = v.trim().parse::<usize>() {
                state.dispatch(DialogAction::SetConcurrency(n));
            }
        }))
    };
    let on_max_tokens = {
        let state = p.mode.state.clone();
        field::on_input(Callback::from(move |v: String| match v.trim() {
            "" => state.dispatch(DialogAction::SetMaxTokens(None)),
            v => {
                if let Ok(n) = v.parse::<u32>() {
                    state.dispatch(DialogAction::SetMaxTokens(Some(n)));
                }
            }
        }))
    };
    let on_provider = {
        let state = p.mode.state.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = input_value(&e) {
                state.dispatch(DialogAction::SetByFile(v == "local"));
            }
        })
    };
    let on_local = {
        let state = p.mode.state.clone();
        local_model::picker(Callback::from(move |l| {
            state.dispatch(DialogAction::SetLocal(l))
        }))
    };
    let on_m1 = {
        let state = p.mode.state.clone();
        Callback::from(move |e: Event| {
            let on = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .is_some_and(|i| i.checked());
            state.dispatch(DialogAction::SetM1FromConversation(on));
        })
    };
    let set = &s.set;
    let skipped: Vec<_> = set
        .dialogs
        .iter()
        .filter_map(|d| d.skip_reason().map(|why| (d, why)))
        .collect();
    html! {
        <>
            <section class="panel" data-testid="dialog-dataset-panel">
                <h2>{t("对话数据", "Dialogs")}</h2>
                <div class={dialogs_zone} ondrop={dialogs_drop} ondragover={dialogs_over} ondragleave={dialogs_leave}>
                    <p>{t("JSONL：每行一个 {dialog_id, profile_gt, turns[{role, content, gt_turn_tags}]}，只在本机读取",
                          "JSONL: one {dialog_id, profile_gt, turns[{role, content, gt_turn_tags}]} per line, read on this machine only")}</p>
                    <label>{t("对话文件 ", "Dialogs file ")}
                        <input type="file" accept=".jsonl,.json,.txt" data-testid="dialog-file" disabled={running}
                            onchange={picked(on_dialogs)} />
                    </label>
                </div>
                <p data-testid="dialog-dataset-summary">
                    <strong>{&s.dataset_name}</strong>
                    {format!(" · {} {} · {} {}", set.dialogs.len(), t("个对话", "dialogs"), s.playable(), t("个可播放", "to play"))}
                    if !skipped.is_empty() { {format!(" · {} {}", skipped.len(), t("个无法对齐（跳过）", "not aligned (skipped)"))} }
                    if !set.errors.is_empty() { {format!(" · {} {}", set.errors.len(), t("行有错误（已跳过）", "lines skipped"))} }
                </p>
                if !set.errors.is_empty() {
                    <ul class="line-errors" data-testid="dialog-line-errors" tabindex="0">
                        { for set.errors.iter().map(|e| html!{ <li>{e.to_string()}</li> }) }
                    </ul>
                }
                if !skipped.is_empty() {
                    <ul class="line-errors" data-testid="dialog-unaligned" tabindex="0">
                        { for skipped.iter().map(|(d, why)| html!{
                            <li>{format!("{}:{}: {} — {why}", s.dataset_name, d.line, d.dialog_id)}</li>
                        }) }
                    </ul>
                }
            </section>
            <section class="panel" data-testid="dialog-trace-panel">
                <h2>{t("为已有轨迹打分", "Score a trace")}</h2>
                <div class={trace_zone} ondrop={trace_drop} ondragover={trace_over} ondragleave={trace_leave}>
                    <p>{t("别处生成的 dialog_trace.jsonl：按上面的对话数据打分，不调用任何模型",
                          "A dialog_trace.jsonl produced elsewhere, scored against the dialogs above with no model call")}</p>
                    <label>{t("轨迹文件 ", "Trace file ")}
                        <input type="file" accept=".jsonl,.json,.txt" data-testid="dialog-trace-file" disabled={running}
                            onchange={picked(on_trace)} />
                    </label>
                </div>
                <p data-testid="dialog-trace-summary">{ match &s.trace {
                    Some(tr) => html!{ <><strong>{&tr.name}</strong>{format!(" · {} bytes", tr.bytes.len())}</> },
                    None => html!{ <span class="muted">{t("未选择轨迹", "No trace picked")}</span> },
                } }</p>
                <div class="controls">
                    <button data-testid="dialog-score" onclick={p.on_score.clone()} disabled={running || s.trace.is_none()}>
                        {t("为轨迹打分", "Score trace")}</button>
                </div>
            </section>
            <section class="panel" data-testid="dialog-endpoint-panel">
                <h2>{t("逐轮播放对话", "Play the dialogs")}</h2>
                <label class="inline">{t("回答者 ", "Answered by ")}
                    <select data-testid="dialog-provider" disabled={running} onchange={on_provider}>
                        <option value="endpoint" selected={!s.by_file}>{t("下面的端点（留空：对话模拟模型）", "the endpoint below (empty: the dialog mock)")}</option>
                        <option value="local" selected={s.by_file}>{t("本机模型文件（GGUF，在页面内运行）", "a model file on this device (GGUF, run in the page)")}</option>
                    </select>
                </label>
                if s.by_file || s.judge == Some(Provider::Local) {
                    <LocalModelField {lang} local={s.local.clone()} disabled={running}
                        on_file={on_local.reform(local_model::Source::File)}
                        on_url={on_local.reform(local_model::Source::Url)} />
                }
                // The model file uses no URL, model name or key: they are shown
                // only when the endpoint answers the turns or judges them.
                if !s.by_file || s.judge == Some(Provider::Openai) {
                    <label>{t("基础 URL（OpenAI 兼容；留空：页面内的对话模拟模型）",
                              "Base URL (OpenAI-compatible; empty: the dialog mock in the page)")}
                        <input type="url" data-testid="dialog-url" value={s.form.url.clone()} disabled={running}
                            placeholder="http://127.0.0.1:8091/v1" oninput={on_url} />
                    </label>
                    <label>{t("模型", "Model")}
                        <input type="text" data-testid="dialog-model" value={s.model.clone()} disabled={running}
                            oninput={typed(DialogAction::SetModel)} />
                    </label>
                    <KeyField {lang} testid="dialog-key" value={s.form.api_key.get().to_string()} target={target_line(s)}
                        disabled={running} {on_key} prompt={s.form.key_prompt.clone()} {on_confirm} {on_dismiss} />
                }
                <label class="inline">{t("评审（M3/M4/M5） ", "Judge (M3/M4/M5) ")}
                    <select data-testid="dialog-judge" disabled={running} onchange={text(|v| DialogAction::SetJudge(Provider::judge(&v)))}>
                        <option value="none" selected={s.judge.is_none()}>{t("无（报告为未运行）", "none (reported as not run)")}</option>
                        <option value={Provider::Demo.judge_code()} selected={s.judge == Some(Provider::Demo)}>{t("内置模拟评审", "built-in mock judge")}</option>
                        <option value={Provider::Openai.judge_code()} selected={s.judge == Some(Provider::Openai)}>{t("上面的端点与模型", "the endpoint and model above")}</option>
                        <option value={Provider::Local.judge_code()} selected={s.judge == Some(Provider::Local)}>{t("本机模型文件", "the model file on this device")}</option>
                    </select>
                </label>
                <label class="inline">{t("并行对话数（workers_dialog）", "Dialogs at once (workers_dialog)")}
                    <input type="number" min="1" max="64" data-testid="dialog-concurrency" value={s.concurrency.to_string()}
                        disabled={running} oninput={on_concurrency} />
                </label>
                <label class="inline">{t("每个回答的最大 token 数（模型的，以及评审是上面的端点或模型文件时评审的）",
                        "Max tokens of each answer (the model's, and the judge's when it is the endpoint or the model file)")}
                    <input type="number" min="1" data-testid="dialog-max-tokens" placeholder={t("不限", "no bound")}
                        value={s.max_tokens.map(|n| n.to_string()).unwrap_or_default()}
                        disabled={running} oninput={on_max_tokens} />
                </label>
                <label class="inline">
                    <input type="checkbox" data-testid="dialog-m1-conversation" checked={s.m1_from_conversation} disabled={running}
                        onchange={on_m1} />
                    {t(" 端点未返回召回记录（recall）时，M1 在发送的对话中检索（否则该轮的 M1 记为未运行）",
                       " M1 when the endpoint returns no recall: search the conversation sent (else the turn's M1 is not run)")}
                </label>
                <RunLimits {lang} prefix="dialog" limits={s.limits.clone()} priced=true disabled={running}
                    on_change={{ let state = p.mode.state.clone(); Callback::from(move |l| state.dispatch(DialogAction::SetLimits(l))) }} />
                <p class="muted">{t("运行保存在本浏览器中，重新加载后可以继续（只发送未完成的轮次和评审调用）。每轮请求是到目前为止的对话：数据集的用户轮次和模型自己的回答。",
                    "The run is saved in this browser and can be resumed after a reload (only the unsettled turns and judge calls are sent). Each turn's request is the conversation so far: the dataset's user turns and the model's own answers.")}</p>
                <div class="controls">
                    <button data-testid="dialog-start" onclick={p.on_start.clone()} disabled={running}>{t("开始", "Start")}</button>
                    if running { <button data-testid="dialog-cancel" onclick={p.on_cancel.clone()}>{t("取消", "Cancel")}</button> }
                </div>
                if s.waiting { <p class="warning" role="status" data-testid="waiting-model">{t(
                    "正在等待模型文件加载完成，加载后运行自动开始（“取消”可停止等待）",
                    "Waiting for the model file to load: the run starts once it is loaded (Cancel stops waiting)")}</p> }
                if let Some(e) = &s.error { <p class="error" role="alert" data-testid="dialog-error">{e.to_string()}</p> }
            </section>
        </>
    }
}
