//! `openai::parse_response` with a status from the first two bytes and an
//! arbitrary body (lossy UTF-8, as a transport would decode it).
#![no_main]

use evalpage_core::parse_response;
use evalpage_core::{CallOutcome, ErrorKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (status, body) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]), rest),
        _ => (200, data),
    };
    // keep statuses below 1000 as they are, fold most others into 100..600
    let status = if status < 1000 || status & 0x8000 != 0 {
        status
    } else {
        100 + status % 500
    };
    let body = String::from_utf8_lossy(body);
    let retry = data.len().is_multiple_of(3).then_some("2.5");
    let url = "http://127.0.0.1:1/v1/chat/completions?key=SECRET#x";
    match parse_response(url, status, retry, &body) {
        CallOutcome::Answer(a) => {
            assert!((200..300).contains(&status));
            // reasoning is either absent or says something; the answer never
            // keeps a leading think block
            assert_ne!(a.reasoning.as_deref(), Some(""));
            assert!(!a.text.trim_start().starts_with("<think>"));
        }
        CallOutcome::Failed(e) => {
            assert_eq!(e.status_code, Some(status));
            let http = !(200..300).contains(&status);
            assert_eq!(e.kind == ErrorKind::Http, http);
            assert_eq!(
                e.kind,
                if http {
                    ErrorKind::Http
                } else {
                    ErrorKind::InvalidResponse
                }
            );
            assert_eq!(
                e.url.as_deref(),
                Some("http://127.0.0.1:1/v1/chat/completions")
            );
            assert!(e.response_snippet.map_or(0, |s| s.chars().count()) <= 301);
            assert!(!e.message.is_empty() && !e.message.contains("SECRET"));
            if !http {
                assert_eq!(e.retry_after_ms, None);
            }
        }
    }
});
