//! Other evaluators' results, read into evalpage's report (issue 32): a
//! promptfoo output JSON, an Inspect AI log (`.eval` or `.json`), an
//! lm-evaluation-harness `--log_samples` output (`samples_<task>_*.jsonl`
//! with its `results_*.json`), an OpenAI Evals API run with its output items,
//! and the record log of the open-source `oaieval`.
//!
//! Every reader hands its samples to one [`Collect`], which builds an
//! [`EvaluationResult`] that `report`, `compare` and the viewer open like any
//! other run:
//! - every sample keeps the source's id, and each model's verdicts are scores
//!   with `detail.model` (the model as the source names it less its provider
//!   prefix, or its label; the full id in `detail.model_id`);
//! - each score's `detail.input_sha256` is the hash of the sample's input
//!   ([`input_hash`]), so runs whose ids differ can still be paired;
//! - a sample asked several times (Inspect's epochs) has one score per
//!   answer, with `detail.repeat`, as evalpage's own repeats;
//! - evalpage's summaries are recomputed from the scores; the source's own
//!   aggregates are kept beside them (`evaluator_config.source_aggregates`),
//!   with a note wherever the two differ (`evaluator_config.differences`);
//! - what the source held that the report cannot carry is listed
//!   (`evaluator_config.not_carried`), among it the top-level fields of each
//!   kind of element its reader does not read (each reader deserializes its
//!   elements into typed structs, `typed.rs`, and keeps the other fields'
//!   names), and every part that could not be read
//!   is a located problem (`report.line_errors`: file, line or entry, field)
//!   while the rest is kept.
//!
//! Which tool wrote a file is decided by [`detect`] from its name and the
//! fields of its first bytes, beside [`crate::RunKind::read`] for evalpage's own files.

mod collect;
mod cursor;
mod detect;
mod inspect;
mod lm_eval;
mod openai_evals;
mod promptfoo;
mod typed;
mod zip;

use collect::Collect;
pub use collect::{input_hash, Imported, SourceAggregate};
pub use detect::detect;
pub use zip::{entries as zip_entries, Entry as ZipEntry};

#[cfg(doc)]
use crate::report::EvaluationResult;

/// The tool that wrote a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// promptfoo's `eval -o out.json`.
    Promptfoo,
    /// An Inspect AI log, `.eval` (zip) or `.json`.
    Inspect,
    /// lm-evaluation-harness `--log_samples` output.
    LmEval,
    /// An OpenAI Evals API run and its output items.
    OpenAiEvals,
    /// The record log of the open-source `oaieval`.
    OaiEval,
}

impl Tool {
    /// Its name as the report and the README say it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Promptfoo => "promptfoo",
            Tool::Inspect => "inspect_ai",
            Tool::LmEval => "lm-evaluation-harness",
            Tool::OpenAiEvals => "openai-evals-api",
            Tool::OaiEval => "openai-evals",
        }
    }
}

/// What one file is, to an import.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// promptfoo's output JSON.
    Promptfoo,
    /// An Inspect log as a zip (`.eval`).
    InspectEval,
    /// An Inspect log as JSON.
    InspectJson,
    /// lm-eval's `samples_<task>_<date>.jsonl`.
    LmEvalSamples,
    /// lm-eval's `results_<date>.json`.
    LmEvalResults,
    /// An Evals API run object (`"object": "eval.run"`).
    EvalsRun,
    /// An Evals API output-items page (`"object": "list"` of
    /// `eval.run.output_item`), or the items one per line.
    EvalsItems,
    /// `oaieval`'s record log (JSONL: `spec`, `final_report`, events).
    OaiEvalLog,
}

impl Part {
    /// The tool of the part.
    pub fn tool(self) -> Tool {
        match self {
            Part::Promptfoo => Tool::Promptfoo,
            Part::InspectEval | Part::InspectJson => Tool::Inspect,
            Part::LmEvalSamples | Part::LmEvalResults => Tool::LmEval,
            Part::EvalsRun | Part::EvalsItems => Tool::OpenAiEvals,
            Part::OaiEvalLog => Tool::OaiEval,
        }
    }
}

/// Why files cannot be imported at all (a file that is partly readable is
/// imported, with its problems listed in the report).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// No reader knows the file.
    #[error("{0}: not a file this reads (a promptfoo output JSON, an Inspect AI log .eval or .json, lm-evaluation-harness samples_*.jsonl or results_*.json, an OpenAI Evals run or output items, or an oaieval record log)")]
    Unknown(String),
    /// The file is one this reads, but nothing of it could be.
    #[error("{file}: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// Files of different runs given as one import.
    #[error("{0}")]
    Mixed(String),
}

/// Groups files into imports: an lm-eval output (its samples files with
/// their results file) or an Evals API run (its run object with its items)
/// is one import; every other file is one on its own. The files keep their
/// order; a file no reader knows is an error naming it.
pub fn group(files: &[(String, Vec<u8>)]) -> Result<Vec<Vec<usize>>, ImportError> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut lm: Option<usize> = None;
    let mut evals: Option<usize> = None;
    for (i, (name, bytes)) in files.iter().enumerate() {
        let part = detect(name, bytes).ok_or_else(|| ImportError::Unknown(name.clone()))?;
        let slot = match part.tool() {
            Tool::LmEval => &mut lm,
            Tool::OpenAiEvals => &mut evals,
            _ => {
                groups.push(vec![i]);
                continue;
            }
        };
        match slot {
            Some(g) => groups[*g].push(i),
            None => {
                groups.push(vec![i]);
                *slot = Some(groups.len() - 1);
            }
        }
    }
    Ok(groups)
}

/// Imports one group of files (see [`group`]) into a report.
pub fn import(files: &[(&str, &[u8])]) -> Result<Imported, ImportError> {
    import_first(files, None)
}

/// [`import`] of the first `limit` samples only (a first look at a big
/// file while the rest is read; none: every sample). The source's own
/// figures, after the samples in most files, are then missing.
pub fn import_first(
    files: &[(&str, &[u8])],
    limit: Option<usize>,
) -> Result<Imported, ImportError> {
    let Some((first, first_bytes)) = files.first() else {
        return Err(ImportError::Mixed("no file to import".into()));
    };
    let part = detect(first, first_bytes).ok_or_else(|| ImportError::Unknown(first.to_string()))?;
    let names: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
    let mut c = Collect::new(part.tool(), names);
    c.limit = limit;
    match part.tool() {
        Tool::Promptfoo => promptfoo::read(&mut c, first, first_bytes)?,
        Tool::Inspect => inspect::read(&mut c, first, first_bytes, part)?,
        Tool::OaiEval => openai_evals::read_log(&mut c, first, first_bytes)?,
        Tool::LmEval => {
            let mut samples = Vec::new();
            let mut results = Vec::new();
            for (n, b) in files {
                match detect(n, b) {
                    Some(Part::LmEvalSamples) => samples.push((*n, *b)),
                    Some(Part::LmEvalResults) => results.push((*n, *b)),
                    _ => return Err(mixed(first, n)),
                }
            }
            lm_eval::read(&mut c, &samples, &results)?
        }
        Tool::OpenAiEvals => {
            let mut run = None;
            let mut items = Vec::new();
            for (n, b) in files {
                match detect(n, b) {
                    Some(Part::EvalsRun) if run.is_none() => run = Some((*n, *b)),
                    Some(Part::EvalsItems) => items.push((*n, *b)),
                    _ => return Err(mixed(first, n)),
                }
            }
            openai_evals::read_api(&mut c, run, &items)?
        }
    }
    if files.len() > 1 && matches!(part.tool(), Tool::Promptfoo | Tool::Inspect | Tool::OaiEval) {
        return Err(mixed(first, files[1].0));
    }
    Ok(c.finish())
}

fn mixed(first: &str, other: &str) -> ImportError {
    ImportError::Mixed(format!(
        "{other} is not part of the same run as {first}: import each run on its own (an lm-evaluation-harness output's samples and results files, or an Evals API run and its output items, go together)"
    ))
}
