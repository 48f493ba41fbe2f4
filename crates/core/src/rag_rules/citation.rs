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

use serde::Serialize;

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
    for (start, found) in doc_names(&text, &extensions(&expected)) {
        let name = base_name(found);
        if !expected.iter().any(|h| h.to_lowercase() == name) {
            push_unique(&mut cited, start, name);
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

/// The document extensions looked for: [`DOC_EXTENSIONS`] with each `?`
/// spelled out (the longer form first), then those of the hints that are not
/// among them.
fn extensions(hints: &[String]) -> Vec<String> {
    let mut exts: Vec<String> = Vec::new();
    for e in DOC_EXTENSIONS.split('|') {
        match e.find('?') {
            // `docx?` is `docx` then `doc`; `ya?ml` is `yaml` then `yml`.
            Some(q) => {
                exts.push(e.replace('?', ""));
                exts.push(format!("{}{}", &e[..q - 1], &e[q + 1..]));
            }
            None => exts.push(e.to_string()),
        }
    }
    let extra = hints
        .iter()
        .filter_map(|h| h.rsplit_once('.').map(|(_, ext)| ext.to_lowercase()))
        .filter(|ext| !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()))
        .filter(|ext| !DOC_EXTENSIONS.split('|').any(|d| d == ext));
    exts.extend(extra);
    exts
}

/// In a character of a path (`[a-z0-9_\-./\\]`).
fn in_path(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'\\')
}

/// Ends a file name before its extension (`[a-z0-9_\-]`).
fn ends_name(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-')
}

/// Every file name with one of `exts` in the lowercased `text`, with where it
/// starts: what the pattern `[a-z0-9_\-./\\]*[a-z0-9_\-]\.(?:EXTS)\b` finds
/// (leftmost first, non-overlapping), matched by hand so the page carries no
/// regex engine. From each start the longest path is tried first, then
/// shorter ones, and the extensions in their order; the extension must end at
/// a non-word character (ASCII `\b`).
fn doc_names<'t>(text: &'t str, exts: &[String]) -> Vec<(usize, &'t str)> {
    let b = text.as_bytes();
    let word = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let mut found = Vec::new();
    let mut at = 0;
    while at < b.len() {
        if !in_path(b[at]) {
            at += 1;
            continue;
        }
        let run_end = (at..b.len()).find(|&i| !in_path(b[i])).unwrap_or(b.len());
        let hit = (at..run_end).rev().find_map(|k| {
            if !ends_name(b[k]) || b.get(k + 1) != Some(&b'.') {
                return None;
            }
            let ext = exts.iter().find(|e| {
                let end = k + 2 + e.len();
                b.get(k + 2..end) == Some(e.as_bytes()) && !word(end)
            })?;
            Some(k + 2 + ext.len())
        });
        match hit {
            Some(end) => {
                found.push((at, &text[at..end]));
                at = end;
            }
            // No start inside this run can match (its candidates are a subset).
            None => at = run_end,
        }
    }
    found
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

    /// The hand matcher finds what the regex it replaces finds.
    #[test]
    fn doc_names_equal_the_regex() {
        let pattern = |exts: &[String]| {
            let mut listed = DOC_EXTENSIONS.to_string();
            let extra: Vec<&String> = exts.iter().skip(24).collect();
            for e in extra {
                listed.push('|');
                listed.push_str(e);
            }
            regex_lite::Regex::new(&format!(r"[a-z0-9_\-./\\]*[a-z0-9_\-]\.(?:{listed})\b"))
                .expect("pattern")
        };
        let mut texts: Vec<String> = vec![
            "参考 lightrag_evaluation.md。".into(),
            "see docs/a.md, b.markdown and c.mdx; d.docx e.doc f.yml g.yaml h.htm i.html".into(),
            "a.md.bak x.mdz y.md_ z.md-1 ../up/a.txt \\win\\b.pdf .md a..md -.md _.md".into(),
            "file.jsonl file.json.gz 1.5.md v1.2.3 report.final.pdf/ q.ipynb1 r.ipynb".into(),
            "no names here. 句号。.md。 a.md.md.md x.custom y.custom2 z.weird a.md参考 b.pdfé c.txt١".into(),
            "https://host/path/to/read_me.md?x=1#frag (see [t](docs/t.md))".into(),
        ];
        for line in include_str!("../../../../www/demo/demo_dataset.jsonl").lines() {
            texts.push(line.to_lowercase());
        }
        texts.extend(crate::rng::strings(
            7,
            "ab.md/\\_-x1 。docxyamlpf",
            2000,
            24,
        ));
        for hints in [hints(&[]), hints(&["x.custom", "notes.weird", "a.MD"])] {
            let exts = extensions(&hints);
            let re = pattern(&exts);
            for t in &texts {
                let want: Vec<(usize, &str)> =
                    re.find_iter(t).map(|m| (m.start(), m.as_str())).collect();
                assert_eq!(doc_names(t, &exts), want, "{t:?}");
            }
        }
    }
}
