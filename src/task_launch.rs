//! Starting a task run from the page: checks that the task, dataset and
//! models allow it, builds the core's `TaskRunConfig` (models without keys,
//! page parameters without secrets) and hands it to the task runner, which
//! saves it in IndexedDB as it goes. Also resumes a run: the one offered after
//! a reload (its stored inputs, keys typed again) or the one of a downloaded
//! event log (over what is loaded); either keeps the old run id and sends
//! only the calls not yet settled.

use crate::effects::idb;
use crate::effects::runner::{Persist, Update};
use crate::effects::task_run::{TaskRunHandle, TaskRunSpec, TaskRunUpdate};
use crate::effects::{now_ms, url};
use crate::state::task_models::{backend, plan, ModelCall, PlannedModel};
use crate::state::task_stored::{StoredTaskRun, TaskResumeOffer};
use crate::state::{TaskAction, TaskState};
use evalpage_core::events;
use evalpage_core::task_run::engine::TaskRunConfig;
use evalpage_core::Lang;
use serde_json::Value;
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

/// What a resumed run takes over from the interrupted one.
#[derive(Default)]
pub struct TaskTakeover {
    /// The interrupted run's id (kept, so both logs belong to one run).
    pub run_id: Option<String>,
    /// Its start time, when known (a resume from this browser's storage).
    pub started_at_ms: Option<u64>,
    /// Its event log: the calls it settled are not sent again.
    pub log: Option<Rc<str>>,
}

/// Validates and starts a fresh run of what the page holds.
pub fn start(
    state: &UseReducerHandle<TaskState>,
    handle: &TaskHandle,
    params: &url::PageParams,
    lang: Lang,
) {
    start_with(state, state, handle, params, lang, TaskTakeover::default());
}

/// Validates and starts a run of `page` (the state as it is, or as restored
/// and just dispatched); a problem shows as a failed start with the reason.
fn start_with(
    state: &UseReducerHandle<TaskState>,
    page: &TaskState,
    handle: &TaskHandle,
    params: &url::PageParams,
    lang: Lang,
    takeover: TaskTakeover,
) {
    if handle.is_running() {
        return;
    }
    let fail = |msg: String| state.dispatch(TaskAction::StartFailed(Rc::from(msg)));
    if let Some((zh, en)) = page.blocker() {
        return fail(lang.pick(zh, en).to_string());
    }
    let Some(task) = page.check.checked.clone() else {
        return;
    };
    let planned = match plan(
        &task.task,
        &page.choices,
        &page.selected,
        &page.keys,
        page.settings.mock_latency,
    ) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let started = takeover.started_at_ms.unwrap_or_else(now_ms);
    let run_id = takeover.run_id.clone().unwrap_or_else(|| {
        format!(
            "eval_task-{started}-{:x}",
            (js_sys::Math::random() * 65536.0) as u32
        )
    });
    let stored = StoredTaskRun::of(page, &run_id, started, lang);
    let cfg = TaskRunConfig {
        run_id,
        tool: "evalpage-web".into(),
        started_at_ms: started,
        backend: backend(&planned).into(),
        models: planned.iter().map(|m| m.settings.clone()).collect(),
        settings: page.settings.run_settings(&planned, started),
        argv: argv(page, &planned, params),
    };
    let calls: Vec<ModelCall> = planned.into_iter().map(|m| m.call).collect();
    let spec = TaskRunSpec {
        cfg,
        task,
        run_data: page.run_data.clone(),
        calls,
        lang,
        persist: Some(Persist {
            stored,
            replace: takeover.run_id.is_some(),
        }),
        prior_log: takeover.log,
    };
    let st = state.clone();
    let on_update = Callback::from(move |u: TaskRunUpdate| match u {
        Update::Progress(snap) => st.dispatch(TaskAction::Progress(snap)),
        Update::Finished(snap, a) => st.dispatch(TaskAction::Finished(snap, a)),
    });
    state.dispatch(TaskAction::Started);
    *handle.0.borrow_mut() = Some(TaskRunHandle::start(spec, on_update));
}

/// Looks for an unfinished task run saved in this browser and offers it.
pub async fn find_unfinished(state: UseReducerHandle<TaskState>) {
    let found = async {
        let db = idb::open().await?;
        for stored in idb::runs::<StoredTaskRun>(&db).await? {
            if stored.status == "running" {
                let events = idb::events(&db, &stored.run_id).await?;
                let done = events::read(events.as_bytes()).of_type("case").count();
                return Ok(Some(TaskResumeOffer {
                    stored,
                    events: Rc::from(events),
                    done,
                }));
            }
        }
        Ok::<_, String>(None)
    };
    match found.await {
        Ok(offer) => state.dispatch(TaskAction::OfferResume(offer.map(Rc::new))),
        Err(e) => web_sys::console::warn_1(
            &format!("evalpage: cannot look for unfinished task runs: {e}").into(),
        ),
    }
}

/// Resumes the run offered after a reload: its stored inputs replace the
/// page's, then (once every registry model that needs a key has one again)
/// only the calls not yet settled are sent.
pub fn resume_offer(
    state: &UseReducerHandle<TaskState>,
    handle: &TaskHandle,
    params: &url::PageParams,
    lang: Lang,
    offer: &TaskResumeOffer,
) {
    if handle.is_running() {
        return;
    }
    let s = &offer.stored;
    let restored = state.restored(s);
    let problem = restored.resume_problem(s, lang);
    let restored = Rc::new(restored);
    state.dispatch(TaskAction::Restore(restored.clone()));
    if let Some(p) = problem {
        return state.dispatch(TaskAction::StartFailed(Rc::from(p)));
    }
    let takeover = TaskTakeover {
        run_id: Some(s.run_id.clone()),
        started_at_ms: Some(s.started_at_ms),
        log: Some(offer.events.clone()),
    };
    start_with(state, &restored, handle, params, lang, takeover);
}

/// Why a downloaded event log cannot be resumed over what is loaded, if it cannot.
fn log_problem(log: &events::ReadLog, page: &TaskState, lang: Lang) -> Option<String> {
    let Some(meta) = log.of_type("meta").next() else {
        return Some(
            lang.pick(
                "该文件不是 evalpage 任务事件日志（没有 meta 记录）",
                "That file is not an evalpage task event log (it has no meta record)",
            )
            .to_string(),
        );
    };
    let field = |k: &str| meta.get(k).and_then(Value::as_str).unwrap_or_default();
    let task = page.check.checked.as_ref().map(|t| t.info.name.as_str());
    if meta.get("task").is_none() {
        return Some(
            lang.pick(
                "该日志属于 RAG 检查，不是任务运行；请在 RAG 模式中续跑",
                "That log is a RAG check's, not a task run's; resume it in the RAG mode",
            )
            .to_string(),
        );
    }
    if task != Some(field("task")) || field("dataset") != page.run_data.data.name {
        return Some(format!(
            "{} {} / {} ({} {} / {})",
            lang.pick("该日志属于", "That log is of"),
            field("task"),
            field("dataset"),
            lang.pick("当前加载的是", "loaded:"),
            task.unwrap_or("?"),
            page.run_data.data.name,
        ));
    }
    None
}

/// Resumes from a downloaded event log over the loaded task, dataset and models.
pub fn resume_from_log(
    state: &UseReducerHandle<TaskState>,
    handle: &TaskHandle,
    params: &url::PageParams,
    lang: Lang,
    bytes: &[u8],
) {
    let log = events::read(bytes);
    if let Some(p) = log_problem(&log, state, lang) {
        return state.dispatch(TaskAction::StartFailed(Rc::from(p)));
    }
    let run_id = log
        .of_type("meta")
        .next()
        .and_then(|m| m.get("run_id"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let takeover = TaskTakeover {
        run_id,
        started_at_ms: None,
        log: Some(Rc::from(String::from_utf8_lossy(bytes).as_ref())),
    };
    start_with(state, state, handle, params, lang, takeover);
}

/// Forgets an offered run.
pub fn discard(state: &UseReducerHandle<TaskState>, offer: &TaskResumeOffer) {
    let (state, run_id) = (state.clone(), offer.stored.run_id.clone());
    wasm_bindgen_futures::spawn_local(async move {
        match idb::open().await {
            Ok(db) => {
                if let Err(e) = idb::delete(&db, &run_id).await {
                    web_sys::console::warn_1(
                        &format!("evalpage: could not delete the task run {run_id}: {e}").into(),
                    );
                }
            }
            Err(e) => web_sys::console::warn_1(&format!("evalpage: {e}").into()),
        }
        state.dispatch(TaskAction::OfferResume(None));
    });
}
