//! Adding a model to a task run the way the RAG check takes one: the shared
//! endpoint form (presets, base URL, model, the key of the endpoint's origin,
//! in memory here) and *Add model*. The model joins the task's model list,
//! ticked, beside the mock models and the registry's.

use crate::components::endpoint_form::EndpointForm;
use crate::state::keys::TargetLine;
use crate::state::ModelSettings;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Endpoint panel props.
#[derive(Properties, PartialEq)]
pub struct EndpointPanelProps {
    /// Language.
    pub lang: Lang,
    /// The form as edited.
    pub settings: Rc<ModelSettings>,
    /// No edits while a run is going.
    pub disabled: bool,
    /// The form was edited.
    pub on_change: Callback<ModelSettings>,
    /// *Add model* pressed.
    pub on_add: Callback<()>,
    /// Origins with a key typed in this page.
    pub key_origins: Rc<Vec<(String, bool)>>,
    /// *Forget keys* pressed.
    pub on_forget_keys: Callback<()>,
    /// Where the requests of this endpoint go.
    pub target: Option<Rc<TargetLine>>,
}

/// The panel.
#[component]
pub fn EndpointPanel(p: &EndpointPanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let problem = p.settings.problem().map(|(zh, en)| p.lang.pick(zh, en));
    let add = p.on_add.reform(|_: MouseEvent| ());
    html! {
        <section class="panel" data-testid="task-endpoint-panel">
            <h2>{t("添加端点模型", "Add an endpoint model")}</h2>
            <p class="muted">{t("与 RAG 评测相同的 OpenAI 兼容端点；加入上面的模型列表，通过同一引擎调用。",
                "An OpenAI-compatible endpoint, as in the RAG check; it joins the models above and is called through the same engine.")}</p>
            <EndpointForm lang={p.lang} settings={p.settings.clone()} disabled={p.disabled} on_change={p.on_change.clone()}
                key_origins={p.key_origins.clone()} on_forget_keys={p.on_forget_keys.clone()} target={p.target.clone()} />
            <button class="primary" data-testid="add-endpoint-model" disabled={p.disabled || problem.is_some()} onclick={add}>
                {t("添加模型", "Add model")}</button>
            if let Some(why) = problem { <span class="muted" data-testid="add-endpoint-blocked">{" "}{why}</span> }
        </section>
    }
}
