//! Citation (引用率) of spec 002: does the answer name at least one `doc_hint`
//! document, and no document outside `doc_hint`?
//!
//! Formula: `citation(case) = 1` if `cited ∩ hint ≠ ∅` and `cited \ hint = ∅`, else 0,
//! where documents are compared by lowercase file name without folder
//! (`docs/A.md` = `a.md`). A hint counts as cited when its file name appears anywhere
//! in the NFKC-normalized, lowercased answer: plain text, quotes, Markdown link text
//! or link target. Other cited documents are found as ASCII file names with a
//! document extension (`.md`, `.pdf`, `.txt`, ... and any extension used by a hint);
//! a cited name that is not a hint makes the citation wrong, and the reason names it.

use regex_lite::Regex;
use serde::Serialize;
use std::sync::OnceLock;

const DOC_EXTENSIONS: &str =
    "md|markdown|mdx|txt|rst|adoc|pdf|docx?|pptx?|xlsx?|csv|jsonl?|ya?ml|html?|xml|tex|org|ipynb";

/// The citation verdict for one answer.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct CitationVerdict {
    /// True when a hint is cited and nothing else is.
    pub passed: bool,
    /// Every document the answer names (file names, in order of first appearance).
    pub cited: Vec<String>,
    /// Cited documents that are in `doc_hint`.
    pub correct: Vec<String>,
    /// Cited documents that are not in `doc_hint`.
    pub wrong: Vec<String>,
    /// The `doc_hint` file names.
    pub expected: Vec<String>,
}

/// Scores one answer against the case's `doc_hint`.
pub fn score(answer: &str, doc_hint: &[String]) -> CitationVerdict {
    let text: String = crate::text::nfkc(answer).to_lowercase();
    // A hint that names no file (`/`, blank) would match every answer: ignore it.
    let expected: Vec<String> = doc_hint
        .iter()
        .map(|h| base_name(h))
        .filter(|h| !h.is_empty())
        .collect();
    let mut cited: Vec<(usize, String)> = Vec::new();
    for hint in &expected {
        if let Some(pos) = text.find(&hint.to_lowercase()) {
            push_unique(&mut cited, pos, hint.clone());
        }
    }
    for m in doc_regex(&expected).find_iter(&text) {
        let name = base_name(m.as_str());
        if !expected.iter().any(|h| h.to_lowercase() == name) {
            push_unique(&mut cited, m.start(), name);
        }
    }
    cited.sort_by_key(|(pos, _)| *pos);
    let cited: Vec<String> = cited.into_iter().map(|(_, n)| n).collect();
    let is_hint = |c: &String| {
        expected
            .iter()
            .any(|h| h.to_lowercase() == c.to_lowercase())
    };
    let correct: Vec<String> = cited.iter().filter(|c| is_hint(c)).cloned().collect();
    let wrong: Vec<String> = cited.iter().filter(|c| !is_hint(c)).cloned().collect();
    CitationVerdict {
        passed: !correct.is_empty() && wrong.is_empty(),
        cited,
        correct,
        wrong,
        expected,
    }
}

fn push_unique(cited: &mut Vec<(usize, String)>, pos: usize, name: String) {
    let lower = name.to_lowercase();
    if !cited.iter().any(|(_, n)| n.to_lowercase() == lower) {
        cited.push((pos, name));
    }
}

/// The file name of a path or URL, without folders (`/` or `\`).
pub fn base_name(path: &str) -> String {
    let trimmed = path.trim().trim_end_matches(['/', '\\']);
    trimmed
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(trimmed)
        .to_string()
}

fn doc_regex(hints: &[String]) -> Regex {
    static DEFAULT: OnceLock<Regex> = OnceLock::new();
    let extra: Vec<String> = hints
        .iter()
        .filter_map(|h| h.rsplit_once('.').map(|(_, ext)| ext.to_lowercase()))
        .filter(|ext| !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()))
        .filter(|ext| !DOC_EXTENSIONS.split('|').any(|d| d == ext))
        .collect();
    let build = |exts: &str| {
        let pattern = format!(r"[a-z0-9_\-./\\]*[a-z0-9_\-]\.(?:{exts})\b");
        Regex::new(&pattern).expect("document pattern is a valid regex")
    };
    if extra.is_empty() {
        DEFAULT.get_or_init(|| build(DOC_EXTENSIONS)).clone()
    } else {
        build(&format!("{DOC_EXTENSIONS}|{}", extra.join("|")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn counts_plain_quoted_and_markdown_link_citations() {
        let h = hints(&["lightrag_evaluation.md"]);
        assert!(score("参考 lightrag_evaluation.md。", &h).passed);
        assert!(score("来自 'lightrag_evaluation.md'", &h).passed);
        assert!(score("见 [评测](docs/lightrag_evaluation.md)", &h).passed);
        assert!(score("见 [lightrag_evaluation.md](http://x/y)", &h).passed);
        assert!(score("SOURCE: DOCS/LIGHTRAG_EVALUATION.MD", &h).passed);
    }

    #[test]
    fn folder_in_hint_or_answer_is_ignored() {
        let v = score("参考 lightrag/faq.md", &hints(&["docs/faq.md"]));
        assert!(v.passed);
        assert_eq!(v.correct, vec!["faq.md".to_string()]);
    }

    #[test]
    fn wrong_document_is_named() {
        let v = score(
            "参考 ragas_install.md，可通过分块优化",
            &hints(&["lightrag_optimization.md"]),
        );
        assert!(!v.passed);
        assert_eq!(v.wrong, vec!["ragas_install.md".to_string()]);
        assert_eq!(v.expected, vec!["lightrag_optimization.md".to_string()]);
    }

    #[test]
    fn extra_document_beside_a_right_one_fails() {
        let v = score("a.md and b.pdf", &hints(&["a.md"]));
        assert!(!v.passed);
        assert_eq!(v.cited, vec!["a.md".to_string(), "b.pdf".to_string()]);
    }

    #[test]
    fn a_hint_without_a_file_name_matches_nothing() {
        let v = score("anything at all", &hints(&["/", " "]));
        assert!(!v.passed && v.cited.is_empty() && v.expected.is_empty());
    }

    #[test]
    fn no_citation_fails_and_unusual_hint_extension_is_learned() {
        assert!(!score("no sources", &hints(&["a.md"])).passed);
        let v = score("see notes.wiki and other.wiki", &hints(&["notes.wiki"]));
        assert_eq!(v.wrong, vec!["other.wiki".to_string()]);
        assert!(score("手册见 产品手册.md", &hints(&["产品手册.md"])).passed);
    }
}
