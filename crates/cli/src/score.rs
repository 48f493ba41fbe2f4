//! `evalpage score`: answers produced elsewhere, scored against a task with no
//! model call. This file only reads the inputs, calls the core
//! (`evalpage_core::task_run`) and writes the artifacts; bad input lines are
//! reported on stderr and skipped. Exit 0 when scoring finished, 2 when the
//! inputs cannot be used (no valid sample, no valid response, a bad task).

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::task_file::{self, LoadedTask};
use evalpage_core::dataset::{metadata, LineError};
use evalpage_core::task_run::{
    artifacts, data, responses, score, DatasetFormat, Scored, TaskDataset,
};
use evalpage_core::RunMeta;
use evalpage_core::{render_prompts, AnswerSource};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The files `score` writes into `--out`.
pub use evalpage_core::FILES;

/// Runs `evalpage score`.
pub fn execute(args: &ScoreArgs) -> Result<(), CliError> {
    let Some(task) = &args.task else {
        return Err(CliError::Usage("give --task or --retrieval".into()));
    };
    let started_at_ms = now_ms();
    let loaded = task_file::load(task)?;
    let format = DatasetFormat::for_task(&loaded.task);
    let (bytes, data) = read_dataset(args.dataset(), args.metadata.as_deref(), format, None)?;
    let resp = read_responses(args.responses())?;
    let scored = score::score(&loaded.task, &data, &resp);
    report_skipped(&scored.unknown);
    let mut from_responses: Vec<LineError> =
        resp.errors.iter().chain(&scored.unknown).cloned().collect();
    from_responses.sort_by_key(|e| e.line);
    let line_errors: Vec<LineError> = data.errors.iter().cloned().chain(from_responses).collect();
    let inputs = Inputs {
        loaded: &loaded,
        data: &data,
        scored: &scored,
        dataset_bytes: &bytes,
        line_errors: &line_errors,
    };
    write_all(args, &inputs, started_at_ms)?;
    print_summary(&scored);
    eprintln!(
        "evalpage: wrote {} files to {}",
        FILES.len(),
        args.out.display()
    );
    Ok(())
}

/// What the writers read.
struct Inputs<'a> {
    loaded: &'a LoadedTask,
    data: &'a TaskDataset,
    scored: &'a Scored,
    dataset_bytes: &'a [u8],
    line_errors: &'a [LineError],
}

/// The bytes of a dataset file; an error naming the path when it cannot be read.
pub(crate) fn read_dataset_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|source| CliError::DatasetRead {
        path: path.display().to_string(),
        source,
    })
}

/// The bytes of another input file (answers, metadata, a log): an error naming
/// the path when it cannot be read.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Reads a task's dataset (and its optional `metadata.json`), reporting each
/// skipped line on stderr; an error when no sample is usable.
pub(crate) fn read_dataset(
    path: &Path,
    metadata: Option<&Path>,
    format: DatasetFormat,
    max: Option<usize>,
) -> Result<(Vec<u8>, TaskDataset), CliError> {
    let name = path.display().to_string();
    let bytes = read_dataset_bytes(path)?;
    let meta = match metadata {
        Some(p) => Some(read_metadata(p)?),
        None => None,
    };
    let data = data::load_first(&name, &bytes, format, meta.as_ref(), max);
    report_skipped(&data.errors);
    if data.samples.is_empty() {
        return Err(CliError::Input {
            path: name,
            message: format!(
                "no valid sample ({} line(s) skipped); this task reads {}",
                data.errors.len(),
                format.describe()
            ),
        });
    }
    Ok((bytes, data))
}

pub fn read_metadata(path: &Path) -> Result<metadata::DatasetMetadata, CliError> {
    let shown = path.display().to_string();
    let bytes = read_input(path)?;
    metadata::parse(&shown, &bytes).map_err(|e| CliError::Input {
        path: shown,
        message: e.to_string(),
    })
}

fn read_responses(path: &Path) -> Result<responses::ResponseSet, CliError> {
    let shown = path.display().to_string();
    let bytes = read_input(path)?;
    let set = responses::parse(&shown, &bytes);
    report_skipped(&set.errors);
    if set.responses.is_empty() {
        return Err(CliError::Input {
            path: shown,
            message: format!(
                "no valid response line ({} line(s) skipped); expected JSONL of {{\"sample_id\": ..., \"response\": \"...\", \"model\": \"...\"}}",
                set.errors.len()
            ),
        });
    }
    Ok(set)
}

pub(crate) fn report_skipped(errors: &[LineError]) {
    for e in errors {
        eprintln!("evalpage: skipped {e}");
    }
}

fn write_all(args: &ScoreArgs, i: &Inputs<'_>, started_at_ms: u64) -> Result<(), CliError> {
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| CliError::output(out, e))?;
    let source = AnswerSource::Score {
        responses: args.responses().display().to_string(),
    };
    let files = artifacts::render(&artifacts::Inputs {
        task: &i.loaded.task,
        info: &i.loaded.info,
        // Answers read from a file: the prompts that would have been sent.
        prompts: &render_prompts(&i.loaded.task, &i.loaded.template, &i.data.samples),
        data: i.data,
        dataset_bytes: i.dataset_bytes,
        scored: i.scored,
        line_errors: i.line_errors,
        source: &source,
        meta: &run_meta(args, started_at_ms),
        lang: args.lang.into(),
    })
    .map_err(|e| CliError::output(&out.join("summary.csv"), std::io::Error::other(e)))?;
    for (name, text) in files {
        write(out, name, &text)?;
    }
    Ok(())
}

fn run_meta(args: &ScoreArgs, started_at_ms: u64) -> RunMeta {
    RunMeta {
        tool: "evalpage-cli".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        // `score` takes no key, so the command line holds none.
        argv: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        dataset: args.dataset().display().to_string(),
        metadata: args.metadata.as_ref().map(|p| p.display().to_string()),
        started_at_ms,
        ended_at_ms: now_ms(),
    }
}

/// One line per model on stdout: answered, parse problems, metric means. A
/// metric with no scored sample has no mean: `name=- (N skipped)`, never 0.
pub(crate) fn print_summary(scored: &Scored) {
    for m in &scored.models {
        let means: Vec<String> = m
            .aggregates
            .iter()
            .map(|(name, agg)| format!("{name}={}", mean_shown(agg)))
            .collect();
        println!(
            "{}: {} samples, {} answered, {} parse problem(s); {}",
            m.model,
            m.results.len(),
            m.answered(),
            m.parse_problems(),
            means.join(" ")
        );
    }
}

/// A metric's mean as the summary line shows it: three decimals, or `-` with
/// the count of skipped samples when no sample has a value.
fn mean_shown(agg: &evalpage_core::metric::Aggregate) -> String {
    if agg.sample_count == 0 {
        format!("- ({} skipped)", agg.skipped)
    } else {
        format!("{:.3}", agg.mean)
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), CliError> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))
}

pub(crate) fn now_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
