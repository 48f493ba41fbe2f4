//! Reads a big `report.json` a slice of scores at a time between turns of
//! the browser's event loop (the core's `view::Slices`), so opening a
//! 100,000-case report never freezes the page: the first rows show after the
//! first slice, the whole table when every score is read.

use evalpage_core::view::{Slices, ViewData};
use yew::Callback;

/// Scores read per slice (a few tens of milliseconds).
const SLICE: usize = 10_000;

/// Reads `s` to its end: `on_first` gets the table after the first slice
/// (when there is more to read), `on_done` the whole table or the error.
pub fn read(
    mut s: Slices,
    on_first: Callback<ViewData>,
    on_done: Callback<Result<ViewData, String>>,
) {
    super::spawn(async move {
        let mut first = true;
        loop {
            match s.step(SLICE) {
                Ok(true) => return on_done.emit(Ok(s.finish())),
                Ok(false) if first => {
                    first = false;
                    on_first.emit(s.view());
                }
                Ok(false) => {}
                Err(e) => return on_done.emit(Err(e.to_string())),
            }
            gloo_timers::future::TimeoutFuture::new(0).await;
        }
    });
}
