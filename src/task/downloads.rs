//! Downloads of a finished task run: one zip with every artifact and both
//! event logs, and `report.json` alone.

use crate::archive::zip_files;
use crate::effects::download;
use crate::state::TaskArtifacts;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Name of the zip download.
pub const ZIP_NAME: &str = "evalpage-task-run.zip";

/// Task downloads props.
#[derive(Properties, PartialEq)]
pub struct TaskDownloadsProps {
    /// Language.
    pub lang: Lang,
    /// Artifacts, once the run stopped.
    pub artifacts: Option<Rc<TaskArtifacts>>,
}

fn report(name: &str, e: String) {
    web_sys::console::error_1(&format!("download of {name} failed: {e}").into());
}

/// The downloads bar.
#[component]
pub fn TaskDownloads(p: &TaskDownloadsProps) -> Html {
    let Some(a) = p.artifacts.clone() else {
        return html! {};
    };
    let zip = {
        let a = a.clone();
        Callback::from(move |_: MouseEvent| {
            let saved = zip_files(&a.files, a.ended_at_ms)
                .and_then(|bytes| download::save_bytes(ZIP_NAME, "application/zip", &bytes));
            if let Err(e) = saved {
                report(ZIP_NAME, e);
            }
        })
    };
    let report_json = {
        let a = a.clone();
        Callback::from(move |_: MouseEvent| {
            let text = a.file("report.json").unwrap_or_default();
            if let Err(e) = download::save("report.json", "application/json", text) {
                report("report.json", e);
            }
        })
    };
    let names: Vec<&str> = a.files.iter().map(|(n, _)| n.as_str()).collect();
    html! {
        <section class="panel downloads">
            <h2>{p.lang.pick("下载", "Downloads")}</h2>
            <button class="primary" data-testid="download-zip" onclick={zip}>{ZIP_NAME}</button>
            <button data-testid="download-task-report" onclick={report_json}>{"report.json"}</button>
            <p class="muted">{names.join(" · ")}</p>
        </section>
    }
}
