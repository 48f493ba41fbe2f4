//! Calls an OpenAI-compatible endpoint with `fetch` (gloo-net), with an abort
//! signal for cancel and timeout. Request building and response parsing are the
//! core's; this file only moves bytes.

use evalpage_core::{build_chat_request, parse_response, ApiKey, HttpRequest, OpenAiConfig};
use evalpage_core::{build_json_request, parse_json_response};
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
use gloo_net::http::Request;
use gloo_timers::callback::Timeout;
use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use web_sys::{AbortController, AbortSignal};

/// A call in flight with its own timeout: `abort` cancels it; dropping it
/// stops the timeout timer.
pub struct Pending {
    controller: AbortController,
    _timer: Timeout,
}

impl Pending {
    /// Aborts the call (its outcome then reports a network error or is ignored).
    pub fn abort(&self) {
        self.controller.abort();
    }
}

/// Starts `call(signal, timed_out)` with a timer that sets `timed_out` and
/// aborts after `timeout_ms`; `done` gets the outcome. Both runners send every
/// request this way. An error when the browser cannot abort requests.
pub fn start<F>(
    timeout_ms: u64,
    call: impl FnOnce(AbortSignal, Rc<Cell<bool>>) -> F,
    done: impl FnOnce(CallOutcome) + 'static,
) -> Result<Pending, CallError>
where
    F: Future<Output = CallOutcome> + 'static,
{
    let controller = AbortController::new()
        .map_err(|_| CallError::new(ErrorKind::Network, "this browser cannot abort requests"))?;
    let timed_out = Rc::new(Cell::new(false));
    let timer = {
        let (c, t) = (controller.clone(), timed_out.clone());
        Timeout::new(timeout_ms.min(u32::MAX as u64) as u32, move || {
            t.set(true);
            c.abort();
        })
    };
    let future = call(controller.signal(), timed_out);
    super::spawn(async move { done(future.await) });
    Ok(Pending {
        controller,
        _timer: timer,
    })
}

/// Where a chat completion goes, and where its key may go.
#[derive(Clone, Copy)]
pub struct To<'a> {
    /// The endpoint (and the key, if any).
    pub cfg: &'a OpenAiConfig,
    /// What the key was entered for (an origin or a base URL): the key is
    /// sent only when the request's origin is that one.
    pub key_for: Option<&'a str>,
}

/// The last check before a request leaves the page: a key goes only to the
/// origin it was entered for, as the browser's URL parser reads both.
pub fn key_may_go(request_url: &str, key_for: Option<&str>) -> bool {
    match (
        super::url::origin(request_url),
        key_for.and_then(super::url::origin),
    ) {
        (Some(to), Some(owner)) => to == owner,
        _ => false,
    }
}

/// Sends one chat completion. `timed_out` is set by the caller's timer before
/// it aborts, so an abort can be told apart from a cancel. A key meant for
/// another origin is never sent: the call fails before anything leaves.
pub async fn chat(
    to: To<'_>,
    messages: &[ChatMessage],
    tools: Option<&serde_json::Value>,
    signal: &AbortSignal,
    timed_out: Rc<Cell<bool>>,
    timeout_ms: u64,
) -> CallOutcome {
    let req = build_chat_request(to.cfg, messages, tools);
    if to.cfg.api_key.is_some() && !key_may_go(&req.url, to.key_for) {
        let err = CallError::new(
            ErrorKind::InvalidResponse,
            "not sent: the API key was entered for another origin than this endpoint's; \
             type the key for this endpoint",
        );
        return CallOutcome::Failed(err.with_url(&req.url));
    }
    send(&req, signal, timed_out, timeout_ms, parse_response).await
}

/// Sends a request the core built and hands status, `Retry-After` and body
/// to `parse` (the chat or the JSON endpoint's reading); a lost request is a
/// `Timeout` when the caller's timer fired, else a `Network` error.
async fn send(
    req: &HttpRequest,
    signal: &AbortSignal,
    timed_out: Rc<Cell<bool>>,
    timeout_ms: u64,
    parse: fn(&str, u16, Option<&str>, &str) -> CallOutcome,
) -> CallOutcome {
    let failed = |kind: ErrorKind, msg: String| {
        CallOutcome::Failed(CallError::new(kind, msg).with_url(&req.url))
    };
    let mut builder = Request::post(&req.url).abort_signal(Some(signal));
    for (k, v) in &req.headers {
        builder = builder.header(k, v);
    }
    let request = match builder.body(req.body.clone()) {
        Ok(r) => r,
        Err(e) => {
            return failed(
                ErrorKind::Network,
                format!("could not build the request: {e}"),
            )
        }
    };
    let lost = |e: gloo_net::Error| {
        if timed_out.get() {
            failed(
                ErrorKind::Timeout,
                format!("no answer within {} s", timeout_ms / 1000),
            )
        } else {
            failed(ErrorKind::Network, network_message(&e.to_string()))
        }
    };
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => return lost(e),
    };
    let status = response.status();
    let retry_after = response.headers().get("retry-after");
    match response.text().await {
        Ok(body) => parse(&req.url, status, retry_after.as_deref(), &body),
        Err(e) => lost(e),
    }
}

/// POSTs a JSON body to an endpoint that is not a chat model (a retrieval
/// service), with no key; the answer's body is the outcome's text (the core's
/// `parse_json_response`: non-2xx statuses are errors as for chat models).
pub async fn post_json(
    url: &str,
    body: &serde_json::Value,
    key: Option<(&ApiKey, &str)>,
    signal: &AbortSignal,
    timed_out: Rc<Cell<bool>>,
    timeout_ms: u64,
) -> CallOutcome {
    if key.is_some_and(|(_, owner)| !key_may_go(url, Some(owner))) {
        let err = CallError::new(
            ErrorKind::InvalidResponse,
            "not sent: the API key was entered for another origin than this endpoint's; \
             type the key for this endpoint",
        );
        return CallOutcome::Failed(err.with_url(url));
    }
    let req = build_json_request(url, body, key.map(|(k, _)| k));
    send(&req, signal, timed_out, timeout_ms, parse_json_response).await
}

/// The browser does not say why a fetch failed; CORS and an unreachable server
/// look the same from script, so the message names both.
fn network_message(raw: &str) -> String {
    format!(
        "the browser could not reach the endpoint ({raw}): the server is down or unreachable, \
         or it does not allow this page's origin (CORS: it must answer with Access-Control-Allow-Origin)"
    )
}
