//! The metrics one kind of evaluation computes (a retrieval run's, a dialog
//! run's), with what each scores and what it needs, straight from the core's
//! one metric registry.

use evalpage_core::{metrics_of_kind, Lang, RunKind};
use yew::prelude::*;

/// Metric list props.
#[derive(Properties, PartialEq)]
pub struct MetricListProps {
    /// Language.
    pub lang: Lang,
    /// The kind whose metrics are listed.
    pub kind: RunKind,
}

/// A collapsed list of the kind's metrics: name, description, what it needs.
#[component]
pub fn MetricList(p: &MetricListProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    html! {
        <details class="metric-hints" data-testid={format!("metrics-{}", p.kind.tag())}>
            <summary>{t("指标说明", "What the metrics mean")}</summary>
            <dl>
                { for metrics_of_kind(p.kind).map(|m| html! {
                    <>
                        <dt data-testid="metric-name"><code>{m.name}</code></dt>
                        <dd>{p.lang.pick(m.description_zh, m.description)}
                            <br /><span class="muted">{t("需要：", "Needs: ")}{m.needs}</span></dd>
                    </>
                }) }
            </dl>
        </details>
    }
}
