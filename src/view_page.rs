//! The viewer's page (`?mode=view`), the root of its own Wasm bundle
//! (`src/bin/evalpage-view.rs`): the header and the viewer, nothing of the run modes, so
//! opening a saved run loads none of their code. Its other tabs open the run
//! modes in this page (`effects/modes.rs`), loading their bundles if needed.

use crate::app::use_shown;
use crate::components::header::{use_document_lang, Header};
use crate::effects::{modes, url};
use crate::state::Mode;
use crate::viewer::{use_viewer, ViewerApp};
use evalpage_core::Lang;
use yew::prelude::*;

/// The viewer page's root.
#[component]
pub fn ViewerPage() -> Html {
    let lang = use_state(|| url::read().lang.unwrap_or(Lang::Zh));
    let again = {
        let lang = lang.clone();
        Callback::from(move |_: ()| {
            if let Some(l) = url::read().lang {
                lang.set(l);
            }
        })
    };
    let shown = use_shown(Mode::View, again);
    let state = use_viewer();
    use_document_lang(*lang, shown);
    if !shown {
        return html! {};
    }
    let on_lang = {
        let lang = lang.clone();
        Callback::from(move |l| lang.set(l))
    };
    let on_mode = {
        let lang = *lang;
        Callback::from(move |m: Mode| {
            if m != Mode::View {
                modes::open(m, lang);
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
