//! Resuming from a downloaded event log, in both modes: the log is taken over
//! the loaded dataset (RAG) or the loaded task, dataset and models (task).

use evalpage_core::Lang;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Resume-from-log props.
#[derive(Properties, PartialEq)]
pub struct ResumeLogProps {
    /// Language.
    pub lang: Lang,
    /// The task mode's (the log is resumed over the loaded task, dataset and
    /// models rather than the loaded dataset).
    #[prop_or_default]
    pub task: bool,
    /// A run is going.
    pub disabled: bool,
    /// An event log file was chosen.
    pub on_resume_log: Callback<web_sys::File>,
}

/// The file input.
#[component]
pub fn ResumeLog(p: &ResumeLogProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let onchange = {
        let cb = p.on_resume_log.clone();
        Callback::from(move |e: Event| {
            if let Some(file) = super::chosen_file(&e) {
                cb.emit(file);
            }
            // the same log can be chosen again after a failed attempt
            if let Some(i) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            {
                i.set_value("");
            }
        })
    };
    html! {
        <section class="panel resume-log">
            <label class="inline">{if p.task {
                    t("从下载的任务事件日志续跑（对当前的任务、数据集和模型，只发送未完成的调用）：",
                      "Resume from a downloaded task event log (over the loaded task, dataset and models; only unfinished calls are sent):")
                } else {
                    t("从下载的事件日志续跑（对当前数据集，只发送未完成的用例）：",
                      "Resume from a downloaded event log (over the loaded dataset; only unfinished cases are sent):")
                }}
                <input type="file" accept=".jsonl,.json-seq,.json,.txt" data-testid="resume-log-file" disabled={p.disabled} {onchange} />
            </label>
        </section>
    }
}
