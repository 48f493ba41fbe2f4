//! One client connection of the mock server, served by hyper (HTTP/1.1,
//! keep-alive, pipelining, `Expect: 100-continue`, `HEAD`): each request is
//! refused from its head (`routes::refusal`) or read whole, drawn a fault,
//! answered by `routes`, delayed, logged and sent. Generic over the byte
//! stream, so it is tested on in-memory pipes; `mod.rs` runs it on a TCP
//! stream, one task per connection, so a slow or hanging answer holds only its
//! own connection.

use super::answers::Answers;
use super::faults::{Fault, FaultPlan};
use super::routes::{self, Reply, Route};
use super::wire::Wire;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue, AUTHORIZATION, TRANSFER_ENCODING};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioTimer;
use std::error::Error;
use std::future::poll_fn;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// How long a connection may wait for a request head (idle between keep-alive
/// requests included), and for a request body, before it is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest request head (request line and header lines), in bytes.
const HEAD_LIMIT: usize = 64 * 1024;

/// Most header lines in one request head.
const MAX_HEADERS: usize = 100;

/// After refusing a request, how long to keep reading (and dropping) what the
/// client still sends, and how much at most.
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: u64 = 2 * routes::BODY_LIMIT;

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
    /// `--require-key`: chat and retrieval requests without it get 401.
    pub require_key: Option<String>,
}

impl Shared {
    fn draw(&self) -> Fault {
        self.plan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .draw()
    }
}

type Failure = Box<dyn Error + Send + Sync>;

/// Serves requests on `stream` until the connection closes. After a refused
/// request, what the client may still be sending is drained for a moment, so
/// the client is not reset before it reads the answer.
pub async fn serve<T>(stream: T, shared: Arc<Shared>)
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let refused = Arc::new(AtomicBool::new(false));
    let service = {
        let (shared, refused) = (Arc::clone(&shared), Arc::clone(&refused));
        service_fn(move |req| Box::pin(exchange(req, Arc::clone(&shared), Arc::clone(&refused))))
    };
    let mut conn = hyper::server::conn::http1::Builder::new()
        // A client may close its sending side and still read the answer.
        .half_close(true)
        .timer(TokioTimer::new())
        .header_read_timeout(IDLE_TIMEOUT)
        .max_header_size(HEAD_LIMIT)
        .max_headers(MAX_HEADERS)
        .title_case_headers(true)
        .auto_date_header(false)
        // Whole buffers per write: what `Wire` looks at.
        .writev(false)
        .serve_connection(Wire::new(stream, HEAD_LIMIT, MAX_HEADERS), service);
    let ended = poll_fn(|cx| conn.poll_without_shutdown(cx)).await;
    let wire = conn.into_parts().io;
    if let (Err(e), true) = (&ended, shared.log) {
        match wire.refused() {
            Some(status) => eprintln!("{}", unreadable_line(status, &e)),
            None => eprintln!("evalpage mock-server: connection closed: {e}"),
        }
    }
    let lingers = wire.refused().is_some() || refused.load(Ordering::Relaxed);
    let mut stream = wire.into_inner();
    if lingers {
        linger(&mut stream).await;
    }
}

/// One request and its answer.
async fn exchange(
    req: Request<Incoming>,
    shared: Arc<Shared>,
    refused: Arc<AtomicBool>,
) -> Result<Response<Full<Bytes>>, Failure> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let auth = req.headers().contains_key(AUTHORIZATION);
    let bearer = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let chunked = req.headers().contains_key(TRANSFER_ENCODING);
    let length = req.body().size_hint().exact().unwrap_or(0);
    if let Some(reply) = routes::refusal(chunked, length) {
        refused.store(true, Ordering::Relaxed);
        if shared.log {
            eprintln!(
                "{}",
                log_line(&method, &path, reply.status, "refused", auth)
            );
        }
        return Ok(response(reply, true));
    }
    let body = tokio::time::timeout(IDLE_TIMEOUT, req.into_body().collect())
        .await
        .map_err(|_| "request body timed out")??
        .to_bytes();
    let route = routes::route(&method, &path);
    if let Some(reply) =
        routes::key_refusal(route, bearer.as_deref(), shared.require_key.as_deref())
    {
        if shared.log {
            eprintln!("{}", log_line(&method, &path, reply.status, "no-key", auth));
        }
        return Ok(response(reply, false));
    }
    // One draw per chat or retrieval request, now that it has fully arrived.
    let fault = match route {
        Route::Chat | Route::Retrieve => shared.draw(),
        _ => Fault::None,
    };
    let reply = routes::respond_bytes(route, fault, &body, shared.latency, &shared.answers);
    tokio::time::sleep(reply.delay).await;
    if shared.log {
        // the functions a chat request offered, by name (never a message)
        let offered = (route == Route::Chat)
            .then(|| serde_json::from_slice::<serde_json::Value>(&body).ok())
            .flatten()
            .and_then(|b| b.get("tools").and_then(|t| t.as_array()).cloned())
            .map(|tools| {
                let names: Vec<&str> = tools
                    .iter()
                    .filter_map(|t| t.pointer("/function/name").and_then(|n| n.as_str()))
                    .collect();
                format!("{}; tools {}", fault.label(), names.join(","))
            });
        let label = offered.unwrap_or_else(|| fault.label().to_string());
        eprintln!("{}", log_line(&method, &path, reply.status, &label, auth));
    }
    Ok(response(reply, false))
}

/// The hyper response for a reply (hyper adds `Content-Length`, and leaves the
/// body out for `HEAD`).
fn response(reply: Reply, close: bool) -> Response<Full<Bytes>> {
    let headers = routes::headers(&reply, close);
    let mut resp = Response::new(Full::new(Bytes::from(reply.body)));
    *resp.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in headers {
        if let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            resp.headers_mut().append(k, v);
        }
    }
    resp
}

/// After refusing a request whose body the client may still be sending: stop
/// writing, then read and drop what arrives for a short while, so closing with
/// unread bytes does not reset the connection before the client reads the answer.
async fn linger<T: AsyncRead + AsyncWrite + Unpin>(stream: &mut T) {
    let _ = stream.shutdown().await;
    let mut chunk = vec![0u8; 16 * 1024];
    let mut drained = 0u64;
    let drain = async {
        while drained < LINGER_BYTES {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => drained += n as u64,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

/// `evalpage mock-server: POST /v1/chat/completions -> 200 (ok; authorization
/// header present)`: method, path without query, status, fault label, and
/// whether an Authorization header came (never its value).
fn log_line(method: &str, path: &str, status: u16, label: &str, auth: bool) -> String {
    format!(
        "evalpage mock-server: {method} {path} -> {status} ({label}; authorization header {})",
        if auth { "present" } else { "absent" }
    )
}

/// The log line for a head that could not be read (hyper's error names the
/// problem, never a header value).
fn unreadable_line(status: u16, error: &dyn std::fmt::Display) -> String {
    format!("evalpage mock-server: (unreadable request head) -> {status} ({error})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::demo;
    use serde_json::Value;
    use std::time::Instant;

    fn shared(fail_rate: f64, latency_ms: u64) -> Shared {
        Shared {
            answers: Answers::default(),
            plan: Mutex::new(FaultPlan::new(fail_rate, 0.0, 0.0, 7)),
            latency: Duration::from_millis(latency_ms),
            log: false,
            require_key: None,
        }
    }

    /// Sends `input` on an in-memory connection (all at once, or one byte at a
    /// time), closes the sending side and returns all the server wrote.
    fn run_raw(input: &[u8], shared: Shared, trickle: bool) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let input = input.to_vec();
        runtime.block_on(async move {
            let (mut client, server) = tokio::io::duplex(1 << 20);
            let served = tokio::spawn(serve(server, Arc::new(shared)));
            let chunk = if trickle { 1 } else { input.len().max(1) };
            for part in input.chunks(chunk) {
                client.write_all(part).await.expect("send");
                tokio::task::yield_now().await;
            }
            client.shutdown().await.expect("half-close");
            let mut out = Vec::new();
            client.read_to_end(&mut out).await.expect("read");
            served.await.expect("served");
            out
        })
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
    /// (a HEAD request's answer has a length but no body: not used with HEAD).
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
            let length: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
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

    fn run(input: &[u8], shared: Shared) -> Vec<Resp> {
        responses(&run_raw(input, shared, false))
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
        let rs = run(input.as_bytes(), shared(0.0, 0));
        let statuses: Vec<u16> = rs.iter().map(Resp::status).collect();
        assert_eq!(statuses, [200, 200, 204, 200]);
        let answer: Value = serde_json::from_str(&rs[0].body).expect("json");
        let expected = demo::answer(&[evalpage_core::ChatMessage::new("user", "hi")]);
        assert_eq!(
            answer["choices"][0]["message"]["content"],
            expected.as_str()
        );
        assert!(rs[1].body.contains("evalpage-demo"));
        for r in &rs {
            for (k, v) in routes::CORS {
                assert_eq!(r.header(&k.to_ascii_lowercase()), Some(*v), "{k}");
            }
            assert_eq!(r.header("connection"), None);
            assert_eq!(r.header("date"), None);
        }
        assert_eq!(rs[0].status_line, "HTTP/1.1 200 OK");
        assert_eq!(rs[0].header("content-type"), Some("application/json"));
        // The preflight: no body, so no content headers.
        assert_eq!(rs[2].status_line, "HTTP/1.1 204 No Content");
        assert_eq!(rs[2].header("content-length"), None);
        assert_eq!(rs[2].header("content-type"), None);
    }

    #[test]
    fn connection_close_and_http_1_0_end_the_connection() {
        let input = format!("{}{}", chat(HI, "Connection: close\r\n"), chat(HI, ""));
        let rs = run(input.as_bytes(), shared(0.0, 0));
        assert_eq!(rs.len(), 1);
        assert_eq!(rs[0].header("connection"), Some("close"));
        let old = "GET /v1/models HTTP/1.0\r\n\r\nGET /v1/models HTTP/1.0\r\n\r\n";
        assert_eq!(run(old.as_bytes(), shared(0.0, 0)).len(), 1);
        let kept = "GET /v1/models HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
                    GET /v1/models HTTP/1.0\r\n\r\nGET /v1/models HTTP/1.0\r\n\r\n";
        let rs = run(kept.as_bytes(), shared(0.0, 0));
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].header("connection"), Some("keep-alive"));
        assert_eq!(rs[1].status(), 200);
    }

    #[test]
    fn heads_and_bodies_arriving_byte_by_byte() {
        let input = format!("{}{}", chat(HI, ""), chat(HI, "Connection: close\r\n"));
        let rs = responses(&run_raw(input.as_bytes(), shared(0.0, 0), true));
        assert_eq!(rs.iter().map(Resp::status).collect::<Vec<_>>(), [200, 200]);
    }

    #[test]
    fn refusals_answer_in_openai_shape_with_cors_and_close() {
        let big = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            routes::BODY_LIMIT + 1
        );
        let chunked = "POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\
                       2\r\n{}\r\n0\r\n\r\n";
        let mut long = b"GET / HTTP/1.1\r\nX: ".to_vec();
        long.resize(HEAD_LIMIT + 1, b'a');
        let many: String = (0..=MAX_HEADERS).map(|i| format!("X-{i}: v\r\n")).collect();
        let cases: Vec<(Vec<u8>, u16)> = vec![
            (big.into_bytes(), 413),
            (chunked.as_bytes().to_vec(), 411),
            (b"GET /\x01 HTTP/1.1\r\n\r\n".to_vec(), 400),
            (b"NOT A REQUEST\r\n\r\n".to_vec(), 400),
            (b"GET / HTTP/1.1\r\nBad Name: sk-x\r\n\r\n".to_vec(), 400),
            (b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n".to_vec(), 400),
            (
                b"GET / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n".to_vec(),
                400,
            ),
            (long, 431),
            (format!("GET / HTTP/1.1\r\n{many}\r\n").into_bytes(), 431),
        ];
        for (input, status) in cases {
            // A second, valid request after the refused one is never served.
            let mut input = input;
            input.extend_from_slice(b"GET /v1/models HTTP/1.1\r\n\r\n");
            let rs = run(&input, shared(0.0, 0));
            assert_eq!(rs.len(), 1, "{status}");
            assert_eq!(rs[0].status(), status);
            assert_eq!(rs[0].header("connection"), Some("close"), "{status}");
            assert_eq!(rs[0].header("content-type"), Some("application/json"));
            assert_eq!(rs[0].header("access-control-allow-origin"), Some("*"));
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
            let out = run_raw(cut.as_bytes(), shared(0.0, 0), false);
            assert!(out.is_empty(), "{cut:?}");
        }
    }

    #[test]
    fn non_utf8_bodies_are_400_and_keep_the_connection() {
        let mut input =
            b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n\xff\xfe".to_vec();
        input.extend_from_slice(b"GET /v1/models HTTP/1.1\r\n\r\n");
        let rs = run(&input, shared(0.0, 0));
        assert_eq!(rs.iter().map(Resp::status).collect::<Vec<_>>(), [400, 200]);
        assert!(rs[0].body.contains("not UTF-8"));
    }

    #[test]
    fn expect_continue_gets_an_interim_answer_first() {
        let input = chat(HI, "Expect: 100-continue\r\n");
        let rs = responses(&run_raw(input.as_bytes(), shared(0.0, 0), true));
        let lines: Vec<&str> = rs.iter().map(|r| r.status_line.as_str()).collect();
        assert_eq!(lines, ["HTTP/1.1 100 Continue", "HTTP/1.1 200 OK"]);
        // A refused body is never asked for.
        let big = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nExpect: 100-continue\r\n\
             Content-Length: {}\r\n\r\n",
            routes::BODY_LIMIT + 1
        );
        let rs = run(big.as_bytes(), shared(0.0, 0));
        assert_eq!(rs.iter().map(Resp::status).collect::<Vec<_>>(), [413]);
    }

    #[test]
    fn head_requests_get_headers_only() {
        let input = "HEAD /v1/models HTTP/1.1\r\n\r\nGET /v1/models HTTP/1.1\r\n\r\n";
        let out = run_raw(input.as_bytes(), shared(0.0, 0), false);
        let text = String::from_utf8(out).expect("utf-8");
        // The 405 to HEAD has a length but no body; the GET follows right after.
        let (first, rest) = text.split_once("\r\n\r\n").expect("head");
        assert!(first.starts_with("HTTP/1.1 405 Method Not Allowed"));
        assert!(first.contains("\r\nContent-Length: "), "{first}");
        assert!(rest.starts_with("HTTP/1.1 200 OK"), "{rest}");
    }

    #[test]
    fn one_draw_per_chat_request_in_arrival_order_and_delays_are_waited() {
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
        let started = Instant::now();
        let rs = run(input.as_bytes(), shared(0.5, 30));
        let chats: Vec<u16> = [0, 2, 4, 5].iter().map(|i| rs[*i].status()).collect();
        let expected: Vec<u16> = plan(4)
            .into_iter()
            .zip([200, 200, 200, 400])
            .map(|(f, ok)| if f == Fault::ServerError { 500 } else { ok })
            .collect();
        assert_eq!(chats, expected);
        // Each normal chat answer waited --latency-ms.
        let normal = expected.iter().filter(|st| **st != 500).count() as u32;
        assert!(started.elapsed() >= Duration::from_millis(30) * normal);
        // The next draw continues the same stream.
        let s = shared(0.5, 0);
        for _ in 0..4 {
            s.draw();
        }
        assert_eq!(s.draw(), plan(5)[4]);
    }

    #[test]
    fn log_lines_name_method_path_status_and_auth_presence_only() {
        let line = log_line(
            "POST",
            "/v1/chat/completions",
            429,
            Fault::RateLimited.label(),
            true,
        );
        assert_eq!(
            line,
            "evalpage mock-server: POST /v1/chat/completions -> 429 \
             (injected 429; authorization header present)"
        );
        let line = unreadable_line(400, &"invalid HTTP header parsed");
        assert_eq!(
            line,
            "evalpage mock-server: (unreadable request head) -> 400 (invalid HTTP header parsed)"
        );
    }
}
