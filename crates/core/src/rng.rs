//! A seeded pseudorandom generator for everything in the core that draws:
//! the run engine's retry jitter and the paired bootstrap of comparisons.
//! Seeds are passed in by the caller (the core reads no OS randomness).

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; the constants of Vigna's public-domain C code).
/// Small, fast, full period 2^64, and it passes BigCrush: enough for
/// resampling indices, and the same sequence on every platform (wasm32
/// included) for the same seed.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, 1) from the top 53 bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An index in `0..n` (`n` > 0) by Lemire's multiply-shift: the high 64
    /// bits of `x · n`. Its bias is at most n / 2^64, far below anything a
    /// bootstrap of 10,000 resamples can show.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// `n` strings of `len` characters drawn from `alphabet` (tests that compare
/// a matcher with the pattern it replaces on generated text).
#[cfg(test)]
pub(crate) fn strings(seed: u64, alphabet: &str, n: usize, len: usize) -> Vec<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| (0..len).map(|_| chars[rng.below(chars.len())]).collect())
        .collect()
}
