//! The RAG check's share link (see `state::share`): its dataset's URL, the
//! provider, endpoint, model and settings; never the key.

use crate::state::share::{encode, flags, opt, ShareSpec, INLINE_LIMIT};
use crate::state::{ModelSettings, Provider};
use evalpage_core::Lang;
use evalpage_core::MatchMode;

/// Where the RAG check's dataset came from.
#[derive(Clone, Debug, PartialEq)]
pub enum DatasetSource {
    /// The built-in demo (the page's default: nothing to carry).
    Demo,
    /// Fetched from this URL (`?dataset=`).
    Url(String),
    /// A file picked or dropped here: it cannot be shared.
    Local(String),
    /// Nothing loaded yet.
    None,
}

/// The RAG check's link: dataset URL, provider, endpoint, model and settings.
pub fn rag(settings: &ModelSettings, source: &DatasetSource, lang: Lang) -> ShareSpec {
    let mut s = ShareSpec::default();
    s.push("lang", lang.code());
    match source {
        DatasetSource::Url(u) => s.push("dataset", u.clone()),
        DatasetSource::Demo => {}
        DatasetSource::Local(name) => s.note(
            lang,
            &format!("数据集 {name} 是本地文件，无法放进链接：打开链接的人会看到示例数据集，需自行加载该文件"),
            &format!("The dataset {name} is a local file and cannot be shared: the link opens the demo dataset, and whoever opens it must load that file themselves"),
        ),
        DatasetSource::None => {}
    }
    s.push("provider", settings.provider.code());
    if settings.provider == Provider::Openai {
        s.push("endpoint", settings.base_url.trim());
        s.push("model", settings.model.trim());
    }
    s.push("concurrency", settings.concurrency.to_string());
    s.push("temperature", opt(settings.temperature));
    s.push("max_tokens", opt(settings.max_tokens));
    s.push("timeout", settings.timeout_s.to_string());
    s.push("attempts", settings.max_attempts.to_string());
    let matching = match settings.match_mode {
        MatchMode::Strict => "strict",
        MatchMode::Fuzzy => "fuzzy",
    };
    s.push("match", matching);
    s.push("fuzzy_threshold", settings.fuzzy_threshold.to_string());
    if settings.provider == Provider::Demo {
        s.push("demo_latency", settings.demo_latency_scale.to_string());
    }
    flags(
        &mut s,
        settings.truncated_as_failure,
        settings.keep_going_on_fatal,
    );
    if settings.system_prompt != evalpage_core::DEFAULT_SYSTEM_PROMPT {
        if settings.system_prompt.len() <= INLINE_LIMIT {
            s.push(
                "system_prompt_b64",
                encode(settings.system_prompt.as_bytes()),
            );
        } else {
            s.note(
                lang,
                "系统提示词太长，无法放进链接：链接使用默认系统提示词",
                "The system prompt is too long to inline: the link uses the default one",
            );
        }
    }
    if settings.price_in.is_some() || settings.price_out.is_some() {
        s.push("price_in", opt(settings.price_in));
        s.push("price_out", opt(settings.price_out));
    }
    if !settings.api_key.trim().is_empty() {
        s.note(
            lang,
            "链接中不含密钥：打开链接的人需输入自己的密钥",
            "The link carries no key: whoever opens it types their own",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rag_link_never_carries_the_key() {
        let key = "sk-share-SECRET-123";
        let s = ModelSettings {
            provider: Provider::Openai,
            base_url: "https://api.example.com/v1".into(),
            model: "m".into(),
            api_key: key.into(),
            remember_key: true,
            ..ModelSettings::default()
        };
        let spec = rag(
            &s,
            &DatasetSource::Url("https://x.example/d.jsonl".into()),
            Lang::En,
        );
        for (k, v) in &spec.pairs {
            assert!(!v.contains("SECRET") && !k.contains("key"), "{k}={v}");
        }
        assert_eq!(spec.get("endpoint"), Some("https://api.example.com/v1"));
        assert_eq!(spec.get("dataset"), Some("https://x.example/d.jsonl"));
        assert_eq!(spec.get("temperature"), Some("0"));
        assert_eq!(spec.get("max_tokens"), Some("default"));
        assert!(spec.notes.iter().any(|n| n.contains("no key")));
        let local = rag(&s, &DatasetSource::Local("mine.jsonl".into()), Lang::En);
        assert_eq!(local.get("dataset"), None);
        assert!(local.notes[0].contains("mine.jsonl"));
    }
}
