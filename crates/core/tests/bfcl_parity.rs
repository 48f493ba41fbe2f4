//! evalpage's tool-call verdicts against BFCL's own: `data/bfcl/` holds the
//! first 30 entries of each Python category of bfcl-eval 2026.3.23, answers
//! made from their possible answers (right, and wrong in each way BFCL's
//! checker tells apart), and BFCL's verdict on each, written by
//! `data/bfcl/make_verdicts.py` with BFCL's `ast_checker`.

use evalpage_core::{bfcl_check, read_bfcl, read_tool_answer, BfclCategory, BfclChecker, Py};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

fn data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bfcl"))
}

fn lines(name: &str) -> Vec<Value> {
    std::fs::read_to_string(data().join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

#[test]
fn every_verdict_equals_bfcls() {
    // Every entry of every fixture file, by id.
    let mut entries = HashMap::new();
    for f in std::fs::read_dir(data()).expect("data/bfcl") {
        let path = f.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if !name.starts_with("BFCL_v4_") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("question file");
        let pa = data().join("possible_answer").join(&name);
        let pa_text = std::fs::read_to_string(&pa).ok();
        let read = read_bfcl(&name, &text, pa_text.as_deref().map(|t| (name.as_str(), t)))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(read.problems.is_empty(), "{name}: {:?}", read.problems);
        for e in read.entries {
            entries.insert(e.id.clone(), e);
        }
    }
    let answers = lines("answers.jsonl");
    let verdicts = lines("verdicts.jsonl");
    assert_eq!(answers.len(), verdicts.len());
    assert!(answers.len() > 4000, "{} answers", answers.len());
    let mut mismatches = Vec::new();
    let mut categories = HashMap::<String, usize>::new();
    // one checker per entry, read once and used for all its answers (as the
    // bench does): each verdict equal to a fresh check's, messages included
    let mut checkers = HashMap::<String, BfclChecker>::new();
    for (a, v) in answers.iter().zip(&verdicts) {
        let id = a["id"].as_str().expect("id");
        assert_eq!(a["id"], v["id"]);
        let entry = entries.get(id).unwrap_or_else(|| panic!("{id}: no entry"));
        *categories.entry(entry.category.clone()).or_default() += 1;
        let category = BfclCategory::from_name(&entry.category).expect("category");
        let parts = read_tool_answer(&a["response"], "response").expect("answer");
        let possible = entry
            .ground_truth
            .as_ref()
            .map(Py::from_json)
            .unwrap_or(Py::List(vec![]));
        let ours = bfcl_check(
            category,
            &entry.functions_py(),
            parts.calls.as_deref(),
            &possible,
        );
        let reused = checkers
            .entry(id.to_string())
            .or_insert_with(|| BfclChecker::new(category, &entry.functions_py(), &possible))
            .check(parts.calls.as_deref());
        assert_eq!(
            reused, ours,
            "{id}: a checker read once, then a fresh check"
        );
        let theirs_valid = v["valid"].as_bool().expect("valid");
        let theirs_type = v["error_type"].as_str();
        let variant = a["variant"].as_str().unwrap_or("");
        // The one deliberate difference (gorilla #1362): a call whose
        // arguments are not a JSON object is a call that failed to parse, in
        // every category; BFCL's runner calls it a decoding failure (and a
        // missed call in relevance), and in the irrelevance categories credits
        // it as an abstention.
        let unparsable = variant == "bad_json" || variant == "not_object";
        let expected: (bool, Option<&str>) = match theirs_type {
            Some(t) if t.starts_with("ast_decoder:") && variant != "text" => {
                (false, Some("parse_error"))
            }
            Some("relevance_error:decoder_failed") if unparsable => (false, Some("parse_error")),
            _ if theirs_valid && unparsable => (false, Some("parse_error")),
            _ => (theirs_valid, theirs_type),
        };
        if (ours.valid, ours.error_type) != expected {
            mismatches.push(format!(
                "{id} {variant}: BFCL {theirs_valid} {theirs_type:?}, expected {expected:?}, evalpage {} {:?} {:?}",
                ours.valid, ours.error_type, ours.errors
            ));
        }
    }
    assert!(categories.len() >= 11, "{categories:?}");
    // The deliberate difference is exercised, not vacuous.
    assert!(verdicts
        .iter()
        .zip(&answers)
        .any(|(v, a)| v["valid"] == true && a["variant"] == "bad_json"));
    assert!(
        mismatches.is_empty(),
        "{} of {} differ:\n{}",
        mismatches.len(),
        answers.len(),
        mismatches.join("\n")
    );
}
