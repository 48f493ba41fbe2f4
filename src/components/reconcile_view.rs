//! Reconciliation (spec 000 section 5): load a final report and an event log and
//! see whether they agree; a cut-off last record is tolerated and noted.

use crate::effects::files;
use evalpage_core::events::{self, Reconciliation};
use evalpage_core::Lang;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Reconcile view props.
#[derive(Properties, PartialEq)]
pub struct ReconcileViewProps {
    /// Language.
    pub lang: Lang,
}

fn picker(
    slot: UseStateHandle<Option<Rc<Vec<u8>>>>,
    error: UseStateHandle<Option<String>>,
) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input: Option<HtmlInputElement> = e.target().and_then(|t| t.dyn_into().ok());
        let Some(file) = input
            .as_ref()
            .and_then(|i| i.files())
            .and_then(|f| f.get(0))
        else {
            return;
        };
        let (slot, error) = (slot.clone(), error.clone());
        files::read_then(file, move |read| match read {
            Ok((_, bytes)) => slot.set(Some(Rc::new(bytes))),
            Err(e) => error.set(Some(e)),
        });
    })
}

fn compare(report: &[u8], log: &[u8]) -> Result<Reconciliation, String> {
    let report: serde_json::Value = serde_json::from_slice(report).map_err(|e| {
        format!(
            "report.json is not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        )
    })?;
    Ok(events::reconcile(&report, &events::read(log)))
}

/// The reconcile view.
#[component]
pub fn ReconcileView(p: &ReconcileViewProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let report = use_state(|| None::<Rc<Vec<u8>>>);
    let log = use_state(|| None::<Rc<Vec<u8>>>);
    let error = use_state(|| None::<String>);
    let result = match (&*report, &*log) {
        (Some(r), Some(l)) => Some(compare(r, l)),
        _ => None,
    };
    html! {
        <section class="panel">
            <h2>{t("对账：最终报告 vs 事件日志", "Reconcile a final report with an event log")}</h2>
            <label>{"report.json"}<input type="file" accept=".json" data-testid="reconcile-report" onchange={picker(report.clone(), error.clone())} /></label>
            <label>{t("事件日志（json-seq 或 JSONL）", "Event log (json-seq or JSONL)")}
                <input type="file" data-testid="reconcile-events" onchange={picker(log.clone(), error.clone())} /></label>
            if let Some(e) = &*error { <p class="error">{e.clone()}</p> }
            { match result {
                None => html! {},
                Some(Err(e)) => html! { <p class="error" data-testid="reconcile-result">{e}</p> },
                Some(Ok(r)) => html! {
                    <div>
                        <p data-testid="reconcile-result" class={if r.ok { "ok" } else { "bad" }}>
                            {if r.ok { t("一致", "agree") } else { t("不一致", "disagree") }}</p>
                        <table class="cases">
                            <thead><tr><th>{t("检查", "check")}</th><th>{"report.json"}</th><th>{t("事件日志", "event log")}</th><th><span class="visually-hidden">{t("结果", "result")}</span></th></tr></thead>
                            <tbody>{ for r.checks.iter().map(|c| html!{
                                <tr><td>{&c.name}</td><td>{&c.report}</td><td>{&c.log}</td><td>{if c.ok { "✓" } else { "✗" }}</td></tr>
                            }) }</tbody>
                        </table>
                        { for r.notes.iter().map(|n| html!{ <p class="muted">{n}</p> }) }
                    </div>
                },
            } }
        </section>
    }
}
