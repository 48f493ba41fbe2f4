//! Reading the inputs and writing the outputs of every command that runs or
//! scores (`run`, `score`, `reconcile`, `batch`): the dataset and answer
//! files (an error names the path), skipped lines on stderr, the files a
//! run writes, `run_meta.json`'s identity of a scoring, the judge's pool of
//! a judged scoring, and the wall clock.

use crate::args::ScoreArgs;
use crate::error::CliError;
use evalpage_core::report::RunMeta;
use evalpage_core::run::RunSettings;
use evalpage_core::task::{DatasetFormat, TaskDataset};
use evalpage_core::LineError;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The judge's requests in flight at once when `--judge-concurrency` is not given.
const JUDGE_CONCURRENCY: u16 = 4;

/// The judge's pool (`--judge-concurrency`, default 4; the engine's
/// retries and timeout) and its request timeout, for every judged scoring.
pub(crate) fn judge_settings(args: &ScoreArgs) -> (RunSettings, Duration) {
    let settings = RunSettings {
        concurrency: usize::from(args.judge_concurrency.unwrap_or(JUDGE_CONCURRENCY)),
        ..RunSettings::default()
    };
    (settings, Duration::from_millis(settings.timeout_ms))
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
    read_dataset_with(path, metadata, format, max, None)
}

/// [`read_dataset`], with BFCL's possible answers named (`--possible-answers`)
/// for a BFCL question file; without it they are looked for where BFCL puts
/// them, `possible_answer/<the file's name>` beside the file.
pub(crate) fn read_dataset_with(
    path: &Path,
    metadata: Option<&Path>,
    format: DatasetFormat,
    max: Option<usize>,
    possible_answers: Option<&Path>,
) -> Result<(Vec<u8>, TaskDataset), CliError> {
    let name = path.display().to_string();
    let bytes = read_dataset_bytes(path)?;
    let meta = match metadata {
        Some(p) => Some(read_metadata(p)?),
        None => None,
    };
    // A Parquet dataset (Hugging Face's) is read as the JSONL of its rows;
    // the fingerprint stays the file's own bytes.
    let converted = if evalpage_core::is_parquet(&bytes) {
        Some(
            evalpage_core::parquet_to_jsonl(&name, &bytes).map_err(|message| CliError::Input {
                path: name.clone(),
                message,
            })?,
        )
    } else {
        None
    };
    let rows = converted.as_deref().unwrap_or(&bytes);
    let data = if format == DatasetFormat::Bfcl {
        let beside = path.file_name().map(|f| {
            path.parent()
                .unwrap_or(Path::new(""))
                .join("possible_answer")
                .join(f)
        });
        let answers_path = match possible_answers {
            Some(p) => Some(p.to_path_buf()),
            None => beside.filter(|p| p.is_file()),
        };
        let answers = match &answers_path {
            Some(p) => Some((p.display().to_string(), read_input(p)?)),
            None => None,
        };
        evalpage_core::task::load_bfcl_dataset(
            &name,
            rows,
            answers.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
            meta.as_ref(),
            max,
        )
        .map_err(|message| CliError::Input {
            path: name.clone(),
            message,
        })?
    } else {
        evalpage_core::task::load_first_dataset(&name, rows, format, meta.as_ref(), max)
    };
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

pub(crate) fn read_metadata(
    path: &Path,
) -> Result<evalpage_core::report::DatasetMetadataFile, CliError> {
    let shown = path.display().to_string();
    let bytes = read_input(path)?;
    evalpage_core::report::parse_metadata(&shown, &bytes).map_err(|e| CliError::Input {
        path: shown,
        message: e.to_string(),
    })
}

pub(crate) fn report_skipped(errors: &[LineError]) {
    for e in errors {
        eprintln!("evalpage: skipped {e}");
    }
}

/// `run_meta.json`'s identity of a scoring that reads `--dataset` (a task's
/// answers, ranked lists): this tool, the command line (`score` takes no
/// key, so it holds none), the dataset and metadata files, the times.
pub(crate) fn run_meta(args: &ScoreArgs, started_at_ms: u64) -> RunMeta {
    RunMeta {
        tool: "evalpage-cli".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        argv: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        dataset: args.dataset().display().to_string(),
        metadata: args.metadata.as_ref().map(|p| p.display().to_string()),
        started_at_ms,
        ended_at_ms: now_ms(),
    }
}

/// Writes `(name, text)` files into `dir` (created if missing); returns how
/// many. Every scoring writes its files through here.
pub(crate) fn write_files<N: AsRef<str>>(
    dir: &Path,
    files: &[(N, String)],
) -> Result<usize, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::output(dir, e))?;
    for (name, text) in files {
        let path = dir.join(name.as_ref());
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
    }
    Ok(files.len())
}

/// The last line of every scoring, on stderr: what it wrote where.
pub(crate) fn wrote(files: usize, logs: usize, dir: &Path) {
    let logs = match logs {
        0 => String::new(),
        n => format!(" and {n} event logs"),
    };
    eprintln!("evalpage: wrote {files} files{logs} to {}", dir.display());
}

/// The file name shown in reports: the path's last part.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(crate) fn now_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
