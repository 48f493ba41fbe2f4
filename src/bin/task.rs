//! Entry point of the task mode's bundle (`?mode=task`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::TaskRoot, components::zip_button::zip_here, state::Mode, Splits};

fn main() {
    // No split point for the zip: the task mode's batch export has the zip
    // writer in its first load anyway.
    evalpage_web::start::<TaskRoot>(
        Mode::Task,
        Splits {
            zipper: Some(zip_here),
            ..Splits::default()
        },
    );
}
