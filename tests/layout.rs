//! The page's layout rules that the compiler does not check: each mode's
//! state (and the shared `src/state/`) is pure, the page spawns async work
//! in one place, and every wasm-split point is declared by one macro.

#![cfg(not(target_arch = "wasm32"))]

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

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).expect("under root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, fs::read_to_string(&p).expect("read source"))
        })
        .collect()
}

/// `src/state/**`, and each mode's `state.rs` or `state/**`.
fn is_state(path: &str) -> bool {
    path.starts_with("src/state/") || path.ends_with("/state.rs") || path.contains("/state/")
}

/// Code lines only (doc and line comments dropped).
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn state_modules_do_no_io() {
    let sources = sources();
    let states: Vec<_> = sources.iter().filter(|(p, _)| is_state(p)).collect();
    assert!(states.len() >= 15, "state files found: {}", states.len());
    for mode in ["rag", "task", "retrieval", "dialog", "viewer"] {
        assert!(
            states
                .iter()
                .any(|(p, _)| p.starts_with(&format!("src/{mode}/"))),
            "no state module under src/{mode}/"
        );
    }
    for (path, text) in states {
        let code = code(text);
        for banned in [
            "effects::",
            "web_sys",
            "js_sys",
            "gloo",
            "wasm_bindgen",
            "spawn",
        ] {
            assert!(
                !code.contains(banned),
                "{path} names `{banned}`: state is pure"
            );
        }
    }
}

#[test]
fn async_work_is_spawned_in_one_place() {
    let spawners: Vec<_> = sources()
        .into_iter()
        .filter(|(_, t)| code(t).contains("spawn_local"))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(spawners, ["src/effects/mod.rs"]);
}

#[test]
fn split_points_are_declared_by_one_macro() {
    let declaring: Vec<_> = sources()
        .into_iter()
        .filter(|(_, t)| code(t).contains("wasm_split("))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(declaring, ["src/split.rs"]);
    let bins: Vec<_> = sources()
        .into_iter()
        .filter(|(p, _)| p.starts_with("src/bin/") || p == "src/main.rs")
        .collect();
    // Every bin has split points (the viewer's: the readers of other tools'
    // files), each declared with the macro.
    for (path, text) in bins {
        let points = text.matches("split_point!(").count();
        assert!(points > 0, "{path}: {points} split points");
    }
}
