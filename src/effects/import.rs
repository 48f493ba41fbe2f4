//! Other evaluators' files opened in the viewer (promptfoo, Inspect AI,
//! lm-evaluation-harness, OpenAI Evals): read by the core's importers
//! (`evalpage_core::view::open_import`), which the viewer's bin fetches only
//! when such a file is opened (its split point `import`): the viewer's first
//! load does not carry them.

use evalpage_core::view::ViewData;

/// What opens another tool's files: [`open_import`], reached through the
/// bin's split point.
pub type ImportOpen = fn(&str, &[(String, Vec<u8>)], Option<usize>) -> Result<ViewData, String>;

/// The value of the split point `import`.
pub fn open_import(
    label: &str,
    files: &[(String, Vec<u8>)],
    limit: Option<usize>,
) -> Result<ViewData, String> {
    // the page shows the error's text
    evalpage_core::view::open_import_first(label, files, limit).map_err(|e| e.to_string())
}

/// Files larger than this (in all) show their first [`FIRST`] samples while
/// the rest is read.
const BIG: usize = 16 << 20;

/// The samples of a big file's first look.
const FIRST: usize = 2_000;

thread_local! {
    static LOADER: crate::split::SplitCode<ImportOpen> = const { crate::split::SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub(crate) fn set_loader(loader: Option<crate::split::Loader<ImportOpen>>) {
    LOADER.with(|l| l.set_loader(loader));
}

/// Another tool's files as a run, the importers fetched the first time.
/// A big file (over 16 MB) is shown first with its first 2,000 samples
/// (`first`, when given, gets them), then whole.
pub async fn open(
    label: &str,
    files: &[(String, Vec<u8>)],
    first: Option<&dyn Fn(ViewData)>,
) -> Result<ViewData, String> {
    let open = crate::split::load(&LOADER).await.map_err(|_| {
        format!("{label}: the reader of other tools' files could not be loaded (is the page offline?); try again")
    })?;
    let size: usize = files.iter().map(|(_, b)| b.len()).sum();
    if let (Some(show), true) = (first, size > BIG) {
        if let Ok(some) = open(label, files, Some(FIRST)) {
            show(some);
            // Let the page draw them (a frame or two) before the whole file
            // is read.
            gloo_timers::future::TimeoutFuture::new(100).await;
        }
    }
    open(label, files, None)
}
