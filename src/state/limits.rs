//! What every mode that calls a model lets a person set about the run's
//! start, as the CLI's flags do: what to do with a truncated answer and with
//! a 401/403/404 (the answer policy), the model's price, and the cost cap.
//! The kind builds its engine from the [`StartSpec`] these make.

use evalpage_core::report::Price;
use evalpage_core::run::{AnswerPolicy, StartSpec};
use serde::{Deserialize, Serialize};

/// The run's limits as the page's fields hold them (stored with a run).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Count an answer cut off at `max_tokens` as a failed call.
    pub truncated_as_failure: bool,
    /// Keep sending after a 401, 403 or 404.
    pub keep_going_on_fatal: bool,
    /// Price of a million prompt tokens.
    pub price_in: Option<f64>,
    /// Price of a million completion tokens.
    pub price_out: Option<f64>,
    /// Stop once the priced usage reaches this cost.
    pub max_cost: Option<f64>,
}

/// A cost cap as typed: a finite number of 0 or more (0: send nothing, as
/// the CLI's `--max-cost 0`), else no cap.
pub fn parse_cap(typed: &str) -> Option<f64> {
    typed
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| *x >= 0.0 && x.is_finite())
}

impl Limits {
    /// The model's price, when one side is set (the other counts as 0).
    pub fn price(&self) -> Option<Price> {
        if self.price_in.is_none() && self.price_out.is_none() {
            return None;
        }
        Some(Price {
            in_per_mtok: self.price_in.unwrap_or(0.0).max(0.0),
            out_per_mtok: self.price_out.unwrap_or(0.0).max(0.0),
        })
    }

    /// The start of a run whose model is `model` (priced with these
    /// prices) and whose judge, if it is the same endpoint, costs the same.
    pub fn start_spec(&self, model: &str, judge_is_model: bool) -> StartSpec {
        let price = self.price();
        StartSpec {
            policy: AnswerPolicy {
                truncated_as_failure: self.truncated_as_failure,
                keep_going_on_fatal: self.keep_going_on_fatal,
            },
            max_cost: self.max_cost,
            prices: price.map(|p| (model.to_string(), p)).into_iter().collect(),
            judge_price: price.filter(|_| judge_is_model),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_of_0_is_a_cap_and_anything_not_a_number_of_0_or_more_is_none() {
        assert_eq!(parse_cap("0"), Some(0.0));
        assert_eq!(parse_cap(" 0.5 "), Some(0.5));
        for bad in ["", "-1", "abc", "inf", "NaN"] {
            assert_eq!(parse_cap(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_spec_carries_the_policy_the_price_and_the_cap() {
        let l = Limits {
            keep_going_on_fatal: true,
            price_in: Some(2.0),
            max_cost: Some(0.5),
            ..Limits::default()
        };
        let spec = l.start_spec("m", true);
        assert!(spec.policy.keep_going_on_fatal && !spec.policy.truncated_as_failure);
        assert_eq!(spec.max_cost, Some(0.5));
        let p = Price {
            in_per_mtok: 2.0,
            out_per_mtok: 0.0,
        };
        assert_eq!(spec.prices.get("m"), Some(&p));
        assert_eq!(spec.judge_price, Some(p));
        assert_eq!(
            Limits::default().start_spec("m", false),
            StartSpec::default()
        );
    }
}
