//! The one download of every file of a finished run, as a zip of stored
//! entries, with the list of what is in it. Both modes use it.

use crate::archive::zip_files;
use crate::effects::download;
use std::rc::Rc;
use yew::prelude::*;

/// Zip button props.
#[derive(Properties, PartialEq)]
pub struct ZipButtonProps {
    /// The zip's file name.
    pub name: &'static str,
    /// (file name, text) of every file.
    pub files: Rc<Vec<(String, String)>>,
    /// When the run ended, ms (the entries' time).
    pub ended_at_ms: u64,
}

/// The zip download and the names of its files.
#[component]
pub fn ZipButton(p: &ZipButtonProps) -> Html {
    let onclick = {
        let (name, files, ended) = (p.name, p.files.clone(), p.ended_at_ms);
        Callback::from(move |_: MouseEvent| {
            let saved = zip_files(&files, ended)
                .and_then(|bytes| download::save_bytes(name, "application/zip", &bytes));
            if let Err(e) = saved {
                web_sys::console::error_1(&format!("download of {name} failed: {e}").into());
            }
        })
    };
    let names: Vec<&str> = p.files.iter().map(|(n, _)| n.as_str()).collect();
    html! {
        <>
            <button class="primary" data-testid="download-zip" {onclick}>{p.name}</button>
            <p class="muted">{names.join(" · ")}</p>
        </>
    }
}
