//! Repeats: a run that asks each sample `n` times (`--repeats`, the task
//! file's `repeats`, the page's field). Every answer is scored on its own
//! and the metric's aggregate is over all answers (so `mean` is the mean
//! over every answer). Besides it:
//!
//! - per sample, each metric's value per repeat and their mean
//!   (`report.repeats.samples`; `compare` pairs samples by that mean);
//! - for a pass/fail metric (`Metric::pass_fail`: exact match, numeric hit,
//!   RAG accuracy and citation, a judge's verdict; and every scored value 0
//!   or 1), pass@k and pass^k for each asked k
//!   (`stats::pass_at_k`, `stats::pass_hat_k`): per sample over its scored
//!   answers (n = scored repeats, c = passes), then the mean over samples
//!   with at least k scored answers. A failed call is an answer scored 0
//!   like any other, so it stays in every denominator; an answer the metric
//!   could not score (a missing label) is not counted in n.

pub use super::contract::Repeats;
use super::data::EvalSample;
use super::score::ModelRun;
use crate::report::{MetricSummary, RepeatSummary, SampleRepeats};
use crate::run::Estimate;
use std::collections::BTreeMap;

/// Each sample's values per metric over its repeats, in answer order.
fn per_sample(run: &ModelRun, metric: usize) -> BTreeMap<usize, Vec<Option<f64>>> {
    let mut out: BTreeMap<usize, Vec<Option<f64>>> = BTreeMap::new();
    for r in &run.results {
        let v = r.scores.get(metric).and_then(|(_, s)| s.value);
        out.entry(r.index).or_default().push(v);
    }
    out
}

/// pass@k and pass^k of one metric of one model, by k; `None` when the
/// metric is not a pass/fail one (`Metric::pass_fail`, and every scored
/// value 0 or 1: a judge on a scale is not), or scored nothing.
pub fn pass_k(run: &ModelRun, metric: usize, ks: &[u32]) -> Option<[BTreeMap<String, f64>; 2]> {
    let samples = per_sample(run, metric);
    let scored: Vec<Vec<f64>> = samples
        .values()
        .map(|vs| vs.iter().flatten().copied().collect())
        .collect();
    let binary = scored.iter().flatten().all(|v| *v == 0.0 || *v == 1.0);
    if ks.is_empty() || !binary || scored.iter().all(Vec::is_empty) {
        return None;
    }
    let mut at = BTreeMap::new();
    let mut hat = BTreeMap::new();
    for &k in ks {
        let k_us = k as usize;
        let mut figures = (0.0, 0.0, 0usize);
        for vs in &scored {
            let (n, c) = (vs.len(), vs.iter().filter(|v| **v == 1.0).count());
            if let (Some(a), Some(h)) = (
                crate::stats::pass_at_k(n, c, k_us),
                crate::stats::pass_hat_k(n, c, k_us),
            ) {
                figures = (figures.0 + a, figures.1 + h, figures.2 + 1);
            }
        }
        if figures.2 > 0 {
            let n = figures.2 as f64;
            at.insert(k.to_string(), figures.0 / n);
            hat.insert(k.to_string(), figures.1 / n);
        }
    }
    Some([at, hat])
}

/// Adds pass@k and pass^k to a model's summaries (in task order) of the
/// metrics `pass_fail` marks (`Metric::pass_fail`, in task order).
pub fn add_pass_k(pass_fail: &[bool], run: &ModelRun, summaries: &mut [MetricSummary], ks: &[u32]) {
    for (k, s) in summaries.iter_mut().enumerate() {
        let pass_fail = pass_fail.get(k).copied().unwrap_or(false);
        if let (true, Some([at, hat])) = (pass_fail, pass_k(run, k, ks)) {
            s.pass_at_k = Some(at);
            s.pass_hat_k = Some(hat);
        }
    }
}

/// The report's `repeats`: every model's samples with their values per
/// repeat; `None` for a run that asked once.
pub fn summary(
    repeats: &Repeats,
    runs: &[ModelRun],
    samples: &[EvalSample],
    metrics: &[String],
) -> Option<RepeatSummary> {
    if !repeats.several() {
        return None;
    }
    let mut out = Vec::new();
    for run in runs {
        let by_metric: Vec<BTreeMap<usize, Vec<Option<f64>>>> =
            (0..metrics.len()).map(|k| per_sample(run, k)).collect();
        let indices: Vec<usize> = by_metric
            .first()
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for i in indices {
            let Some(sample) = samples.get(i) else {
                continue;
            };
            let mut values = BTreeMap::new();
            let mut mean = BTreeMap::new();
            for (name, m) in metrics.iter().zip(&by_metric) {
                let vs = m.get(&i).cloned().unwrap_or_default();
                let scored: Vec<f64> = vs.iter().flatten().copied().collect();
                if !scored.is_empty() {
                    mean.insert(
                        name.clone(),
                        scored.iter().sum::<f64>() / scored.len() as f64,
                    );
                }
                values.insert(name.clone(), vs);
            }
            out.push(SampleRepeats {
                model: Some(run.model.clone()),
                sample_id: sample.sample.id.clone(),
                values,
                mean,
            });
        }
    }
    Some(RepeatSummary {
        n: repeats.n,
        pass_k: repeats.ks(),
        samples: out,
    })
}

/// The estimate of each model (name, price, `max_tokens`) over these
/// rendered prompts, each asked `repeats` times.
pub fn estimate(
    prompts: &[Result<Vec<crate::provider::ChatMessage>, String>],
    repeats: u32,
    models: &[(String, Option<crate::report::Price>, Option<u64>)],
) -> Vec<Estimate> {
    let r = u64::from(repeats.max(1));
    let (calls, prompt): (u64, u64) = prompts
        .iter()
        .flatten()
        .map(|m| (1, crate::run::prompt_tokens_max(m)))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    models
        .iter()
        .map(|(name, price, max_tokens)| {
            Estimate::new(name, calls * r, prompt * r, *price, *max_tokens)
        })
        .collect()
}

#[cfg(test)]
mod estimate_tests {
    use super::*;
    use crate::provider::ChatMessage;
    use crate::report::Price;

    #[test]
    fn calls_tokens_and_cost_scale_with_repeats_and_skip_unrenderable_prompts() {
        let prompts = vec![
            Ok(vec![ChatMessage::new("user", "abcd")]),
            Err("missing field".to_string()),
            Ok(vec![ChatMessage::new("user", "ab")]),
        ];
        let price = Price {
            in_per_mtok: 1.0,
            out_per_mtok: 2.0,
        };
        let e = estimate(
            &prompts,
            3,
            &[
                ("m".into(), Some(price), Some(10)),
                ("free".into(), None, None),
            ],
        );
        // one prompt: 3 + (4 + 4) + 4 = 15; the other 13
        assert_eq!(e[0].calls, 6);
        assert_eq!(e[0].prompt_tokens_max, (15 + 13) * 3);
        assert_eq!(e[0].completion_tokens_max, Some(60));
        let cost = 84.0 / 1e6 + 60.0 * 2.0 / 1e6;
        assert!((e[0].cost_max.unwrap_or(0.0) - cost).abs() < 1e-15);
        assert_eq!((e[1].completion_tokens_max, e[1].cost_max), (None, None));
    }
}
