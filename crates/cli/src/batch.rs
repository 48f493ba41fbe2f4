//! `evalpage batch export|import`: a run's calls handed to a batch engine
//! (the OpenAI Batch API, `vllm run-batch`, Ray Data, Anthropic Message
//! Batches) and its answers scored when they come back.
//!
//! Both commands drive the run exactly as `evalpage run` does (the same
//! plan, engine, scoring and files), with every endpoint request answered
//! by a [`Book`] instead of the network: a request the batch answered gets
//! that answer (or its failure), a request written to an earlier round but
//! absent from every answer file is `not_run`, and a request never written
//! is this round's: it is recorded and its job waits. A drive that leaves
//! requests waiting writes them as the next round (`DIR/round-N/`, one file
//! per model, at most 50,000 lines each) and its outputs are dropped; a
//! drive that leaves none is the run, and its files go into `DIR`, as `run
//! --out DIR` writes them. Kinds whose cases take dependent calls (a judge
//! after the answer, a dialog's turns) so take one round per step.
//!
//! `DIR` holds `batch.json` (the run's command, its dataset's SHA-256, the
//! rounds), `requests.index.jsonl` (every request written: `custom_id`, job,
//! request key, round) and `answers.jsonl` (every answer read so far, so an
//! import can be given a retry file alone: an answer beats a failure, a
//! later line beats an earlier one of the same kind). Answers are joined on
//! `custom_id`, never on line order. The run's command is run again from the
//! directory `import` is started in (paths as given to `export`).
//!
//! An export whose run stops before any request (a task whose prompt renders
//! for no sample) writes nothing and exits 3 as `run` does, its error naming
//! the template's missing field.

use crate::args::{BatchImportArgs, Cli, Command, RunArgs};
use crate::error::CliError;
use crate::store::{Book, Waiting};
use clap::Parser;
use evalpage_core::run::batch::{self, read_answers};
use evalpage_core::{Answer, CallError, CallOutcome};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MANIFEST: &str = "batch.json";
const INDEX: &str = "requests.index.jsonl";
const ANSWERS: &str = "answers.jsonl";
const DRIVE: &str = ".drive";

/// `batch.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    /// Format version.
    version: u32,
    /// The `evalpage run` flags, without `--out`.
    command: Vec<String>,
    /// The dataset (or dialogs) file as given.
    dataset: String,
    /// Its SHA-256 when exported.
    dataset_sha256: String,
    /// The rounds written so far.
    rounds: Vec<Round>,
}

/// One round of requests.
#[derive(Debug, Serialize, Deserialize)]
struct Round {
    round: usize,
    requests: usize,
    files: Vec<String>,
}

/// One line of `requests.index.jsonl`.
#[derive(Debug, Serialize, Deserialize)]
struct Indexed {
    custom_id: String,
    job: usize,
    key: String,
    /// Which asking of the same request in the job (0 for the first).
    nth: usize,
    round: usize,
}

/// One line of `answers.jsonl`.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    custom_id: String,
    /// Where it was read (`FILE answer N`, or the earlier import's answers).
    #[serde(skip)]
    from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    answer: Option<Answer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<CallError>,
}

/// `evalpage batch export <run flags> --out DIR`.
pub fn export(args: RunArgs) -> Result<(), CliError> {
    for (given, flag) in [
        (
            args.retrieval.retrieval,
            "--retrieval (a retrieval endpoint takes no chat completions)",
        ),
        (args.output.resume_from.is_some(), "--resume-from"),
        (args.output.estimate, "--estimate"),
        (args.output.cache.is_some(), "--cache"),
        (args.limits.max_cost.is_some(), "--max-cost"),
    ] {
        if given {
            return Err(CliError::Usage(format!(
                "batch export does not take {flag}; the batch engine sends the calls"
            )));
        }
    }
    let dir = args.output.out.clone();
    if dir.join(MANIFEST).exists() {
        return Err(CliError::Usage(format!(
            "{} is already a batch directory: import its answers with `evalpage batch import {} ANSWERS...`, or export into another --out",
            dir.display(),
            dir.display()
        )));
    }
    let command = run_flags(std::env::args().skip(3).collect());
    let dataset = args
        .dialog
        .dialogs
        .clone()
        .or_else(|| args.input.dataset.clone())
        .unwrap_or_default();
    let manifest = Manifest {
        version: 1,
        command,
        dataset_sha256: sha256_of(&dataset)?,
        dataset: dataset.display().to_string(),
        rounds: Vec::new(),
    };
    std::fs::create_dir_all(&dir).map_err(|e| CliError::output(&dir, e))?;
    let book = Book::new(HashMap::new(), HashMap::new(), 1);
    let waiting = drive(args, &dir, book).map_err(|e| nothing_sent(&dir, e))?;
    if waiting.is_empty() {
        let _ = std::fs::remove_dir_all(dir.join(DRIVE));
        return Err(CliError::Usage(
            "nothing to export: this run's models answer in process (--mock, the demo \
             provider); batch files are for endpoint models (--model-registry, --endpoint)"
                .into(),
        ));
    }
    let mut manifest = manifest;
    write_round(&dir, &mut manifest, 1, waiting)?;
    Ok(())
}

/// An export whose run stopped before any request (a task whose prompt
/// renders for no sample): the drive's files are dropped and the error says
/// why nothing can be exported (other errors pass as they are).
fn nothing_sent(dir: &Path, e: CliError) -> CliError {
    let _ = std::fs::remove_dir_all(dir.join(DRIVE));
    match e {
        CliError::Stopped(message) if message.starts_with(crate::error::NOTHING_SENT) => {
            CliError::Stopped(format!(
                "nothing to export: {}\n{}",
                message.lines().next().unwrap_or_default(),
                crate::error::PROMPT_FIX.replace("run again", "export again")
            ))
        }
        other => other,
    }
}

/// `evalpage batch import DIR ANSWERS...`.
pub fn import(a: &BatchImportArgs) -> Result<(), CliError> {
    let dir = &a.dir;
    let mut manifest: Manifest = read_json(&dir.join(MANIFEST))?;
    let index: Vec<Indexed> = read_lines(&dir.join(INDEX))?;
    let mut kept: Vec<Kept> = read_lines(&dir.join(ANSWERS)).unwrap_or_default();
    let known: HashMap<&str, ()> = index.iter().map(|i| (i.custom_id.as_str(), ())).collect();
    let (mut read, mut unknown, mut bad) = (0usize, 0usize, 0usize);
    for path in answer_files(&a.answers)? {
        let bytes = std::fs::read(&path).map_err(|e| CliError::Input {
            path: path.display().to_string(),
            message: format!("cannot read the answers: {e}"),
        })?;
        let shown = path.display().to_string();
        let (answers, errors) = read_answers(&shown, &bytes);
        for e in &errors {
            if bad < 10 {
                eprintln!("evalpage: {e}; line skipped");
            }
            bad += 1;
        }
        for (nth, answer) in answers.into_iter().enumerate() {
            let from = format!("{shown} answer {}", nth + 1);
            if !known.contains_key(answer.custom_id.as_str()) {
                unknown += 1;
                continue;
            }
            read += 1;
            kept.push(match answer.outcome {
                CallOutcome::Answer(a) => Kept {
                    custom_id: answer.custom_id,
                    from,
                    answer: Some(a),
                    error: None,
                },
                CallOutcome::Failed(e) => Kept {
                    custom_id: answer.custom_id,
                    from,
                    answer: None,
                    error: Some(e),
                },
            });
        }
    }
    if unknown > 0 {
        eprintln!("evalpage: {unknown} answer(s) name a custom_id this batch never wrote; ignored");
    }
    let answers = merged(kept);
    write_lines(
        &dir.join(ANSWERS),
        answers.iter().map(|(id, o)| match o {
            CallOutcome::Answer(a) => Kept {
                custom_id: id.clone(),
                from: String::new(),
                answer: Some(a.clone()),
                error: None,
            },
            CallOutcome::Failed(e) => Kept {
                custom_id: id.clone(),
                from: String::new(),
                answer: None,
                error: Some(e.clone()),
            },
        }),
    )?;
    eprintln!(
        "evalpage: batch: read {read} answer(s){}; {} of {} request(s) answered",
        if bad > 0 {
            format!(", {bad} line(s) skipped")
        } else {
            String::new()
        },
        index
            .iter()
            .filter(|i| answers.contains_key(&i.custom_id))
            .count(),
        index.len()
    );
    let now = sha256_of(Path::new(&manifest.dataset))?;
    if now != manifest.dataset_sha256 {
        return Err(CliError::Usage(format!(
            "{} changed since the export (sha256 {} then, {now} now): the answers belong to the old file",
            manifest.dataset, manifest.dataset_sha256
        )));
    }
    let mut argv: Vec<String> = vec!["evalpage".into(), "run".into()];
    argv.extend(manifest.command.iter().cloned());
    argv.extend(["--out".into(), dir.join(DRIVE).display().to_string()]);
    let cli = Cli::try_parse_from(&argv).map_err(|e| {
        CliError::Usage(format!(
            "the batch's command cannot be run again ({}): {e}",
            manifest.command.join(" ")
        ))
    })?;
    let Command::Run(args) = cli.command else {
        return Err(CliError::Usage("the batch's command is not a run".into()));
    };
    let round = manifest.rounds.len() + 1;
    let written = index
        .iter()
        .map(|i| ((i.job, i.key.clone(), i.nth), i.custom_id.clone()))
        .collect();
    let book = Book::new(answers.into_iter().collect(), written, round);
    let waiting = drive(*args, dir, book)?;
    if waiting.is_empty() {
        finish(dir)?;
        println!(
            "[EVAL] batch: every call is settled; the run's files are in {}",
            dir.display()
        );
        return Ok(());
    }
    write_round(dir, &mut manifest, round, waiting)
}

/// Drives the run with `book` answering every request into `DIR/.drive`;
/// the requests it left waiting.
fn drive(mut args: RunArgs, dir: &Path, book: Book) -> Result<Vec<Waiting>, CliError> {
    let book = Arc::new(book);
    args.output.batch = Some(Arc::clone(&book));
    let out = dir.join(DRIVE);
    let _ = std::fs::remove_dir_all(&out);
    args.output.out = out.clone();
    let mut plan = crate::run::check(&args)?;
    book.name_jobs(plan.for_batch());
    plan.run_quiet(&out)?;
    Ok(book.take_waiting())
}

/// Writes the requests of `round` (one file per model, split at 50,000
/// lines), appends them to the index and the manifest, and says where.
fn write_round(
    dir: &Path,
    manifest: &mut Manifest,
    round: usize,
    mut waiting: Vec<Waiting>,
) -> Result<(), CliError> {
    let _ = std::fs::remove_dir_all(dir.join(DRIVE));
    waiting.sort_by(|a, b| (a.job, &a.custom_id).cmp(&(b.job, &b.custom_id)));
    let folder = dir.join(format!("round-{round}"));
    std::fs::create_dir_all(&folder).map_err(|e| CliError::output(&folder, e))?;
    let mut files = Vec::new();
    for (name, text) in
        batch::request_files(waiting.iter().map(|w| (w.custom_id.as_str(), &w.body)))
    {
        let path = folder.join(&name);
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
        files.push(format!("round-{round}/{name}"));
    }
    let mut index: Vec<Indexed> = read_lines(&dir.join(INDEX)).unwrap_or_default();
    index.extend(waiting.iter().map(|w| Indexed {
        custom_id: w.custom_id.clone(),
        job: w.job,
        nth: w.nth,
        key: w.key.clone(),
        round,
    }));
    write_lines(&dir.join(INDEX), index.into_iter())?;
    manifest.rounds.push(Round {
        round,
        requests: waiting.len(),
        files: files.clone(),
    });
    let path = dir.join(MANIFEST);
    let value = serde_json::to_value(&*manifest).unwrap_or(Value::Null);
    let text = crate::report::pretty(&value)?;
    std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
    println!(
        "[EVAL] batch: round {round}: {} request(s) in {} file(s) under {}",
        waiting.len(),
        files.len(),
        folder.display()
    );
    println!(
        "[EVAL] batch: run them with your batch engine, then `evalpage batch import {} ANSWERS...`",
        dir.display()
    );
    Ok(())
}

/// Moves the finished run's files from `DIR/.drive` into `DIR`.
fn finish(dir: &Path) -> Result<(), CliError> {
    let drive = dir.join(DRIVE);
    let entries = std::fs::read_dir(&drive).map_err(|e| CliError::output(&drive, e))?;
    for entry in entries.flatten() {
        let to = dir.join(entry.file_name());
        std::fs::rename(entry.path(), &to).map_err(|e| CliError::output(&to, e))?;
    }
    let _ = std::fs::remove_dir_all(&drive);
    Ok(())
}

/// Answers by `custom_id`: an answer beats a failure; among the same kind
/// the later line wins.
/// A `custom_id` answered more than once is said on stderr: which answer
/// was kept and why.
fn merged(kept: Vec<Kept>) -> BTreeMap<String, CallOutcome> {
    let mut out: BTreeMap<String, (CallOutcome, String)> = BTreeMap::new();
    for k in kept {
        let outcome = match (k.answer, k.error) {
            (Some(a), _) => CallOutcome::Answer(a),
            (None, Some(e)) => CallOutcome::Failed(e),
            (None, None) => continue,
        };
        let from = if k.from.is_empty() {
            "an earlier import".to_string()
        } else {
            k.from
        };
        let old = out.get(&k.custom_id);
        let replace = batch::replaces(old.map(|(o, _)| o), &outcome);
        if let Some((o, was)) = old {
            let kind = |o: &CallOutcome| match o {
                CallOutcome::Answer(_) => "an answer",
                CallOutcome::Failed(_) => "a failure",
            };
            let (kept, why) = match (replace, o, &outcome) {
                (true, CallOutcome::Failed(_), CallOutcome::Answer(_)) => {
                    (&from, "an answer beats a failure")
                }
                (true, _, _) => (&from, "of two of the same kind the later one is kept"),
                (false, _, _) => (was, "an answer beats a failure"),
            };
            eprintln!(
                "evalpage: custom_id {} is answered more than once ({} in {}, {} in {}); kept {} ({why})",
                k.custom_id,
                kind(o),
                was,
                kind(&outcome),
                from,
                kept
            );
        }
        if replace {
            out.insert(k.custom_id, (outcome, from));
        }
    }
    out.into_iter().map(|(id, (o, _))| (id, o)).collect()
}

/// Every answer file named: files as given, directories walked (their
/// `.json` and `.jsonl` files, in name order).
fn answer_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            found.sort();
            if found.is_empty() {
                return Err(CliError::Input {
                    path: p.display().to_string(),
                    message: "no .json or .jsonl file in this directory".into(),
                });
            }
            out.extend(found);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            return Err(CliError::Input {
                path: p.display().to_string(),
                message: "no such answer file or directory".into(),
            });
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CliError::Input {
        path: dir.display().to_string(),
        message: format!("cannot read the directory: {e}"),
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "json" || e == "jsonl")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The flags of `evalpage batch export ...` without `--out DIR`.
fn run_flags(argv: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in argv {
        if skip {
            skip = false;
            continue;
        }
        if a == "--out" {
            skip = true;
            continue;
        }
        if a.starts_with("--out=") {
            continue;
        }
        out.push(a);
    }
    out
}

fn sha256_of(path: &Path) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: format!("cannot read the dataset: {e}"),
    })?;
    Ok(evalpage_core::sha256_hex(&bytes))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: format!("not a batch directory (run `evalpage batch export` first): {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: format!("not a batch manifest: {e}"),
    })
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: format!("cannot read it: {e}"),
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| CliError::Input {
                path: format!("{}:{}", path.display(), i + 1),
                message: format!("not a line this batch wrote: {e}"),
            })
        })
        .collect()
}

fn write_lines<T: Serialize>(path: &Path, items: impl Iterator<Item = T>) -> Result<(), CliError> {
    let mut text = String::new();
    for item in items {
        if let Ok(line) = serde_json::to_string(&item) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    std::fs::write(path, text).map_err(|e| CliError::output(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::ErrorKind;

    #[test]
    fn out_is_dropped_from_the_command() {
        let argv = ["--task", "t.yaml", "--out", "b", "--models", "m", "--out=x"]
            .map(String::from)
            .to_vec();
        assert_eq!(run_flags(argv), ["--task", "t.yaml", "--models", "m"]);
    }

    #[test]
    fn an_answer_beats_a_failure_whatever_the_order() {
        let fail = |id: &str| Kept {
            custom_id: id.into(),
            from: "f".into(),
            answer: None,
            error: Some(CallError::new(ErrorKind::Http, "500")),
        };
        let ok = |id: &str, t: &str| Kept {
            custom_id: id.into(),
            from: format!("f answer {t}"),
            answer: Some(Answer::from(t.to_string())),
            error: None,
        };
        let m = merged(vec![
            ok("a", "1"),
            fail("a"),
            fail("b"),
            ok("b", "2"),
            ok("c", "x"),
            ok("c", "y"),
        ]);
        let text = |id: &str| match m.get(id) {
            Some(CallOutcome::Answer(a)) => a.text.clone(),
            _ => String::new(),
        };
        assert_eq!(
            (text("a"), text("b"), text("c")),
            ("1".into(), "2".into(), "y".into())
        );
    }
}
