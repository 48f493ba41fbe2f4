//! Bugs planted for the simulator to catch (issue 44). With the `planted`
//! feature (only the simulator's planted-bug run turns it on) each bug is
//! compiled in and off until [`plant`] switches it on; without the feature
//! [`on`] is `false` and the bugs are not in the code at all.

/// A planted bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bug {
    /// A retry that ignores `Retry-After` (waits its own back-off).
    IgnoresRetryAfter = 1,
    /// One call more in flight than the concurrency allows.
    CapPlusOne = 2,
    /// A settled case written to the log twice.
    CaseWrittenTwice = 3,
    /// A resume that takes over no settled case (each is sent again).
    ResumeTakesNothing = 4,
    /// A failed call's case left out of the log.
    FailedCaseDropped = 5,
    /// The spending cap checked after the next calls are sent.
    CapCheckedAfterSend = 6,
    /// `Retry-After` read as milliseconds, not seconds.
    RetryAfterAsMs = 7,
    /// One attempt more than `max_attempts`.
    OneAttemptMore = 8,
    /// A cancel that loses the case in flight (no record).
    CancelLosesInFlight = 9,
    /// Failed calls left out of the rates' denominator.
    FailedOutOfDenominator = 10,
    /// A resumed dialog played again from its first turn: the turns its
    /// log settled are not taken over (a dialog settled whole still is).
    DialogTurnsReplayed = 11,
    /// The askings of a case asked several times written to `report.json`
    /// as one case (no `repeat`): the bug seed 1 found.
    RepeatsFolded = 12,
}

impl Bug {
    /// Every planted bug.
    pub const ALL: [Bug; 12] = [
        Bug::IgnoresRetryAfter,
        Bug::CapPlusOne,
        Bug::CaseWrittenTwice,
        Bug::ResumeTakesNothing,
        Bug::FailedCaseDropped,
        Bug::CapCheckedAfterSend,
        Bug::RetryAfterAsMs,
        Bug::OneAttemptMore,
        Bug::CancelLosesInFlight,
        Bug::FailedOutOfDenominator,
        Bug::DialogTurnsReplayed,
        Bug::RepeatsFolded,
    ];
}

#[cfg(feature = "planted")]
static PLANTED: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Switches `bug` on (`None`: every bug off). Only with the `planted` feature.
#[cfg(feature = "planted")]
pub fn plant(bug: Option<Bug>) {
    PLANTED.store(
        bug.map_or(0, |b| b as u8),
        std::sync::atomic::Ordering::SeqCst,
    );
}

/// Whether `bug` is planted and switched on.
#[inline]
pub fn on(bug: Bug) -> bool {
    #[cfg(feature = "planted")]
    {
        PLANTED.load(std::sync::atomic::Ordering::Relaxed) == bug as u8
    }
    #[cfg(not(feature = "planted"))]
    {
        let _ = bug;
        false
    }
}
