//! What a dialog metric is ([`TurnMetric`]): its registry line, how it
//! scores one turn (Inspect AI's scorer) and how it aggregates the scored
//! rows (Inspect AI's metric); and what the judged metrics share.

use crate::dialog::dataset::{Dialog, TurnPair};
use crate::dialog::trace::{DialogTrace, TurnTrace};
use crate::dialog::turn_eval::{JudgedPart, MetricRun, ScoreOptions, TurnEval, TurnJudgement};
use crate::dialog::vocab::TurnStatus;
use crate::metric::MetricType;
use serde_json::Value;

/// One turn pair of a valid dialog, as every metric reads it.
#[derive(Clone, Copy, Debug)]
pub struct TurnInput<'a> {
    /// The dialog (its `profile_gt` and turns).
    pub dialog: &'a Dialog,
    /// The terms its profile forbids (M2's `forbidden_terms`, read once per
    /// dialog).
    pub forbidden: &'a [String],
    /// The pair's ground truth (`pair.tags`).
    pub pair: &'a TurnPair,
    /// The dialog's trace.
    pub trace: &'a DialogTrace,
    /// The trace's turn (`None`: the trace has no such turn, scored as failed).
    pub turn: Option<&'a TurnTrace>,
    /// The judge's verdicts on the turn.
    pub judged: Option<&'a TurnJudgement>,
    /// The run's scoring choices.
    pub options: ScoreOptions,
    /// The turn's status (`error` when the trace has no such turn).
    pub status: TurnStatus,
    /// The answer (empty when there is none).
    pub answer: &'a str,
}

impl TurnInput<'_> {
    /// §7: only an `ok` turn can be eligible.
    pub fn ok(&self) -> bool {
        self.status == TurnStatus::Ok
    }
}

/// A metric's aggregate over a run's rows, for `metrics_summary.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aggregate {
    /// The value over the scored rows (kept only when there is one).
    pub value: Option<f64>,
    /// Numerator, denominator and the metric's own extras (a JSON object).
    pub details: Value,
    /// A `reason` the metric gives whatever its status (M1's turns without
    /// recall); `None` leaves the summary's own.
    pub reason: Option<String>,
}

/// How a metric scores one turn (Inspect AI's scorer): fills the metric's
/// fields of the row, its `eligible_<key>` (§7) and `<key>_status`, and
/// returns why the turn is not eligible or not scored. A failed turn's reason
/// is replaced by its status (`score::score_turn`). Listed in
/// `metrics::SCORERS`, apart from the [`TurnMetric`]s, so that what only
/// reads saved rows (the viewer's summary) links no scoring.
pub type Scorer = fn(&TurnInput<'_>, &mut TurnEval) -> Option<&'static str>;

/// One dialog metric of spec 001: declared as a `const` in its own file and
/// listed once in `metrics::REGISTRY`.
#[derive(Clone, Copy)]
pub struct TurnMetric {
    /// Its registry line (`metric::dialog`): the name in
    /// `metrics_summary.json` and the description given as its `definition`.
    pub ty: &'static MetricType,
    /// The key of its row fields: `eligible_<key>`, `<key>_status` and
    /// `skip_reasons[<key>]`.
    pub key: &'static str,
    /// The row's `eligible_<key>` and `<key>_status`.
    pub run: fn(&TurnEval) -> (bool, MetricRun),
    /// The aggregate over the scored rows (`scored`) of all `rows`.
    pub aggregate: fn(scored: &[&TurnEval], rows: &[TurnEval]) -> Aggregate,
    /// What is missing when no eligible row was run (the `reason` of a
    /// `not_run` metric).
    pub not_run: &'static str,
}

impl std::fmt::Debug for TurnMetric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnMetric")
            .field("name", &self.ty.name)
            .field("key", &self.key)
            .finish()
    }
}

/// `num / den`, none when `den` is 0.
pub fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// The skip reason of a judged metric without a verdict (`not_run`).
pub const NO_JUDGE: &str = "no judge verdict for this turn (judged metrics need a judge model)";
/// The skip reason of an unreadable verdict (counted as `unscored_count`).
pub const UNSCORED: &str = "unscored: the judge's verdict could not be read";
/// The skip reason of a failed judge call (counted as `unscored_count`).
pub const JUDGE_FAILED: &str = "unscored: the judge call failed";
/// The summary's `reason` of a judged metric nothing predicted.
pub const NO_JUDGE_MODEL: &str =
    "no judge model: this metric needs a judge's verdicts and none were given";

/// Whether a judged part was scored on a turn (`eligible` by §7, `has`
/// a verdict, the judge's `part`).
pub fn judged_status<T>(eligible: bool, has: bool, part: Option<&JudgedPart<T>>) -> MetricRun {
    match (eligible, has, part) {
        (false, _, _) => MetricRun::NotEligible,
        (true, true, _) => MetricRun::Scored,
        (true, false, None) => MetricRun::NotRun,
        (true, false, Some(_)) => MetricRun::Unscored,
    }
}

/// Why a judged part gives no verdict: no verdict, a failed call, or an
/// unreadable one; `None` when it has one.
pub fn judge_skip<T>(part: Option<&JudgedPart<T>>) -> Option<&'static str> {
    match part {
        None => Some(NO_JUDGE),
        Some(p) if p.value.is_none() && p.error.is_some() => Some(JUDGE_FAILED),
        Some(p) if p.value.is_none() => Some(UNSCORED),
        Some(_) => None,
    }
}
