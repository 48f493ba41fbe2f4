//! Hostile and broken inputs for the three readers that take bytes from outside:
//! the RAG dataset reader, the event-log reader (with reconciliation) and the
//! OpenAI-compatible response parser.
//!
//! Every file of `tests/data/bad/` is named in exactly one table below with what it
//! must give (see that folder's README.md); inputs too big to commit (10 MB lines,
//! 100k levels of nesting) are generated at run time. Each check asserts that the
//! reader does not panic, that the error names its place (file and line for
//! datasets, position for logs) and says what was expected, and that every valid
//! record around a bad one is kept.

use evalpage_core::events::{self, LogFormat, ReadLog};
use evalpage_core::parse_response;
use evalpage_core::{numbered_lines, rag};
use evalpage_core::{CallError, CallOutcome, ErrorKind};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad")
}

fn load(file: &str) -> Vec<u8> {
    std::fs::read(dir().join(file)).unwrap_or_else(|e| panic!("{file}: cannot read: {e}"))
}

/// Runs `f`, turning a panic into a failure that names the input.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| panic!("{what}: the reader panicked"))
}

// ---------------------------------------------------------------- datasets

type LineErr = (usize, Option<&'static str>, &'static str);

/// A dataset file, the ids of the cases it must keep (in order), and its errors
/// as (line, field, part of the message).
struct RagBad {
    file: &'static str,
    ids: Vec<&'static str>,
    errors: Vec<LineErr>,
}

fn rag_file(file: &'static str, ids: &[&'static str], errors: &[LineErr]) -> RagBad {
    RagBad {
        file,
        ids: ids.to_vec(),
        errors: errors.to_vec(),
    }
}

/// The usual shape: a valid line `before`, the bad line 2, a valid line `after`.
fn line2(file: &'static str, field: Option<&'static str>, says: &'static str) -> RagBad {
    rag_file(file, &["before", "after"], &[(2, field, says)])
}

const TRAILING: &str = "trailing characters after the JSON value (expected exactly one JSON value)";

fn rag_table() -> Vec<RagBad> {
    let q = Some("q");
    let gold = Some("gold");
    let hint = Some("doc_hint");
    let id = Some("id");
    let meta = Some("metadata");
    let tags = Some("tags");
    vec![
        line2("rag_not_json.jsonl", None, "not valid JSON at column 2: expected ident"),
        line2("rag_single_quotes.jsonl", None, "not valid JSON at column 2: key must be a string"),
        line2("rag_q_number.jsonl", q, "expected a string, found a number"),
        line2("rag_q_null.jsonl", q, "expected a string, found null"),
        line2("rag_q_blank.jsonl", q, "expected a non-empty question"),
        line2("rag_q_object.jsonl", q, "expected a string, found an object"),
        line2("rag_gold_string.jsonl", gold, "expected an array of strings, found a string"),
        line2("rag_gold_item_number.jsonl", gold, "item 1: expected a string, found a number"),
        rag_file(
            "rag_gold_empty.jsonl",
            &["before", "after"],
            &[
                (2, gold, "expected at least one non-empty keypoint"),
                (3, gold, "expected at least one non-empty keypoint"),
            ],
        ),
        line2("rag_gold_object.jsonl", gold, "expected an array of strings, found an object"),
        line2("rag_doc_hint_string.jsonl", hint, "expected an array of strings, found a string"),
        line2("rag_doc_hint_item_object.jsonl", hint, "item 0: expected a string, found an object"),
        line2("rag_doc_hint_no_file_name.jsonl", hint, "item 1: `/` names no file; expected a document file name"),
        line2("rag_tags_string.jsonl", tags, "expected an array of strings, found a string"),
        line2("rag_tags_item_bool.jsonl", tags, "item 1: expected a string, found a boolean"),
        line2("rag_id_bool.jsonl", id, "expected a string id, found a boolean"),
        line2("rag_id_array.jsonl", id, "expected a string id, found an array"),
        line2("rag_id_blank.jsonl", id, "expected a non-empty id"),
        rag_file(
            "rag_id_numbers.jsonl",
            &["before", "7", "after"],
            &[
                (3, id, "duplicate id `7` (first used on line 2)"),
                (4, None, "not valid JSON at column 38: number out of range"),
            ],
        ),
        line2("rag_metadata_array.jsonl", meta, "expected an object, found an array"),
        line2("rag_metadata_string.jsonl", meta, "expected an object, found a string"),
        line2("rag_missing_q.jsonl", q, "missing: every line needs a question `q`"),
        line2("rag_missing_gold.jsonl", gold, "missing: expected an array of at least one keypoint"),
        line2("rag_wrong_case_keys.jsonl", q, "missing: every line needs a question `q`"),
        line2("rag_empty_object.jsonl", q, "missing"),
        rag_file("rag_empty_file.jsonl", &[], &[]),
        rag_file("rag_only_blank_lines.jsonl", &[], &[]),
        rag_file("rag_whitespace_lines.jsonl", &["before", "after"], &[]),
        rag_file(
            "rag_invalid_utf8_alone.jsonl",
            &[],
            &[(1, None, "not valid UTF-8 (bad byte at column 1); save the file as UTF-8")],
        ),
        line2("rag_invalid_utf8_mid.jsonl", None, "not valid UTF-8 (bad byte at column 11)"),
        // decision: a BOM at the start of any line is stripped (see the README)
        rag_file("rag_bom_mid_file.jsonl", &["first", "second", "third"], &[]),
        line2("rag_bom_inside_line.jsonl", None, "not valid JSON at column 12: key must be a string"),
        rag_file(
            "rag_duplicate_ids.jsonl",
            &["a", "b", "Q4"],
            &[
                (3, id, "duplicate id `a` (first used on line 1)"),
                (5, id, "duplicate id `Q4` (first used on line 4)"),
            ],
        ),
        line2("rag_deep_nesting.jsonl", None, "recursion limit exceeded (nested more than 128 levels deep)"),
        line2("rag_array_per_line.jsonl", None, "expected a JSON object, found an array"),
        line2("rag_number_per_line.jsonl", None, "expected a JSON object, found a number"),
        line2("rag_string_per_line.jsonl", None, "expected a JSON object, found a string"),
        line2("rag_null_per_line.jsonl", None, "expected a JSON object, found null"),
        line2("rag_bool_per_line.jsonl", None, "expected a JSON object, found a boolean"),
        rag_file(
            "rag_nul_bytes.jsonl",
            &["before", "after", "nul-escaped"],
            &[
                (2, None, TRAILING),
                (3, None, "column 9: control character (\\u0000-\\u001F) found while parsing a string"),
                (4, None, "not valid JSON at column 1: expected value"),
            ],
        ),
        rag_file("rag_cr_only.jsonl", &["a", "b", "c"], &[]),
        rag_file(
            "rag_mixed_line_endings.jsonl",
            &["a", "d"],
            &[(2, None, "carriage return not followed by a line feed")],
        ),
        rag_file("rag_crlf_no_final_newline.jsonl", &["a", "b", "c"], &[]),
        rag_file(
            "rag_trailing_garbage.jsonl",
            &["before", "after"],
            &[(2, None, TRAILING), (3, None, TRAILING), (4, None, TRAILING)],
        ),
        line2("rag_truncated_object.jsonl", None, "not valid JSON at column 24: EOF while parsing a list"),
        rag_file(
            "rag_json_array_file.jsonl",
            &["b"],
            &[
                (1, None, "EOF while parsing a list"),
                (2, None, TRAILING),
                (4, None, "expected value"),
            ],
        ),
        rag_file(
            "rag_pretty_printed_object.jsonl",
            &["before", "after"],
            &[
                (2, None, "EOF while parsing an object"),
                (3, None, TRAILING),
                (4, None, TRAILING),
                (5, None, "expected a JSON object, found a string"),
                (6, None, "expected value"),
                (7, None, "expected value"),
            ],
        ),
        rag_file("rag_long_keypoints.jsonl", &["before", "long", "after"], &[]),
        rag_file(
            "rag_unicode_edge.jsonl",
            &["combining", "rtl", "emoji", "ｆｕｌｌ", "surrogate-pair", "zero-width"],
            &[
                (6, None, "column 14: unexpected end of hex escape (a \\uD800-\\uDBFF escape must be followed by"),
                (7, None, "not valid JSON at column 1: expected value"),
            ],
        ),
        line2("rag_json_error_cjk_column.jsonl", None, "not valid JSON at column 17: expected `,` or `}`"),
        rag_file(
            "rag_utf16le.jsonl",
            &[],
            &[(1, None, "the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8")],
        ),
    ]
}

/// Words that say what was wrong or what was expected.
const SAYS: &[&str] = &["expected", "not valid", "missing", "duplicate", "UTF-16"];

/// Parses `bytes` as `file`, checks what every dataset must satisfy, and returns it.
fn parse_checked(file: &str, bytes: &[u8]) -> rag::RagDataset {
    let data = no_panic(file, || rag::parse(file, bytes));
    let lines: Vec<_> = numbered_lines(bytes).collect();
    let non_blank = lines
        .iter()
        .filter(|(_, t)| t.as_ref().map_or(true, |t| !t.trim().is_empty()))
        .count();
    assert!(
        data.cases.len() + data.errors.len() <= non_blank.max(1),
        "{file}: more results than non-blank lines"
    );
    for e in &data.errors {
        assert_eq!(e.file, file);
        assert!(
            (1..=lines.len().max(1)).contains(&e.line),
            "{file}: {e} is outside the file"
        );
        assert!(
            e.to_string().starts_with(&format!("{file}:{}: ", e.line)),
            "{file}: {e}"
        );
        assert!(
            SAYS.iter().any(|w| e.message.contains(w)),
            "{file}: unclear error: {e}"
        );
        assert!(
            e.message.len() < 400,
            "{file}: error too long: {} bytes",
            e.message.len()
        );
    }
    data
}

fn check_rag(t: &RagBad) {
    let data = parse_checked(t.file, &load(t.file));
    let ids: Vec<&str> = data.cases.iter().map(|c| c.id.as_str()).collect();
    let shown: Vec<String> = data.errors.iter().map(ToString::to_string).collect();
    assert_eq!(ids, t.ids, "{}: cases kept; errors: {shown:#?}", t.file);
    assert_eq!(data.errors.len(), t.errors.len(), "{}: {shown:#?}", t.file);
    for (e, (line, field, says)) in data.errors.iter().zip(&t.errors) {
        assert_eq!(e.line, *line, "{}: {e}", t.file);
        assert_eq!(e.field.as_deref(), *field, "{}: {e}", t.file);
        assert!(
            e.message.contains(says),
            "{}: {e}\n  expected it to contain: {says}",
            t.file
        );
    }
}

#[test]
fn every_bad_dataset_keeps_the_valid_cases_and_names_each_bad_line() {
    for t in rag_table() {
        check_rag(&t);
    }
}

#[test]
fn dataset_content_survives_unicode_long_keypoints_and_escaped_nul() {
    let data = rag::parse("u", &load("rag_unicode_edge.jsonl"));
    let by_id = |id: &str| data.cases.iter().find(|c| c.id == id).expect(id);
    assert!(by_id("combining").q.starts_with("e\u{301}\u{301}\u{301}"));
    assert!(by_id("rtl").q.starts_with('\u{202e}'));
    assert_eq!(by_id("emoji").gold, vec!["😀".to_string()]);
    assert_eq!(by_id("surrogate-pair").q, "😀?");
    // U+2028 / U+2029 are whitespace: trimmed off the keypoint
    assert_eq!(by_id("zero-width").gold, vec!["x".to_string()]);
    let data = rag::parse("l", &load("rag_long_keypoints.jsonl"));
    assert_eq!(data.cases[1].gold.len(), 1002);
    assert_eq!(data.cases[1].gold[0].chars().count(), 10_000);
    let data = rag::parse("n", &load("rag_nul_bytes.jsonl"));
    assert_eq!(data.cases[2].q, "nul\0escaped?");
}

/// A valid line with this `q` and `gold`.
fn case_line(id: &str, gold: &str) -> String {
    json!({"q": format!("{id}?"), "gold": [gold], "doc_hint": ["d.md"], "id": id}).to_string()
}

#[test]
fn a_10_mb_line_is_read_or_refused_without_echoing_it() {
    let big = "准确率".repeat(10 * 1024 * 1024 / 9 + 1);
    let bad_tail = format!("{{\"q\":\"a?\",\"gold\":[\"{big}\"] oops}}");
    let garbage = "x".repeat(10 * 1024 * 1024);
    let input = [
        case_line("before", "k"),
        case_line("huge", &big),
        bad_tail,
        garbage,
        case_line("after", "k"),
    ]
    .join("\n");
    assert!(input.len() > 30 * 1024 * 1024);
    let data = parse_checked("big.jsonl", input.as_bytes());
    let ids: Vec<&str> = data.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["before", "huge", "after"]);
    assert_eq!(data.cases[1].gold[0].len(), big.len());
    assert_eq!(data.errors.len(), 2);
    // `{"q":"a?","gold":["` is 19 characters, then the keypoint, `"] `, then `oops`
    let column = big.chars().count() + 23;
    assert_eq!(data.errors[0].line, 3);
    assert!(
        data.errors[0]
            .message
            .starts_with(&format!("not valid JSON at column {column}:")),
        "{}",
        data.errors[0]
    );
    assert_eq!(data.errors[1].line, 4);
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn nesting_100k_deep_is_an_error_not_a_stack_overflow() {
    let deep_array = nested(100_000);
    let deep_object = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let deep_field =
        format!("{{\"q\":\"a?\",\"gold\":[\"x\"],\"metadata\":{{\"m\":{deep_array}}}}}");
    let input = [
        case_line("before", "k"),
        deep_array.clone(),
        deep_object.clone(),
        deep_field,
        "[".repeat(100_000),
        case_line("after", "k"),
    ]
    .join("\n");
    let data = parse_checked("deep.jsonl", input.as_bytes());
    let ids: Vec<&str> = data.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["before", "after"]);
    assert_eq!(data.errors.len(), 4);
    for (e, line) in data.errors.iter().zip(2..) {
        assert_eq!(e.line, line);
        assert!(e.message.contains("recursion limit exceeded"), "{e}");
    }
    // the same bodies through the log reader and the provider parser
    let log = no_panic("deep log", || {
        events::read(format!("{{}}\n{deep_array}\n{deep_object}\n{{}}\n").as_bytes())
    });
    assert_eq!(log.records.len(), 2);
    assert_eq!(log.skipped.len(), 2);
    assert!(
        log.skipped[0].reason.contains("recursion limit"),
        "{:?}",
        log.skipped
    );
    for status in [200, 500] {
        let e = failure("deep provider", status, &deep_object);
        assert_eq!(e.status_code, Some(status));
    }
}

#[test]
fn every_file_of_the_corpus_is_in_a_table() {
    let mut named: BTreeSet<&str> = rag_table().iter().map(|t| t.file).collect();
    named.extend(log_table().iter().map(|t| t.file));
    named.extend(provider_table().iter().map(|t| t.file));
    named.extend(["README.md", REPORT]);
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .expect("bad/ exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    let on_disk: BTreeSet<&str> = on_disk.iter().map(String::as_str).collect();
    assert_eq!(
        on_disk, named,
        "a file in tests/data/bad has no expectation, or one is missing"
    );
    assert!(on_disk.len() >= 40);
}

// ---------------------------------------------------------------- event logs

const REPORT: &str = "report_for_logs.json";

fn report() -> Value {
    serde_json::from_slice(&load(REPORT)).expect("the report fixture is JSON")
}

/// A log file: format, records read, skipped (position, part of the reason),
/// whether the tail was cut, and the checks that must fail against `REPORT`
/// (empty: it reconciles).
struct LogBad {
    file: &'static str,
    format: LogFormat,
    records: usize,
    skipped: Vec<(usize, &'static str)>,
    truncated: bool,
    failing: Vec<&'static str>,
}

const SUMMARY_MISSING: &[&str] = &[
    "summary.metrics.cases_total",
    "summary.metrics.passed_cases",
    "summary.metrics.accurate_cases",
    "summary.metrics.cited_cases",
    "summary.metrics.failed_calls",
];

fn nothing_read() -> Vec<&'static str> {
    let mut all = vec!["run_id"];
    all.extend(SUMMARY_MISSING);
    all.extend(["case records", "cases missing or with another verdict"]);
    all
}

fn log_table() -> Vec<LogBad> {
    use LogFormat::{JsonSeq, Jsonl};
    let log = |file,
               format,
               records,
               skipped: &[(usize, &'static str)],
               truncated,
               failing: &[&'static str]| LogBad {
        file,
        format,
        records,
        skipped: skipped.to_vec(),
        truncated,
        failing: failing.to_vec(),
    };
    let not_object = "expected a JSON object, found";
    vec![
        log("log_good.jsonl", Jsonl, 4, &[], false, &[]),
        log(
            "log_jsonl_cut_tail.jsonl",
            Jsonl,
            3,
            &[],
            true,
            SUMMARY_MISSING,
        ),
        log(
            "log_missing_summary.jsonl",
            Jsonl,
            3,
            &[],
            false,
            SUMMARY_MISSING,
        ),
        log(
            "log_summary_disagrees.jsonl",
            Jsonl,
            4,
            &[],
            false,
            &[
                "summary.metrics.passed_cases",
                "cases missing or with another verdict",
            ],
        ),
        log(
            "log_broken_middle.jsonl",
            Jsonl,
            4,
            &[
                (2, "not valid JSON at column 2: expected ident"),
                (4, "expected a JSON object, found an array"),
                (7, "not valid JSON at column 23: key must be a string"),
            ],
            false,
            &[],
        ),
        log(
            "log_garbage_last_line.jsonl",
            Jsonl,
            4,
            &[(5, "not valid JSON at column 1")],
            false,
            &[],
        ),
        LogBad {
            failing: nothing_read(),
            ..log(
                "log_html_page.jsonl",
                Jsonl,
                0,
                &[
                    (1, "not valid JSON at column 1"),
                    (2, "not valid JSON at column 1"),
                ],
                false,
                &[],
            )
        },
        LogBad {
            failing: nothing_read(),
            ..log("log_empty.jsonl", Jsonl, 0, &[], false, &[])
        },
        log(
            "log_invalid_utf8.jsonl",
            Jsonl,
            4,
            &[(2, "not valid UTF-8")],
            false,
            &[],
        ),
        log("log_crlf.jsonl", Jsonl, 4, &[], false, &[]),
        log(
            "log_nul_bytes.jsonl",
            Jsonl,
            4,
            &[(2, "not valid JSON at column 1: expected value")],
            false,
            &[],
        ),
        log("seq_good.json-seq", JsonSeq, 4, &[], false, &[]),
        log(
            "seq_cut_mid_record.json-seq",
            JsonSeq,
            3,
            &[],
            true,
            SUMMARY_MISSING,
        ),
        log(
            "seq_cut_in_rs.json-seq",
            JsonSeq,
            3,
            &[],
            true,
            SUMMARY_MISSING,
        ),
        LogBad {
            failing: nothing_read(),
            ..log("seq_only_rs.json-seq", JsonSeq, 0, &[], true, &[])
        },
        log("seq_rs_without_lf.json-seq", JsonSeq, 4, &[], false, &[]),
        log(
            "seq_records_are_arrays.json-seq",
            JsonSeq,
            4,
            &[
                (1, not_object),
                (3, not_object),
                (5, not_object),
                (7, not_object),
            ],
            false,
            &[],
        ),
        log("seq_with_bom.json-seq", JsonSeq, 4, &[], false, &[]),
        log("seq_pretty_printed.json-seq", JsonSeq, 4, &[], false, &[]),
        log(
            "seq_broken_record_multiline.json-seq",
            JsonSeq,
            4,
            &[(
                2,
                "not valid JSON at line 3 column 14 of the record: expected value",
            )],
            false,
            &[],
        ),
    ]
}

fn read_checked(what: &str, bytes: &[u8]) -> ReadLog {
    let log = no_panic(what, || events::read(bytes));
    for s in &log.skipped {
        assert!(s.position >= 1, "{what}: position {}", s.position);
        assert!(
            SAYS.iter().any(|w| s.reason.contains(w)),
            "{what}: unclear: {s:?}"
        );
    }
    for odd_report in [
        Value::Null,
        json!([1, 2]),
        json!({"metrics": "x", "scores": {}}),
    ] {
        // must not panic; an empty log can "reconcile" with a report that holds nothing
        no_panic(what, || events::reconcile(&odd_report, &log));
    }
    log
}

fn check_log(t: &LogBad, report: &Value) {
    let log = read_checked(t.file, &load(t.file));
    assert_eq!(log.format, t.format, "{}", t.file);
    assert_eq!(
        log.records.len(),
        t.records,
        "{}: {:?}",
        t.file,
        log.skipped
    );
    assert_eq!(log.truncated_tail, t.truncated, "{}", t.file);
    assert_eq!(
        log.skipped.len(),
        t.skipped.len(),
        "{}: {:?}",
        t.file,
        log.skipped
    );
    for (s, (position, says)) in log.skipped.iter().zip(&t.skipped) {
        assert_eq!(s.position, *position, "{}: {s:?}", t.file);
        assert!(
            s.reason.contains(says),
            "{}: {s:?}\n  expected: {says}",
            t.file
        );
    }
    let rec = no_panic(t.file, || events::reconcile(report, &log));
    let failing: Vec<&Check> = rec.checks.iter().filter(|c| !c.ok).collect();
    assert_eq!(rec.ok, t.failing.is_empty(), "{}: {failing:#?}", t.file);
    assert_eq!(failing.len(), t.failing.len(), "{}: {failing:#?}", t.file);
    for (c, name) in failing.iter().zip(&t.failing) {
        assert!(
            c.name.starts_with(name),
            "{}: {c:?}\n  expected check: {name}",
            t.file
        );
        assert_ne!(c.report, c.log);
    }
    assert_eq!(
        rec.notes.iter().any(|n| n.contains("cut off")),
        t.truncated,
        "{}",
        t.file
    );
    for s in &log.skipped {
        let note = format!("record {} skipped: {}", s.position, s.reason);
        assert!(rec.notes.contains(&note), "{}: {:?}", t.file, rec.notes);
    }
}

use evalpage_core::events::Check;

#[test]
fn every_bad_log_keeps_its_readable_records_and_reconciles_or_says_why_not() {
    let report = report();
    for t in log_table() {
        check_log(&t, &report);
    }
}

#[test]
fn summary_that_disagrees_names_both_values() {
    let log = events::read(&load("log_summary_disagrees.jsonl"));
    let rec = events::reconcile(&report(), &log);
    let passed = rec
        .checks
        .iter()
        .find(|c| c.name.starts_with("summary.metrics.passed_cases"))
        .expect("check");
    assert_eq!(
        (passed.report.as_str(), passed.log.as_str(), passed.ok),
        ("1", "2", false)
    );
    let verdicts = rec
        .checks
        .iter()
        .find(|c| c.name.starts_with("cases missing"))
        .expect("check");
    assert_eq!(verdicts.log, "b");
}

#[test]
fn a_10_mb_log_line_between_records_is_kept_or_skipped_by_position() {
    let big = "x".repeat(10 * 1024 * 1024);
    let input = format!(
        "{{\"record_type\":\"meta\"}}\n{{\"record_type\":\"case\",\"answer\":\"{big}\"}}\n{big}\n{{\"record_type\":\"summary\"}}\n"
    );
    let log = read_checked("big log", input.as_bytes());
    assert_eq!(log.records.len(), 3);
    assert_eq!(log.skipped.len(), 1);
    assert_eq!(log.skipped[0].position, 3);
    assert!(log.skipped[0].reason.len() < 200);
    let seq = format!("\u{1e}{{\"a\":1}}\n\u{1e}{{\"answer\":\"{big}");
    let log = read_checked("big cut seq", seq.as_bytes());
    assert_eq!((log.records.len(), log.truncated_tail), (1, true));
}

// ---------------------------------------------------------------- provider

const URL: &str = "http://127.0.0.1:1/v1/chat/completions?api-key=SECRET";

enum Expect {
    Answer(&'static str),
    Failed(ErrorKind, &'static str),
}

struct ProviderBad {
    file: &'static str,
    status: u16,
    expect: Expect,
}

fn provider_table() -> Vec<ProviderBad> {
    use ErrorKind::{Http, InvalidResponse as Invalid};
    let p = |file, status, expect| ProviderBad {
        file,
        status,
        expect,
    };
    let f = Expect::Failed;
    let not_chat = "missing field choices[0]: not a chat completion answer";
    vec![
        p(
            "provider_html_502.html",
            502,
            f(Http, "HTTP 502: server error"),
        ),
        p(
            "provider_html_200.html",
            200,
            f(Invalid, "HTTP 200 answer is an HTML or XML page, not JSON"),
        ),
        p(
            "provider_not_json.txt",
            200,
            f(Invalid, "HTTP 200 answer is not JSON (expected value"),
        ),
        p(
            "provider_empty.txt",
            200,
            f(Invalid, "HTTP 200 answer is empty"),
        ),
        p(
            "provider_truncated.json",
            200,
            f(Invalid, "not JSON (EOF while parsing a string"),
        ),
        p(
            "provider_choices_string.json",
            200,
            f(Invalid, "`choices` is a string, expected an array"),
        ),
        p(
            "provider_choices_empty.json",
            200,
            f(Invalid, "`choices` is empty"),
        ),
        p(
            "provider_choice_number.json",
            200,
            f(Invalid, "choices[0] is a number, expected an object"),
        ),
        p(
            "provider_message_string.json",
            200,
            f(
                Invalid,
                "choices[0].message is a string, expected an object",
            ),
        ),
        p(
            "provider_content_number.json",
            200,
            f(
                Invalid,
                "choices[0].message.content is a number, expected a string",
            ),
        ),
        p(
            "provider_content_null_tool_calls.json",
            200,
            f(
                Invalid,
                "choices[0].message.tool_calls[0].function: missing (a tool call is {id, type: \"function\", function: {name, arguments}})",
            ),
        ),
        p(
            "provider_tool_calls_not_a_list.json",
            200,
            f(
                Invalid,
                "choices[0].message.tool_calls: expected a list of calls, found an object",
            ),
        ),
        p(
            "provider_answer_is_array.json",
            200,
            f(
                Invalid,
                "the answer is an array, expected a chat completion object",
            ),
        ),
        p(
            "provider_error_object_200.json",
            200,
            f(
                Invalid,
                "error instead of a chat completion: model 'llama3' not found",
            ),
        ),
        p(
            "provider_error_object_429.json",
            429,
            f(
                Http,
                "HTTP 429: rate limited (Rate limit reached for requests)",
            ),
        ),
        p(
            "provider_sse_stream.txt",
            200,
            f(Invalid, "server-sent event stream, not JSON"),
        ),
        p(
            "provider_legacy_completion.json",
            200,
            f(Invalid, "legacy /completions answer"),
        ),
        p(
            "provider_unicode_answer.json",
            200,
            Expect::Answer("e\u{301} \u{202e}مرحبا 👩\u{200d}👩\u{200d}👧 ＲＡＧ \0 end"),
        ),
    ]
    .into_iter()
    .inspect(|t| assert!(!matches!(t.expect, Expect::Failed(_, m) if m == not_chat)))
    .collect()
}

fn failure(what: &str, status: u16, body: &str) -> CallError {
    match no_panic(what, || parse_response(URL, status, Some("3"), body)) {
        CallOutcome::Failed(e) => {
            check_error(what, status, &e);
            e
        }
        CallOutcome::Answer(a) => panic!(
            "{what}: expected a failure, got an answer of {} bytes",
            a.text.len()
        ),
    }
}

/// What every failed call must carry: status, URL without its query, a short snippet.
fn check_error(what: &str, status: u16, e: &CallError) {
    assert_eq!(e.status_code, Some(status), "{what}");
    assert_eq!(
        e.url.as_deref(),
        Some("http://127.0.0.1:1/v1/chat/completions"),
        "{what}"
    );
    assert!(!e.message.contains("SECRET"), "{what}");
    assert!(e.message.chars().count() < 400, "{what}: message too long");
    let snippet = e.response_snippet.as_deref().unwrap_or("");
    assert!(snippet.chars().count() <= 301, "{what}: snippet too long");
    let retry = if e.kind == ErrorKind::Http {
        Some(3000)
    } else {
        None
    };
    assert_eq!(e.retry_after_ms, retry, "{what}");
}

#[test]
fn every_bad_provider_answer_fails_with_a_message_that_says_what_was_expected() {
    for t in provider_table() {
        let body = String::from_utf8(load(t.file)).expect("provider bodies are UTF-8");
        match t.expect {
            Expect::Answer(text) => {
                let got = no_panic(t.file, || parse_response(URL, t.status, None, &body));
                assert_eq!(got, CallOutcome::text(text), "{}", t.file);
            }
            Expect::Failed(kind, says) => {
                let e = failure(t.file, t.status, &body);
                assert_eq!(e.kind, kind, "{}: {}", t.file, e.message);
                assert!(
                    e.message.contains(says),
                    "{}: {}\n  expected: {says}",
                    t.file,
                    e.message
                );
            }
        }
    }
}

#[test]
fn every_provider_body_under_an_error_status_is_an_http_failure() {
    for t in provider_table() {
        let body = String::from_utf8(load(t.file)).expect("UTF-8");
        for status in [0, 99, 301, 400, 404, 418, 500, 599, 600, u16::MAX] {
            let e = failure(t.file, status, &body);
            assert_eq!(e.kind, ErrorKind::Http, "{}", t.file);
            assert!(
                e.message.starts_with(&format!("HTTP {status}: ")),
                "{}",
                e.message
            );
        }
    }
}

#[test]
fn a_10_mb_body_is_parsed_or_refused_with_a_short_snippet() {
    let big = "准".repeat(10 * 1024 * 1024 / 3);
    let ok = json!({"choices": [{"message": {"content": big}}]}).to_string();
    let answer = no_panic("big answer", || parse_response(URL, 200, None, &ok));
    assert_eq!(answer, CallOutcome::text(big.clone()));
    let html = format!("<html><body>{big}</body></html>");
    for status in [200, 502] {
        let e = failure("big html", status, &html);
        assert_eq!(
            e.response_snippet.as_deref().map(|s| s.chars().count()),
            Some(301)
        );
    }
    let mut half = ok.len() / 2;
    while !ok.is_char_boundary(half) {
        half -= 1;
    }
    let cut = &ok[..half];
    let e = failure("big cut json", 200, cut);
    assert!(e.message.contains("EOF"), "{}", e.message);
}
