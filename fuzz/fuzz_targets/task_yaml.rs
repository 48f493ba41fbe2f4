//! `Task::parse` (spec 004's task YAML) on arbitrary text: it must return a task
//! or located errors, never panic, and every error must name the file.
#![no_main]

use evalpage_core::task::Task;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(errors) = Task::parse("fuzz.yaml", &text) {
        assert!(!errors.0.is_empty(), "an error result carries at least one error");
        for e in &errors.0 {
            assert!(e.to_string().starts_with("fuzz.yaml"), "{e}");
        }
    }
});
