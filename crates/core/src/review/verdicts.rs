//! An automatic judge's pass/fail verdicts against human labels: the 2×2
//! confusion matrix, agreement, κ, the judge's true-pass and true-fail rates
//! with Wilson intervals, and the pass rate corrected for the judge's errors
//! (Rogan and Gladen, 1978) with a seeded percentile bootstrap interval.
//!
//! A labelled pair is `(verdict, human)`: the judge's verdict (pass = `true`)
//! and the human's label of the same case. "Positive" is pass throughout:
//! TPR = P(judge passes | human passes), TNR = P(judge fails | human fails).
//!
//! The corrected pass rate: with `p` the judge's pass rate over all cases
//! (labelled or not), `θ = (p + TNR − 1) / (TPR + TNR − 1)` clipped to
//! [0, 1]; undefined when `TPR + TNR − 1 ≤ 0` (a judge no better than a coin
//! cannot be corrected). Its sign and the clipping at 0 are decided on whole
//! counts (`TPR + TNR − 1 = (TP·TN − FN·FP) / (P·N)`), never on rounded
//! rates, so a judge exactly at chance is undefined, not ±1e-16.

use super::stats::{cohen_kappa, raw_agreement, wilson, Interval, Undefined};
use crate::rng::SplitMix64;

/// Resamples of [`corrected_pass_rate_ci`] unless the caller says otherwise.
pub const DEFAULT_RESAMPLES: usize = 2000;

/// The 2×2 table of judge verdicts against human labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Confusion {
    /// Judge pass, human pass (true positives).
    pub both_pass: u64,
    /// Judge pass, human fail (false positives).
    pub judge_only_pass: u64,
    /// Judge fail, human pass (false negatives).
    pub human_only_pass: u64,
    /// Judge fail, human fail (true negatives).
    pub both_fail: u64,
}

/// A rate `k / n` with its Wilson 95% interval (`n > 0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Successes.
    pub k: u64,
    /// Trials.
    pub n: u64,
    /// `k / n`.
    pub value: f64,
    /// Wilson score 95% interval.
    pub interval: Interval,
}

impl Rate {
    fn of(k: u64, n: u64, none: &'static str) -> Result<Rate, Undefined> {
        let interval = wilson(k, n).map_err(|_| Undefined(none))?;
        Ok(Rate {
            k,
            n,
            value: k as f64 / n as f64,
            interval,
        })
    }
}

impl Confusion {
    /// The table of `(verdict, human)` pairs.
    pub fn of(pairs: &[(bool, bool)]) -> Confusion {
        let mut c = Confusion::default();
        pairs.iter().for_each(|p| c.add(*p));
        c
    }

    fn add(&mut self, (verdict, human): (bool, bool)) {
        match (verdict, human) {
            (true, true) => self.both_pass += 1,
            (true, false) => self.judge_only_pass += 1,
            (false, true) => self.human_only_pass += 1,
            (false, false) => self.both_fail += 1,
        }
    }

    /// Labelled cases.
    pub fn total(&self) -> u64 {
        self.both_pass + self.judge_only_pass + self.human_only_pass + self.both_fail
    }

    /// TPR: of the cases humans pass, the share the judge passes. Undefined
    /// when humans pass none.
    pub fn tpr(&self) -> Result<Rate, Undefined> {
        Rate::of(
            self.both_pass,
            self.both_pass + self.human_only_pass,
            "no case passed by humans: TPR is undefined",
        )
    }

    /// TNR: of the cases humans fail, the share the judge fails. Undefined
    /// when humans fail none.
    pub fn tnr(&self) -> Result<Rate, Undefined> {
        Rate::of(
            self.both_fail,
            self.both_fail + self.judge_only_pass,
            "no case failed by humans: TNR is undefined",
        )
    }

    /// The corrected pass rate (Rogan–Gladen) from this table's TPR and TNR
    /// and the judge's `passes` among `total` cases (all cases, labelled or
    /// not), clipped to [0, 1]. Undefined when humans pass none or fail none
    /// of the labelled cases, for no cases, for `passes > total`, and when
    /// `TPR + TNR − 1 ≤ 0`.
    pub fn corrected_pass_rate(&self, passes: u64, total: u64) -> Result<f64, Undefined> {
        if total == 0 {
            return Err(Undefined("no judged case: the corrected rate is undefined"));
        }
        if passes > total {
            return Err(Undefined("more passes than cases: undefined"));
        }
        let (tp, fp) = (u128::from(self.both_pass), u128::from(self.judge_only_pass));
        let (fn_, tn) = (u128::from(self.human_only_pass), u128::from(self.both_fail));
        let (pos, neg) = (tp + fn_, tn + fp);
        if pos == 0 {
            return Err(Undefined(
                "no case passed by humans: the corrected rate is undefined",
            ));
        }
        if neg == 0 {
            return Err(Undefined(
                "no case failed by humans: the corrected rate is undefined",
            ));
        }
        // TPR + TNR − 1 = (TP·TN − FN·FP) / (P·N), and
        // θ = (p·N − FP)·P / (TP·TN − FN·FP) with p = passes / total, so
        // θ = (passes·N − FP·total)·P / (total·(TP·TN − FN·FP)).
        if tp * tn <= fn_ * fp {
            return Err(Undefined(
                "TPR + TNR − 1 ≤ 0 (no better than chance): the corrected rate is undefined",
            ));
        }
        let youden = tp * tn - fn_ * fp;
        let (passes, total) = (u128::from(passes), u128::from(total));
        if passes * neg <= fp * total {
            return Ok(0.0);
        }
        let above = passes * neg - fp * total;
        let theta = (above as f64 * pos as f64) / (total as f64 * youden as f64);
        Ok(theta.min(1.0))
    }
}

/// The agreement of an automatic judge with human labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JudgeAgreement {
    /// The 2×2 table.
    pub confusion: Confusion,
    /// Share of pairs where verdict and label agree.
    pub raw_agreement: Result<f64, Undefined>,
    /// Cohen's κ of verdict against label.
    pub kappa: Result<f64, Undefined>,
    /// P(judge passes | human passes), with its Wilson interval.
    pub tpr: Result<Rate, Undefined>,
    /// P(judge fails | human fails), with its Wilson interval.
    pub tnr: Result<Rate, Undefined>,
}

/// Agreement of `(verdict, human)` pairs: the table, raw agreement, κ, TPR
/// and TNR.
pub fn judge_vs_human(pairs: &[(bool, bool)]) -> JudgeAgreement {
    let confusion = Confusion::of(pairs);
    JudgeAgreement {
        confusion,
        raw_agreement: raw_agreement(pairs),
        kappa: cohen_kappa(pairs),
        tpr: confusion.tpr(),
        tnr: confusion.tnr(),
    }
}

/// The judge's pass rate over `verdicts` (every case, labelled or not)
/// corrected by the TPR and TNR of the `labelled` `(verdict, human)` pairs;
/// see [`Confusion::corrected_pass_rate`].
pub fn corrected_pass_rate(labelled: &[(bool, bool)], verdicts: &[bool]) -> Result<f64, Undefined> {
    let passes = verdicts.iter().filter(|v| **v).count() as u64;
    Confusion::of(labelled).corrected_pass_rate(passes, verdicts.len() as u64)
}

/// A bootstrap interval and how many resamples it stands on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BootstrapInterval {
    /// The percentile 95% interval over the defined resamples.
    pub interval: Result<Interval, Undefined>,
    /// Resamples drawn.
    pub resamples: usize,
    /// Of those, the ones where the figure was undefined (left out of the
    /// interval).
    pub skipped: usize,
}

/// A seeded percentile bootstrap 95% interval of [`corrected_pass_rate`]:
/// `resamples` times, draw the labelled pairs with replacement (as many as
/// there are) and, independently, the verdicts of all cases with
/// replacement, and compute the corrected rate; resamples where it is
/// undefined are skipped and counted. The interval is the 2.5% and 97.5%
/// order statistics of the defined values, by the rule of the comparisons'
/// bootstrap (0-based indices `floor(m · 0.025)` and `ceil(m · 0.975) − 1` of
/// the `m` sorted values). Deterministic for a seed: one SplitMix64 stream,
/// each resample drawing its labelled pairs and then its verdicts.
///
/// Undefined (nothing drawn) when the point estimate is undefined or
/// `resamples` is 0, and when every resample was undefined.
pub fn corrected_pass_rate_ci(
    labelled: &[(bool, bool)],
    verdicts: &[bool],
    resamples: usize,
    seed: u64,
) -> BootstrapInterval {
    let nothing = |why| BootstrapInterval {
        interval: Err(why),
        resamples: 0,
        skipped: 0,
    };
    if let Err(why) = corrected_pass_rate(labelled, verdicts) {
        return nothing(why);
    }
    if resamples == 0 {
        return nothing(Undefined("no resamples: the interval is undefined"));
    }
    let mut rng = SplitMix64::new(seed);
    let mut values = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut table = Confusion::default();
        for _ in 0..labelled.len() {
            table.add(labelled[rng.below(labelled.len())]);
        }
        let passes = (0..verdicts.len())
            .filter(|_| verdicts[rng.below(verdicts.len())])
            .count() as u64;
        if let Ok(v) = table.corrected_pass_rate(passes, verdicts.len() as u64) {
            values.push(v);
        }
    }
    let skipped = resamples - values.len();
    if values.is_empty() {
        return BootstrapInterval {
            interval: Err(Undefined(
                "every resample was undefined: the interval is undefined",
            )),
            resamples,
            skipped,
        };
    }
    values.sort_by(f64::total_cmp);
    let m = values.len();
    let lo = ((m as f64 * 0.025).floor() as usize).min(m - 1);
    let hi = ((m as f64 * 0.975).ceil() as usize)
        .saturating_sub(1)
        .clamp(lo, m - 1);
    BootstrapInterval {
        interval: Ok(Interval {
            lo: values[lo],
            hi: values[hi],
        }),
        resamples,
        skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(tp: usize, fp: usize, fn_: usize, tn: usize) -> Vec<(bool, bool)> {
        let mut out = Vec::new();
        out.extend(std::iter::repeat_n((true, true), tp));
        out.extend(std::iter::repeat_n((true, false), fp));
        out.extend(std::iter::repeat_n((false, true), fn_));
        out.extend(std::iter::repeat_n((false, false), tn));
        out
    }

    #[test]
    fn the_table_and_its_rates() {
        // TP 40, FP 5, FN 10, TN 45: agreement 0.85, TPR 0.8, TNR 0.9;
        // p_e = 0.45·0.5 + 0.55·0.5 = 0.5, κ = (0.85 − 0.5) / 0.5 = 0.7.
        let a = judge_vs_human(&pairs(40, 5, 10, 45));
        assert_eq!(
            a.confusion,
            Confusion {
                both_pass: 40,
                judge_only_pass: 5,
                human_only_pass: 10,
                both_fail: 45
            }
        );
        assert_eq!(a.confusion.total(), 100);
        assert!((a.raw_agreement.expect("pairs") - 0.85).abs() < 1e-12);
        assert!((a.kappa.expect("defined") - 0.7).abs() < 1e-12);
        let tpr = a.tpr.expect("defined");
        assert_eq!((tpr.k, tpr.n, tpr.value), (40, 50, 0.8));
        assert_eq!(Ok(tpr.interval), wilson(40, 50));
        let tnr = a.tnr.expect("defined");
        assert_eq!((tnr.k, tnr.n, tnr.value), (45, 50, 0.9));

        let none = judge_vs_human(&[]);
        assert_eq!(none.confusion.total(), 0);
        assert!(none.raw_agreement.is_err() && none.kappa.is_err());
        assert!(none.tpr.is_err() && none.tnr.is_err());
        let all_pass = judge_vs_human(&pairs(3, 0, 1, 0));
        assert_eq!(
            all_pass.tnr,
            Err(Undefined("no case failed by humans: TNR is undefined"))
        );
    }

    #[test]
    fn rogan_gladen_by_hand() {
        // TPR 0.8, TNR 0.9, judge passes 45 of 100: θ = (0.45 + 0.9 − 1) / 0.7 = 0.5.
        let labelled = pairs(40, 5, 10, 45);
        let mut verdicts = vec![true; 45];
        verdicts.extend(vec![false; 55]);
        let theta = corrected_pass_rate(&labelled, &verdicts).expect("defined");
        assert!((theta - 0.5).abs() < 1e-15, "{theta}");
        // Clipped: a pass rate below 1 − TNR gives 0, above TPR gives 1.
        assert_eq!(corrected_pass_rate(&labelled, &[false; 10]), Ok(0.0));
        assert_eq!(corrected_pass_rate(&labelled, &[true; 10]), Ok(1.0));
        // A perfect judge leaves the rate as it is.
        let perfect = pairs(3, 0, 0, 2);
        assert_eq!(
            corrected_pass_rate(&perfect, &[true, false, false, true]),
            Ok(0.5)
        );
        // Exactly at chance (TPR 1/3, TNR 2/3), below it, and one-sided labels.
        let chance = pairs(1, 1, 2, 2);
        assert!(corrected_pass_rate(&chance, &[true]).is_err());
        assert!(corrected_pass_rate(&pairs(1, 3, 3, 1), &[true]).is_err());
        assert!(corrected_pass_rate(&pairs(3, 0, 1, 0), &[true]).is_err());
        assert!(corrected_pass_rate(&labelled, &[]).is_err());
        assert!(Confusion::of(&labelled).corrected_pass_rate(3, 2).is_err());
    }

    #[test]
    fn bootstrap_is_seeded_counts_skips_and_covers_the_estimate() {
        let labelled = pairs(40, 5, 10, 45);
        let mut verdicts = vec![true; 45];
        verdicts.extend(vec![false; 55]);
        let a = corrected_pass_rate_ci(&labelled, &verdicts, DEFAULT_RESAMPLES, 7);
        assert_eq!(
            a,
            corrected_pass_rate_ci(&labelled, &verdicts, DEFAULT_RESAMPLES, 7)
        );
        assert_ne!(
            a,
            corrected_pass_rate_ci(&labelled, &verdicts, DEFAULT_RESAMPLES, 8)
        );
        assert_eq!((a.resamples, a.skipped), (2000, 0));
        let i = a.interval.expect("defined");
        assert!(
            i.lo < 0.5 && 0.5 < i.hi && i.lo > 0.3 && i.hi < 0.7,
            "{i:?}"
        );

        // Few labels: some resamples draw no human fail (or a judge at
        // chance) and are skipped, counted.
        let few = pairs(3, 1, 0, 1);
        let b = corrected_pass_rate_ci(&few, &[true, false, true], 500, 1);
        assert_eq!(b.resamples, 500);
        assert!(b.skipped > 0 && b.skipped < 500, "{}", b.skipped);
        let i = b.interval.expect("defined");
        assert!(0.0 <= i.lo && i.lo <= i.hi && i.hi <= 1.0);

        // Undefined point estimate: nothing drawn.
        let none = corrected_pass_rate_ci(&pairs(2, 2, 2, 2), &[true], 100, 1);
        assert!(none.interval.is_err());
        assert_eq!((none.resamples, none.skipped), (0, 0));
        assert!(corrected_pass_rate_ci(&labelled, &verdicts, 0, 1)
            .interval
            .is_err());
    }
}
