//! The unfinished runs found in this browser after a reload, in both modes,
//! that no other tab is running: each with its mode, dataset, settled/total
//! and the origin its requests go to, and *Resume it* / *Discard* each.

use crate::state::resume::Offer;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Resume banner props.
#[derive(Properties, PartialEq)]
pub struct ResumeBannerProps {
    /// Language.
    pub lang: Lang,
    /// The unfinished runs, newest first.
    pub offers: Rc<Vec<Rc<Offer>>>,
    /// A run is going.
    pub disabled: bool,
    /// Resume the run of this id.
    pub on_resume: Callback<String>,
    /// Forget the run of this id.
    pub on_discard: Callback<String>,
}

fn offer_view(p: &ResumeBannerProps, o: &Offer) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let id = o.stored.run_id.clone();
    let resume = p.on_resume.reform({
        let id = id.clone();
        move |_: MouseEvent| id.clone()
    });
    let discard = p.on_discard.reform({
        let id = id.clone();
        move |_: MouseEvent| id.clone()
    });
    let mode = o.mode().title().get(p.lang);
    html! {
        <div class="warning" data-testid="resume-offer" key={id.clone()} data-run-id={id}
            data-mode={o.mode().code()} data-dataset={o.stored.dataset_name.clone()}>
            <span class="badge" data-testid="offer-mode">{mode}</span>{" "}
            {o.summary(p.lang)}
            <button class="primary" data-testid="resume-run" disabled={p.disabled} onclick={resume}>{t("继续运行", "Resume it")}</button>
            <button data-testid="discard-run" disabled={p.disabled} onclick={discard}>{t("丢弃", "Discard")}</button>
        </div>
    }
}

/// The resume banner (nothing when no run is offered).
#[component]
pub fn ResumeBanner(p: &ResumeBannerProps) -> Html {
    if p.offers.is_empty() {
        return html! {};
    }
    let several = (p.offers.len() > 1).then(|| {
        let n = p.offers.len();
        html! { <p data-testid="resume-count">{p.lang.pick(
            &format!("本浏览器中有 {n} 个未完成的运行，请选择要继续的运行："),
            &format!("{n} unfinished runs in this browser: choose the one to resume."),
        ).to_string()}</p> }
    });
    html! {
        <section class="panel resume" data-testid="resume-offers">
            { several.unwrap_or_default() }
            { for p.offers.iter().map(|o| offer_view(p, o)) }
        </section>
    }
}
