//! Wasm tests of the web side, run in headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test -p evalpage-web --target wasm32-unknown-unknown`.

#![cfg(target_arch = "wasm32")]

use evalpage_core::demo;
use evalpage_core::rag::{self, Engine, RunConfig};
use evalpage_core::run::{Command, Input, RunIdentity, RunInfo, RunSettings};
use evalpage_core::CallOutcome;
use evalpage_core::Lang;
use evalpage_core::RunKind;
use evalpage_core::ScoringConfig;
use evalpage_web::effects::idb;
use evalpage_web::effects::runner::Persist;
use evalpage_web::effects::{storage, url};
use evalpage_web::rag::run::{RunHandle, RunUpdate};
use evalpage_web::rag::state::RagInputs;
use evalpage_web::state::keys::KeyRing;
use evalpage_web::state::stored::{StoredInputs, StoredRun};
use evalpage_web::state::{ModelCall, ModelSettings, Provider};
use gloo_timers::future::TimeoutFuture;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn config(run_id: &str) -> RunConfig {
    RunConfig {
        run: RunIdentity {
            run_id: run_id.into(),
            tool: "wasm-test".into(),
            started_at_ms: 0,
            argv: vec![],
            dataset: demo::DATASET_NAME.into(),
            settings: RunSettings {
                concurrency: 3,
                ..RunSettings::default()
            },
        },
        info: RunInfo {
            lang: Lang::Zh,
            backend: "demo".into(),
            model: demo::MODEL_NAME.into(),
            endpoint: None,
            parameters: serde_json::json!({}),
            dataset_name: demo::DATASET_NAME.into(),
            dataset_line_errors: 0,
        },
        scoring: ScoringConfig::default(),
        system_prompt: evalpage_core::DEFAULT_SYSTEM_PROMPT.into(),
        dataset_meta: None,
    }
}

/// The reference: the same engine driven synchronously with the demo model.
fn reference_report() -> serde_json::Value {
    let cases = rag::parse(demo::DATASET_NAME, demo::DATASET.as_bytes()).cases;
    let mut engine = Engine::new(config("ref"), cases);
    let mut queue: Vec<(usize, Vec<_>)> = Vec::new();
    let take = |step: evalpage_core::run::Step<evalpage_core::events::Record>,
                q: &mut Vec<(usize, Vec<_>)>| {
        for c in step.commands {
            if let Command::Send { case, messages, .. } = c {
                q.push((case, messages));
            }
        }
    };
    take(engine.start(0), &mut queue);
    while let Some((case, messages)) = queue.pop() {
        let step = engine.handle(
            Input::Outcome {
                case,
                outcome: CallOutcome::Answer(demo::reply(&messages)),
            },
            1,
        );
        take(step, &mut queue);
    }
    normalized(serde_json::to_value(evalpage_core::rag::build(&engine, 1)).expect("json"))
}

/// The report without the run's timings, and without the language of the
/// report.md it was written with (the core's report builder writes no
/// report.md; the run's files record it, see the browser test).
fn normalized(mut v: serde_json::Value) -> serde_json::Value {
    v["report"]["experiment"]["run"] = serde_json::Value::Null;
    if let Some(e) = v["report"]["experiment"].as_object_mut() {
        e.remove("report_language");
    }
    v
}

async fn wait_for(mut ok: impl FnMut() -> bool, what: &str) {
    for _ in 0..400 {
        if ok() {
            return;
        }
        TimeoutFuture::new(25).await;
    }
    panic!("timed out waiting for {what}");
}

#[wasm_bindgen_test]
async fn browser_runner_gives_the_same_report_as_the_core() {
    let cases = rag::parse(demo::DATASET_NAME, demo::DATASET.as_bytes()).cases;
    let finished: Rc<RefCell<Option<String>>> = Rc::default();
    let sink = finished.clone();
    let on_update = yew::Callback::from(move |u: RunUpdate| {
        if let RunUpdate::Finished(_, a) = u {
            *sink.borrow_mut() = Some(a.report_json.clone());
        }
    });
    let _handle = RunHandle::start(
        config("browser"),
        cases,
        Vec::new(),
        ModelCall::Mock(0.0),
        None,
        on_update,
    );
    wait_for(|| finished.borrow().is_some(), "the run to finish").await;
    let json = finished.borrow().clone().unwrap_or_default();
    let written: serde_json::Value = serde_json::from_str(&json).expect("report.json parses");
    assert_eq!(
        written["report"]["experiment"]["report_language"], "zh",
        "the run's report records its report.md language"
    );
    assert_eq!(normalized(written), reference_report());
}

#[wasm_bindgen_test]
async fn cancel_settles_every_case() {
    let cases = rag::parse(demo::DATASET_NAME, demo::DATASET.as_bytes()).cases;
    let finished: Rc<RefCell<Option<String>>> = Rc::default();
    let sink = finished.clone();
    let on_update = yew::Callback::from(move |u: RunUpdate| {
        if let RunUpdate::Finished(_, a) = u {
            *sink.borrow_mut() = Some(a.events_jsonl.clone());
        }
    });
    let handle = RunHandle::start(
        config("cancel"),
        cases,
        Vec::new(),
        ModelCall::Mock(5.0),
        None,
        on_update,
    );
    handle.cancel();
    wait_for(|| finished.borrow().is_some(), "the cancelled run to stop").await;
    let log = finished.borrow().clone().unwrap_or_default();
    let read = evalpage_core::events::read(log.as_bytes());
    assert_eq!(read.of_type("case").count(), 10);
    let summary = read.of_type("summary").next().expect("summary");
    assert_eq!(summary["status"], "cancelled");
}

#[wasm_bindgen_test]
fn url_parameters_never_carry_a_key() {
    let p = url::parse("?provider=openai&endpoint=http%3A%2F%2F127.0.0.1%3A9%2Fv1&model=m&autorun=1&lang=en&api_key=sk-x");
    assert_eq!(p.provider, Some(Provider::Openai));
    assert!(p.autorun);
    assert_eq!(p.lang, Some(Lang::En));
    let s = p.apply(ModelSettings::default());
    assert_eq!(s.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(s.api_key, "", "a key in the URL is ignored");
}

/// The query string of a share link's pairs, as the page writes it.
fn query(pairs: &[(&'static str, String)]) -> String {
    let q = web_sys::UrlSearchParams::new().expect("params");
    for (k, v) in pairs {
        q.append(k, v);
    }
    format!("?{}", String::from(q.to_string()))
}

#[wasm_bindgen_test]
fn a_rag_share_link_restores_the_settings_without_the_key() {
    use evalpage_web::rag::share::{self, DatasetSource};
    let s = ModelSettings {
        provider: Provider::Openai,
        base_url: "https://api.example.com/v1".into(),
        model: "gpt-x".into(),
        api_key: "sk-share-SECRET".into(),
        temperature: None,
        max_tokens: Some(77),
        concurrency: 9,
        timeout_s: 30,
        max_attempts: 2,
        match_mode: evalpage_core::MatchMode::Strict,
        fuzzy_threshold: 0.7,
        system_prompt: "Answer in one line. 只用一行回答。".into(),
        truncated_as_failure: true,
        price_in: Some(0.15),
        ..ModelSettings::default()
    };
    let source = DatasetSource::Url("data/set.jsonl".into());
    let q = query(&share::rag(&s, &source, Lang::En).pairs);
    assert!(!q.contains("SECRET"), "{q}");
    let p = url::parse(&q);
    assert_eq!(p.dataset.as_deref(), Some("data/set.jsonl"));
    assert!(!p.autorun, "a share link never starts a run");
    let back = p.apply(ModelSettings::default());
    assert_eq!(back.api_key, "");
    assert_eq!(
        back,
        ModelSettings {
            api_key: String::new(),
            ..s
        }
    );
}

#[wasm_bindgen_test]
fn a_task_share_link_restores_the_task_text() {
    let yaml = "name: shared\n# 中文 ✓\n";
    let q = format!("?mode=task&task=event_eval&task_yaml={}&models=mock-a&timeout=9&endpoint_model=m1%20http%3A%2F%2F127.0.0.1%3A9%2Fv1",
        evalpage_web::state::share::encode(yaml.as_bytes()));
    let p = url::parse(&q);
    assert_eq!(p.task_yaml, Some(Ok(yaml.to_string())));
    assert_eq!(p.models, Some(vec!["mock-a".to_string()]));
    assert_eq!(p.timeout_s, Some(9));
    assert_eq!(
        p.endpoint_models,
        [("m1".to_string(), "http://127.0.0.1:9/v1".to_string())]
    );
    assert!(url::parse("?task_yaml=%25%25")
        .task_yaml
        .is_some_and(|r| r.is_err()));
}

#[wasm_bindgen_test]
fn keys_are_saved_by_origin_in_session_storage_unless_remembered() {
    let window = web_sys::window().expect("window");
    let local = window.local_storage().ok().flatten().expect("localStorage");
    let session = window
        .session_storage()
        .ok()
        .flatten()
        .expect("sessionStorage");
    local.clear().ok();
    session.clear().ok();
    let mut ring = KeyRing::default();
    ring.set("http://127.0.0.1:8091", "sk-wasm-test", false);
    ring.set("https://api.example.com", "sk-remembered", true);
    storage::save_keys(&ring);
    storage::save_settings(&ModelSettings {
        api_key: "sk-wasm-test".into(),
        ..ModelSettings::default()
    });
    let get = |st: &web_sys::Storage, k: &str| st.get_item(k).ok().flatten().unwrap_or_default();
    let in_session = get(&session, "evalpage.api_keys");
    let in_local = get(&local, "evalpage.api_keys");
    assert!(in_session.contains("sk-wasm-test") && !in_session.contains("sk-remembered"));
    assert!(in_local.contains("sk-remembered") && !in_local.contains("sk-wasm-test"));
    assert!(
        !get(&local, "evalpage.settings").contains("sk-"),
        "settings never hold a key"
    );
    let (settings, back) = (storage::load_settings(), storage::load_keys());
    assert_eq!(
        settings.api_key, "",
        "the key field is filled by origin, not from settings"
    );
    assert_eq!(back, ring);
    local.clear().ok();
    session.clear().ok();
}

#[wasm_bindgen_test]
fn a_key_of_an_earlier_version_belongs_to_the_saved_endpoint_only() {
    let window = web_sys::window().expect("window");
    let local = window.local_storage().ok().flatten().expect("localStorage");
    local.clear().ok();
    let saved = ModelSettings {
        base_url: "http://127.0.0.1:9999/v1".into(),
        ..ModelSettings::default()
    };
    storage::save_settings(&saved);
    local.set_item("evalpage.api_key", "sk-legacy").ok();
    let ring = storage::load_keys();
    assert_eq!(ring.get("http://127.0.0.1:9999"), Some("sk-legacy"));
    assert_eq!(ring.origins().len(), 1);
    assert_eq!(
        local.get_item("evalpage.api_key").ok().flatten(),
        None,
        "the old entry is gone"
    );
    local.clear().ok();
    if let Some(s) = window.session_storage().ok().flatten() {
        s.clear().ok();
    }
}

#[wasm_bindgen_test]
fn origins_are_read_as_fetch_reads_them_and_keys_only_go_to_their_own() {
    use evalpage_web::effects::{fetch::key_may_go, url::origin, url::target};
    assert_eq!(
        origin("HTTP://LocalHost:8091/v1").as_deref(),
        Some("http://localhost:8091")
    );
    assert_eq!(
        origin("https://api.example.com:443/v1").as_deref(),
        Some("https://api.example.com")
    );
    // A backslash ends the host for http(s): the request goes to a.example.
    assert_eq!(
        origin("http://a.example\\@127.0.0.1:8091/v1").as_deref(),
        Some("http://a.example")
    );
    assert_eq!(
        origin("http://user:pw@b.example/v1").as_deref(),
        Some("http://b.example")
    );
    assert_eq!(
        origin("http://0x7f.1:8091/v1").as_deref(),
        Some("http://127.0.0.1:8091")
    );
    assert_eq!(origin("javascript:alert(1)"), None);
    assert_eq!(origin("not a url"), None);
    assert!(
        !target("http://127.0.0.1:1/v1")
            .expect("t")
            .plain_http_remote
    );
    assert!(!target("http://[::1]:1/v1").expect("t").plain_http_remote);
    assert!(!target("http://localhost/v1").expect("t").plain_http_remote);
    assert!(
        target("http://127.evil.example/v1")
            .expect("t")
            .plain_http_remote
    );
    assert!(
        target("http://192.168.1.2/v1")
            .expect("t")
            .plain_http_remote
    );
    assert!(
        !target("https://api.example.com/v1")
            .expect("t")
            .plain_http_remote
    );
    let to = "http://127.0.0.1:8091/v1/chat/completions";
    assert!(key_may_go(to, Some("http://127.0.0.1:8091")));
    assert!(key_may_go(to, Some("http://127.0.0.1:8091/v1")));
    assert!(!key_may_go(to, Some("http://127.0.0.1:8092")));
    assert!(!key_may_go(
        "http://a.example\\@127.0.0.1:8091/v1/chat/completions",
        Some("http://127.0.0.1:8091")
    ));
    assert!(!key_may_go(to, None));
}

#[wasm_bindgen_test]
async fn a_key_for_another_origin_is_never_sent() {
    use evalpage_core::OpenAiConfig;
    use evalpage_core::{ApiKey, CallOutcome, ChatMessage};
    use evalpage_web::effects::fetch;
    let cfg = OpenAiConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
        api_key: ApiKey::new("sk-never"),
        temperature: None,
        max_tokens: None,
        params: Default::default(),
    };
    let controller = web_sys::AbortController::new().expect("controller");
    let to = fetch::To {
        cfg: &cfg,
        key_for: Some("http://127.0.0.1:8091"),
    };
    let messages = [ChatMessage::new("user", "hi")];
    let timed_out = std::rc::Rc::new(std::cell::Cell::new(false));
    let outcome = fetch::chat(to, &messages, None, &controller.signal(), timed_out, 1000).await;
    let CallOutcome::Failed(e) = outcome else {
        panic!("must fail before sending")
    };
    assert!(e.message.starts_with("not sent"), "{}", e.message);
    assert!(!e.message.contains("sk-never"));
}

#[wasm_bindgen_test]
async fn the_page_runs_the_demo_from_the_start_button() {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("document");
    let root = document.create_element("div").expect("div");
    document
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    // What `evalpage_web::start` sets from the bin (here without a split point).
    evalpage_web::launch::set_run_code(Some(
        evalpage_web::launch::run_here::<evalpage_web::rag::launch::RagLaunch>,
    ));
    yew::Renderer::<evalpage_web::rag::RagRoot>::with_root(root.clone()).render();
    let find = |id: &str| {
        root.query_selector(&format!("[data-testid={id}]"))
            .ok()
            .flatten()
    };
    let text = |id: &str| find(id).and_then(|e| e.text_content()).unwrap_or_default();
    wait_for(
        || text("dataset-summary").contains("10"),
        "the demo dataset",
    )
    .await;
    assert_eq!(text("run-status"), "idle");
    let start: web_sys::HtmlElement = find("start").expect("start").dyn_into().expect("button");
    start.click();
    wait_for(|| text("run-status") == "done", "the demo run").await;
    assert_eq!(text("progress"), "10/10");
    let rows = root
        .query_selector_all("[data-testid=case-row]")
        .expect("rows")
        .length();
    assert_eq!(rows, 10);
    let reference = reference_report();
    let accuracy = reference["metrics"]["accuracy"].as_f64().expect("accuracy");
    assert_eq!(
        text("metric-accuracy"),
        evalpage_core::rag::percent(accuracy)
    );
    assert!(text("console").contains("[EVAL] 评测完成"));
    assert!(find("download-report").is_some());
    assert!(text("notes").starts_with("Notes:"));
}

fn stored(run_id: &str, status: &str) -> StoredRun {
    StoredRun {
        run_id: run_id.into(),
        started_at_ms: 1,
        status: status.into(),
        dataset_name: demo::DATASET_NAME.into(),
        lang: "zh".into(),
        total: 10,
        inputs: StoredInputs::of(&RagInputs {
            dataset_text: demo::DATASET.into(),
            settings: ModelSettings {
                api_key: "sk-never-stored".into(),
                ..ModelSettings::default()
            },
            local_model: None,
        }),
        shown: demo::DATASET_NAME.into(),
        origins: Vec::new(),
    }
}

#[wasm_bindgen_test]
async fn indexeddb_keeps_runs_and_their_events_in_order_without_the_key() {
    let db = idb::open().await.expect("open");
    let lines: Vec<(u32, String)> = (0..12).map(|i| (i, format!("{{\"seq\":{i}}}\n"))).collect();
    idb::save(&db, &stored("r-idb", "running"), &lines[..5], false)
        .await
        .expect("save 1");
    // A later batch adds its events and leaves the record (and its dataset) as it is.
    idb::append(&db, "r-idb", &lines[5..])
        .await
        .expect("append");
    let runs = idb::runs(&db).await.expect("runs");
    let run = runs.iter().find(|r| r.run_id == "r-idb").expect("stored");
    assert_eq!(
        (run.status.as_str(), run.total),
        ("running", 10),
        "the record as saved"
    );
    let inputs = run.inputs.read::<RagInputs>().expect("a RAG run");
    assert_eq!(inputs.settings.api_key, "", "the key is not persisted");
    let text = idb::events(&db, "r-idb").await.expect("events");
    let expected: String = lines.iter().map(|(_, l)| l.clone()).collect();
    assert_eq!(
        text, expected,
        "events come back in seq order (10 after 9, not after 1)"
    );
    idb::save(&db, &stored("r-idb", "running"), &lines[..1], true)
        .await
        .expect("replace");
    assert_eq!(idb::events(&db, "r-idb").await.expect("events"), lines[0].1);
    idb::delete(&db, "r-idb").await.expect("delete");
    assert!(idb::runs(&db)
        .await
        .expect("runs")
        .iter()
        .all(|r| r.run_id != "r-idb"));
}

#[wasm_bindgen_test]
async fn a_persisted_run_saves_as_it_goes_and_gives_the_reference_report() {
    let cases = rag::parse(demo::DATASET_NAME, demo::DATASET.as_bytes()).cases;
    let finished: Rc<RefCell<Option<String>>> = Rc::default();
    let sink = finished.clone();
    let on_update = yew::Callback::from(move |u: RunUpdate| {
        if let RunUpdate::Finished(_, a) = u {
            *sink.borrow_mut() = Some(a.report_json.clone());
        }
    });
    let persist = Persist {
        stored: stored("persisted", "running"),
        replace: true,
    };
    let _handle = RunHandle::start(
        config("persisted"),
        cases,
        Vec::new(),
        ModelCall::Mock(0.5),
        Some(persist),
        on_update,
    );
    let db = idb::open().await.expect("open");
    let mut saw_running = false;
    for _ in 0..200 {
        if finished.borrow().is_some() {
            break;
        }
        let runs = idb::runs(&db).await.expect("runs");
        if runs
            .iter()
            .any(|r| r.run_id == "persisted" && r.status == "running")
        {
            let log = idb::events(&db, "persisted").await.expect("events");
            saw_running |= evalpage_core::events::read(log.as_bytes())
                .of_type("meta")
                .count()
                == 1;
        }
        TimeoutFuture::new(20).await;
    }
    assert!(saw_running, "the run was in IndexedDB while it ran");
    wait_for(
        || finished.borrow().is_some(),
        "the persisted run to finish",
    )
    .await;
    let json = finished.borrow().clone().unwrap_or_default();
    let written: serde_json::Value = serde_json::from_str(&json).expect("report.json parses");
    assert_eq!(
        written["report"]["experiment"]["report_language"], "zh",
        "the run's report records its report.md language"
    );
    assert_eq!(normalized(written), reference_report());
    TimeoutFuture::new(100).await;
    assert!(
        idb::runs(&db)
            .await
            .expect("runs")
            .iter()
            .all(|r| r.run_id != "persisted"),
        "a finished run is dropped from storage"
    );
}

// ---- task mode -------------------------------------------------------------

use evalpage_core::report::{FILES, TASK_NAMES};
use evalpage_core::task::{TaskEngine, TaskRunConfig};
use evalpage_web::state::{Mode, RunFiles};
use evalpage_web::task::run::{TaskRunHandle, TaskRunSpec, TaskRunUpdate};
use evalpage_web::task::state::models::plan;
use evalpage_web::task::state::TaskState;

/// The default task state's run (event_eval demo, mock-a and mock-b) with this mock latency.
fn task_spec(run_id: &str, latency: f64) -> TaskRunSpec {
    let state = TaskState::default();
    let task = state
        .editors
        .check
        .checked
        .clone()
        .expect("the default preset is valid");
    let planned = plan(
        &task.task,
        &state.models.choices,
        &state.models.selected,
        state.models.key_sources(),
        latency,
    )
    .expect("two mock models");
    TaskRunSpec {
        cfg: TaskRunConfig {
            run: RunIdentity {
                run_id: run_id.into(),
                tool: "wasm-test".into(),
                started_at_ms: 0,
                argv: vec![],
                settings: RunSettings::default(),
                ..RunIdentity::default()
            },
            backend: "mock".into(),
            repeats: Default::default(),
            models: planned.iter().map(|m| m.settings.clone()).collect(),
        },
        task,
        run_data: state.data.run_data.clone(),
        calls: planned.into_iter().map(|m| m.call).collect(),
        judge: None,
        lang: Lang::En,
        start: Default::default(),
        batch: None,
        persist: None,
        prior_log: None,
    }
}

/// The same run driven synchronously through the core: `scores.jsonl`.
fn task_reference_scores(spec: &TaskRunSpec) -> Vec<serde_json::Value> {
    let mut engine = TaskEngine::new(
        spec.cfg.clone(),
        spec.task.task.clone(),
        spec.task.info.clone(),
        &spec.task.template,
        &spec.run_data.data,
    );
    let mut queue = Vec::new();
    let take = |step: evalpage_core::run::Step<_>, q: &mut Vec<(usize, Vec<_>)>| {
        for c in step.commands {
            if let Command::Send { case, messages, .. } = c {
                q.push((case, messages));
            }
        }
    };
    take(engine.start(0), &mut queue);
    while let Some((job, messages)) = queue.pop() {
        let j = engine.job(job).expect("job");
        let name = &spec.cfg.models[j.model].name;
        let sample = &engine.samples()[j.sample].sample;
        let answer = evalpage_core::task::mock_answer(engine.task(), sample, name, &messages);
        let step = engine.handle(
            Input::Outcome {
                case: job,
                outcome: CallOutcome::Answer(answer),
            },
            1,
        );
        take(step, &mut queue);
    }
    let scored = engine.scored();
    // the samples as the engine measured them (their length buckets)
    let data = evalpage_core::task::TaskDataset {
        samples: engine.samples().to_vec(),
        ..spec.run_data.data.as_ref().clone()
    };
    let report = evalpage_core::task::build_report(&evalpage_core::task::ReportInput {
        task: &spec.task.task,
        info: &spec.task.info,
        data: &data,
        source: &evalpage_core::task::AnswerSource::Score {
            responses: "-".into(),
        },
        scored: &scored,
        line_errors: &[],
        times: None,
    });
    report
        .scores
        .iter()
        .map(|s| serde_json::to_value(s).expect("json"))
        .collect()
}

/// Where a finished task run's artifacts (or why they failed) land.
type Finished = Rc<RefCell<Option<Result<Rc<RunFiles>, Rc<str>>>>>;

fn finished_sink() -> (Finished, yew::Callback<TaskRunUpdate>) {
    let finished: Finished = Rc::default();
    let sink = finished.clone();
    let cb = yew::Callback::from(move |u: TaskRunUpdate| {
        if let TaskRunUpdate::Finished(_, a) = u {
            *sink.borrow_mut() = Some(a);
        }
    });
    (finished, cb)
}

#[wasm_bindgen_test]
async fn task_runner_scores_like_the_core_and_renders_every_artifact() {
    let spec = task_spec("task-browser", 0.0);
    let expected = task_reference_scores(&spec);
    assert!(matches!(spec.calls[0], ModelCall::Mock(_)));
    let (finished, on_update) = finished_sink();
    let _handle = TaskRunHandle::start(spec, on_update).expect("a run without a cap starts");
    wait_for(|| finished.borrow().is_some(), "the task run to finish").await;
    let artifacts = finished
        .borrow()
        .clone()
        .expect("finished")
        .expect("artifacts render");
    let names: Vec<&str> = artifacts.files.iter().map(|(n, _)| n.as_str()).collect();
    let all: Vec<&str> = FILES
        .iter()
        .chain(TASK_NAMES.events().iter())
        .copied()
        .collect();
    assert_eq!(names, all);
    let report: serde_json::Value =
        serde_json::from_str(artifacts.file("report.json").expect("report")).expect("json");
    assert_eq!(report["metrics"]["cases"], 16);
    assert_eq!(
        report["scores"].as_array().cloned().unwrap_or_default(),
        expected
    );
    let zip = evalpage_web::archive::zip_files(&artifacts.files, 1_795_655_404_000).expect("zip");
    assert!(zip.len() > artifacts.files.iter().map(|(_, t)| t.len()).sum::<usize>());
}

#[wasm_bindgen_test]
async fn task_cancel_settles_every_job() {
    let (finished, on_update) = finished_sink();
    let handle = TaskRunHandle::start(task_spec("task-cancel", 5.0), on_update)
        .expect("a run without a cap starts");
    assert!(handle.is_running());
    handle.cancel();
    wait_for(
        || finished.borrow().is_some(),
        "the cancelled task run to stop",
    )
    .await;
    let artifacts = finished
        .borrow()
        .clone()
        .expect("finished")
        .expect("artifacts render");
    let log = artifacts.file("report.events.jsonl").unwrap_or_default();
    let read = evalpage_core::events::read(log.as_bytes());
    assert_eq!(read.of_type("case").count(), 16);
    let summary = read.of_type("summary").next().expect("summary");
    assert_eq!(summary["status"], "cancelled");
    assert_eq!(summary["final_report_path"], "report.json");
}

#[wasm_bindgen_test]
fn task_mode_comes_from_the_url() {
    let p = url::parse("?mode=task&task=support_qa&demo_latency=0");
    assert_eq!(p.mode, Some(Mode::Run(RunKind::Task)));
    assert_eq!(p.task.as_deref(), Some("support_qa"));
    assert_eq!(url::parse("?mode=nope").mode, None);
    let s = TaskState::with_preset(p.task.as_deref().unwrap_or_default());
    assert_eq!(s.editors.preset, Some("support_qa"));
    assert_eq!(s.data.run_data.data.samples.len(), 8);
}

/// The first `n` records of a JSONL log (a run cut off after them).
fn cut_log(log: &str, n: usize) -> String {
    log.lines().take(n).map(|l| format!("{l}\n")).collect()
}

#[wasm_bindgen_test]
async fn a_persisted_task_run_is_stored_as_it_goes_then_dropped_and_a_cut_log_resumes_to_the_same_scores(
) {
    let db = idb::open().await.expect("open");
    let mut spec = task_spec("task-persisted", 1.0);
    let expected = task_reference_scores(&spec);
    spec.persist = Some(Persist {
        stored: StoredRun::of_task(&TaskState::default(), "task-persisted", 0, Lang::En, |_| {
            None
        }),
        replace: false,
    });
    let (finished, on_update) = finished_sink();
    let _handle = TaskRunHandle::start(spec, on_update).expect("a run without a cap starts");
    wait_for(
        || finished.borrow().is_some(),
        "the persisted task run to finish",
    )
    .await;
    let artifacts = finished
        .borrow()
        .clone()
        .expect("finished")
        .expect("artifacts render");
    let log = artifacts
        .file("report.events.jsonl")
        .unwrap_or_default()
        .to_string();
    TimeoutFuture::new(200).await;
    let left = idb::runs(&db).await.expect("runs");
    assert!(
        left.iter().all(|r| r.run_id != "task-persisted"),
        "a finished run is dropped from storage"
    );

    // meta + 5 cases, then a cut record: the resumed run takes the 5 over.
    let mut cut = cut_log(&log, 6);
    cut.push_str("{\"record_type\":\"case\",\"run_id\":");
    let mut spec = task_spec("task-resumed", 0.0);
    spec.prior_log = Some(Rc::from(cut.as_str()));
    spec.persist = Some(Persist {
        stored: StoredRun::of_task(&TaskState::default(), "task-resumed", 0, Lang::En, |_| None),
        replace: true,
    });
    let (finished, on_update) = finished_sink();
    let _handle = TaskRunHandle::start(spec, on_update).expect("a run without a cap starts");
    wait_for(
        || finished.borrow().is_some(),
        "the resumed task run to finish",
    )
    .await;
    let artifacts = finished
        .borrow()
        .clone()
        .expect("finished")
        .expect("artifacts render");
    let report: serde_json::Value =
        serde_json::from_str(artifacts.file("report.json").expect("report")).expect("json");
    assert_eq!(
        report["scores"].as_array().cloned().unwrap_or_default(),
        expected
    );
    let resumed = artifacts.file("report.events.jsonl").unwrap_or_default();
    let read = evalpage_core::events::read(resumed.as_bytes());
    assert_eq!(read.of_type("case").count(), 16, "the new log is complete");
    let cut_read = evalpage_core::events::read(cut.as_bytes());
    let key = |r: &serde_json::Value| (r["model"].clone(), r["case_id"].clone());
    let first: Vec<_> = read.of_type("case").take(5).map(key).collect();
    let mut taken: Vec<_> = cut_read.of_type("case").map(key).collect();
    assert_eq!(taken.len(), 5);
    taken.sort_by_key(|(m, c)| (m.to_string(), c.to_string()));
    let mut first_sorted = first.clone();
    first_sorted.sort_by_key(|(m, c)| (m.to_string(), c.to_string()));
    assert_eq!(
        first_sorted, taken,
        "the restored calls are re-emitted first"
    );
}

#[wasm_bindgen_test]
async fn a_running_task_run_is_in_indexeddb_without_any_key() {
    let db = idb::open().await.expect("open");
    let mut spec = task_spec("task-running", 20.0);
    spec.persist = Some(Persist {
        stored: StoredRun::of_task(&TaskState::default(), "task-running", 0, Lang::En, |_| None),
        replace: false,
    });
    let (finished, on_update) = finished_sink();
    let handle = TaskRunHandle::start(spec, on_update).expect("a run without a cap starts");
    TimeoutFuture::new(300).await;
    let runs = idb::runs(&db).await.expect("runs");
    let run = runs
        .iter()
        .find(|r| r.run_id == "task-running")
        .expect("stored while running");
    assert_eq!(run.status, "running");
    assert_eq!(run.total, 16);
    assert!(idb::events(&db, "task-running")
        .await
        .expect("events")
        .contains("\"record_type\":\"meta\""));
    assert!(
        idb::runs(&db)
            .await
            .expect("runs")
            .iter()
            .filter(|r| r.mode() == Some(Mode::Run(RunKind::Rag)))
            .all(|r| r.run_id != "task-running"),
        "a task record is not read as a RAG run"
    );
    handle.cancel();
    wait_for(|| finished.borrow().is_some(), "the cancelled run to stop").await;
    TimeoutFuture::new(200).await;
    assert!(idb::runs(&db)
        .await
        .expect("runs")
        .iter()
        .all(|r| r.run_id != "task-running"));
}

/// The page folds text with the browser's NFKC (`evalpage_web::nfkc`), the CLI
/// with the unicode-normalization crate's tables: they agree on every Unicode
/// scalar value the browser's Unicode version has assigned, one at a time, and
/// on the lines of every demo and test dataset (where a mark composes with the
/// letter before it), so the page and the CLI score the same text the same. A
/// character newer than the browser's Unicode (unassigned to it, `\p{Cn}`) is
/// left as it is by the browser and may be decomposed by the crate: that is
/// the one difference allowed (with Chromium's ICU on Unicode 15.1 and the
/// crate on 16.0: 68 letters added in 16.0, such as U+1DF95..U+1DFFF).
#[wasm_bindgen_test]
fn the_browsers_nfkc_is_the_crates_on_every_code_point_and_the_datasets() {
    use unicode_normalization::UnicodeNormalization;
    let crate_nfkc = |s: &str| -> String { s.nfkc().collect() };
    let unassigned = js_sys::RegExp::new("^\\p{Cn}$", "u");
    let (mut differ, mut newer) = (Vec::new(), 0);
    let scalars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
    // Batches joined by a line feed (a starter that composes with nothing, so
    // no character reaches into its neighbour); a batch that differs is gone
    // through one character at a time.
    for batch in scalars.chunks(4096) {
        let text: String = batch.iter().flat_map(|c| [*c, '\n']).collect();
        if evalpage_web::nfkc(&text) == crate_nfkc(&text) {
            continue;
        }
        for c in batch {
            let one = c.to_string();
            if evalpage_web::nfkc(&one) == crate_nfkc(&one) {
                continue;
            }
            if unassigned.test(&one) {
                newer += 1;
            } else {
                differ.push(format!("U+{:04X}", u32::from(*c)));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "assigned code points the browser and the crate normalize differently: {differ:?}"
    );
    assert!(
        newer <= 200,
        "{newer} code points newer than the browser's Unicode normalize differently"
    );
    let corpora = [
        demo::DATASET,
        demo::RETRIEVAL_DATASET,
        demo::DIALOG_DATASET,
        include_str!("../www/demo/tasks/event_eval.jsonl"),
        include_str!("../www/demo/tasks/news_analysis.jsonl"),
        include_str!("../www/demo/tasks/support_qa.jsonl"),
        include_str!("e2e/data/rag_b.jsonl"),
        include_str!("e2e/data/spec_three_answers.jsonl"),
        include_str!("e2e/data/spec_three_cases.jsonl"),
        // Composed and decomposed forms, full-width, ligatures, Hangul jamo, compatibility ideographs.
        "Cafe\u{301} café ＭｏｎｇｏＤＢ　Ａｔｌａｓ ﬁle ㎏ ①② \u{1100}\u{1161}\u{11A8} 한국어 \u{F900} Å Å x\u{323}\u{307}",
    ];
    for (i, corpus) in corpora.iter().enumerate() {
        for (n, line) in corpus.lines().enumerate() {
            assert_eq!(
                evalpage_web::nfkc(line),
                crate_nfkc(line),
                "corpus {i}, line {}",
                n + 1
            );
        }
    }
    // And the core folds with the browser's once the page puts it in, as its tables fold.
    let before = evalpage_core::testing::fold("ＭｏｎｇｏＤＢ　Ａｔｌａｓ Cafe\u{301}");
    evalpage_core::use_nfkc(evalpage_web::nfkc);
    assert_eq!(
        evalpage_core::testing::fold("ＭｏｎｇｏＤＢ　Ａｔｌａｓ Cafe\u{301}"),
        before
    );
    assert_eq!(before, "mongodbatlascafé");
}
