//! HTTP/1.1 framing for the mock server as plain functions: parsing a request
//! head (with `httparse`), deciding the body length and whether the connection
//! stays open, and writing a response. No sockets here, so every rule is
//! unit-tested. Header values are kept only to answer those questions; nothing
//! here prints them (the `Debug` of [`Head`] shows header names only).

use super::routes::{self, Reply};
use std::fmt;

/// Largest request head (request line and header lines), in bytes.
pub const HEAD_LIMIT: usize = 64 * 1024;

/// Most header lines in one request head.
pub const MAX_HEADERS: usize = 100;

/// Largest request body accepted, in bytes; a larger `Content-Length` gets 413.
pub const BODY_LIMIT: u64 = 8 * 1024 * 1024;

/// CORS headers carried by every response, so a browser page can call the mock.
pub const CORS: &[(&str, &str)] = &[
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Allow-Headers",
        "authorization, content-type",
    ),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    // Lets a page read Retry-After on a cross-origin 429.
    ("Access-Control-Expose-Headers", "Retry-After"),
];

/// The interim answer to `Expect: 100-continue`.
pub const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// A request head: request line and headers (names lower-cased).
#[derive(Clone, PartialEq, Eq)]
pub struct Head {
    /// Request method, e.g. `POST`.
    pub method: String,
    /// Request target as sent (origin-form, absolute-form or `*`).
    pub target: String,
    /// Minor HTTP version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub minor: u8,
    headers: Vec<(String, Vec<u8>)>,
}

impl fmt::Debug for Head {
    /// Header names only: values may carry an API key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Head")
            .field("method", &self.method)
            .field("target", &self.target)
            .field("minor", &self.minor)
            .field("header_names", &names)
            .finish()
    }
}

/// A request refused before routing: answered with an OpenAI-style error, then
/// the connection is closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reject {
    /// HTTP status of the answer.
    pub status: u16,
    /// What was wrong (never contains header values).
    pub message: String,
}

impl Reject {
    fn new(status: u16, message: impl Into<String>) -> Reject {
        Reject {
            status,
            message: message.into(),
        }
    }

    /// The answer to send.
    pub fn reply(&self) -> Reply {
        routes::error(self.status, &self.message, "invalid_request_error")
    }
}

/// What [`parse_head`] made of the bytes so far.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    /// The head is not complete yet: read more.
    Partial,
    /// A complete head, and how many bytes of the buffer it took.
    Complete(Head, usize),
}

/// Parses the request head at the start of `buf`.
pub fn parse_head(buf: &[u8]) -> Result<Parsed, Reject> {
    let too_large = || {
        Reject::new(
            431,
            format!("request head is over the mock server's limit of {HEAD_LIMIT} bytes"),
        )
    };
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let used = match request.parse(buf) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) if buf.len() >= HEAD_LIMIT => return Err(too_large()),
        Ok(httparse::Status::Partial) => return Ok(Parsed::Partial),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Reject::new(
                431,
                format!("request has more than {MAX_HEADERS} header lines"),
            ))
        }
        Err(httparse::Error::Version) if names_http_version(buf) => {
            return Err(Reject::new(505, "only HTTP/1.0 and HTTP/1.1 are served"))
        }
        Err(e) => return Err(Reject::new(400, format!("malformed request head: {e}"))),
    };
    if used > HEAD_LIMIT {
        return Err(too_large());
    }
    let incomplete = || Reject::new(400, "malformed request head: incomplete request line");
    let head = Head {
        method: request.method.ok_or_else(incomplete)?.to_string(),
        target: request.path.ok_or_else(incomplete)?.to_string(),
        minor: request.version.ok_or_else(incomplete)?,
        headers: request
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
            .collect(),
    };
    Ok(Parsed::Complete(head, used))
}

impl Head {
    /// Whether a header with this (lower-case) name is present.
    pub fn has(&self, name: &str) -> bool {
        self.headers.iter().any(|(k, _)| k == name)
    }

    /// The lower-cased, comma-separated tokens of every header with this name.
    fn tokens(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(|b| *b == b','))
            .map(|t| String::from_utf8_lossy(t.trim_ascii()).to_ascii_lowercase())
            .filter(|t| !t.is_empty())
            .collect()
    }

    /// Whether the connection stays open after this request: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    pub fn keep_alive(&self) -> bool {
        let tokens = self.tokens("connection");
        if tokens.iter().any(|t| t == "close") {
            false
        } else if self.minor == 0 {
            tokens.iter().any(|t| t == "keep-alive")
        } else {
            true
        }
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    pub fn expects_continue(&self) -> bool {
        self.minor >= 1 && self.tokens("expect").iter().any(|t| t == "100-continue")
    }

    /// The body length from `Content-Length` (0 without one). Transfer codings
    /// (chunked) are refused with 411, a bad or conflicting length with 400, a
    /// body over [`BODY_LIMIT`] with 413.
    pub fn body_length(&self) -> Result<u64, Reject> {
        if self.has("transfer-encoding") {
            return Err(Reject::new(
                411,
                "chunked (Transfer-Encoding) request bodies are not supported by the mock \
                 server; send the body with a Content-Length header",
            ));
        }
        let mut length = None;
        for (_, value) in self.headers.iter().filter(|(k, _)| k == "content-length") {
            for part in value.split(|b| *b == b',') {
                let n = digits(part.trim_ascii())
                    .ok_or_else(|| Reject::new(400, "invalid Content-Length header"))?;
                if length.is_some_and(|l| l != n) {
                    return Err(Reject::new(400, "conflicting Content-Length headers"));
                }
                length = Some(n);
            }
        }
        let n = length.unwrap_or(0);
        if n > BODY_LIMIT {
            return Err(Reject::new(
                413,
                format!(
                    "request body of {n} bytes is over the mock server's limit of \
                     {BODY_LIMIT} bytes"
                ),
            ));
        }
        Ok(n)
    }

    /// The target in origin-form (`/path?query`), for routing.
    pub fn origin_target(&self) -> &str {
        origin_form(&self.target)
    }

    /// The path alone, without query or fragment: what a log line may show.
    pub fn log_path(&self) -> &str {
        self.origin_target()
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
    }
}

/// Whether the request line ends in an `HTTP/...` version (one httparse does
/// not serve, when it failed on the version), rather than in something else.
fn names_http_version(buf: &[u8]) -> bool {
    buf.split(|b| *b == b'\n')
        .find(|line| !line.trim_ascii().is_empty())
        .and_then(|line| line.trim_ascii().rsplit(|b| *b == b' ').next())
        .is_some_and(|version| version.starts_with(b"HTTP/"))
}

/// A decimal number of ASCII digits only (no sign, no blanks), if it fits a u64.
fn digits(text: &[u8]) -> Option<u64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// `http://host:port/path?q` -> `/path?q` (scheme and authority, which may hold
/// credentials, dropped); any other form is returned as is.
pub fn origin_form(target: &str) -> &str {
    let Some((scheme, rest)) = target.split_once("://") else {
        return target;
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return target;
    }
    match rest.find(['/', '?', '#']) {
        Some(i) => &rest[i..],
        None => "/",
    }
}

/// The reason phrase of a status code.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => match status / 100 {
            1 => "Informational",
            2 => "Success",
            3 => "Redirection",
            4 => "Client Error",
            _ => "Server Error",
        },
    }
}

/// Statuses whose responses carry no body and no `Content-Length` (RFC 9110).
fn bodiless(status: u16) -> bool {
    matches!(status, 100..=199 | 204 | 304)
}

/// The response bytes for `reply`: status line, CORS headers, content type and
/// length, the reply's own headers, then the body (left out for `HEAD`).
/// `keep_alive` false adds `Connection: close`; an HTTP/1.0 client kept alive
/// gets `Connection: keep-alive`.
pub fn response_bytes(reply: &Reply, head_request: bool, keep_alive: bool, minor: u8) -> Vec<u8> {
    let status = reply.status;
    let mut text = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    let no_body = bodiless(status);
    let mut headers: Vec<(&str, &str)> = CORS.to_vec();
    if !no_body && !reply.body.is_empty() {
        headers.push(("Content-Type", "application/json"));
    }
    let length = reply.body.len().to_string();
    if !no_body {
        headers.push(("Content-Length", &length));
    }
    headers.extend(reply.headers.iter().map(|(k, v)| (*k, v.as_str())));
    if !keep_alive {
        headers.push(("Connection", "close"));
    } else if minor == 0 {
        headers.push(("Connection", "keep-alive"));
    }
    for (name, value) in headers {
        // A value with a line break would split the head; none is expected.
        if !value.contains(['\r', '\n']) {
            text.push_str(name);
            text.push_str(": ");
            text.push_str(value);
            text.push_str("\r\n");
        }
    }
    text.push_str("\r\n");
    let mut bytes = text.into_bytes();
    if !head_request && !no_body {
        bytes.extend_from_slice(reply.body.as_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::time::Duration;

    fn head(text: &str) -> Head {
        match parse_head(text.as_bytes()) {
            Ok(Parsed::Complete(h, used)) => {
                assert_eq!(used, text.len(), "{text:?}");
                h
            }
            other => panic!("not a complete head: {other:?}"),
        }
    }

    fn reject(text: &[u8]) -> Reject {
        match parse_head(text) {
            Err(r) => r,
            other => panic!("not rejected: {other:?}"),
        }
    }

    #[test]
    fn parses_a_head_and_reports_what_it_used() {
        let text =
            "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}";
        let Ok(Parsed::Complete(h, used)) = parse_head(text.as_bytes()) else {
            panic!("complete head expected");
        };
        assert_eq!(&text[used..], "{}");
        assert_eq!(
            (h.method.as_str(), h.target.as_str(), h.minor),
            ("POST", "/v1/chat/completions?x=1", 1)
        );
        assert_eq!(h.log_path(), "/v1/chat/completions");
        assert_eq!(h.body_length(), Ok(2));
        assert!(h.has("host") && !h.has("authorization"));
    }

    #[test]
    fn partial_heads_ask_for_more_and_leading_blank_lines_are_skipped() {
        for part in [
            "",
            "GE",
            "GET / HTTP/1.1\r\nHost: a\r\n",
            "GET / HTTP/1.1\r\n\r",
        ] {
            assert_eq!(parse_head(part.as_bytes()), Ok(Parsed::Partial), "{part:?}");
        }
        assert_eq!(head("\r\nGET /v1/models HTTP/1.1\r\n\r\n").method, "GET");
    }

    #[test]
    fn malformed_heads_are_400_and_other_versions_505() {
        for bad in [
            &b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"[..],
            b"GET  / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
            b"\x00\x01\x02 / HTTP/1.1\r\n\r\n",
            b"GET / FTP/1.1\r\n\r\n",
        ] {
            let r = reject(bad);
            assert_eq!(r.status, 400, "{bad:?}");
            assert!(r.message.starts_with("malformed request head"), "{r:?}");
        }
        assert_eq!(reject(b"GET / HTTP/2.0\r\n\r\n").status, 505);
        assert_eq!(reject(b"\r\nGET / HTTP/1.2\r\n\r\n").status, 505);
        assert_eq!(reject(b"NOT A REQUEST\r\n\r\n").status, 400);
    }

    #[test]
    fn the_head_section_is_limited() {
        let mut big = b"GET / HTTP/1.1\r\nX-Filler: ".to_vec();
        big.resize(HEAD_LIMIT + 10, b'a');
        assert_eq!(reject(&big).status, 431);
        // Complete, but over the limit.
        big.extend_from_slice(b"\r\n\r\n");
        assert_eq!(reject(&big).status, 431);
        // Just under the limit is fine.
        let mut ok = b"GET / HTTP/1.1\r\nX-Filler: ".to_vec();
        ok.resize(HEAD_LIMIT - 4, b'a');
        ok.extend_from_slice(b"\r\n\r\n");
        assert!(matches!(parse_head(&ok), Ok(Parsed::Complete(_, n)) if n == HEAD_LIMIT));
        let many: String = (0..=MAX_HEADERS).map(|i| format!("X-{i}: v\r\n")).collect();
        let r = reject(format!("GET / HTTP/1.1\r\n{many}\r\n").as_bytes());
        assert_eq!(r.status, 431);
    }

    #[test]
    fn keep_alive_follows_http_1_1_rules() {
        let cases = [
            ("GET / HTTP/1.1\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false),
            (
                "GET / HTTP/1.1\r\nConnection: Keep-Alive, CLOSE\r\n\r\n",
                false,
            ),
            (
                "GET / HTTP/1.1\r\nConnection: upgrade\r\nConnection: close\r\n\r\n",
                false,
            ),
            ("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            (
                "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n",
                false,
            ),
        ];
        for (text, keep) in cases {
            assert_eq!(head(text).keep_alive(), keep, "{text:?}");
        }
    }

    #[test]
    fn body_length_rules() {
        let len = |headers: &str| head(&format!("POST / HTTP/1.1\r\n{headers}\r\n")).body_length();
        assert_eq!(len(""), Ok(0));
        assert_eq!(len("Content-Length: 0\r\n"), Ok(0));
        assert_eq!(len("content-length:  17 \r\n"), Ok(17));
        assert_eq!(len("Content-Length: 5\r\nContent-Length: 5\r\n"), Ok(5));
        assert_eq!(len("Content-Length: 5, 5\r\n"), Ok(5));
        assert_eq!(
            len(&format!("Content-Length: {BODY_LIMIT}\r\n")),
            Ok(BODY_LIMIT)
        );
        for bad in [
            "Content-Length: -1\r\n",
            "Content-Length: +5\r\n",
            "Content-Length: 0x10\r\n",
            "Content-Length: \r\n",
            "Content-Length: 1 2\r\n",
            "Content-Length: 99999999999999999999999\r\n",
            "Content-Length: 5\r\nContent-Length: 6\r\n",
            "Content-Length: 5, 6\r\n",
        ] {
            assert_eq!(len(bad).map_err(|r| r.status), Err(400), "{bad:?}");
        }
        let over = len(&format!("Content-Length: {}\r\n", BODY_LIMIT + 1));
        assert_eq!(over.map_err(|r| r.status), Err(413));
        for chunked in [
            "Transfer-Encoding: chunked\r\n",
            "Transfer-Encoding: gzip, chunked\r\nContent-Length: 3\r\n",
        ] {
            let r = len(chunked).expect_err("refused");
            assert_eq!(r.status, 411, "{chunked:?}");
            assert!(r.message.contains("Content-Length"));
            let v: Value = serde_json::from_str(&r.reply().body).expect("json");
            assert_eq!(v["error"]["type"], "invalid_request_error");
        }
    }

    #[test]
    fn expect_continue_only_on_http_1_1() {
        assert!(head("POST / HTTP/1.1\r\nExpect: 100-Continue\r\n\r\n").expects_continue());
        assert!(!head("POST / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n").expects_continue());
        assert!(!head("POST / HTTP/1.1\r\n\r\n").expects_continue());
    }

    #[test]
    fn absolute_targets_lose_scheme_and_authority() {
        assert_eq!(origin_form("/v1/models?a=b"), "/v1/models?a=b");
        assert_eq!(
            origin_form("http://user:secret@127.0.0.1:8091/v1/models?k=v"),
            "/v1/models?k=v"
        );
        assert_eq!(origin_form("HTTPS://h"), "/");
        assert_eq!(origin_form("http://h?q"), "?q");
        assert_eq!(origin_form("*"), "*");
        let h = head("GET http://u:p@h/v1/models?key=x HTTP/1.1\r\n\r\n");
        assert_eq!(h.log_path(), "/v1/models");
        assert_eq!(
            routes::route(&h.method, h.origin_target()),
            routes::Route::Models
        );
    }

    #[test]
    fn debug_shows_header_names_not_values() {
        let h = head("GET / HTTP/1.1\r\nAuthorization: Bearer sk-SECRET\r\n\r\n");
        let shown = format!("{h:?}");
        assert!(shown.contains("authorization") && !shown.contains("sk-SECRET"));
    }

    fn text_of(bytes: &[u8]) -> String {
        String::from_utf8(bytes.to_vec()).expect("utf-8")
    }

    #[test]
    fn responses_carry_status_cors_type_length_and_extra_headers() {
        let mut reply = routes::error(429, "slow down", "rate_limit_error");
        reply.headers.push(("Retry-After", "1".to_string()));
        let text = text_of(&response_bytes(&reply, false, true, 1));
        let (head, body) = text.split_once("\r\n\r\n").expect("head end");
        let lines: Vec<&str> = head.split("\r\n").collect();
        assert_eq!(lines[0], "HTTP/1.1 429 Too Many Requests");
        for (k, v) in CORS {
            assert!(lines.contains(&format!("{k}: {v}").as_str()), "{k}");
        }
        assert!(lines.contains(&"Content-Type: application/json"));
        assert!(lines.contains(&format!("Content-Length: {}", body.len()).as_str()));
        assert!(lines.contains(&"Retry-After: 1"));
        assert!(!head.contains("Connection:"));
        assert_eq!(body, reply.body);
    }

    #[test]
    fn connection_header_head_requests_and_bodiless_statuses() {
        let ok = routes::respond(
            routes::Route::Models,
            super::super::faults::Fault::None,
            "",
            Duration::ZERO,
            &super::super::answers::Answers::default(),
        );
        let close = text_of(&response_bytes(&ok, false, false, 1));
        assert!(close.contains("\r\nConnection: close\r\n"));
        let old = text_of(&response_bytes(&ok, false, true, 0));
        assert!(old.contains("\r\nConnection: keep-alive\r\n"));
        let for_head = text_of(&response_bytes(&ok, true, true, 1));
        assert!(for_head.ends_with("\r\n\r\n"));
        assert!(for_head.contains(&format!("Content-Length: {}\r\n", ok.body.len())));
        let preflight = routes::respond(
            routes::Route::Preflight,
            super::super::faults::Fault::None,
            "",
            Duration::ZERO,
            &super::super::answers::Answers::default(),
        );
        let text = text_of(&response_bytes(&preflight, false, true, 1));
        assert!(text.starts_with("HTTP/1.1 204 No Content\r\n"));
        assert!(text.contains("Access-Control-Expose-Headers: Retry-After\r\n"));
        assert!(!text.contains("Content-Length") && !text.contains("Content-Type"));
        assert!(text.ends_with("\r\n\r\n"));
    }

    #[test]
    fn header_values_with_line_breaks_are_dropped() {
        let mut reply = routes::error(500, "x", "server_error");
        reply
            .headers
            .push(("Retry-After", "1\r\nX-Evil: 1".to_string()));
        let text = text_of(&response_bytes(&reply, false, true, 1));
        assert!(!text.contains("X-Evil") && !text.contains("\r\nRetry-After:"));
    }

    #[test]
    fn reason_phrases() {
        for (status, phrase) in [
            (200, "OK"),
            (204, "No Content"),
            (400, "Bad Request"),
            (404, "Not Found"),
            (405, "Method Not Allowed"),
            (411, "Length Required"),
            (413, "Content Too Large"),
            (429, "Too Many Requests"),
            (431, "Request Header Fields Too Large"),
            (500, "Internal Server Error"),
            (505, "HTTP Version Not Supported"),
            (418, "Client Error"),
        ] {
            assert_eq!(reason(status), phrase);
        }
    }
}
