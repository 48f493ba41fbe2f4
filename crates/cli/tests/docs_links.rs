//! Every relative link in README.md and in the Markdown files under docs/
//! leads somewhere: the file or folder it names exists, inside the
//! repository, and a `#anchor` names a heading of the target file (GitHub's
//! heading ids). Links with a scheme (`https:`, `mailto:` ...) are not
//! followed; links inside code (fenced blocks and `code spans`) are not links.

use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// README.md and every `.md` under docs/, sorted.
fn doc_files(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut files);
    files.sort();
    files
}

/// The lines of `text` outside fenced code blocks, with their line numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => lines.push((i + 1, line)),
            _ => {}
        }
    }
    lines
}

/// `line` with its code spans blanked out (a link inside code is text).
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let open = &rest[start..start + ticks];
        out.push_str(&rest[..start]);
        let after = &rest[start + ticks..];
        match after.find(open) {
            Some(end) => {
                out.push_str(&" ".repeat(ticks * 2 + end));
                rest = &after[end + ticks..];
            }
            None => {
                out.push_str(open);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images on one line: `[text](target)`
/// and `![alt](target "title")`.
fn link_targets(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut targets = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '[' {
            i += 1;
            continue;
        }
        // The matching `]`, brackets nested.
        let mut depth = 0;
        let mut close = None;
        for (j, &c) in chars.iter().enumerate().skip(i) {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { break };
        if chars.get(close + 1) != Some(&'(') {
            i += 1;
            continue;
        }
        let mut depth = 0;
        let mut end = None;
        for (j, &c) in chars.iter().enumerate().skip(close + 1) {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let inside: String = chars[close + 2..end].iter().collect();
        let target = inside.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        targets.push(target.to_string());
        // Go on inside the text too: `[![alt](img)](link)` holds two links.
        i += 1;
    }
    targets
}

/// GitHub's id of a heading: the rendered text lowercased, every character
/// that is not a letter, a digit, `_`, `-` or a space dropped, spaces made
/// hyphens; a repeated id gets `-1`, `-2` ...
fn heading_ids(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut ids = Vec::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = line[hashes..].trim().trim_end_matches('#').trim();
        // Rendered text: a link's text, no code or emphasis marks.
        let mut rendered = String::new();
        let mut rest = title;
        while let Some(open) = rest.find('[') {
            rendered.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match (after.find("]("), after.find(')')) {
                (Some(mid), Some(end)) if mid < end => {
                    rendered.push_str(&after[..mid]);
                    rest = &after[end + 1..];
                }
                _ => {
                    rendered.push('[');
                    rest = after;
                }
            }
        }
        rendered.push_str(rest);
        let base: String = rendered
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(base.clone()).or_insert(0);
        ids.push(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    ids
}

fn has_scheme(target: &str) -> bool {
    match target.find(':') {
        Some(i) => {
            let scheme = &target[..i];
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !target[..i].contains('/')
        }
        None => false,
    }
}

/// `base/rel` with `.` and `..` applied, without touching the disk.
fn join_normal(base: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in base.join(rel).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every broken link of the Markdown file `file` (whose text is `text`), as
/// `file:line: target: why`, for a repository at `root`.
fn broken_links(root: &Path, file: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    for (n, line) in prose_lines(text) {
        for target in link_targets(&without_code_spans(line)) {
            if target.is_empty() {
                broken.push(format!("{shown}:{n}: empty link target"));
                continue;
            }
            if has_scheme(&target) {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.to_path_buf()
            } else if path.starts_with('/') {
                broken.push(format!(
                    "{shown}:{n}: {target}: a path from the site's root; use a relative path"
                ));
                continue;
            } else {
                join_normal(file.parent().expect("a file's folder"), path)
            };
            if !resolved.starts_with(root) {
                broken.push(format!(
                    "{shown}:{n}: {target}: points outside the repository"
                ));
                continue;
            }
            if !path.is_empty() && !resolved.exists() {
                broken.push(format!("{shown}:{n}: {target}: no such file or folder"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if resolved.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let target_text = if resolved == file {
                text.to_string()
            } else {
                fs::read_to_string(&resolved).unwrap_or_default()
            };
            if !heading_ids(&target_text).iter().any(|id| id == anchor) {
                broken.push(format!(
                    "{shown}:{n}: {target}: no heading with id '{anchor}'"
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let root = repo_root();
    let files = doc_files(&root);
    assert!(
        files.len() > 2,
        "expected README.md and the Markdown files under docs/, found {files:?}"
    );
    let mut broken = Vec::new();
    let mut links = 0;
    for file in &files {
        let text = fs::read_to_string(file).expect("a readable Markdown file");
        links += prose_lines(&text)
            .iter()
            .map(|(_, l)| link_targets(&without_code_spans(l)).len())
            .sum::<usize>();
        broken.extend(broken_links(&root, file, &text));
    }
    assert!(links > 0, "no links found: the link reader is broken");
    assert!(
        broken.is_empty(),
        "{} broken link(s) in {} files:\n{}",
        broken.len(),
        files.len(),
        broken.join("\n")
    );
}

#[test]
fn a_broken_path_or_anchor_is_reported() {
    let dir = std::env::temp_dir().join(format!("evalpage-docs-links-{}", std::process::id()));
    fs::create_dir_all(dir.join("docs")).expect("a temporary folder");
    let root = dir.canonicalize().expect("the temporary folder");
    fs::write(
        root.join("docs/other.md"),
        "# Other page\n\n## LLM-as-judge (`llm_judge`)\n\n## Repeats, pass@k and pass^k\n\n## Notes\n\n## Notes\n",
    )
    .expect("write other.md");
    let file = root.join("README.md");
    let text = "# Title\n\
        [ok](docs/other.md) [ok](docs/other.md#llm-as-judge-llm_judge) \
        [ok](docs/other.md#repeats-passk-and-passk) [ok](docs/other.md#notes-1) \
        [ok](#title) [ok](https://example.com/x.md) ![ok](docs/other.md \"a title\")\n\
        `[code](missing.md)`\n\
        ```\n[fenced](missing.md)\n```\n\
        [bad](docs/missing.md) [bad](docs/other.md#no-such-heading) [bad](#nowhere)\n\
        [bad](../outside.md)\n";
    let broken = broken_links(&root, &file, text);
    fs::remove_dir_all(&dir).ok();
    let targets: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).unwrap_or(b))
        .collect();
    assert_eq!(
        targets,
        [
            "docs/missing.md",
            "docs/other.md#no-such-heading",
            "#nowhere",
            "../outside.md"
        ],
        "{broken:#?}"
    );
}
