//! Deterministic fault injection for the mock server: a splitmix64 stream seeded
//! with `--seed`, one draw per chat request in arrival order, mapped onto
//! consecutive probability bands (500, then 429, then hang, then a normal answer).

/// What the mock server does to one chat request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Answer normally after `--latency-ms`.
    None,
    /// Answer HTTP 500 with an OpenAI-style error.
    ServerError,
    /// Answer HTTP 429 with `Retry-After: 1`.
    RateLimited,
    /// Sleep 120 s, then answer normally (the client should time out first).
    Hang,
}

impl Fault {
    /// A short word for logs.
    pub fn label(self) -> &'static str {
        match self {
            Fault::None => "ok",
            Fault::ServerError => "injected 500",
            Fault::RateLimited => "injected 429",
            Fault::Hang => "injected hang",
        }
    }
}

/// The fault draws' generator: the core's SplitMix64 (the one PRNG of the project).
pub use evalpage_core::SplitMix64;

/// Fault probabilities and the generator that draws them.
#[derive(Clone, Debug)]
pub struct FaultPlan {
    fail_rate: f64,
    rate_limit_rate: f64,
    hang_rate: f64,
    rng: SplitMix64,
}

impl FaultPlan {
    /// A plan with these shares (each in [0, 1]; bands past 1 in total are cut).
    pub fn new(fail_rate: f64, rate_limit_rate: f64, hang_rate: f64, seed: u64) -> FaultPlan {
        FaultPlan {
            fail_rate,
            rate_limit_rate,
            hang_rate,
            rng: SplitMix64::new(seed),
        }
    }

    /// Draws the fault for the next chat request (exactly one draw).
    pub fn draw(&mut self) -> Fault {
        let u = self.rng.next_unit();
        let fail = self.fail_rate;
        let limit = fail + self.rate_limit_rate;
        let hang = limit + self.hang_rate;
        if u < fail {
            Fault::ServerError
        } else if u < limit {
            Fault::RateLimited
        } else if u < hang {
            Fault::Hang
        } else {
            Fault::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // First outputs of the reference implementation seeded with 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn certain_and_impossible_faults() {
        let mut always = FaultPlan::new(1.0, 0.0, 0.0, 9);
        assert!((0..100).all(|_| always.draw() == Fault::ServerError));
        let mut never = FaultPlan::new(0.0, 0.0, 0.0, 9);
        assert!((0..100).all(|_| never.draw() == Fault::None));
        let mut limited = FaultPlan::new(0.0, 1.0, 0.0, 9);
        assert_eq!(limited.draw(), Fault::RateLimited);
    }

    #[test]
    fn same_seed_same_faults_and_rates_are_roughly_kept() {
        let draws = |seed| {
            let mut p = FaultPlan::new(0.2, 0.2, 0.1, seed);
            (0..2000).map(|_| p.draw()).collect::<Vec<_>>()
        };
        assert_eq!(draws(42), draws(42));
        assert_ne!(draws(42), draws(43));
        let a = draws(42);
        let share = |f| a.iter().filter(|x| **x == f).count() as f64 / a.len() as f64;
        assert!((share(Fault::ServerError) - 0.2).abs() < 0.04);
        assert!((share(Fault::Hang) - 0.1).abs() < 0.03);
    }
}
