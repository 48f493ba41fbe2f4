//! Entry point of the RAG check's bundle (`evalpage-web`): the
//! page's first load when the URL names no other mode.

use evalpage_core::RunKind;
use evalpage_web::app::Splits;
use evalpage_web::components::zip_button::Zipper;
use evalpage_web::effects::local_model::{self, LocalLoad};
use evalpage_web::launch::{run_code, AnyRunFns};
use evalpage_web::rag::launch::RagLaunch;
use evalpage_web::rag::RagRoot;
use evalpage_web::{archive, split_point, state::Mode};

split_point!(run, run: AnyRunFns = run_code::<RagLaunch>());
split_point!(zip, zip: Zipper = archive::zip_files);
split_point!(local, local: LocalLoad = local_model::load_boxed);

fn main() {
    evalpage_web::app::start::<RagRoot>(
        Mode::Run(RunKind::Rag),
        Splits {
            run: Some(run),
            zip: Some(zip),
            local: Some(local),
            ..Splits::default()
        },
    );
}
