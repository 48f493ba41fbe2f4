//! `--cache DIR`: the response cache of `evalpage run` on disk, and `evalpage
//! cache stats|clear`. One JSON file per entry (`DIR/ab/abcd….json`, the key
//! of `evalpage_core::cache_key`), written to a temporary name and renamed,
//! so a killed run never leaves half an entry. What is a key, and what may
//! be stored, is the core's (`cache_key`, `cacheable`); a hit is marked by
//! `CacheEntry::hit`. The directory holds no key: the cache key is a hash
//! of the URL without its query and of the request body, and keys travel in
//! headers.

use crate::error::CliError;
use evalpage_core::{cache_key, Answer, CacheEntry};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A cache directory.
#[derive(Debug)]
pub struct DirCache {
    dir: PathBuf,
}

impl DirCache {
    /// Opens (creates) the directory.
    pub fn open(dir: &Path) -> Result<DirCache, CliError> {
        std::fs::create_dir_all(dir).map_err(|e| CliError::output(dir, e))?;
        Ok(DirCache {
            dir: dir.to_path_buf(),
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    /// The cached answer of the `repeat`-th request to `url` with this body,
    /// marked as a hit.
    pub fn get(&self, url: &str, body: &str, repeat: u32) -> Option<Answer> {
        let key = cache_key(url, body, repeat)?;
        let bytes = std::fs::read(self.path(&key)).ok()?;
        CacheEntry::read_hit(&bytes, &key)
    }

    /// Stores an answer worth keeping; a store that fails is reported and
    /// the run goes on (the answer is used either way).
    pub fn put(&self, url: &str, body: &str, repeat: u32, answer: &Answer, latency_ms: u64) {
        let Some(entry) = CacheEntry::of(url, body, repeat, answer, latency_ms, now_ms()) else {
            return;
        };
        let path = self.path(&entry.key);
        let stored = (|| -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, serde_json::to_vec(&entry).unwrap_or_default())?;
            std::fs::rename(&tmp, &path)
        })();
        if let Err(e) = stored {
            eprintln!(
                "evalpage: could not store a cache entry in {}: {e}",
                path.display()
            );
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Every entry file of a cache directory: (path, stored_at_ms, bytes).
fn entries(dir: &Path) -> Result<Vec<(PathBuf, u64, u64)>, CliError> {
    let read = |p: &Path| {
        std::fs::read_dir(p).map_err(|e| CliError::Input {
            path: p.display().to_string(),
            message: format!("cannot read the cache directory: {e}"),
        })
    };
    let mut out = Vec::new();
    for shard in read(dir)?.flatten() {
        if !shard.path().is_dir() {
            continue;
        }
        for f in read(&shard.path())?.flatten() {
            let path = f.path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap_or_default();
            let stored = serde_json::from_slice::<CacheEntry>(&bytes).map_or(0, |e| e.stored_at_ms);
            out.push((path, stored, bytes.len() as u64));
        }
    }
    Ok(out)
}

/// Reads a duration such as `30m`, `12h`, `7d` (or seconds: `90s`).
fn parse_age(text: &str) -> Result<u64, CliError> {
    let t = text.trim();
    let (num, unit) = t.split_at(t.len().saturating_sub(1));
    let scale = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => 0,
    };
    match num.parse::<u64>() {
        Ok(n) if scale > 0 => Ok(n.saturating_mul(scale)),
        _ => Err(CliError::Usage(format!(
            "--older-than `{text}`: expected a whole number and a unit, such as 30m, 12h or 7d"
        ))),
    }
}

/// What `evalpage cache` does.
pub enum Action<'a> {
    /// `stats DIR`.
    Stats(&'a Path),
    /// `clear DIR [--older-than AGE]`.
    Clear(&'a Path, Option<&'a str>),
}

/// `evalpage cache stats|clear`.
pub fn execute(action: Action<'_>) -> Result<(), CliError> {
    match action {
        Action::Stats(dir) => {
            let all = entries(dir)?;
            let bytes: u64 = all.iter().map(|(_, _, b)| b).sum();
            let oldest = all.iter().map(|(_, t, _)| *t).filter(|t| *t > 0).min();
            println!(
                "{}: {} entries, {} bytes{}",
                dir.display(),
                all.len(),
                bytes,
                oldest
                    .map(|t| format!(
                        ", oldest stored {} s ago",
                        now_ms().saturating_sub(t) / 1000
                    ))
                    .unwrap_or_default()
            );
            Ok(())
        }
        Action::Clear(dir, older_than) => {
            let limit = older_than.map(parse_age).transpose()?;
            let now = now_ms();
            let mut removed = 0;
            for (path, stored, _) in entries(dir)? {
                if limit.is_none_or(|age| now.saturating_sub(stored) > age) {
                    std::fs::remove_file(&path).map_err(|e| CliError::output(&path, e))?;
                    removed += 1;
                }
            }
            println!("{}: removed {removed} entries", dir.display());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_truncated_answers_are_not_stored() {
        let dir = std::env::temp_dir().join(format!("evalpage-cache-unit-{}", std::process::id()));
        let cache = DirCache::open(&dir).expect("open");
        let url = "http://127.0.0.1:1/v1/chat/completions?k=secret";
        let body = r#"{"model":"m","messages":[]}"#;
        assert!(cache.get(url, body, 0).is_none());
        let answer = Answer::from("hello".to_string());
        cache.put(url, body, 0, &answer, 42);
        let hit = cache
            .get(url, r#"{"messages":[],"model":"m"}"#, 0)
            .expect("a hit");
        assert_eq!(hit.text, "hello");
        assert_eq!(hit.cached.map(|c| c.latency_ms), Some(42));
        let stored = std::fs::read_to_string(&entries(&dir).expect("entries")[0].0).expect("read");
        assert!(
            !stored.contains("secret"),
            "the query is not kept: {stored}"
        );
        let cut = Answer {
            finish_reason: Some("length".into()),
            ..Answer::from("cut".to_string())
        };
        cache.put(url, r#"{"model":"m2"}"#, 0, &cut, 1);
        assert!(cache.get(url, r#"{"model":"m2"}"#, 0).is_none());
        assert_eq!(parse_age("7d").ok(), Some(7 * 86_400_000));
        assert!(parse_age("7").is_err() && parse_age("xd").is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
