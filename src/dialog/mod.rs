//! The dialog mode (`?mode=dialog`): spec 001's multi-turn dialogs in the
//! page. Dialogs come from the user's disk (or the built-in demo dialogs);
//! "Start" plays them turn by turn against the OpenAI-compatible endpoint
//! named here (base URL, model, and the key of its origin) through the one
//! launch path (saved in this browser, resumed after a reload: `launch`),
//! or, with no URL, the dialog mock
//! in the page; "Score trace" scores a `dialog_trace.jsonl` picked here with
//! no model call (`evalpage score --dialogs`). Either way the page shows the
//! per-metric summary and each dialog as a conversation with each turn's
//! verdicts, and offers the five files (and a run's event logs) as one zip
//! and `metrics_summary.json`.

pub mod conversation;
mod inputs;
pub mod judges;
pub mod launch;
pub mod results;
pub mod run;
pub mod state;
mod table;

use crate::components::resume_banner::ResumeBanner;
use crate::dialog::state::{DialogAction, DialogState};
use crate::effects::now_ms;
use crate::launch as run_launch;
use crate::state::resume::Offers;
use crate::state::{Mode, ShellState};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use launch::{DialogLaunch, DialogSlot};
use std::rc::Rc;
use yew::prelude::*;

/// The mode's state and its run, kept by the app for the page load (call
/// once, in the app). Its runs go through the one launch path: the Web
/// Lock, the IndexedDB journal, the resume offer after a reload, and the key
/// of the endpoint's origin.
#[hook]
pub fn use_dialog(
    offers: UseReducerHandle<Offers>,
    shell: UseReducerHandle<ShellState>,
) -> DialogLaunch {
    let state = use_reducer(DialogState::default);
    let slot = use_memo((), |_| DialogSlot::default());
    DialogLaunch {
        state,
        slot: (*slot).clone(),
        offers,
        shell,
    }
}

/// Scores the picked trace with no model call.
fn score(mode: &DialogLaunch) {
    let started = now_ms();
    match mode.state.score(started, now_ms()) {
        Ok(r) => mode.state.dispatch(DialogAction::Scored(Rc::new(r))),
        Err(why) => mode
            .state
            .dispatch(DialogAction::Failed(Rc::from(why.as_str()))),
    }
}

/// Dialog page props.
#[derive(Properties, PartialEq)]
pub struct DialogAppProps {
    /// Language.
    pub lang: Lang,
    /// The mode's state and run.
    pub mode: DialogLaunch,
    /// Switch mode (to resume a run of another mode).
    pub on_mode: Callback<Mode>,
}

/// The dialog page.
#[component]
pub fn DialogApp(p: &DialogAppProps) -> Html {
    let lang = p.lang;
    let on_start = {
        let m = p.mode.clone();
        Callback::from(move |_: MouseEvent| run_launch::endpoint_fields::start_checked(&m, false))
    };
    {
        let m = p.mode.clone();
        use_effect_with(
            (m.offers.pending.clone(), m.offers.list.clone()),
            move |_| run_launch::resume_pending(&m),
        );
    }
    let (on_resume, on_discard) = run_launch::offer_buttons(&p.mode, &p.on_mode);
    let on_score = {
        let mode = p.mode.clone();
        Callback::from(move |_: MouseEvent| score(&mode))
    };
    let on_cancel = {
        let slot = p.mode.slot.clone();
        Callback::from(move |_: MouseEvent| slot.cancel())
    };
    html! {
        <div class="dialog-mode">
            <ResumeBanner {lang} offers={p.mode.offers.list.clone()} disabled={p.mode.state.running()} {on_resume} {on_discard} />
            <inputs::DialogInputs {lang} mode={p.mode.clone()} {on_start} {on_score} {on_cancel} />
            <results::DialogResultsView {lang} state={p.mode.state.clone()} />
            <crate::components::metric_list::MetricList {lang} kind={evalpage_core::RunKind::Dialog} />
        </div>
    }
}

/// The dialog mode's root (the `evalpage-dialog` bundle).
#[component]
pub fn DialogRoot() -> Html {
    let shell = crate::app::use_shell(Mode::Run(RunKind::Dialog));
    let mode = use_dialog(shell.offers.clone(), shell.state.clone());
    let lang = shell.state.lang;
    shell.page(html! { <DialogApp {lang} {mode} on_mode={shell.on_mode.clone()} /> })
}
