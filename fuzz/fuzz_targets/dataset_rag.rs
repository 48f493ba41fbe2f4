//! `rag::parse` on arbitrary bytes: never panics, loses no line and invents none.
#![no_main]

use evalpage_core::{numbered_lines, rag};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let parsed = rag::parse("fuzz.jsonl", data);
    let non_blank = numbered_lines(data)
        .filter(|(_, t)| t.as_ref().map_or(true, |t| !t.trim().is_empty()))
        .count();
    // an upper bound on the number of lines that does not trust `numbered_lines`
    let newlines = data.iter().filter(|b| **b == b'\n').count();
    let crs = data.iter().filter(|b| **b == b'\r').count();
    let max_line = newlines.max(crs) + 1;
    let utf16 = data.starts_with(b"\xFF\xFE") || data.starts_with(b"\xFE\xFF");
    let results = parsed.cases.len() + parsed.errors.len();
    assert!(
        results <= non_blank,
        "{results} results from {non_blank} non-blank lines"
    );
    if !utf16 {
        assert_eq!(
            results, non_blank,
            "every non-blank line gives a case or an error"
        );
    }
    for e in &parsed.errors {
        assert_eq!(e.file, "fuzz.jsonl");
        assert!(
            (1..=max_line).contains(&e.line),
            "error line {} of {max_line}",
            e.line
        );
        assert!(!e.message.is_empty());
    }
    let mut ids = HashSet::new();
    let mut last_line = 0;
    for c in &parsed.cases {
        assert!(
            c.line > last_line && c.line <= max_line,
            "case line {}",
            c.line
        );
        last_line = c.line;
        assert!(ids.insert(c.id.as_str()), "duplicate id {} kept", c.id);
        assert!(!c.q.trim().is_empty());
        assert!(!c.gold.is_empty() && c.gold.iter().all(|g| !g.is_empty()));
    }
});
