//! Starting a task run from the page: checks that the task, dataset and
//! models allow it, builds the core's `TaskRunConfig` (models without keys,
//! page parameters without secrets) and hands it to the task runner.

use crate::effects::task_runner::{TaskRunHandle, TaskRunSpec, TaskRunUpdate};
use crate::effects::{now_ms, url};
use crate::state::task_models::{backend, plan, ModelCall, PlannedModel};
use crate::state::{TaskAction, TaskState};
use evalpage_core::task_run::engine::TaskRunConfig;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The task mode's run handle (kept by the app, so switching modes does not lose a run).
#[derive(Clone, Default)]
pub struct TaskHandle(pub Rc<RefCell<Option<TaskRunHandle>>>);

impl PartialEq for TaskHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl TaskHandle {
    /// True while a run has jobs to settle.
    pub fn is_running(&self) -> bool {
        self.0
            .borrow()
            .as_ref()
            .is_some_and(TaskRunHandle::is_running)
    }

    /// Cancels the run, if one is going.
    pub fn cancel(&self) {
        if let Some(h) = self.0.borrow().as_ref() {
            h.cancel();
        }
    }

    /// Pauses or resumes the run, if one is going.
    pub fn set_paused(&self, paused: bool) {
        if let Some(h) = self.0.borrow().as_ref() {
            h.set_paused(paused);
        }
    }
}

/// What the run records as its "command line": page parameters that shaped
/// it, never a key.
fn argv(state: &TaskState, models: &[PlannedModel], params: &url::PageParams) -> Vec<String> {
    let names: Vec<&str> = models.iter().map(|m| m.settings.name.as_str()).collect();
    let mut argv = vec![
        "mode=task".to_string(),
        format!("task={}", state.task_file),
        format!("dataset={}", state.run_data.data.name),
        format!("models={}", names.join(",")),
    ];
    if let Some(m) = &state.run_data.metadata {
        argv.push(format!("metadata={m}"));
    }
    if let Some(d) = params.demo_latency {
        argv.push(format!("demo_latency={d}"));
    }
    argv
}

/// Validates and starts a run; a problem shows as a failed start with the reason.
pub fn start(
    state: &UseReducerHandle<TaskState>,
    handle: &TaskHandle,
    params: &url::PageParams,
    lang: evalpage_core::Lang,
) {
    if handle.is_running() {
        return;
    }
    let fail = |msg: String| state.dispatch(TaskAction::StartFailed(Rc::from(msg)));
    if let Some((zh, en)) = state.blocker() {
        return fail(lang.pick(zh, en).to_string());
    }
    let Some(task) = state.check.checked.clone() else {
        return;
    };
    let planned = match plan(
        &task.task,
        &state.choices,
        &state.selected,
        &state.keys,
        state.settings.mock_latency,
    ) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let started = now_ms();
    let cfg = TaskRunConfig {
        run_id: format!(
            "eval_task-{started}-{:x}",
            (js_sys::Math::random() * 65536.0) as u32
        ),
        tool: "evalpage-web".into(),
        started_at_ms: started,
        backend: backend(&planned).into(),
        models: planned.iter().map(|m| m.settings.clone()).collect(),
        settings: state.settings.run_settings(&planned, started),
        argv: argv(state, &planned, params),
    };
    let calls: Vec<ModelCall> = planned.into_iter().map(|m| m.call).collect();
    let spec = TaskRunSpec {
        cfg,
        task,
        run_data: state.run_data.clone(),
        calls,
        lang,
    };
    let st = state.clone();
    let on_update = Callback::from(move |u: TaskRunUpdate| match u {
        TaskRunUpdate::Progress(snap) => st.dispatch(TaskAction::Progress(snap)),
        TaskRunUpdate::Finished(snap, a) => st.dispatch(TaskAction::Finished(snap, a)),
    });
    state.dispatch(TaskAction::Started);
    *handle.0.borrow_mut() = Some(TaskRunHandle::start(spec, on_update));
}
