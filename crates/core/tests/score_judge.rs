//! Answers read from a file, judged on the run engine (`evalpage score
//! --judge`, `task_run::file_answers`): the judged metrics get the same
//! values, outcomes, judgements and `llm_judge_details` as a judged run that
//! got the same answers; a sample without an answer line is `no_response`,
//! never sent, and its judged metrics a fail; every other metric and status
//! is `score::score`'s.

use evalpage_core::run::{Command, Input, RunIdentity, RunSettings, RunStatus};
use evalpage_core::task::{
    build_report as build, judge_setups as setups, score_responses as score, take_judged,
    AnswerSource, AnswerStatus, DatasetFormat, FileAnswers, PromptTemplate, ReportInput, Scored,
    Task, TaskDataset, TaskEngine, TaskInfo, TaskJudge, TaskRunConfig, NO_RESPONSE,
};
use evalpage_core::MockJudge;
use evalpage_core::ModelSettings;
use evalpage_core::{CallOutcome, ChatMessage};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, VecDeque};

const TASK: &str = "name: judged
version: v1
prompt_template: qa.yaml
metrics:
  - type: token_f1
    name: f1
    pred_field: raw_answer
    label_field: reference
  - type: llm_judge
    name: correct
    judge: correctness
    language: en
    reference_field: reference
  - type: llm_judge
    name: vs_baseline
    judge: pairwise
    language: en
    baseline_field: baseline
  - type: llm_judge
    name: repeated
    judge: correctness
    reference_field: reference
    samples: 3
    max_repairs: 0
";

fn info() -> TaskInfo {
    TaskInfo {
        name: "judged".into(),
        version: "v1".into(),
        source: "t.yaml".into(),
        prompt_name: "qa".into(),
        prompt_version: "v1".into(),
        prompt_source: "qa.yaml".into(),
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

fn setup() -> (Task, PromptTemplate, TaskDataset) {
    let task = Task::parse("t.yaml", TASK).unwrap_or_else(|e| panic!("{e}"));
    let template = PromptTemplate::parse(
        "qa.yaml",
        "name: qa\nversion: v1\nuser: \"{{ question }}\"\n",
    )
    .expect("template");
    let rows: String = (1..=6)
        .map(|i| {
            json!({"sample_id": format!("s{i}"), "question": format!("question {i}?"),
                   "reference": format!("the answer is {i}"), "baseline": "no idea"})
            .to_string()
                + "\n"
        })
        .collect();
    let data =
        evalpage_core::task::load_dataset("d.jsonl", rows.as_bytes(), DatasetFormat::Samples, None);
    (task, template, data)
}

fn judge(task: &Task, concurrency: usize) -> TaskJudge {
    TaskJudge {
        model: model("judge"),
        settings: RunSettings {
            concurrency,
            max_attempts: 1,
            ..RunSettings::default()
        },
        setups: setups(task, &BTreeMap::new()).expect("setups"),
    }
}

/// The model's answer to a prompt: right for even questions, wrong for odd.
fn model_answer(model: &str, m: &[ChatMessage]) -> String {
    let q = m.last().map_or("", |m| m.content.as_str());
    let n: String = q.chars().filter(char::is_ascii_digit).collect();
    match n.parse::<u32>().unwrap_or(0) % 2 {
        0 => format!("{model}: the answer is {n}"),
        _ => format!("{model}: maybe {}", n.len() + 40),
    }
}

/// Runs the engine to its end, answering requests in send order (the judge
/// with the mock judge, counting repeats per job as the shells do); returns
/// every request as (pool, job).
fn drive(
    engine: &mut TaskEngine,
    mut answer: impl FnMut(usize, usize, &[ChatMessage]) -> CallOutcome,
) -> Vec<(usize, usize)> {
    let mut sent = Vec::new();
    let mut queue: VecDeque<(usize, usize, Vec<ChatMessage>)> = VecDeque::new();
    let mut step = engine.start(0);
    let mut now = 0;
    loop {
        for c in &step.commands {
            if let Command::Send {
                case,
                messages,
                pool,
                ..
            } = c
            {
                queue.push_back((*pool, *case, messages.clone()));
                sent.push((*pool, *case));
            }
        }
        if engine.status() != RunStatus::Running {
            return sent;
        }
        let (pool, job, messages) = queue.pop_front().expect("a request in flight");
        now += 10;
        let outcome = answer(pool, job, &messages);
        step = engine.handle(Input::Outcome { case: job, outcome }, now);
    }
}

fn report(task: &Task, data: &TaskDataset, scored: &Scored) -> Value {
    let source = AnswerSource::Score {
        responses: "r.jsonl".into(),
    };
    let input = ReportInput {
        task,
        info: &info(),
        data,
        source: &source,
        scored,
        line_errors: &[],
        times: None,
    };
    serde_json::to_value(build(&input)).expect("json")
}

#[test]
fn judged_answers_from_a_file_equal_a_judged_run_with_the_same_answers() {
    let (task, template, data) = setup();
    let models = ["m1", "m2"];
    // the run: two models answer, the judge judges, on two pools each
    let cfg = TaskRunConfig {
        run: RunIdentity {
            run_id: "r".into(),
            tool: "test".into(),
            started_at_ms: 0,
            argv: vec![],
            settings: RunSettings::default(),
            ..RunIdentity::default()
        },
        backend: "mock".into(),
        repeats: Default::default(),
        models: models.iter().map(|m| model(m)).collect(),
    };
    let mut run = TaskEngine::judged(
        cfg,
        task.clone(),
        info(),
        &template,
        &data,
        Some(judge(&task, 2)),
    );
    let mut mock = MockJudge::default();
    drive(&mut run, |pool, job, m| match pool {
        0 | 1 => CallOutcome::text(model_answer(models[pool], m)),
        _ => CallOutcome::Answer(mock.answer(job, m)),
    });
    let ran = run.scored();

    // its answers as a responses file: m2 has no line for s4, and one line
    // names a sample the dataset does not have
    let mut lines = String::new();
    for m in &ran.models {
        for r in &m.results {
            let id = &data.samples[r.index].sample.id;
            if m.model == "m2" && id == "s4" {
                continue;
            }
            let text = r.raw_answer.clone().unwrap_or_default();
            lines.push_str(
                &json!({"sample_id": id, "model": m.model, "response": text}).to_string(),
            );
            lines.push('\n');
        }
    }
    lines.push_str("{\"sample_id\": \"s99\", \"model\": \"m1\", \"response\": \"x\"}\n");
    let resp = evalpage_core::task::parse_responses("r.jsonl", lines.as_bytes());
    let plain = score(&task, &data, &resp);
    assert_eq!(plain.unknown.len(), 1);

    // scored again, judged on the engine: the model calls answered from the
    // file, the judge's on its own pool
    let answers = FileAnswers::new(&data, &resp);
    assert_eq!(answers.models(), models);
    assert_eq!(answers.jobs(), 12);
    assert_eq!(answers.unanswered().len(), 1);
    let mut engine = answers.engine(&task, &info(), &template, &data, judge(&task, 3), 0);
    let mut mock = MockJudge::default();
    let sent = drive(&mut engine, |pool, job, m| match pool {
        0 | 1 => match answers.answer(job) {
            Some(a) => CallOutcome::Answer(a),
            None => panic!("job {job} has no answer and is never asked"),
        },
        _ => CallOutcome::Answer(mock.answer(job, m)),
    });
    let s4_of_m2 = 6 + 3;
    assert!(!sent.iter().any(|(_, job)| *job == s4_of_m2), "{sent:?}");
    let mut scored = plain.clone();
    take_judged(&task, &mut scored, &engine.scored());

    let judged = ["correct", "vs_baseline", "repeated"];
    for (m, (got, want)) in scored.models.iter().zip(&ran.models).enumerate() {
        for (r, w) in got.results.iter().zip(&want.results) {
            let unanswered = m == 1 && r.index == 3;
            let p = &plain.models[m].results[r.index];
            // statuses, lines and every other metric are the plain scoring's
            assert_eq!(
                (r.status, r.response_line, r.attempts),
                (p.status, p.response_line, None)
            );
            assert_eq!(r.scores[0], p.scores[0]);
            for (k, name) in judged.iter().enumerate() {
                let (n, s) = &r.scores[k + 1];
                assert_eq!(n, name);
                if unanswered {
                    assert_eq!(r.status, AnswerStatus::NoResponse);
                    assert_eq!(s.value, Some(0.0), "{name}: a fail");
                    assert_eq!(s.detail["outcome"], "fail");
                    let reason = s.detail["reason"].as_str().unwrap_or("");
                    assert!(reason.starts_with(NO_RESPONSE), "{reason}");
                } else {
                    assert_eq!(s, &w.scores[k + 1].1, "{} {} {name}", got.model, r.index);
                }
            }
        }
    }
    // m1 answered everything: its whole report part is the run's
    assert_eq!(scored.models[0].aggregates, ran.models[0].aggregates);
    let (got, want) = (report(&task, &data, &scored), report(&task, &data, &ran));
    let details = |r: &Value, model: &str| -> Vec<Value> {
        r["report"]["llm_judge_details"]
            .as_array()
            .map(|d| d.iter().filter(|d| d["model"] == model).cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(details(&got, "m1"), details(&want, "m1"));
    assert_eq!(details(&got, "m1").len(), 3);
    // m2's s4 was not sent to the judge (as a run's failed call is not): a
    // fail in the outcome counts, not among the judged samples
    for d in details(&got, "m2") {
        assert_eq!(d["sample_count"], 5, "{d}");
        assert!(!d["sample_ids"].to_string().contains("s4"), "{d}");
        assert!(d["fail"].as_u64().is_some_and(|n| n >= 1), "{d}");
    }
    // the judge's usage row: every judge call's tokens
    let judge_row = |r: &Value| {
        r["report"]["usage"]
            .as_array()
            .and_then(|u| u.iter().find(|u| u["role"] == "judge").cloned())
            .expect("judge usage row")
    };
    assert_eq!(judge_row(&got)["model"], "judge");
    assert!(judge_row(&got)["prompt_tokens"].as_u64() < judge_row(&want)["prompt_tokens"].as_u64());
}
