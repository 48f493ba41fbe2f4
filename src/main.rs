//! Entry point of the RAG check's bundle (`evalpage-web`): the
//! page's first load when the URL names no other mode.

use evalpage_web::{app::RagRoot, state::Mode, Splits};

evalpage_web::run_split_point!(evalpage_web::rag::launch::RagLaunch);
evalpage_web::zip_split_point!();

fn main() {
    evalpage_web::start::<RagRoot>(
        Mode::Rag,
        Splits {
            run: Some(run_code),
            zipper: Some(zipper),
            ..Splits::default()
        },
    );
}
