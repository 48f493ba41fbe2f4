//! Tokens, latency and cost per model: what every peer reports and what teams
//! compare models on.
//!
//! - tokens: `prompt_tokens`, `completion_tokens` and `reasoning_tokens` summed
//!   over the model's calls that carried `usage` (a truncated answer counted
//!   as a failed call still used its tokens);
//! - latency: p50 and p95 (nearest rank) of the answered calls' time from
//!   first send to answer, retries included;
//! - output tokens per second: completion tokens / seconds, both over the
//!   calls that carried `usage`;
//! - latency and output speed are timings: `report.json` writes them in
//!   `experiment.run.latency` (with the run id, the parts that differ between
//!   identical runs); `report.md` and `summary.csv` show them beside the tokens;
//! - cost, only when a price is set: prompt tokens times `price_in_per_mtok`
//!   plus completion tokens times `price_out_per_mtok`, over a million
//!   (completion tokens include the reasoning tokens, as endpoints bill them);
//! - a run with a judge has one more row, the judge model's (`role:
//!   "judge"`): its calls' tokens (repairs included) and cost at its own
//!   price, so the run's cost includes judging; judge calls are not timed
//!   one by one, so the row has no latency.

use super::EvaluationResult;
use crate::provider::Usage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A model's price, per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Price of a million prompt (input) tokens.
    pub in_per_mtok: f64,
    /// Price of a million completion (output) tokens.
    pub out_per_mtok: f64,
}

/// One call as the usage row counts it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallStat {
    /// The call answered (latency is over answered calls only).
    pub answered: bool,
    /// The answer was cut off at `max_tokens`.
    pub truncated: bool,
    /// Time from first send to outcome, ms (none for answers read from a file).
    pub elapsed_ms: Option<u64>,
    /// Token counts, when the endpoint gave them.
    pub usage: Option<Usage>,
    /// The answer came from the response cache (no usage, no cost, and not
    /// in the latency: it was not asked in this run).
    pub cached: bool,
}

/// One model's tokens, latency and cost (`report.usage` rows).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Model name.
    pub model: String,
    /// `judge` for the row of a run's judge model (its calls judge the
    /// answers of the other rows' models); absent for answering models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Answered calls.
    pub answered: usize,
    /// Answers taken from the response cache (counted in `answered`; their
    /// tokens are not in this run's totals or cost).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached: usize,
    /// Calls that carried `usage`.
    pub with_usage: usize,
    /// Answers cut off at `max_tokens`.
    pub truncated: usize,
    /// Prompt tokens, summed.
    pub prompt_tokens: u64,
    /// Completion tokens (reasoning included), summed.
    pub completion_tokens: u64,
    /// Reasoning tokens, summed.
    pub reasoning_tokens: u64,
    /// Median latency of answered calls, ms (a timing: written in
    /// `experiment.run.latency`, not here).
    #[serde(skip)]
    pub latency_p50_ms: Option<u64>,
    /// 95th percentile latency of answered calls, ms (as above).
    #[serde(skip)]
    pub latency_p95_ms: Option<u64>,
    /// Completion tokens per second of answering time (as above).
    #[serde(skip)]
    pub output_tokens_per_s: Option<f64>,
    /// Prompt tokens per second as the engine timed them (llama.cpp's
    /// `timings`), over the calls that carried them (as above).
    #[serde(skip)]
    pub prompt_tokens_per_s: Option<f64>,
    /// Generated tokens per second as the engine timed them (as above).
    #[serde(skip)]
    pub decode_tokens_per_s: Option<f64>,
    /// Price per million prompt tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_in_per_mtok: Option<f64>,
    /// Price per million completion tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_out_per_mtok: Option<f64>,
    /// Cost of the run's tokens, when a price is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

/// One model's timings (`experiment.run.latency` rows of `report.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelLatency {
    /// Model name.
    pub model: String,
    /// Median latency of answered calls (first send to answer, retries included), ms.
    pub latency_p50_ms: Option<u64>,
    /// 95th percentile latency of answered calls, ms.
    pub latency_p95_ms: Option<u64>,
    /// Completion tokens per second of answering time.
    pub output_tokens_per_s: Option<f64>,
    /// Prompt tokens per second, as the engine timed them (llama.cpp's own
    /// server, or a model file run in the page); absent when it did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_per_s: Option<f64>,
    /// Generated tokens per second, as the engine timed them (as above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s: Option<f64>,
}

impl From<&ModelUsage> for ModelLatency {
    fn from(u: &ModelUsage) -> ModelLatency {
        ModelLatency {
            model: u.model.clone(),
            latency_p50_ms: u.latency_p50_ms,
            latency_p95_ms: u.latency_p95_ms,
            output_tokens_per_s: u.output_tokens_per_s,
            prompt_tokens_per_s: u.prompt_tokens_per_s,
            decode_tokens_per_s: u.decode_tokens_per_s,
        }
    }
}

impl ModelUsage {
    /// The row of `model` over its calls.
    pub fn of(model: &str, calls: impl IntoIterator<Item = CallStat>) -> ModelUsage {
        let mut row = ModelUsage {
            model: model.to_string(),
            ..ModelUsage::default()
        };
        let mut latencies = Vec::new();
        let mut usage_ms = 0u64;
        let mut timed = crate::provider::Timings::default();
        for c in calls {
            row.truncated += usize::from(c.truncated);
            row.cached += usize::from(c.cached);
            if c.answered {
                row.answered += 1;
                if !c.cached {
                    latencies.extend(c.elapsed_ms);
                }
            }
            if let Some(u) = c.usage {
                row.with_usage += 1;
                row.prompt_tokens = row.prompt_tokens.saturating_add(u.prompt_tokens);
                row.completion_tokens = row.completion_tokens.saturating_add(u.completion_tokens);
                row.reasoning_tokens = row
                    .reasoning_tokens
                    .saturating_add(u.reasoning_tokens.unwrap_or(0));
                usage_ms = usage_ms.saturating_add(c.elapsed_ms.unwrap_or(0));
                if let Some(t) = u.timings.as_deref() {
                    timed.prompt_n = timed.prompt_n.saturating_add(t.prompt_n);
                    timed.prompt_us = timed.prompt_us.saturating_add(t.prompt_us);
                    timed.predicted_n = timed.predicted_n.saturating_add(t.predicted_n);
                    timed.predicted_us = timed.predicted_us.saturating_add(t.predicted_us);
                }
            }
        }
        latencies.sort_unstable();
        row.latency_p50_ms = percentile(&latencies, 50);
        row.latency_p95_ms = percentile(&latencies, 95);
        row.output_tokens_per_s = (row.with_usage > 0 && usage_ms > 0)
            .then(|| row.completion_tokens as f64 * 1000.0 / usage_ms as f64);
        let per_s = |n: u64, us: u64| (us > 0).then(|| n as f64 * 1e6 / us as f64);
        row.prompt_tokens_per_s = per_s(timed.prompt_n, timed.prompt_us);
        row.decode_tokens_per_s = per_s(timed.predicted_n, timed.predicted_us);
        row
    }

    /// Sets the price and the cost it gives.
    pub fn price(&mut self, p: Price) {
        self.price_in_per_mtok = Some(p.in_per_mtok);
        self.price_out_per_mtok = Some(p.out_per_mtok);
        self.cost = Some(
            self.prompt_tokens as f64 * p.in_per_mtok / 1e6
                + self.completion_tokens as f64 * p.out_per_mtok / 1e6,
        );
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// Prices by model name.
pub type Prices = BTreeMap<String, Price>;

/// Sets each priced model's price and cost in the report's usage rows.
pub fn set_prices(report: &mut EvaluationResult, prices: &Prices) {
    for row in &mut report.report.usage {
        if let Some(p) = prices.get(&row.model) {
            row.price(*p);
        }
    }
}

/// A model that ran to the token limit on most of its calls: a sign that
/// the model does not stop by itself (a base model, not tuned to chat, or a
/// chat template that is not its own), so its answers are cut off rather
/// than finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenLimitHint {
    /// The model.
    pub model: String,
    /// Its answers cut off at `max_tokens`.
    pub truncated: usize,
    /// Its calls: answered, and failed (a cut-off answer counted as a failure
    /// is one of these).
    pub calls: usize,
}

impl TokenLimitHint {
    /// What the page and `report.md` say of it.
    pub fn message(&self, lang: crate::Lang) -> String {
        match lang {
            crate::Lang::Zh => format!(
                "{} 有 {}/{} 次回答写到了 token 上限（max_tokens）才停：它可能是基础模型（未经对话微调），或需要另一个对话模板；截断的回答按原样评分。",
                self.model, self.truncated, self.calls
            ),
            _ => format!(
                "{} ran to the token limit (max_tokens) on {} of {} answers: it may be a base model (not tuned to chat) or need another chat template; an answer cut off is scored as it is.",
                self.model, self.truncated, self.calls
            ),
        }
    }
}

impl EvaluationResult {
    /// The answering models (not a judge) that ran to the token limit on
    /// more than half of their calls.
    pub fn token_limit_hints(&self) -> Vec<TokenLimitHint> {
        let rows = &self.report.usage;
        let answering = rows.iter().filter(|u| u.role.is_none()).count();
        rows.iter()
            .filter(|u| u.role.is_none() && u.truncated > 0)
            .filter_map(|u| {
                // A run of one model names it on no error case.
                let failed = (self.report.error_cases.iter())
                    .filter(|e| match &e.model {
                        Some(m) => *m == u.model,
                        None => answering == 1,
                    })
                    .count();
                let calls = u.answered + failed;
                (u.truncated * 2 > calls).then(|| TokenLimitHint {
                    model: u.model.clone(),
                    truncated: u.truncated,
                    calls,
                })
            })
            .collect()
    }
}

/// Serde's `skip_serializing_if` for counts that are 0.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(ms: u64, p: u64, c: u64, r: Option<u64>) -> CallStat {
        CallStat {
            answered: true,
            truncated: false,
            elapsed_ms: Some(ms),
            usage: Some(Usage {
                prompt_tokens: p,
                completion_tokens: c,
                reasoning_tokens: r,
                timings: None,
            }),
            cached: false,
        }
    }

    fn with_rows(rows: Vec<ModelUsage>, errors: &[Option<&str>]) -> EvaluationResult {
        let mut r = EvaluationResult {
            metrics: Default::default(),
            cases: Vec::new(),
            scores: Vec::new(),
            report: Default::default(),
        };
        r.report.usage = rows;
        r.report.error_cases = errors
            .iter()
            .map(|m| super::super::ErrorCase {
                model: m.map(str::to_string),
                sample_id: "s".into(),
                status: "error".into(),
                trace_id: "t".into(),
                message: None,
                latency_ms: None,
                backend: None,
                status_code: None,
                attempts: 1,
            })
            .collect();
        r
    }

    #[test]
    fn a_model_cut_off_on_most_answers_is_pointed_out_with_the_count() {
        let row = |model: &str, answered: usize, truncated: usize, judge: bool| ModelUsage {
            model: model.into(),
            role: judge.then(|| "judge".into()),
            answered,
            truncated,
            ..ModelUsage::default()
        };
        // 6 of 10 cut off: pointed out; 5 of 10 is not "most".
        let r = with_rows(
            vec![row("base", 10, 6, false), row("chat", 10, 5, false)],
            &[],
        );
        let hints = r.token_limit_hints();
        assert_eq!(
            hints,
            vec![TokenLimitHint {
                model: "base".into(),
                truncated: 6,
                calls: 10
            }]
        );
        assert!(hints[0]
            .message(crate::Lang::En)
            .contains("on 6 of 10 answers"));
        // Cut-off answers counted as failures are failed calls of the model:
        // 4 answered and 6 failed as cut off is 6 of 10.
        let r = with_rows(vec![row("base", 4, 6, false)], &[None; 6]);
        assert_eq!(r.token_limit_hints()[0].calls, 10);
        // Other failures count in the calls: 3 cut off of 4 answered and 4 failed is not most.
        let r = with_rows(
            vec![row("m", 4, 3, false), row("n", 1, 0, false)],
            &[Some("m"); 4],
        );
        assert_eq!(r.token_limit_hints(), vec![]);
        // A judge's row is not an answering model's.
        let r = with_rows(vec![row("m", 10, 0, false), row("j", 10, 9, true)], &[]);
        assert_eq!(r.token_limit_hints(), vec![]);
    }

    #[test]
    fn the_engines_own_timings_give_prompt_and_decode_speeds() {
        let timed = |prompt_n, prompt_us, predicted_n, predicted_us| {
            let mut c = call(1_000, prompt_n, predicted_n, None);
            if let Some(u) = c.usage.as_mut() {
                u.timings = Some(Box::new(crate::provider::Timings {
                    prompt_n,
                    prompt_us,
                    predicted_n,
                    predicted_us,
                }));
            }
            c
        };
        let row = ModelUsage::of(
            "gemma.gguf",
            [
                timed(100, 2_000_000, 30, 2_000_000),
                timed(60, 2_000_000, 10, 2_000_000),
                call(5, 1, 1, None),
            ],
        );
        assert_eq!(row.prompt_tokens_per_s, Some(40.0), "160 tokens in 4 s");
        assert_eq!(row.decode_tokens_per_s, Some(10.0), "40 tokens in 4 s");
        let latency = ModelLatency::from(&row);
        assert_eq!(latency.decode_tokens_per_s, Some(10.0));
        // An endpoint that does not time itself has neither.
        let plain = ModelUsage::of("m", [call(5, 1, 1, None)]);
        assert_eq!(
            (plain.prompt_tokens_per_s, plain.decode_tokens_per_s),
            (None, None)
        );
        let json = serde_json::to_string(&ModelLatency::from(&plain)).expect("json");
        assert!(!json.contains("decode"), "{json}");
    }

    #[test]
    fn sums_percentiles_throughput_and_cost() {
        let failed = CallStat {
            answered: false,
            truncated: false,
            elapsed_ms: Some(9_000),
            usage: None,
            cached: false,
        };
        // A cached answer: answered, not in the latency, no usage.
        let cached = CallStat {
            answered: true,
            truncated: false,
            elapsed_ms: Some(1),
            usage: None,
            cached: true,
        };
        let mut row = ModelUsage::of(
            "m",
            [
                call(100, 10, 20, Some(5)),
                call(300, 30, 40, None),
                failed,
                cached,
                call(200, 20, 40, Some(1)),
            ],
        );
        assert_eq!((row.answered, row.with_usage, row.cached), (4, 3, 1));
        assert_eq!(
            (
                row.prompt_tokens,
                row.completion_tokens,
                row.reasoning_tokens
            ),
            (60, 100, 6)
        );
        assert_eq!(
            (row.latency_p50_ms, row.latency_p95_ms),
            (Some(200), Some(300))
        );
        assert_eq!(row.output_tokens_per_s, Some(100.0 * 1000.0 / 600.0));
        assert_eq!(row.cost, None);
        row.price(Price {
            in_per_mtok: 1.0,
            out_per_mtok: 2.0,
        });
        assert_eq!(row.cost, Some(60.0 / 1e6 + 200.0 / 1e6));
        let empty = ModelUsage::of("x", []);
        assert_eq!(
            (empty.latency_p50_ms, empty.output_tokens_per_s),
            (None, None)
        );
    }
}
