//! A run's automatic verdicts measured against people's labels, per metric
//! and model: what `evalpage agree` writes as `agreement.json` (and the
//! viewer shows). The people's label of a case is its reviewers' majority
//! (a tie is left out and counted); each reviewer is also compared alone,
//! and the reviewers among themselves (Krippendorff's α, pairwise κ).
//!
//! Decisions where the issue is silent:
//! - a metric's **scheme** says what its labels are: pass/fail (the
//!   default), an integer rating `lo..=hi`, or a set of categories. A label
//!   off the scheme is said and left out.
//! - the automatic verdict of a case: for pass/fail, the score's
//!   `detail.outcome` when it is `pass` or `fail` (a judge's), else the
//!   value against the threshold (pass at or above it; 0.5 by default); for
//!   a rating, the value mapped back onto the scale (`lo + v·(hi − lo)`, the
//!   judge's normalisation), left out unless it lands on a whole rating (a
//!   mean over repeats); for categories, the judge's own label
//!   (`detail.verdict`) or else `detail.outcome`, when it is one of them.
//!   The first score of a case counts (later repeats are not verdicts of
//!   their own).
//! - a label without a model matches the run's one model; in a run of
//!   several models it matches nothing and is counted as unmatched.

use super::labels::{latest, Label, LabelEvent};
use super::stats::{
    cohen_kappa, cohen_kappa_quadratic, krippendorff_alpha, majority, raw_agreement, Interval,
    Level, Undefined,
};
use super::verdicts::{corrected_pass_rate, corrected_pass_rate_ci, judge_vs_human, Rate};
use crate::report::EvalScore;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What a metric's labels are.
#[derive(Clone, Debug, PartialEq)]
pub enum Scheme {
    /// Pass or fail; an automatic value at or above `threshold` passes.
    PassFail {
        /// Pass at or above this value (when the score has no outcome).
        threshold: f64,
    },
    /// An integer rating from `lo` to `hi`.
    Rating {
        /// Lowest rating.
        lo: i64,
        /// Highest rating.
        hi: i64,
    },
    /// One of these categories.
    Categories(Vec<String>),
}

impl Default for Scheme {
    fn default() -> Scheme {
        Scheme::PassFail { threshold: 0.5 }
    }
}

impl Scheme {
    /// Reads `pass-fail`, `pass-fail@0.7`, `1-5` or `a,b,c`.
    pub fn parse(s: &str) -> Result<Scheme, String> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("pass-fail") {
            let threshold = match rest.strip_prefix('@') {
                None if rest.is_empty() => 0.5,
                Some(t) => t
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite())
                    .ok_or_else(|| format!("`{t}` is not a threshold (a number)"))?,
                None => return Err(format!("`{s}`: expected pass-fail or pass-fail@THRESHOLD")),
            };
            return Ok(Scheme::PassFail { threshold });
        }
        if let Some((lo, hi)) = s.split_once('-') {
            if let (Ok(lo), Ok(hi)) = (lo.trim().parse::<i64>(), hi.trim().parse::<i64>()) {
                if lo >= hi {
                    return Err(format!("the rating scale {lo}-{hi} must go up"));
                }
                if hi - lo > 100 {
                    return Err(format!(
                        "the rating scale {lo}-{hi} has more than 101 values"
                    ));
                }
                return Ok(Scheme::Rating { lo, hi });
            }
        }
        let cats: Vec<String> = s
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        if cats.len() < 2 {
            return Err(format!(
                "`{s}`: expected pass-fail, a rating scale LO-HI (1-5) or two or more categories (a,b,c)"
            ));
        }
        Ok(Scheme::Categories(cats))
    }

    /// The scheme's name as `agreement.json` says it.
    pub fn name(&self) -> String {
        match self {
            Scheme::PassFail { .. } => "pass-fail".into(),
            Scheme::Rating { lo, hi } => format!("{lo}-{hi}"),
            Scheme::Categories(c) => c.join(","),
        }
    }

    /// Its labels in order.
    pub fn scale(&self) -> Vec<Label> {
        match self {
            Scheme::PassFail { .. } => vec![Label::Fail, Label::Pass],
            Scheme::Rating { lo, hi } => (*lo..=*hi).map(Label::Rating).collect(),
            Scheme::Categories(c) => c.iter().map(|c| Label::Category(c.clone())).collect(),
        }
    }

    /// Whether a person's label is one of the scheme's.
    pub fn holds(&self, l: &Label) -> bool {
        match (self, l) {
            (Scheme::PassFail { .. }, Label::Pass | Label::Fail) => true,
            (Scheme::Rating { lo, hi }, Label::Rating(n)) => (*lo..=*hi).contains(n),
            (Scheme::Categories(c), l) => c.iter().any(|c| *c == l.to_string()),
            _ => false,
        }
    }

    /// A label given as any label read (a category named `pass` is `Pass`
    /// when read): the scheme's own form.
    fn own(&self, l: &Label) -> Label {
        match self {
            Scheme::Categories(_) => Label::Category(l.to_string()),
            _ => l.clone(),
        }
    }

    /// The automatic verdict of one score, when the scheme can read one.
    pub fn verdict(&self, s: &EvalScore) -> Option<Label> {
        let outcome = s.detail.get("outcome").and_then(Value::as_str);
        match self {
            Scheme::PassFail { threshold } => match outcome {
                Some("pass") => Some(Label::Pass),
                Some("fail") => Some(Label::Fail),
                _ if s.value.is_finite() => Some(if s.value >= *threshold {
                    Label::Pass
                } else {
                    Label::Fail
                }),
                _ => None,
            },
            Scheme::Rating { lo, hi } => {
                let r = *lo as f64 + s.value * (hi - lo) as f64;
                let n = r.round();
                ((r - n).abs() < 1e-9 && (*lo..=*hi).contains(&(n as i64)))
                    .then_some(Label::Rating(n as i64))
            }
            Scheme::Categories(c) => [s.detail.get("verdict"), s.detail.get("outcome")]
                .into_iter()
                .filter_map(|v| v?.as_str())
                .find(|o| c.iter().any(|c| c == o))
                .map(|o| Label::Category(o.to_string())),
        }
    }
}

/// How to measure agreement.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreeOptions {
    /// Each metric's scheme (pass/fail unless named here).
    pub schemes: BTreeMap<String, Scheme>,
    /// The bootstrap's seed.
    pub seed: u64,
    /// The bootstrap's resamples.
    pub resamples: usize,
}

impl Default for AgreeOptions {
    fn default() -> AgreeOptions {
        AgreeOptions {
            schemes: BTreeMap::new(),
            seed: 2026,
            resamples: super::verdicts::DEFAULT_RESAMPLES,
        }
    }
}

/// A 95% interval as `[lo, hi]`.
pub type Ci = [f64; 2];

fn ci(i: Interval) -> Ci {
    [i.lo, i.hi]
}

/// The figures of automatic verdicts against one set of human labels.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    /// Cases with both a verdict and a label.
    pub n: usize,
    /// Share of those on which they agree.
    pub agreement: Option<f64>,
    /// Cohen's κ (nominal).
    pub cohen_kappa: Option<f64>,
    /// Its seeded percentile bootstrap 95% interval (the cases resampled).
    pub cohen_kappa_ci95: Option<Ci>,
    /// Quadratic-weighted κ (ratings only).
    pub cohen_kappa_quadratic: Option<f64>,
    /// The 2×2 table (pass/fail only).
    pub confusion: Option<ConfusionTable>,
    /// P(verdict pass | label pass) (pass/fail only).
    pub tpr: Option<f64>,
    /// Its Wilson 95% interval.
    pub tpr_ci95: Option<Ci>,
    /// P(verdict fail | label fail).
    pub tnr: Option<f64>,
    /// Its Wilson 95% interval.
    pub tnr_ci95: Option<Ci>,
    /// Why a figure is `null`, by its name: every `null` figure has one
    /// (of these figures, and of the [`Agreement`] row holding them).
    pub undefined: BTreeMap<String, String>,
}

impl Figures {
    /// The reasons worth showing a person: each null figure's, less an
    /// interval's (`tpr_ci95`) that only repeats its figure's (`tpr`), and
    /// less a figure's that is not for this kind of label (the quadratic κ
    /// of pass/fail labels: `agreement.json` says those).
    pub fn undefined_shown(&self) -> Vec<(&str, &str)> {
        self.undefined
            .iter()
            .filter(|(k, why)| {
                !why.starts_with(NOT_FOR)
                    && k.strip_suffix("_ci95")
                        .and_then(|base| self.undefined.get(base))
                        .is_none_or(|base_why| base_why != *why)
            })
            .map(|(k, why)| (k.as_str(), why.as_str()))
            .collect()
    }
}

/// The confusion table, named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConfusionTable {
    /// Verdict pass, label pass.
    pub both_pass: u64,
    /// Verdict pass, label fail.
    pub verdict_only_pass: u64,
    /// Verdict fail, label pass.
    pub label_only_pass: u64,
    /// Verdict fail, label fail.
    pub both_fail: u64,
}

/// One reviewer's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewerFigures {
    /// The reviewer.
    pub reviewer: String,
    /// Their figures against the verdicts.
    #[serde(flatten)]
    pub figures: Figures,
}

/// κ between two reviewers on the cases both labelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewerPair {
    /// One reviewer.
    pub a: String,
    /// The other.
    pub b: String,
    /// Cases both labelled.
    pub n: usize,
    /// Cohen's κ between them.
    pub cohen_kappa: Option<f64>,
    /// Why κ is `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
}

/// One metric and model of `agreement.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// The metric.
    pub metric: String,
    /// The model (none in a run of one unnamed model).
    pub model: Option<String>,
    /// What its labels are (`pass-fail`, `1-5`, `a,b,c`).
    pub scheme: String,
    /// Who labelled.
    pub reviewers: Vec<String>,
    /// Cases with at least one label.
    pub labelled_cases: usize,
    /// Cases whose reviewers tied (no majority): left out.
    pub majority_ties: usize,
    /// The verdicts against the reviewers' majority label.
    #[serde(flatten)]
    pub figures: Figures,
    /// Cases with an automatic verdict (all of them, labelled or not).
    pub judged_cases: usize,
    /// The verdicts' pass rate over every judged case (pass/fail only).
    pub pass_rate: Option<f64>,
    /// The pass rate corrected for the verdicts' measured errors (Rogan-Gladen).
    pub corrected_pass_rate: Option<f64>,
    /// Its seeded percentile bootstrap 95% interval.
    pub corrected_pass_rate_ci95: Option<Ci>,
    /// The same figures for each reviewer alone.
    pub per_reviewer: Vec<ReviewerFigures>,
    /// Krippendorff's α among the reviewers (nominal; two or more reviewers).
    pub krippendorff_alpha: Option<f64>,
    /// Krippendorff's α, ordinal (ratings only).
    pub krippendorff_alpha_ordinal: Option<f64>,
    /// κ of each two reviewers.
    pub reviewer_pairs: Vec<ReviewerPair>,
}

/// A label that could not be used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeftOut {
    /// The case it names.
    pub case_id: String,
    /// Its metric.
    pub metric: String,
    /// Its model.
    pub model: Option<String>,
    /// Its reviewer.
    pub reviewer: String,
    /// Why it was left out.
    pub why: String,
}

/// Everything `evalpage agree` measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Agreed {
    /// One per metric and model with labels.
    pub metrics: Vec<Agreement>,
    /// Labels naming a case, metric or model the run does not have.
    pub unmatched: Vec<LeftOut>,
    /// Labels off their metric's scheme.
    pub off_scale: Vec<LeftOut>,
    /// Labels read (each reviewer's latest per case).
    pub labels: usize,
}

fn fig<T>(
    undefined: &mut BTreeMap<String, String>,
    name: &str,
    r: Result<T, Undefined>,
) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(u) => {
            undefined.insert(name.to_string(), u.0.to_string());
            None
        }
    }
}

/// How a reason that a figure is not for this kind of label begins.
const NOT_FOR: &str = "the labels are ";

/// Why a figure for another kind of label (`for_ratings`: an ordered
/// scale; else pass/fail) is `null` under `scheme`.
fn not_for(scheme: &Scheme, what: &str, for_ratings: bool) -> String {
    let these = match scheme {
        Scheme::PassFail { .. } => "pass/fail (no order)".to_string(),
        Scheme::Rating { lo, hi } => format!("a {lo}-{hi} rating"),
        Scheme::Categories(c) => format!("categories ({})", c.join(",")),
    };
    let needs = if for_ratings {
        "ratings"
    } else {
        "pass/fail labels"
    };
    format!("{NOT_FOR}{these}: {what} is for {needs}")
}

/// Marks each of `names` undefined, for `why`.
fn undefined_all(u: &mut BTreeMap<String, String>, names: &[&str], why: &str) {
    for n in names {
        u.insert((*n).to_string(), why.to_string());
    }
}

/// The verdicts of `pairs` (verdict, label) under `scheme`. Every figure
/// that is `None` has its reason in `undefined`.
fn figures_of(pairs: &[(Label, Label)], scheme: &Scheme, opts: &AgreeOptions) -> Figures {
    let mut f = Figures {
        n: pairs.len(),
        ..Figures::default()
    };
    let u = &mut f.undefined;
    f.agreement = fig(u, "agreement", raw_agreement(pairs));
    f.cohen_kappa = fig(u, "cohen_kappa", cohen_kappa(pairs));
    match u.get("cohen_kappa").cloned() {
        None => f.cohen_kappa_ci95 = fig(u, "cohen_kappa_ci95", kappa_ci(pairs, opts)),
        Some(why) => {
            u.insert("cohen_kappa_ci95".into(), why);
        }
    }
    if let Scheme::Rating { .. } = scheme {
        f.cohen_kappa_quadratic = fig(
            u,
            "cohen_kappa_quadratic",
            cohen_kappa_quadratic(pairs, &scheme.scale()),
        );
    } else {
        u.insert(
            "cohen_kappa_quadratic".into(),
            not_for(scheme, "the quadratic-weighted κ", true),
        );
    }
    if let Scheme::PassFail { .. } = scheme {
        let bools: Vec<(bool, bool)> = pairs
            .iter()
            .map(|(a, h)| (*a == Label::Pass, *h == Label::Pass))
            .collect();
        let j = judge_vs_human(&bools);
        f.confusion = Some(ConfusionTable {
            both_pass: j.confusion.both_pass,
            verdict_only_pass: j.confusion.judge_only_pass,
            label_only_pass: j.confusion.human_only_pass,
            both_fail: j.confusion.both_fail,
        });
        // a rate and its interval: both, or both null for one reason
        let rate = |u: &mut BTreeMap<String, String>, name: &str, r: Result<Rate, Undefined>| {
            let r = fig(u, name, r);
            if r.is_none() {
                let why = u.get(name).cloned().unwrap_or_default();
                u.insert(format!("{name}_ci95"), why);
            }
            r.map(|r| (r.value, ci(r.interval)))
        };
        let tpr = rate(u, "tpr", j.tpr);
        let tnr = rate(u, "tnr", j.tnr);
        (f.tpr, f.tpr_ci95) = (tpr.map(|t| t.0), tpr.map(|t| t.1));
        (f.tnr, f.tnr_ci95) = (tnr.map(|t| t.0), tnr.map(|t| t.1));
    } else {
        undefined_all(
            u,
            &["confusion"],
            &not_for(scheme, "the confusion table", false),
        );
        undefined_all(u, &["tpr", "tpr_ci95"], &not_for(scheme, "TPR", false));
        undefined_all(u, &["tnr", "tnr_ci95"], &not_for(scheme, "TNR", false));
    }
    f
}

/// κ's percentile bootstrap 95% interval: the pairs resampled with
/// replacement (seeded), resamples where κ is undefined skipped; the
/// interval's ends are the sorted defined values at `floor(m·0.025)` and
/// `ceil(m·0.975) − 1`, as the corrected pass rate's.
fn kappa_ci(pairs: &[(Label, Label)], opts: &AgreeOptions) -> Result<Ci, Undefined> {
    let mut rng = crate::rng::SplitMix64::new(opts.seed);
    let mut values: Vec<f64> = Vec::with_capacity(opts.resamples);
    let mut draw = Vec::with_capacity(pairs.len());
    for _ in 0..opts.resamples {
        draw.clear();
        draw.extend((0..pairs.len()).map(|_| pairs[rng.below(pairs.len())].clone()));
        if let Ok(k) = cohen_kappa(&draw) {
            values.push(k);
        }
    }
    if values.is_empty() {
        return Err(Undefined("κ is undefined in every resample"));
    }
    values.sort_by(f64::total_cmp);
    let m = values.len();
    let lo = (m as f64 * 0.025).floor() as usize;
    let hi = ((m as f64 * 0.975).ceil() as usize).saturating_sub(1);
    Ok([values[lo.min(m - 1)], values[hi.min(m - 1)]])
}

/// Measures `scores`' verdicts against `events` (every file's labels).
pub fn agree(scores: &[EvalScore], events: &[LabelEvent], opts: &AgreeOptions) -> Agreed {
    let scheme_of = |metric: &str| opts.schemes.get(metric).cloned().unwrap_or_default();
    // the run: each metric's models, each (metric, model, case)'s first score
    let mut first: HashMap<(String, Option<String>, String), &EvalScore> = HashMap::new();
    let mut models: BTreeMap<String, BTreeSet<Option<String>>> = BTreeMap::new();
    let mut cases: BTreeMap<(String, Option<String>), Vec<String>> = BTreeMap::new();
    for s in scores {
        let model = s
            .detail
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_string);
        models
            .entry(s.metric.clone())
            .or_default()
            .insert(model.clone());
        let key = (s.metric.clone(), model.clone(), s.sample_id.clone());
        if let std::collections::hash_map::Entry::Vacant(v) = first.entry(key) {
            v.insert(s);
            cases
                .entry((s.metric.clone(), model))
                .or_default()
                .push(s.sample_id.clone());
        }
    }
    let kept = latest(events);
    let mut out = Agreed {
        labels: kept.len(),
        ..Agreed::default()
    };
    // (metric, model) → case → reviewer → label
    type Labelled = BTreeMap<String, BTreeMap<String, Label>>;
    let mut groups: BTreeMap<(String, Option<String>), Labelled> = BTreeMap::new();
    for ((metric, model, case, reviewer), e) in kept {
        let left_out = |why: String| LeftOut {
            case_id: case.clone(),
            metric: metric.clone(),
            model: model.clone(),
            reviewer: reviewer.clone(),
            why,
        };
        let Some(run_models) = models.get(&metric) else {
            out.unmatched
                .push(left_out(format!("the run has no metric `{metric}`")));
            continue;
        };
        // a label without a model names the run's one model
        let matched = match (&model, run_models.len()) {
            (Some(m), _) if run_models.contains(&Some(m.clone())) => Some(Some(m.clone())),
            (Some(_), 1) if run_models.contains(&None) => Some(None),
            (None, 1) => run_models.iter().next().cloned(),
            _ => None,
        };
        let Some(run_model) = matched else {
            let why = match &model {
                Some(m) => format!("the run has no model `{m}` for `{metric}`"),
                None => "no model named, and the run has several".to_string(),
            };
            out.unmatched.push(left_out(why));
            continue;
        };
        if !first.contains_key(&(metric.clone(), run_model.clone(), case.clone())) {
            out.unmatched.push(left_out(format!(
                "the run has no case `{case}` with a `{metric}` score"
            )));
            continue;
        }
        let scheme = scheme_of(&metric);
        if !scheme.holds(&e.label) {
            out.off_scale.push(left_out(format!(
                "label `{}` is not on the metric's scale ({})",
                e.label,
                scheme.name()
            )));
            continue;
        }
        groups
            .entry((metric.clone(), run_model))
            .or_default()
            .entry(case.clone())
            .or_default()
            .insert(reviewer.clone(), scheme.own(&e.label));
    }
    for ((metric, model), labelled) in groups {
        let scheme = scheme_of(&metric);
        let verdict = |case: &str| {
            first
                .get(&(metric.clone(), model.clone(), case.to_string()))
                .and_then(|s| scheme.verdict(s))
        };
        let all: Vec<Label> = cases
            .get(&(metric.clone(), model.clone()))
            .into_iter()
            .flatten()
            .filter_map(|c| verdict(c))
            .collect();
        let reviewers: Vec<String> = labelled
            .values()
            .flat_map(|r| r.keys().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut ties = 0;
        let mut pairs = Vec::new();
        for (case, by) in &labelled {
            let labels: Vec<Label> = by.values().cloned().collect();
            match majority(&labels) {
                Some(h) => {
                    if let Some(v) = verdict(case) {
                        pairs.push((v, h));
                    }
                }
                None => ties += 1,
            }
        }
        let figures = figures_of(&pairs, &scheme, opts);
        let per_reviewer = reviewers
            .iter()
            .map(|r| {
                let mine: Vec<(Label, Label)> = labelled
                    .iter()
                    .filter_map(|(case, by)| Some((verdict(case)?, by.get(r)?.clone())))
                    .collect();
                ReviewerFigures {
                    reviewer: r.clone(),
                    figures: figures_of(&mine, &scheme, opts),
                }
            })
            .collect();
        let mut row = Agreement {
            metric: metric.clone(),
            model: model.clone(),
            scheme: scheme.name(),
            reviewers: reviewers.clone(),
            labelled_cases: labelled.len(),
            majority_ties: ties,
            figures,
            judged_cases: all.len(),
            pass_rate: None,
            corrected_pass_rate: None,
            corrected_pass_rate_ci95: None,
            per_reviewer,
            krippendorff_alpha: None,
            krippendorff_alpha_ordinal: None,
            reviewer_pairs: Vec::new(),
        };
        let u = &mut row.figures.undefined;
        if let Scheme::PassFail { .. } = scheme {
            let verdicts: Vec<bool> = all.iter().map(|l| *l == Label::Pass).collect();
            let labelled_pairs: Vec<(bool, bool)> = pairs
                .iter()
                .map(|(a, h)| (*a == Label::Pass, *h == Label::Pass))
                .collect();
            row.pass_rate = fig(
                u,
                "pass_rate",
                if verdicts.is_empty() {
                    Err(Undefined("no case has an automatic verdict"))
                } else {
                    Ok(verdicts.iter().filter(|v| **v).count() as f64 / verdicts.len() as f64)
                },
            );
            row.corrected_pass_rate = fig(
                u,
                "corrected_pass_rate",
                corrected_pass_rate(&labelled_pairs, &verdicts),
            );
            let boot =
                corrected_pass_rate_ci(&labelled_pairs, &verdicts, opts.resamples, opts.seed);
            row.corrected_pass_rate_ci95 =
                fig(u, "corrected_pass_rate_ci95", boot.interval).map(ci);
        } else {
            undefined_all(
                u,
                &[
                    "pass_rate",
                    "corrected_pass_rate",
                    "corrected_pass_rate_ci95",
                ],
                &not_for(&scheme, "the pass rate", false),
            );
        }
        if !matches!(scheme, Scheme::Rating { .. }) {
            u.insert(
                "krippendorff_alpha_ordinal".into(),
                not_for(&scheme, "the ordinal α", true),
            );
        }
        if reviewers.len() >= 2 {
            let units: Vec<Vec<Option<Label>>> = labelled
                .values()
                .map(|by| reviewers.iter().map(|r| by.get(r).cloned()).collect())
                .collect();
            let scale = scheme.scale();
            row.krippendorff_alpha = fig(
                u,
                "krippendorff_alpha",
                krippendorff_alpha(&units, &scale, Level::Nominal),
            );
            if let Scheme::Rating { .. } = scheme {
                row.krippendorff_alpha_ordinal = fig(
                    u,
                    "krippendorff_alpha_ordinal",
                    krippendorff_alpha(&units, &scale, Level::Ordinal),
                );
            }
            for (i, a) in reviewers.iter().enumerate() {
                for b in &reviewers[i + 1..] {
                    let both: Vec<(Label, Label)> = labelled
                        .values()
                        .filter_map(|by| Some((by.get(a)?.clone(), by.get(b)?.clone())))
                        .collect();
                    let k = if both.is_empty() {
                        Err(Undefined("no case labelled by both"))
                    } else {
                        cohen_kappa(&both)
                    };
                    row.reviewer_pairs.push(ReviewerPair {
                        a: a.clone(),
                        b: b.clone(),
                        n: both.len(),
                        cohen_kappa: k.as_ref().ok().copied(),
                        undefined: k.err().map(|u| u.0.to_string()),
                    });
                }
            }
        } else {
            let why = "one reviewer: α needs two or more";
            u.insert("krippendorff_alpha".into(), why.into());
            if let Scheme::Rating { .. } = scheme {
                u.insert("krippendorff_alpha_ordinal".into(), why.into());
            }
        }
        out.metrics.push(row);
    }
    out
}

/// The rows whose κ against people is below `k`, or undefined (a gate that
/// cannot be checked does not pass), each said ([`super::kappa_gate`]).
pub fn kappa_below(agreed: &Agreed, k: f64) -> Vec<String> {
    let mut out = super::gate::kappa_gate(&super::gate::kappa_rows(agreed), k);
    if agreed.metrics.is_empty() {
        out.push(format!(
            "no label matched the run: κ cannot be at least {k}"
        ));
    }
    out
}

/// `agreement.md`'s section (also appended to `report.md`).
pub fn agreement_markdown(agreed: &Agreed) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
    let with_ci = |v: Option<f64>, c: Option<Ci>| match (v, c) {
        (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.3}, {hi:.3}]"),
        (v, _) => num(v),
    };
    let mut md = String::from("## Agreement with people\n\n");
    md.push_str(&format!(
        "{} labels; each case's label is its reviewers' majority (ties left out). \
         Intervals are 95% (Wilson; the corrected pass rate's by bootstrap).\n\n",
        agreed.labels
    ));
    md.push_str("| metric | model | scheme | n | agreement | κ | κ (quadratic) | TPR | TNR | pass rate | corrected pass rate | α (reviewers) |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for a in &agreed.metrics {
        let f = &a.figures;
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            a.metric,
            a.model.as_deref().unwrap_or("—"),
            a.scheme,
            f.n,
            num(f.agreement),
            num(f.cohen_kappa),
            num(f.cohen_kappa_quadratic),
            with_ci(f.tpr, f.tpr_ci95),
            with_ci(f.tnr, f.tnr_ci95),
            num(a.pass_rate),
            with_ci(a.corrected_pass_rate, a.corrected_pass_rate_ci95),
            num(a.krippendorff_alpha),
        ));
    }
    for a in &agreed.metrics {
        md.push_str(&detail_markdown(a));
    }
    let undefined: Vec<String> = agreed
        .metrics
        .iter()
        .flat_map(|a| {
            a.figures
                .undefined_shown()
                .into_iter()
                .map(move |(k, why)| format!("- {} {k}: {why}", a.metric))
        })
        .collect();
    if !undefined.is_empty() {
        md.push_str("\nUndefined figures:\n\n");
        md.push_str(&undefined.join("\n"));
        md.push('\n');
    }
    if !agreed.unmatched.is_empty() || !agreed.off_scale.is_empty() {
        md.push_str(&format!(
            "\n{} labels did not match the run and {} were off their metric's scale (left out).\n",
            agreed.unmatched.len(),
            agreed.off_scale.len()
        ));
    }
    md
}

/// One metric's figures beyond the table (as the viewer shows them under
/// it): the confusion table, ties, ordinal α, each reviewer, each pair.
fn detail_markdown(a: &Agreement) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
    let mut md = format!(
        "\n### {}{} ({})\n\n",
        a.metric,
        a.model
            .as_ref()
            .map(|m| format!(" · {m}"))
            .unwrap_or_default(),
        a.scheme
    );
    md.push_str(&format!(
        "{} cases labelled, {} with an automatic verdict; {} cases where the reviewers tied (left out).",
        a.labelled_cases, a.judged_cases, a.majority_ties
    ));
    if matches!(Scheme::parse(&a.scheme), Ok(Scheme::Rating { .. })) {
        md.push_str(&format!(
            " Krippendorff's α (ordinal): {}.",
            num(a.krippendorff_alpha_ordinal)
        ));
    }
    md.push('\n');
    if let Some(c) = &a.figures.confusion {
        md.push_str("\n| people's label \\ verdict | pass | fail |\n|---|---|---|\n");
        md.push_str(&format!(
            "| pass | {} | {} |\n| fail | {} | {} |\n",
            c.both_pass, c.label_only_pass, c.verdict_only_pass, c.both_fail
        ));
    }
    if !a.per_reviewer.is_empty() {
        md.push_str("\n| reviewer | n | agreement | κ | κ (quadratic) | TPR | TNR |\n|---|---|---|---|---|---|---|\n");
        for r in &a.per_reviewer {
            let f = &r.figures;
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.reviewer,
                f.n,
                num(f.agreement),
                num(f.cohen_kappa),
                num(f.cohen_kappa_quadratic),
                num(f.tpr),
                num(f.tnr)
            ));
        }
    }
    if !a.reviewer_pairs.is_empty() {
        md.push_str("\n| reviewers | both labelled | κ |\n|---|---|---|\n");
        for p in &a.reviewer_pairs {
            let k = match (p.cohen_kappa, &p.undefined) {
                (Some(k), _) => format!("{k:.3}"),
                (None, Some(w)) => format!("— ({w})"),
                (None, None) => "—".into(),
            };
            md.push_str(&format!("| {} · {} | {} | {k} |\n", p.a, p.b, p.n));
        }
    }
    md
}

/// A saved run's rows as scores of `metric` (the viewer's run): each row's
/// value with its model and, when its detail says, its `outcome` and `verdict`.
pub fn view_scores(data: &crate::view::ViewData, metric: &str) -> Vec<EvalScore> {
    let Some(m) = data.metric_index(metric) else {
        return Vec::new();
    };
    data.rows
        .iter()
        .filter_map(|r| {
            let value = (*r.values.get(m)?)?;
            let detail = data.detail(r, m);
            let mut d = serde_json::Map::new();
            if let Some(model) = &r.model {
                d.insert("model".into(), Value::from(model.as_str()));
            }
            for key in ["outcome", "verdict"] {
                if let Some(o) = detail.get(key).filter(|o| o.is_string()) {
                    d.insert(key.into(), o.clone());
                }
            }
            Some(EvalScore {
                sample_id: r.id.clone(),
                metric: metric.to_string(),
                value,
                tags: Vec::new(),
                language: None,
                length_bucket: None,
                detail: Value::Object(d),
            })
        })
        .collect()
}

/// The label sets a reviewer may pick for `metric` of a saved run: pass/fail
/// always, then what the task gave it: a judge's rating range (`1-5`) or
/// its labels as categories (`CORRECT,PARTIAL,INCORRECT`), read from the first case whose detail has
/// the judge's `scale`. Each is text [`Scheme::parse`] reads.
pub fn offered_schemes(data: &crate::view::ViewData, metric: &str) -> Vec<String> {
    let mut out = vec!["pass-fail".to_string()];
    let Some(m) = data.metric_index(metric) else {
        return out;
    };
    let scale = data
        .rows
        .iter()
        .take(50)
        .find_map(|r| match data.detail(r, m).get("scale")? {
            Value::Object(o) => Some(o.clone()),
            _ => None,
        });
    let Some(scale) = scale else { return out };
    if let Some([lo, hi]) = scale
        .get("range")
        .and_then(Value::as_array)
        .and_then(|r| Some([r.first()?.as_i64()?, r.get(1)?.as_i64()?]))
    {
        let text = format!("{lo}-{hi}");
        if Scheme::parse(&text).is_ok() {
            out.push(text);
        }
    }
    let labels: Vec<&str> = scale
        .get("labels")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let plain = labels
        .iter()
        .all(|l| !l.contains(',') && !l.trim().is_empty());
    if labels.len() >= 2 && plain {
        let text = labels.join(",");
        if matches!(Scheme::parse(&text), Ok(Scheme::Categories(_))) {
            out.push(text);
        }
    }
    out
}

/// The order in which a reviewer labels `verdicts` (each case's automatic
/// verdict, in the run's order): all of them, or a seeded random sample of
/// `n`; `stratified`, the sample takes from each verdict in proportion
/// (largest remainders; every verdict present gets at least one when `n`
/// allows). Indices into `verdicts`.
pub fn review_queue(
    verdicts: &[Option<Label>],
    n: Option<usize>,
    stratified: bool,
    seed: u64,
) -> Vec<usize> {
    let all: Vec<usize> = (0..verdicts.len()).collect();
    let Some(n) = n.filter(|n| *n < verdicts.len()) else {
        return all;
    };
    let mut rng = crate::rng::SplitMix64::new(seed);
    let mut shuffle = |v: &mut Vec<usize>| {
        for i in (1..v.len()).rev() {
            let j = rng.below(i + 1);
            v.swap(i, j);
        }
    };
    let mut picked = if stratified {
        let mut strata: BTreeMap<Option<Label>, Vec<usize>> = BTreeMap::new();
        for (i, v) in verdicts.iter().enumerate() {
            strata.entry(v.clone()).or_default().push(i);
        }
        let total = verdicts.len() as f64;
        let mut shares: Vec<(usize, f64, Vec<usize>)> = strata
            .into_values()
            .map(|mut cases| {
                shuffle(&mut cases);
                let exact = n as f64 * cases.len() as f64 / total;
                (exact.floor() as usize, exact - exact.floor(), cases)
            })
            .collect();
        // every verdict present gets one when n allows
        if n >= shares.len() {
            for s in shares.iter_mut().filter(|s| s.0 == 0) {
                s.0 = 1;
                s.1 = 0.0;
            }
        }
        let mut given: usize = shares.iter().map(|s| s.0).sum();
        let mut order: Vec<usize> = (0..shares.len()).collect();
        order.sort_by(|a, b| shares[*b].1.total_cmp(&shares[*a].1).then(a.cmp(b)));
        for i in order.iter().cycle().take(shares.len() * 2) {
            if given >= n {
                break;
            }
            if shares[*i].0 < shares[*i].2.len() {
                shares[*i].0 += 1;
                given += 1;
            }
        }
        let mut out: Vec<usize> = shares
            .into_iter()
            .flat_map(|(k, _, cases)| cases.into_iter().take(k))
            .collect();
        out.truncate(n);
        out
    } else {
        let mut cases = all;
        shuffle(&mut cases);
        cases.truncate(n);
        cases
    };
    picked.sort_unstable();
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn score(case: &str, metric: &str, value: f64, detail: Value) -> EvalScore {
        EvalScore {
            sample_id: case.into(),
            metric: metric.into(),
            value,
            tags: vec![],
            language: None,
            length_bucket: None,
            detail,
        }
    }

    fn label(case: &str, metric: &str, reviewer: &str, l: Value, t: u64) -> LabelEvent {
        serde_json::from_value(json!({
            "case_id": case, "metric": metric, "reviewer": reviewer, "label": l, "t": t, "blind": true
        }))
        .expect("a label")
    }

    #[test]
    fn verdicts_against_the_majority_each_reviewer_and_among_reviewers() {
        // the judge: pass on c1..c4, fail on c5..c8 (outcome wins over value)
        let scores: Vec<EvalScore> = (1..=8)
            .map(|i| {
                let outcome = if i <= 4 { "pass" } else { "fail" };
                score(
                    &format!("c{i}"),
                    "correct",
                    0.3,
                    json!({"model": "m", "outcome": outcome}),
                )
            })
            .collect();
        let mut events = Vec::new();
        // ana: pass c1 c2 c3, fail c4 c5 c6; bo agrees except c3 (tie there)
        for (i, l) in [
            (1, true),
            (2, true),
            (3, true),
            (4, false),
            (5, false),
            (6, false),
        ] {
            events.push(label(&format!("c{i}"), "correct", "ana", json!(l), 10));
        }
        for (i, l) in [
            (1, true),
            (2, true),
            (3, false),
            (4, false),
            (5, false),
            (6, true),
        ] {
            events.push(label(&format!("c{i}"), "correct", "bo", json!(l), 10));
        }
        // ana changes her mind on c6 later (she saw it again)
        events.push(label("c6", "correct", "ana", json!("pass"), 20));
        events.push(label("c7", "correct", "ana", json!(3), 10)); // off the scale
        events.push(label("nope", "correct", "ana", json!(true), 10)); // another run's
        let agreed = agree(&scores, &events, &AgreeOptions::default());
        assert_eq!(agreed.off_scale.len(), 1);
        assert_eq!(agreed.unmatched.len(), 1);
        assert!(agreed.unmatched[0].why.contains("no case `nope`"));
        let a = &agreed.metrics[0];
        assert_eq!(a.model.as_deref(), Some("m"));
        assert_eq!(a.labelled_cases, 6);
        assert_eq!(a.majority_ties, 1, "c3: ana pass, bo fail");
        // majority: c1 p, c2 p, c4 f, c5 f, c6 p (both pass now); judge p p p f f... (c4 pass)
        let pairs = [
            (Label::Pass, Label::Pass),
            (Label::Pass, Label::Pass),
            (Label::Pass, Label::Fail),
            (Label::Fail, Label::Fail),
            (Label::Fail, Label::Pass),
        ];
        assert_eq!(a.figures.n, 5);
        assert_eq!(a.figures.agreement, raw_agreement(&pairs).ok());
        assert_eq!(a.figures.cohen_kappa, cohen_kappa(&pairs).ok());
        let c = a.figures.confusion.expect("a table");
        assert_eq!(
            (
                c.both_pass,
                c.verdict_only_pass,
                c.label_only_pass,
                c.both_fail
            ),
            (2, 1, 1, 1)
        );
        assert_eq!(a.figures.tpr, Some(2.0 / 3.0));
        let [lo, hi] = a.figures.cohen_kappa_ci95.expect("κ's interval");
        assert!(lo <= hi && lo >= -1.0 && hi <= 1.0, "{lo} {hi}");
        let again = agree(&scores, &events, &AgreeOptions::default());
        assert_eq!(again, agreed, "seeded: the same figures again");
        assert_eq!(a.judged_cases, 8);
        assert_eq!(a.pass_rate, Some(0.5));
        assert!(a.corrected_pass_rate.is_some());
        assert_eq!(a.per_reviewer.len(), 2);
        assert_eq!(a.per_reviewer[0].figures.n, 6);
        let units: Vec<Vec<Option<Label>>> = (1..=6)
            .map(|i| {
                let ana = [true, true, true, false, false, true][i - 1];
                let bo = [true, true, false, false, false, true][i - 1];
                let l = |b: bool| Some(if b { Label::Pass } else { Label::Fail });
                vec![l(ana), l(bo)]
            })
            .collect();
        assert_eq!(
            a.krippendorff_alpha,
            krippendorff_alpha(&units, &[Label::Fail, Label::Pass], Level::Nominal).ok()
        );
        assert_eq!(a.reviewer_pairs.len(), 1);
        assert_eq!(a.reviewer_pairs[0].n, 6);
        // the gate
        let k = a.figures.cohen_kappa.expect("κ");
        assert!(kappa_below(&agreed, k - 0.01).is_empty());
        let below = kappa_below(&agreed, k + 0.01);
        assert_eq!(below.len(), 1);
        assert!(below[0].starts_with("correct (m): κ ="), "{}", below[0]);
        let md = agreement_markdown(&agreed);
        assert!(md.contains("| correct | m | pass-fail | 5 |"), "{md}");
        // under it, what the viewer shows under its row
        assert!(md.contains("### correct · m (pass-fail)"), "{md}");
        assert!(md.contains("| pass | 2 | 1 |\n| fail | 1 | 1 |"), "{md}");
        assert!(md.contains("| ana | 6 | "), "{md}");
        assert!(md.contains("| ana · bo | 6 | "), "{md}");
        assert!(md.contains("reviewers tied (left out)"), "{md}");
        let v = serde_json::to_value(&agreed).expect("json");
        assert!(v["metrics"][0]["tpr_ci95"].is_array());
        assert!(v["metrics"][0]["cohen_kappa"].is_number());
    }

    #[test]
    fn ratings_read_back_onto_the_scale_and_undefined_figures_say_why() {
        // a 1-5 judge: value (n - 1) / 4
        let scores: Vec<EvalScore> = [1, 2, 3, 4, 5, 3]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                score(
                    &format!("c{i}"),
                    "stars",
                    (*n as f64 - 1.0) / 4.0,
                    json!({}),
                )
            })
            .chain([score("c9", "stars", 0.3, json!({}))]) // a mean: not a rating
            .collect();
        let events: Vec<LabelEvent> = [1, 2, 4, 4, 5, 3, 2]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let case = if i == 6 {
                    "c9".to_string()
                } else {
                    format!("c{i}")
                };
                label(&case, "stars", "ana", json!(n), 1)
            })
            .collect();
        let opts = AgreeOptions {
            schemes: [("stars".to_string(), Scheme::parse("1-5").expect("scale"))].into(),
            ..AgreeOptions::default()
        };
        let agreed = agree(&scores, &events, &opts);
        let a = &agreed.metrics[0];
        assert_eq!(a.model, None);
        assert_eq!(a.judged_cases, 6, "0.3 lands on no rating");
        assert_eq!(a.figures.n, 6);
        let pairs: Vec<(Label, Label)> = [(1, 1), (2, 2), (3, 4), (4, 4), (5, 5), (3, 3)]
            .iter()
            .map(|(a, b)| (Label::Rating(*a), Label::Rating(*b)))
            .collect();
        let scale: Vec<Label> = (1..=5).map(Label::Rating).collect();
        assert_eq!(
            a.figures.cohen_kappa_quadratic,
            cohen_kappa_quadratic(&pairs, &scale).ok()
        );
        assert_eq!(a.pass_rate, None);
        assert_eq!(a.krippendorff_alpha, None);
        assert!(a.figures.undefined["krippendorff_alpha"].contains("one reviewer"));
        // one class only: κ undefined, said, and the gate does not pass
        let same: Vec<EvalScore> = (0..3)
            .map(|i| score(&format!("c{i}"), "m", 1.0, json!({})))
            .collect();
        let events: Vec<LabelEvent> = (0..3)
            .map(|i| label(&format!("c{i}"), "m", "ana", json!(true), 1))
            .collect();
        let agreed = agree(&same, &events, &AgreeOptions::default());
        assert_eq!(agreed.metrics[0].figures.cohen_kappa, None);
        assert!(agreed.metrics[0]
            .figures
            .undefined
            .contains_key("cohen_kappa"));
        assert!(kappa_below(&agreed, 0.0)[0].contains("undefined"));
    }

    /// The keys of an `agreement.json` row.
    const KEYS: [&str; 15] = [
        "metric",
        "model",
        "n",
        "agreement",
        "cohen_kappa",
        "cohen_kappa_quadratic",
        "tpr",
        "tpr_ci95",
        "tnr",
        "tnr_ci95",
        "pass_rate",
        "corrected_pass_rate",
        "corrected_pass_rate_ci95",
        "per_reviewer",
        "krippendorff_alpha",
    ];

    /// Every key of the issue present in `row`, and every null figure of it
    /// (and of each reviewer's) with its reason in `undefined`; returns the
    /// null ones.
    fn nulls_said(row: &Value) -> Vec<String> {
        for k in KEYS {
            assert!(row.get(k).is_some(), "`{k}` missing from {row}");
        }
        let mut nulls = Vec::new();
        let mut check = |v: &Value, whose: &str| {
            let why = v["undefined"].as_object().expect("an undefined map");
            for (k, x) in v.as_object().expect("an object") {
                // the model is null in a run of one unnamed model: not a figure
                if x.is_null() && k != "model" {
                    assert!(
                        why.get(k)
                            .and_then(Value::as_str)
                            .is_some_and(|w| !w.is_empty()),
                        "{whose} `{k}` is null without a reason: {v}"
                    );
                    nulls.push(format!("{whose}{k}"));
                }
            }
        };
        check(row, "");
        for r in row["per_reviewer"].as_array().expect("per_reviewer") {
            check(r, &format!("{}:", r["reviewer"].as_str().unwrap_or("?")));
        }
        nulls
    }

    #[test]
    fn every_key_is_present_and_every_null_says_why_for_pass_fail_and_ratings() {
        // pass/fail: a judge passing c0..c3, failing c4..c5; one reviewer
        let scores: Vec<EvalScore> = (0..6)
            .map(|i| {
                score(
                    &format!("c{i}"),
                    "correct",
                    if i < 4 { 1.0 } else { 0.0 },
                    json!({}),
                )
            })
            .collect();
        let events: Vec<LabelEvent> = (0..6)
            .map(|i| {
                label(
                    &format!("c{i}"),
                    "correct",
                    "ana",
                    json!(i != 0 && i < 4),
                    1,
                )
            })
            .collect();
        let agreed = agree(&scores, &events, &AgreeOptions::default());
        let v = serde_json::to_value(&agreed).expect("json");
        let row = &v["metrics"][0];
        let mut nulls = nulls_said(row);
        nulls.sort();
        assert_eq!(
            nulls,
            vec![
                "ana:cohen_kappa_quadratic",
                "cohen_kappa_quadratic",
                "krippendorff_alpha",
                "krippendorff_alpha_ordinal",
            ],
            "{row}"
        );
        assert!(row["confusion"].is_object());
        assert!(row["undefined"]["cohen_kappa_quadratic"]
            .as_str()
            .is_some_and(|w| w.contains("pass/fail (no order)")));

        // a 1-5 rating: the pass/fail figures null, each said
        let scores: Vec<EvalScore> = [1, 2, 3, 4, 5]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                score(
                    &format!("c{i}"),
                    "stars",
                    (*n as f64 - 1.0) / 4.0,
                    json!({"model": "m"}),
                )
            })
            .collect();
        let events: Vec<LabelEvent> = [1, 2, 4, 4, 5]
            .iter()
            .enumerate()
            .flat_map(|(i, n)| {
                [
                    label(&format!("c{i}"), "stars", "ana", json!(n), 1),
                    label(&format!("c{i}"), "stars", "bo", json!((n % 5) + 1), 1),
                ]
            })
            .collect();
        let opts = AgreeOptions {
            schemes: [("stars".to_string(), Scheme::Rating { lo: 1, hi: 5 })].into(),
            ..AgreeOptions::default()
        };
        let v = serde_json::to_value(agree(&scores, &events, &opts)).expect("json");
        let row = &v["metrics"][0];
        let mut nulls = nulls_said(row);
        nulls.sort();
        let pass_fail_only = ["confusion", "tnr", "tnr_ci95", "tpr", "tpr_ci95"];
        let mut want: Vec<String> = ["", "ana:", "bo:"]
            .iter()
            .flat_map(|w| pass_fail_only.iter().map(move |k| format!("{w}{k}")))
            .chain(
                [
                    "corrected_pass_rate",
                    "corrected_pass_rate_ci95",
                    "pass_rate",
                ]
                .iter()
                .map(|k| k.to_string()),
            )
            .collect();
        // the majority of two reviewers who never agree: every case a tie
        want.extend(
            [
                "agreement",
                "cohen_kappa",
                "cohen_kappa_ci95",
                "cohen_kappa_quadratic",
            ]
            .iter()
            .map(|k| k.to_string()),
        );
        want.sort();
        assert_eq!(nulls, want, "{row}");
        assert!(row["undefined"]["tpr"]
            .as_str()
            .is_some_and(|w| w.contains("a 1-5 rating: TPR is for pass/fail labels")));
        assert!(row["krippendorff_alpha_ordinal"].is_number(), "{row}");
        // shown once: an interval's reason that repeats its figure's is not
        let a: Agreed = agree(&scores, &events, &opts);
        let shown = a.metrics[0].figures.undefined_shown();
        assert!(shown.iter().any(|(k, _)| *k == "cohen_kappa"), "{shown:?}");
        assert!(
            !shown.iter().any(|(k, _)| *k == "cohen_kappa_ci95"),
            "{shown:?}"
        );
        assert!(
            !shown.iter().any(|(k, _)| *k == "tpr"),
            "not for ratings: {shown:?}"
        );
    }

    #[test]
    fn schemes_parse_or_say_what_they_expect() {
        assert_eq!(Scheme::parse("pass-fail"), Ok(Scheme::default()));
        assert_eq!(
            Scheme::parse("pass-fail@0.7"),
            Ok(Scheme::PassFail { threshold: 0.7 })
        );
        assert_eq!(Scheme::parse("1-5"), Ok(Scheme::Rating { lo: 1, hi: 5 }));
        assert_eq!(
            Scheme::parse("good, bad ,ugly"),
            Ok(Scheme::Categories(vec![
                "good".into(),
                "bad".into(),
                "ugly".into()
            ]))
        );
        assert!(Scheme::parse("5-1").is_err());
        assert!(Scheme::parse("only").is_err());
        assert!(Scheme::parse("pass-fail@x").is_err());
    }

    #[test]
    fn a_queue_is_every_case_or_a_seeded_sample_stratified_by_verdict() {
        let v: Vec<Option<Label>> = (0..100)
            .map(|i| Some(if i < 10 { Label::Fail } else { Label::Pass }))
            .collect();
        assert_eq!(
            review_queue(&v, None, false, 1),
            (0..100).collect::<Vec<_>>()
        );
        let a = review_queue(&v, Some(20), true, 7);
        assert_eq!(a, review_queue(&v, Some(20), true, 7), "seeded");
        assert_eq!(a.len(), 20);
        assert_eq!(
            a.iter().filter(|i| **i < 10).count(),
            2,
            "10% fail: 2 of 20"
        );
        let b = review_queue(&v, Some(20), false, 7);
        assert_eq!(b.len(), 20);
        assert!(b.windows(2).all(|w| w[0] < w[1]), "in the run's order");
        // a rare verdict still gets one
        let rare: Vec<Option<Label>> = (0..100)
            .map(|i| Some(if i == 50 { Label::Fail } else { Label::Pass }))
            .collect();
        assert!(review_queue(&rare, Some(5), true, 3).contains(&50));
    }

    /// A saved run of one judged metric, `(case, value, judge's label)` per
    /// case, the judge answering on `scale`.
    fn judged_run(scale: Value, cases: &[(&str, f64, &str)]) -> crate::view::ViewData {
        let scores: Vec<Value> = cases
            .iter()
            .map(|(id, v, label)| {
                let outcome = if *v >= 1.0 { "pass" } else { "fail" };
                json!({"sample_id": id, "metric": "judged", "value": v, "tags": [],
                    "language": null, "length_bucket": null,
                    "detail": {"model": "m", "outcome": outcome, "verdict": label,
                               "scale": scale, "judge_model": "j"}})
            })
            .collect();
        let report = json!({"metrics": {}, "scores": scores, "report": {
            "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl",
                "counts": {}, "languages": {}, "tags": {}}, "run_config": {"kind": "task"},
                "evaluator_config": {}},
            "summaries": [], "breakdowns": [], "error_cases": [], "llm_judge_details": []}});
        crate::view::load("report.json", report.to_string().as_bytes()).expect("a report")
    }

    #[test]
    fn the_task_offers_its_judges_scale_and_categories_read_the_judges_label() {
        let labels = json!({"labels": ["CORRECT", "PARTIAL", "INCORRECT"], "pass": ["CORRECT"]});
        let d = judged_run(
            labels,
            &[
                ("a", 1.0, "CORRECT"),
                ("b", 0.0, "PARTIAL"),
                ("c", 0.0, "INCORRECT"),
            ],
        );
        let offered = offered_schemes(&d, "judged");
        assert_eq!(offered, ["pass-fail", "CORRECT,PARTIAL,INCORRECT"]);
        let cats = Scheme::parse(&offered[1]).expect("categories");
        let verdicts: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| cats.verdict(s))
            .collect();
        let cat = |c: &str| Some(Label::Category(c.into()));
        assert_eq!(verdicts, [cat("CORRECT"), cat("PARTIAL"), cat("INCORRECT")]);
        // pass/fail still reads the outcome
        let pf: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| Scheme::default().verdict(s))
            .collect();
        assert_eq!(
            pf,
            [Some(Label::Pass), Some(Label::Fail), Some(Label::Fail)]
        );

        // a rating judge offers its range; a metric without a judge, pass/fail only
        let range = json!({"range": [1, 5], "pass_from": 4});
        let d = judged_run(range, &[("a", 0.75, "4"), ("b", 0.25, "2")]);
        assert_eq!(offered_schemes(&d, "judged"), ["pass-fail", "1-5"]);
        let rating = Scheme::parse("1-5").expect("rating");
        let r: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| rating.verdict(s))
            .collect();
        assert_eq!(r, [Some(Label::Rating(4)), Some(Label::Rating(2))]);
        assert_eq!(offered_schemes(&d, "absent"), ["pass-fail"]);
        // a label with a comma cannot be a category of the text form: not offered
        let odd = json!({"labels": ["yes, fully", "no"], "pass": ["yes, fully"]});
        let d = judged_run(odd, &[("a", 1.0, "yes, fully")]);
        assert_eq!(offered_schemes(&d, "judged"), ["pass-fail"]);
    }
}
