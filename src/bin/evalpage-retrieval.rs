//! Entry point of the retrieval mode's bundle (`?mode=retrieval`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_core::RunKind;
use evalpage_web::app::Splits;
use evalpage_web::components::zip_button::Zipper;
use evalpage_web::launch::{run_code, AnyRunFns};
use evalpage_web::retrieval::launch::RetrievalLaunch;
use evalpage_web::retrieval::RetrievalRoot;
use evalpage_web::{archive, split_point, state::Mode};

split_point!(run, run: AnyRunFns = run_code::<RetrievalLaunch>());
split_point!(zip, zip: Zipper = archive::zip_files);

fn main() {
    evalpage_web::app::start::<RetrievalRoot>(
        Mode::Run(RunKind::Retrieval),
        Splits {
            run: Some(run),
            zip: Some(zip),
            ..Splits::default()
        },
    );
}
