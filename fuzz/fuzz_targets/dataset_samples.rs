//! The spec 004 sample reader, the spec 003 TestSampleRecord reader and the
//! metadata.json reader on arbitrary bytes: no panic, every kept record and every
//! error on a line inside the input, at most one of them per line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lines = data.split(|b| *b == b'\n').count().max(data.split(|b| *b == b'\r').count());
    let s = evalpage_core::parse_samples("fuzz.jsonl", data);
    assert!(s.samples.len() + s.errors.len() <= lines);
    assert!(s.samples.iter().all(|x| x.line >= 1 && x.line <= lines));
    assert!(s.errors.iter().all(|e| e.line >= 1 && e.line <= lines && e.file == "fuzz.jsonl"));
    let t = evalpage_core::testing::parse_test_samples("fuzz.jsonl", data);
    assert!(t.records.len() + t.errors.len() <= lines);
    assert!(t.errors.iter().all(|e| e.line >= 1 && e.line <= lines));
    let _ = evalpage_core::report::parse_metadata("metadata.json", data);
});
