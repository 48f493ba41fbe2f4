//! Aggregates: mean and population standard deviation, overall and per bucket.
//!
//! `std = sqrt(Σ(x - mean)² / n)` (population, as spec 003's example: [1, 1, 0] gives 0.47).
//! Length buckets go by the question's character count: `short` below 50,
//! `medium` below 200, `long` from 200.

use super::{EvalScore, MetricBreakdown, MetricSummary};
pub use crate::stats::mean_std;
pub use crate::text::length_bucket;
use std::collections::BTreeMap;

/// How a score is put into buckets along one dimension.
type Bucketer = fn(&EvalScore) -> Vec<String>;

/// One summary per metric, in the order the metrics first appear.
pub fn summaries(scores: &[EvalScore], metrics: &[&str]) -> Vec<MetricSummary> {
    metrics
        .iter()
        .map(|m| {
            let values: Vec<f64> = scores
                .iter()
                .filter(|s| s.metric == *m)
                .map(|s| s.value)
                .collect();
            let (mean, std) = mean_std(&values);
            MetricSummary {
                model: None,
                metric: m.to_string(),
                mean,
                std,
                sample_count: values.len(),
                skipped: None,
                components: None,
                pass_at_k: None,
                pass_hat_k: None,
            }
        })
        .collect()
}

/// Breakdowns by tag, language and length, for each metric.
pub fn breakdowns(scores: &[EvalScore], metrics: &[&str]) -> Vec<MetricBreakdown> {
    let mut out = Vec::new();
    for m in metrics {
        let of_metric: Vec<&EvalScore> = scores.iter().filter(|s| s.metric == *m).collect();
        let dims: [(&str, Bucketer); 3] = [
            ("tag", |s| s.tags.clone()),
            ("language", |s| s.language.iter().cloned().collect()),
            ("length", |s| s.length_bucket.iter().cloned().collect()),
        ];
        for (dimension, buckets_of) in dims {
            let mut buckets: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for s in &of_metric {
                for b in buckets_of(s) {
                    buckets.entry(b).or_default().push(s.value);
                }
            }
            for (bucket, values) in buckets {
                let (mean, std) = mean_std(&values);
                out.push(MetricBreakdown {
                    model: None,
                    metric: m.to_string(),
                    dimension: dimension.to_string(),
                    bucket,
                    mean,
                    std,
                    sample_count: values.len(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_std() {
        let (mean, std) = mean_std(&[1.0, 1.0, 0.0]);
        assert!((mean - 2.0 / 3.0).abs() < 1e-12);
        assert!((std - 0.4714).abs() < 1e-4);
        assert_eq!(mean_std(&[]), (0.0, 0.0));
        assert_eq!(length_bucket("短问题"), "short");
        assert_eq!(length_bucket(&"x".repeat(60)), "medium");
        assert_eq!(length_bucket(&"x".repeat(200)), "long");
    }
}
