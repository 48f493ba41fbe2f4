//! `Registry::parse` (the model registry JSON) on arbitrary text: a registry or
//! errors that name the file, never a panic; accepted entries have unique,
//! non-empty names.
#![no_main]

use evalpage_core::task::Registry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Registry::parse("fuzz.json", &text) {
        Ok(r) => {
            for (i, m) in r.models.iter().enumerate() {
                assert!(!m.name.trim().is_empty());
                assert!(r.models[..i].iter().all(|o| o.name != m.name));
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                assert!(e.to_string().starts_with("fuzz.json"), "{e}");
            }
        }
    }
});
