//! Compare two runs (or two models of one run) case by case: issue 12's
//! "Compare" and the `evalpage compare` regression gate.
//!
//! **Pairing.** A score is one `EvalScore` of a saved `EvaluationResult`; its
//! model is `detail.model` (task runs name it; the RAG check and retrieval
//! runs have one unnamed system). Scores pair when they have the same metric
//! and `sample_id` and:
//! - when each report has at most one model, models are ignored (a run of
//!   model A against a run of model B is the usual question);
//! - when either report has several models, the model name must match too, and
//!   each (model, metric) is its own row;
//! - with [`Models`] given, base keeps only the scores of one model and new
//!   only those of another (two models of one report: pass it twice).
//!
//! A case scored on one side only is not paired: it is counted in the row's
//! `only_base` / `only_new` and, when the case has no score at all on the
//! other side, listed in [`Comparison::only_base`] / [`Comparison::only_new`].
//! Unscored values are not paired either: a metric that could not score a
//! sample (a missing label, an unreadable judge verdict) writes no `EvalScore`
//! for it (`value` is always a number), so such a case simply has no score on
//! that side. A run that asked each sample several times (`--repeats`) has
//! one score per answer, each with its `detail.repeat`: a sample's value is
//! then the mean over its repeats, and samples pair on that mean. Otherwise a
//! repeated (model, metric, sample_id) keeps its first score; the repeats are
//! counted in [`Comparison::duplicates`].
//!
//! **Statistics, per row, over the n paired cases only.** `base` and `new` are
//! the paired means (so `delta = new - base` is the mean paired difference;
//! they can differ from the reports' own means when cases are unpaired).
//! - The interval is a paired percentile bootstrap of the mean difference:
//!   B resamples (10,000 by default) of the n cases with replacement, each
//!   case's two scores drawn together, at level `1 - alpha`
//!   ([`stats::bootstrap_ci`]). The resampling uses SplitMix64
//!   ([`stats::SplitMix64`]) from the caller's seed; every row restarts from
//!   the same seed, so a row's interval does not depend on which other rows
//!   exist. Same reports, same seed, same intervals, on every platform.
//! - When every paired value of a row is 0 or 1 (a pass/fail metric), McNemar's
//!   exact two-sided test on the discordant pairs ([`stats::mcnemar`]): with b
//!   regressions (1 → 0) and c improvements (0 → 1), `p = min(1, 2 · P(X ≤
//!   min(b, c)))`, X ~ Bin(b + c, 1/2). Exact binomial, not the chi-square
//!   approximation, and paired: an unpaired two-proportion test on the same
//!   data ignores that both runs answered the same cases and loses most of the
//!   power (see the test `paired_test_finds_what_an_unpaired_test_misses`).
//!
//! **Per-case diff.** Every paired case whose value changed is a regression
//! (new < base) or an improvement (new > base), sorted by the size of the
//! change (largest first, then report order).
//!
//! The gate over these rows (`METRIC=DELTA` rules) is [`gate`].

pub mod gate;
pub mod stats;

use crate::report::EvaluationResult;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use thiserror::Error;

pub use gate::{check as check_gate, fmt_p, level, GateError, GateOutcome, GateVerdict, Rule};
pub use stats::McNemar;

/// Bootstrap resamples unless the caller says otherwise.
pub const RESAMPLES: usize = 10_000;

/// The seed of the bootstrap unless the caller says otherwise.
pub const SEED: u64 = 12;

/// Two values closer than this are the same (no regression, no improvement).
const SAME: f64 = 1e-12;

/// One model of base against one model of new.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Models {
    /// The model whose scores are base.
    pub base: String,
    /// The model whose scores are new.
    pub new: String,
}

/// One metric of base against one metric of new (two tools name the same
/// verdict differently: promptfoo's `pass`, Inspect's `match`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metrics {
    /// The metric whose scores are base (the row is named after it).
    pub base: String,
    /// The metric whose scores are new.
    pub new: String,
}

/// How to compare.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Bootstrap seed.
    pub seed: u64,
    /// Bootstrap resamples (B).
    pub resamples: usize,
    /// 1 - the interval's level; also the gate's significance level.
    pub alpha: f64,
    /// Compare these two models instead of pairing by the reports' models.
    pub models: Option<Models>,
    /// Compare only this metric of base with this metric of new.
    pub metrics: Option<Metrics>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: SEED,
            resamples: RESAMPLES,
            alpha: 0.05,
            models: None,
            metrics: None,
        }
    }
}

/// How the scores were paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pairing {
    /// By sample_id, models ignored (each report has at most one model).
    Case,
    /// By model and sample_id (a report has several models).
    ModelAndCase,
    /// One chosen model of base against one of new, by sample_id.
    Models(Models),
}

/// A case on one side only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseKey {
    /// Its model, when pairing goes by model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Case id.
    pub sample_id: String,
}

/// One paired case whose value changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseDiff {
    /// Its model, when pairing goes by model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Metric.
    pub metric: String,
    /// Case id.
    pub sample_id: String,
    /// Base value.
    pub base: f64,
    /// New value.
    pub new: f64,
}

impl CaseDiff {
    /// `new - base`.
    pub fn delta(&self) -> f64 {
        self.new - self.base
    }
}

/// One metric (of one model, when pairing goes by model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    /// The model, when pairing goes by model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Metric name.
    pub metric: String,
    /// Cases scored on both sides.
    pub n: usize,
    /// Mean base value over the paired cases.
    pub base: f64,
    /// Mean new value over the paired cases.
    pub new: f64,
    /// `new - base`: the mean paired difference.
    pub delta: f64,
    /// Paired bootstrap interval of `delta` at level `1 - alpha`; none when n = 0.
    pub ci: Option<(f64, f64)>,
    /// McNemar's exact test, when every paired value is 0 or 1.
    pub mcnemar: Option<McNemar>,
    /// Paired cases that dropped.
    pub regressions: usize,
    /// Paired cases that rose.
    pub improvements: usize,
    /// Cases this metric scored in base only.
    pub only_base: usize,
    /// Cases this metric scored in new only.
    pub only_new: usize,
}

impl MetricRow {
    /// Whether the change is significant at `alpha`: McNemar's exact p below
    /// it for 0/1 metrics, else the paired interval excluding 0.
    pub fn significant(&self, alpha: f64) -> bool {
        match (&self.mcnemar, self.ci) {
            (Some(t), _) => t.p < alpha,
            (None, Some((lo, hi))) => lo > 0.0 || hi < 0.0,
            (None, None) => false,
        }
    }
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// How scores were paired.
    pub pairing: Pairing,
    /// Cases were paired by the hash of their input (`detail.input_sha256`),
    /// not by their id: the two runs share no sample id (runs of two tools).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_input: bool,
    /// The one metric of each side compared, when chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// The bootstrap's seed.
    pub seed: u64,
    /// The bootstrap's resamples.
    pub resamples: usize,
    /// 1 - the intervals' level.
    pub alpha: f64,
    /// One row per metric (and model), base's order first.
    pub rows: Vec<MetricRow>,
    /// Paired cases that dropped, largest drop first.
    pub regressions: Vec<CaseDiff>,
    /// Paired cases that rose, largest rise first.
    pub improvements: Vec<CaseDiff>,
    /// Cases with a score in base and none in new.
    pub only_base: Vec<CaseKey>,
    /// Cases with a score in new and none in base.
    pub only_new: Vec<CaseKey>,
    /// Repeated (model, metric, sample_id) scores left out: (base, new).
    pub duplicates: (usize, usize),
}

impl Comparison {
    /// The rows of one metric (one per model when pairing goes by model).
    pub fn rows_of<'a>(&'a self, metric: &'a str) -> impl Iterator<Item = &'a MetricRow> + 'a {
        self.rows.iter().filter(move |r| r.metric == metric)
    }
}

/// Why two reports cannot be compared.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum CompareError {
    /// A model given with `Models` is not in its report.
    #[error("the {side} report has no model {model:?} (it has: {})", if has.is_empty() { "no named model".to_string() } else { has.join(", ") })]
    UnknownModel {
        /// `base` or `new`.
        side: &'static str,
        /// The model asked for.
        model: String,
        /// The models the report has.
        has: Vec<String>,
    },
    /// A metric given with `Metrics` is not in its report.
    #[error("the {side} report has no metric {metric:?} (it has: {})", has.join(", "))]
    UnknownMetric {
        /// `base` or `new`.
        side: &'static str,
        /// The metric asked for.
        metric: String,
        /// The metrics the report has.
        has: Vec<String>,
    },
    /// Alpha outside (0, 1) or no resample.
    #[error("{0}")]
    Settings(String),
}

/// The models a report names ([`EvaluationResult::models`]).
pub fn models(r: &EvaluationResult) -> Vec<String> {
    r.models()
}

/// A row's key: (model when pairing by model, metric).
type RowKey = (Option<String>, String);

/// One side's scores, row by row, cases in report order.
#[derive(Default)]
struct Side {
    rows: Vec<(RowKey, Vec<(String, f64)>)>,
    index: HashMap<RowKey, usize>,
    /// (row, sample_id) → position in the row.
    cases: HashMap<(usize, String), usize>,
    duplicates: usize,
    /// Every (model, sample_id) with a score, in report order.
    keys: Vec<CaseKey>,
    /// The same, for lookups.
    key_set: HashSet<(Option<String>, String)>,
    /// The sample id of each key, when keys are input hashes.
    names: HashMap<String, String>,
}

/// Which scores a side keeps, and how its cases are keyed.
#[derive(Clone, Copy, Default)]
struct Pick<'a> {
    /// Only this model's scores.
    model: Option<&'a str>,
    /// Only this metric's scores, named as the other (base's) metric.
    metric: Option<(&'a str, &'a str)>,
    /// Key cases by `detail.input_sha256` instead of `sample_id`.
    by_input: bool,
}

impl<'a> Pick<'a> {
    fn new(
        model: Option<&'a str>,
        metric: Option<&'a str>,
        named: Option<&'a str>,
        by_input: bool,
    ) -> Pick<'a> {
        Pick {
            model,
            metric: metric.zip(named),
            by_input,
        }
    }
}

/// Whether every score of a report has its input's hash.
fn hashed(r: &EvaluationResult) -> bool {
    !r.scores.is_empty()
        && r.scores.iter().all(|s| {
            s.detail
                .get("input_sha256")
                .and_then(serde_json::Value::as_str)
                .is_some()
        })
}

impl Side {
    fn of(r: &EvaluationResult, by_model: bool, pick: Pick<'_>) -> Side {
        let mut side = Side::default();
        // (row, sample_id) -> (sum, count) over the scores of a sample's repeats
        let mut repeats: HashMap<(usize, String), (f64, usize)> = HashMap::new();
        for s in &r.scores {
            if !s.value.is_finite() {
                continue;
            }
            let model = s.model();
            if pick.model.is_some() && model != pick.model {
                continue;
            }
            let metric = match pick.metric {
                Some((want, _)) if s.metric != want => continue,
                Some((_, named)) => named.to_string(),
                None => s.metric.clone(),
            };
            let model = if by_model {
                model.map(String::from)
            } else {
                None
            };
            let id = if pick.by_input {
                let Some(h) = s
                    .detail
                    .get("input_sha256")
                    .and_then(serde_json::Value::as_str)
                else {
                    continue;
                };
                side.names
                    .entry(h.to_string())
                    .or_insert_with(|| s.sample_id.clone());
                h.to_string()
            } else {
                s.sample_id.clone()
            };
            let key = (model.clone(), metric);
            let row = match side.index.get(&key) {
                Some(i) => *i,
                None => {
                    side.rows.push((key.clone(), Vec::new()));
                    side.index.insert(key, side.rows.len() - 1);
                    side.rows.len() - 1
                }
            };
            let case = (row, id.clone());
            let repeat = s.detail.get("repeat").is_some();
            if let (true, Some(sum)) = (repeat, repeats.get_mut(&case)) {
                *sum = (sum.0 + s.value, sum.1 + 1);
                continue;
            }
            if side.cases.contains_key(&case) {
                side.duplicates += 1;
                continue;
            }
            if repeat {
                repeats.insert(case.clone(), (s.value, 1));
            }
            side.cases.insert(case, side.rows[row].1.len());
            side.rows[row].1.push((id.clone(), s.value));
            if side.key_set.insert((model.clone(), id.clone())) {
                side.keys.push(CaseKey {
                    model,
                    sample_id: id.clone(),
                });
            }
        }
        for ((row, id), (sum, n)) in repeats {
            if let Some(at) = side.cases.get(&(row, id)) {
                side.rows[row].1[*at].1 = sum / n as f64;
            }
        }
        side
    }

    /// The sample id of a key (the key itself unless keys are hashes).
    fn name(&self, key: &str) -> String {
        self.names
            .get(key)
            .cloned()
            .unwrap_or_else(|| key.to_string())
    }

    fn value(&self, row: &RowKey, sample_id: &str) -> Option<f64> {
        let i = *self.index.get(row)?;
        let at = *self.cases.get(&(i, sample_id.to_string()))?;
        self.rows[i].1.get(at).map(|(_, v)| *v)
    }

    fn has_case(&self, key: &CaseKey) -> bool {
        self.key_set
            .contains(&(key.model.clone(), key.sample_id.clone()))
    }
}

/// Compares `base` with `new` (see the module doc).
pub fn compare(
    base: &EvaluationResult,
    new: &EvaluationResult,
    opts: &Options,
) -> Result<Comparison, CompareError> {
    if !(opts.alpha > 0.0 && opts.alpha < 1.0) {
        return Err(CompareError::Settings(format!(
            "alpha must be between 0 and 1 (exclusive), not {}",
            opts.alpha
        )));
    }
    if opts.resamples == 0 {
        return Err(CompareError::Settings(
            "the bootstrap needs at least one resample".into(),
        ));
    }
    if let Some(m) = &opts.metrics {
        for (side, report, metric) in [("base", base, &m.base), ("new", new, &m.new)] {
            let has = report.metric_names();
            if !has.contains(metric) {
                return Err(CompareError::UnknownMetric {
                    side,
                    metric: metric.clone(),
                    has,
                });
            }
        }
    }
    let sides = |by_input: bool| -> Result<(Pairing, Side, Side), CompareError> {
        let named = opts.metrics.as_ref().map(|m| m.base.as_str());
        let pick = |model, metric| Pick::new(model, metric, named, by_input);
        let (bm, nm) = match &opts.metrics {
            Some(m) => (Some(m.base.as_str()), Some(m.new.as_str())),
            None => (None, None),
        };
        Ok(match &opts.models {
            Some(m) => {
                for (side, report, model) in [("base", base, &m.base), ("new", new, &m.new)] {
                    let has = models(report);
                    if !has.contains(model) {
                        return Err(CompareError::UnknownModel {
                            side,
                            model: model.clone(),
                            has,
                        });
                    }
                }
                (
                    Pairing::Models(m.clone()),
                    Side::of(base, false, pick(Some(&m.base), bm)),
                    Side::of(new, false, pick(Some(&m.new), nm)),
                )
            }
            None => {
                let by_model = models(base).len() > 1 || models(new).len() > 1;
                let pairing = if by_model {
                    Pairing::ModelAndCase
                } else {
                    Pairing::Case
                };
                (
                    pairing,
                    Side::of(base, by_model, pick(None, bm)),
                    Side::of(new, by_model, pick(None, nm)),
                )
            }
        })
    };
    let (mut pairing, mut base_side, mut new_side) = sides(false)?;
    // Two runs that share no sample id (two tools name their samples each
    // its own way) pair by their inputs' hashes when both have them.
    let new_ids: HashSet<&str> = new_side.key_set.iter().map(|(_, id)| id.as_str()).collect();
    let shared = base_side
        .key_set
        .iter()
        .any(|(_, id)| new_ids.contains(id.as_str()));
    let by_input = !shared && hashed(base) && hashed(new);
    if by_input {
        (pairing, base_side, new_side) = sides(true)?;
    }
    let mut keys: Vec<&RowKey> = base_side.rows.iter().map(|(k, _)| k).collect();
    keys.extend(
        new_side
            .rows
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !base_side.index.contains_key(*k)),
    );
    let mut rows = Vec::new();
    let mut regressions = Vec::new();
    let mut improvements = Vec::new();
    for key in keys {
        let (model, metric) = key;
        let base_cases: &[(String, f64)] = base_side
            .index
            .get(key)
            .map_or(&[], |i| &base_side.rows[*i].1);
        let new_count = new_side
            .index
            .get(key)
            .map_or(0, |i| new_side.rows[*i].1.len());
        let mut pairs: Vec<(f64, f64)> = Vec::new();
        for (id, b) in base_cases {
            let Some(n) = new_side.value(key, id) else {
                continue;
            };
            pairs.push((*b, n));
            let diff = CaseDiff {
                model: model.clone(),
                metric: metric.clone(),
                sample_id: base_side.name(id),
                base: *b,
                new: n,
            };
            if n < b - SAME {
                regressions.push(diff);
            } else if n > b + SAME {
                improvements.push(diff);
            }
        }
        rows.push(row(key, &pairs, base_cases.len(), new_count, opts));
    }
    regressions.sort_by(|a, b| a.delta().total_cmp(&b.delta()));
    improvements.sort_by(|a, b| b.delta().total_cmp(&a.delta()));
    let named = |side: &Side, k: &CaseKey| CaseKey {
        model: k.model.clone(),
        sample_id: side.name(&k.sample_id),
    };
    let only_base = base_side
        .keys
        .iter()
        .filter(|k| !new_side.has_case(k))
        .map(|k| named(&base_side, k))
        .collect();
    let only_new = new_side
        .keys
        .iter()
        .filter(|k| !base_side.has_case(k))
        .map(|k| named(&new_side, k))
        .collect();
    Ok(Comparison {
        pairing,
        by_input,
        metrics: opts.metrics.clone(),
        seed: opts.seed,
        resamples: opts.resamples,
        alpha: opts.alpha,
        rows,
        regressions,
        improvements,
        only_base,
        only_new,
        duplicates: (base_side.duplicates, new_side.duplicates),
    })
}

/// One row's figures from its paired values.
fn row(
    key: &RowKey,
    pairs: &[(f64, f64)],
    base_count: usize,
    new_count: usize,
    opts: &Options,
) -> MetricRow {
    let n = pairs.len();
    let diffs: Vec<f64> = pairs.iter().map(|(b, n)| n - b).collect();
    let base_values: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let new_values: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let binary = n > 0
        && pairs
            .iter()
            .all(|(b, n)| (*b == 0.0 || *b == 1.0) && (*n == 0.0 || *n == 1.0));
    let regressions = pairs.iter().filter(|(b, n)| *n < b - SAME).count();
    let improvements = pairs.iter().filter(|(b, n)| *n > b + SAME).count();
    MetricRow {
        model: key.0.clone(),
        metric: key.1.clone(),
        n,
        base: stats::mean(&base_values),
        new: stats::mean(&new_values),
        delta: stats::mean(&diffs),
        ci: stats::bootstrap_ci(&diffs, opts.resamples, opts.alpha, opts.seed),
        mcnemar: binary.then(|| stats::mcnemar(regressions as u64, improvements as u64)),
        regressions,
        improvements,
        only_base: base_count - n,
        only_new: new_count - n,
    }
}

#[cfg(test)]
mod tests;
