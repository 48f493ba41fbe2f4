//! Page parameters: `dataset`, `endpoint`, `model`, `provider`, `autorun`, `lang`,
//! `demo_latency`, `concurrency`, and for the task mode `mode=task` and
//! `task=<preset>`. There is deliberately no parameter for an API key.

use crate::state::{Mode, ModelSettings, Provider};
use evalpage_core::Lang;

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
    }
}

/// Writes `mode` into the page URL (without reloading or adding a history
/// entry), so a reload or a shared link opens the same mode. Other
/// parameters are kept.
pub fn set_mode(mode: Mode) {
    let pairs = match mode {
        Mode::Rag => Vec::new(),
        _ => vec![("mode", mode.code().to_string())],
    };
    set_params(&["mode"], &pairs);
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
