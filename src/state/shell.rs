//! The shell's state, which every mode's root shares: the language, the key
//! ring and the origins confirmed in this page load, and which mode shows.

use super::keys::{Confirmed, KeyRing};
use evalpage_core::{Lang, RunKind, Words};
use std::rc::Rc;
use yew::Reducible;

/// Which evaluation the page shows: a kind's mode, or the viewer. What a
/// kind's mode is called and its `?mode=` code are the kind's declaration
/// (`RunKind::decl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The mode that runs a kind of evaluation.
    Run(RunKind),
    /// The viewer of saved runs (issue 12).
    View,
}

impl Default for Mode {
    /// The RAG check, the page's first tab.
    fn default() -> Self {
        Mode::Run(RunKind::Rag)
    }
}

/// The viewer's name in the tabs.
const VIEW_TITLE: Words = Words {
    zh: "查看已保存的运行",
    en: "Viewer",
};

impl Mode {
    /// Every mode in the order of the page's tabs: each kind's, then the
    /// viewer.
    pub fn all() -> impl Iterator<Item = Mode> {
        RunKind::ALL
            .into_iter()
            .map(Mode::Run)
            .chain(std::iter::once(Mode::View))
    }

    /// Parses a `?mode=` code (a kind's tag, or `view`).
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::all().find(|m| m.code() == s)
    }

    /// The `?mode=` code: the kind's tag, or `view`.
    pub fn code(self) -> &'static str {
        match self {
            Mode::Run(k) => k.tag(),
            Mode::View => "view",
        }
    }

    /// The mode's name in the tabs and on a resume offer's badge.
    pub fn title(self) -> Words {
        match self {
            Mode::Run(k) => k.decl().title,
            Mode::View => VIEW_TITLE,
        }
    }
}

/// What every mode's root shares.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ShellState {
    /// Interface language.
    pub lang: Lang,
    /// Saved API keys by origin.
    pub keys: Rc<KeyRing>,
    /// Origins the user entered a key for or confirmed in this page load.
    pub confirmed: Rc<Confirmed>,
}

/// Everything that changes the shell's state.
#[derive(Clone, Debug)]
pub enum ShellAction {
    /// Switch language.
    SetLang(Lang),
    /// The saved keys changed.
    SetKeys(Rc<KeyRing>),
    /// The user entered a key for, or confirmed, this origin (and agreed to
    /// plain `http://` when the flag is set).
    Confirm(String, bool),
}

impl Reducible for ShellState {
    type Action = ShellAction;

    fn reduce(self: Rc<Self>, action: ShellAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            ShellAction::SetLang(lang) => next.lang = lang,
            ShellAction::SetKeys(keys) => next.keys = keys,
            ShellAction::Confirm(origin, plain_http) => {
                let mut c = (*next.confirmed).clone();
                if plain_http {
                    c.plain_http.insert(origin.clone());
                }
                c.origins.insert(origin);
                next.confirmed = Rc::new(c);
            }
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_switches_and_a_confirmed_origin_is_kept() {
        let s = Rc::new(ShellState::default());
        let s = s.reduce(ShellAction::SetLang(Lang::En));
        assert_eq!(s.lang, Lang::En);
        let s = s.reduce(ShellAction::Confirm("http://h:1".into(), true));
        assert!(s.confirmed.origins.contains("http://h:1"));
        assert!(s.confirmed.plain_http.contains("http://h:1"));
        assert_eq!(Mode::parse("task").map(Mode::code), Some("task"));
        assert_eq!(Mode::parse("x"), None);
    }
}
