//! The task run engine driven with scripted outcomes and a simulated clock:
//! every sample x model settles once, retries are woken on time, failed calls
//! and unrenderable prompts stay in the denominators, the log reconciles with
//! the report, and cancel settles everything.

use evalpage_core::events::{read, reconcile, to_jsonl};
use evalpage_core::report::RunMeta;
use evalpage_core::run::{Command, Input, RunIdentity, RunSettings, RunStatus, Step};
use evalpage_core::task::{
    builtin_template, preset, AnswerSource, DatasetFormat, RunDescription, TaskDataset, TaskEngine,
    TaskInfo, TaskRecord, TaskRunConfig,
};
use evalpage_core::{CallError, CallOutcome, ErrorKind};
use evalpage_core::{Lang, ModelSettings};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

const DATA: &str = concat!(
    "{\"sample_id\":\"S1\",\"ticker\":\"A\",\"news_items\":[],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"ai\"]}\n",
    "{\"sample_id\":\"S2\",\"ticker\":\"B\",\"news_items\":[],\"gt_sentiment\":\"negative\",\"gt_impact_score\":-3,\"gt_keywords\":[\"loss\"]}\n",
    "{\"sample_id\":\"S3\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
    "{\"sample_id\":\"S4\",\"ticker\":\"D\",\"news_items\":[{\"title\":\"x\"}],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":1,\"gt_keywords\":[\"x\"]}\n",
);

fn info() -> TaskInfo {
    TaskInfo {
        name: "event_eval".into(),
        version: "v1".into(),
        source: "preset".into(),
        prompt_name: "ie_json".into(),
        prompt_version: "v1".into(),
        prompt_source: "builtin".into(),
    }
}

fn model(name: &str) -> ModelSettings {
    ModelSettings {
        name: name.into(),
        model: name.into(),
        base_url: None,
        api_key_env: None,
        params: Map::new(),
        engine: None,
    }
}

fn setup(models: &[&str], concurrency: usize) -> (TaskEngine, TaskDataset) {
    let task = preset("event_eval").expect("preset");
    let template = builtin_template("ie_json").expect("template");
    let data =
        evalpage_core::task::load_dataset("d.jsonl", DATA.as_bytes(), DatasetFormat::Samples, None);
    let cfg = TaskRunConfig {
        run: RunIdentity {
            run_id: "t1".into(),
            tool: "test".into(),
            started_at_ms: 0,
            argv: vec![],
            settings: RunSettings {
                concurrency,
                max_attempts: 3,
                ..RunSettings::default()
            },
            ..RunIdentity::default()
        },
        backend: "mock".into(),
        repeats: Default::default(),
        models: models.iter().map(|m| model(m)).collect(),
    };
    (TaskEngine::new(cfg, task, info(), &template, &data), data)
}

/// Runs to the end with a simulated clock: each send answers after 10 ms via
/// `answer(job, attempt)`; wake-ups are honoured exactly when they fall due.
fn drive(
    engine: &mut TaskEngine,
    mut answer: impl FnMut(&TaskEngine, usize, u32) -> CallOutcome,
) -> (Vec<TaskRecord>, u64) {
    let mut now = 0u64;
    let mut events = Vec::new();
    let mut pending: BTreeMap<(u64, usize), (usize, u32)> = BTreeMap::new();
    let mut seq = 0;
    let mut step: Step<TaskRecord> = engine.start(now);
    loop {
        for c in &step.commands {
            if let Command::Send { case, attempt, .. } = c {
                seq += 1;
                pending.insert((now + 10, seq), (*case, *attempt));
            }
        }
        events.append(&mut step.events);
        if engine.status() != RunStatus::Running {
            return (events, now);
        }
        let next_outcome = pending.keys().next().copied();
        let wake = step.wake_at;
        let outcome_first = match (next_outcome, wake) {
            (Some((t, _)), Some(w)) => t <= w,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => panic!("stalled at {now} ms: nothing in flight, no wake-up"),
        };
        if let (true, Some((t, k))) = (outcome_first, next_outcome) {
            now = now.max(t);
            let (job, attempt) = pending.remove(&(t, k)).expect("pending");
            let outcome = answer(engine, job, attempt);
            step = engine.handle(Input::Outcome { case: job, outcome }, now);
        } else if let Some(w) = wake {
            now = now.max(w);
            step = engine.handle(Input::Tick, now);
        }
    }
}

fn mock_answer(engine: &TaskEngine, job: usize) -> CallOutcome {
    let j = engine.job(job).expect("job");
    let name = engine.config().models[j.model].name.clone();
    let sample = &engine.samples()[j.sample].sample;
    let msgs = match engine.prompt(j.sample) {
        Some(Ok(m)) => m.clone(),
        _ => Vec::new(),
    };
    CallOutcome::Answer(evalpage_core::task::mock_answer(
        engine.task(),
        sample,
        &name,
        &msgs,
    ))
}

fn server_error() -> CallOutcome {
    let mut e = CallError::new(ErrorKind::Http, "HTTP 500");
    e.status_code = Some(500);
    CallOutcome::Failed(e)
}

#[test]
fn every_sample_and_model_settles_once_and_retries_wake_on_time() {
    let (mut engine, _) = setup(&["a", "b"], 2);
    let mut sent: HashMap<usize, u32> = HashMap::new();
    let (events, end) = drive(&mut engine, |e, job, attempt| {
        *sent.entry(job).or_default() += 1;
        // first attempts of jobs 0, 4, 5 fail with a 500
        if attempt == 1 && [0, 4, 5].contains(&job) {
            server_error()
        } else {
            mock_answer(e, job)
        }
    });
    assert_eq!(engine.status(), RunStatus::Done);
    assert_eq!(engine.progress(), (8, 8));
    // S3 has no ticker: its prompt fails for both models (jobs 2 and 6), never sent
    assert!(!sent.contains_key(&2) && !sent.contains_key(&6));
    assert_eq!(sent.get(&0), Some(&2));
    assert!(
        end < 2_000,
        "retries wait for their backoff only, ended at {end} ms"
    );
    let cases: Vec<&TaskRecord> = events
        .iter()
        .filter(|r| matches!(r, TaskRecord::Case(_)))
        .collect();
    assert_eq!(cases.len(), 8);
    let scored = engine.scored();
    for m in &scored.models {
        assert_eq!(m.results.len(), 4);
        assert_eq!(m.answered(), 3);
        assert_eq!(
            m.aggregates[0].1.sample_count, 4,
            "the failed sample stays in"
        );
    }
}

#[test]
fn the_log_reconciles_with_the_rendered_report() {
    let (mut engine, data) = setup(&["a", "b", "c"], 3);
    let (events, end) = drive(&mut engine, |e, job, attempt| {
        if job % 3 == 0 && attempt < 3 {
            server_error()
        } else {
            mock_answer(e, job)
        }
    });
    let log: String = events.iter().map(to_jsonl).collect();
    let scored = engine.scored();
    let source = AnswerSource::Run(RunDescription {
        run_id: "t1".into(),
        backend: "mock".into(),
        models: engine.config().models.clone(),
        settings: engine.config().run.settings,
    });
    let meta = RunMeta {
        tool: "test".into(),
        version: "0".into(),
        argv: vec![],
        dataset: "d.jsonl".into(),
        metadata: None,
        started_at_ms: 0,
        ended_at_ms: end,
    };
    let task = engine.task().clone();
    let files = evalpage_core::task::render_files(&evalpage_core::task::Inputs {
        task: &task,
        info: &info(),
        prompts: engine.prompts(),
        data: &data,
        dataset_bytes: DATA.as_bytes(),
        scored: &scored,
        line_errors: &data.errors,
        source: &source,
        meta: &meta,
        lang: Lang::En,
    })
    .expect("render");
    let report: Value = serde_json::from_str(
        &files
            .iter()
            .find(|(n, _)| *n == "report.json")
            .expect("report")
            .1,
    )
    .expect("json");
    let rec = reconcile(&report, &read(log.as_bytes()));
    assert!(rec.ok, "{:#?}", rec.checks);
    assert_eq!(report["metrics"]["cases"], 12);
}

#[test]
fn cancel_settles_every_unfinished_job_and_aborts_those_in_flight() {
    let (mut engine, _) = setup(&["a", "b"], 1);
    let step = engine.start(0);
    let sends = step
        .commands
        .iter()
        .filter(|c| matches!(c, Command::Send { .. }))
        .count();
    assert_eq!(sends, 2, "one per model");
    let step = engine.handle(Input::Cancel, 5);
    let aborts = step
        .commands
        .iter()
        .filter(|c| matches!(c, Command::Abort { .. }))
        .count();
    assert_eq!(aborts, 2);
    assert_eq!(engine.status(), RunStatus::Cancelled);
    assert_eq!(engine.progress(), (8, 8));
    assert!(matches!(step.events.last(), Some(TaskRecord::Summary(s)) if s.status == "cancelled"));
}

#[test]
fn a_run_resumed_from_its_cut_log_sends_only_the_rest_and_scores_the_same() {
    use evalpage_core::task::resumable;
    // the uninterrupted run
    let (mut full, _) = setup(&["a", "b"], 2);
    drive(&mut full, |e, job, _| mock_answer(e, job));
    // an interrupted run: three answers settle, then the tab goes away
    let (mut first, _) = setup(&["a", "b"], 2);
    let mut log: Vec<TaskRecord> = first.start(0).events;
    let mut answered = 0;
    for job in [0usize, 1, 4] {
        let outcome = mock_answer(&first, job);
        // jobs 0, 1 (model a) and 4 (model b) are the ones in flight first
        log.extend(
            first
                .handle(Input::Outcome { case: job, outcome }, 10)
                .events,
        );
        answered += 1;
    }
    assert_eq!(answered, 3);
    // the log is cut in the middle of its last record
    let mut text: String = log.iter().map(to_jsonl).collect();
    text.push_str("{\"record_type\":\"case\",\"run_id\":\"t1\",\"case_");
    let (mut second, _) = setup(&["a", "b"], 2);
    let prior = resumable(&read(text.as_bytes()), &second);
    assert_eq!(prior.run_id.as_deref(), Some("t1"));
    assert_eq!(prior.calls.len(), 3);
    assert_eq!(second.restore(prior.calls), 3);
    let mut sent = Vec::new();
    let (events, _) = drive(&mut second, |e, job, _| {
        sent.push(job);
        mock_answer(e, job)
    });
    sent.sort_unstable();
    // 8 jobs: 3 taken over, 2 prompt failures (S3 for both models), 3 sent
    assert_eq!(sent, [3, 5, 7]);
    let cases = events
        .iter()
        .filter(|r| matches!(r, TaskRecord::Case(_)))
        .count();
    assert_eq!(cases, 8, "the new log names every case once");
    assert_eq!(second.scored(), full.scored());
}

#[test]
fn a_429_from_one_model_lowers_only_that_model_s_limit() {
    let (mut engine, _) = setup(&["a", "b"], 2);
    let step = engine.start(0);
    let first_b = step
        .commands
        .iter()
        .find_map(|c| match c {
            Command::Send { case, .. } if *case >= 4 => Some(*case),
            _ => None,
        })
        .expect("model b sends at start");
    let mut e = CallError::new(ErrorKind::Http, "HTTP 429");
    e.status_code = Some(429);
    e.retry_after_ms = Some(1_000);
    engine.handle(
        Input::Outcome {
            case: first_b,
            outcome: CallOutcome::Failed(e),
        },
        5,
    );
    assert_eq!(engine.current_limits(), [2, 1]);
    assert_eq!(engine.current_limit(), 1);
}

#[test]
fn the_kind_answers_for_the_one_mock_model_as_the_task_mock_does() {
    use evalpage_core::run::Kind;
    let (engine, _) = setup(&["mock-a", "mock-b"], 2);
    for job in 0..engine.jobs() {
        let j = engine.job(job).expect("job");
        let msgs = match engine.prompt(j.sample) {
            Some(Ok(m)) => m.clone(),
            _ => Vec::new(),
        };
        let CallOutcome::Answer(want) = mock_answer(&engine, job) else {
            panic!("the mock answers")
        };
        assert_eq!(engine.kind().mock_answer(job, &msgs), want, "job {job}");
    }
}

#[test]
fn a_fatal_answer_of_one_model_stops_the_whole_task_run_with_an_error_record() {
    let (mut engine, _) = setup(&["a", "b"], 1);
    let (events, _) = drive(&mut engine, |e, job, _| {
        if e.job(job).is_some_and(|j| j.model == 1) {
            let mut err = CallError::new(ErrorKind::Http, "HTTP 404: not found");
            err.status_code = Some(404);
            CallOutcome::Failed(err)
        } else {
            mock_answer(e, job)
        }
    });
    assert_eq!(engine.stopped().and_then(|f| f.status_code), Some(404));
    assert_eq!(
        engine.stop_reason(),
        Some(evalpage_core::run::StopReason::Fatal)
    );
    let errors = events
        .iter()
        .filter(|r| matches!(r, TaskRecord::Error(_)))
        .count();
    assert_eq!(errors, 1);
    let results = engine.results();
    let kinds: Vec<Option<ErrorKind>> = results
        .iter()
        .flatten()
        .map(|r| r.as_ref().and_then(|r| r.error.as_ref()).map(|e| e.kind))
        .collect();
    assert_eq!(kinds.len(), 8, "every job settles once");
    let not_run = kinds
        .iter()
        .filter(|k| **k == Some(ErrorKind::NotRun))
        .count();
    let fatal = kinds
        .iter()
        .filter(|k| **k == Some(ErrorKind::Http))
        .count();
    assert_eq!(fatal, 1, "only the first fatal answer was sent to b");
    // a: S1, S2 answered before b's 404 came back; S3 has no prompt (never
    // sent); everything else of both models is not run
    assert_eq!(
        kinds,
        [
            None,
            None,
            Some(ErrorKind::Prompt),
            Some(ErrorKind::NotRun),
            Some(ErrorKind::Http),
            Some(ErrorKind::NotRun),
            Some(ErrorKind::Prompt),
            Some(ErrorKind::NotRun)
        ]
    );
    let Some(TaskRecord::Summary(s)) = events.last() else {
        panic!("summary last")
    };
    assert_eq!(s.metrics.not_run_cases, not_run);
}

#[test]
fn a_task_scores_the_final_answer_not_the_json_in_the_reasoning() {
    let (mut plain, _) = setup(&["m"], 2);
    drive(&mut plain, |e, job, _| mock_answer(e, job));
    let (mut thinking, _) = setup(&["m"], 2);
    drive(&mut thinking, |e, job, _| {
        let CallOutcome::Answer(a) = mock_answer(e, job) else {
            unreachable!()
        };
        let content = format!(
            "<think>{{\"sentiment\": \"bogus\", \"impact_score\": 99}}</think>{}",
            a.text
        );
        evalpage_core::parse_response(
            "u",
            200,
            None,
            &serde_json::json!({"choices": [{"message": {"content": content}}]}).to_string(),
        )
    });
    let scores = |e: &TaskEngine| {
        e.results()[0]
            .iter()
            .flatten()
            .map(|r| r.scores.iter().map(|(_, s)| s.value).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert_eq!(scores(&thinking), scores(&plain));
    let answered: Vec<_> = thinking.results()[0]
        .iter()
        .flatten()
        .filter(|r| r.raw_answer.is_some())
        .collect();
    assert_eq!(answered.len(), 3);
    assert!(answered
        .iter()
        .all(|r| r.reasoning.as_deref().is_some_and(|t| t.contains("bogus"))));
}

#[test]
fn a_task_whose_prompt_renders_for_no_sample_stops_before_any_call() {
    let task = preset("event_eval").expect("preset");
    let template = builtin_template("ie_json").expect("template");
    // no sample has `ticker`, which the template's user part reads
    let lines = concat!(
        "{\"sample_id\":\"S1\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
        "{\"sample_id\":\"S2\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
    );
    let data = evalpage_core::task::load_dataset(
        "d.jsonl",
        lines.as_bytes(),
        DatasetFormat::Samples,
        None,
    );
    let (base, _) = setup(&["a", "b"], 2);
    let mut engine = TaskEngine::new(base.config().clone(), task, info(), &template, &data);
    let step = engine.start(0);
    assert!(
        step.commands.is_empty(),
        "nothing is sent: {:?}",
        step.commands
    );
    assert_eq!(engine.status(), RunStatus::Done);
    let stop = engine.stopped().expect("the run stops");
    assert_eq!(stop.kind, ErrorKind::Prompt);
    assert_eq!(
        engine.stop_reason(),
        Some(evalpage_core::run::StopReason::Prompt)
    );
    assert!(
        stop.message.starts_with(evalpage_core::task::PROMPT_STOP)
            && stop
                .message
                .contains("field `ticker` (user) is missing from 2 sample(s), first d.jsonl:1"),
        "{}",
        stop.message
    );
    // every case is recorded, failed with its own cause; then the error, then the summary
    let kinds: Vec<&str> = step.events.iter().map(kind_of).collect();
    assert_eq!(
        kinds,
        ["meta", "case", "case", "case", "case", "error", "summary"]
    );
    let Some(TaskRecord::Error(e)) = step.events.get(5) else {
        panic!("an error record")
    };
    let message = &e.message;
    assert!(
        message.starts_with("the run stopped before sending anything: no sample's prompt")
            && message.contains("`ticker`"),
        "{message}"
    );
    for r in engine.results().iter().flatten() {
        let cause = r.as_ref().and_then(|r| r.error.as_ref()).map(|e| e.kind);
        assert_eq!(cause, Some(ErrorKind::Prompt));
    }
    // one sample that renders: the run goes on, and never stops
    let (mut partial, _) = setup(&["a"], 2);
    drive(&mut partial, |e, job, _| mock_answer(e, job));
    assert!(partial.stopped().is_none());
}

fn kind_of(r: &TaskRecord) -> &'static str {
    match r {
        TaskRecord::Meta(_) => "meta",
        TaskRecord::Case(_) => "case",
        TaskRecord::Error(_) => "error",
        TaskRecord::Summary(_) => "summary",
        TaskRecord::Turn(_) => "turn",
        TaskRecord::Step(_) => "step",
    }
}
