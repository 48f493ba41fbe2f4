//! The viewer's page (`?mode=view`), the root of its own Wasm bundle
//! (`src/bin/view.rs`): the header and the viewer, nothing of the run modes, so
//! opening a saved run loads none of their code. The header's other tabs open
//! the run modes' bundle (a new page load, see `url::open_mode`).

use crate::components::header::{use_document_lang, Header};
use crate::effects::url;
use crate::state::Mode;
use crate::viewer::{use_viewer, ViewerApp};
use evalpage_core::Lang;
use yew::prelude::*;

/// The viewer page's root.
#[component]
pub fn ViewerPage() -> Html {
    let lang = use_state(|| url::read().lang.unwrap_or(Lang::Zh));
    let state = use_viewer();
    use_document_lang(*lang);
    let on_lang = {
        let lang = lang.clone();
        Callback::from(move |l| lang.set(l))
    };
    let on_mode = {
        let lang = *lang;
        Callback::from(move |m: Mode| {
            if m != Mode::View {
                url::open_mode(m, lang);
            }
        })
    };
    html! {
        <div class="page">
            <Header lang={*lang} {on_lang} mode={Mode::View} {on_mode} />
            <main><ViewerApp lang={*lang} {state} /></main>
        </div>
    }
}
