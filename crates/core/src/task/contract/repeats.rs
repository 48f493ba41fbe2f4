//! How many times a run asks each sample, and the k of pass@k (`--repeats`,
//! `--pass-k`, the task file's `repeats` and `pass_k`, the page's field).

use super::{Task, MAX_REPEATS};

/// How many times each sample is asked, and the k of pass@k.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeats {
    /// Askings per sample (1: once).
    pub n: u32,
    /// The k asked for (each at most `n`); empty: 1 and `n`.
    pub pass_k: Vec<u32>,
}

impl Default for Repeats {
    fn default() -> Repeats {
        Repeats {
            n: 1,
            pass_k: Vec::new(),
        }
    }
}

impl Repeats {
    /// `n` askings with these k (checked: every k from 1 to `n`).
    pub fn new(n: u32, pass_k: Vec<u32>) -> Result<Repeats, String> {
        let max = MAX_REPEATS;
        if !(1..=max).contains(&n) {
            return Err(format!("repeats must be from 1 to {max}, found {n}"));
        }
        if let Some(k) = pass_k.iter().find(|k| **k == 0 || **k > n) {
            return Err(format!(
                "pass@k needs 1 <= k <= repeats ({n}); {k} is out of range"
            ));
        }
        Ok(Repeats { n, pass_k })
    }

    /// What the task file asks: its `repeats` (1 when it does not say) and
    /// `pass_k`.
    pub fn of(task: &Task) -> Repeats {
        Repeats {
            n: task.raw.repeats.unwrap_or(1),
            pass_k: task.raw.pass_k.clone().unwrap_or_default(),
        }
    }

    /// True when each sample is asked more than once.
    pub fn several(&self) -> bool {
        self.n > 1
    }

    /// The k reported: the asked ones in order without duplicates, else 1
    /// and `n`; none for a run that asks once.
    pub fn ks(&self) -> Vec<u32> {
        if !self.several() {
            return Vec::new();
        }
        let mut ks = if self.pass_k.is_empty() {
            vec![1, self.n]
        } else {
            self.pass_k.clone()
        };
        ks.sort_unstable();
        ks.dedup();
        ks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_k_default_to_1_and_n_and_are_checked_against_n() {
        assert_eq!(Repeats::default().ks(), Vec::<u32>::new());
        assert_eq!(Repeats::new(5, vec![]).map(|r| r.ks()), Ok(vec![1, 5]));
        assert_eq!(
            Repeats::new(5, vec![3, 1, 3]).map(|r| r.ks()),
            Ok(vec![1, 3])
        );
        assert!(Repeats::new(2, vec![3]).is_err());
        assert!(Repeats::new(0, vec![]).is_err());
        assert!(Repeats::new(MAX_REPEATS + 1, vec![]).is_err());
    }
}
