//! Built-in prompt templates and task presets, selectable by name.
//!
//! Templates: `ie_json` (spec 004's event extraction: `ticker` + `news_items` ->
//! JSON with `sentiment`, `impact_score`, `keywords`), `rag_qa` (spec 002's
//! default RAG prompt over the question `q`) and `support_qa` (spec 003's
//! support chats: the last user message, `prompt`).
//!
//! Presets: `event_eval` (spec 004 §2's YAML verbatim), `support_qa` (spec 003:
//! `exact_match` and `keyword_coverage` of the free-text answer against
//! `expected` and `metadata.keywords`) and `rag_qa` (spec 002's accuracy and
//! citation over `gold` and `doc_hint`).

use super::{RawTask, Task, TaskMetric};
use crate::metric::rag_accuracy::RagAccuracy;
use crate::metric::rag_citation::RagCitation;
use crate::metric::RawMetric;
use crate::prompt::DEFAULT_SYSTEM_PROMPT;
use crate::rag_rules::{MatchMode, ScoringConfig};
use crate::schema::Schema;
use crate::schema::RAW_ANSWER;
use crate::template::{PromptTemplate, RawTemplate};
use serde_json::json;
use serde_json::Map;
use std::sync::Arc;

/// One built-in task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Name to select it by.
    pub name: &'static str,
    /// One-line description in English.
    pub description: &'static str,
    /// The task YAML (what the editor shows).
    pub yaml: &'static str,
}

/// The variable the RAG check's system prompt is given to the `rag_qa`
/// template as (see [`rag_qa`]).
pub const RAG_SYSTEM_VAR: &str = "rag_system_prompt";

/// The RAG check of spec 002 as the built-in `rag_qa` task: the preset's
/// metrics with the run's keypoint matching (`match_mode`,
/// `fuzzy_threshold`), and its template with the run's system prompt (the
/// page lets users edit it; a blank one sends no system message, as spec 002's
/// page does). The system prompt is a value, never read as a template.
pub fn rag_qa(scoring: ScoringConfig, system_prompt: &str) -> Option<(Task, PromptTemplate)> {
    // Built in code rather than parsed from `RAG_QA_YAML` (a test checks they
    // agree), so the page's RAG check links no YAML reader, metric registry or
    // Jinja engine.
    let mode = match scoring.match_mode {
        MatchMode::Strict => "strict",
        MatchMode::Fuzzy => "fuzzy",
    };
    let metric = |kind: &str, name: &str, keys: Vec<(&str, serde_json::Value)>| RawMetric {
        name: Some(name.to_string()),
        ..RawMetric::new(kind, keys)
    };
    let raw = RawTask {
        name: "rag_qa".into(),
        version: "v1".into(),
        prompt_template: "rag_qa".into(),
        default_params: Map::new(),
        serialize_fields: Vec::new(),
        parse_schema: Vec::new(),
        metrics: vec![
            metric(
                "rag_accuracy",
                "accuracy",
                vec![
                    ("label_field", json!("gold")),
                    ("match_mode", json!(mode)),
                    ("fuzzy_threshold", json!(scoring.fuzzy_threshold)),
                ],
            ),
            metric(
                "rag_citation",
                "citation",
                vec![("label_field", json!("doc_hint"))],
            ),
        ],
        repeats: None,
        pass_k: None,
        tools: None,
    };
    let task = Task {
        name: raw.name.clone(),
        version: raw.version.clone(),
        prompt_template: raw.prompt_template.clone(),
        default_params: Map::new(),
        serialize_fields: Vec::new(),
        schema: Schema::default(),
        metrics: vec![
            TaskMetric {
                name: "accuracy".into(),
                kind: "rag_accuracy".into(),
                metric: Arc::new(RagAccuracy {
                    pred_field: RAW_ANSWER.to_string(),
                    label_field: "gold".to_string(),
                    config: scoring,
                }),
            },
            TaskMetric {
                name: "citation".into(),
                kind: "rag_citation".into(),
                metric: Arc::new(RagCitation {
                    pred_field: RAW_ANSWER.to_string(),
                    label_field: "doc_hint".to_string(),
                }),
            },
        ],
        tools: super::Tools::None,
        agent: None,
        raw,
    };
    let mut raw = builtin_raw_template("rag_qa")?;
    raw.system = (!system_prompt.trim().is_empty()).then(|| format!("{{{{ {RAG_SYSTEM_VAR} }}}}"));
    let template = PromptTemplate::plain(raw)
        .ok()?
        .with_var(RAG_SYSTEM_VAR, system_prompt);
    Some((task, template))
}

/// Spec 004 §2's example task, verbatim.
pub const EVENT_EVAL_YAML: &str = "name: event_eval
version: v1
prompt_template: ie_json
default_params:
  response_format:
    type: json_object
serialize_fields:
  - news_items

parse_schema:
  - field: sentiment
    type: enum
    values: [positive, neutral, negative]
    default: neutral
  - field: impact_score
    type: int
    default: 0
    lo: -5
    hi: 5
  - field: keywords
    type: list
    default: []

metrics:
  - type: exact_match
    name: sentiment_acc
    pred_field: sentiment
    label_field: gt_sentiment
  - type: numeric_error
    name: impact
    pred_field: impact_score
    label_field: gt_impact_score
    tolerance: 1
  - type: list_overlap
    name: keyword
    pred_field: keywords
    label_field: gt_keywords
";

/// Spec 004 §4's suggestion for news records with `news_title` / `news_body`
/// instead of `news_items`: the same labels as `event_eval` read from one
/// article, and a one-sentence summary scored against `gt_summary` when the
/// record has one.
pub const NEWS_ANALYSIS_YAML: &str = "name: news_analysis
version: v1
prompt_template: news_json
default_params:
  response_format:
    type: json_object

parse_schema:
  - field: sentiment
    type: enum
    values: [positive, neutral, negative]
    default: neutral
  - field: impact_score
    type: int
    default: 0
    lo: -5
    hi: 5
  - field: keywords
    type: list
    default: []
  - field: summary
    type: str
    default: ''

metrics:
  - type: exact_match
    name: sentiment_acc
    pred_field: sentiment
    label_field: gt_sentiment
  - type: numeric_error
    name: impact
    pred_field: impact_score
    label_field: gt_impact_score
    tolerance: 1
  - type: list_overlap
    name: keyword
    pred_field: keywords
    label_field: gt_keywords
  - type: reference_rouge
    name: summary_rouge
    pred_field: summary
    label_field: gt_summary
    rouge_type: rougeL
  - type: field_completeness
    name: completeness
    fields: [sentiment, impact_score, keywords, summary]
";

const SUPPORT_QA_YAML: &str = "name: support_qa
version: v1
prompt_template: support_qa
default_params:
  temperature: 0
metrics:
  - type: exact_match
    name: exact_match
    pred_field: raw_answer
    label_field: expected
  - type: keyword_coverage
    name: keyword_coverage
    pred_field: raw_answer
    label_field: metadata.keywords
";

const SUPPORT_JUDGED_YAML: &str = "name: support_judged
version: v1
prompt_template: support_qa
default_params:
  temperature: 0
metrics:
  - type: token_f1
    name: f1
    pred_field: raw_answer
    label_field: expected
  - type: llm_judge
    name: correct
    judge: correctness
    language: en
    reference_field: expected
  - type: llm_judge
    name: helpful
    judge: rubric
    language: en
    rubric:
      - Answers the customer's question directly.
      - Gives a concrete next step.
      - Is polite and brief.
";

const RAG_QA_YAML: &str = "name: rag_qa
version: v1
prompt_template: rag_qa
metrics:
  - type: rag_accuracy
    name: accuracy
    label_field: gold
    match_mode: fuzzy
    fuzzy_threshold: 0.6
  - type: rag_citation
    name: citation
    label_field: doc_hint
";

/// Every preset, in picker order.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "event_eval",
        description:
            "Spec 004 event extraction: sentiment, impact score and keywords from news items.",
        yaml: EVENT_EVAL_YAML,
    },
    Preset {
        name: "support_qa",
        description: "Spec 003 support chats: exact match and keyword coverage of the answer.",
        yaml: SUPPORT_QA_YAML,
    },
    Preset {
        name: "support_judged",
        description: "Spec 003 support chats judged by a model: correctness against the reference and a rubric (llm_judge).",
        yaml: SUPPORT_JUDGED_YAML,
    },
    Preset {
        name: "rag_qa",
        description: "Spec 002 RAG questions: keypoint accuracy and document citation.",
        yaml: RAG_QA_YAML,
    },
    Preset {
        name: "news_analysis",
        description: "Spec 004 news records (news_title, news_body): sentiment, impact score, keywords and a summary of one article.",
        yaml: NEWS_ANALYSIS_YAML,
    },
    Preset {
        name: "bfcl",
        description: "BFCL function calling (a BFCL_v4_<category>.json file and its possible answers): the calls checked as BFCL's AST checker checks them.",
        yaml: BFCL_YAML,
    },
];

/// The preset task of that name. Presets are checked by the tests, so a
/// known name always gives a task.
pub fn preset(name: &str) -> Option<Task> {
    let p = PRESETS.iter().find(|p| p.name == name)?;
    Task::parse(&format!("{}.yaml", p.name), p.yaml).ok()
}

const IE_JSON_SYSTEM: &str = "You are a financial news analyst. You read news about one stock \
and extract structured information. Answer with one JSON object and nothing else.";

const IE_JSON_USER: &str = "Ticker: {{ ticker }}

News items (JSON):
{{ news_items }}

Return a JSON object with exactly these keys:
- \"sentiment\": the overall sentiment of these news for {{ ticker }}, one of \"positive\", \"neutral\", \"negative\"
- \"impact_score\": the expected impact on the stock, an integer from -5 (very negative) to 5 (very positive)
- \"keywords\": a list of short lowercase keywords naming the main topics";

const NEWS_JSON_USER: &str = "{% if ticker %}Ticker: {{ ticker }}

{% endif %}Title: {{ news_title }}

{{ news_body }}

Return a JSON object with exactly these keys:
- \"sentiment\": the sentiment of this article{% if ticker %} for {{ ticker }}{% endif %}, one of \"positive\", \"neutral\", \"negative\"
- \"impact_score\": the expected impact on the stock, an integer from -5 (very negative) to 5 (very positive)
- \"keywords\": a list of short lowercase keywords naming the main topics
- \"summary\": the article in one sentence";

const SUPPORT_QA_SYSTEM: &str = "You are a customer support assistant. Answer the customer's \
question concisely and correctly, in the language of the question.";

/// The names of the built-in templates.
pub const TEMPLATE_NAMES: [&str; 5] = ["ie_json", "news_json", "rag_qa", "support_qa", "bfcl"];

/// A built-in template as written.
pub fn builtin_raw_template(name: &str) -> Option<RawTemplate> {
    if name == "bfcl" {
        return Some(RawTemplate {
            name: name.into(),
            version: "v1".into(),
            system: None,
            user: format!(
                "(the chat messages of the sample's `{BFCL_MESSAGES}` field, as they are)"
            ),
        });
    }
    let (system, user) = match name {
        "ie_json" => (IE_JSON_SYSTEM, IE_JSON_USER),
        "news_json" => (IE_JSON_SYSTEM, NEWS_JSON_USER),
        "rag_qa" => (DEFAULT_SYSTEM_PROMPT, "{{ q }}"),
        "support_qa" => (SUPPORT_QA_SYSTEM, "{{ prompt }}"),
        _ => return None,
    };
    Some(RawTemplate {
        name: name.into(),
        version: "v1".into(),
        system: Some(system.into()),
        user: user.into(),
    })
}

/// A built-in template, compiled.
pub fn builtin_template(name: &str) -> Option<PromptTemplate> {
    let raw = builtin_raw_template(name)?;
    if name == "bfcl" {
        return Some(PromptTemplate::messages_field(raw, BFCL_MESSAGES));
    }
    PromptTemplate::new(raw).ok()
}

/// The field whose messages the `bfcl` template sends: the first turn of a
/// BFCL entry's `question`.
pub const BFCL_MESSAGES: &str = "question";

/// BFCL's function-calling categories as a task: each entry's `question`
/// messages are the prompt and its `function` list the tools; `tool_call`
/// is BFCL's AST checker.
const BFCL_YAML: &str = "name: bfcl
version: v1
prompt_template: bfcl
default_params:
  temperature: 0
tools:
  field: function
metrics:
  - type: tool_call
    name: tool_call
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::sample::{self, Sample};
    use crate::dataset::{rag, spec003};
    use crate::provider::ChatMessage;
    use crate::schema::ParseStatus;

    #[test]
    fn every_preset_and_template_is_valid() {
        for p in PRESETS {
            let task = Task::parse("p.yaml", p.yaml).unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert_eq!(task.name, p.name);
            assert!(
                builtin_template(&task.prompt_template).is_some(),
                "{}",
                p.name
            );
            assert!(preset(p.name).is_some());
        }
        assert!(TEMPLATE_NAMES.iter().all(|n| builtin_template(n).is_some()));
        assert!(preset("nope").is_none() && builtin_template("nope").is_none());
    }

    #[test]
    fn event_eval_runs_on_spec_004_sample() {
        let line = r#"{"sample_id":"S001","ticker":"AAPL","news_items":[{"title":"Apple beats earnings"},{"title":"AI push"}],"gt_sentiment":"positive","gt_impact_score":2,"gt_keywords":["ai","earnings"]}"#;
        let s: Sample = sample::parse("d.jsonl", line.as_bytes()).samples.remove(0);
        let task = preset("event_eval").expect("preset");
        let prompt = builtin_template("ie_json")
            .expect("template")
            .render(&s, &task.serialize_fields)
            .expect("renders");
        assert!(prompt.messages[1]
            .content
            .contains(r#"[{"title":"Apple beats earnings"},{"title":"AI push"}]"#));
        let answer = task.parse_answer("```json\n{\"sentiment\":\"positive\",\"impact_score\":3,\"keywords\":[\"AI\",\"iphone\"]}\n```");
        assert!(answer
            .fields
            .iter()
            .all(|f| f.status == ParseStatus::Parsed));
        let scores = task.score(&s, &answer);
        let values: Vec<(&str, Option<f64>)> =
            scores.iter().map(|(n, s)| (n.as_str(), s.value)).collect();
        assert_eq!(
            values,
            vec![
                ("sentiment_acc", Some(1.0)),
                ("impact", Some(1.0)),
                ("keyword", Some(0.5))
            ]
        );
    }

    #[test]
    fn news_analysis_runs_on_a_news_title_and_body_record() {
        let line = r#"{"sample_id":"N1","news_title":"Apple beats earnings","news_body":"Apple reported record AI revenue.","gt_sentiment":"positive","gt_impact_score":2,"gt_keywords":["ai","earnings"],"gt_summary":"Apple beat earnings on AI revenue."}"#;
        let s: Sample = sample::parse("d.jsonl", line.as_bytes()).samples.remove(0);
        let task = preset("news_analysis").expect("preset");
        let prompt = builtin_template(&task.prompt_template)
            .expect("template")
            .render(&s, &task.serialize_fields)
            .expect("renders");
        let user = &prompt.messages[1].content;
        assert!(
            user.starts_with("Title: Apple beats earnings\n\nApple reported record AI revenue."),
            "{user}"
        );
        assert!(!user.contains("Ticker"), "{user}");
        let answer = task.parse_answer(r#"{"sentiment":"positive","impact_score":2,"keywords":["ai"],"summary":"Apple beat earnings on AI revenue."}"#);
        let values: Vec<(String, Option<f64>)> = task
            .score(&s, &answer)
            .into_iter()
            .map(|(n, s)| (n, s.value))
            .collect();
        assert_eq!(
            values,
            vec![
                ("sentiment_acc".into(), Some(1.0)),
                ("impact".into(), Some(1.0)),
                ("keyword".into(), Some(2.0 / 3.0)),
                ("summary_rouge".into(), Some(1.0)),
                ("completeness".into(), Some(1.0)),
            ]
        );
    }

    #[test]
    fn support_qa_runs_on_spec_003_record() {
        let line = r#"{"id":"toy-001","messages":[{"role":"user","content":"비밀번호를 잊었어요"}],"expected":"비밀번호 재설정을 위해 등록된 이메일을 확인하세요.","tags":["toy"],"metadata":{"language":"ko","keywords":["이메일"]}}"#;
        let s = spec003::parse("toy.jsonl", line.as_bytes()).records[0].to_sample();
        let task = preset("support_qa").expect("preset");
        let prompt = builtin_template("support_qa")
            .expect("template")
            .render(&s, &task.serialize_fields)
            .expect("renders");
        assert_eq!(prompt.messages[1].content, "비밀번호를 잊었어요");
        let answer = task.parse_answer("비밀번호 재설정을 위해 등록된 이메일을 확인하세요.");
        let values: Vec<Option<f64>> = task
            .score(&s, &answer)
            .into_iter()
            .map(|(_, s)| s.value)
            .collect();
        assert_eq!(values, vec![Some(1.0), Some(1.0)]);
    }

    #[test]
    fn rag_qa_matches_the_existing_rag_prompt_and_scoring() {
        let line = r#"{"q":"服务返回NaN怎么办？","gold":["API密钥配置错误","模型端点错误"],"doc_hint":["lightrag_faq.md"]}"#;
        let case = rag::parse("rag.jsonl", line.as_bytes()).cases.remove(0);
        let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(line) else {
            panic!("object")
        };
        let s = Sample::new(case.id.clone(), fields);
        let prompt = builtin_template("rag_qa")
            .expect("template")
            .render(&s, &[])
            .expect("renders");
        assert_eq!(
            prompt.messages,
            vec![
                ChatMessage::new("system", DEFAULT_SYSTEM_PROMPT),
                ChatMessage::new("user", case.q.clone())
            ]
        );
        let task = preset("rag_qa").expect("preset");
        let answer = task.parse_answer("可能是API密钥配置错误。来自 lightrag_faq.md");
        let values: Vec<(String, Option<f64>)> = task
            .score(&s, &answer)
            .into_iter()
            .map(|(n, s)| (n, s.value))
            .collect();
        assert_eq!(
            values,
            vec![
                ("accuracy".into(), Some(1.0)),
                ("citation".into(), Some(1.0))
            ]
        );
    }

    /// `rag_qa` is built in code; it must be the preset's YAML with the run's
    /// matching, and score and render as the parsed preset and the Jinja
    /// template do.
    #[test]
    fn rag_qa_built_in_code_equals_the_parsed_preset() {
        let lines = [
            r#"{"q":"服务返回NaN怎么办？","gold":["API密钥配置错误","模型端点错误"],"doc_hint":["lightrag_faq.md"]}"#,
            r#"{"q":"What is {{ q }}?\n","gold":["a b","c"],"doc_hint":["x.md","y.md"]}"#,
        ];
        let answers = [
            "可能是API密钥配置错误。来自 lightrag_faq.md",
            "a  b and C, see y.md",
            "",
            "nothing at all",
        ];
        for (match_mode, threshold) in [
            (MatchMode::Fuzzy, 0.6),
            (MatchMode::Strict, 0.6),
            (MatchMode::Fuzzy, 0.9),
        ] {
            let scoring = ScoringConfig {
                match_mode,
                fuzzy_threshold: threshold,
            };
            for system in ["", "Be brief. {{ not a template }}"] {
                let (task, template) = rag_qa(scoring, system).expect("rag_qa");
                let mut parsed = preset("rag_qa").expect("preset");
                for raw in parsed
                    .raw
                    .metrics
                    .iter_mut()
                    .filter(|m| m.kind == "rag_accuracy")
                {
                    let mode = if match_mode == MatchMode::Strict {
                        "strict"
                    } else {
                        "fuzzy"
                    };
                    raw.keys.insert("match_mode".into(), json!(mode));
                    raw.keys.insert("fuzzy_threshold".into(), json!(threshold));
                }
                assert_eq!(task.raw, parsed.raw);
                assert_eq!(task.schema, parsed.schema);
                let names = |t: &Task| {
                    t.metrics
                        .iter()
                        .map(|m| (m.name.clone(), m.kind.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(names(&task), names(&parsed));
                let parsed =
                    Task::try_from(parsed.raw.clone()).expect("the preset with the run's matching");
                let mut jinja_raw = builtin_raw_template("rag_qa").expect("template");
                jinja_raw.system =
                    (!system.trim().is_empty()).then(|| format!("{{{{ {RAG_SYSTEM_VAR} }}}}"));
                let jinja = PromptTemplate::new(jinja_raw)
                    .expect("jinja")
                    .with_var(RAG_SYSTEM_VAR, system);
                for line in lines {
                    let case = rag::parse("rag.jsonl", line.as_bytes()).cases.remove(0);
                    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(line) else {
                        panic!("object")
                    };
                    let s = Sample::new(case.id.clone(), fields);
                    assert_eq!(template.render(&s, &[]), jinja.render(&s, &[]));
                    for answer in answers {
                        let values = |t: &Task| {
                            t.score(&s, &t.parse_answer(answer))
                                .into_iter()
                                .map(|(n, s)| (n, s.value))
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(values(&task), values(&parsed), "{answer}");
                    }
                }
            }
        }
    }
}
