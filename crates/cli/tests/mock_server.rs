//! `evalpage mock-server` over real HTTP: CORS on every answer, preflight,
//! the model list, OpenAI-style errors, chat answers from the demo model, and
//! deterministic fault draws.

mod common;

use common::Mock;
use evalpage_core::demo;
use evalpage_core::provider::ChatMessage;
use serde_json::{json, Value};

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
