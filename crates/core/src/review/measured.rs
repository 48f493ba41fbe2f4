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

#[cfg(test)]
#[path = "measured_tests.rs"]
mod tests;
