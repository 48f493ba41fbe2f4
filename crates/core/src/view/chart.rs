//! The numbers the viewer's SVG charts draw: each metric's mean with a 95%
//! confidence interval, breakdown bars, and a latency histogram. Pure, so the
//! geometry is tested; the page only turns it into `<rect>`s and `<line>`s.
//!
//! Intervals: for a metric whose values are all 0/1 the Wilson score interval
//! (good at small n and at rates near 0 or 1); otherwise the normal
//! approximation mean ± 1.96·s/√n, clamped to [0, 1]. With n = 0 there is no
//! interval.

use crate::report::MetricSummary;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A bar with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Label (metric, or metric / model, or bucket).
    pub label: String,
    /// Mean in [0, 1].
    pub mean: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Cases behind it.
    pub n: usize,
}

/// The Wilson score interval of `k` successes in `n`.
pub fn wilson(k: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 0.0);
    }
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A summary's bar: Wilson when `binary`, else the normal approximation.
pub fn bar(s: &MetricSummary, binary: bool) -> Bar {
    let n = s.sample_count as f64;
    let (lo, hi) = if s.sample_count == 0 {
        (s.mean, s.mean)
    } else if binary {
        wilson(s.mean * n, n)
    } else {
        let half = Z95 * s.std / n.sqrt();
        ((s.mean - half).max(0.0), (s.mean + half).min(1.0))
    };
    Bar {
        label: match &s.model {
            Some(m) => format!("{} · {m}", s.metric),
            None => s.metric.clone(),
        },
        mean: s.mean,
        lo,
        hi,
        n: s.sample_count,
    }
}

/// A histogram of latencies: `bins` equal-width bins from 0 to the largest
/// value (rounded up), as (upper edge in ms, count).
pub fn histogram(values: &[f64], bins: usize) -> Vec<(f64, usize)> {
    let max = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    if values.is_empty() || bins == 0 || max <= 0.0 {
        return Vec::new();
    }
    let width = (max / bins as f64).max(1.0).ceil();
    let mut counts = vec![0usize; bins];
    for v in values.iter().filter(|v| v.is_finite() && **v >= 0.0) {
        let i = ((v / width) as usize).min(bins - 1);
        counts[i] += 1;
    }
    counts
        .into_iter()
        .enumerate()
        .map(|(i, c)| ((i + 1) as f64 * width, c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_reference_value() {
        // 8 of 10: Wilson 95% interval (0.4902, 0.9433), e.g. statsmodels' proportion_confint(method="wilson").
        let (lo, hi) = wilson(8.0, 10.0);
        assert!(
            (lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.0, 0.0), (0.0, 0.0));
        let (lo, hi) = wilson(0.0, 20.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.1 && hi < 0.2);
    }

    #[test]
    fn bars_and_histograms() {
        let s = MetricSummary {
            model: None,
            metric: "f1".into(),
            mean: 0.5,
            std: 0.2,
            sample_count: 100,
            skipped: None,
            components: None,
            pass_at_k: None,
            pass_hat_k: None,
        };
        let b = bar(&s, false);
        assert!(
            (b.lo - (0.5 - 1.96 * 0.02)).abs() < 1e-3 && (b.hi - (0.5 + 1.96 * 0.02)).abs() < 1e-3
        );
        let h = histogram(&[5.0, 15.0, 95.0, 100.0], 10);
        assert_eq!(h.len(), 10);
        assert_eq!(h[0], (10.0, 1));
        assert_eq!(h[9].1, 2, "the largest value falls in the last bin");
        assert_eq!(h.iter().map(|(_, c)| c).sum::<usize>(), 4);
        assert!(histogram(&[], 10).is_empty());
    }
}
