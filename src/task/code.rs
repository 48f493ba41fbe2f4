//! The task mode's code that checks a task and renders its prompts
//! ([`TaskCode`]: the YAML reader and the Jinja engine) behind a wasm-split
//! point, so that neither is in the task mode's first load. The page fetches
//! it as soon as the mode is up ([`fetch`], from `use_task`) and hands it to
//! the state; a failed fetch shows under the editor with a retry. *Start*
//! pressed before it came fetches it first (`TaskLaunch::fetch`) and checks
//! the task with it before the run is prepared. The point (`task_code`) is
//! declared in the task bin with [`split_point!`](crate::split_point).

use crate::split::{self, Loader, SplitCode, SplitFuture};
use crate::task::state::code::TaskCode;
use crate::task::state::{EditAction, TaskAction, TaskState};
use crate::NotLoaded;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::UseReducerHandle;

/// The code on its way.
pub type CodeFuture = SplitFuture<TaskCode>;

thread_local! {
    static CODE: SplitCode<TaskCode> = const { SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub fn set_loader(loader: Option<Loader<TaskCode>>) {
    CODE.with(|c| c.set_loader(loader));
}

/// The task code, once loaded in this page load.
pub fn loaded() -> Option<TaskCode> {
    CODE.with(SplitCode::loaded)
}

/// `page` checked with the loaded code if it was made before the code came.
pub fn checked(page: &Rc<TaskState>) -> Rc<TaskState> {
    match (page.editors.code, loaded()) {
        (None, Some(code)) => Rc::new(page.with_code(code)),
        _ => page.clone(),
    }
}

/// Loads the task code (once per page load; a failed fetch is tried again at
/// the next call) and hands it to `state`, or tells `state` it failed.
pub async fn load(state: UseReducerHandle<TaskState>) -> Result<(), NotLoaded> {
    let code = split::load(&CODE).await;
    state.dispatch(match code {
        Ok(code) => TaskAction::Edit(EditAction::CodeLoaded(code)),
        Err(NotLoaded) => TaskAction::Edit(EditAction::CodeFailed),
    });
    code.map(drop)
}

/// [`load`] in the background (the page's first fetch, and *Try again*): a
/// failure shows under the editor.
pub fn fetch(state: UseReducerHandle<TaskState>) {
    crate::effects::spawn(async move {
        let _ = load(state).await;
    });
}

/// Why a task cannot be checked: its code could not be fetched, in `lang`.
pub fn not_loaded(lang: Lang) -> &'static str {
    lang.pick(
        "检查任务的代码未能加载，请检查网络后重试",
        "The code that checks the task could not be fetched; check the network and try again",
    )
}
