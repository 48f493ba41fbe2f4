//! Page parameters: `dataset`, `endpoint`, `model`, `provider`, `autorun`, `lang`,
//! `demo_latency`, `concurrency`, the settings a share link carries
//! (`temperature`, `max_tokens`, `timeout`, `attempts`, `match`,
//! `fuzzy_threshold`, `system_prompt_b64`, `truncated_as_failure`,
//! `keep_going`, `price_in`, `price_out`), and for the task mode `mode=task`,
//! `task=<preset>`, `task_yaml` / `task_template` (base64url text),
//! `models`, `endpoint_model` (repeated: `MODEL BASE_URL`) and `judge`.
//! There is deliberately no parameter for an API key. See `state::share`.

use crate::state::share::{self, parse_opt};
use crate::state::{Mode, ModelSettings, Provider};
use evalpage_core::Lang;
use evalpage_core::MatchMode;

/// The parameters the page understands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageParams {
    /// Dataset URL to fetch.
    pub dataset: Option<String>,
    /// Endpoint base URL.
    pub endpoint: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// `demo` or `openai`.
    pub provider: Option<Provider>,
    /// Start as soon as the dataset is loaded.
    pub autorun: bool,
    /// Interface language.
    pub lang: Option<Lang>,
    /// Demo latency multiplier.
    pub demo_latency: Option<f64>,
    /// Concurrency.
    pub concurrency: Option<usize>,
    /// `rag` (default) or `task`.
    pub mode: Option<Mode>,
    /// The task preset shown first in task mode.
    pub task: Option<String>,
    /// Temperature (`Some(None)`: the server's default).
    pub temperature: Option<Option<f64>>,
    /// Max tokens (`Some(None)`: the server's default).
    pub max_tokens: Option<Option<u32>>,
    /// Per-request timeout, seconds.
    pub timeout_s: Option<u64>,
    /// Attempts per call.
    pub attempts: Option<u32>,
    /// Keypoint matching.
    pub match_mode: Option<MatchMode>,
    /// Fuzzy threshold.
    pub fuzzy_threshold: Option<f64>,
    /// System prompt (decoded from `system_prompt_b64`).
    pub system_prompt: Option<String>,
    /// Count an answer cut off at `max_tokens` as a failed call.
    pub truncated_as_failure: Option<bool>,
    /// Keep sending after a fatal answer.
    pub keep_going: Option<bool>,
    /// Prices per million tokens (`Some(None)`: none).
    pub price_in: Option<Option<f64>>,
    /// Price per million completion tokens.
    pub price_out: Option<Option<f64>>,
    /// The task YAML inlined in a share link, or why it cannot be read.
    pub task_yaml: Option<Result<String, String>>,
    /// The prompt template inlined in a share link, or why it cannot be read.
    pub task_template: Option<Result<String, String>>,
    /// The mock models ticked in task mode (comma-separated names).
    pub models: Option<Vec<String>>,
    /// Endpoint models of task mode: (model id, base URL).
    pub endpoint_models: Vec<(String, String)>,
    /// The judge of `llm_judge` metrics.
    pub judge: Option<String>,
}

/// Reads the parameters of the current page URL.
pub fn read() -> PageParams {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    parse(&search)
}

/// Parses a query string (`?a=b&c=d`).
pub fn parse(search: &str) -> PageParams {
    let Ok(q) = web_sys::UrlSearchParams::new_with_str(search) else {
        return PageParams::default();
    };
    let get = |k: &str| q.get(k).filter(|v| !v.trim().is_empty());
    PageParams {
        dataset: get("dataset"),
        endpoint: get("endpoint"),
        model: get("model"),
        provider: get("provider").and_then(|p| Provider::parse(&p)),
        autorun: get("autorun").is_some_and(|v| v == "1" || v == "true"),
        lang: get("lang").and_then(|l| Lang::parse(&l)),
        demo_latency: get("demo_latency").and_then(|v| v.parse().ok()),
        concurrency: get("concurrency").and_then(|v| v.parse().ok()),
        mode: get("mode").and_then(|m| Mode::parse(&m)),
        task: get("task"),
        temperature: get("temperature").and_then(|v| parse_opt(&v)),
        max_tokens: get("max_tokens").and_then(|v| parse_opt(&v)),
        timeout_s: get("timeout").and_then(|v| v.parse().ok()),
        attempts: get("attempts").and_then(|v| v.parse().ok()),
        match_mode: get("match").and_then(|v| MatchMode::parse(&v)),
        fuzzy_threshold: get("fuzzy_threshold").and_then(|v| v.parse().ok()),
        system_prompt: get("system_prompt_b64")
            .and_then(|v| share::decode_text("system_prompt_b64", &v).ok()),
        truncated_as_failure: get("truncated_as_failure").map(|v| v == "1" || v == "true"),
        keep_going: get("keep_going").map(|v| v == "1" || v == "true"),
        price_in: get("price_in").and_then(|v| parse_opt(&v)),
        price_out: get("price_out").and_then(|v| parse_opt(&v)),
        task_yaml: get("task_yaml").map(|v| share::decode_text("task_yaml", &v)),
        task_template: get("task_template").map(|v| share::decode_text("task_template", &v)),
        models: q.get("models").map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(String::from)
                .collect()
        }),
        endpoint_models: {
            let all = q.get_all("endpoint_model");
            all.iter()
                .filter_map(|v| v.as_string())
                .filter_map(|v| {
                    let (model, base) = v.trim().split_once(' ')?;
                    Some((model.trim().to_string(), base.trim().to_string()))
                })
                .collect()
        },
        judge: get("judge"),
    }
}

/// This page's address (no query, no fragment) with `pairs` as its query:
/// the share link. `None` outside a browser.
pub fn share_link(pairs: &[(&'static str, String)]) -> Option<String> {
    let location = web_sys::window()?.location();
    let href = location.href().ok()?;
    let u = web_sys::Url::new(&href).ok()?;
    u.set_hash("");
    let q = web_sys::UrlSearchParams::new().ok()?;
    for (k, v) in pairs {
        q.append(k, v);
    }
    u.set_search(&String::from(q.to_string()));
    Some(u.href())
}

/// `path` resolved against `base` (a relative path of a manifest), as the
/// browser resolves links; `None` when it cannot be.
pub fn resolve(path: &str, base: &str) -> Option<String> {
    let base = web_sys::Url::new_with_base(base, &page_href()?)
        .ok()?
        .href();
    web_sys::Url::new_with_base(path.trim(), &base)
        .ok()
        .map(|u| u.href())
}

fn page_href() -> Option<String> {
    web_sys::window()?.location().href().ok()
}

/// One parameter of the current page URL (non-empty).
pub fn get(name: &str) -> Option<String> {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let q = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    q.get(name).filter(|v| !v.trim().is_empty())
}

/// Replaces the parameters named in `owned` with `pairs` in the page URL
/// (without reloading or adding a history entry); others are kept.
pub fn set_params(owned: &[&str], pairs: &[(&str, String)]) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let search = location.search().unwrap_or_default();
    let Ok(q) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    for k in owned {
        q.delete(k);
    }
    for (k, v) in pairs {
        q.set(k, v);
    }
    let query = String::from(q.to_string());
    let path = location.pathname().unwrap_or_default();
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

impl PageParams {
    /// Applies endpoint, model, provider and demo latency to settings.
    pub fn apply(&self, mut s: ModelSettings) -> ModelSettings {
        if let Some(e) = &self.endpoint {
            s.base_url = e.clone();
            s.provider = Provider::Openai;
        }
        if let Some(m) = &self.model {
            s.model = m.clone();
        }
        if let Some(p) = self.provider {
            s.provider = p;
        }
        if let Some(d) = self.demo_latency {
            s.demo_latency_scale = d.max(0.0);
        }
        if let Some(c) = self.concurrency {
            s.concurrency = c.clamp(1, 64);
        }
        if let Some(t) = self.temperature {
            s.temperature = t.filter(|t| t.is_finite()).map(|t| t.clamp(0.0, 2.0));
        }
        if let Some(m) = self.max_tokens {
            s.max_tokens = m;
        }
        if let Some(t) = self.timeout_s {
            s.timeout_s = t.clamp(1, 600);
        }
        if let Some(a) = self.attempts {
            s.max_attempts = a.clamp(1, 10);
        }
        if let Some(m) = self.match_mode {
            s.match_mode = m;
        }
        if let Some(f) = self.fuzzy_threshold.filter(|f| f.is_finite()) {
            s.fuzzy_threshold = f.clamp(0.05, 1.0);
        }
        if let Some(p) = &self.system_prompt {
            s.system_prompt = p.clone();
        }
        if let Some(t) = self.truncated_as_failure {
            s.truncated_as_failure = t;
        }
        if let Some(k) = self.keep_going {
            s.keep_going_on_fatal = k;
        }
        if let Some(p) = self.price_in {
            s.price_in = p.filter(|p| p.is_finite() && *p >= 0.0);
        }
        if let Some(p) = self.price_out {
            s.price_out = p.filter(|p| p.is_finite() && *p >= 0.0);
        }
        s
    }
}

/// The origin (`scheme://host[:port]`) of an `http(s)` URL, as the browser's
/// own URL parser computes it, which is the parser `fetch` uses: tricks such
/// as `http://a.example\@127.0.0.1/` or `http://0x7f.1/` resolve here exactly
/// as they would for the request. `None` for anything else.
pub fn origin(url: &str) -> Option<String> {
    let u = web_sys::Url::new(url.trim()).ok()?;
    matches!(u.protocol().as_str(), "http:" | "https:").then(|| u.origin())
}

/// Where requests to this base URL go: its origin, and whether that is plain
/// `http://` to a host other than loopback (127.0.0.0/8, `localhost`, `[::1]`).
pub fn target(url: &str) -> Option<crate::state::keys::Target> {
    let u = web_sys::Url::new(url.trim()).ok()?;
    let origin = origin(url)?;
    let host = u.hostname().to_ascii_lowercase();
    let ip = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || ip
            .parse::<std::net::IpAddr>()
            .is_ok_and(|a| a.is_loopback());
    Some(crate::state::keys::Target {
        origin,
        plain_http_remote: u.protocol() == "http:" && !loopback,
    })
}
