//! The one download of every file of a finished run, as a zip of stored
//! entries, with the list of what is in it. Every run mode uses it.
//!
//! The zip writer sits behind a wasm-split point, so it is in no mode's first
//! load and is fetched (once per page load) when a zip is first asked for;
//! when that fetch fails the button says so and a click tries again. The
//! point (`zip`) is declared in each bin that shows this button, with
//! [`split_point!`](crate::split_point).

use crate::effects::{download, spawn};
use crate::split::{self, Loader, SplitCode};
use crate::NotLoaded;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// What makes the zip of (file name, text) pairs ended at a time (ms):
/// `archive::zip_files`, reached through the bin's split point.
pub type Zipper = fn(&[(String, String)], u64) -> Result<Vec<u8>, String>;

thread_local! {
    static ZIPPER: SplitCode<Zipper> = const { SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub(crate) fn set_loader(loader: Option<Loader<Zipper>>) {
    ZIPPER.with(|z| z.set_loader(loader));
}

/// The zip of `files` ended at `ended_at_ms` (fetching the writer the first
/// time), or why it was not made, in `lang`.
pub async fn zip(
    files: Rc<Vec<(String, String)>>,
    ended_at_ms: u64,
    lang: Lang,
) -> Result<Vec<u8>, String> {
    let zipper = split::load(&ZIPPER).await.map_err(|NotLoaded| {
        lang.pick(
            "打包代码未能加载，请检查网络后再点一次",
            "the code that makes the zip could not be fetched; check the network and click again",
        )
        .to_string()
    })?;
    zipper(&files, ended_at_ms)
}

/// Zip button props.
#[derive(Properties, PartialEq)]
pub struct ZipButtonProps {
    /// The zip's file name.
    pub name: &'static str,
    /// (file name, text) of every file.
    pub files: Rc<Vec<(String, String)>>,
    /// When the run ended, ms (the entries' time).
    pub ended_at_ms: u64,
    /// The page's language (for the line a failed zip shows).
    pub lang: Lang,
}

/// The zip download and the names of its files.
#[component]
pub fn ZipButton(p: &ZipButtonProps) -> Html {
    let failed = use_state(|| None::<String>);
    let onclick = {
        let (name, files, ended, lang) = (p.name, p.files.clone(), p.ended_at_ms, p.lang);
        let failed = failed.clone();
        Callback::from(move |_: MouseEvent| {
            let (files, failed) = (files.clone(), failed.clone());
            spawn(async move {
                let why = match zip(files, ended, lang).await {
                    Ok(bytes) => download::save_bytes(name, "application/zip", &bytes).err(),
                    Err(e) => Some(e),
                };
                if let Some(e) = &why {
                    web_sys::console::error_1(&format!("download of {name} failed: {e}").into());
                }
                failed.set(why);
            });
        })
    };
    let names: Vec<&str> = p.files.iter().map(|(n, _)| n.as_str()).collect();
    html! {
        <>
            <button class="primary" data-testid="download-zip" {onclick}>{p.name}</button>
            if let Some(why) = &*failed {
                <p class="error" role="alert" data-testid="zip-failed">
                    {p.lang.pick("未能生成压缩包：", "The zip was not made: ")}{why}
                </p>
            }
            <p class="muted">{names.join(" · ")}</p>
        </>
    }
}
