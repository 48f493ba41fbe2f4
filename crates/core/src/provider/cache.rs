//! The response cache's rules, shared by every shell (the CLI's `--cache DIR`).
//! A request's key is the SHA-256 of a canonical JSON of what decides its
//! answer: the endpoint's origin and path (never its query, which can hold a
//! key; never a header, where keys go), the whole request body with its keys
//! sorted at every depth (so key order does not matter; the body holds the
//! model and every parameter), and the repeat index (a sample asked several
//! times gets one entry per repeat). Only answers worth keeping are stored:
//! never a failed call (a fatal answer is one), never a truncated answer.
//! A cached answer is marked with [`CacheHit`]: its original latency and
//! usage are kept there, apart, and the answer itself carries no usage (it
//! cost nothing in this run).

use super::{Answer, CacheHit};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Version of the key's recipe: entries of another version are not used.
pub const CACHE_KEY_VERSION: u32 = 1;

/// One cache entry, as a shell stores it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// [`CACHE_KEY_VERSION`].
    pub version: u32,
    /// The key ([`cache_key`]).
    pub key: String,
    /// The endpoint's origin and path.
    pub url: String,
    /// The answer as it came (with its usage).
    pub answer: Answer,
    /// Its latency, ms.
    pub latency_ms: u64,
    /// When it was stored, ms since the epoch.
    pub stored_at_ms: u64,
}

impl CacheEntry {
    /// The entry of an answer to a request to `url` with this JSON `body`,
    /// when it is worth keeping (not truncated, not itself a hit) and the
    /// body is JSON: what a shell stores under `key` (the `repeat`-th asking
    /// of the request has its own entry).
    pub fn of(
        url: &str,
        body: &str,
        repeat: u32,
        answer: &Answer,
        latency_ms: u64,
        stored_at_ms: u64,
    ) -> Option<CacheEntry> {
        let key = cache_key(url, body, repeat).filter(|_| cacheable(answer))?;
        Some(CacheEntry {
            version: CACHE_KEY_VERSION,
            key,
            url: super::strip_query(url),
            answer: answer.clone(),
            latency_ms,
            stored_at_ms,
        })
    }

    /// The answer stored as `json` under `key` (its [`cache_key`]), marked
    /// as a hit; `None` when the entry is of another key or version or
    /// cannot be read.
    pub fn read_hit(json: &[u8], key: &str) -> Option<Answer> {
        let entry: CacheEntry = serde_json::from_slice(json).ok()?;
        (entry.version == CACHE_KEY_VERSION && entry.key == key).then(|| entry.hit())
    }

    /// The answer as a run uses it: marked as cached, its usage moved into
    /// the mark.
    pub fn hit(&self) -> Answer {
        let mut a = self.answer.clone();
        a.cached = Some(Box::new(CacheHit {
            latency_ms: self.latency_ms,
            usage: a.usage.take(),
            stored_at_ms: self.stored_at_ms,
        }));
        a
    }
}

/// The key of a request to `url` with this JSON `body`, asked for the
/// `repeat`-th time (0 for the first). `None` when the body is not JSON
/// (such a request is not cached).
pub fn cache_key(url: &str, body: &str, repeat: u32) -> Option<String> {
    let body: Value = serde_json::from_str(body).ok()?;
    // serde_json's maps are ordered by key: this is the canonical form.
    let canonical = serde_json::json!({
        "v": CACHE_KEY_VERSION,
        "url": super::strip_query(url),
        "body": body,
        "repeat": repeat,
    })
    .to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// True when an answer may be stored: not truncated.
pub fn cacheable(a: &Answer) -> bool {
    !a.truncated() && a.cached.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Usage;

    #[test]
    fn the_key_ignores_key_order_and_the_query_but_not_the_model_or_the_repeat() {
        let url = "https://api.example.com/v1/chat/completions";
        let a = cache_key(
            url,
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}"#,
            0,
        );
        let b = cache_key(
            &format!("{url}?key=sk-secret"),
            r#"{"temperature":0,"messages":[{"content":"hi","role":"user"}],"model":"m"}"#,
            0,
        );
        assert!(a.is_some());
        assert_eq!(a, b, "key order and the query do not matter");
        let other_model = cache_key(
            url,
            r#"{"model":"n","messages":[{"role":"user","content":"hi"}],"temperature":0}"#,
            0,
        );
        let repeat = cache_key(
            url,
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}"#,
            1,
        );
        let origin = cache_key(
            "https://other.example.com/v1/chat/completions",
            r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0}"#,
            0,
        );
        assert_ne!(a, other_model);
        assert_ne!(a, repeat);
        assert_ne!(a, origin);
        assert_eq!(cache_key(url, "not json", 0), None);
        assert_eq!(a.as_deref().map(str::len), Some(64));
    }

    #[test]
    fn a_hit_moves_the_usage_apart_and_truncated_answers_are_not_kept() {
        let usage = Usage {
            prompt_tokens: 10,
            completion_tokens: 5,
            reasoning_tokens: None,
            timings: None,
        };
        let entry = CacheEntry {
            version: CACHE_KEY_VERSION,
            key: "k".into(),
            url: "u".into(),
            answer: Answer {
                text: "a".into(),
                usage: Some(usage.clone()),
                ..Answer::default()
            },
            latency_ms: 120,
            stored_at_ms: 7,
        };
        let hit = entry.hit();
        assert_eq!(hit.usage, None, "a cached answer costs nothing");
        assert_eq!(
            hit.cached.as_deref().cloned(),
            Some(CacheHit {
                latency_ms: 120,
                usage: Some(usage),
                stored_at_ms: 7
            })
        );
        assert!(!cacheable(&hit), "a hit is not stored again");
        let cut = Answer {
            finish_reason: Some("length".into()),
            ..Answer::default()
        };
        assert!(!cacheable(&cut));
        assert!(cacheable(&entry.answer));
    }
}
