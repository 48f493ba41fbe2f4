//! One door per item (issue 30, point 3): an item of one of the core's public
//! modules is named only through that module (`evalpage_core::task::TaskEngine`),
//! and an item the root re-exports from a private module is reachable only there.
//! Read from the source as text, since a second path compiles as well as the first.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The text without `//` comments (none of the checked files has `//` in a string
/// on a `use` line).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The bodies of every `pub use ...;` statement (not `pub(crate) use`).
fn pub_uses(text: &str) -> Vec<String> {
    let code = code(text);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub use ") {
        let before = &rest[..at];
        let starts_line = before.is_empty() || before.ends_with(char::is_whitespace);
        let after = &rest[at + "pub use ".len()..];
        let end = after.find(';').expect("a use statement ends with ';'");
        if starts_line {
            out.push(
                after[..end]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        rest = &after[end + 1..];
    }
    out
}

/// Flattens a use tree into the source paths it names (`a::{b, c::d as e}` gives
/// `a::b` and `a::c::d`); `self` names its prefix.
fn flatten(tree: &str) -> Vec<Vec<String>> {
    fn parse(s: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            skip_ws(s, i);
            if s[*i] == '{' {
                *i += 1;
                loop {
                    skip_ws(s, i);
                    if s[*i] == '}' {
                        *i += 1;
                        return;
                    }
                    parse(s, i, &path, out);
                    skip_ws(s, i);
                    if s[*i] == ',' {
                        *i += 1;
                    }
                }
            }
            let start = *i;
            while *i < s.len() && (s[*i].is_alphanumeric() || s[*i] == '_' || s[*i] == '*') {
                *i += 1;
            }
            let seg: String = s[start..*i].iter().collect();
            assert!(!seg.is_empty(), "cannot read use tree at {}", *i);
            if seg != "self" {
                path.push(seg);
            }
            skip_ws(s, i);
            if *i + 1 < s.len() && s[*i] == ':' && s[*i + 1] == ':' {
                *i += 2;
                continue;
            }
            // `as alias`
            if s[*i..].starts_with(&['a', 's', ' ']) {
                *i += 3;
                skip_ws(s, i);
                while *i < s.len() && (s[*i].is_alphanumeric() || s[*i] == '_') {
                    *i += 1;
                }
            }
            out.push(path);
            return;
        }
    }
    fn skip_ws(s: &[char], i: &mut usize) {
        while *i < s.len() && s[*i].is_whitespace() {
            *i += 1;
        }
    }
    let chars: Vec<char> = tree.chars().collect();
    let mut out = Vec::new();
    parse(&chars, &mut 0, &[], &mut out);
    out
}

/// `pub mod x;` and `mod x;` of lib.rs: (public, private).
fn modules(lib: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut public, mut private) = (BTreeSet::new(), BTreeSet::new());
    for line in code(lib).lines().map(str::trim) {
        if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            public.insert(name.to_string());
        } else if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            private.insert(name.to_string());
        }
    }
    (public, private)
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every source file of public module `m`: `m.rs` or `m/**.rs`.
fn files_of(m: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let file = src().join(format!("{m}.rs"));
    if file.exists() {
        out.push(file);
    }
    let dir = src().join(m);
    if dir.is_dir() {
        rs_files(&dir, &mut out);
    }
    out
}

/// The door file of public module `m`.
fn door(m: &str) -> String {
    let file = src().join(format!("{m}.rs"));
    let file = if file.exists() {
        file
    } else {
        src().join(m).join("mod.rs")
    };
    std::fs::read_to_string(file).unwrap()
}

/// True when one path is the other or a module above it.
fn overlaps(a: &[String], b: &[String]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

fn lib_paths() -> (BTreeSet<String>, Vec<Vec<String>>) {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let (public, _) = modules(&lib);
    let paths = pub_uses(&lib)
        .iter()
        .flat_map(|u| flatten(u))
        .map(|p| {
            let skip = usize::from(p.first().is_some_and(|s| s == "crate"));
            p[skip..].to_vec()
        })
        .collect();
    (public, paths)
}

#[test]
fn the_root_re_exports_nothing_from_a_public_module() {
    let (public, paths) = lib_paths();
    // One door per kind, and the eight shared ones (run, events, report,
    // import, view, demo, review, testing).
    assert_eq!(
        public.len(),
        evalpage_core::RunKind::ALL.len() + 8,
        "the doors: {public:?}"
    );
    let twice: Vec<String> = paths
        .iter()
        .filter(|p| public.contains(&p[0]))
        .map(|p| p.join("::"))
        .collect();
    assert!(
        twice.is_empty(),
        "lib.rs re-exports items of public modules, which are then reachable two ways; \
         name them through their module instead: {twice:?}"
    );
}

#[test]
fn no_public_module_re_exports_another_door_s_item_or_a_root_item() {
    let (public, root) = lib_paths();
    let mut twice = Vec::new();
    for m in &public {
        for file in files_of(m) {
            let text = std::fs::read_to_string(&file).unwrap();
            let shown = file.strip_prefix(src()).unwrap().display().to_string();
            for path in pub_uses(&text).iter().flat_map(|u| flatten(u)) {
                if path[0] != "crate" {
                    continue;
                }
                let path = &path[1..];
                if public.contains(&path[0]) && path[0] != *m {
                    // `crate::other::Item` is that door's own item; deeper paths
                    // only when the other door does not re-export them itself.
                    let other = &path[0];
                    let its: Vec<Vec<String>> = pub_uses(&door(other))
                        .iter()
                        .flat_map(|u| flatten(u))
                        .map(|p| {
                            let mut full = vec![other.clone()];
                            full.extend(p.into_iter().skip_while(|s| s == "self"));
                            full
                        })
                        .collect();
                    if path.len() == 2 || its.iter().any(|p| overlaps(p, path)) {
                        twice.push(format!("{shown}: {}", path.join("::")));
                    }
                } else if root.iter().any(|r| overlaps(r, path)) {
                    twice.push(format!(
                        "{shown}: {} (also re-exported by lib.rs)",
                        path.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        twice.is_empty(),
        "items reachable through two doors; keep one: {twice:?}"
    );
}

#[test]
fn the_checker_reads_use_trees() {
    let paths = flatten("a::{b, c::{d as e, self}, f}");
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(shown, ["a::b", "a::c::d", "a::c", "a::f"]);
    assert_eq!(
        pub_uses("pub use x::y;\npub(crate) use z;\n    pub use w::{a,\n b};"),
        ["x::y", "w::{a, b}"]
    );
    let (public, _) = lib_paths();
    assert!(public.contains("task") && public.contains("run"));
}
