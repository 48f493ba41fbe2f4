//! The statistics of human review: how far an automatic judge agrees with
//! human labels, and what the judge's pass rate becomes once its errors are
//! accounted for. Pure and exact: no clock, no I/O; the one random source is
//! the caller's seed ([`corrected_pass_rate_ci`]).
//!
//! - between two raters: [`raw_agreement`], Cohen's κ ([`cohen_kappa`],
//!   nominal; [`cohen_kappa_quadratic`], weighted by the squared distance on
//!   an ordered scale);
//! - between several reviewers with missing labels: Krippendorff's α
//!   ([`krippendorff_alpha`], [`Level::Nominal`] or [`Level::Ordinal`]), and
//!   the [`majority`] label of one case;
//! - a judge's pass/fail verdicts against human labels ([`judge_vs_human`]):
//!   the [`Confusion`] table, agreement, κ, TPR and TNR as [`Rate`]s with
//!   Wilson intervals ([`wilson`]);
//! - the judge-corrected pass rate (Rogan–Gladen, [`corrected_pass_rate`])
//!   and its seeded percentile bootstrap interval
//!   ([`corrected_pass_rate_ci`], [`DEFAULT_RESAMPLES`]).
//!
//! People's labels are a file of append-only events ([`LabelEvent`],
//! [`read_labels`]); [`agree`] measures a run's verdicts against them per
//! metric and model (`agreement.json`), [`kappa_below`] is the CI gate
//! ([`kappa_gate`] over [`KappaRow`]s: also `evalpage compare`'s, from an
//! `agreement.json` or a judge's `human_kappa`).
//! Labels also travel to and from Langfuse scores ([`to_langfuse`]) and
//! Arize Phoenix span annotations ([`to_phoenix`]); [`read_any`] reads any
//! of the three shapes back into events.
//!
//! A figure that can be undefined is a `Result<_, Undefined>` whose
//! [`Undefined`] carries a short reason to show instead of a number; NaN
//! never comes out. κ, quadratic κ, α and the Wilson interval equal
//! scikit-learn's `cohen_kappa_score`, the `krippendorff` package's `alpha`
//! and statsmodels' `proportion_confint(method="wilson")` to 1e-9 on the
//! seeded fixtures of `tests/reference/agreement/` (undefined exactly where
//! the reference gives NaN or raises); the test is `reference_tests.rs`.

mod exchange;
mod gate;
mod labels;
mod markdown;
mod measured;
mod queue;
mod stats;
mod verdicts;

#[cfg(test)]
mod reference_tests;

pub use exchange::{read_any, to_langfuse, to_phoenix};
pub use gate::{kappa_gate, kappa_rows, kappa_rows_of_agreement, kappa_rows_of_judges, KappaRow};
pub use labels::{
    latest, read_labels, to_jsonl, Label, LabelEvent, LabelKey, LabelProblem, LabelsFile,
};
pub use markdown::agreement_markdown;
pub use measured::{
    agree, kappa_below, AgreeOptions, Agreed, Agreement, Ci, ConfusionTable, Figures, LeftOut,
    ReviewerFigures, ReviewerPair, Scheme,
};
pub use queue::{offered_schemes, review_queue, view_scores};
pub use stats::{
    cohen_kappa, cohen_kappa_quadratic, krippendorff_alpha, majority, raw_agreement, wilson,
    Interval, Level, Undefined,
};
pub use verdicts::{
    corrected_pass_rate, corrected_pass_rate_ci, judge_vs_human, BootstrapInterval, Confusion,
    JudgeAgreement, Rate, DEFAULT_RESAMPLES,
};
