//! The regression gate of `evalpage compare --fail-if-drop METRIC=DELTA`: a
//! rule fails when the metric's mean paired drop (`base - new`) is larger than
//! DELTA **and** significant at the comparison's alpha: McNemar's exact p <
//! alpha for a 0/1 metric, otherwise the paired bootstrap interval at level
//! 1 - alpha lying wholly below 0 (the interval of the drop excluding 0). A
//! drop within DELTA passes; a larger drop that chance explains passes too,
//! and says so. When pairing goes by model, a rule checks the metric of each
//! model and fails when one of them fails.

use super::{Comparison, MetricRow};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Drops closer than this to the allowance are within it.
const EPS: f64 = 1e-12;

/// `METRIC=DELTA`: the largest drop of the metric's mean that is allowed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Metric name.
    pub metric: String,
    /// Allowed drop (≥ 0), in the metric's units.
    pub max_drop: f64,
}

impl Rule {
    /// Reads `METRIC=DELTA` (DELTA a finite number ≥ 0; the last `=` splits).
    pub fn parse(text: &str) -> Result<Rule, String> {
        let Some((metric, delta)) = text.rsplit_once('=') else {
            return Err(format!("{text:?} is not METRIC=DELTA (e.g. accuracy=0.02)"));
        };
        let metric = metric.trim();
        if metric.is_empty() {
            return Err(format!("{text:?} names no metric (METRIC=DELTA)"));
        }
        match delta.trim().parse::<f64>() {
            Ok(d) if d.is_finite() && d >= 0.0 => Ok(Rule {
                metric: metric.to_string(),
                max_drop: d,
            }),
            _ => Err(format!(
                "{text:?}: DELTA must be a number ≥ 0 (the largest allowed drop), not {:?}",
                delta.trim()
            )),
        }
    }
}

/// What a rule says about one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// The drop is within the allowance (or the metric rose).
    Within,
    /// The drop is larger than allowed, but not significant.
    NotSignificant,
    /// The drop is larger than allowed and significant: the gate fails.
    Fail,
}

/// A rule's verdict on one row, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateVerdict {
    /// The rule.
    pub rule: Rule,
    /// The row's model, when pairing goes by model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The outcome.
    pub outcome: GateOutcome,
    /// One line: the drop, the allowance, the test and its result.
    pub reason: String,
}

/// A rule that cannot be checked: bad input, not a verdict.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GateError {
    /// The metric is not in both reports.
    #[error("--fail-if-drop {metric}: {} (base has: {}; new has: {})", absent(.missing, .metric), list(.base), list(.new))]
    UnknownMetric {
        /// The metric.
        metric: String,
        /// `base`, `new` or `base and new`.
        missing: &'static str,
        /// Base's metrics.
        base: Vec<String>,
        /// New's metrics.
        new: Vec<String>,
    },
    /// Both reports have the metric, but no case is scored in both.
    #[error("--fail-if-drop {0}: no case has a {0} score in both reports, so there is nothing to compare")]
    NoPairs(String),
}

fn absent(missing: &str, metric: &str) -> String {
    if missing == "base and new" {
        format!("neither report has a metric {metric:?}")
    } else {
        format!("the {missing} report has no metric {metric:?}")
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// A p-value with the figures that matter: four decimals, or two significant
/// digits in scientific notation below 0.001.
pub fn fmt_p(p: f64) -> String {
    if p == 0.0 {
        "< 1e-300".into()
    } else if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Checks each rule against the comparison. `base_metrics` and `new_metrics`
/// are the metrics each report has ([`super::metrics`]); a rule naming a
/// metric one of them lacks, or one no case pairs on, is an error.
pub fn check(
    cmp: &Comparison,
    rules: &[Rule],
    base_metrics: &[String],
    new_metrics: &[String],
) -> Result<Vec<GateVerdict>, GateError> {
    let mut out = Vec::new();
    for rule in rules {
        let m = &rule.metric;
        let missing = match (base_metrics.contains(m), new_metrics.contains(m)) {
            (true, true) => None,
            (false, true) => Some("base"),
            (true, false) => Some("new"),
            (false, false) => Some("base and new"),
        };
        if let Some(missing) = missing {
            return Err(GateError::UnknownMetric {
                metric: m.clone(),
                missing,
                base: base_metrics.to_vec(),
                new: new_metrics.to_vec(),
            });
        }
        let rows: Vec<&MetricRow> = cmp.rows_of(m).filter(|r| r.n > 0).collect();
        if rows.is_empty() {
            return Err(GateError::NoPairs(m.clone()));
        }
        out.extend(rows.into_iter().map(|r| verdict(rule, r, cmp.alpha)));
    }
    Ok(out)
}

/// The `(1 - alpha)` level as a percentage, e.g. `95%`.
pub fn level(alpha: f64) -> String {
    let pct = (1.0 - alpha) * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else {
        format!("{pct}%")
    }
}

fn verdict(rule: &Rule, r: &MetricRow, alpha: f64) -> GateVerdict {
    // `+ 0.0` turns a drop of -0 into 0.
    let drop = -r.delta + 0.0;
    let who = match &r.model {
        Some(m) => format!("{} ({m})", rule.metric),
        None => rule.metric.clone(),
    };
    let (outcome, reason) = if drop <= rule.max_drop + EPS {
        (
            GateOutcome::Within,
            format!(
                "{who}: drop {drop:.4} within the allowed {} (base {:.4}, new {:.4}, n = {})",
                rule.max_drop, r.base, r.new, r.n
            ),
        )
    } else {
        let (significant, test) = match (&r.mcnemar, r.ci) {
            (Some(t), _) => (
                t.p < alpha,
                format!(
                    "McNemar exact p = {} {} {alpha} (b = {} regressions, c = {} improvements)",
                    fmt_p(t.p),
                    if t.p < alpha { "<" } else { "≥" },
                    t.b,
                    t.c
                ),
            ),
            (None, Some((lo, hi))) => (
                hi < 0.0,
                format!(
                    "paired {} bootstrap interval of the change [{lo:.4}, {hi:.4}] {}",
                    level(alpha),
                    if hi < 0.0 { "excludes 0" } else { "includes 0" }
                ),
            ),
            (None, None) => (false, "no paired case".to_string()),
        };
        if significant {
            (
                GateOutcome::Fail,
                format!(
                    "{who}: drop {drop:.4} > allowed {} and significant: {test}",
                    rule.max_drop
                ),
            )
        } else {
            (
                GateOutcome::NotSignificant,
                format!(
                    "{who}: drop {drop:.4} > allowed {} but not significant: {test}",
                    rule.max_drop
                ),
            )
        }
    };
    GateVerdict {
        rule: rule.clone(),
        model: r.model.clone(),
        outcome,
        reason,
    }
}
