//! Debouncing for live checks: run an action once input has been quiet for a
//! while, so a check does not run on every keystroke.

use gloo_timers::callback::Timeout;

/// Delay of the editors' live checks, ms.
pub const CHECK_DELAY_MS: u32 = 300;

/// Holds the pending action; a new call replaces (cancels) the previous one.
#[derive(Default)]
pub struct Debounce(Option<Timeout>);

impl Debounce {
    /// Runs `f` after `ms` unless `call` is called again first.
    pub fn call(&mut self, ms: u32, f: impl FnOnce() + 'static) {
        self.0 = Some(Timeout::new(ms, f));
    }
}
