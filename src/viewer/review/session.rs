//! A review under way, and which rows a reviewer has labelled.

use evalpage_core::review::{Label, LabelEvent, Scheme};
use evalpage_core::view::ViewData;

/// A review under way.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Session {
    pub(super) metric: String,
    pub(super) scheme: Scheme,
    pub(super) reviewer: String,
    pub(super) blind: bool,
    /// Rows of the run to label, in order, each with its automatic verdict.
    pub(super) queue: Vec<(usize, Option<Label>)>,
    /// The place in `queue` shown.
    pub(super) pos: usize,
    /// When the case was shown, ms.
    pub(super) shown_at: u64,
}

/// The rows `reviewer` has labelled for `metric`.
pub(super) fn labelled_by(
    d: &ViewData,
    events: &[LabelEvent],
    metric: &str,
    reviewer: &str,
) -> Vec<usize> {
    d.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            events.iter().any(|e| {
                e.metric == metric
                    && e.reviewer == reviewer
                    && e.case_id == r.id
                    && e.model == r.model
            })
        })
        .map(|(i, _)| i)
        .collect()
}
