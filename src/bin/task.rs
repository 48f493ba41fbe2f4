//! Entry point of the task mode's bundle (`?mode=task`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::TaskRoot, state::Mode};

fn main() {
    evalpage_web::start::<TaskRoot>(Mode::Task);
}
