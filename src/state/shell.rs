//! The shell's state, which every mode's root shares: the language, the key
//! ring and the origins confirmed in this page load, and which mode shows.

use super::keys::{Confirmed, KeyRing};
use evalpage_core::Lang;
use std::rc::Rc;
use yew::Reducible;

/// Which evaluation the page shows: the RAG check or a prompt-driven task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// The RAG check (questions, keypoints, cited documents).
    #[default]
    Rag,
    /// A task (spec 004): YAML contract, several models side by side.
    Task,
    /// A retrieval evaluation (spec 000): ranked lists from a retrieval endpoint.
    Retrieval,
    /// Multi-turn dialogs (spec 001): played turn by turn, or a trace scored.
    Dialog,
    /// The viewer of saved runs (issue 12).
    View,
}

impl Mode {
    /// Parses `rag` / `task` (the `mode` URL parameter).
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "rag" => Some(Mode::Rag),
            "task" => Some(Mode::Task),
            "retrieval" => Some(Mode::Retrieval),
            "dialog" => Some(Mode::Dialog),
            "view" => Some(Mode::View),
            _ => None,
        }
    }

    /// `rag` or `task`.
    pub fn code(self) -> &'static str {
        match self {
            Mode::Rag => "rag",
            Mode::Task => "task",
            Mode::Retrieval => "retrieval",
            Mode::Dialog => "dialog",
            Mode::View => "view",
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
