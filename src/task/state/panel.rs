//! The task mode's run as the page shows it: the runner's snapshot (progress
//! and the results so far), the scheduling, the downloads, why a run could
//! not start, and the batch answers a run scores instead of calling. One
//! concern of [`super::TaskState`].

use super::batch::BatchAnswers;
use super::check::CheckedTask;
use super::models::TaskRunSettings;
use super::results::{Labels, ResultGrid};
use crate::state::{RunFiles, RunProgress, RunStatus};
use evalpage_core::run::StopReason;
use evalpage_core::task::TaskDataset;
use evalpage_core::Lang;
use std::rc::Rc;

/// What the runner reports: progress and the results so far.
#[derive(Clone, Debug)]
pub struct TaskSnapshot {
    /// Status.
    pub status: RunStatus,
    /// Counts and times for the progress bar.
    pub progress: RunProgress,
    /// The task that runs.
    pub task: Rc<CheckedTask>,
    /// Its dataset.
    pub data: Rc<TaskDataset>,
    /// Model names, in column order.
    pub models: Rc<Vec<String>>,
    /// Results by model, then answer: sample by sample, each sample's
    /// repeats in order (one per sample when each is asked once).
    pub results: ResultGrid,
    /// Each sample's labels as shown (computed once per run).
    pub labels: Rc<Vec<Labels>>,
    /// How many times each sample is asked.
    pub repeats: u32,
}

/// Equal when they show the same thing: the same run (task, data, models
/// and labels are made once per run) with the same counts and results, a
/// result equal to itself only (see `state::same_each`).
impl PartialEq for TaskSnapshot {
    fn eq(&self, o: &Self) -> bool {
        self.status == o.status
            && self.progress == o.progress
            && self.repeats == o.repeats
            && Rc::ptr_eq(&self.task, &o.task)
            && Rc::ptr_eq(&self.data, &o.data)
            && Rc::ptr_eq(&self.models, &o.models)
            && Rc::ptr_eq(&self.labels, &o.labels)
            && self.results.len() == o.results.len()
            && self
                .results
                .iter()
                .zip(&o.results)
                .all(|(a, b)| crate::state::same_each(a, b))
    }
}

impl TaskSnapshot {
    /// Why the run stopped before sending anything, as the task mode shows
    /// it under the run controls: no sample's prompt renders (the core's
    /// reason, naming the template and the missing field with the first
    /// sample's file and line), then what to do. `None` for any other run,
    /// whose stop (a fatal answer, the cost cap) the run controls show.
    pub fn prompt_stop(&self, lang: Lang) -> Option<String> {
        let why = self
            .progress
            .stopped
            .as_ref()
            .filter(|s| s.reason == StopReason::Prompt)
            .map(|s| s.message.as_str())?;
        Some(match lang {
            Lang::Zh => format!(
                "运行未发送任何请求就停止了：{why}。请给样本补上该字段或修改模板（“提示词预览”显示第一个样本的提示词），然后重新开始评测。"
            ),
            Lang::En => format!(
                "The run stopped before sending anything: {why}. Add the field to the samples or change the template (the prompt preview shows the first sample's prompt), then start the evaluation again."
            ),
        })
    }

    /// The progress the run controls show: without the stop
    /// [`TaskSnapshot::prompt_stop`] shows (it is no fatal answer to fix in
    /// the key, model or URL).
    pub fn controls_progress(&self) -> RunProgress {
        let mut progress = self.progress.clone();
        if progress
            .stopped
            .as_ref()
            .is_some_and(|s| s.reason == StopReason::Prompt)
        {
            progress.stopped = None;
        }
        progress
    }
}

/// The run as the page shows it: its scheduling, the latest snapshot, the
/// downloads, why it could not start, and the batch answers it scores
/// instead of calling. One concern of [`super::TaskState`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunPanel {
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// Latest run snapshot.
    pub snapshot: Option<Rc<TaskSnapshot>>,
    /// Downloads of the finished run.
    pub artifacts: Option<Rc<RunFiles>>,
    /// Why the run could not start, or its artifacts could not be rendered.
    pub start_error: Option<Rc<str>>,
    /// Answers imported from batch files: Start scores them instead of
    /// calling the models (see `task_batch`).
    pub batch: Option<Rc<BatchAnswers>>,
}

impl RunPanel {
    /// The status shown for the run.
    pub fn status(&self) -> RunStatus {
        if self.start_error.is_some() && self.snapshot.is_none() {
            return RunStatus::Failed;
        }
        self.snapshot.as_ref().map_or(RunStatus::Idle, |r| r.status)
    }
}

/// What changes the run panel.
#[derive(Clone, Debug)]
pub enum RunAction {
    /// Scheduling edited.
    SetSettings(TaskRunSettings),
    /// Batch answers were imported (or dropped).
    SetBatch(Option<Rc<BatchAnswers>>),
    /// The run could not start.
    StartFailed(Rc<str>),
    /// A run started: clear the previous one.
    Started,
    /// Progress from the runner.
    Progress(Rc<TaskSnapshot>),
    /// The run stopped, with its artifacts or why they could not be rendered.
    Finished(Rc<TaskSnapshot>, Result<Rc<RunFiles>, Rc<str>>),
}

impl RunPanel {
    /// Applies `action`.
    pub(super) fn apply(&mut self, action: RunAction) {
        match action {
            RunAction::SetSettings(s) => self.settings = s,
            RunAction::SetBatch(b) => self.batch = b,
            RunAction::StartFailed(e) => self.start_error = Some(e),
            RunAction::Started => {
                self.snapshot = None;
                self.artifacts = None;
                self.start_error = None;
            }
            RunAction::Progress(snap) => self.snapshot = Some(snap),
            RunAction::Finished(snap, artifacts) => {
                self.snapshot = Some(snap);
                match artifacts {
                    Ok(a) => self.artifacts = Some(a),
                    Err(e) => self.start_error = Some(e),
                }
            }
        }
    }
}
