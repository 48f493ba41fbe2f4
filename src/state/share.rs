//! Share links: the page parameters that open the same evaluation in another
//! browser, ready to run (never started by the link itself). Pure data: what
//! goes in a link, what cannot, and base64url for a task inlined in it.
//!
//! A link never carries a key: the parameters are built from named fields of
//! the settings, and `ModelSettings::api_key` is not one of them. A link is
//! untrusted input for whoever opens it: an inlined task is only a task to
//! check (its errors shown, nothing runs), and an endpoint in it gets no key
//! but the one saved for its own origin, sent after a click (see `keys`).

use super::{ModelSettings, Provider};
use crate::task::state::data::LoadedFile;
use crate::task::state::models::TaskRunSettings;
use evalpage_core::Lang;
use evalpage_core::MatchMode;

/// A task (with its template) is inlined when its text is at most this long.
pub const INLINE_LIMIT: usize = 4096;

/// The longest inlined task (decoded) the page accepts from a link.
pub const ACCEPT_LIMIT: usize = 64 * 1024;

/// The parameters of a link and what it leaves out, in the page's language.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShareSpec {
    /// `name=value` pairs, in order.
    pub pairs: Vec<(&'static str, String)>,
    /// What the link cannot carry (shown beside the button).
    pub notes: Vec<String>,
}

impl ShareSpec {
    fn push(&mut self, k: &'static str, v: impl Into<String>) {
        self.pairs.push((k, v.into()));
    }

    fn note(&mut self, lang: Lang, zh: &str, en: &str) {
        self.notes.push(lang.pick(zh, en).to_string());
    }

    /// The value of a parameter, if the link has it.
    pub fn get(&self, k: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.as_str())
    }
}

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

/// An optional number as a parameter: the number, or `default` for the
/// server's default.
fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "default".into(), |v| v.to_string())
}

/// A parameter read back from `opt`: `Some(None)` for `default`.
pub fn parse_opt<T: std::str::FromStr>(v: &str) -> Option<Option<T>> {
    if v == "default" {
        return Some(None);
    }
    v.parse().ok().map(Some)
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

fn flags(s: &mut ShareSpec, truncated_as_failure: bool, keep_going_on_fatal: bool) {
    if truncated_as_failure {
        s.push("truncated_as_failure", "1");
    }
    if keep_going_on_fatal {
        s.push("keep_going", "1");
    }
}

/// What the task mode's link is made of (read from the task state).
pub struct TaskShare<'a> {
    /// The preset the task started from, if any.
    pub preset: Option<&'a str>,
    /// That preset's YAML.
    pub preset_yaml: Option<&'a str>,
    /// The task YAML as edited.
    pub task_text: &'a str,
    /// The prompt template as edited (blank: none).
    pub template_text: &'a str,
    /// The dataset file, when one was loaded (else the demo data).
    pub file: Option<&'a LoadedFile>,
    /// The dataset URL it was fetched from (`?dataset=`), if it was.
    pub dataset_url: Option<&'a str>,
    /// The mock models ticked.
    pub mocks: Vec<&'a str>,
    /// Endpoint models ticked: (base URL, model id).
    pub endpoints: Vec<(&'a str, &'a str)>,
    /// Registry models ticked (a registry cannot be shared).
    pub registry: Vec<&'a str>,
    /// The endpoint form.
    pub endpoint: &'a ModelSettings,
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// The judge of `llm_judge` metrics.
    pub judge: &'a str,
}

/// The task mode's link: the task (a preset's name, or its YAML inline when
/// small), the dataset URL, the models, the endpoint form and the scheduling.
pub fn task(t: &TaskShare<'_>, lang: Lang) -> ShareSpec {
    let mut s = ShareSpec::default();
    s.push("mode", "task");
    s.push("lang", lang.code());
    if let Some(p) = t.preset {
        s.push("task", p);
    }
    let edited = t.preset_yaml != Some(t.task_text) || !t.template_text.trim().is_empty();
    if edited {
        let size = t.task_text.len() + t.template_text.len();
        if size <= INLINE_LIMIT {
            s.push("task_yaml", encode(t.task_text.as_bytes()));
            if !t.template_text.trim().is_empty() {
                s.push("task_template", encode(t.template_text.as_bytes()));
            }
        } else {
            let kb = size.div_ceil(1024);
            match t.preset {
                Some(p) => s.note(
                    lang,
                    &format!("任务文本（{kb} KB）超过 4 KB，无法放进链接：链接打开预设 {p} 未修改的版本"),
                    &format!("The task ({kb} KB) is over 4 KB and cannot be inlined: the link opens the preset {p} as it ships"),
                ),
                None => s.note(
                    lang,
                    &format!("任务文本（{kb} KB）超过 4 KB，无法放进链接：请把任务文件一并发给对方"),
                    &format!("The task ({kb} KB) is over 4 KB and cannot be inlined: send the task file along"),
                ),
            }
        }
    }
    match (t.file, t.dataset_url) {
        (Some(_), Some(u)) => s.push("dataset", u),
        (Some(f), None) => s.note(
            lang,
            &format!("数据集 {} 是本地文件，无法放进链接：打开链接的人会看到示例数据，需自行加载该文件", f.name),
            &format!("The dataset {} is a local file and cannot be shared: the link opens the demo data, and whoever opens it must load that file themselves", f.name),
        ),
        (None, _) => {}
    }
    s.push("models", t.mocks.join(","));
    for (base, model) in &t.endpoints {
        s.push("endpoint_model", format!("{model} {base}"));
    }
    if !t.registry.is_empty() {
        s.note(
            lang,
            &format!("注册表模型（{}）无法放进链接", t.registry.join(", ")),
            &format!(
                "Registry models ({}) cannot be shared",
                t.registry.join(", ")
            ),
        );
    }
    let e = t.endpoint;
    if !e.base_url.trim().is_empty() {
        s.push("endpoint", e.base_url.trim());
    }
    if !e.model.trim().is_empty() {
        s.push("model", e.model.trim());
    }
    s.push("temperature", opt(e.temperature));
    s.push("max_tokens", opt(e.max_tokens));
    let r = &t.settings;
    s.push("concurrency", r.concurrency.to_string());
    s.push("timeout", r.timeout_s.to_string());
    s.push("attempts", r.max_attempts.to_string());
    s.push("demo_latency", r.mock_latency.to_string());
    flags(&mut s, r.truncated_as_failure, r.keep_going_on_fatal);
    s.push("judge", t.judge);
    s
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648 §5).
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url (padding and standard `+/` accepted); `None` when it
/// is not base64.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim().trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (bits < 6).then_some(out)
}

/// An inlined text of a link: UTF-8 and at most `ACCEPT_LIMIT` bytes, or why
/// it cannot be used.
pub fn decode_text(param: &str, value: &str) -> Result<String, String> {
    let bytes = decode(value).ok_or_else(|| format!("{param}: not base64url"))?;
    if bytes.len() > ACCEPT_LIMIT {
        return Err(format!("{param}: over {} KB", ACCEPT_LIMIT / 1024));
    }
    String::from_utf8(bytes).map_err(|_| format!("{param}: not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for text in [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "name: t\n中文 ✓\n",
            "\u{0}\u{ff}~~~???>>>",
        ] {
            let e = encode(text.as_bytes());
            assert!(!e.contains(['+', '/', '=']), "{e}");
            assert_eq!(decode(&e).as_deref(), Some(text.as_bytes()), "{text}");
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fo"), "Zm8");
        assert_eq!(decode("Zm8="), Some(b"fo".to_vec()));
        assert_eq!(decode("Z"), None, "a lone sextet is no byte");
        assert_eq!(decode("Zm9v!"), None);
        assert!(decode_text("task_yaml", &encode(&[0xff, 0xfe])).is_err());
    }

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

    #[test]
    fn a_task_is_inlined_when_small_and_named_when_not() {
        let endpoint = ModelSettings::default();
        let mut t = TaskShare {
            preset: Some("event_eval"),
            preset_yaml: Some("name: x\n"),
            task_text: "name: x\n",
            template_text: "",
            file: None,
            dataset_url: None,
            mocks: vec!["mock-a"],
            endpoints: vec![("http://127.0.0.1:1/v1", "m1")],
            registry: vec![],
            endpoint: &endpoint,
            settings: TaskRunSettings::default(),
            judge: "mock-judge",
        };
        let spec = task(&t, Lang::En);
        assert_eq!(spec.get("task"), Some("event_eval"));
        assert_eq!(spec.get("task_yaml"), None, "the preset as it ships");
        assert_eq!(spec.get("endpoint_model"), Some("m1 http://127.0.0.1:1/v1"));
        t.task_text = "name: y\n";
        let spec = task(&t, Lang::En);
        let inlined = decode_text("task_yaml", spec.get("task_yaml").unwrap());
        assert_eq!(inlined.as_deref(), Ok("name: y\n"));
        let big = "#".repeat(INLINE_LIMIT + 1);
        t.task_text = &big;
        let spec = task(&t, Lang::En);
        assert_eq!(spec.get("task_yaml"), None);
        assert!(spec.notes[0].contains("cannot be inlined"));
    }
}
