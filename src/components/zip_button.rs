//! The one download of every file of a finished run, as a zip of stored
//! entries, with the list of what is in it. Every run mode uses it.
//!
//! The zip writer sits behind a wasm-split point, so it is in no mode's first
//! load and is fetched (once per page load) when a zip is first asked for;
//! when that fetch fails the button says so and a click tries again. The
//! point is declared in each bin that shows this button ([`zip_split_point!`])
//! and handed to [`crate::start`]: the macro exports the split function from
//! the crate it is written in, so written here it would be linked into every
//! bin, the viewer's too, which makes no zip.

use evalpage_core::Lang;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use yew::prelude::*;

use crate::effects::download;

/// Why a zip was not made: its code could not be fetched, or the writer
/// refused the files.
#[derive(Debug)]
pub enum ZipError {
    /// The split module with the zip writer did not load.
    NotLoaded,
    /// The writer's error.
    Write(String),
}

impl From<wasm_split_helpers::SplitLoaderError> for ZipError {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> ZipError {
        ZipError::NotLoaded
    }
}

/// A zip on its way.
pub type ZipFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, ZipError>>>>;

/// What makes the zip of (file name, text) pairs ended at a time (ms): a bin's
/// split point, see [`zip_split_point!`].
pub type Zipper = fn(Rc<Vec<(String, String)>>, u64) -> ZipFuture;

thread_local! {
    static ZIPPER: Cell<Option<Zipper>> = const { Cell::new(None) };
}

/// The bin's zip maker, set once by [`crate::start`].
pub(crate) fn set_zipper(zipper: Option<Zipper>) {
    ZIPPER.with(|z| z.set(zipper));
}

/// The zip itself, called from a bin's split point.
pub fn write_zip(files: &[(String, String)], ended_at_ms: u64) -> Result<Vec<u8>, ZipError> {
    crate::archive::zip_files(files, ended_at_ms).map_err(ZipError::Write)
}

/// The zip of `files` ended at `ended_at_ms` (fetching the writer the first
/// time), or why it was not made, in `lang`.
pub async fn zip(
    files: Rc<Vec<(String, String)>>,
    ended_at_ms: u64,
    lang: Lang,
) -> Result<Vec<u8>, String> {
    let made = match ZIPPER.with(Cell::get) {
        Some(zipper) => zipper(files, ended_at_ms).await,
        None => Err(ZipError::Write("this bundle makes no zip".into())),
    };
    made.map_err(|e| match e {
        ZipError::NotLoaded => lang
            .pick(
                "打包代码未能加载，请检查网络后再点一次",
                "the code that makes the zip could not be fetched; check the network and click again",
            )
            .to_string(),
        ZipError::Write(e) => e,
    })
}

/// Declares, in a bin, the wasm-split point of the run's zip and a
/// [`Zipper`] named `zipper` that calls it, for [`crate::start`].
#[macro_export]
macro_rules! zip_split_point {
    () => {
        #[::wasm_split_helpers::wasm_split(zip, fallible)]
        fn make_zip(
            files: ::std::rc::Rc<::std::vec::Vec<(String, String)>>,
            ended_at_ms: u64,
        ) -> ::std::result::Result<::std::vec::Vec<u8>, $crate::components::zip_button::ZipError> {
            $crate::components::zip_button::write_zip(&files, ended_at_ms)
        }

        fn zipper(
            files: ::std::rc::Rc<::std::vec::Vec<(String, String)>>,
            ended_at_ms: u64,
        ) -> $crate::components::zip_button::ZipFuture {
            ::std::boxed::Box::pin(make_zip(files, ended_at_ms))
        }
    };
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
            wasm_bindgen_futures::spawn_local(async move {
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
