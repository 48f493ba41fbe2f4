//! The task mode's batch files: export the run's calls as OpenAI Batch
//! input (one zip: `batch.json` and `round-1/requests-<model>.jsonl`, the
//! files `evalpage batch export` writes), and import the answers of a batch
//! engine (OpenAI, vLLM, Ray Data, Anthropic), which Start then scores
//! instead of calling the models (see `task::state::batch`).

use crate::components::chosen_files;
use crate::task::state::batch::BatchAnswers;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Batch panel props.
#[derive(Properties, PartialEq)]
pub struct TaskBatchPanelProps {
    /// Language.
    pub lang: Lang,
    /// The answers imported, if any.
    pub batch: Option<Rc<BatchAnswers>>,
    /// No changes while a run is going.
    pub disabled: bool,
    /// Builds and downloads the export, then calls back with why it could
    /// not (`None` when it was saved).
    pub on_export: Callback<Callback<Option<String>>>,
    /// Answer files were chosen.
    pub on_files: Callback<Vec<web_sys::File>>,
    /// Drop the imported answers.
    pub on_clear: Callback<()>,
}

/// The panel.
#[component]
pub fn TaskBatchPanel(p: &TaskBatchPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let error = use_state(|| None::<String>);
    let export = {
        let (cb, error) = (p.on_export.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            let error = error.clone();
            cb.emit(Callback::from(move |why| error.set(why)))
        })
    };
    let files = {
        let cb = p.on_files.clone();
        Callback::from(move |e: Event| cb.emit(chosen_files(&e)))
    };
    let clear = {
        let cb = p.on_clear.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let d = p.disabled;
    html! {
        <details class="panel" data-testid="batch-panel">
            <summary>{t("批处理文件（OpenAI Batch、vLLM、Ray、Anthropic）", "Batch files (OpenAI Batch, vLLM, Ray, Anthropic)")}</summary>
            <p class="muted">{t(
                "导出本次运行的全部模型调用（OpenAI Batch 输入格式，每个模型一个文件），交给批处理引擎运行；再导入其答案，“开始评测”便用这些答案打分，不再调用模型（评审调用仍照常发送）。",
                "Export every model call of the run (OpenAI Batch input, one file per model) for a batch engine; then import its answers: Start scores them instead of calling the models (judge calls are still made).")}</p>
            <button data-testid="batch-export" disabled={d} onclick={export}>{t("导出请求（zip）", "Export requests (zip)")}</button>
            <label>{t("导入答案文件", "Import answer files")}
                <input type="file" multiple=true accept=".jsonl,.json" data-testid="batch-answers" disabled={d} onchange={files} /></label>
            if let Some(e) = &*error { <p class="error" data-testid="batch-error">{e.clone()}</p> }
            if let Some(b) = &p.batch {
                <p data-testid="batch-status">{format!("{} {} {} {}{}",
                    b.by_job.len(),
                    t("个答案，来自", "answers from"),
                    b.files.join(", "),
                    t("：“开始评测”将为其打分。", ": Start scores them."),
                    if b.unknown + b.later_calls > 0 {
                        format!(" {} {}", b.unknown + b.later_calls, t("行未使用（非模型首次调用）。", "lines not used (not a model's first call)."))
                    } else { String::new() })}
                    <button class="link" data-testid="batch-clear" disabled={d} onclick={clear}>{t("改为调用模型", "Call the models instead")}</button></p>
                if !b.errors.is_empty() {
                    <ul class="errors" data-testid="batch-line-errors">
                        { for b.errors.iter().take(10).map(|e| html!{ <li>{e.to_string()}</li> }) }
                    </ul>
                }
            }
        </details>
    }
}
