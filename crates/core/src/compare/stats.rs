//! The statistics of a paired comparison: a seeded PRNG (SplitMix64), the
//! paired percentile bootstrap of a mean difference, and McNemar's exact test.
//! Pure: the seed is an argument, nothing reads a clock or the OS.

/// The seeded generator (it lives in the base layer, `rng`, because the
/// run engine's retry jitter uses it too).
pub use crate::rng::SplitMix64;

/// Mean of a slice; 0 for none.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The paired percentile bootstrap interval of the mean of `diffs` (one
/// `new - base` difference per shared case): `resamples` times, draw n cases
/// with replacement (the pairs stay together: a case's two scores are drawn
/// at once), take the mean difference; the interval is the `alpha / 2` and
/// `1 - alpha / 2` order statistics of those means (0-based indices
/// `floor(B · alpha/2)` and `ceil(B · (1 - alpha/2)) - 1`, so with B =
/// 10,000 and alpha = 0.05 the 251st and the 9,750th of the sorted means:
/// 250 means lie outside on each side). `None` without a difference or a
/// resample. Differences that are all equal give the point interval.
pub fn bootstrap_ci(diffs: &[f64], resamples: usize, alpha: f64, seed: u64) -> Option<(f64, f64)> {
    let n = diffs.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    if diffs.iter().all(|d| *d == diffs[0]) {
        return Some((diffs[0], diffs[0]));
    }
    let mut rng = SplitMix64::new(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| diffs[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let b = resamples as f64;
    let lo = ((b * alpha / 2.0).floor() as usize).min(resamples - 1);
    let hi = ((b * (1.0 - alpha / 2.0)).ceil() as usize)
        .saturating_sub(1)
        .clamp(lo, resamples - 1);
    Some((means[lo], means[hi]))
}

/// McNemar's exact test of one 0/1 metric over paired cases.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct McNemar {
    /// Discordant pairs that passed in base and failed in new (regressions).
    pub b: u64,
    /// Discordant pairs that failed in base and passed in new (improvements).
    pub c: u64,
    /// Two-sided exact p-value.
    pub p: f64,
}

/// McNemar's exact two-sided test: under the null a discordant pair is a
/// regression or an improvement with probability 1/2, so with X ~
/// Bin(b + c, 1/2), `p = min(1, 2 · P(X ≤ min(b, c)))`; 1 when there is no
/// discordant pair. Computed in log space (log binomial coefficients summed
/// term by term, the tail added by log-sum-exp), so it neither overflows nor
/// underflows for b + c in the hundreds of thousands.
pub fn mcnemar(b: u64, c: u64) -> McNemar {
    McNemar {
        b,
        c,
        p: (2.0 * binomial_half_cdf(b + c, b.min(c))).min(1.0),
    }
}

/// P(X ≤ k) for X ~ Bin(n, 1/2), k ≤ n.
pub fn binomial_half_cdf(n: u64, k: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    let ln2n = n as f64 * std::f64::consts::LN_2;
    // ln C(n, i) for i = 0..=k, by ln C(n, i+1) = ln C(n, i) + ln(n-i) - ln(i+1).
    let mut terms = Vec::with_capacity(k as usize + 1);
    let mut ln_c = 0.0f64;
    for i in 0..=k {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        terms.push(ln_c - ln2n);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // Reference values of Vigna's splitmix64.c started at 1234567.
        let mut r = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            vec![
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
        let mut r = SplitMix64::new(9);
        assert!((0..1000).all(|_| r.below(7) < 7));
    }

    #[test]
    fn mcnemar_by_hand() {
        // b = 10, c = 2: P(X ≤ 2) = (1 + 12 + 66) / 2^12 = 79/4096, p = 158/4096.
        let t = mcnemar(10, 2);
        assert!((t.p - 158.0 / 4096.0).abs() < 1e-15, "{}", t.p);
        assert_eq!(mcnemar(2, 10).p, t.p);
        // b = 5, c = 0: p = 2 / 2^5 = 0.0625.
        assert!((mcnemar(5, 0).p - 0.0625).abs() < 1e-15);
        // b = 10, c = 0: p = 2 / 1024.
        assert!((mcnemar(0, 10).p - 2.0 / 1024.0).abs() < 1e-15);
        // Symmetric: p = 1 (capped); no discordant pair: p = 1.
        assert_eq!(mcnemar(7, 7).p, 1.0);
        assert_eq!(mcnemar(0, 0).p, 1.0);
        // b = 3, c = 1: 2 · (1 + 4) / 16 = 0.625.
        assert!((mcnemar(3, 1).p - 0.625).abs() < 1e-15);
    }

    #[test]
    fn mcnemar_is_stable_for_large_counts() {
        // n = 100,000 balanced: p = 1 (capped), finite.
        assert_eq!(mcnemar(50_000, 50_000).p, 1.0);
        // Against the exact values (big-integer sums of binomial coefficients,
        // rounded to doubles): relative error below 1e-7.
        for (b, c, exact) in [
            (51_000, 49_000, 2.588_716_038_346_898e-10),
            (600, 400, 2.728_464_156_066_018e-10),
            (10_200, 9_800, 0.004_780_889_455_902_644),
        ] {
            let p = mcnemar(b, c).p;
            assert!(
                ((p - exact) / exact).abs() < 1e-7,
                "{b} {c}: {p} vs {exact}"
            );
        }
        // P(X ≤ n/2) for even n is 1/2 + P(X = n/2)/2, just above 1/2.
        let half = binomial_half_cdf(100_000, 50_000);
        assert!(half > 0.5 && half < 0.502, "{half}");
        // Extreme tail: 2 · 2^-100000 underflows to 0, the honest double.
        assert_eq!(mcnemar(100_000, 0).p, 0.0);
        assert!((mcnemar(1000, 0).p - 2f64.powi(-999)).abs() < 1e-300);
    }

    #[test]
    fn bootstrap_is_deterministic_and_point_for_identical_runs() {
        let diffs: Vec<f64> = (0..200).map(|i| f64::from(i % 5) / 4.0 - 0.4).collect();
        let a = bootstrap_ci(&diffs, 2000, 0.05, 42);
        assert_eq!(a, bootstrap_ci(&diffs, 2000, 0.05, 42));
        assert_ne!(a, bootstrap_ci(&diffs, 2000, 0.05, 43));
        assert_eq!(bootstrap_ci(&[0.0; 50], 10_000, 0.05, 1), Some((0.0, 0.0)));
        assert_eq!(bootstrap_ci(&[], 10_000, 0.05, 1), None);
    }

    #[test]
    fn bootstrap_covers_a_known_shift() {
        // Differences 0.3 ± 0.2 (uniform over a grid): the mean is 0.3; the
        // interval is narrow around it and excludes 0.
        let diffs: Vec<f64> = (0..420)
            .map(|i| 0.3 + (f64::from(i % 21) - 10.0) / 50.0)
            .collect();
        let (lo, hi) = bootstrap_ci(&diffs, 10_000, 0.05, 7).expect("ci");
        let m = mean(&diffs);
        assert!((m - 0.3).abs() < 1e-9);
        assert!(lo < m && m < hi, "{lo} {m} {hi}");
        assert!(lo > 0.28 && hi < 0.32, "{lo} {hi}");
        // Standard error = sd/√n = 0.1211/√420 = 0.0059: the 95% width ≈ 3.92 · 0.0059 = 0.023.
        assert!((hi - lo - 0.0232).abs() < 0.003, "{}", hi - lo);
    }
}
