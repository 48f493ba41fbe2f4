//! The dialog judge's prompts behind a wasm-split point. They are compiled by
//! the Jinja engine (minijinja), which nothing else in the dialog mode's
//! bundle needs, so the engine is in no first load: it is fetched (once per
//! page load) when a run with a judge is first started, before the run is
//! prepared (`ModeLaunch::fetch`), and a failed fetch fails that start with
//! a message (the next *Start* tries again). The point is declared in the
//! dialog bin ([`judge_split_point!`]) and handed to [`crate::start`], for
//! the reason `components::zip_button` gives.

use crate::NotLoaded;
use evalpage_core::dialog::JudgePrompts;
use evalpage_core::Lang;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;

/// The prompts on their way.
pub type PromptsFuture = Pin<Box<dyn Future<Output = Result<JudgePrompts, NotLoaded>>>>;

/// What makes the judge's prompts in a language: a bin's split point, see
/// [`judge_split_point!`].
pub type PromptMaker = fn(Lang) -> PromptsFuture;

thread_local! {
    static MAKER: Cell<Option<PromptMaker>> = const { Cell::new(None) };
    static MADE: RefCell<Vec<(Lang, JudgePrompts)>> = const { RefCell::new(Vec::new()) };
}

/// The bin's prompt maker, set once by [`crate::start`].
pub(crate) fn set_maker(maker: Option<PromptMaker>) {
    MAKER.with(|m| m.set(maker));
}

/// The prompts in `lang`, if made in this page load.
pub fn made(lang: Lang) -> Option<JudgePrompts> {
    MADE.with(|m| {
        m.borrow()
            .iter()
            .find(|(l, _)| *l == lang)
            .map(|(_, p)| p.clone())
    })
}

/// Makes the prompts in `lang` (fetching their code the first time), or
/// says, in `lang`, why they could not be made.
pub async fn make(lang: Lang) -> Result<(), String> {
    let Some(maker) = MAKER.with(Cell::get) else {
        return Err(lang
            .pick("此页面不含评审提示词", "This page has no judge prompts")
            .to_string());
    };
    let prompts = maker(lang).await.map_err(|NotLoaded| {
        lang.pick(
            "评审的代码未能加载，请检查网络后再点一次“开始”",
            "The judge's code could not be fetched; check the network and press Start again",
        )
        .to_string()
    })?;
    MADE.with(|m| m.borrow_mut().push((lang, prompts)));
    Ok(())
}

/// Declares, in a bin, the wasm-split point of the dialog judge's prompts and
/// a [`PromptMaker`] named `judge_prompts` that calls it, for [`crate::start`].
#[macro_export]
macro_rules! judge_split_point {
    () => {
        #[::wasm_split_helpers::wasm_split(judges, fallible)]
        fn make_judge_prompts(
            lang: ::evalpage_core::Lang,
        ) -> ::std::result::Result<::evalpage_core::dialog::JudgePrompts, $crate::NotLoaded> {
            Ok(::evalpage_core::dialog::judge_prompts(lang))
        }

        fn judge_prompts(lang: ::evalpage_core::Lang) -> $crate::dialog::judges::PromptsFuture {
            ::std::boxed::Box::pin(make_judge_prompts(lang))
        }
    };
}
