//! The prompt of the dataset's first sample as the model will receive it,
//! or why it cannot be rendered; updated live with the task and dataset.

use crate::task::state::data::Preview;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Prompt preview props.
#[derive(Properties, PartialEq)]
pub struct PromptPreviewProps {
    /// Language.
    pub lang: Lang,
    /// The preview (`None` while the task is invalid).
    pub preview: Option<Rc<Preview>>,
}

/// The preview.
#[component]
pub fn PromptPreview(p: &PromptPreviewProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let body = match p.preview.as_deref() {
        None => {
            html! { <p class="muted">{t("任务有效后显示。", "Shown once the task is valid.")}</p> }
        }
        Some(Preview::NoSample) => {
            html! { <p class="muted">{t("数据集中没有有效样本。", "The dataset has no valid sample.")}</p> }
        }
        Some(Preview::Failed { sample_id, message }) => html! {
            <p class="error" data-testid="prompt-preview-error">{format!("{sample_id}: {message}")}</p>
        },
        Some(Preview::Messages {
            sample_id,
            messages,
        }) => html! {
            <div data-testid="prompt-preview">
                <p class="muted">{format!("{} {sample_id}", t("样本", "Sample"))}</p>
                { for messages.iter().map(|m| html!{
                    <div class="message">
                        <span class="role">{&m.role}</span>
                        <pre data-testid="prompt-message" tabindex="0">{&m.content}</pre>
                    </div>
                }) }
            </div>
        },
    };
    html! {
        <section class="panel">
            <h2>{t("提示词预览（第一个样本）", "Prompt preview (first sample)")}</h2>
            {body}
        </section>
    }
}
