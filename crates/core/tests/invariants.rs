//! The architecture's invariants (docs/ARCHITECTURE.md) that the compiler
//! does not check, read off the sources of the core and the CLI:
//!
//! - the core is pure: outside tests it reads no clock, no OS randomness and
//!   no file, starts no thread and opens no socket (the engine is sans-IO);
//! - one report assembler: an `EvaluationResult` is built as a struct only
//!   in `report/assemble.rs`, in the core and in the CLI;
//! - one metric registry: a metric's registry line (`MetricType`) is
//!   written only in `metric/`;
//! - a match over the kinds is exhaustive: no `_` arm beside `RunKind::`
//!   arms, so a new kind does not compile until every such match names it;
//! - no shell forms a run id: the CLI's and the page's code (outside tests)
//!   builds no `run_id` with `format!`; the core's `RunKind::run_id` and
//!   `RunKind::scored_run_id` make them all;
//! - dependencies point inward: the core depends on no other crate of the
//!   workspace and on no browser, async runtime or HTTP crate; neither shell
//!   depends on the other (read from `cargo metadata`).

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each source file of `crate_dir/src` as (path from the workspace, its
/// code before its first `#[cfg(test)]` line: tests are below it), tests
/// files (`tests.rs`, `*_tests.rs`) and the test helpers (`testing.rs`,
/// `testing/`) left out.
fn code_of(crate_dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
    let mut files = Vec::new();
    rust_files(&root.join(crate_dir).join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            let name = rel.rsplit('/').next().unwrap_or_default();
            if name == "tests.rs"
                || name.ends_with("_tests.rs")
                || name == "testing.rs"
                || rel.contains("/testing/")
            {
                return None;
            }
            let text = fs::read_to_string(&p).expect("read source");
            let code: Vec<&str> = text
                .lines()
                .take_while(|l| l.trim() != "#[cfg(test)]")
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            Some((rel, code.join("\n")))
        })
        .collect()
}

#[test]
fn the_core_reads_no_clock_randomness_or_file_outside_tests() {
    const IO: [&str; 8] = [
        "SystemTime",
        "Instant::now",
        "std::fs",
        "std::thread",
        "std::net",
        "getrandom",
        "std::env::var",
        "std::process",
    ];
    let mut found = Vec::new();
    for (path, code) in code_of("crates/core") {
        for io in IO {
            if code.contains(io) {
                found.push(format!("{path}: {io}"));
            }
        }
    }
    assert!(found.is_empty(), "I/O in the core: {found:#?}");
}

/// Where an `EvaluationResult` is made without `report::assemble`, and why
/// it is not a run's report.
const NOT_A_RUN_REPORT: [(&str, &str); 2] = [
    (
        "crates/core/src/report/saved.rs",
        "summary.csv reads a saved report's head: a copy without its scores",
    ),
    (
        "crates/core/src/view/compare.rs",
        "a viewed run's scores as the comparison's input, never written",
    ),
];

#[test]
fn reports_are_built_by_the_one_assembler() {
    let mut found = Vec::new();
    for dir in ["crates/core", "crates/cli"] {
        for (path, code) in code_of(dir) {
            let builds = code.lines().any(|l| {
                l.contains("EvaluationResult {")
                    && !["fn ", "impl ", "struct "].iter().any(|k| l.contains(k))
            });
            if builds
                && path != "crates/core/src/report/assemble.rs"
                && !NOT_A_RUN_REPORT.iter().any(|(p, _)| *p == path)
            {
                found.push(path);
            }
        }
    }
    assert!(
        found.is_empty(),
        "an EvaluationResult built beside report::assemble: {found:?}"
    );
}

#[test]
fn metric_registry_lines_are_written_in_metric_only() {
    let found: Vec<String> = code_of("crates/core")
        .into_iter()
        .filter(|(path, code)| {
            !path.starts_with("crates/core/src/metric/")
                && (code.contains("MetricType {") || code.contains(": MetricType ="))
        })
        .map(|(path, _)| path)
        .collect();
    assert!(found.is_empty(), "metric lines outside metric/: {found:?}");
}

/// The lines of `code` where a `_` arm closes a match that has `RunKind::`
/// arms at the same indentation.
fn wildcard_beside_kinds(code: &str) -> Vec<usize> {
    let lines: Vec<&str> = code.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let kind_arm = |l: &str| {
        let t = l.trim_start();
        let t = t.strip_prefix("Some(").unwrap_or(t);
        t.starts_with("RunKind::") && (t.contains("=>") || t.trim_end().ends_with('|'))
    };
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !kind_arm(l) {
            continue;
        }
        let at = indent(l);
        for (j, next) in lines.iter().enumerate().skip(i + 1) {
            if next.trim().is_empty() || indent(next) > at {
                continue;
            }
            if indent(next) < at {
                break;
            }
            let t = next.trim_start();
            if t.starts_with("_ =>") || t.starts_with("_ if") {
                out.push(j + 1);
                break;
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The lines of `code` that compare a kind with `==` or `!=`: a test a new
/// kind passes silently (an exhaustive match names it).
fn kind_compared(code: &str) -> Vec<usize> {
    code.lines()
        .enumerate()
        .filter(|(_, l)| {
            [
                "== Some(RunKind::",
                "!= Some(RunKind::",
                "== RunKind::",
                "!= RunKind::",
            ]
            .iter()
            .any(|p| l.contains(p))
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn matches_over_kinds_name_every_kind() {
    let mut found = Vec::new();
    for dir in ["crates/core", "crates/cli", "crates/sim", "."] {
        for (path, code) in code_of(dir) {
            for line in wildcard_beside_kinds(&code) {
                found.push(format!("{path}: a `_` arm at code line {line}"));
            }
            for line in kind_compared(&code) {
                found.push(format!("{path}: a kind compared at code line {line}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    // The check itself finds what it looks for.
    let seeded = "match k {\n    RunKind::Rag => 1,\n    _ => 2,\n}";
    assert_eq!(kind_compared("let t = k == Some(RunKind::Task);"), vec![1]);
    assert_eq!(kind_compared("if kind != RunKind::Rag {"), vec![1]);
    assert!(kind_compared("Some(RunKind::Task) => true,").is_empty());
    assert_eq!(wildcard_beside_kinds(seeded), vec![3]);
    let whole = "match k {\n    Some(RunKind::Rag) => 1,\n    Some(RunKind::Task) | None => 2,\n}";
    assert!(wildcard_beside_kinds(whole).is_empty());
}

/// The workspace's packages as `cargo metadata` lists them: (name, the
/// names of its normal dependencies, the targets' too).
fn packages() -> Vec<(String, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..");
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("its JSON");
    meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null())
                .filter_map(|d| d["name"].as_str().map(str::to_string))
                .collect();
            (p["name"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect()
}

#[test]
fn dependencies_point_inward() {
    let packages = packages();
    let deps = |name: &str| -> &Vec<String> {
        &packages
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("package {name} in the workspace"))
            .1
    };
    let browser_or_io = [
        "yew",
        "web-sys",
        "js-sys",
        "wasm-bindgen",
        "gloo",
        "tokio",
        "reqwest",
        "ureq",
    ];
    for d in deps("evalpage-core") {
        assert!(
            !d.starts_with("evalpage") && !browser_or_io.iter().any(|b| d.starts_with(b)),
            "evalpage-core depends on {d}: the core knows no shell, browser, runtime or HTTP"
        );
    }
    assert!(deps("evalpage-cli").contains(&"evalpage-core".to_string()));
    assert!(!deps("evalpage-cli").contains(&"evalpage-web".to_string()));
    assert!(deps("evalpage-web").contains(&"evalpage-core".to_string()));
    assert!(!deps("evalpage-web").contains(&"evalpage-cli".to_string()));
}

#[test]
fn no_shell_forms_a_run_id() {
    let mut found = Vec::new();
    for krate in ["crates/cli", "."] {
        for (path, code) in code_of(krate) {
            // a `run_id` (or `..._run_id`) field or binding given a `format!`
            let text = code.replace(char::is_whitespace, "");
            for (at, _) in text
                .match_indices("run_id:format!")
                .chain(text.match_indices("run_id=format!"))
            {
                found.push(format!("{path}: {}", &text[at.saturating_sub(20)..at + 14]));
            }
        }
    }
    assert!(
        found.is_empty(),
        "run ids formed outside RunKind::run_id / RunKind::scored_run_id: {found:#?}"
    );
}
