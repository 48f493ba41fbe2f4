//! Judge prompts (issue 11): versioned YAML files with an `id`, a `version`,
//! a `language` (`zh` or `en`), a `mode` (`single`: grade one answer;
//! `pairwise`: compare two), the `criteria`, the `scale` and the `system` /
//! `user` Jinja templates, rendered with the task template engine
//! (`task::template`, minijinja). Six are built in (`crates/core/judges/`):
//! `correctness` (an answer against a reference, `CORRECT` / `INCORRECT`),
//! `rubric` (rubric items, 1–5, a pass from 4) and `pairwise` (`A` / `B` /
//! `TIE`), each in Chinese and English. A task may name its own file instead.
//!
//! Template variables: every field of the dataset sample, then `question`
//! (the last user message of the task's prompt), `answer` (the judged
//! answer), `reference`, `criteria` (a list), `rubric` (a list), and for
//! pairwise prompts `answer_a` / `answer_b` (the two answers in the order
//! shown). Judge variables win over sample fields of the same name.
//!
//! Decision: the reply format is not left to each template. The core appends
//! one instruction to the user message, made from the scale (`End your reply
//! with one line "GRADE: X", where X is one of: CORRECT, INCORRECT.`), so the
//! instruction and the strict reader (`judge::verdict`) can never disagree.
//! The mock judge recognises a judge request by that line ([`instruction_scale`]).
//!
//! Scale values: a label scale gives 1 to a `pass` label and 0 to the others;
//! a range `[lo, hi]` gives `(n − lo) / (hi − lo)` and passes from
//! `pass_from`. A pairwise prompt's labels are exactly `A`, `B` and optionally
//! `TIE` (the answer shown first, second, neither).

use super::verdict::Scale;
use crate::dataset::sample::Sample;
use crate::provider::ChatMessage;
use crate::template::yaml::{from_yaml, locate};
use crate::template::{PromptTemplate, RawTemplate};
use crate::template::{TaskError, TaskErrors};
use crate::Lang;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A judge prompt file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJudgePrompt {
    /// Prompt id (what a metric's `judge` names).
    pub id: String,
    /// Version; bump it on every change.
    pub version: String,
    /// `zh` or `en`.
    pub language: String,
    /// `single` (default) or `pairwise`.
    #[serde(default)]
    pub mode: Option<String>,
    /// What the judge is asked to check.
    #[serde(default)]
    pub criteria: Vec<String>,
    /// What a metric must give: `reference` (a `reference_field`), `rubric`
    /// (rubric items).
    #[serde(default)]
    pub needs: Vec<String>,
    /// The values a verdict may take.
    pub scale: RawScale,
    /// System message template.
    #[serde(default)]
    pub system: Option<String>,
    /// User message template.
    pub user: String,
}

/// A scale as written: `labels` (+ `pass`) or `range` (+ `pass_from`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScale {
    /// Labels, e.g. `[CORRECT, INCORRECT]`.
    #[serde(default)]
    pub labels: Option<Vec<String>>,
    /// The labels that count as a pass.
    #[serde(default)]
    pub pass: Option<Vec<String>>,
    /// Whole numbers `[lo, hi]`.
    #[serde(default)]
    pub range: Option<[i64; 2]>,
    /// The lowest passing number.
    #[serde(default)]
    pub pass_from: Option<i64>,
    /// A tag list: zero or more of these tags (dialog judging).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// A tag list whose tags each request gives: `rubric` (the rubric items).
    #[serde(default)]
    pub tags_from: Option<String>,
}

/// Grade one answer, or compare two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One answer, graded on the scale.
    Single,
    /// Two answers (`A` shown first, `B` second), or a tie.
    Pairwise,
}

/// A checked, compiled judge prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgePrompt {
    /// Id.
    pub id: String,
    /// Version.
    pub version: String,
    /// Language of the text (and of the appended instruction).
    pub language: Lang,
    /// Single or pairwise.
    pub mode: Mode,
    /// Criteria (a metric's own `criteria` replace them).
    pub criteria: Vec<String>,
    /// What a metric must give (`reference`, `rubric`).
    pub needs: Vec<String>,
    /// The verdict scale.
    pub scale: Scale,
    /// Labels that pass (label scales).
    pub pass: Vec<String>,
    /// Lowest passing number (range scales).
    pub pass_from: Option<i64>,
    /// `builtin` or the file it was read from.
    pub source: String,
    template: PromptTemplate,
}

/// A built-in prompt's file, `judges/<name>.yaml`, as the JSON build.rs makes
/// of it (so reading it needs no YAML parser).
macro_rules! judge_json {
    ($name:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/judges/", $name, ".json"))
    };
}

/// The built-in prompts' files: (id, language, JSON, see [`judge_json!`]).
const BUILTIN: [(&str, Lang, &str); 6] = [
    ("correctness", Lang::En, judge_json!("correctness.en")),
    ("correctness", Lang::Zh, judge_json!("correctness.zh")),
    ("rubric", Lang::En, judge_json!("rubric.en")),
    ("rubric", Lang::Zh, judge_json!("rubric.zh")),
    ("pairwise", Lang::En, judge_json!("pairwise.en")),
    ("pairwise", Lang::Zh, judge_json!("pairwise.zh")),
];

/// The built-in dialog judge prompts (spec 001's judged metrics, see
/// `dialog::judge`): (id, language, JSON as for [`BUILTIN`]). Not for
/// `llm_judge` metrics.
const DIALOG: [(&str, Lang, &str); 8] = [
    (
        "dialog_risk_tags",
        Lang::Zh,
        judge_json!("dialog_risk_tags.zh"),
    ),
    (
        "dialog_risk_tags",
        Lang::En,
        judge_json!("dialog_risk_tags.en"),
    ),
    (
        "dialog_compliance",
        Lang::Zh,
        judge_json!("dialog_compliance.zh"),
    ),
    (
        "dialog_compliance",
        Lang::En,
        judge_json!("dialog_compliance.en"),
    ),
    (
        "dialog_rubric_items",
        Lang::Zh,
        judge_json!("dialog_rubric_items.zh"),
    ),
    (
        "dialog_rubric_items",
        Lang::En,
        judge_json!("dialog_rubric_items.en"),
    ),
    (
        "dialog_explain_score",
        Lang::Zh,
        judge_json!("dialog_explain_score.zh"),
    ),
    (
        "dialog_explain_score",
        Lang::En,
        judge_json!("dialog_explain_score.en"),
    ),
];

/// The ids of the built-in dialog judge prompts.
#[cfg(test)]
pub const DIALOG_IDS: [&str; 4] = [
    "dialog_risk_tags",
    "dialog_compliance",
    "dialog_rubric_items",
    "dialog_explain_score",
];

/// A built-in dialog judge prompt by id and language.
pub fn dialog_builtin(id: &str, language: Lang) -> Option<JudgePrompt> {
    let (_, _, json) = DIALOG.iter().find(|(i, l, _)| *i == id && *l == language)?;
    from_builtin(json)
}

/// A built-in prompt from its JSON (checked against its YAML by the tests).
fn from_builtin(json: &str) -> Option<JudgePrompt> {
    let raw: RawJudgePrompt = serde_json::from_str(json).ok()?;
    JudgePrompt::from_raw(raw, "builtin").ok()
}

/// What a prompt may need from its metric.
pub const NEEDS: [&str; 2] = ["reference", "rubric"];

/// The ids of the built-in prompts.
pub const BUILTIN_IDS: [&str; 3] = ["correctness", "rubric", "pairwise"];

/// A built-in prompt by id and language.
pub fn builtin(id: &str, language: Lang) -> Option<JudgePrompt> {
    let (_, _, json) = BUILTIN
        .iter()
        .find(|(i, l, _)| *i == id && *l == language)?;
    from_builtin(json)
}

/// `zh` or `en`.
pub fn code(language: Lang) -> &'static str {
    language.pick("zh", "en")
}

impl JudgePrompt {
    /// Reads and checks a judge prompt file; every error names the file, the
    /// key and, where it can be found, the line.
    pub fn parse(file: &str, yaml: &str) -> Result<JudgePrompt, TaskErrors> {
        let raw: RawJudgePrompt = from_yaml(file, yaml)?;
        JudgePrompt::from_raw(raw, file).map_err(|TaskErrors(errors)| {
            TaskErrors(
                errors
                    .into_iter()
                    .map(|mut e| {
                        e.file = file.to_string();
                        e.line = locate(yaml, &e.path);
                        e
                    })
                    .collect(),
            )
        })
    }

    fn from_raw(raw: RawJudgePrompt, source: &str) -> Result<JudgePrompt, TaskErrors> {
        let mut errors = Vec::new();
        for (key, v) in [("id", &raw.id), ("version", &raw.version)] {
            if v.trim().is_empty() {
                errors.push(TaskError::at(key, "expected a non-empty string"));
            }
        }
        let language = Lang::parse(raw.language.trim());
        if language.is_none() {
            errors.push(TaskError::at(
                "language",
                format!("expected `zh` or `en`, found `{}`", raw.language),
            ));
        }
        let mode = match raw.mode.as_deref().map(str::trim) {
            None | Some("single") => Mode::Single,
            Some("pairwise") => Mode::Pairwise,
            Some(other) => {
                errors.push(TaskError::at(
                    "mode",
                    format!("expected `single` or `pairwise`, found `{other}`"),
                ));
                Mode::Single
            }
        };
        for (i, n) in raw.needs.iter().enumerate() {
            if !NEEDS.contains(&n.trim()) {
                errors.push(TaskError::at(
                    format!("needs[{i}]"),
                    format!("expected one of {}, found `{n}`", NEEDS.join(", ")),
                ));
            }
        }
        let (scale, pass, pass_from) = match check_scale(&raw.scale, mode) {
            Ok(s) => s,
            Err(e) => {
                errors.push(e);
                (Scale::Labels(Vec::new()), Vec::new(), None)
            }
        };
        let template = PromptTemplate::new(RawTemplate {
            name: raw.id.trim().to_string(),
            version: raw.version.trim().to_string(),
            system: raw.system.clone(),
            user: raw.user.clone(),
        });
        let template = match template {
            Ok(t) => Some(t),
            Err(e) => {
                let part = match &e {
                    crate::template::TemplateError::Syntax { part, .. } => *part,
                    _ => "user",
                };
                errors.push(TaskError::at(part, e.to_string()));
                None
            }
        };
        match (errors.is_empty(), template, language) {
            (true, Some(template), Some(language)) => Ok(JudgePrompt {
                id: raw.id.trim().to_string(),
                version: raw.version.trim().to_string(),
                language,
                mode,
                criteria: raw.criteria.iter().map(|c| c.trim().to_string()).collect(),
                needs: raw.needs.iter().map(|n| n.trim().to_string()).collect(),
                scale,
                pass,
                pass_from,
                source: source.to_string(),
                template,
            }),
            _ => Err(TaskErrors(errors)),
        }
    }

    /// The value in [0, 1] of a scale value (as the verdict reader returns it).
    pub fn value(&self, verdict: &str) -> Option<f64> {
        match &self.scale {
            Scale::Labels(labels) => labels
                .iter()
                .any(|l| l == verdict)
                .then_some(f64::from(u8::from(self.pass.iter().any(|p| p == verdict)))),
            Scale::Range { lo, hi } => {
                let n: i64 = verdict.parse().ok()?;
                let span = (hi - lo).max(1) as f64;
                Some((n - lo) as f64 / span)
            }
            Scale::Tags(_) => None,
        }
    }

    /// The prompt with its tag list set to `tags` (a `tags_from` scale, whose
    /// tags each request gives); other scales are kept.
    pub fn with_tags(&self, tags: &[String]) -> JudgePrompt {
        let mut p = self.clone();
        if matches!(p.scale, Scale::Tags(_)) {
            p.scale = Scale::Tags(tags.to_vec());
        }
        p
    }

    /// The lowest value that passes (single mode).
    pub fn pass_value(&self) -> f64 {
        match (&self.scale, self.pass_from) {
            (Scale::Range { lo, hi }, Some(from)) => (from - lo) as f64 / (hi - lo).max(1) as f64,
            _ => 1.0,
        }
    }

    /// Renders the judge conversation: the template's messages with `vars`
    /// (over the sample's fields), and the reply instruction appended to the
    /// user message.
    pub fn render(
        &self,
        sample: &Sample,
        vars: &Map<String, Value>,
    ) -> Result<Vec<ChatMessage>, String> {
        let mut fields = sample.fields.clone();
        fields.extend(vars.clone());
        let ctx = Sample::new(sample.id.clone(), fields);
        let mut messages = self
            .template
            .render(&ctx, &[])
            .map_err(|e| e.to_string())?
            .messages;
        if let Some(user) = messages.iter_mut().rev().find(|m| m.role == "user") {
            user.content = format!("{}\n\n{}", user.content.trim_end(), self.instruction());
        }
        Ok(messages)
    }

    /// The reply instruction appended to every judge request.
    pub fn instruction(&self) -> String {
        instruction(&self.scale, self.language)
    }

    /// The short message that asks again after an unreadable verdict.
    pub fn repair(&self, reason: &str) -> String {
        match self.language {
            Lang::En => format!(
                "{REPAIR_EN} ({reason}). Reply again: {}",
                self.instruction()
            ),
            Lang::Zh => format!(
                "{REPAIR_ZH}（{reason}）。请重新回复：{}",
                self.instruction()
            ),
        }
    }
}

/// Start of the repair message (English).
pub const REPAIR_EN: &str = "Your verdict could not be read";
/// Start of the repair message (Chinese).
pub const REPAIR_ZH: &str = "无法读取你的评分";

const LABELS_EN: &str = "End your reply with one line \"GRADE: X\", where X is one of: ";
const RANGE_EN: &str = "End your reply with one line \"GRADE: X\", where X is a whole number from ";
const LABELS_ZH: &str = "请在回复的最后单独一行写出 \"GRADE: X\"，X 为以下之一：";
const RANGE_ZH: &str = "请在回复的最后单独一行写出 \"GRADE: X\"，X 为整数，范围 ";
const TAGS_EN: &str = "End your reply with one line \"TAGS: [...]\", a JSON list of zero or more of these tags, written exactly as here: ";
const TAGS_ZH: &str = "请在回复的最后单独一行写出 \"TAGS: [...]\"，为 JSON 列表，包含零个或多个以下标签（按原样书写）：";

/// The reply instruction of a scale, in a language.
pub fn instruction(scale: &Scale, language: Lang) -> String {
    match (scale, language) {
        (Scale::Labels(l), Lang::En) => format!("{LABELS_EN}{}.", l.join(", ")),
        (Scale::Labels(l), Lang::Zh) => format!("{LABELS_ZH}{}。", l.join(", ")),
        (Scale::Range { lo, hi }, Lang::En) => format!("{RANGE_EN}{lo} to {hi}."),
        (Scale::Range { lo, hi }, Lang::Zh) => format!("{RANGE_ZH}{lo} 到 {hi}。"),
        (Scale::Tags(t), Lang::En) => format!("{TAGS_EN}{}.", json_list(t)),
        (Scale::Tags(t), Lang::Zh) => format!("{TAGS_ZH}{}。", json_list(t)),
    }
}

fn json_list(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".into())
}

/// The scale of a judge request, read back from the instruction the core
/// appends ([`instruction`]); `None` for any other request.
pub fn instruction_scale(text: &str) -> Option<Scale> {
    let after = |head: &str| text.rfind(head).map(|at| &text[at + head.len()..]);
    let first_line = |s: &str| s.lines().next().unwrap_or("").to_string();
    if let Some(rest) = after(TAGS_EN).or_else(|| after(TAGS_ZH)) {
        let line = first_line(rest);
        let body = line.trim().trim_end_matches(['.', '。']);
        return serde_json::from_str::<Vec<String>>(body)
            .ok()
            .map(Scale::Tags);
    }
    if let Some(rest) = after(LABELS_EN).or_else(|| after(LABELS_ZH)) {
        let line = first_line(rest);
        let body = line.trim_end_matches(['.', '。']);
        let labels: Vec<String> = body
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        return (!labels.is_empty()).then_some(Scale::Labels(labels));
    }
    let rest = first_line(after(RANGE_EN).or_else(|| after(RANGE_ZH))?);
    let nums: Vec<i64> = rest
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums.as_slice() {
        [lo, hi, ..] if lo < hi => Some(Scale::Range { lo: *lo, hi: *hi }),
        _ => None,
    }
}

type CheckedScale = (Scale, Vec<String>, Option<i64>);

fn check_scale(s: &RawScale, mode: Mode) -> Result<CheckedScale, TaskError> {
    if s.tags.is_some() || s.tags_from.is_some() {
        let others = s.labels.is_some() || s.range.is_some() || s.pass.is_some();
        if others || s.pass_from.is_some() || mode == Mode::Pairwise {
            return Err(TaskError::at(
                "scale",
                "a tag list (`tags` or `tags_from`) is for single prompts, without `labels`, `range`, `pass` or `pass_from`",
            ));
        }
        return match (&s.tags, s.tags_from.as_deref().map(str::trim)) {
            (Some(tags), None) => {
                let tags: Vec<String> = tags.iter().map(|t| t.trim().to_string()).collect();
                if tags.is_empty() || tags.iter().any(String::is_empty) {
                    return Err(TaskError::at(
                        "scale.tags",
                        "expected at least one non-empty tag",
                    ));
                }
                Ok((Scale::Tags(tags), Vec::new(), None))
            }
            (None, Some("rubric")) => Ok((Scale::Tags(Vec::new()), Vec::new(), None)),
            (None, Some(other)) => Err(TaskError::at(
                "scale.tags_from",
                format!("expected `rubric`, found `{other}`"),
            )),
            _ => Err(TaskError::at(
                "scale",
                "expected either `tags` or `tags_from`, not both",
            )),
        };
    }
    match (&s.labels, &s.range) {
        (Some(_), Some(_)) | (None, None) => Err(TaskError::at(
            "scale",
            "expected either `labels` (with `pass`) or `range: [lo, hi]` (with `pass_from`)",
        )),
        (Some(labels), None) => {
            let labels: Vec<String> = labels.iter().map(|l| l.trim().to_string()).collect();
            if labels.len() < 2
                || labels
                    .iter()
                    .any(|l| l.is_empty() || l.contains(char::is_whitespace))
            {
                return Err(TaskError::at(
                    "scale.labels",
                    "expected at least two labels, each one word",
                ));
            }
            if s.pass_from.is_some() {
                return Err(TaskError::at("scale.pass_from", "applies to `range` only"));
            }
            let pass: Vec<String> = s
                .pass
                .iter()
                .flatten()
                .map(|p| p.trim().to_string())
                .collect();
            if let Some(p) = pass.iter().find(|p| !labels.contains(p)) {
                return Err(TaskError::at(
                    "scale.pass",
                    format!("`{p}` is not one of the labels {}", labels.join(", ")),
                ));
            }
            match mode {
                Mode::Pairwise => {
                    let ok = labels.len() <= 3
                        && labels.iter().any(|l| l == "A")
                        && labels.iter().any(|l| l == "B")
                        && labels
                            .iter()
                            .all(|l| ["A", "B", "TIE"].contains(&l.as_str()));
                    if !ok || !pass.is_empty() {
                        return Err(TaskError::at(
                            "scale.labels",
                            "a pairwise prompt's labels are A, B and optionally TIE, without `pass`",
                        ));
                    }
                }
                Mode::Single if pass.is_empty() => {
                    return Err(TaskError::at(
                        "scale.pass",
                        "expected the labels that count as a pass, e.g. `pass: [CORRECT]`",
                    ));
                }
                Mode::Single => {}
            }
            Ok((Scale::Labels(labels), pass, None))
        }
        (None, Some([lo, hi])) => {
            if lo >= hi {
                return Err(TaskError::at(
                    "scale.range",
                    format!("expected lo < hi, found [{lo}, {hi}]"),
                ));
            }
            if mode == Mode::Pairwise || s.pass.is_some() {
                return Err(TaskError::at(
                    "scale",
                    "a range scale is for single answers and passes with `pass_from`",
                ));
            }
            match s.pass_from {
                Some(p) if (*lo..=*hi).contains(&p) => {
                    Ok((Scale::Range { lo: *lo, hi: *hi }, Vec::new(), Some(p)))
                }
                _ => Err(TaskError::at(
                    "scale.pass_from",
                    format!("expected the lowest passing number, from {lo} to {hi}"),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each built-in prompt read from build.rs's JSON is the prompt its
    /// YAML file gives through [`JudgePrompt::parse`].
    #[test]
    fn every_builtin_is_its_yaml_file() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/judges");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).expect("judges/") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).expect("name");
            let Some((id, lang)) = name.strip_suffix(".yaml").and_then(|s| s.rsplit_once('.'))
            else {
                continue;
            };
            let lang = Lang::parse(lang).expect("zh or en");
            let yaml = std::fs::read_to_string(&path).expect("read");
            let mut parsed = JudgePrompt::parse(name, &yaml).expect("parses");
            parsed.source = "builtin".into();
            let built = builtin(id, lang)
                .or_else(|| dialog_builtin(id, lang))
                .unwrap_or_else(|| panic!("{name} is not built in"));
            assert_eq!(built, parsed, "{name}");
            seen += 1;
        }
        assert_eq!(seen, BUILTIN.len() + DIALOG.len());
    }

    #[test]
    fn every_builtin_parses_in_both_languages() {
        for id in BUILTIN_IDS {
            for lang in [Lang::Zh, Lang::En] {
                let p = builtin(id, lang).unwrap_or_else(|| panic!("{id} {lang:?}"));
                assert_eq!((p.id.as_str(), p.language), (id, lang));
                assert!(!p.criteria.is_empty());
                assert_eq!(instruction_scale(&p.instruction()), Some(p.scale.clone()));
            }
        }
        for id in DIALOG_IDS {
            for lang in [Lang::Zh, Lang::En] {
                let p = dialog_builtin(id, lang).unwrap_or_else(|| panic!("{id} {lang:?}"));
                assert_eq!((p.id.as_str(), p.language), (id, lang));
                let p = p.with_tags(&["信息依据".to_string(), "a, b".to_string()]);
                assert_eq!(instruction_scale(&p.instruction()), Some(p.scale.clone()));
            }
        }
        let p = builtin("rubric", Lang::En).expect("rubric");
        assert_eq!(p.value("4"), Some(0.75));
        assert_eq!(p.pass_value(), 0.75);
        let c = builtin("correctness", Lang::Zh).expect("correctness");
        assert_eq!(
            (c.value("CORRECT"), c.value("INCORRECT")),
            (Some(1.0), Some(0.0))
        );
    }

    #[test]
    fn renders_with_sample_fields_and_appends_the_instruction() {
        let p = builtin("correctness", Lang::En).expect("builtin");
        let Value::Object(fields) = json!({"q": "2+2?", "gold": "4"}) else {
            panic!()
        };
        let sample = Sample::new("s1", fields);
        let Value::Object(vars) = json!({
            "question": "What is 2+2?", "answer": "four", "reference": "4",
            "criteria": p.criteria.clone()
        }) else {
            panic!()
        };
        let m = p.render(&sample, &vars).expect("renders");
        assert_eq!(m[0].role, "system");
        let user = &m[1].content;
        assert!(
            user.contains("What is 2+2?") && user.contains("four"),
            "{user}"
        );
        assert!(user.ends_with("one of: CORRECT, INCORRECT."), "{user}");
        assert!(p.repair("no grade").starts_with(REPAIR_EN));
    }

    #[test]
    fn bad_files_are_located() {
        let bad = "id: x\nversion: \"1\"\nlanguage: fr\nscale:\n  labels: [OK, BAD]\n  pass: [GOOD]\nuser: \"{{ answer\"\n";
        let TaskErrors(e) = JudgePrompt::parse("j.yaml", bad).expect_err("bad");
        let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert!(
            shown[0].starts_with("j.yaml:3: `language`: expected `zh` or `en`"),
            "{shown:?}"
        );
        assert!(
            shown[1].starts_with("j.yaml:6: `scale.pass`: `GOOD` is not one"),
            "{shown:?}"
        );
        assert!(shown[2].starts_with("j.yaml:7: `user`"), "{shown:?}");
        let e = JudgePrompt::parse(
            "j.yaml",
            "id: x\nversion: v\nlanguage: en\nscale: {}\nuser: u\nextra: 1\n",
        )
        .expect_err("unknown key");
        assert!(e.to_string().contains("unknown field `extra`"), "{e}");
    }
}
