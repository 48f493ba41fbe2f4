//! The page's shell, and the root of each run mode's bundle. Each mode is its
//! own Wasm bundle (a bin in `src/bin/`: `evalpage-web` the RAG check,
//! `evalpage-task`, `evalpage-retrieval`, `evalpage-dialog`, and the viewer's
//! `evalpage-view`, `view_page.rs`), which `www/init.js` loads into this one
//! document when the mode is first opened (`effects/modes.rs`). A root runs
//! only its own mode's hooks, and once loaded it keeps its state and its run
//! for the page load: switching modes hides it, and switching back shows it
//! as it was. What every root shares is `use_shell`: the header (modes,
//! language, *Reuse answers*), the URL's parameters, the key ring and
//! language (`ShellState`), and the unfinished runs offered after a reload.
//! Each mode's root is in its folder (`rag::RagRoot`, `task::TaskRoot`,
//! `retrieval::RetrievalRoot`, `dialog::DialogRoot`). [`start`] mounts a
//! bin's root with the loaders of its split points ([`Splits`]). Served at
//! `/` and `/eval`.

use crate::components::header::{use_document_lang, Header};
use crate::effects::{modes, storage, url};
use crate::launch;
use crate::split::Loader;
use crate::state::resume::{Offers, OffersAction};
use crate::state::{Mode, ShellAction, ShellState};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// The shell's first state: the URL's language and the key ring in storage.
fn shell_state(p: &url::PageParams) -> ShellState {
    ShellState {
        lang: p.lang.unwrap_or(Lang::Zh),
        keys: Rc::new(storage::load_keys()),
        ..ShellState::default()
    }
}

/// Whether the mode `mine` is the one shown: the URL's mode when the bundle
/// starts, then on each `evalpage-show` (`then` runs when it shows again).
#[hook]
pub fn use_shown(mine: Mode, then: Callback<()>) -> bool {
    let shown = use_state(|| modes::current() == mine);
    {
        let shown = shown.clone();
        use_effect_with((), move |_| {
            let listener = modes::on_show(Callback::from(move |_| {
                let me = modes::current() == mine;
                if me {
                    then.emit(());
                }
                shown.set(me);
            }));
            move || drop(listener)
        });
    }
    *shown
}

/// Reads the unfinished runs into `offers`, and takes the run the URL asks
/// this mode to resume (`resume=`, always dropped from the URL), picking it
/// when `honour` says so.
fn look_up(offers: &UseReducerHandle<Offers>, honour: bool) {
    launch::find_unfinished(offers);
    if let (Some(id), true) = (modes::take_resume(), honour) {
        offers.dispatch(OffersAction::Pick(Some(id)));
    }
}

/// What every run mode's root shares.
pub struct Shell {
    /// The URL's parameters when the bundle started; `mode` is the mode the
    /// page was opened in, whose parameters they are.
    pub params: Rc<url::PageParams>,
    /// The page's language and key ring.
    pub state: UseReducerHandle<ShellState>,
    /// The unfinished runs offered after a reload.
    pub offers: UseReducerHandle<Offers>,
    /// This mode is the one shown.
    pub shown: bool,
    /// Open another mode.
    pub on_mode: Callback<Mode>,
    mine: Mode,
    reuse: (bool, Callback<bool>),
}

/// The shell of the run mode `mine`: its state, the offers (looked up again
/// each time the mode shows, and the run another mode picked resumed here),
/// the language the URL gives and the key ring in storage when it shows.
#[hook]
pub fn use_shell(mine: Mode) -> Shell {
    let params = use_memo((), |_| {
        let mut p = url::read();
        p.mode = modes::first().or(p.mode);
        p
    });
    let state = use_reducer(|| shell_state(&params));
    let offers = use_reducer(Offers::default);
    {
        // `resume=` is honoured when another mode of this page wrote it (this
        // bundle was loaded by a switch), never from a link the page was
        // opened with: a link does not resume a run by itself.
        let offers = offers.clone();
        use_effect_with((), move |_| look_up(&offers, modes::first() != Some(mine)));
    }
    // The run code (a split module) once the page is up.
    use_effect_with((), |_| launch::prefetch_run_code());
    let again = {
        let (state, offers) = (state.clone(), offers.clone());
        Callback::from(move |_: ()| {
            if let Some(l) = url::read().lang {
                state.dispatch(ShellAction::SetLang(l));
            }
            // Keys typed in another mode meanwhile (each bundle holds its own
            // copy of the ring; storage is the one they share).
            state.dispatch(ShellAction::SetKeys(Rc::new(storage::load_keys())));
            look_up(&offers, true);
        })
    };
    let shown = use_shown(mine, again);
    let lang = state.lang;
    use_document_lang(lang, shown);
    let on_mode = Callback::from(move |m: Mode| {
        if m != mine {
            modes::open(m, lang);
        }
    });
    // *Reuse answers from earlier runs*: read by each run when it starts.
    let reuse = use_state(crate::effects::cache::enabled);
    let on_reuse = {
        let reuse = reuse.clone();
        Callback::from(move |on: bool| {
            crate::effects::cache::set_enabled(on);
            reuse.set(on);
        })
    };
    Shell {
        params,
        state,
        offers,
        shown,
        on_mode,
        mine,
        reuse: (*reuse, on_reuse),
    }
}

impl Shell {
    /// The page around the mode's `body`; nothing while another mode shows.
    pub fn page(&self, body: Html) -> Html {
        if !self.shown {
            return html! {};
        }
        let lang = self.state.lang;
        let on_lang = {
            let state = self.state.clone();
            Callback::from(move |l| state.dispatch(ShellAction::SetLang(l)))
        };
        html! {
            <div class="page">
                <Header {lang} {on_lang} mode={self.mine} on_mode={self.on_mode.clone()}
                    reuse={Some(self.reuse.clone())} />
                <main>{body}</main>
            </div>
        }
    }
}

/// The code a bin fetches after its first load: the loaders of the
/// wasm-split points it declares with [`split_point!`](crate::split_point)
/// (none in the viewer), each named after its point.
#[derive(Default)]
pub struct Splits {
    /// `run`: what runs the bin's mode ([`launch::run_code`]).
    pub run: Option<launch::RunCode>,
    /// `zip`: what makes a finished run's zip (`archive::zip_files`).
    pub zip: Option<Loader<crate::components::zip_button::Zipper>>,
    /// `judges`: what makes the dialog judge's prompts (the dialog mode's bin).
    pub judges: Option<Loader<crate::dialog::judges::PromptMaker>>,
    /// `task_code`: what checks a task and renders its prompts (the task
    /// mode's bin).
    pub task_code: Option<Loader<crate::task::state::code::TaskCode>>,
    /// `local`: what loads a model file on this device (the bins of the
    /// modes that call a model).
    pub local: Option<Loader<crate::effects::local_model::LocalLoad>>,
    /// `parquet`: what reads a Parquet dataset (the task mode's bin).
    pub parquet: Option<Loader<crate::effects::parquet::ParquetRead>>,
    /// `import`: what opens other tools' files (the viewer's bin).
    pub import: Option<Loader<crate::effects::import::ImportOpen>>,
}

/// Mounts the root `C` of the bundle of `mode` on the element `www/init.js`
/// made for it (on `<body>` when there is none), with the bin's split points.
pub fn start<C: yew::BaseComponent<Properties = ()>>(mode: Mode, splits: Splits) {
    evalpage_core::use_nfkc(crate::nfkc);
    crate::components::zip_button::set_loader(splits.zip);
    crate::dialog::judges::set_loader(splits.judges);
    launch::set_run_code(splits.run);
    crate::task::code::set_loader(splits.task_code);
    crate::effects::local_model::set_loader(splits.local);
    crate::effects::parquet::set_loader(splits.parquet);
    crate::effects::import::set_loader(splits.import);
    match modes::root(mode) {
        Some(root) => yew::Renderer::<C>::with_root(root).render(),
        None => yew::Renderer::<C>::new().render(),
    };
}
