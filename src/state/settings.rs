//! Model settings as the user edits them, and the endpoint presets.

use evalpage_core::run::RunSettings;
use evalpage_core::ApiKey;
use evalpage_core::OpenAiConfig;
use evalpage_core::{MatchMode, ScoringConfig};
use serde::{Deserialize, Serialize};

/// Connections a browser opens to one HTTP/1.1 origin.
pub const BROWSER_HTTP1_CONNECTIONS: usize = 6;

/// How one model is called, in either mode.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelCall {
    /// Answered in the page (the RAG demo model or a task's mock model), with
    /// its pretend latency scaled by this factor (0 = instant).
    Mock(f64),
    /// An OpenAI-compatible endpoint, with the origin or base URL its key (if
    /// any) was entered for: the key goes to that origin only.
    OpenAi(OpenAiConfig, Option<String>),
    /// The model file on this device, run in the page: the request the
    /// config builds is answered by the page's engine, never sent.
    InPage(OpenAiConfig),
}

/// Which model answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The built-in offline demo model.
    #[default]
    Demo,
    /// An OpenAI-compatible endpoint.
    Openai,
    /// A GGUF model file on this device, run in the page.
    Local,
}

impl Provider {
    /// Parses `demo` / `openai` / `local`.
    pub fn parse(s: &str) -> Option<Provider> {
        match s {
            "demo" => Some(Provider::Demo),
            "openai" => Some(Provider::Openai),
            "local" => Some(Provider::Local),
            _ => None,
        }
    }

    /// The code used in URLs and reports.
    pub fn code(self) -> &'static str {
        match self {
            Provider::Demo => "demo",
            Provider::Openai => "openai",
            Provider::Local => "local",
        }
    }

    /// The word a judge choice names it by (the dialog mode's judge and its
    /// stored runs): the mock judge, the endpoint typed for the run, the
    /// model file on this device.
    pub fn judge_code(self) -> &'static str {
        match self {
            Provider::Demo => "mock",
            Provider::Openai => "endpoint",
            Provider::Local => "local",
        }
    }

    /// The judge choice a word names (`none`, or [`Provider::judge_code`]):
    /// `None` for no judge.
    pub fn judge(code: &str) -> Option<Provider> {
        [Provider::Demo, Provider::Openai, Provider::Local]
            .into_iter()
            .find(|p| p.judge_code() == code)
    }
}

/// A judge choice (`None`: no judge), kept in a stored run as its word:
/// `none`, or [`Provider::judge_code`]; a word no provider has reads as no judge.
pub mod judge_choice {
    use super::Provider;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `none` or the provider's judge word.
    pub fn serialize<S: Serializer>(p: &Option<Provider>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.map_or("none", Provider::judge_code))
    }

    /// Reads what [`serialize`] writes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Provider>, D::Error> {
        Ok(Provider::judge(&String::deserialize(d)?))
    }
}

/// What the requests of the model file on this device name as their address
/// (in error details): they are answered in the page, not sent.
pub const IN_PAGE_URL: &str = "in-page:model-file";

/// How the model file `file`, run in the page, is asked: the request an
/// endpoint would get (no key, the run's parameters added by the caller),
/// answered by the engine in the page.
pub fn in_page(file: &str) -> OpenAiConfig {
    OpenAiConfig {
        base_url: IN_PAGE_URL.into(),
        model: file.to_string(),
        ..OpenAiConfig::default()
    }
}

/// A known OpenAI-compatible server kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Shown name.
    pub name: &'static str,
    /// Default base URL.
    pub base_url: &'static str,
    /// Example model.
    pub model: &'static str,
    /// How to allow this page's origin (CORS) on that server.
    pub cors_fix: &'static str,
}

/// Presets offered in the model panel.
pub const PRESETS: &[Preset] = &[
    Preset { name: "OpenAI", base_url: "https://api.openai.com/v1", model: "gpt-4o-mini", cors_fix: "OpenAI's API allows browser calls; check the key and the network." },
    Preset { name: "Ollama", base_url: "http://127.0.0.1:11434/v1", model: "llama3.1", cors_fix: "Start Ollama with OLLAMA_ORIGINS set to this page's origin (or *), e.g. OLLAMA_ORIGINS='*' ollama serve." },
    Preset { name: "vLLM", base_url: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen2.5-7B-Instruct", cors_fix: "Start vLLM with --allowed-origins '[\"*\"]' (or this page's origin)." },
    Preset { name: "llama.cpp", base_url: "http://127.0.0.1:8081/v1", model: "default", cors_fix: "llama.cpp's llama-server sends CORS headers by default; check that it runs and that the port is right." },
];

/// Everything the model panel edits. The key lives here only while the page is open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelSettings {
    /// Demo or OpenAI-compatible.
    pub provider: Provider,
    /// API base URL.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// API key (never serialized: see `persisted`).
    #[serde(skip)]
    pub api_key: String,
    /// Keep the key in localStorage instead of sessionStorage.
    pub remember_key: bool,
    /// Temperature (blank = server default).
    pub temperature: Option<f64>,
    /// Max tokens (blank = server default).
    pub max_tokens: Option<u32>,
    /// Calls in flight.
    pub concurrency: usize,
    /// Per-request timeout, seconds.
    pub timeout_s: u64,
    /// Attempts per case.
    pub max_attempts: u32,
    /// Keypoint matching.
    pub match_mode: MatchMode,
    /// Fuzzy threshold.
    pub fuzzy_threshold: f64,
    /// System prompt.
    pub system_prompt: String,
    /// Demo model latency multiplier (0 = instant; for tests and benchmarks).
    pub demo_latency_scale: f64,
    /// Count an answer cut off at `max_tokens` as a failed call.
    pub truncated_as_failure: bool,
    /// Keep sending after a fatal answer (401, 403, 404) instead of stopping.
    pub keep_going_on_fatal: bool,
    /// Price per million prompt tokens (blank: no cost shown).
    pub price_in: Option<f64>,
    /// Price per million completion tokens.
    pub price_out: Option<f64>,
    /// Stop the run once its priced usage reaches this cost (needs a price).
    pub max_cost: Option<f64>,
}

impl Default for ModelSettings {
    fn default() -> Self {
        ModelSettings {
            provider: Provider::Demo,
            base_url: "http://127.0.0.1:8091/v1".into(),
            model: "evalpage-demo".into(),
            api_key: String::new(),
            remember_key: false,
            temperature: Some(0.0),
            max_tokens: None,
            concurrency: 4,
            timeout_s: 60,
            max_attempts: 3,
            match_mode: MatchMode::Fuzzy,
            fuzzy_threshold: 0.6,
            system_prompt: evalpage_core::DEFAULT_SYSTEM_PROMPT.into(),
            demo_latency_scale: 1.0,
            truncated_as_failure: false,
            keep_going_on_fatal: false,
            price_in: None,
            price_out: None,
            max_cost: None,
        }
    }
}

impl ModelSettings {
    /// The endpoint config for the core's request builder.
    pub fn openai_config(&self) -> OpenAiConfig {
        OpenAiConfig {
            base_url: self.base_url.trim().to_string(),
            model: self.model.trim().to_string(),
            api_key: ApiKey::new(&self.api_key),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            params: Default::default(),
        }
    }

    /// The request of the model file on this device: an endpoint's, named
    /// by the file, with no key; it never leaves the page.
    pub fn in_page_config(&self, file: &str) -> OpenAiConfig {
        OpenAiConfig {
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            ..in_page(file)
        }
    }

    /// Calls the page really keeps in flight. Browsers speak HTTP/2 only over
    /// TLS and open at most 6 HTTP/1.1 connections per origin, so to a plain
    /// `http://` endpoint more than 6 would only queue inside the browser, where
    /// each request's timeout is already running.
    pub fn effective_concurrency(&self) -> usize {
        // The model in the page answers one request at a time: more in
        // flight would only queue there, each with its timeout running.
        if self.provider == Provider::Local {
            return 1;
        }
        let wanted = self.concurrency.clamp(1, 64);
        let plain_http = self
            .base_url
            .trim()
            .to_ascii_lowercase()
            .starts_with("http://");
        if self.provider == Provider::Openai && plain_http {
            wanted.min(BROWSER_HTTP1_CONNECTIONS)
        } else {
            wanted
        }
    }

    /// Scheduling settings for the engine.
    pub fn run_settings(&self, seed: u64) -> RunSettings {
        RunSettings {
            concurrency: self.effective_concurrency(),
            max_attempts: self.max_attempts.clamp(1, 10),
            timeout_ms: self.timeout_s.clamp(1, 600) * 1000,
            seed,
            ..RunSettings::default()
        }
    }

    /// The run's limits (answer policy, price, cost cap), as every mode
    /// that calls a model holds them: the start of the run is made from them.
    pub fn limits(&self) -> super::limits::Limits {
        super::limits::Limits {
            truncated_as_failure: self.truncated_as_failure,
            keep_going_on_fatal: self.keep_going_on_fatal,
            price_in: self.price_in,
            price_out: self.price_out,
            max_cost: self.max_cost,
        }
    }

    /// Scoring settings.
    pub fn scoring(&self) -> ScoringConfig {
        ScoringConfig {
            match_mode: self.match_mode,
            fuzzy_threshold: self.fuzzy_threshold.clamp(0.05, 1.0),
        }
    }

    /// What is wrong with these settings for starting a run, if anything.
    pub fn problem(&self) -> Option<(&'static str, &'static str)> {
        if self.provider != Provider::Openai {
            return None;
        }
        let url = self.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Some((
                "端点地址必须以 http:// 或 https:// 开头",
                "The endpoint URL must start with http:// or https://",
            ));
        }
        if self.model.trim().is_empty() {
            return Some(("请填写模型名称", "Enter a model name"));
        }
        None
    }

    /// True when the chosen concurrency exceeds what a browser opens to one
    /// HTTP/1.1 origin (6 connections).
    pub fn above_browser_limit(&self) -> bool {
        self.provider == Provider::Openai && self.concurrency > BROWSER_HTTP1_CONNECTIONS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judge_choice_is_stored_as_the_word_the_page_always_stored() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Stored {
            #[serde(with = "judge_choice")]
            judge: Option<Provider>,
        }
        for (word, judge) in [
            ("none", None),
            ("mock", Some(Provider::Demo)),
            ("endpoint", Some(Provider::Openai)),
            ("local", Some(Provider::Local)),
        ] {
            let json = format!("{{\"judge\":\"{word}\"}}");
            let read: Stored = serde_json::from_str(&json).expect("a stored judge");
            assert_eq!(read, Stored { judge });
            assert_eq!(serde_json::to_string(&read).ok(), Some(json));
        }
        let odd: Stored = serde_json::from_str(r#"{"judge":"gpt"}"#).expect("read");
        assert_eq!(odd.judge, None, "a word no provider has: no judge");
    }

    #[test]
    fn key_is_not_serialized() {
        let s = ModelSettings {
            api_key: "sk-secret".into(),
            ..Default::default()
        };
        let json = serde_json::to_string(&s).expect("json");
        assert!(!json.contains("sk-secret"));
        let back: ModelSettings = serde_json::from_str(&json).expect("back");
        assert_eq!(back.api_key, "");
    }

    #[test]
    fn problems_and_limits() {
        let mut s = ModelSettings {
            provider: Provider::Openai,
            base_url: "ftp://x".into(),
            ..Default::default()
        };
        assert!(s.problem().is_some());
        s.base_url = "http://127.0.0.1:1/v1".into();
        assert!(s.problem().is_none());
        s.concurrency = 16;
        assert!(s.above_browser_limit());
        assert_eq!(s.effective_concurrency(), 6, "plain http: capped at 6");
        s.base_url = "https://api.example.com/v1".into();
        assert_eq!(s.effective_concurrency(), 16, "https may be HTTP/2");
    }
}
