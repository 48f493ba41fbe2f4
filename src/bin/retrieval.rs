//! Entry point of the retrieval mode's bundle (`?mode=retrieval`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::RetrievalRoot, state::Mode, Splits};

evalpage_web::run_split_point!(evalpage_web::retrieval::launch::RetrievalLaunch);
evalpage_web::zip_split_point!();

fn main() {
    evalpage_web::start::<RetrievalRoot>(
        Mode::Retrieval,
        Splits {
            run: Some(run_code),
            zipper: Some(zipper),
            ..Splits::default()
        },
    );
}
