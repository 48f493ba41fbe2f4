//! Downloads of a finished task run: one zip with every artifact and both
//! event logs, and `report.json` alone.

use crate::components::zip_button::ZipButton;
use crate::effects::download;
use crate::state::RunFiles;
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
    pub artifacts: Option<Rc<RunFiles>>,
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
    let report_json = {
        let a = a.clone();
        Callback::from(move |_: MouseEvent| {
            let text = a.file("report.json").unwrap_or_default();
            if let Err(e) = download::save("report.json", "application/json", text) {
                report("report.json", e);
            }
        })
    };
    html! {
        <section class="panel downloads">
            <h2>{p.lang.pick("下载", "Downloads")}</h2>
            <ZipButton name={ZIP_NAME} files={Rc::new(a.files.clone())} ended_at_ms={a.ended_at_ms} lang={p.lang} />
            <button data-testid="download-task-report" onclick={report_json}>{"report.json"}</button>
        </section>
    }
}
