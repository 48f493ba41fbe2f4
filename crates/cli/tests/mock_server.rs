//! `evalpage mock-server` over real HTTP: CORS on every answer, preflight,
//! the model list, OpenAI-style errors, chat answers from the demo model,
//! deterministic fault draws, bursts of concurrent keep-alive connections, and
//! refused request bodies.

mod common;

use common::Mock;
use evalpage_core::demo;
use evalpage_core::ChatMessage;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

/// status, headers (lower-case names), body.
type Answer = (u16, Vec<(String, String)>, String);

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

fn answer(mut resp: ureq::http::Response<ureq::Body>) -> Answer {
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = resp.body_mut().read_to_string().expect("body");
    (resp.status().as_u16(), headers, body)
}

fn header<'a>(a: &'a Answer, name: &str) -> Option<&'a str> {
    a.1.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn post(url: &str, body: &str) -> Answer {
    let resp = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .send(body)
        .expect("post");
    answer(resp)
}

fn get(url: &str) -> Answer {
    answer(agent().get(url).call().expect("get"))
}

fn assert_cors(a: &Answer) {
    assert_eq!(header(a, "access-control-allow-origin"), Some("*"));
    assert_eq!(
        header(a, "access-control-allow-headers"),
        Some("authorization, content-type")
    );
    assert_eq!(
        header(a, "access-control-allow-methods"),
        Some("GET, POST, OPTIONS")
    );
}

#[test]
fn chat_models_preflight_and_errors_all_carry_cors() {
    let mock = Mock::start(&[]);
    let question = "LightRAG支持哪些向量数据库？";
    let body =
        json!({"model": "evalpage-demo", "messages": [{"role": "user", "content": question}]});
    let chat = post(&format!("{}/chat/completions", mock.url), &body.to_string());
    assert_eq!(chat.0, 200, "{}", chat.2);
    let v: Value = serde_json::from_str(&chat.2).expect("json");
    let expected = demo::answer(&[ChatMessage::new("user", question)]);
    assert_eq!(v["choices"][0]["message"]["content"], expected.as_str());
    assert_eq!(v["model"], "evalpage-demo");
    let models = get(&format!("{}/models", mock.url));
    assert_eq!(models.0, 200);
    assert!(models.2.contains("evalpage-demo"));
    let preflight = agent()
        .options(format!("{}/chat/completions", mock.url))
        .call()
        .expect("options");
    let preflight = answer(preflight);
    assert_eq!(preflight.0, 204);
    let bad = post(&format!("{}/chat/completions", mock.url), "{not json");
    assert_eq!(bad.0, 400);
    let err: Value = serde_json::from_str(&bad.2).expect("json error");
    assert_eq!(err["error"]["type"], "invalid_request_error");
    let missing = get(&format!("{}/nowhere", mock.url));
    assert_eq!(missing.0, 404);
    for a in [&chat, &models, &preflight, &bad, &missing] {
        assert_cors(a);
    }
}

#[test]
fn root_chat_path_works_and_rate_limits_carry_retry_after() {
    let mock = Mock::start(&["--rate-limit-rate", "1.0"]);
    let root = mock.url.trim_end_matches("/v1");
    let a = post(&format!("{root}/chat/completions"), r#"{"messages":[]}"#);
    assert_eq!(a.0, 429);
    assert_eq!(header(&a, "retry-after"), Some("1"));
    assert_cors(&a);
}

#[test]
fn fault_draws_follow_the_seed() {
    let statuses = |seed: &str| {
        let mock = Mock::start(&["--fail-rate", "0.5", "--seed", seed]);
        let url = format!("{}/chat/completions", mock.url);
        let body = r#"{"messages":[{"role":"user","content":"hi"}]}"#;
        (0..12).map(|_| post(&url, body).0).collect::<Vec<u16>>()
    };
    let first = statuses("11");
    assert_eq!(first, statuses("11"));
    assert!(first.contains(&500) && first.contains(&200), "{first:?}");
}

#[test]
fn bursts_of_concurrent_keep_alive_connections_all_get_answers() {
    // tiny_http's pool could queue a new connection with no free worker while
    // every worker sat on an idle keep-alive connection, so that connection's
    // requests waited until another connection closed. A fresh server hit by
    // a burst of clients that keep their connections open until all are done
    // is the case that stalled.
    const CLIENTS: usize = 32;
    const REQUESTS: usize = 6;
    let body = r#"{"messages":[{"role":"user","content":"hi"}]}"#;
    for round in 0..3 {
        let mock = Mock::start(&["--latency-ms", "5"]);
        let (start, done) = (Barrier::new(CLIENTS), Barrier::new(CLIENTS));
        let started = Instant::now();
        let answers: Vec<Vec<Result<u16, String>>> = thread::scope(|s| {
            let workers: Vec<_> = (0..CLIENTS)
                .map(|_| {
                    let (url, start, done) = (&mock.url, &start, &done);
                    s.spawn(move || {
                        // Its own agent: its own keep-alive connection.
                        let agent: ureq::Agent = ureq::Agent::config_builder()
                            .http_status_as_error(false)
                            .timeout_global(Some(Duration::from_secs(5)))
                            .build()
                            .into();
                        start.wait();
                        let answers = (0..REQUESTS)
                            .map(|i| {
                                let resp = if i % 3 == 2 {
                                    agent.get(format!("{url}/models")).call()
                                } else {
                                    agent
                                        .post(format!("{url}/chat/completions"))
                                        .header("Content-Type", "application/json")
                                        .send(body)
                                };
                                let mut resp = resp.map_err(|e| e.to_string())?;
                                let _ = resp.body_mut().read_to_string();
                                Ok(resp.status().as_u16())
                            })
                            .collect();
                        // Hold the connection open until every client is done.
                        done.wait();
                        drop(agent);
                        answers
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("client thread"))
                .collect()
        });
        let elapsed = started.elapsed();
        let all: Vec<&Result<u16, String>> = answers.iter().flatten().collect();
        assert_eq!(all.len(), CLIENTS * REQUESTS);
        assert!(
            all.iter().all(|a| matches!(a, Ok(200))),
            "round {round}: {answers:?}"
        );
        assert!(
            elapsed < Duration::from_secs(4),
            "round {round} took {elapsed:?}"
        );
    }
}

#[test]
fn a_hanging_answer_blocks_only_its_own_connection() {
    let mock = Mock::start(&["--hang-rate", "1.0"]);
    let hung = {
        let url = format!("{}/chat/completions", mock.url);
        thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(2)))
                .build()
                .into();
            agent.post(&url).send(r#"{"messages":[]}"#).is_err()
        })
    };
    thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(get(&format!("{}/models", mock.url)).0, 200);
    }
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(hung.join().expect("hung client"), "the hang timed out");
}

/// The mock's address, `127.0.0.1:port`.
fn addr(mock: &Mock) -> String {
    mock.url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string()
}

/// Sends raw bytes on a new connection and reads until the server closes it.
fn raw(mock: &Mock, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr(mock)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    stream.write_all(request).expect("send");
    let mut out = Vec::new();
    stream.read_to_end(&mut out).expect("closed by the server");
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn refused_requests_get_json_errors_and_the_connection_closes() {
    let mock = Mock::start(&[]);
    let chunked = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\
                    Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
    let malformed = b"POST /v1/chat/completions HTTP/1.1\r\nBad Header\r\n\r\n";
    for (request, status) in [
        (&chunked[..], "411 Length Required"),
        (&malformed[..], "400 Bad Request"),
    ] {
        // read_to_end returning at all shows the server closed the connection.
        let text = raw(&mock, request);
        assert!(
            text.starts_with(&format!("HTTP/1.1 {status}\r\n")),
            "{text}"
        );
        assert!(text.contains("\r\nConnection: close\r\n"), "{text}");
        assert!(text.contains("\r\nAccess-Control-Allow-Origin: *\r\n"));
        let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        let v: Value = serde_json::from_str(body).expect("json error");
        assert_eq!(v["error"]["type"], "invalid_request_error");
    }
    // Two keep-alive requests on one connection, then Connection: close.
    let two = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n\
                GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let text = raw(&mock, two);
    assert_eq!(text.matches("HTTP/1.1 200 OK\r\n").count(), 2, "{text}");
}

#[test]
fn an_oversized_body_gets_413_and_the_client_reads_it() {
    let mock = Mock::start(&[]);
    let big = vec![b' '; 9 * 1024 * 1024];
    let resp = agent()
        .post(format!("{}/chat/completions", mock.url))
        .header("Content-Type", "application/json")
        .send(&big[..])
        .expect("an answer, not a reset");
    let a = answer(resp);
    assert_eq!(a.0, 413, "{}", a.2);
    assert_cors(&a);
    let v: Value = serde_json::from_str(&a.2).expect("json error");
    assert_eq!(v["error"]["type"], "invalid_request_error");
}
