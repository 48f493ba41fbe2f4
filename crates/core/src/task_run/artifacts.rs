//! Every artifact of a task run, rendered in memory: the CLI writes them into
//! `--out`, the page zips them into one download. One place decides the file
//! names and contents, so `evalpage run --task`, `evalpage score` and the page
//! write the same files.

use super::data::TaskDataset;
use super::meta::{self, RunMeta};
use super::report::{self, AnswerSource, ReportInput, TaskInfo};
use super::score::Scored;
use super::summary_csv::{self, CsvError};
use super::{fingerprint, markdown, results};
use crate::dataset::LineError;
use crate::task::Task;
use crate::Lang;
use serde::Serialize;

/// The files of every task run, in the order they are written.
pub const FILES: [&str; 8] = [
    "results.jsonl",
    "scores.jsonl",
    "summary.csv",
    "report.md",
    "report.json",
    "run_meta.json",
    "dataset_fingerprint.json",
    "model_snapshot.json",
];

/// The event log files of a run that called models (written as the run goes).
pub const EVENT_FILES: [&str; 2] = ["report.events.jsonl", "report.events.json-seq"];

/// Everything the artifacts are rendered from.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// The task.
    pub task: &'a Task,
    /// Its names and versions.
    pub info: &'a TaskInfo,
    /// The dataset as loaded.
    pub data: &'a TaskDataset,
    /// The dataset file's bytes (for the fingerprint).
    pub dataset_bytes: &'a [u8],
    /// The scored answers.
    pub scored: &'a Scored,
    /// Every skipped input line.
    pub line_errors: &'a [LineError],
    /// Where the answers came from.
    pub source: &'a AnswerSource,
    /// Tool, argv, times.
    pub meta: &'a RunMeta,
    /// Language of `report.md`.
    pub lang: Lang,
}

/// Renders [`FILES`] as `(name, contents)`, in that order.
pub fn render(i: &Inputs<'_>) -> Result<Vec<(&'static str, String)>, CsvError> {
    let input = ReportInput {
        task: i.task,
        info: i.info,
        data: i.data,
        source: i.source,
        scored: i.scored,
        line_errors: i.line_errors,
    };
    let rep = report::build(&input);
    let lines: Vec<usize> = i.data.samples.iter().map(|s| s.sample.line).collect();
    let fp = fingerprint::fingerprint(&i.data.name, i.dataset_bytes, &lines, i.data.errors.len());
    Ok(vec![
        (
            "results.jsonl",
            results::render(i.data, i.info, &i.scored.models),
        ),
        ("scores.jsonl", report::scores_jsonl(&rep.scores)),
        (
            "summary.csv",
            summary_csv::render(i.task, i.info, i.data.samples.len(), &i.scored.models)?,
        ),
        ("report.md", markdown::render(&input, &rep, i.lang)),
        ("report.json", pretty(&rep)),
        (
            "run_meta.json",
            pretty(&meta::run_meta(i.meta, i.info, i.source)),
        ),
        ("dataset_fingerprint.json", pretty(&fp)),
        (
            "model_snapshot.json",
            pretty(&meta::model_snapshot(
                &i.scored.models,
                &i.task.default_params,
                i.source,
                i.info,
            )),
        ),
    ])
}

fn pretty<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn renders_every_file_in_order() {
        let f = fixture();
        let meta = RunMeta {
            tool: "t".into(),
            version: "0".into(),
            argv: vec![],
            dataset: "d.jsonl".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 0,
        };
        let files = render(&Inputs {
            task: &f.task,
            info: &f.info,
            data: &f.data,
            dataset_bytes: b"",
            scored: &f.scored,
            line_errors: &f.errors,
            source: &f.source,
            meta: &meta,
            lang: Lang::En,
        })
        .expect("render");
        let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, FILES);
        let report: serde_json::Value = serde_json::from_str(&files[4].1).expect("json");
        assert_eq!(report["metrics"]["cases"], 4);
        assert_eq!(report["metrics"]["failed_calls"], 1);
    }
}
