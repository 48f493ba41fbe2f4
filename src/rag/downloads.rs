//! Downloads of the finished run: the report (the source of truth), the event
//! log in json-seq and JSONL, under spec 000's names
//! (`eval_rag_report.json`, `eval_rag_report.events.*`), and report.md.

use crate::components::zip_button::ZipButton;
use crate::effects::download;
use crate::rag::state::Artifacts;
use evalpage_core::Lang;
use evalpage_core::RunKind;
use std::rc::Rc;
use yew::prelude::*;

/// Downloads props.
#[derive(Properties, PartialEq)]
pub struct DownloadsProps {
    /// Language.
    pub lang: Lang,
    /// Artifacts, once the run stopped.
    pub artifacts: Option<Rc<Artifacts>>,
}

/// The downloads bar.
/// Name of the zip of every file of a RAG check.
pub const ZIP_NAME: &str = "evalpage-rag-run.zip";

#[component]
pub fn Downloads(p: &DownloadsProps) -> Html {
    let Some(a) = p.artifacts.clone() else {
        return html! {};
    };
    let button = |testid: &'static str,
                  name: &'static str,
                  mime: &'static str,
                  pick: fn(&Artifacts) -> &str| {
        let a = a.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            if let Err(e) = download::save(name, mime, pick(&a)) {
                web_sys::console::error_1(&format!("download of {name} failed: {e}").into());
            }
        });
        html! { <button data-testid={testid} {onclick}>{name}</button> }
    };
    html! {
        <section class="panel downloads">
            <h2>{p.lang.pick("下载", "Downloads")}</h2>
            {button("download-report", RunKind::Rag.names().report, "application/json", |a| &a.report_json)}
            {button("download-events", RunKind::Rag.names().json_seq, "application/json-seq", |a| &a.events_json_seq)}
            {button("download-events-jsonl", RunKind::Rag.names().jsonl, "application/jsonl", |a| &a.events_jsonl)}
            {button("download-md", "report.md", "text/markdown", |a| &a.markdown)}
            <ZipButton name={ZIP_NAME} files={Rc::new(a.files.clone())} ended_at_ms={a.ended_at_ms} lang={p.lang} />
        </section>
    }
}
