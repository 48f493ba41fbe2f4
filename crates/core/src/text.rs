//! Text folding shared by every matcher.
//!
//! `fold` turns text into a comparison key: Unicode NFKC (full-width letters,
//! digits and punctuation become their ASCII forms), lowercase (Unicode case
//! folding as `char::to_lowercase` does it), and every whitespace and punctuation
//! character removed. Removing instead of replacing means "MongoDB Atlas",
//! "mongodb-atlas" and "ＭｏｎｇｏＤＢ　Ａｔｌａｓ" all fold to `mongodbatlas`, and
//! Chinese text, which has no spaces, is compared the same way as English.
//!
//! NFKC is [`nfkc`]: the `unicode-normalization` crate's tables (feature
//! `nfkc-tables`, on by default: the CLI), or the normalizer the host puts in
//! with [`use_nfkc`] (the page: the browser's own `String.prototype.normalize`,
//! which spares the page the tables' 68 KB gzipped; a Wasm test checks the two
//! agree on every code point).

use std::borrow::Cow;
use std::sync::OnceLock;

/// The NFKC normalizer the host put in, if any.
static NFKC: OnceLock<fn(&str) -> String> = OnceLock::new();

/// Makes `f` the NFKC normalizer of every matcher, for the life of the
/// program; false when one was already put in (the first one stays).
pub fn use_nfkc(f: fn(&str) -> String) -> bool {
    NFKC.set(f).is_ok()
}

/// Unicode NFKC of `s`: the normalizer put in with [`use_nfkc`], else the
/// crate's tables. Text below U+00A0 is its own NFKC, and is not copied.
///
/// # Panics
/// When the core was built without `nfkc-tables` and no normalizer was put
/// in: a build that forgot its normalizer, never a matter of the text.
pub fn nfkc(s: &str) -> Cow<'_, str> {
    if s.chars().all(|c| c < '\u{a0}') {
        return Cow::Borrowed(s);
    }
    match NFKC.get() {
        Some(f) => Cow::Owned(f(s)),
        None => Cow::Owned(tables(s)),
    }
}

#[cfg(feature = "nfkc-tables")]
fn tables(s: &str) -> String {
    use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};
    // most text is already NFKC, and the quick check says so without composing
    if is_nfkc_quick(s.chars()) == IsNormalized::Yes {
        return s.to_string();
    }
    s.nfkc().collect()
}

#[cfg(not(feature = "nfkc-tables"))]
fn tables(_: &str) -> String {
    panic!("evalpage-core was built without `nfkc-tables` and no NFKC normalizer was put in with use_nfkc")
}

/// Folds text into its comparison key (see the module doc).
pub fn fold(s: &str) -> String {
    nfkc(s)
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| !is_separator(*c))
        .collect()
}

/// Whitespace, ASCII punctuation and the common Unicode punctuation blocks
/// (General Punctuation, CJK Symbols and Punctuation, CJK compatibility forms,
/// Latin-1 punctuation). ASCII symbols such as `+` or `#` are dropped too: a
/// keypoint is matched on its letters, digits and ideographs.
pub fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(c as u32,
            0x00A1..=0x00BF | 0x2000..=0x206F | 0x2E00..=0x2E7F | 0x3000..=0x303F
            | 0xFE10..=0xFE1F | 0xFE30..=0xFE4F | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20
            | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// Cuts text to at most `max` characters, adding `…` when something was cut.
pub fn truncate_chars(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// True when the text holds a Han, Hiragana, Katakana or Hangul character.
pub fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| {
        matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF)
    })
}

/// `short` (< 50 chars), `medium` (< 200) or `long`.
pub fn length_bucket(text: &str) -> &'static str {
    match text.chars().count() {
        0..=49 => "short",
        50..=199 => "medium",
        _ => "long",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfkc_leaves_text_below_nbsp_alone_and_normalizes_the_rest() {
        assert!(matches!(
            nfkc("plain ASCII, tabs\tand C1 \u{85}"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            nfkc("ＭｏｎｇｏＤＢ\u{a0}ﬁ Cafe\u{301} ①"),
            "MongoDB fi Café 1"
        );
    }

    #[test]
    fn folds_full_width_case_and_punctuation() {
        assert_eq!(fold("ＭｏｎｇｏＤＢ　Ａｔｌａｓ"), "mongodbatlas");
        assert_eq!(fold("MongoDB-Atlas!"), "mongodbatlas");
        assert_eq!(fold("忠实度（Faithfulness）"), "忠实度faithfulness");
        assert_eq!(fold("“检索系统”，。"), "检索系统");
    }

    #[test]
    fn truncates_on_char_boundaries() {
        assert_eq!(truncate_chars("准确率很高", 2), "准确…");
        assert_eq!(truncate_chars("ab", 2), "ab");
    }

    #[test]
    fn detects_cjk() {
        assert!(has_cjk("abc中"));
        assert!(!has_cjk("abc"));
    }
}
