//! Entry point of the RAG check's bundle (`evalpage-web`, built by Trunk): the
//! page's first load when the URL names no other mode.

use evalpage_web::{app::RagRoot, state::Mode};

fn main() {
    evalpage_web::start::<RagRoot>(Mode::Rag);
}
