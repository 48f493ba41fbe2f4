//! The end of a task run: the eight files of spec 004 (through the one
//! renderer of every run's files), each model and the judge priced, and one
//! summary line per model.

use super::artifacts::{render, Inputs};
use super::contract::Task;
use super::data::TaskDataset;
use super::engine::TaskKind;
use super::report::{AnswerSource, RunDescription, TaskInfo, TaskMetrics};
use super::score::Scored;
use crate::lang::Words;
use crate::metric::Aggregate;
use crate::report::{Prices, ReportNames, RunMeta, TASK_NAMES};
use crate::run::{Ended, Finish, KindDecl, Pipeline};
use crate::Lang;

/// What this kind states about itself (found by `RunKind::decl`).
pub(crate) const KIND: KindDecl = KindDecl {
    title: Words {
        zh: "任务评测",
        en: "Task",
    },
    unfinished: Words {
        zh: "发现未完成的任务运行",
        en: "Unfinished task run",
    },
    settled: Words {
        zh: "次调用已完成。",
        en: "calls settled.",
    },
    names: TASK_NAMES,
    evaluation_report: true,
};

/// What a task run's files are rendered from besides the engine.
#[derive(Clone, Debug)]
pub struct TaskFiles {
    /// The task.
    pub task: Task,
    /// Its names and versions.
    pub info: TaskInfo,
    /// The dataset as loaded.
    pub data: TaskDataset,
    /// The dataset file's bytes (for the fingerprint).
    pub dataset_bytes: Vec<u8>,
    /// Language of `report.md`.
    pub lang: Lang,
}

impl Finish for TaskKind {
    const NAMES: ReportNames = KIND.names;
    type Inputs = TaskFiles;

    fn files(
        engine: &Pipeline<TaskKind>,
        mut i: TaskFiles,
        meta: &RunMeta,
        prices: &Prices,
    ) -> Result<Ended, String> {
        let cfg = engine.config();
        // the report's breakdown by length, as the engine measured its samples
        engine.kind().measure(&mut i.data.samples);
        let mut scored = engine.scored();
        for m in &mut scored.models {
            m.price = prices.get(&m.model).copied();
        }
        scored.judge_price = engine
            .judge()
            .and_then(|j| prices.get(&j.model.name))
            .copied();
        let source = AnswerSource::Run(RunDescription {
            run_id: cfg.run.run_id.clone(),
            backend: cfg.backend.clone(),
            models: cfg.models.clone(),
            settings: cfg.run.settings,
        });
        let files = render(&Inputs {
            task: &i.task,
            info: &i.info,
            prompts: engine.prompts(),
            data: &i.data,
            dataset_bytes: &i.dataset_bytes,
            scored: &scored,
            line_errors: &i.data.errors,
            source: &source,
            meta,
            lang: i.lang,
        })
        .map_err(|e| format!("could not render summary.csv: {e}"))?;
        Ok(Ended {
            files: files.into_iter().map(|(n, t)| (n.to_string(), t)).collect(),
            report: None,
            lines: summary_lines(&scored),
            not_run: TaskMetrics::of(&scored.models).not_run_cases,
        })
    }
}

/// One line per model: samples, answers, parse problems and each metric's
/// mean (`-` with the count of skipped samples when no sample has a value).
pub fn summary_lines(scored: &Scored) -> Vec<String> {
    scored
        .models
        .iter()
        .map(|m| {
            let means: Vec<String> = m
                .aggregates
                .iter()
                .map(|(name, agg)| format!("{name}={}", mean_shown(agg)))
                .collect();
            format!(
                "{}: {} samples, {} answered, {} parse problem(s); {}",
                m.model,
                m.results.len(),
                m.answered(),
                m.parse_problems(),
                means.join(" ")
            )
        })
        .collect()
}

fn mean_shown(agg: &Aggregate) -> String {
    if agg.sample_count == 0 {
        format!("- ({} skipped)", agg.skipped)
    } else {
        format!("{:.3}", agg.mean)
    }
}
