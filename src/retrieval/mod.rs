//! The retrieval mode (`?mode=retrieval`): spec 000's retrieval evaluation in
//! the page. Cases come from the user's disk (or the built-in demo cases);
//! each query goes to the retrieval endpoint named here (its URL, a JSON body
//! template, the path of the ranked list in its answer), or, with no URL, to
//! the demo retriever in the page. Metrics overall and per bucket and each
//! case's row show as cases settle; at the end, the files `evalpage run
//! --retrieval` writes, as one zip and `eval_retrieval_report.json`.

mod cases;
pub mod launch;
pub mod run;
pub mod state;

use crate::components::key_field::KeyField;
use crate::components::resume_banner::ResumeBanner;
use crate::components::run_limits::RunLimits;
use crate::components::zip_button::ZipButton;
use crate::components::{chosen_file, field, use_drop_zone, DropZone};
use crate::effects::{self, download, files};
use crate::launch::{self as run_launch, endpoint_fields};
use crate::retrieval::state::{RetrievalAction, RetrievalState, COLUMNS};
use crate::state::keys::TargetLine;
use crate::state::resume::Offers;
use crate::state::{Mode, RunStatus, ShellState};
use cases::RetrievalCases;
use evalpage_core::retrieval::Row;
use evalpage_core::Lang;
use evalpage_core::RunKind;
use launch::{RetrievalLaunch, RetrievalSlot};
use std::rc::Rc;
use yew::prelude::*;

/// Name of the zip download.
pub const ZIP_NAME: &str = "evalpage-retrieval-run.zip";

/// The mode's state and its run, kept by the app for the page load
/// (call once, in the app). Its runs go through the one launch path: the
/// Web Lock, the IndexedDB journal, the resume offer after a reload, and
/// the key of the endpoint's origin.
#[hook]
pub fn use_retrieval(
    offers: UseReducerHandle<Offers>,
    shell: UseReducerHandle<ShellState>,
) -> RetrievalLaunch {
    let state = use_reducer(RetrievalState::default);
    let slot = use_memo((), |_| RetrievalSlot::default());
    RetrievalLaunch {
        state,
        slot: (*slot).clone(),
        offers,
        shell,
    }
}

/// Where the next run's requests go, and whether a key goes with them.
fn target_line(s: &RetrievalState) -> Option<Rc<TargetLine>> {
    let url = s.form.url.trim();
    if url.is_empty() {
        return None;
    }
    Some(Rc::new(TargetLine::Endpoint {
        with_key: !s.form.api_key.is_empty(),
        target: effects::url::target(url)?,
    }))
}

/// Retrieval page props.
#[derive(Properties, PartialEq)]
pub struct RetrievalAppProps {
    /// Language.
    pub lang: Lang,
    /// The mode's state and run.
    pub mode: RetrievalLaunch,
    /// Switch mode (to resume a run of another mode).
    pub on_mode: Callback<Mode>,
}

/// The retrieval page.
#[component]
pub fn RetrievalApp(p: &RetrievalAppProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let s = &*p.mode.state;
    let running = s.running();
    // Fields commit as they are typed (`field`): nothing changes on blur.
    let dispatch = |f: fn(String) -> RetrievalAction| {
        let state = p.mode.state.clone();
        field::on_input(Callback::from(move |v: String| state.dispatch(f(v))))
    };
    let number = |f: fn(usize) -> RetrievalAction| {
        let state = p.mode.state.clone();
        field::on_input(Callback::from(move |v: String| {
            if let Ok(n) = v.trim().parse::<usize>() {
                state.dispatch(f(n));
            }
        }))
    };
    let on_url = field::on_input(endpoint_fields::on_url(&p.mode));
    let on_key = endpoint_fields::on_key(&p.mode);
    let on_confirm = endpoint_fields::on_confirm(&p.mode);
    let on_dismiss = endpoint_fields::on_dismiss(&p.mode);
    {
        let m = p.mode.clone();
        use_effect_with(
            (m.offers.pending.clone(), m.offers.list.clone()),
            move |_| run_launch::resume_pending(&m),
        );
    }
    let (on_resume, on_discard) = run_launch::offer_buttons(&p.mode, &p.on_mode);
    let on_file = {
        let state = p.mode.state.clone();
        Callback::from(move |file: web_sys::File| {
            let state = state.clone();
            files::read_then(file, move |read| match read {
                Ok((name, bytes)) => state.dispatch(RetrievalAction::Load(name, Rc::from(bytes))),
                Err(e) => state.dispatch(RetrievalAction::Failed(Rc::from(e.as_str()))),
            });
        })
    };
    let DropZone {
        class: zone,
        ondrop,
        ondragover,
        ondragleave,
    } = use_drop_zone(on_file.clone(), running);
    let on_pick = Callback::from(move |e: Event| {
        if let Some(file) = chosen_file(&e) {
            on_file.emit(file);
        }
    });
    let on_start = {
        let m = p.mode.clone();
        Callback::from(move |_: MouseEvent| endpoint_fields::start_checked(&m, false))
    };
    let on_cancel = {
        let slot = p.mode.slot.clone();
        Callback::from(move |_: MouseEvent| slot.cancel())
    };
    html! {
        <div class="retrieval-mode">
            <ResumeBanner {lang} offers={p.mode.offers.list.clone()} disabled={running} {on_resume} {on_discard} />
            <section class="panel" data-testid="retrieval-dataset-panel">
                <h2>{t("检索用例", "Retrieval cases")}</h2>
                <div class={zone} {ondrop} {ondragover} {ondragleave}>
                    <p>{t("JSONL：每行 {case_id, query, expected_sources[], bucket}，只在本机读取",
                          "JSONL: one {case_id, query, expected_sources[], bucket} per line, read on this machine only")}</p>
                    <label>{t("用例文件 ", "Cases file ")}
                        <input type="file" accept=".jsonl,.json,.txt" data-testid="retrieval-file" disabled={running} onchange={on_pick} />
                    </label>
                </div>
                <p data-testid="retrieval-dataset-summary">
                    <strong>{&s.dataset_name}</strong>
                    {format!(" · {} {}", s.cases.len(), t("条有效用例", "valid cases"))}
                    if !s.line_errors.is_empty() { {format!(" · {} {}", s.line_errors.len(), t("行有错误（已跳过）", "lines skipped"))} }
                </p>
                if !s.line_errors.is_empty() {
                    <ul class="line-errors" data-testid="retrieval-line-errors" tabindex="0">
                        { for s.line_errors.iter().map(|e| html!{ <li>{e.to_string()}</li> }) }
                    </ul>
                }
            </section>
            <section class="panel" data-testid="retrieval-endpoint-panel">
                <h2>{t("检索端点", "Retrieval endpoint")}</h2>
                <label>{t("URL（留空：页面内的演示检索器）", "URL (empty: the demo retriever in the page)")}
                    <input type="url" data-testid="retrieval-url" value={s.form.url.clone()} disabled={running}
                        placeholder="http://127.0.0.1:8091/v1/retrieve" oninput={on_url} />
                </label>
                <KeyField {lang} testid="retrieval-key" value={s.form.api_key.get().to_string()} target={target_line(s)}
                    disabled={running} {on_key} prompt={s.form.key_prompt.clone()} {on_confirm} {on_dismiss} />
                <label>{t("请求体模板（JSON；字符串用 |tojson）", "Request body template (JSON; strings need |tojson)")}
                    <textarea data-testid="retrieval-body" rows="2" disabled={running}
                        value={s.body.clone()} oninput={dispatch(RetrievalAction::SetBody)} />
                </label>
                <label>{t("排序列表在回答中的路径", "Path of the ranked list in the answer")}
                    <input type="text" data-testid="retrieval-path" value={s.path.clone()} disabled={running}
                        oninput={dispatch(RetrievalAction::SetPath)} />
                </label>
                <label class="inline">{"k "}
                    <input type="number" min="1" data-testid="retrieval-k" value={s.k.to_string()} disabled={running}
                        oninput={number(RetrievalAction::SetK)} />
                </label>
                <label class="inline">{t(" 并发 ", " concurrency ")}
                    <input type="number" min="1" max="64" data-testid="retrieval-concurrency" value={s.concurrency.to_string()}
                        disabled={running} oninput={number(RetrievalAction::SetConcurrency)} />
                </label>
                <RunLimits {lang} prefix="retrieval" limits={s.limits.clone()} priced=false disabled={running}
                    on_change={{ let state = p.mode.state.clone(); Callback::from(move |l| state.dispatch(RetrievalAction::SetLimits(l))) }} />
                <p class="muted">{t("运行保存在本浏览器中，重新加载后可以继续（只发送未完成的用例）。",
                    "The run is saved in this browser and can be resumed after a reload (only the unsettled cases are sent).")}</p>
                <div class="controls">
                    <button data-testid="retrieval-start" onclick={on_start} disabled={running}>{t("开始检索评测", "Start retrieval evaluation")}</button>
                    if running { <button data-testid="retrieval-cancel" onclick={on_cancel}>{t("取消", "Cancel")}</button> }
                </div>
                if let Some(e) = &s.error { <p class="error" role="alert" data-testid="retrieval-error">{e.to_string()}</p> }
            </section>
            { results(lang, s) }
            <crate::components::metric_list::MetricList {lang} kind={evalpage_core::RunKind::Retrieval} />
        </div>
    }
}

fn mark(b: bool) -> &'static str {
    if b {
        "√"
    } else {
        "×"
    }
}

/// The header cells of a case's row after its id (see [`case_cells`]).
pub fn case_head(lang: Lang, k: usize) -> Html {
    html! {
        <>
            <th>{lang.pick("分桶", "bucket")}</th><th>{"query"}</th>
            <th>{format!("hit@{k}")}</th><th>{"rr"}</th><th>{format!("ndcg@{k}")}</th>
            <th>{format!("top-{k}")}</th><th>{"expected"}</th>
        </>
    }
}

/// A case's row after its id: bucket, query, hit, reciprocal rank, nDCG,
/// the top k (or why there is no list) and the expected sources.
pub fn case_cells(r: &Row) -> Html {
    html! {
        <>
            <td>{&r.case.bucket}</td>
            <td class="clip-line">{&r.case.query}</td>
            <td>{mark(r.score.hit_at_k)}</td>
            <td>{format!("{:.3}", r.score.reciprocal_rank)}</td>
            <td>{format!("{:.3}", r.score.ndcg_at_k)}</td>
            <td class="clip-line">{ match r.error() {
                Some(e) => html!{ <span class="error">{&e.message}</span> },
                None => html!{ {r.score.topk.join(", ")} },
            } }</td>
            <td class="clip-line">{r.case.expected_sources.join(", ")}</td>
        </>
    }
}

/// Each metric's mean, overall and per bucket (`retrieval::bucket_means`).
pub fn means_table(lang: Lang, k: usize, means: &[(String, usize, [f64; 4])]) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    html! {
        <table class="cases">
            <thead><tr>
                <th>{t("分桶", "bucket")}</th><th>{"n"}</th>
                { for COLUMNS.iter().map(|c| html!{ <th>{c.replace("_k", &format!("_{k}"))}</th> }) }
            </tr></thead>
            <tbody>
                { for means.iter().map(|(bucket, n, m)| html!{
                    <tr data-testid={if bucket.is_empty() { "retrieval-overall" } else { "retrieval-bucket" }}>
                        <td>{if bucket.is_empty() { t("全部", "all").to_string() } else { bucket.clone() }}</td>
                        <td>{n}</td>
                        { for m.iter().map(|v| html!{ <td>{format!("{v:.3}")}</td> }) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn results(lang: Lang, s: &RetrievalState) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let Some(snap) = &s.snapshot else {
        return html! {};
    };
    let k = snap.k;
    let (code, status) = match snap.status {
        RunStatus::Running => ("running", t("进行中", "running")),
        RunStatus::Done => ("done", t("完成", "done")),
        RunStatus::Cancelled => ("cancelled", t("已取消", "cancelled")),
        _ => ("", ""),
    };
    let means = snap.means();
    let files = match &s.artifacts {
        Some(Ok(a)) => {
            let report = {
                let a = a.clone();
                Callback::from(move |_: MouseEvent| {
                    let text = a
                        .file(RunKind::Retrieval.names().report)
                        .unwrap_or_default();
                    if let Err(e) =
                        download::save(RunKind::Retrieval.names().report, "application/json", text)
                    {
                        web_sys::console::error_1(&format!("download failed: {e}").into());
                    }
                })
            };
            html! {
                <section class="panel downloads">
                    <h2>{t("下载", "Downloads")}</h2>
                    <ZipButton name={ZIP_NAME} files={Rc::new(a.files.clone())} ended_at_ms={a.ended_at_ms} {lang} />
                    <button data-testid="download-retrieval-report" onclick={report}>{RunKind::Retrieval.names().report}</button>
                </section>
            }
        }
        Some(Err(e)) => html! { <p class="error" role="alert">{e.to_string()}</p> },
        None => html! {},
    };
    html! {
        <>
            <section class="panel" data-testid="retrieval-summary">
                <h2>{t("指标", "Metrics")}</h2>
                <p data-testid="retrieval-progress">
                    <span class="visually-hidden" data-testid="run-status">{code}</span>
                    {format!("{}/{} · {status}", snap.progress.done, snap.progress.total)}
                    if snap.failed() > 0 { {format!(" · {} {}", snap.failed(), t("条无列表（失败）", "without a list (failed)"))} }
                </p>
                { means_table(lang, k, &means) }
            </section>
            <section class="panel">
                <h2>{t("逐条结果", "Cases")}</h2>
                <RetrievalCases {lang} rows={snap.rows.clone()} {k} />
            </section>
            { files }
        </>
    }
}

/// The retrieval mode's root (the `evalpage-retrieval` bundle).
#[component]
pub fn RetrievalRoot() -> Html {
    let shell = crate::app::use_shell(Mode::Run(RunKind::Retrieval));
    let mode = use_retrieval(shell.offers.clone(), shell.state.clone());
    let lang = shell.state.lang;
    shell.page(html! { <RetrievalApp {lang} {mode} on_mode={shell.on_mode.clone()} /> })
}
