//! Batch files in the task mode: the same files as `evalpage batch export`
//! and the answers of the engines that run them, read back.
//!
//! Export: every model call of the run Start would make (ticked endpoint
//! models × samples × repeats) as OpenAI Batch input, one file per model
//! (`round-1/requests-<model>.jsonl`, at most 50,000 lines each) with the
//! CLI's `custom_id`s (`j<job>-c0-<sample>`: the run's job numbers, so the
//! CLI's round-1 answers of the same task, data and models in the same order
//! are read here too) and a `batch.json` that says what was exported. Mock
//! models answer in the page and are not exported.
//!
//! Import: answer files of any engine the core reads
//! (`run::batch::read_answers`), joined on `custom_id`: each job's first call
//! (the model's answer) is taken from them; a request without an answer line
//! is `not_run`, a failed one a failed case with its cause. Later calls (a
//! judge's) are made by the page as in any run.

use super::models::TaskRunSettings;
use super::TaskState;
use evalpage_core::run::batch::{self, read_answers};
use evalpage_core::task::{TaskDataset, PROMPT_STOP};
use evalpage_core::{CallOutcome, ChatMessage, LineError};
use std::collections::HashMap;

/// Answers read from batch files, by job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchAnswers {
    /// The files read.
    pub files: Vec<String>,
    /// Each job's first call's outcome (an answer beats a failure).
    pub by_job: HashMap<usize, CallOutcome>,
    /// Lines that are not a batch answer (reported and skipped).
    pub errors: Vec<LineError>,
    /// Answers to later calls (a judge's), which the page makes itself.
    pub later_calls: usize,
    /// Answers whose `custom_id` is not one evalpage wrote (ignored).
    pub unknown: usize,
}

impl BatchAnswers {
    /// Reads answer files: (name, bytes).
    pub fn read(files: &[(String, Vec<u8>)]) -> BatchAnswers {
        let mut out = BatchAnswers::default();
        for (name, bytes) in files {
            out.files.push(name.clone());
            let (answers, errors) = read_answers(name, bytes);
            out.errors.extend(errors);
            for a in answers {
                match batch::job_of(&a.custom_id) {
                    Some((job, 0)) => {
                        if batch::replaces(out.by_job.get(&job), &a.outcome) {
                            out.by_job.insert(job, a.outcome);
                        }
                    }
                    Some(_) => out.later_calls += 1,
                    None => out.unknown += 1,
                }
            }
        }
        out
    }

    /// The outcome of job `job`'s model call.
    pub fn outcome(&self, job: usize) -> CallOutcome {
        self.by_job.get(&job).cloned().unwrap_or_else(|| {
            CallOutcome::Failed(evalpage_core::CallError::new(
                evalpage_core::ErrorKind::NotRun,
                "no answer line for this request in the imported batch answers",
            ))
        })
    }
}

/// The files of a batch export of the run `state` would start: (path, text).
pub fn export(state: &TaskState) -> Result<Vec<(String, String)>, String> {
    let task = state
        .editors
        .check
        .checked
        .as_ref()
        .ok_or("the task is not valid")?;
    let samples = &state.data.run_data.data.samples;
    let n = samples.len();
    let settings: &TaskRunSettings = &state.run.settings;
    let repeats = settings.repeats(&task.task).n;
    let r = repeats.max(1) as usize;
    let prompts = state
        .prompts()
        .ok_or("the code that checks the task is not loaded yet")?;
    let models: Vec<_> = state
        .models
        .choices
        .iter()
        .filter(|c| state.models.selected.contains(&c.name))
        .collect();
    let mut requests: Vec<(String, serde_json::Value)> = Vec::new();
    for (m, choice) in models.iter().enumerate() {
        let Some(cfg) = choice.request_config(&task.task.default_params) else {
            continue;
        };
        for (i, prompt) in prompts.iter().enumerate() {
            let Ok(messages) = prompt else { continue };
            let Ok(tools) = task.task.tools_for(&samples[i].sample) else {
                continue;
            };
            let req = evalpage_core::build_chat_request(&cfg, messages, tools.as_deref());
            let body: serde_json::Value =
                serde_json::from_str(&req.body).map_err(|e| e.to_string())?;
            for rep in 0..r {
                let job = (m * n + i) * r + rep;
                let id = batch::custom_id(job, 0, Some(&samples[i].sample.id));
                requests.push((id, body.clone()));
            }
        }
    }
    let total = requests.len();
    let mut files: Vec<(String, String)> =
        batch::request_files(requests.iter().map(|(id, body)| (id.as_str(), body)))
            .into_iter()
            .map(|(name, text)| (format!("round-1/{name}"), text))
            .collect();
    let listed: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
    if total == 0 {
        return Err(nothing_to_export(&state.data.run_data.data, &prompts));
    }
    let manifest = serde_json::json!({
        "version": 1,
        "made_by": "evalpage page",
        "task": task.info.name,
        "task_version": task.info.version,
        "dataset": state.data.run_data.data.name,
        "models": models.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "repeats": repeats,
        "rounds": [{"round": 1, "requests": total, "files": listed}],
    });
    files.push((
        "batch.json".into(),
        serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?,
    ));
    Ok(files)
}

/// Why an export has no request: no sample's prompt renders (the first
/// sample's file, line and cause, which names the template's missing field),
/// else no ticked model takes requests.
fn nothing_to_export(data: &TaskDataset, prompts: &[Result<Vec<ChatMessage>, String>]) -> String {
    let first = data
        .samples
        .iter()
        .zip(prompts)
        .find_map(|(s, p)| p.as_ref().err().map(|e| (s.sample.line, e)));
    match first {
        Some((line, why)) if prompts.iter().all(Result::is_err) => format!(
            "nothing to export: {PROMPT_STOP} ({} sample(s)); the first, {}:{line}: {why}; add the \
             field to the samples or change the template",
            prompts.len(),
            data.name
        ),
        _ => {
            "nothing to export: tick an endpoint or registry model (mock models answer in the page)"
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_no_prompt_of_which_renders_names_the_missing_field() {
        let text =
            "{\"sample_id\":\"A\",\"news_items\":[]}\n{\"sample_id\":\"B\",\"news_items\":[]}\n";
        let data = evalpage_core::task::load_dataset(
            "d.jsonl",
            text.as_bytes(),
            evalpage_core::task::DatasetFormat::Samples,
            None,
        );
        let why = "template `ie_json` (user): sample `A` has no field `ticker`".to_string();
        let none = vec![Err(why.clone()), Err(why)];
        assert_eq!(
            nothing_to_export(&data, &none),
            "nothing to export: no sample's prompt could be rendered (2 sample(s)); the first, \
             d.jsonl:1: template `ie_json` (user): sample `A` has no field `ticker`; add the field \
             to the samples or change the template"
        );
        let some = vec![Err("x".to_string()), Ok(Vec::new())];
        assert!(nothing_to_export(&data, &some).contains("tick an endpoint"));
    }

    #[test]
    fn answers_are_read_by_job_and_an_answer_beats_a_failure() {
        let ok = |id: &str, t: &str| {
            format!(
            "{{\"custom_id\": \"{id}\", \"response\": {{\"status_code\": 200, \"body\": {{\"choices\": [{{\"message\": {{\"content\": \"{t}\"}}, \"finish_reason\": \"stop\"}}]}}}}}}\n"
        )
        };
        let failed = |id: &str| {
            format!("{{\"custom_id\": \"{id}\", \"error\": {{\"code\": \"server_error\", \"message\": \"x\"}}}}\n")
        };
        let a = format!(
            "{}{}{}",
            ok("j0-c0-s1", "A"),
            failed("j1-c0-s2"),
            ok("j1-c1-s2", "judge")
        );
        let b = format!("{}{}not json\n", failed("j0-c0-s1"), ok("j1-c0-s2", "B"));
        let read = BatchAnswers::read(&[
            ("a.jsonl".into(), a.into_bytes()),
            ("b.jsonl".into(), b.into_bytes()),
        ]);
        let text = |job| match read.outcome(job) {
            CallOutcome::Answer(a) => a.text,
            CallOutcome::Failed(e) => format!("failed: {:?}", e.kind),
        };
        assert_eq!(text(0), "A");
        assert_eq!(text(1), "B");
        assert_eq!(text(2), "failed: NotRun");
        assert_eq!(read.later_calls, 1);
        assert_eq!(read.errors.len(), 1);
    }
}
