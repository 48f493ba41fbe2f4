//! The metric types a task can use, with their keys and an example entry,
//! straight from the core's one metric registry (never a second list).

use evalpage_core::{metrics_of_kind, Lang, RunKind};
use yew::prelude::*;

/// Metric hints props.
#[derive(Properties, PartialEq)]
pub struct MetricHintsProps {
    /// Language.
    pub lang: Lang,
}

/// A collapsed list of every metric type: description, keys, example.
#[component]
pub fn MetricHints(p: &MetricHintsProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    html! {
        <details class="metric-hints" data-testid="metric-types">
            <summary>{t("可用的指标类型", "Metric types you can use")}</summary>
            <dl>
                { for metrics_of_kind(RunKind::Task).map(|m| html! {
                    <>
                        <dt data-testid="metric-type"><code>{m.name}</code></dt>
                        <dd>
                            {p.lang.pick(m.description_zh, m.description)}
                            <ul>{ for m.keys.iter().map(|k| html! { <li><code>{k.name}</code>{": "}{k.description}</li> }) }</ul>
                            <pre>{format!("- type: {}\n{}", m.name, indent(m.example))}</pre>
                        </dd>
                    </>
                }) }
            </dl>
        </details>
    }
}

/// The example's lines under `- type:`, indented as a list entry.
fn indent(example: &str) -> String {
    example
        .lines()
        .filter(|l| !l.trim_start().starts_with("type:"))
        .map(|l| format!("  {l}\n"))
        .collect()
}
