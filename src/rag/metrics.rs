//! Overall accuracy and citation rate, live as cases finish, with failed,
//! truncated and not-run cases and the tokens used so far.

use crate::rag::state::RunSnapshot;
use evalpage_core::rag::percent;
use evalpage_core::Lang;
use evalpage_core::{RAG_ACCURACY_DESCRIPTION, RAG_CITATION_DESCRIPTION};
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
    // The registry's descriptions, read at compile time (see RAG_ACCURACY_DESCRIPTION).
    let describe = |(en, zh): (&'static str, &'static str)| p.lang.pick(zh, en);
    let has = m.as_ref().filter(|m| m.cases_total > 0);
    let extra = has.map(|m| {
        let mut parts = vec![t("计入分母", "counted in every rate").to_string()];
        if m.truncated_cases > 0 {
            parts.push(format!(
                "{} {}",
                m.truncated_cases,
                t("个被截断", "truncated")
            ));
        }
        if m.not_run_cases > 0 {
            parts.push(format!(
                "{} {}",
                m.not_run_cases,
                t(
                    "个未运行（运行已停止，续跑即可发送）",
                    "not run (the run stopped: resume to send them)"
                )
            ));
        }
        parts.join(" · ")
    });
    let tokens = p.run.as_ref().map(|r| {
        let (mut prompt, mut completion) = (0u64, 0u64);
        for u in r.results.iter().flatten().filter_map(|c| c.usage.as_ref()) {
            prompt += u.prompt_tokens;
            completion += u.completion_tokens;
        }
        (prompt, completion)
    });
    html! {
        <section class="panel metrics">
            <div class="metric" title={describe(RAG_ACCURACY_DESCRIPTION)}>
                <span class="label">{t("整体准确率", "Accuracy")}</span>
                <span class="value" data-testid="metric-accuracy">{show(has.map(|m| m.accuracy))}</span>
                <span class="muted">{has.map(|m| format!("{}/{}", m.accurate_cases, m.cases_total)).unwrap_or_default()}</span>
            </div>
            <div class="metric" title={describe(RAG_CITATION_DESCRIPTION)}>
                <span class="label">{t("整体引用率", "Citation rate")}</span>
                <span class="value" data-testid="metric-citation">{show(has.map(|m| m.citation_rate))}</span>
                <span class="muted">{has.map(|m| format!("{}/{}", m.cited_cases, m.cases_total)).unwrap_or_default()}</span>
            </div>
            <div class="metric">
                <span class="label">{t("调用失败", "Failed calls")}</span>
                <span class="value" data-testid="metric-failed">{has.map(|m| m.failed_calls.to_string()).unwrap_or("—".into())}</span>
                <span class="muted" data-testid="metric-failed-detail">{extra.unwrap_or_else(|| t("计入分母", "counted in every rate").to_string())}</span>
            </div>
            <div class="metric">
                <span class="label">{t("词元（输入 / 输出）", "Tokens (in / out)")}</span>
                <span class="value" data-testid="metric-tokens">{tokens.filter(|(a, b)| a + b > 0).map(|(a, b)| format!("{a} / {b}")).unwrap_or("—".into())}</span>
                <span class="muted">{t("来自端点的 usage", "as the endpoint reports them")}</span>
            </div>
        </section>
    }
}
