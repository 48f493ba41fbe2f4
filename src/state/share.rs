//! Share links: the page parameters that open the same evaluation in another
//! browser, ready to run (never started by the link itself). Pure data: what
//! goes in a link, what cannot, and base64url for a text inlined in it. Each
//! mode makes its own link (`rag::share`, `task::share`) from these parts.
//!
//! A link never carries a key: the parameters are built from named fields of
//! the settings, and `ModelSettings::api_key` is not one of them. A link is
//! untrusted input for whoever opens it: an inlined task is only a task to
//! check (its errors shown, nothing runs), and an endpoint in it gets no key
//! but the one saved for its own origin, sent after a click (see `keys`).

use evalpage_core::Lang;

/// A task (with its template) is inlined when its text is at most this long.
pub const INLINE_LIMIT: usize = 4096;

/// The longest inlined task (decoded) the page accepts from a link.
pub const ACCEPT_LIMIT: usize = 64 * 1024;

/// The parameters of a link and what it leaves out, in the page's language.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShareSpec {
    /// `name=value` pairs, in order.
    pub pairs: Vec<(&'static str, String)>,
    /// What the link cannot carry (shown beside the button).
    pub notes: Vec<String>,
}

impl ShareSpec {
    /// Adds a parameter.
    pub(crate) fn push(&mut self, k: &'static str, v: impl Into<String>) {
        self.pairs.push((k, v.into()));
    }

    /// Adds a note of what the link cannot carry.
    pub(crate) fn note(&mut self, lang: Lang, zh: &str, en: &str) {
        self.notes.push(lang.pick(zh, en).to_string());
    }

    /// The value of a parameter, if the link has it.
    pub fn get(&self, k: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.as_str())
    }
}

/// An optional number as a parameter: the number, or `default` for the
/// server's default.
pub(crate) fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "default".into(), |v| v.to_string())
}

/// A parameter read back from `opt`: `Some(None)` for `default`.
pub fn parse_opt<T: std::str::FromStr>(v: &str) -> Option<Option<T>> {
    if v == "default" {
        return Some(None);
    }
    v.parse().ok().map(Some)
}

/// The answer policy's two flags as a link's parameters.
pub(crate) fn flags(s: &mut ShareSpec, truncated_as_failure: bool, keep_going_on_fatal: bool) {
    if truncated_as_failure {
        s.push("truncated_as_failure", "1");
    }
    if keep_going_on_fatal {
        s.push("keep_going", "1");
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648 §5).
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url (padding and standard `+/` accepted); `None` when it
/// is not base64.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim().trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (bits < 6).then_some(out)
}

/// An inlined text of a link: UTF-8 and at most `ACCEPT_LIMIT` bytes, or why
/// it cannot be used.
pub fn decode_text(param: &str, value: &str) -> Result<String, String> {
    let bytes = decode(value).ok_or_else(|| format!("{param}: not base64url"))?;
    if bytes.len() > ACCEPT_LIMIT {
        return Err(format!("{param}: over {} KB", ACCEPT_LIMIT / 1024));
    }
    String::from_utf8(bytes).map_err(|_| format!("{param}: not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for text in [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "name: t\n中文 ✓\n",
            "\u{0}\u{ff}~~~???>>>",
        ] {
            let e = encode(text.as_bytes());
            assert!(!e.contains(['+', '/', '=']), "{e}");
            assert_eq!(decode(&e).as_deref(), Some(text.as_bytes()), "{text}");
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fo"), "Zm8");
        assert_eq!(decode("Zm8="), Some(b"fo".to_vec()));
        assert_eq!(decode("Z"), None, "a lone sextet is no byte");
        assert_eq!(decode("Zm9v!"), None);
        assert!(decode_text("task_yaml", &encode(&[0xff, 0xfe])).is_err());
    }
}
