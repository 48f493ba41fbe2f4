//! Wall-clock time for the engine: epoch milliseconds at the start, advanced by a
//! monotonic `Instant`, so a clock change during a run cannot move time backwards.
//! Also the run id, which is made from the start time.

use evalpage_core::RunKind;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The run's clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    started_at_ms: u64,
    started: Instant,
    nanos: u32,
}

impl Clock {
    /// Starts the clock now.
    pub fn start() -> Clock {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Clock {
            started_at_ms: u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX),
            started: Instant::now(),
            nanos: since_epoch.subsec_nanos(),
        }
    }

    /// Start time, ms since the Unix epoch.
    pub fn started_at_ms(&self) -> u64 {
        self.started_at_ms
    }

    /// Current time, ms since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.started_at_ms.saturating_add(elapsed)
    }

    /// A run id of `kind`, such as `eval_rag-20261125T221500Z-1a2b3c`: the
    /// kind makes it ([`RunKind::run_id`]) from the start time and entropy
    /// drawn from the start's nanoseconds and the process id.
    pub fn run_id(&self, kind: RunKind) -> String {
        let salt = u64::from(self.nanos) ^ (u64::from(std::process::id()) << 20);
        kind.run_id(self.started_at_ms, (mix(salt) & 0xFF_FFFF) as u32)
    }
}

/// splitmix64's finalizer: spreads the salt's bits over the hex digits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_id_has_the_documented_shape() {
        let id = Clock::start().run_id(RunKind::Rag);
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(parts.len(), 3, "{id}");
        assert_eq!(parts[0], "eval_rag");
        assert_eq!(parts[1].len(), 16);
        assert!(parts[2].len() == 6 && parts[2].chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn clock_does_not_go_backwards() {
        let c = Clock::start();
        assert!(c.now_ms() >= c.started_at_ms());
    }
}
