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
/// crate's tables. Text below U+00A0 is its own NFKC, and is not copied;
/// text of ASCII, CJK ideographs, kana, Hangul syllables, CJK brackets and
/// full-width ASCII forms (most Chinese, Japanese and Korean text) is
/// normalized here, without either (see [`simple_nfkc`]).
///
/// # Panics
/// When the core was built without `nfkc-tables` and no normalizer was put
/// in: a build that forgot its normalizer, never a matter of the text.
pub fn nfkc(s: &str) -> Cow<'_, str> {
    if s.chars().all(|c| c < '\u{a0}') {
        return Cow::Borrowed(s);
    }
    if let Some(simple) = simple_nfkc(s) {
        return simple;
    }
    match NFKC.get() {
        Some(f) => Cow::Owned(f(s)),
        None => tables(s),
    }
}

/// Characters that are their own NFKC and never compose with a neighbour
/// of this set: below U+00A0, the ideographic comma and full stop (U+3001,
/// U+3002), the CJK brackets (U+3008 to U+3011), kana letters, CJK Unified
/// Ideographs, Hangul syllables. (A test checks each against the tables.)
fn stable(c: char) -> bool {
    matches!(c as u32,
        0..=0x9F | 0x3001..=0x3002 | 0x3008..=0x3011 | 0x3041..=0x3096 | 0x30A1..=0x30FA
        | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3)
}

/// NFKC of text made of [`stable`] characters and full-width ASCII forms
/// (U+FF01 to U+FF5E, whose NFKC is their ASCII character, U+0021 to
/// U+007E): each character on its own, as nothing in this set composes.
/// `None` for any other text.
fn simple_nfkc(s: &str) -> Option<Cow<'_, str>> {
    let wide = |c: char| ('\u{ff01}'..='\u{ff5e}').contains(&c);
    let mut widened = false;
    for c in s.chars() {
        if wide(c) {
            widened = true;
        } else if !stable(c) {
            return None;
        }
    }
    if !widened {
        return Some(Cow::Borrowed(s));
    }
    let narrow = |c: char| match wide(c) {
        true => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        false => c,
    };
    Some(Cow::Owned(s.chars().map(narrow).collect()))
}

#[cfg(feature = "nfkc-tables")]
fn tables(s: &str) -> Cow<'_, str> {
    use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};
    // most text is already NFKC, and the quick check says so without composing
    if is_nfkc_quick(s.chars()) == IsNormalized::Yes {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.nfkc().collect())
}

#[cfg(not(feature = "nfkc-tables"))]
fn tables(_: &str) -> Cow<'_, str> {
    panic!("evalpage-core was built without `nfkc-tables` and no NFKC normalizer was put in with use_nfkc")
}

/// Folds text into its comparison key (see the module doc).
pub fn fold(s: &str) -> String {
    let normal = nfkc(s);
    let mut out = String::with_capacity(normal.len());
    let mut keep = |c: char| {
        if !is_separator(c) {
            out.push(c);
        }
    };
    for c in normal.chars() {
        if c.is_ascii() {
            keep(c.to_ascii_lowercase());
        } else if caseless(c) {
            keep(c);
        } else {
            c.to_lowercase().for_each(&mut keep);
        }
    }
    out
}

/// CJK symbols, kana, Bopomofo, Hangul and the ideographs (U+3000 to
/// U+9FFF, and the Hangul syllables): no character there has a lower case,
/// so folding skips the case tables for most of a Chinese, Japanese or
/// Korean text (a test walks the ranges).
fn caseless(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x9FFF | 0xAC00..=0xD7A3)
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

    /// Every character [`simple_nfkc`] handles.
    fn simple_set() -> Vec<char> {
        (0..=0xFFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| stable(*c) || ('\u{ff01}'..='\u{ff5e}').contains(c))
            .collect()
    }

    #[cfg(feature = "nfkc-tables")]
    #[test]
    fn the_simple_nfkc_agrees_with_the_tables_on_each_character_and_on_mixed_text() {
        use unicode_normalization::char::canonical_combining_class;
        use unicode_normalization::UnicodeNormalization;
        let set = simple_set();
        for &c in &set {
            let one = c.to_string();
            assert_eq!(canonical_combining_class(c), 0, "{c:?}");
            let want: String = one.nfkc().collect();
            assert_eq!(simple_nfkc(&one).as_deref(), Some(want.as_str()), "{c:?}");
            assert_eq!(want.chars().count(), 1, "{c:?}");
        }
        // every pair of neighbours from a spread of the set, and long mixed
        // texts drawn by a fixed generator
        let spread: Vec<char> = set.iter().step_by(97).copied().collect();
        for &a in &spread {
            for &b in &spread {
                let text: String = [a, b].iter().collect();
                let want: String = text.nfkc().collect();
                assert_eq!(
                    simple_nfkc(&text).as_deref(),
                    Some(want.as_str()),
                    "{text:?}"
                );
            }
        }
        let mut x: u64 = 0x2545F4914F6CDD1D;
        for _ in 0..2_000 {
            let text: String = (0..40)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    set[(x % set.len() as u64) as usize]
                })
                .collect();
            let want: String = text.nfkc().collect();
            assert_eq!(
                simple_nfkc(&text).as_deref(),
                Some(want.as_str()),
                "{text:?}"
            );
        }
        // anything else goes to the tables
        assert!(simple_nfkc("cafe\u{301}").is_none());
        assert!(simple_nfkc("①").is_none());
        assert!(simple_nfkc("\u{3000}").is_none());
        assert_eq!(nfkc("检索，增强？ＲＡＧ"), "检索,增强?RAG");
    }

    #[test]
    fn the_caseless_ranges_have_no_lower_case() {
        for c in (0x3000..=0x9FFFu32)
            .chain(0xAC00..=0xD7A3)
            .filter_map(char::from_u32)
        {
            assert!(caseless(c));
            assert_eq!(c.to_lowercase().collect::<String>(), c.to_string(), "{c:?}");
        }
        assert!(!caseless('A') && !caseless('Ä') && !caseless('Ω'));
    }

    #[test]
    fn fold_lowers_every_script_and_drops_separators() {
        assert_eq!(
            fold("Ｍｏｎｇｏ DB, ÄÖ Ω！ 检索增强 생성"),
            "mongodbäöω检索增强생성"
        );
        assert_eq!(fold("İ"), "i\u{307}");
    }

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
