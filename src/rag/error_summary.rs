//! The error summary (every failing case with its reasons), the CORS hint when
//! calls could not reach the endpoint, and the Notes.

use crate::rag::state::{Artifacts, RunSnapshot};
use crate::state::{Provider, PRESETS};
use evalpage_core::rag::reasons;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Error summary props.
#[derive(Properties, PartialEq)]
pub struct ErrorSummaryProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<RunSnapshot>>,
    /// Finished artifacts (for Notes).
    pub artifacts: Option<Rc<Artifacts>>,
    /// Provider in use.
    pub provider: Provider,
    /// Endpoint, to pick the CORS advice.
    pub base_url: String,
    /// The Notes when there are no artifacts (a saved run in the viewer).
    #[prop_or_default]
    pub notes: Option<Rc<Vec<String>>>,
}

/// The error summary panel.
#[component]
pub fn ErrorSummary(p: &ErrorSummaryProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let Some(run) = &p.run else { return html! {} };
    let failing: Vec<(String, Vec<String>)> = run
        .results
        .iter()
        .flatten()
        .filter(|r| !r.passed())
        .map(|r| {
            let case = &run.cases[r.index];
            (case.id.clone(), reasons(p.lang, case, r))
        })
        .collect();
    html! {
        <section class="panel">
            <h2>{t("错误汇总", "Error summary")}</h2>
            if run.network_errors > 0 && p.provider == Provider::Openai { {cors_hint(p.lang, &p.base_url, run.network_errors)} }
            if failing.is_empty() { <p class="muted">{t("暂无不符合的用例。", "No failing case so far.")}</p> }
            <ul data-testid="error-summary">
                { for failing.into_iter().map(|(id, why)| html!{ <li><strong>{id}</strong>{": "}{why.join(" / ")}</li> }) }
            </ul>
            if let Some(notes) = p.artifacts.as_ref().map(|a| &a.notes).or(p.notes.as_deref()) {
                <pre class="notes" data-testid="notes">{notes.join("\n")}</pre>
            }
        </section>
    }
}

fn cors_hint(lang: Lang, base_url: &str, count: usize) -> Html {
    let fix = PRESETS
        .iter()
        .find(|p| {
            base_url.contains(
                p.base_url
                    .trim_end_matches("/v1")
                    .rsplit(':')
                    .next()
                    .unwrap_or(""),
            )
        })
        .map(|p| p.cors_fix);
    html! {
        <div class="warning" data-testid="cors-hint">
            <p>{format!("{count} {}", lang.pick(
                "个请求没有到达端点。浏览器无法区分“服务未运行”和“服务不允许本页面跨域访问（CORS）”。",
                "requests never reached the endpoint. A browser cannot tell a server that is down from one that does not allow this page's origin (CORS)."))}</p>
            <p>{lang.pick(
                "请确认服务在运行，并让它对本页面的来源返回 Access-Control-Allow-Origin 响应头。",
                "Check that the server runs and that it answers this page's origin with an Access-Control-Allow-Origin header.")}</p>
            if let Some(f) = fix { <p>{f}</p> }
        </div>
    }
}
