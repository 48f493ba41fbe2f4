//! Every artifact of a task run: the task's own parts handed to the one
//! renderer of every run's files (`report::outputs`), so `evalpage run
//! --task`, `evalpage score`, the RAG check and the page write the same files.

use super::data::TaskDataset;
use super::meta::{self, RunMeta};
use super::report::{self, AnswerSource, ReportInput, TaskInfo};
use super::score::Scored;
use super::{markdown, results};
use crate::dataset::fingerprint;
use crate::dataset::LineError;
use crate::provider::ChatMessage;
use crate::report::outputs::{self, Outputs};
use crate::task::contract::Task;
use crate::Lang;

pub(crate) use crate::report::outputs::CsvError;

/// Everything the artifacts are rendered from.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// The task.
    pub task: &'a Task,
    /// Its names and versions.
    pub info: &'a TaskInfo,
    /// Each sample's rendered prompt, by sample index (`results.jsonl`'s
    /// `messages`): the engine's (`TaskEngine::prompts`, what was sent), or
    /// `prompts::render_prompts` for answers read from a file.
    pub prompts: &'a [Result<Vec<ChatMessage>, String>],
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

/// Renders [`FILES`] as `(name, contents)`, in that order, through the one
/// renderer of every run's files.
pub fn render(i: &Inputs<'_>) -> Result<Vec<(&'static str, String)>, CsvError> {
    let input = ReportInput {
        task: i.task,
        info: i.info,
        data: i.data,
        source: i.source,
        scored: i.scored,
        line_errors: i.line_errors,
        times: matches!(i.source, AnswerSource::Run(_))
            .then_some((i.meta.started_at_ms, i.meta.ended_at_ms)),
    };
    let mut rep = report::build(&input);
    rep.report.experiment.report_language = Some(i.lang);
    let lines: Vec<usize> = i.data.samples.iter().map(|s| s.sample.line).collect();
    let fp = fingerprint::fingerprint(&i.data.name, i.dataset_bytes, &lines, i.data.errors.len());
    let outputs = Outputs {
        markdown: markdown::render(&rep, &markdown::ParseProblems::of(&input), i.lang),
        report: rep,
        report_file: crate::report::TASK_NAMES.report,
        results_jsonl: results::render(i.data, i.info, i.source, &i.scored.models, i.prompts),
        samples: i.data.samples.len(),
        default_model: String::new(),
        identity: vec![
            ("task".into(), i.info.name.clone()),
            ("task_version".into(), i.info.version.clone()),
            ("prompt".into(), i.info.prompt_name.clone()),
            ("prompt_version".into(), i.info.prompt_version.clone()),
        ],
        run_meta: meta::run_meta(i.meta, i.info, i.source),
        fingerprint: serde_json::to_value(&fp).unwrap_or_default(),
        model_snapshot: meta::model_snapshot(
            &i.scored.models,
            &i.task.default_params,
            i.source,
            i.info,
        ),
    };
    outputs::render(outputs)
}

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    fn meta() -> RunMeta {
        RunMeta {
            tool: "t".into(),
            version: "0".into(),
            argv: vec![],
            dataset: "d.jsonl".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 0,
        }
    }

    fn inputs<'a>(f: &'a super::super::testing::Fixture, meta: &'a RunMeta) -> Inputs<'a> {
        Inputs {
            task: &f.task,
            info: &f.info,
            prompts: &f.prompts,
            data: &f.data,
            dataset_bytes: b"",
            scored: &f.scored,
            line_errors: &f.errors,
            source: &f.source,
            meta,
            lang: Lang::En,
        }
    }

    #[test]
    fn renders_every_file_in_order() {
        let f = fixture();
        let files = render(&inputs(&f, &meta())).expect("render");
        let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, crate::report::FILES);
        let report: serde_json::Value = serde_json::from_str(&files[4].1).expect("json");
        assert_eq!(report["metrics"]["cases"], 4);
        assert_eq!(report["metrics"]["failed_calls"], 1);
    }

    #[test]
    fn one_row_per_model_with_tm_columns_and_components() {
        let f = fixture();
        let files = render(&inputs(&f, &meta())).expect("render");
        let text = files[2].1.clone();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(
                "model,samples,tm_sentiment_acc,tm_impact,tm_impact_hit_rate,tm_impact_mae,\
tm_keyword,tm_keyword_f1,tm_keyword_micro_f1,tm_keyword_micro_precision,\
tm_keyword_micro_recall,tm_keyword_precision,tm_keyword_recall,truncated,prompt_tokens,\
completion_tokens,reasoning_tokens,latency_p50_ms,latency_p95_ms,output_tokens_per_s,\
task,task_version,prompt,prompt_version"
            )
        );
        // m1: S1 all right (keywords {ai} vs {ai, chips}: p 1, r 0.5, f1 2/3);
        // S2 not JSON: neutral vs negative, 0 vs -3, [] vs [loss].
        assert_eq!(
            lines.next(),
            Some("m1,2,0.5,0.5,0.5,1.5,0.3333333333333333,0.3333333333333333,0.5,1,0.3333333333333333,0.5,0.25,0,0,0,0,,,,event_eval,v1,ie_json,v1")
        );
        // m2: S1 neutral/1/{ai, chips}; S2 unanswered: defaults.
        assert_eq!(
            lines.next(),
            Some("m2,2,0,0.5,0.5,2,0.5,0.5,0.8,1,0.6666666666666666,0.5,0.5,0,0,0,0,,,,event_eval,v1,ie_json,v1")
        );
        assert_eq!(lines.next(), None);
    }
}
