//! Entry point of the dialog mode's bundle (`?mode=dialog`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::DialogRoot, state::Mode};

evalpage_web::zip_split_point!();

fn main() {
    evalpage_web::start::<DialogRoot>(Mode::Dialog, Some(zipper));
}
