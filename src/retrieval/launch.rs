//! The retrieval mode's side of the one launch path (`crate::launch`): its
//! run from the page (cases, endpoint, `k`, the key of the endpoint's
//! origin), the key rules before a run starts, a stored run's inputs brought
//! back after a reload, and what the page is told.

use crate::effects::entropy;
use crate::effects::runner::Update;
use crate::effects::{now_ms, url};
use crate::launch::{
    endpoint_fields, endpoint_key, start_error, EndpointMode, Event, ModeLaunch, Prepared, Slot,
};
use crate::retrieval::run::{RetrievalFiles, RetrievalView};
use crate::retrieval::state::{RetrievalAction, RetrievalInputs, RetrievalState};
use crate::state::keys::{EndpointForm, FormAction};
use crate::state::resume::{Offers, Takeover};
use crate::state::stored::{StoredInputs, StoredRun};
use crate::state::{Mode, ShellState};
use evalpage_core::events::{self, ReadLog};
use evalpage_core::retrieval::{RetrievalEndpoint, RetrievalKind, RetrievalRunConfig};
use evalpage_core::run::{Pipeline, RunIdentity, RunSettings, StartSpec};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use std::rc::Rc;
use yew::prelude::*;

/// The retrieval mode's run slot.
pub type RetrievalSlot = Slot<RetrievalView>;

/// The retrieval mode as the launch path sees it.
#[derive(Clone, PartialEq)]
pub struct RetrievalLaunch {
    /// The mode's page state.
    pub state: UseReducerHandle<RetrievalState>,
    /// Its run.
    pub slot: RetrievalSlot,
    /// The unfinished runs offered.
    pub offers: UseReducerHandle<Offers>,
    /// The page's keys (by origin) and language.
    pub shell: UseReducerHandle<ShellState>,
}

fn run_config(
    s: &RetrievalState,
    endpoint: RetrievalEndpoint,
    demo: bool,
    t: &Takeover,
) -> RetrievalRunConfig {
    let started = t.started_at_ms.unwrap_or_else(now_ms);
    let run_id = t
        .run_id
        .clone()
        .unwrap_or_else(|| RunKind::Retrieval.run_id(started, entropy()));
    let mut argv = vec![format!("k={}", s.k), format!("list_path={}", s.path)];
    if !demo {
        argv.push(format!("endpoint={}", endpoint.url));
    }
    RetrievalRunConfig {
        run: RunIdentity {
            run_id,
            tool: "evalpage-web".into(),
            started_at_ms: started,
            argv,
            dataset: s.dataset_name.clone(),
            settings: RunSettings {
                concurrency: s.concurrency,
                ..RunSettings::default()
            },
        },
        dataset: s.dataset_name.clone(),
        k: s.k,
        endpoint,
    }
}

impl ModeLaunch for RetrievalLaunch {
    const MODE: Mode = Mode::Run(RunKind::Retrieval);
    type View = RetrievalView;
    /// The page as it is, or as restored from a stored run.
    type Page = Rc<RetrievalState>;

    fn slot(&self) -> &RetrievalSlot {
        &self.slot
    }

    fn offers(&self) -> &UseReducerHandle<Offers> {
        &self.offers
    }

    fn lang(&self) -> Lang {
        self.shell.lang
    }

    fn page(&self) -> Rc<RetrievalState> {
        Rc::new((*self.state).clone())
    }

    fn prepare(
        &self,
        s: &Rc<RetrievalState>,
        t: &Takeover,
    ) -> Result<Prepared<RetrievalView>, String> {
        let lang = self.lang();
        if s.cases.is_empty() {
            return Err(lang
                .pick(
                    "没有有效用例：需要 {case_id, query, expected_sources, bucket} 的 JSONL",
                    "No valid case: expected JSONL of {case_id, query, expected_sources, bucket}",
                )
                .to_string());
        }
        let url = s.form.url.trim();
        let demo = url.is_empty();
        let (target, backend) = if demo {
            ("demo-retriever", "mock")
        } else {
            (url, "http")
        };
        let endpoint = RetrievalEndpoint::new(target, backend, &s.body, &s.path)?;
        let key = if demo {
            None
        } else {
            endpoint_key::bound(&self.shell, url, &s.form.api_key).map_err(|_| {
                lang.pick(
                    "密钥框中的密钥不是为该端点的源保存的，请重新输入",
                    "The key in the field is not the one saved for this endpoint's origin: type it again",
                )
                .to_string()
            })?
        };
        let cfg = run_config(s, endpoint, demo, t);
        let stored = StoredRun {
            run_id: cfg.run.run_id.clone(),
            started_at_ms: cfg.run.started_at_ms,
            status: "running".into(),
            dataset_name: s.dataset_name.clone(),
            lang: lang.code().into(),
            total: s.cases.len(),
            inputs: StoredInputs::of(&s.inputs()),
            shown: s.dataset_name.clone(),
            origins: url::origin(&s.form.url).into_iter().collect(),
        };
        let started_ms = cfg.run.started_at_ms;
        // A retrieval service is not priced: only the answer policy applies.
        let spec = StartSpec {
            policy: s.limits.start_spec("", false).policy,
            ..StartSpec::default()
        };
        let kind = RetrievalKind::new(cfg, s.cases.as_ref().clone());
        let log = t.log.as_ref().map(|log| events::read(log.as_bytes()));
        let (engine, _) =
            Pipeline::prepare(kind, &spec, log.as_ref()).map_err(|e| start_error(lang, &e))?;
        let files = RetrievalFiles {
            cases_file: s.dataset_name.clone(),
            cases_bytes: s.dataset_bytes.to_vec(),
            line_errors: s.line_errors.as_ref().clone(),
            metadata: None,
            lang,
        };
        let view = RetrievalView::new(&engine, demo, files, key);
        Ok(Prepared {
            engine,
            view,
            started_ms,
            stored,
        })
    }

    fn restore(&self, stored: &StoredRun) -> (Rc<RetrievalState>, Option<String>) {
        let Some(i) = stored.inputs.read::<RetrievalInputs>() else {
            let why = self
                .lang()
                .pick("这不是检索评测的运行", "That is not a retrieval run");
            return (self.page(), Some(why.into()));
        };
        let key = endpoint_fields::resumed_key(self, &i.url);
        let action = || RetrievalAction::Restore(Box::new(i.clone()), key.clone());
        let page = self.page().reduce(action());
        self.state.dispatch(action());
        (page, None)
    }

    fn log_problem(&self, log: &ReadLog) -> Option<String> {
        endpoint_fields::log_problem(self, log)
    }

    fn tell(&self, event: Event<RetrievalView>) {
        let action = match event {
            Event::Started => RetrievalAction::Started,
            Event::Failed(why) => RetrievalAction::Failed(why),
            Event::Update(Update::Progress(snap)) => RetrievalAction::Progress(snap),
            Event::Update(Update::Finished(snap, a)) => RetrievalAction::Finished(snap, a),
            // No model file is asked: no run waits for one.
            Event::Waiting(_) => return,
        };
        self.state.dispatch(action);
    }
}

impl EndpointMode for RetrievalLaunch {
    fn shell(&self) -> &UseReducerHandle<ShellState> {
        &self.shell
    }
    fn form(&self) -> &EndpointForm {
        &self.state.form
    }
    fn change(&self, action: FormAction) {
        self.state.dispatch(RetrievalAction::Form(action));
    }
}
