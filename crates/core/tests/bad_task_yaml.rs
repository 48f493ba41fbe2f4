//! Hostile and broken task YAML (spec 004's contract): tabs, anchors and aliases,
//! merge keys, an alias bomb, unknown keys, wrong types, missing fields, references
//! to fields that do not exist, deep nesting. Each bad file must give an error that
//! names the file and the line or key path and says what was expected, without
//! panicking. Every file of `tests/data/bad_yaml/` is listed here exactly once.

use evalpage_core::task::Task;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad_yaml")
}

/// (file, parts the error text must contain).
const BAD: &[(&str, &[&str])] = &[
    (
        "tab_indent.yaml",
        &["tab_indent.yaml:6:1", "tab", "indent with spaces"],
    ),
    (
        "merge_key.yaml",
        &["merge_key.yaml:16:1", "unknown field `other`"],
    ),
    (
        "billion_laughs.yaml",
        &["billion_laughs.yaml", "repetition limit exceeded"],
    ),
    (
        "deeply_nested.yaml",
        &["deeply_nested.yaml:15:", "recursion limit exceeded"],
    ),
    (
        "unknown_key.yaml",
        &[
            "unknown_key.yaml:14:1",
            "unknown field `metrix`",
            "expected one of `name`",
        ],
    ),
    (
        "wrong_type_version.yaml",
        &[
            "wrong_type_version.yaml:2:10",
            "`version`",
            "expected a string",
        ],
    ),
    (
        "missing_name.yaml",
        &["missing_name.yaml:1:1", "missing field `name`"],
    ),
    ("empty.yaml", &["empty.yaml:1:1", "missing field `name`"]),
    (
        "not_a_mapping.yaml",
        &["not_a_mapping.yaml:1:1", "invalid type: sequence"],
    ),
    (
        "duplicate_key.yaml",
        &["duplicate_key.yaml", "duplicate field `version`"],
    ),
    (
        "metric_pred_field_missing.yaml",
        &[
            "metric_pred_field_missing.yaml:12",
            "`metrics[0].pred_field`",
            "`sentimnet` is not a parse_schema field",
        ],
    ),
    (
        "lo_above_hi.yaml",
        &[
            "lo_above_hi.yaml:12",
            "`parse_schema[1].lo`",
            "greater than hi",
        ],
    ),
    (
        "enum_default_not_in_values.yaml",
        &[
            "enum_default_not_in_values.yaml:8",
            "`parse_schema[0].default`",
            "not in enum values",
        ],
    ),
    (
        "unknown_metric_type.yaml",
        &[
            "unknown_metric_type.yaml:10",
            "`metrics[0].type`",
            "unknown metric type `bleu_score`",
            "expected one of",
        ],
    ),
];

/// Files that are valid on purpose: anchors and aliases expand (documented).
const GOOD: &[&str] = &["anchor_alias.yaml"];

fn parse(file: &str) -> Result<Task, String> {
    let text = std::fs::read_to_string(dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    catch_unwind(AssertUnwindSafe(|| Task::parse(file, &text)))
        .unwrap_or_else(|_| panic!("{file}: the task parser panicked"))
        .map_err(|e| e.to_string())
}

#[test]
fn every_bad_task_file_gives_a_located_error() {
    for (file, parts) in BAD {
        let err = match parse(file) {
            Ok(_) => panic!("{file}: accepted, expected an error"),
            Err(e) => e,
        };
        for part in *parts {
            assert!(err.contains(part), "{file}: error lacks {part:?}:\n{err}");
        }
    }
}

#[test]
fn anchors_and_aliases_expand() {
    let task = parse(GOOD[0]).unwrap_or_else(|e| panic!("{e}"));
    let fields = &task.schema.fields;
    assert_eq!(fields.len(), 2);
    assert_eq!(
        format!("{:?}", fields[0].kind),
        format!("{:?}", fields[1].kind),
        "the alias repeats the enum values"
    );
}

#[test]
fn every_file_in_the_folder_is_covered() {
    let listed: BTreeSet<&str> = BAD
        .iter()
        .map(|(f, _)| *f)
        .chain(GOOD.iter().copied())
        .collect();
    let present: BTreeSet<String> = std::fs::read_dir(dir())
        .expect("bad_yaml folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    let present: BTreeSet<&str> = present.iter().map(String::as_str).collect();
    assert_eq!(listed, present);
}
