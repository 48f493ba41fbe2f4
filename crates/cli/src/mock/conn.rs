//! One client connection of the mock server: read a request head and its
//! `Content-Length` body, draw the fault, answer, and keep the connection open
//! per HTTP/1.1 rules. Generic over the byte stream, so it is tested on
//! in-memory bytes; `mod.rs` runs it on a `TcpStream`, one thread per
//! connection, so a slow or hanging answer blocks only its own connection.

use super::answers::Answers;
use super::faults::{Fault, FaultPlan};
use super::http::{self, Head, Parsed, Reject};
use super::routes::{self, Route};
use std::io::{self, ErrorKind, Read, Write};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Bytes read from the stream at a time.
const CHUNK: usize = 16 * 1024;

/// What every connection of one server shares.
pub struct Shared {
    /// Scripted, task and demo answers.
    pub answers: Answers,
    /// The seeded fault stream: one draw per chat request, in the order their
    /// bodies finish arriving.
    pub plan: Mutex<FaultPlan>,
    /// `--latency-ms`.
    pub latency: Duration,
    /// `--log`.
    pub log: bool,
    /// Waits out a reply's delay (`thread::sleep`; tests pass a no-op).
    pub sleep: fn(Duration),
}

impl Shared {
    fn draw(&self) -> Fault {
        self.plan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .draw()
    }
}

/// How a connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The client closed or went quiet past the read timeout, a write failed,
    /// or an exchange ended with `Connection: close`.
    Closed,
    /// A request was refused before its body was read (bad head, chunked body,
    /// body too large): the answer was sent, and the caller should drain what
    /// the client may still be sending before closing, so the client is not
    /// reset before it reads the answer.
    Refused,
}

/// Serves requests on `stream` until the connection should close.
pub fn serve<S: Read + Write>(stream: &mut S, shared: &Shared) -> End {
    // Bytes read past the current request (a pipelined next request).
    let mut buf = Vec::new();
    loop {
        let head = match read_head(stream, &mut buf) {
            Ok(Some(head)) => head,
            Ok(None) => return End::Closed,
            Err(reject) => {
                if shared.log {
                    eprintln!("{}", unreadable_line(&reject));
                }
                send(stream, &reject.reply(), false, false, 1, shared.log);
                return End::Refused;
            }
        };
        let auth = head.has("authorization");
        let length = match head.body_length() {
            Ok(n) => n,
            Err(reject) => {
                let reply = reject.reply();
                if shared.log {
                    eprintln!("{}", log_line(&head, reply.status, "refused", auth));
                }
                send(
                    stream,
                    &reply,
                    head.method == "HEAD",
                    false,
                    head.minor,
                    shared.log,
                );
                return End::Refused;
            }
        };
        if head.expects_continue()
            && (buf.len() as u64) < length
            && stream
                .write_all(http::CONTINUE)
                .and_then(|()| stream.flush())
                .is_err()
        {
            return End::Closed;
        }
        let Ok(body) = read_body(stream, &mut buf, length) else {
            return End::Closed;
        };
        let route = routes::route(&head.method, head.origin_target());
        // One draw per chat or retrieval request, now that it has fully arrived.
        let fault = match route {
            Route::Chat | Route::Retrieve => shared.draw(),
            _ => Fault::None,
        };
        let reply = match String::from_utf8(body) {
            Ok(text) => routes::respond(route, fault, &text, shared.latency, &shared.answers),
            Err(e) => routes::error(
                400,
                &format!("request body is not UTF-8 text: {}", e.utf8_error()),
                "invalid_request_error",
            ),
        };
        (shared.sleep)(reply.delay);
        if shared.log {
            eprintln!("{}", log_line(&head, reply.status, fault.label(), auth));
        }
        let keep_alive = head.keep_alive();
        let sent = send(
            stream,
            &reply,
            head.method == "HEAD",
            keep_alive,
            head.minor,
            shared.log,
        );
        if !sent || !keep_alive {
            return End::Closed;
        }
    }
}

/// Reads until `buf` starts with a complete head, and takes it off `buf`.
/// `Ok(None)`: the client closed, the read timed out, or the stream failed.
fn read_head<S: Read>(stream: &mut S, buf: &mut Vec<u8>) -> Result<Option<Head>, Reject> {
    let mut chunk = [0u8; CHUNK];
    loop {
        if !buf.is_empty() {
            if let Parsed::Complete(head, used) = http::parse_head(buf)? {
                buf.drain(..used);
                return Ok(Some(head));
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Ok(None),
        }
    }
}

/// The `length`-byte body: first what is already in `buf`, then from the stream.
fn read_body<S: Read>(stream: &mut S, buf: &mut Vec<u8>, length: u64) -> io::Result<Vec<u8>> {
    let length = usize::try_from(length).map_err(|_| io::Error::from(ErrorKind::InvalidInput))?;
    let have = buf.len().min(length);
    let mut body: Vec<u8> = buf.drain(..have).collect();
    let missing = (length - have) as u64;
    if missing > 0 {
        stream.take(missing).read_to_end(&mut body)?;
        if body.len() < length {
            return Err(ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(body)
}

/// Writes the response; false when the client is gone.
fn send<S: Write>(
    stream: &mut S,
    reply: &routes::Reply,
    head_request: bool,
    keep_alive: bool,
    minor: u8,
    log: bool,
) -> bool {
    let bytes = http::response_bytes(reply, head_request, keep_alive, minor);
    match stream.write_all(&bytes).and_then(|()| stream.flush()) {
        Ok(()) => true,
        Err(e) => {
            if log {
                eprintln!("evalpage mock-server: could not send {}: {e}", reply.status);
            }
            false
        }
    }
}

/// `evalpage mock-server: POST /v1/chat/completions -> 200 (ok; authorization
/// header present)`: method, path without query, status, fault label, and
/// whether an Authorization header came (never its value).
fn log_line(head: &Head, status: u16, label: &str, auth: bool) -> String {
    format!(
        "evalpage mock-server: {} {} -> {status} ({label}; authorization header {})",
        head.method,
        head.log_path(),
        if auth { "present" } else { "absent" }
    )
}

/// The log line for a head that could not be read.
fn unreadable_line(reject: &Reject) -> String {
    format!(
        "evalpage mock-server: (unreadable request head) -> {} ({})",
        reject.status, reject.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::demo;
    use serde_json::Value;
    use std::io::Cursor;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Client bytes in, server bytes out.
    struct Pipe {
        input: Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Pipe {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.input.read(out)
        }
    }

    impl Write for Pipe {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.output.write(bytes)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A stream that hands out its input one byte per read.
    struct Trickle(Pipe);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = out.len().min(1);
            self.0.input.read(&mut out[..n])
        }
    }

    impl Write for Trickle {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.write(bytes)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    static SLEPT_MS: AtomicU64 = AtomicU64::new(0);

    fn shared(fail_rate: f64) -> Shared {
        Shared {
            answers: Answers::default(),
            plan: Mutex::new(FaultPlan::new(fail_rate, 0.0, 0.0, 7)),
            latency: Duration::from_millis(3),
            log: false,
            sleep: |d| {
                SLEPT_MS.fetch_add(d.as_millis() as u64, Ordering::SeqCst);
            },
        }
    }

    /// A parsed response: status line, headers (lower-case names), body.
    #[derive(Debug)]
    struct Resp {
        status_line: String,
        headers: Vec<(String, String)>,
        body: String,
    }

    impl Resp {
        fn status(&self) -> u16 {
            self.status_line
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0)
        }
        fn header(&self, name: &str) -> Option<&str> {
            self.headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        }
    }

    /// Splits server output into responses, using Content-Length for bodies
    /// (`head_requests` lists which responses answer HEAD and have no body).
    fn responses(mut out: &[u8]) -> Vec<Resp> {
        let mut all = Vec::new();
        while !out.is_empty() {
            let text = String::from_utf8_lossy(out).into_owned();
            let end = text.find("\r\n\r\n").expect("head end");
            let mut lines = text[..end].split("\r\n");
            let status_line = lines.next().unwrap_or_default().to_string();
            let headers: Vec<(String, String)> = lines
                .filter_map(|l| l.split_once(": "))
                .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
                .collect();
            let interim = status_line.starts_with("HTTP/1.1 1");
            let length: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let length = if interim { 0 } else { length };
            let body = text[end + 4..end + 4 + length].to_string();
            out = &out[end + 4 + length..];
            all.push(Resp {
                status_line,
                headers,
                body,
            });
        }
        all
    }

    fn run(input: &[u8], shared: &Shared) -> (End, Vec<Resp>) {
        let mut pipe = Pipe {
            input: Cursor::new(input.to_vec()),
            output: Vec::new(),
        };
        let end = serve(&mut pipe, shared);
        (end, responses(&pipe.output))
    }

    fn chat(body: &str, extra: &str) -> String {
        format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             {extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    const HI: &str = r#"{"messages":[{"role":"user","content":"hi"}]}"#;

    #[test]
    fn keep_alive_serves_pipelined_requests_in_order() {
        let input = format!(
            "{}GET /v1/models?x=1 HTTP/1.1\r\n\r\nOPTIONS /v1/chat/completions HTTP/1.1\r\n\r\n{}",
            chat(HI, ""),
            chat(HI, "")
        );
        let (end, rs) = run(input.as_bytes(), &shared(0.0));
        assert_eq!(end, End::Closed);
        let statuses: Vec<u16> = rs.iter().map(Resp::status).collect();
        assert_eq!(statuses, [200, 200, 204, 200]);
        let answer: Value = serde_json::from_str(&rs[0].body).expect("json");
        let expected = demo::answer(&[evalpage_core::provider::ChatMessage::new("user", "hi")]);
        assert_eq!(
            answer["choices"][0]["message"]["content"],
            expected.as_str()
        );
        assert!(rs[1].body.contains("evalpage-demo"));
        for r in &rs {
            assert_eq!(r.header("access-control-allow-origin"), Some("*"));
            assert_eq!(r.header("connection"), None);
        }
        assert_eq!(rs[0].status_line, "HTTP/1.1 200 OK");
    }

    #[test]
    fn connection_close_and_http_1_0_end_the_connection() {
        let input = format!("{}{}", chat(HI, "Connection: close\r\n"), chat(HI, ""));
        let (end, rs) = run(input.as_bytes(), &shared(0.0));
        assert_eq!((end, rs.len()), (End::Closed, 1));
        assert_eq!(rs[0].header("connection"), Some("close"));
        let old = "GET /v1/models HTTP/1.0\r\n\r\nGET /v1/models HTTP/1.0\r\n\r\n";
        assert_eq!(run(old.as_bytes(), &shared(0.0)).1.len(), 1);
        let kept = "GET /v1/models HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
                    GET /v1/models HTTP/1.0\r\n\r\nGET /v1/models HTTP/1.0\r\n\r\n";
        let rs = run(kept.as_bytes(), &shared(0.0)).1;
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].header("connection"), Some("keep-alive"));
        assert_eq!(rs[1].header("connection"), Some("close"));
    }

    #[test]
    fn heads_and_bodies_arriving_byte_by_byte() {
        let input = format!("{}{}", chat(HI, ""), chat(HI, "Connection: close\r\n"));
        let mut slow = Trickle(Pipe {
            input: Cursor::new(input.into_bytes()),
            output: Vec::new(),
        });
        assert_eq!(serve(&mut slow, &shared(0.0)), End::Closed);
        let rs = responses(&slow.0.output);
        assert_eq!(rs.iter().map(Resp::status).collect::<Vec<_>>(), [200, 200]);
    }

    #[test]
    fn refusals_answer_in_openai_shape_and_close() {
        let big = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            http::BODY_LIMIT + 1
        );
        let chunked = "POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\
                       2\r\n{}\r\n0\r\n\r\n";
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.resize(http::HEAD_LIMIT + 1, b'a');
        let cases: Vec<(Vec<u8>, u16)> = vec![
            (big.into_bytes(), 413),
            (chunked.as_bytes().to_vec(), 411),
            (b"GET /\x01 HTTP/1.1\r\n\r\n".to_vec(), 400),
            (b"NOT A REQUEST\r\n\r\n".to_vec(), 400),
            (b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n".to_vec(), 400),
            (long, 431),
        ];
        for (input, status) in cases {
            // A second, valid request after the refused one is never served.
            let mut input = input;
            input.extend_from_slice(b"GET /v1/models HTTP/1.1\r\n\r\n");
            let (end, rs) = run(&input, &shared(0.0));
            assert_eq!(end, End::Refused, "{status}");
            assert_eq!(rs.len(), 1, "{status}");
            assert_eq!(rs[0].status(), status);
            assert_eq!(rs[0].header("connection"), Some("close"));
            assert_eq!(rs[0].header("content-type"), Some("application/json"));
            let v: Value = serde_json::from_str(&rs[0].body).expect("json error");
            assert_eq!(v["error"]["type"], "invalid_request_error", "{status}");
        }
    }

    #[test]
    fn a_client_gone_mid_request_gets_nothing() {
        for cut in [
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Le".to_string(),
            chat(HI, "")[..chat(HI, "").len() - 3].to_string(),
            String::new(),
        ] {
            let (end, rs) = run(cut.as_bytes(), &shared(0.0));
            assert_eq!((end, rs.len()), (End::Closed, 0), "{cut:?}");
        }
    }

    #[test]
    fn non_utf8_bodies_are_400_and_keep_the_connection() {
        let mut input =
            b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n\xff\xfe".to_vec();
        input.extend_from_slice(b"GET /v1/models HTTP/1.1\r\n\r\n");
        let rs = run(&input, &shared(0.0)).1;
        assert_eq!(rs.iter().map(Resp::status).collect::<Vec<_>>(), [400, 200]);
        assert!(rs[0].body.contains("not UTF-8"));
    }

    #[test]
    fn expect_continue_gets_an_interim_answer_first() {
        let input = chat(HI, "Expect: 100-continue\r\n");
        let mut pipe = Pipe {
            input: Cursor::new(input.into_bytes()),
            output: Vec::new(),
        };
        // The body is already buffered with the head: no 100 needed.
        serve(&mut pipe, &shared(0.0));
        assert!(pipe.output.starts_with(b"HTTP/1.1 200 OK"));
        // Head alone first, body later (one byte at a time): 100, then 200.
        let mut slow = Trickle(Pipe {
            input: Cursor::new(chat(HI, "Expect: 100-continue\r\n").into_bytes()),
            output: Vec::new(),
        });
        serve(&mut slow, &shared(0.0));
        let rs = responses(&slow.0.output);
        let lines: Vec<&str> = rs.iter().map(|r| r.status_line.as_str()).collect();
        assert_eq!(lines, ["HTTP/1.1 100 Continue", "HTTP/1.1 200 OK"]);
    }

    #[test]
    fn head_requests_get_headers_only() {
        let input = "HEAD /v1/models HTTP/1.1\r\n\r\nGET /v1/models HTTP/1.1\r\n\r\n";
        let mut pipe = Pipe {
            input: Cursor::new(input.as_bytes().to_vec()),
            output: Vec::new(),
        };
        serve(&mut pipe, &shared(0.0));
        let text = String::from_utf8(pipe.output).expect("utf-8");
        // The 405 to HEAD has a length but no body; the GET follows right after.
        let (first, rest) = text.split_once("\r\n\r\n").expect("head");
        assert!(first.starts_with("HTTP/1.1 405 Method Not Allowed"));
        assert!(rest.starts_with("HTTP/1.1 200 OK"), "{rest}");
    }

    #[test]
    fn one_draw_per_chat_request_in_arrival_order_and_delays_are_slept() {
        let plan = |n: usize| {
            let mut p = FaultPlan::new(0.5, 0.0, 0.0, 7);
            (0..n).map(|_| p.draw()).collect::<Vec<_>>()
        };
        // Models and preflight requests in between draw nothing.
        let input = format!(
            "{}GET /v1/models HTTP/1.1\r\n\r\n{}OPTIONS / HTTP/1.1\r\n\r\n{}{}",
            chat(HI, ""),
            chat(HI, ""),
            chat(HI, ""),
            chat("{not json", "")
        );
        let s = shared(0.5);
        let before = SLEPT_MS.load(Ordering::SeqCst);
        let rs = run(input.as_bytes(), &s).1;
        let chats: Vec<u16> = [0, 2, 4, 5].iter().map(|i| rs[*i].status()).collect();
        let expected: Vec<u16> = plan(4)
            .into_iter()
            .zip([200, 200, 200, 400])
            .map(|(f, ok)| if f == Fault::ServerError { 500 } else { ok })
            .collect();
        assert_eq!(chats, expected);
        // The next draw continues the same stream.
        assert_eq!(s.draw(), plan(5)[4]);
        // Each normal chat answer waited --latency-ms (other tests may add).
        let normal = expected.iter().filter(|st| **st != 500).count() as u64;
        assert!(SLEPT_MS.load(Ordering::SeqCst) - before >= 3 * normal);
    }

    #[test]
    fn log_lines_name_method_path_status_and_auth_presence_only() {
        let text = "POST http://u:pw@h/v1/chat/completions?key=sk-q HTTP/1.1\r\n\
                    Authorization: Bearer sk-SECRET\r\n\r\n";
        let Ok(Parsed::Complete(head, _)) = http::parse_head(text.as_bytes()) else {
            panic!("head");
        };
        let line = log_line(
            &head,
            429,
            Fault::RateLimited.label(),
            head.has("authorization"),
        );
        assert_eq!(
            line,
            "evalpage mock-server: POST /v1/chat/completions -> 429 \
             (injected 429; authorization header present)"
        );
        let reject = http::parse_head(b"GET / HTTP/1.1\r\nBad Name: sk-SECRET\r\n\r\n")
            .expect_err("malformed");
        let line = unreadable_line(&reject);
        assert!(
            line.contains("-> 400") && !line.contains("sk-SECRET"),
            "{line}"
        );
    }
}
