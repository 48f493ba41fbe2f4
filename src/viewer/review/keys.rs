//! The review's keys: what each key does under a label scheme, and each
//! label's key for its button.

use evalpage_core::review::{Label, Scheme};

/// What a key does in a review.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum KeyAction {
    Give(Label),
    Next,
    Previous,
    Skip,
    /// To a place in the queue (a click in the list of cases still unlabelled).
    Go(usize),
}

/// The action of `key` under `scheme`.
pub(super) fn key_action(key: &str, scheme: &Scheme) -> Option<KeyAction> {
    match key {
        "ArrowRight" | "j" => return Some(KeyAction::Next),
        "ArrowLeft" | "k" => return Some(KeyAction::Previous),
        "s" => return Some(KeyAction::Skip),
        _ => {}
    }
    match scheme {
        Scheme::PassFail { .. } => match key {
            "p" => Some(KeyAction::Give(Label::Pass)),
            "f" => Some(KeyAction::Give(Label::Fail)),
            _ => None,
        },
        Scheme::Rating { lo, hi } => {
            let n: i64 = key.parse().ok()?;
            (key.len() == 1 && (*lo..=*hi).contains(&n))
                .then_some(KeyAction::Give(Label::Rating(n)))
        }
        Scheme::Categories(c) => {
            let n: usize = key.parse().ok()?;
            let name = c.get(n.checked_sub(1)?)?;
            (key.len() == 1).then(|| KeyAction::Give(Label::Category(name.clone())))
        }
    }
}

/// The key of each label of a scheme, for the buttons' hints.
pub(super) fn key_of(label: &Label, scheme: &Scheme) -> String {
    match (scheme, label) {
        (Scheme::PassFail { .. }, Label::Pass) => "p".into(),
        (Scheme::PassFail { .. }, Label::Fail) => "f".into(),
        (Scheme::Categories(c), Label::Category(name)) => c
            .iter()
            .position(|x| x == name)
            .filter(|i| *i < 9)
            .map(|i| (i + 1).to_string())
            .unwrap_or_default(),
        (_, Label::Rating(n)) if (0..=9).contains(n) => n.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_give_labels_by_scheme_and_move() {
        let pf = Scheme::default();
        assert_eq!(key_action("p", &pf), Some(KeyAction::Give(Label::Pass)));
        assert_eq!(key_action("f", &pf), Some(KeyAction::Give(Label::Fail)));
        assert_eq!(key_action("3", &pf), None);
        assert_eq!(key_action("j", &pf), Some(KeyAction::Next));
        assert_eq!(key_action("ArrowLeft", &pf), Some(KeyAction::Previous));
        let r = Scheme::Rating { lo: 1, hi: 5 };
        assert_eq!(key_action("4", &r), Some(KeyAction::Give(Label::Rating(4))));
        assert_eq!(key_action("6", &r), None);
        let c = Scheme::Categories(vec!["good".into(), "bad".into()]);
        assert_eq!(
            key_action("2", &c),
            Some(KeyAction::Give(Label::Category("bad".into())))
        );
        assert_eq!(key_action("3", &c), None);
        assert_eq!(key_of(&Label::Category("bad".into()), &c), "2");
    }
}
