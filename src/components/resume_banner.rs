//! Resuming interrupted runs, in both modes: the offer of an unfinished run
//! found after a reload, and resuming from a downloaded event log.

use evalpage_core::Lang;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Resume banner props.
#[derive(Properties, PartialEq)]
pub struct ResumeBannerProps {
    /// Language.
    pub lang: Lang,
    /// The unfinished run's line (what, which, settled/total), if one was found.
    pub offer: Option<Rc<str>>,
    /// The task mode's banner (the log is resumed over the loaded task,
    /// dataset and models rather than the loaded dataset).
    #[prop_or_default]
    pub task: bool,
    /// A run is going.
    pub disabled: bool,
    /// Resume the offered run.
    pub on_resume: Callback<()>,
    /// Forget the offered run.
    pub on_discard: Callback<()>,
    /// Resume from an event log file over the loaded dataset.
    pub on_resume_log: Callback<web_sys::File>,
}

/// The resume banner.
#[component]
pub fn ResumeBanner(p: &ResumeBannerProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let resume = {
        let cb = p.on_resume.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let discard = {
        let cb = p.on_discard.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
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
    let Some(o) = &p.offer else {
        return html! {
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
        };
    };
    html! {
        <section class="panel resume">
            <div class="warning" data-testid="resume-offer">
                {o.to_string()}
                <button class="primary" data-testid="resume-run" disabled={p.disabled} onclick={resume}>{t("继续运行", "Resume it")}</button>
                <button data-testid="discard-run" disabled={p.disabled} onclick={discard}>{t("丢弃", "Discard")}</button>
            </div>
        </section>
    }
}
