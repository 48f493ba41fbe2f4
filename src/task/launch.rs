//! The task mode's side of the launch path: checks that the task, dataset
//! and models allow a run, builds the core's `TaskRunConfig` (models without
//! keys, page parameters without secrets), brings a stored run's inputs back
//! (keys typed again), and refuses a log of another task or dataset.

use crate::effects::entropy;
use crate::effects::runner::Update;
use crate::effects::{now_ms, url};
use crate::launch::{start_error, start_fresh};
use crate::launch::{Event, Fetching, ModeLaunch, Prepared, Slot};
use crate::state::keys::{self, KeyPrompt};
use crate::state::resume::{Offers, Takeover};
use crate::state::stored::StoredRun;
use crate::state::Mode;
use crate::state::ModelSettings;
use crate::task::code;
use crate::task::run::{TaskRunSpec, TaskView};
use crate::task::state::models::{
    backend, endpoint_name, plan, plan_judge, EndpointModel, ModelSource, PlannedModel,
};
use crate::task::state::stored::TaskInputs;
use crate::task::state::{ModelAction, RunAction, TaskAction, TaskState};
use crate::NotLoaded;
use evalpage_core::events::ReadLog;
use evalpage_core::run::{RunIdentity, StartSpec};
use evalpage_core::task::{ModelEntry, TaskRunConfig};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use serde_json::Value;
use std::rc::Rc;
use yew::prelude::*;

/// The task mode's run slot.
pub type TaskSlot = Slot<TaskView>;

/// The task mode as the launch path sees it.
#[derive(Clone, PartialEq)]
pub struct TaskLaunch {
    /// The task state.
    pub state: UseReducerHandle<TaskState>,
    /// Its run.
    pub slot: TaskSlot,
    /// Page parameters.
    pub params: Rc<url::PageParams>,
    /// Interface language (and of `report.md`).
    pub lang: Lang,
    /// The unfinished runs offered.
    pub offers: UseReducerHandle<Offers>,
}

/// What the run records as its "command line": page parameters that shaped
/// it, never a key.
fn argv(state: &TaskState, models: &[PlannedModel], params: &url::PageParams) -> Vec<String> {
    let names: Vec<&str> = models.iter().map(|m| m.settings.name.as_str()).collect();
    let mut argv = vec![
        "mode=task".to_string(),
        format!("task={}", state.editors.task_file),
        format!("dataset={}", state.data.run_data.data.name),
        format!("models={}", names.join(",")),
    ];
    if let Some(m) = &state.data.run_data.metadata {
        argv.push(format!("metadata={m}"));
    }
    if let Some(d) = params.demo_latency {
        argv.push(format!("demo_latency={d}"));
    }
    argv
}

impl ModeLaunch for TaskLaunch {
    const MODE: Mode = Mode::Run(RunKind::Task);
    type View = TaskView;
    /// The task state as it is, or as restored from a stored run.
    type Page = Rc<TaskState>;

    fn slot(&self) -> &TaskSlot {
        &self.slot
    }

    fn offers(&self) -> &UseReducerHandle<Offers> {
        &self.offers
    }

    fn lang(&self) -> Lang {
        self.lang
    }

    fn page(&self) -> Rc<TaskState> {
        Rc::new((*self.state).clone())
    }

    /// The code that checks the task, when *Start* comes before it.
    fn fetch(&self, page: &Rc<TaskState>) -> Option<Fetching> {
        if page.editors.code.is_some() || code::loaded().is_some() {
            return None;
        }
        let (state, lang) = (self.state.clone(), self.lang);
        Some(Box::pin(async move {
            code::load(state)
                .await
                .map_err(|NotLoaded| code::not_loaded(lang).to_string())
        }))
    }

    fn prepare(&self, page: &Rc<TaskState>, t: &Takeover) -> Result<Prepared<TaskView>, String> {
        let lang = self.lang;
        // A page made before the task's code came is checked now.
        let page = &code::checked(page);
        if let Some((zh, en)) = page.blocker() {
            return Err(lang.pick(zh, en).to_string());
        }
        let Some(task) = page.editors.check.checked.clone() else {
            return Err(lang.pick("任务无效", "The task is not valid").to_string());
        };
        let planned = plan(
            &task.task,
            &page.models.choices,
            &page.models.selected,
            page.models.key_sources(),
            page.run.settings.mock_latency,
        )?;
        let started = t.started_at_ms.unwrap_or_else(now_ms);
        let run_id = t
            .run_id
            .clone()
            .unwrap_or_else(|| RunKind::Task.run_id(started, entropy()));
        let judge = plan_judge(
            &task.task,
            &page.models.choices,
            &page.models.judge,
            page.models.key_sources(),
            page.run.settings.mock_latency,
            page.run.settings.run_settings(&planned, started),
        )?;
        // The judge's price (a priced registry entry) prices its usage row, as in the CLI.
        let (judge, judge_price) = match judge {
            Some((j, call, price)) => (Some((j, call)), price),
            None => (None, None),
        };
        let stored = StoredRun::of_task(page, &run_id, started, lang, url::origin);
        let cfg = TaskRunConfig {
            run: RunIdentity {
                run_id,
                tool: "evalpage-web".into(),
                started_at_ms: started,
                argv: argv(page, &planned, &self.params),
                settings: page.run.settings.run_settings(&planned, started),
                ..RunIdentity::default()
            },
            backend: backend(&planned),
            repeats: page.run.settings.repeats(&task.task),
            models: planned.iter().map(|m| m.settings.clone()).collect(),
        };
        let prices = planned
            .iter()
            .filter_map(|m| m.price.map(|p| (m.settings.name.clone(), p)))
            .collect();
        let spec = TaskRunSpec {
            cfg,
            task,
            run_data: page.data.run_data.clone(),
            calls: planned.into_iter().map(|m| m.call).collect(),
            judge,
            lang,
            start: StartSpec {
                policy: page.run.settings.policy(),
                max_cost: page.run.settings.max_cost,
                prices,
                judge_price,
            },
            batch: page.run.batch.clone(),
            persist: None,
            prior_log: t.log.clone(),
        };
        let (engine, view) = spec.parts().map_err(|e| start_error(lang, &e))?;
        Ok(Prepared {
            engine,
            view,
            started_ms: started,
            stored,
        })
    }

    fn restore(&self, stored: &StoredRun) -> (Rc<TaskState>, Option<String>) {
        let Some(s) = stored.inputs.read::<TaskInputs>() else {
            let why = self.lang.pick("这不是任务运行", "That is not a task run");
            return (self.page(), Some(why.into()));
        };
        let restored = self.state.restored(&s);
        let problem = restored.resume_problem(&s, self.lang);
        let restored = Rc::new(restored);
        self.state.dispatch(TaskAction::Restore(restored.clone()));
        (restored, problem)
    }

    fn log_problem(&self, log: &ReadLog) -> Option<String> {
        // a page made before the task's code came is checked with it now
        let page = code::checked(&self.page());
        let (lang, page) = (self.lang, &*page);
        let Some(meta) = log.of_type("meta").next() else {
            return Some(
                lang.pick(
                    "该文件不是 evalpage 任务事件日志（没有 meta 记录）",
                    "That file is not an evalpage task event log (it has no meta record)",
                )
                .to_string(),
            );
        };
        if page.editors.code.is_none() {
            let why = match page.editors.code_failed {
                true => code::not_loaded(lang),
                false => lang.pick(
                    "任务仍在检查中，请稍后再试",
                    "The task is still being checked; try again in a moment",
                ),
            };
            return Some(why.to_string());
        }
        let field = |k: &str| meta.get(k).and_then(Value::as_str).unwrap_or_default();
        let task = page
            .editors
            .check
            .checked
            .as_ref()
            .map(|t| t.info.name.as_str());
        if meta.get("task").is_none() {
            return Some(
                lang.pick(
                    "该日志属于 RAG 检查，不是任务运行；请在 RAG 模式中续跑",
                    "That log is a RAG check's, not a task run's; resume it in the RAG mode",
                )
                .to_string(),
            );
        }
        // A CLI log names the dataset as its path was given: the file's
        // name is what the page can know of it.
        let file_name = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
        if task != Some(field("task"))
            || file_name(field("dataset")) != file_name(&page.data.run_data.data.name)
        {
            return Some(format!(
                "{} {} / {} ({} {} / {})",
                lang.pick("该日志属于", "That log is of"),
                field("task"),
                field("dataset"),
                lang.pick("当前加载的是", "loaded:"),
                task.unwrap_or("?"),
                page.data.run_data.data.name,
            ));
        }
        None
    }

    fn tell(&self, event: Event<TaskView>) {
        let action = match event {
            Event::Started => TaskAction::Run(RunAction::Started),
            Event::Failed(why) => TaskAction::Run(RunAction::StartFailed(why)),
            Event::Update(Update::Progress(snap)) => TaskAction::Run(RunAction::Progress(snap)),
            Event::Update(Update::Finished(snap, a)) => {
                TaskAction::Run(RunAction::Finished(snap, a))
            }
            // Its model file is a choice of the list only once loaded: no run waits for it.
            Event::Waiting(_) => return,
        };
        self.state.dispatch(action);
    }
}

/// Starts a fresh task run once its keys may be sent: a key typed in the
/// endpoint form goes over plain `http://` to a host that is not loopback only
/// after the user agreed (`confirm`, from the prompt's button); otherwise the
/// run waits with a prompt that names the origin.
pub fn start_checked(m: &TaskLaunch, confirm: bool) {
    let state = &m.state;
    let mut agreed = (*state.models.plain_http_ok).clone();
    if let (true, Some(p)) = (confirm, &state.models.key_prompt) {
        agreed.insert(p.origin.clone());
        state.dispatch(TaskAction::Models(ModelAction::AllowPlainHttp(
            p.origin.clone(),
        )));
    }
    let ticked = state
        .models
        .choices
        .iter()
        .filter(|c| state.models.selected.contains(&c.name));
    for c in ticked {
        let ModelSource::Endpoint(e) = &c.source else {
            continue;
        };
        let keyed = state.models.ring.get(&e.origin).is_some();
        let target = url::target(&e.entry.base_url);
        if let (true, Some(t)) = (keyed, target) {
            if t.plain_http_remote && !agreed.contains(&t.origin) {
                let prompt = KeyPrompt {
                    origin: t.origin,
                    plain_http_remote: true,
                };
                return state.dispatch(TaskAction::Models(ModelAction::PromptKey(Some(Rc::new(
                    prompt,
                )))));
            }
        }
    }
    start_fresh(m)
}

/// Applies an edit of the endpoint form: the key field follows the
/// endpoint's origin and a typed key is kept for its origin, in memory only
/// (`keys::settle`, as in the RAG check).
pub fn edit_endpoint(state: &UseReducerHandle<TaskState>, new: ModelSettings) {
    let old = state.models.endpoint.clone();
    let mut ring = (*state.models.ring).clone();
    let old_origin = url::origin(&old.base_url);
    let new_origin = url::origin(&new.base_url);
    let new = ModelSettings {
        remember_key: false,
        ..new
    };
    let (kept, _) = keys::settle(
        &old,
        new,
        old_origin.as_deref(),
        new_origin.as_deref(),
        &mut ring,
    );
    state.dispatch(TaskAction::Models(ModelAction::SetEndpoint(
        Rc::new(kept),
        Rc::new(ring),
    )));
}

/// Adds the endpoint of the form as a model of the task (ticked): named by
/// its model id (made unique), called through the same engine, with the key
/// kept for its origin.
pub fn add_endpoint(state: &UseReducerHandle<TaskState>) {
    let e = &state.models.endpoint;
    if e.problem().is_some() {
        return;
    }
    let Some(origin) = url::origin(&e.base_url) else {
        return;
    };
    let model = e.model.trim();
    let entry = ModelEntry {
        name: endpoint_name(model, &origin, &state.models.choices),
        base_url: e.base_url.trim().to_string(),
        model: Some(model.to_string()),
        api_key_env: None,
        default_params: Default::default(),
        price_in_per_mtok: None,
        price_out_per_mtok: None,
    };
    state.dispatch(TaskAction::Models(ModelAction::AddEndpoint(
        EndpointModel { entry, origin },
    )));
}
