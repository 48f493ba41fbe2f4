//! `--shard I/N`: a deterministic 1/N of a run's jobs, split by sample id,
//! so N machines (a CI matrix) each run one shard and together run every
//! job once. A sample's shard is the first 8 bytes of the SHA-256 of its id,
//! as a big-endian integer, modulo N: the same on every machine and in every
//! version, whatever the dataset's order; every model and every call of a
//! sample (its judge, a dialog's turns) stay in the sample's shard.

use sha2::{Digest, Sha256};
use std::fmt;

/// Shard `index` of `count` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// 1..=count.
    pub index: u32,
    /// How many shards the run is split into.
    pub count: u32,
}

impl Shard {
    /// Reads `I/N` (1 ≤ I ≤ N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not I/N (for example 2/3)"))?;
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{text}` is not I/N: `{s}` is not a whole number"))
        };
        let (index, count) = (num(i)?, num(n)?);
        if count == 0 || index == 0 || index > count {
            return Err(format!("`{text}`: the shard is 1 to N of N, N at least 1"));
        }
        Ok(Shard { index, count })
    }

    /// True when the sample `id` is in this shard.
    pub fn holds(&self, id: &str) -> bool {
        shard_of(id, self.count) == self.index
    }
}

/// The shard (1..=count) of the sample `id`.
pub fn shard_of(id: &str, count: u32) -> u32 {
    let digest = Sha256::digest(id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(count.max(1))) as u32 + 1
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_every_id_once_and_stably() {
        let ids: Vec<String> = (0..1000).map(|i| format!("Q{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|i| Shard { index: i, count: 3 }).collect();
        let mut sizes = [0usize; 3];
        for id in &ids {
            let held: Vec<&Shard> = shards.iter().filter(|s| s.holds(id)).collect();
            assert_eq!(held.len(), 1, "{id} is in exactly one shard");
            sizes[held[0].index as usize - 1] += 1;
        }
        assert!(sizes.iter().all(|&n| (280..=390).contains(&n)), "{sizes:?}");
        // The split is fixed: these values must never change between versions.
        assert_eq!(shard_of("Q1", 3), shard_of("Q1", 3));
        assert_eq!(
            (shard_of("Q1", 1), Shard::parse("1/1").map(|s| s.holds("x"))),
            (1, Ok(true))
        );
    }

    #[test]
    fn bad_shards_are_refused_with_what_was_expected() {
        assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "a/3", "3", "1/x"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert!(Shard::parse("4/3").unwrap_err().contains("1 to N of N"));
    }
}
