//! Who answers a case: the built-in demo model, or an OpenAI-compatible
//! endpoint over HTTP. Either way one call gives one `CallOutcome`.

use super::http::HttpBackend;
use evalpage_core::demo;
use evalpage_core::{CallOutcome, ChatMessage};

/// A model the driver can call from any thread.
#[derive(Debug)]
pub enum Backend {
    /// `evalpage_core::demo::reply`: no network, no delay.
    Demo,
    /// An OpenAI-compatible chat completions endpoint.
    OpenAi(HttpBackend),
}

impl Backend {
    /// Asks the model; blocks until it answers, fails or times out.
    pub fn call(&self, messages: &[ChatMessage], job: usize) -> CallOutcome {
        match self {
            Backend::Demo => CallOutcome::Answer(demo::reply(messages)),
            Backend::OpenAi(http) => http.call(
                messages,
                super::http::At {
                    job,
                    repeat: 0,
                    judge: false,
                },
            ),
        }
    }

    /// The backend name recorded in reports: `demo` or `openai`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Demo => "demo",
            Backend::OpenAi(_) => "openai",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_backend_answers_like_the_core_demo_model() {
        let m = vec![ChatMessage::new("user", "LightRAG支持哪些向量数据库？")];
        assert_eq!(
            Backend::Demo.call(&m, 0),
            CallOutcome::Answer(demo::reply(&m))
        );
        assert_eq!(Backend::Demo.name(), "demo");
    }
}
