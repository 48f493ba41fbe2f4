//! The start of a run, the same for every kind: a shell fills a
//! [`StartSpec`] from its flags or page fields, the kind builds its engine
//! through [`Pipeline::prepare`]: the answer policy, the spending cap over
//! its pools' prices (the judge's pool priced with the judge's price), and
//! what an interrupted run's log settled, taken over. The shells set no
//! policy, build no budget and restore nothing by hand, so every mode of the
//! page and every command of the CLI gets all of them.

use super::pipeline::{Budget, Kind, Pipeline};
use super::result::AnswerPolicy;
use crate::report::{Price, Prices};

/// What a shell fills to start a run of any kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StartSpec {
    /// Truncated answers and fatal failures.
    pub policy: AnswerPolicy,
    /// The spending cap (in the prices' currency), if any.
    pub max_cost: Option<f64>,
    /// Each answering model's price, by model name.
    pub prices: Prices,
    /// The judge's price, when the run has a judge with one.
    pub judge_price: Option<Price>,
}

/// The model one pool of a run calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolModel {
    /// The model's name (the key of [`StartSpec::prices`]).
    pub name: String,
    /// The pool is the judge's.
    pub judge: bool,
}

/// What the start took over from an earlier run's log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TakenOver {
    /// Jobs (cases × models, dialogs) settled or taken over from the log.
    pub jobs: usize,
    /// Jobs of this run.
    pub total: usize,
    /// What a job is, for a person (`cases`, `dialogs`).
    pub unit: &'static str,
    /// What a person should know about it, one sentence each (records of
    /// cases this run does not have, turns that do not fit this run...).
    pub notes: Vec<String>,
}

impl TakenOver {
    /// What a run of cases took over: `jobs` of `total` cases, and a note for
    /// each case id of the log that is not in this run's dataset.
    pub fn cases(jobs: usize, total: usize, unknown: &[String]) -> TakenOver {
        TakenOver {
            jobs,
            total,
            unit: "cases",
            notes: unknown
                .iter()
                .map(|id| format!("case `{id}` is not in this dataset; ignored"))
                .collect(),
        }
    }
}

/// A kind whose run starts through [`Pipeline::prepare`].
pub trait Start: Kind + Sized {
    /// The model each pool calls, by pool number.
    fn pool_models(&self) -> Vec<PoolModel>;
    /// What an interrupted run left to take over (its event log, read).
    type Log;
    /// Restores into `engine` what `log` settled for this run's jobs.
    fn take_over(engine: &mut Pipeline<Self>, log: &Self::Log) -> TakenOver;
}

impl StartSpec {
    /// The price of each pool: the judge's price for the judge's pool, the
    /// model's price for every other.
    pub fn pool_prices(&self, pools: &[PoolModel]) -> Vec<Option<Price>> {
        pools
            .iter()
            .map(|p| match p.judge {
                true => self.judge_price,
                false => self.prices.get(&p.name).copied(),
            })
            .collect()
    }

    /// Every priced model of the run, the judge's price under its name
    /// (what the run's usage table and cost are priced with).
    pub fn priced(&self, pools: &[PoolModel]) -> Prices {
        let mut prices = self.prices.clone();
        let judge = pools.iter().find(|p| p.judge);
        if let (Some(j), Some(price)) = (judge, self.judge_price) {
            prices.entry(j.name.clone()).or_insert(price);
        }
        prices
    }
}

/// A run that cannot start as asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// A spending cap, and no pool with a price to count it with.
    #[error("a spending cap needs a price to count: give the model (or the judge) a price")]
    CapWithoutPrice,
}

impl<K: Start> Pipeline<K> {
    /// The engine of a run of `kind` as `spec` asks, with what `prior` (an
    /// interrupted run's log) settled taken over. Without a cap the run
    /// still counts what its priced pools spend, and never stops for it.
    pub fn prepare(
        kind: K,
        spec: &StartSpec,
        prior: Option<&K::Log>,
    ) -> Result<(Pipeline<K>, Option<TakenOver>), StartError> {
        let prices = spec.pool_prices(&kind.pool_models());
        let mut engine = Pipeline::over(kind);
        engine.set_policy(spec.policy);
        match Budget::new(spec.max_cost, prices) {
            Some(budget) => engine.set_budget(budget),
            None if spec.max_cost.is_some() => return Err(StartError::CapWithoutPrice),
            None => {}
        }
        let taken = prior.map(|log| K::take_over(&mut engine, log));
        Ok((engine, taken))
    }

    /// The run's priced models (see [`StartSpec::priced`]).
    pub fn priced(&self, spec: &StartSpec) -> Prices {
        spec.priced(&self.kind().pool_models())
    }
}

/// What one pool of a run would send first: an upper bound, as `evalpage
/// run --estimate` and the task page give it (prompt tokens at most the
/// UTF-8 bytes of the messages plus 4 per message and 3; completion tokens
/// at most `max_tokens` per call; the cost from the model's price). Calls
/// that follow an answer (a judge's, a dialog's later turns) are not
/// counted: their prompts hold the answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The model.
    pub model: String,
    /// Calls.
    pub calls: u64,
    /// Prompt tokens, at most.
    pub prompt_tokens_max: u64,
    /// Completion tokens, at most (`None` without `max_tokens`).
    pub completion_tokens_max: Option<u64>,
    /// Cost, at most (`None` without a price or without `max_tokens`).
    pub cost_max: Option<f64>,
    /// The price it was priced with.
    pub price: Option<Price>,
    /// The answer limit per call.
    pub max_tokens: Option<u64>,
}

impl Estimate {
    /// The bound of `calls` calls of `model` whose prompts hold at most
    /// `prompt_tokens_max` tokens in all.
    pub fn new(
        model: &str,
        calls: u64,
        prompt_tokens_max: u64,
        price: Option<Price>,
        max_tokens: Option<u64>,
    ) -> Estimate {
        let completion = max_tokens.map(|m| m * calls);
        let cost_max = match (price, completion) {
            (Some(p), Some(c)) => Some(
                prompt_tokens_max as f64 * p.in_per_mtok / 1e6 + c as f64 * p.out_per_mtok / 1e6,
            ),
            _ => None,
        };
        Estimate {
            model: model.to_string(),
            calls,
            prompt_tokens_max,
            completion_tokens_max: completion,
            cost_max,
            price,
            max_tokens,
        }
    }
}

impl<K: Start> Pipeline<K> {
    /// The estimate of the calls each pool would send first (every job's
    /// first call; a resumed run's jobs not taken over), priced as `spec`
    /// prices them, with each pool's answer limit (`max_tokens[pool]`). A
    /// pool after the first with no first call (a judge) is left out.
    pub fn estimate(&self, spec: &StartSpec, max_tokens: &[Option<u64>]) -> Vec<Estimate> {
        let pools = self.kind().pool_models();
        let prices = spec.pool_prices(&pools);
        self.first_calls()
            .into_iter()
            .enumerate()
            .filter(|(pool, (calls, _))| *pool == 0 || *calls > 0)
            .map(|(pool, (calls, prompt))| {
                let name = pools.get(pool).map_or("", |p| p.name.as_str());
                let price = prices.get(pool).copied().flatten();
                let limit = max_tokens.get(pool).copied().flatten();
                Estimate::new(name, calls as u64, prompt, price, limit)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(p: f64) -> Price {
        Price {
            in_per_mtok: p,
            out_per_mtok: p,
        }
    }

    #[test]
    fn the_judges_pool_gets_the_judges_price_and_the_models_their_own() {
        let spec = StartSpec {
            prices: Prices::from([("a".to_string(), price(1.0))]),
            judge_price: Some(price(2.0)),
            ..StartSpec::default()
        };
        let pools = [
            PoolModel {
                name: "a".into(),
                judge: false,
            },
            PoolModel {
                name: "b".into(),
                judge: false,
            },
            PoolModel {
                name: "j".into(),
                judge: true,
            },
        ];
        assert_eq!(
            spec.pool_prices(&pools),
            [Some(price(1.0)), None, Some(price(2.0))]
        );
        let priced = spec.priced(&pools);
        assert_eq!(priced.keys().collect::<Vec<_>>(), ["a", "j"]);
    }
}
