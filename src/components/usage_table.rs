//! Tokens, latency and cost per model of a finished run, from the report
//! (`report.usage`, the latency in the run's timings): the same numbers as
//! `report.md` and `summary.csv`. Cost shows only for a priced model.

use evalpage_core::report::EvaluationResult;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Usage table props.
#[derive(Properties, PartialEq)]
pub struct UsageTableProps {
    /// Language.
    pub lang: Lang,
    /// The finished run's report.
    pub report: Option<Rc<EvaluationResult>>,
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "—".into())
}

/// The usage table.
#[component]
pub fn UsageTable(p: &UsageTableProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let Some(r) = &p.report else { return html! {} };
    let rows = &r.report.usage;
    if rows.is_empty() {
        return html! {};
    }
    let priced = rows.iter().any(|u| u.cost.is_some());
    let latency = |model: &str| {
        r.report
            .experiment
            .run
            .as_ref()
            .and_then(|run| run.latency.iter().find(|l| l.model == model))
    };
    // The engine's own speeds, when it timed itself (a model file in the page).
    let timed = rows
        .iter()
        .any(|u| latency(&u.model).is_some_and(|l| l.decode_tokens_per_s.is_some()));
    html! {
        <section class="panel" data-testid="usage">
            <h2>{t("用量、延迟与成本", "Tokens, latency and cost")}</h2>
            <table class="cases">
                <thead><tr>
                    <th>{t("模型", "Model")}</th><th>{t("输入 token", "Prompt tokens")}</th>
                    <th>{t("输出 token", "Completion tokens")}</th><th>{t("推理 token", "Reasoning tokens")}</th>
                    <th>{t("截断", "Truncated")}</th><th>{"p50 ms"}</th><th>{"p95 ms"}</th><th>{t("输出 token/秒", "Output tokens/s")}</th>
                    if timed { <th>{t("提示处理 token/秒", "Prompt tokens/s")}</th><th>{t("生成 token/秒", "Decode tokens/s")}</th> }
                    if priced { <th>{t("成本", "Cost")}</th> }
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|u| {
                        let l = latency(&u.model);
                        html! {
                            <tr data-testid="usage-row">
                                <td>{&u.model}</td><td>{u.prompt_tokens}</td><td>{u.completion_tokens}</td>
                                <td>{u.reasoning_tokens}</td><td>{u.truncated}</td>
                                <td>{opt(l.and_then(|l| l.latency_p50_ms))}</td>
                                <td>{opt(l.and_then(|l| l.latency_p95_ms))}</td>
                                <td>{opt(l.and_then(|l| l.output_tokens_per_s).map(|v| format!("{v:.1}")))}</td>
                                if timed {
                                    <td data-testid="usage-prompt-speed">{opt(l.and_then(|l| l.prompt_tokens_per_s).map(|v| format!("{v:.1}")))}</td>
                                    <td data-testid="usage-decode-speed">{opt(l.and_then(|l| l.decode_tokens_per_s).map(|v| format!("{v:.1}")))}</td>
                                }
                                if priced { <td data-testid="usage-cost">{opt(u.cost.map(|c| format!("{c:.6}")))}</td> }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            { for r.token_limit_hints().iter().map(|h| html! {
                <p class="warning" data-testid="token-limit-hint">{h.message(p.lang)}</p>
            }) }
        </section>
    }
}
