//! A task's prompt template over its samples, before anything is sent: each
//! sample's rendered prompt (or why it cannot be rendered), the reason a run
//! stops at once when no sample's prompt renders, and each generic sample's
//! length bucket, measured on the fields the template reads.
//!
//! **No prompt renders.** A sample whose prompt cannot be rendered is a failed
//! case (`ErrorKind::Prompt`) and the rest runs. When that is every sample, the
//! run has nothing to send: [`no_prompt_renders`] says why, in one line naming
//! the template (name, version, source and the fields it reads, as `evalpage
//! task check` shows it) and each missing field with how many samples lack it
//! and the first one's file and line. The task kind hands it to the run engine
//! (`Kind::cannot_run`), which stops the run before any call, as at a fatal
//! answer, so the shells exit or show it the same way.
//!
//! **Length of a generic sample.** A spec 004 sample has no single question
//! text, so its length bucket (spec 003's breakdown by length) is measured on
//! the values of the sample fields its prompt template reads (the template's
//! variables and the task's `serialize_fields`): strings as they are, other
//! values as compact JSON, in field-name order, joined by newlines. That is
//! the sample's own input as the model sees it, without the template's fixed
//! text: that text is the same for every sample and would put every sample in
//! the same bucket (a few hundred characters of instructions make every
//! prompt `long`). It measures what the other formats measure: a spec 003
//! record's messages, a RAG question's `q`. A sample that has none of those
//! fields is `short`. Samples that already have a bucket (spec 003 records,
//! RAG questions) keep it.

use super::data::EvalSample;
use super::report::TaskInfo;
use crate::provider::ChatMessage;
use crate::task::contract::{PromptTemplate, Task};
use crate::template::TemplateError;
use crate::text::length_bucket;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The start of the message of a task run that stopped before sending
/// anything because no sample's prompt could be rendered (the `error`
/// record, the shells' messages).
pub const PROMPT_STOP: &str = "no sample's prompt could be rendered";

/// Causes listed in [`no_prompt_renders`]'s message before "and N more".
const MAX_CAUSES: usize = 3;

/// A rendered prompt, or why the sample's prompt cannot be rendered.
pub(crate) type Rendered = Result<Vec<ChatMessage>, TemplateError>;

/// Each sample's prompt as the template renders it (the messages sent), or
/// why it cannot be rendered: the run's requests and `results.jsonl`'s
/// `messages` both come from here.
pub fn render_prompts(
    task: &Task,
    template: &PromptTemplate,
    samples: &[EvalSample],
) -> Vec<Result<Vec<ChatMessage>, String>> {
    render_all(task, template, samples)
        .into_iter()
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
}

/// [`render_prompts`] with each error as the template gave it.
pub(crate) fn render_all(
    task: &Task,
    template: &PromptTemplate,
    samples: &[EvalSample],
) -> Vec<Rendered> {
    samples
        .iter()
        .map(|s| {
            template
                .render(&s.sample, &task.serialize_fields)
                .map(|p| p.messages)
        })
        .collect()
}

/// Why a run over `samples` (read from `dataset`) can send nothing: `None`
/// when a sample's prompt renders or there is no sample, else the message
/// (see the module doc), starting with [`PROMPT_STOP`]. `rendered` is
/// [`render_all`]'s, sample by sample.
pub(crate) fn no_prompt_renders(
    template: &PromptTemplate,
    info: &TaskInfo,
    dataset: &str,
    samples: &[EvalSample],
    rendered: &[Rendered],
) -> Option<String> {
    if samples.is_empty() || rendered.iter().any(Result::is_ok) {
        return None;
    }
    let errors = rendered.iter().filter_map(|r| r.as_ref().err());
    let causes = causes(dataset, samples.iter().zip(errors));
    let reads: Vec<String> = template.variables().into_iter().collect();
    Some(format!(
        "{PROMPT_STOP} ({} sample(s)): template `{}` {} ({}; reads {}): {}",
        samples.len(),
        info.prompt_name,
        info.prompt_version,
        info.prompt_source,
        if reads.is_empty() {
            "no field".to_string()
        } else {
            reads.join(", ")
        },
        causes
    ))
}

/// The distinct causes, in sample order: each missing field with how many
/// samples lack it and the first one's place; any other error as it is,
/// with its sample's place. At most [`MAX_CAUSES`], then how many more.
fn causes<'a>(
    dataset: &str,
    failed: impl Iterator<Item = (&'a EvalSample, &'a TemplateError)>,
) -> String {
    // (part, field) or the error's text -> (samples, first sample's place)
    let mut order: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (s, e) in failed {
        let place = format!("{dataset}:{}, sample `{}`", s.sample.line, s.sample.id);
        let key = match e {
            TemplateError::MissingField { part, field, .. } => {
                format!("field `{field}` ({part}) is missing from")
            }
            other => format!("{other}, in"),
        };
        let entry = seen.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, place)
        });
        entry.0 += 1;
    }
    let mut shown: Vec<String> = order
        .iter()
        .take(MAX_CAUSES)
        .filter_map(|k| {
            let (n, first) = seen.get(k)?;
            Some(format!("{k} {n} sample(s), first {first}"))
        })
        .collect();
    if order.len() > MAX_CAUSES {
        shown.push(format!("and {} more", order.len() - MAX_CAUSES));
    }
    shown.join("; ")
}

/// The sample fields `template` reads for `task`: the template's variables
/// and the task's `serialize_fields`.
pub fn template_reads(task: &Task, template: &PromptTemplate) -> BTreeSet<String> {
    let mut reads = template.variables();
    reads.extend(task.serialize_fields.iter().cloned());
    reads
}

/// Sets the length bucket of every sample without one, from the fields
/// `task`'s `template` reads (see the module doc for the text measured).
pub fn measure_lengths(task: &Task, template: &PromptTemplate, samples: &mut [EvalSample]) {
    measure_with(&template_reads(task, template), samples);
}

/// [`measure_lengths`] with the fields read given.
pub(crate) fn measure_with(reads: &BTreeSet<String>, samples: &mut [EvalSample]) {
    for s in samples.iter_mut().filter(|s| s.length_bucket.is_none()) {
        s.length_bucket = Some(length_bucket(&input_text(s, reads)).to_string());
    }
}

/// The values of the fields in `reads` the sample has: strings as they are,
/// others as compact JSON, joined by newlines.
fn input_text(s: &EvalSample, reads: &BTreeSet<String>) -> String {
    let values: Vec<String> = reads
        .iter()
        .filter_map(|f| s.sample.fields.get(f))
        .map(|v| match v {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect();
    values.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::data::{load, DatasetFormat};
    use super::*;
    use crate::task::contract::{builtin_template, preset};

    /// The event_eval preset's names, as the task fixture has them.
    fn info() -> TaskInfo {
        crate::task::testing::fixture().info
    }

    fn setup(lines: &str) -> (Task, PromptTemplate, Vec<EvalSample>) {
        let task = preset("event_eval").expect("preset");
        let template = builtin_template("ie_json").expect("template");
        let data = load("d.jsonl", lines.as_bytes(), DatasetFormat::Samples, None);
        (task, template, data.samples)
    }

    fn why(lines: &str) -> Option<String> {
        let (task, template, samples) = setup(lines);
        let rendered = render_all(&task, &template, &samples);
        no_prompt_renders(&template, &info(), "d.jsonl", &samples, &rendered)
    }

    #[test]
    fn no_renderable_prompt_names_the_template_and_the_missing_field() {
        let lines = concat!(
            "{\"sample_id\":\"A\",\"news_items\":[]}\n",
            "not json\n",
            "{\"sample_id\":\"B\",\"news_items\":[]}\n",
        );
        let Some(why) = why(lines) else {
            panic!("no prompt renders: the run must stop")
        };
        assert_eq!(
            why,
            "no sample's prompt could be rendered (2 sample(s)): template `ie_json` v1 \
             (builtin; reads news_items, ticker): field `ticker` (user) is missing from \
             2 sample(s), first d.jsonl:1, sample `A`"
        );
    }

    #[test]
    fn one_renderable_prompt_or_no_sample_lets_the_run_go_on() {
        let lines = concat!(
            "{\"sample_id\":\"A\",\"news_items\":[]}\n",
            "{\"sample_id\":\"B\",\"ticker\":\"X\",\"news_items\":[]}\n",
        );
        assert_eq!(why(lines), None);
        assert_eq!(why(""), None);
    }

    #[test]
    fn each_missing_field_is_a_cause_and_the_list_is_cut() {
        let (task, template, samples) = setup("{\"sample_id\":\"A\"}\n{\"sample_id\":\"B\"}\n");
        let rendered = render_all(&task, &template, &samples);
        let why = no_prompt_renders(&template, &info(), "d.jsonl", &samples, &rendered);
        // serialize_fields is rendered first: `news_items` is what both lack
        assert!(
            why.as_deref().is_some_and(|w| w.ends_with(
                "field `news_items` (serialize_fields) is missing from 2 sample(s), \
                 first d.jsonl:1, sample `A`"
            )),
            "{why:?}"
        );
        let errors: Vec<(EvalSample, TemplateError)> = (0..5)
            .map(|i| {
                let mut s = samples[0].clone();
                s.sample.line = i + 1;
                let e = TemplateError::MissingField {
                    template: "t".into(),
                    part: "user",
                    field: format!("f{i}"),
                    sample_id: "A".into(),
                };
                (s, e)
            })
            .collect();
        let text = causes("x.jsonl", errors.iter().map(|(s, e)| (s, e)));
        assert!(text.starts_with("field `f0` (user) is missing from 1 sample(s), first x.jsonl:1"));
        assert!(text.ends_with("; and 2 more"), "{text}");
    }

    #[test]
    fn generic_samples_are_measured_on_the_fields_the_template_reads() {
        let long = "x".repeat(120);
        let lines = format!(
            "{{\"sample_id\":\"A\",\"ticker\":\"T\",\"news_items\":[],\"note\":\"{long}{long}\"}}\n\
             {{\"sample_id\":\"B\",\"ticker\":\"T\",\"news_items\":[\"{long}\"]}}\n"
        );
        let (task, template, mut samples) = setup(&lines);
        assert_eq!(samples[0].length_bucket, None);
        measure_lengths(&task, &template, &mut samples);
        // `note` is not read by the template: A's input is "[]\nT"
        assert_eq!(samples[0].length_bucket.as_deref(), Some("short"));
        assert_eq!(samples[1].length_bucket.as_deref(), Some("medium"));
        // a bucket already set (spec 003, RAG) is kept
        samples[0].length_bucket = Some("long".into());
        measure_lengths(&task, &template, &mut samples);
        assert_eq!(samples[0].length_bucket.as_deref(), Some("long"));
    }
}
