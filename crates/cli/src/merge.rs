//! `evalpage merge DIR... --out DIR`: the N shards of a run (`run --shard
//! I/N`, each its own directory or event log) joined into one run. Each
//! shard's event log names its command line (`meta.argv`); the shards must
//! be the same command but for `--shard` and `--out` (the same task, models,
//! settings and dataset file; the same dataset bytes when their
//! `dataset_fingerprint.json` says so), and together shards 1..N exactly
//! once. Their settled calls are then taken over by the unsharded command
//! (`--resume-from` the shards' records together), which sends nothing and
//! writes the files an unsharded run writes. A shard that did not settle
//! every one of its jobs is refused (finish it with `--resume-from` first).
//! The command reads the dataset and task files the shards' command names,
//! relative to the directory `merge` runs in, and the key variables it names
//! must be set (a key is read, never sent).

use crate::args::{Cli, Command, MergeArgs};
use crate::error::CliError;
use crate::run;
use clap::Parser;
use evalpage_core::events::{self, ReadLog};
use evalpage_core::run::Shard;
use evalpage_core::RunKind;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One shard as read from its directory or log.
struct ShardRun {
    from: PathBuf,
    log: ReadLog,
    shard: Shard,
    /// Its command line without `--shard`, `--out` and `--resume-from`.
    command: Vec<String>,
    /// `dataset_fingerprint.json`'s `sha256`, when the directory has one.
    dataset_sha: Option<String>,
}

/// Joins the shards into `--out`.
pub fn execute(args: &MergeArgs) -> Result<(), CliError> {
    let shards = args
        .shards
        .iter()
        .map(|p| read_shard(p))
        .collect::<Result<Vec<_>, _>>()?;
    check(&shards)?;
    std::fs::create_dir_all(&args.out).map_err(|e| CliError::output(&args.out, e))?;
    let merged = std::env::temp_dir().join(format!(
        "evalpage-merge-{}-{}.jsonl",
        std::process::id(),
        shards.len()
    ));
    let mut text = events::to_jsonl(&shards[0].log.records[0]);
    for s in &shards {
        for r in s.log.records.iter().skip(1) {
            let kind = r.get("record_type").and_then(Value::as_str);
            if !matches!(kind, Some("meta" | "summary" | "error")) {
                text.push_str(&events::to_jsonl(r));
            }
        }
    }
    std::fs::write(&merged, text).map_err(|e| CliError::output(&merged, e))?;
    let result = run_merged(&shards[0].command, &merged, &args.out);
    let _ = std::fs::remove_file(&merged);
    result
}

/// The unsharded command over the merged records: it must send nothing.
fn run_merged(command: &[String], merged: &Path, out: &Path) -> Result<(), CliError> {
    let mut argv: Vec<String> = vec!["evalpage".into()];
    argv.extend(command.iter().cloned());
    argv.extend([
        "--resume-from".into(),
        merged.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ]);
    let cli = Cli::try_parse_from(&argv).map_err(|e| {
        CliError::Usage(format!(
            "the shards' command cannot be run again ({}): {e}",
            command.join(" ")
        ))
    })?;
    let Command::Run(run_args) = cli.command else {
        return Err(CliError::Usage(format!(
            "the shards' log names `{}`, not an `evalpage run` command",
            command.join(" ")
        )));
    };
    let plan = run::check(&run_args)?;
    let unsent = plan.unsent();
    if unsent > 0 {
        return Err(CliError::Usage(format!(
            "the shards leave {unsent} job(s) unsettled (a shard stopped early); finish that \
             shard with its command and --resume-from its log, then merge again"
        )));
    }
    plan.run(out)
}

/// A shard's directory (its event log, `dataset_fingerprint.json`) or log.
fn read_shard(path: &Path) -> Result<ShardRun, CliError> {
    let input = |message: String| CliError::Input {
        path: path.display().to_string(),
        message,
    };
    let log_path = if path.is_dir() {
        RunKind::event_log_files()
            .iter()
            .map(|n| path.join(n))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                input(format!(
                    "no event log in this directory (looked for {})",
                    RunKind::event_log_files().join(", ")
                ))
            })?
    } else {
        path.to_path_buf()
    };
    let bytes = std::fs::read(&log_path).map_err(|e| input(format!("cannot read it: {e}")))?;
    let log = events::read(&bytes);
    let meta = log
        .records
        .first()
        .filter(|r| r.get("record_type").and_then(Value::as_str) == Some("meta"))
        .ok_or_else(|| input("not an evalpage event log: its first record is not `meta`".into()))?;
    let argv: Vec<String> = meta
        .get("argv")
        .and_then(|a| serde_json::from_value(a.clone()).ok())
        .unwrap_or_default();
    let (shard, command) = split_argv(&argv).map_err(input)?;
    let shard = shard.ok_or_else(|| {
        input(format!(
            "not a shard: its command has no --shard I/N ({})",
            command.join(" ")
        ))
    })?;
    let dataset_sha = path
        .is_dir()
        .then(|| std::fs::read(path.join("dataset_fingerprint.json")).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.get("sha256").and_then(Value::as_str).map(str::to_string));
    Ok(ShardRun {
        from: path.to_path_buf(),
        log,
        shard,
        command,
        dataset_sha,
    })
}

/// A run's argv without the program: its `--shard`, and the command without
/// `--shard`, `--out` and `--resume-from` (what may differ between shards).
fn split_argv(argv: &[String]) -> Result<(Option<Shard>, Vec<String>), String> {
    let mut shard = None;
    let mut command = Vec::new();
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        match flag {
            "--shard" | "--out" | "--resume-from" => {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().cloned().unwrap_or_default(),
                };
                if flag == "--shard" {
                    shard = Some(Shard::parse(&value)?);
                }
            }
            _ => command.push(a.clone()),
        }
    }
    Ok((shard, command))
}

/// The shards are one run's: the same command, the same dataset, shards
/// 1..N each once.
fn check(shards: &[ShardRun]) -> Result<(), CliError> {
    let Some(first) = shards.first() else {
        return Err(CliError::Usage("give the shards' directories".into()));
    };
    for s in &shards[1..] {
        if s.command != first.command {
            return Err(CliError::Usage(format!(
                "{} and {} are not shards of one run: their commands differ beyond --shard and --out\n  {}\n  {}",
                first.from.display(),
                s.from.display(),
                first.command.join(" "),
                s.command.join(" ")
            )));
        }
        if let (Some(a), Some(b)) = (&first.dataset_sha, &s.dataset_sha) {
            if a != b {
                return Err(CliError::Usage(format!(
                    "{} and {} ran over different dataset bytes (sha256 {a} and {b})",
                    first.from.display(),
                    s.from.display()
                )));
            }
        }
        if s.shard.count != first.shard.count {
            return Err(CliError::Usage(format!(
                "{} is shard {} but {} is shard {}: one run is split one way",
                first.from.display(),
                first.shard,
                s.from.display(),
                s.shard
            )));
        }
    }
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for s in shards {
        if let Some(other) = seen.insert(s.shard.index, &s.from) {
            return Err(CliError::Usage(format!(
                "shard {} is given twice: {} and {}",
                s.shard,
                other.display(),
                s.from.display()
            )));
        }
    }
    let n = first.shard.count;
    let missing: Vec<String> = (1..=n)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "shard(s) {} missing: give every shard of the run",
            missing.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_compared_without_shard_out_and_resume() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (s, c) = split_argv(&argv(&[
            "/bin/evalpage",
            "run",
            "--dataset",
            "d.jsonl",
            "--shard",
            "2/3",
            "--out=o",
            "--resume-from",
            "x",
        ]))
        .expect("argv");
        assert_eq!(s, Some(Shard { index: 2, count: 3 }));
        assert_eq!(c, ["run", "--dataset", "d.jsonl"]);
        assert!(split_argv(&argv(&["e", "run", "--shard=4/3"])).is_err());
    }
}
