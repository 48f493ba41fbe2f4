//! Overall accuracy and citation rate, live as cases finish.

use crate::state::RunSnapshot;
use evalpage_core::console::percent;
use evalpage_core::scorer::REGISTRY;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Metrics props.
#[derive(Properties, PartialEq)]
pub struct MetricsProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<RunSnapshot>>,
}

/// The metrics panel. Descriptions come from the core's metric registry.
#[component]
pub fn MetricsPanel(p: &MetricsProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let m = p.run.as_ref().map(|r| r.metrics.clone());
    let show = |v: Option<f64>| v.map_or("—".to_string(), percent);
    let describe = |name: &str| {
        REGISTRY
            .iter()
            .find(|i| i.name == name)
            .map(|i| p.lang.pick(i.description_zh, i.description_en))
            .unwrap_or("")
    };
    let has = m.as_ref().filter(|m| m.cases_total > 0);
    html! {
        <section class="panel metrics">
            <div class="metric" title={describe("accuracy")}>
                <span class="label">{t("整体准确率", "Accuracy")}</span>
                <span class="value" data-testid="metric-accuracy">{show(has.map(|m| m.accuracy))}</span>
                <span class="muted">{has.map(|m| format!("{}/{}", m.accurate_cases, m.cases_total)).unwrap_or_default()}</span>
            </div>
            <div class="metric" title={describe("citation")}>
                <span class="label">{t("整体引用率", "Citation rate")}</span>
                <span class="value" data-testid="metric-citation">{show(has.map(|m| m.citation_rate))}</span>
                <span class="muted">{has.map(|m| format!("{}/{}", m.cited_cases, m.cases_total)).unwrap_or_default()}</span>
            </div>
            <div class="metric">
                <span class="label">{t("调用失败", "Failed calls")}</span>
                <span class="value" data-testid="metric-failed">{has.map(|m| m.failed_calls.to_string()).unwrap_or("—".into())}</span>
                <span class="muted">{t("计入分母", "counted in every rate")}</span>
            </div>
        </section>
    }
}
