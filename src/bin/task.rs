//! Entry point of the task mode's bundle (`?mode=task`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::launch::run_here;
use evalpage_web::task::launch::TaskLaunch;
use evalpage_web::{app::TaskRoot, components::zip_button::zip_here, state::Mode, Splits};

fn main() {
    // No split points yet (built without wasm-split): the run code is
    // handed as it is, and so is the zip writer, which the task mode's batch
    // export has in its first load anyway.
    evalpage_web::start::<TaskRoot>(
        Mode::Task,
        Splits {
            run: Some(run_here::<TaskLaunch>),
            zipper: Some(zip_here),
            ..Splits::default()
        },
    );
}
