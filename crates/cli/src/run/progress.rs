//! What a person watching `evalpage run` sees. On a terminal: a progress
//! bar (indicatif) with settled/total jobs, the rate, the time left, the
//! failed calls and the cost so far (when the run's models are priced), the
//! `[EVAL]` lines printed above it. When stdout is not a terminal (a pipe, a
//! CI log): the plain `[EVAL]` lines only, as before.

use super::output::say;
use evalpage_core::events::Record;
use evalpage_core::report::Prices;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// The progress of one run.
pub struct Progress {
    bar: Option<ProgressBar>,
    failed: usize,
    cost: f64,
    prices: Prices,
    /// No bar and no per-case lines (a batch round's drive).
    quiet: bool,
}

impl Progress {
    /// A bar over `total` jobs when stdout is a terminal; `prices` price the
    /// answers' usage (no cost shown without them).
    pub fn new(total: usize, prices: &Prices) -> Progress {
        let bar = std::io::stdout().is_terminal().then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stdout());
            // The template is a constant; a bad one would be a programming error,
            // so fall back to the default style rather than fail the run.
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:30} {pos}/{len} jobs  {per_sec}  ETA {eta}  {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            failed: 0,
            cost: 0.0,
            prices: prices.clone(),
            quiet: false,
        }
    }

    /// Counts a record: a `case` with a failed call.
    pub fn record(&mut self, record: &Record) {
        let Record::Case(c) = record else {
            return;
        };
        if !c.llm_call_ok {
            self.failed += 1;
        }
    }

    /// Prints a console line (above the bar on a terminal).
    pub fn say(&self, line: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(bar) => bar.println(line),
            None => say(line),
        }
    }

    /// No bar and no per-case lines: the run's files are all it leaves.
    pub fn quiet(mut self) -> Progress {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.quiet = true;
        self
    }

    /// Moves the bar to `done` settled jobs, with the run's priced spending
    /// so far (`Pipeline::spent`: every pool's calls, a judge's included).
    pub fn set(&mut self, done: usize, spent: f64) {
        self.cost = spent;
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
            bar.set_message(self.message());
        }
    }

    /// The bar's message: failures, and the cost when priced.
    fn message(&self) -> String {
        let mut m = format!("{} failed", self.failed);
        if !self.prices.is_empty() {
            m.push_str(&format!("  cost {:.4}", self.cost));
        }
        m
    }

    /// Clears the bar (the last lines stay plain).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::events::CaseRecord;
    use evalpage_core::report::Price;
    use evalpage_core::Usage;

    #[test]
    fn failures_are_counted_from_case_records_and_the_cost_is_the_runs() {
        let prices = Prices::from([(
            "m".to_string(),
            Price {
                in_per_mtok: 1.0,
                out_per_mtok: 4.0,
            },
        )]);
        let mut p = Progress::new(3, &prices);
        let case = |ok: bool, usage: Option<Usage>| {
            Record::Case(CaseRecord {
                llm_call_ok: ok,
                usage,
                ..CaseRecord::default()
            })
        };
        let u = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            reasoning_tokens: None,
            timings: None,
        };
        p.record(&case(true, Some(u)));
        p.record(&case(false, None));
        p.record(&Record::error("r", "boom", 1));
        assert_eq!(p.failed, 1);
        p.set(2, 3.0);
        assert_eq!(p.message(), "1 failed  cost 3.0000");
        assert_eq!(Progress::new(1, &Prices::new()).message(), "0 failed");
    }
}
