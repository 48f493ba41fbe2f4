//! The dialog judge's prompts behind a wasm-split point. They are compiled by
//! the Jinja engine (minijinja), which nothing else in the dialog mode's
//! bundle needs, so the engine is in no first load: the function that makes
//! them is fetched (once per page load) when a run with a judge is first
//! started, before the run is prepared (`ModeLaunch::fetch`), and a failed
//! fetch fails that start with a message (the next *Start* tries again). The
//! point (`judges`) is declared in the dialog bin with
//! [`split_point!`](crate::split_point).

use crate::split::{self, Loader, SplitCode};
use crate::NotLoaded;
use evalpage_core::dialog::JudgePrompts;
use evalpage_core::Lang;

/// What makes the judge's prompts in a language
/// (`evalpage_core::dialog::judge_prompts`, reached through the split point).
pub type PromptMaker = fn(Lang) -> JudgePrompts;

thread_local! {
    static MAKER: SplitCode<PromptMaker> = const { SplitCode::new() };
}

/// The bin's split point, set once by [`crate::app::start`].
pub(crate) fn set_loader(loader: Option<Loader<PromptMaker>>) {
    MAKER.with(|m| m.set_loader(loader));
}

/// The prompts in `lang`, if their code has loaded in this page load.
pub fn made(lang: Lang) -> Option<JudgePrompts> {
    MAKER.with(SplitCode::loaded).map(|make| make(lang))
}

/// True once the code that makes the prompts has loaded.
pub fn ready() -> bool {
    MAKER.with(SplitCode::loaded).is_some()
}

/// Fetches the code that makes the prompts (the first time), or says, in
/// `lang`, why it could not.
pub async fn make(lang: Lang) -> Result<(), String> {
    split::load(&MAKER).await.map(drop).map_err(|NotLoaded| {
        lang.pick(
            "评审的代码未能加载，请检查网络后再点一次“开始”",
            "The judge's code could not be fetched; check the network and press Start again",
        )
        .to_string()
    })
}
