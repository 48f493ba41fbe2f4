//! LLM-as-judge through the one run engine (issue 11): each case is the
//! model's answer, then judge calls on the judge's own pool; unreadable
//! verdicts are asked again once and then stay unscored (never a pass or a
//! fail); repeats report spread and agreement; pairwise runs both orders and
//! reports flips; human labels give kappa; the report carries spec 003's
//! `LLMJudgeDetail` and the Markdown LLM judge section.

use evalpage_core::events::{read, reconcile, to_jsonl, Record};
use evalpage_core::report::RunMeta;
use evalpage_core::run::{Command, Input, Kind, RunIdentity, RunSettings, RunStatus};
use evalpage_core::task::{
    judge_setups as setups, missing_judge, AnswerSource, DatasetFormat, PromptTemplate,
    RunDescription, Task, TaskDataset, TaskEngine, TaskInfo, TaskJudge, TaskRunConfig,
};
use evalpage_core::Lang;
use evalpage_core::ModelSettings;
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};

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

fn task(metrics: &str) -> Task {
    let yaml = format!("name: judged\nversion: v1\nprompt_template: qa.yaml\nmetrics:\n{metrics}");
    Task::parse("t.yaml", &yaml).unwrap_or_else(|e| panic!("{e}"))
}

fn lines(rows: &[Value]) -> String {
    rows.iter().map(|r| format!("{r}\n")).collect()
}

struct Run {
    engine: TaskEngine,
    data: TaskDataset,
    bytes: String,
    /// (pool, job, messages) of every request, in send order.
    sent: Vec<(usize, usize, Vec<ChatMessage>)>,
    events: Vec<Record>,
}

fn engine(metrics: &str, rows: &[Value], judge_limit: usize) -> Run {
    let task = task(metrics);
    let template = PromptTemplate::parse(
        "qa.yaml",
        "name: qa\nversion: v1\nuser: \"{{ question }}\"\n",
    )
    .expect("template");
    let bytes = lines(rows);
    let data = evalpage_core::task::load_dataset(
        "d.jsonl",
        bytes.as_bytes(),
        DatasetFormat::Samples,
        None,
    );
    let settings = |concurrency| RunSettings {
        concurrency,
        max_attempts: 1,
        ..RunSettings::default()
    };
    let cfg = TaskRunConfig {
        run: RunIdentity {
            run_id: "j1".into(),
            tool: "test".into(),
            started_at_ms: 0,
            argv: vec![],
            settings: settings(4),
            ..RunIdentity::default()
        },
        backend: "mock".into(),
        repeats: Default::default(),
        models: vec![model("m")],
    };
    let judge = TaskJudge {
        model: model("judge"),
        settings: settings(judge_limit),
        setups: setups(&task, &BTreeMap::new()).expect("setups"),
    };
    Run {
        engine: TaskEngine::judged(cfg, task, info(), &template, &data, Some(judge)),
        data,
        bytes,
        sent: Vec::new(),
        events: Vec::new(),
    }
}

impl Run {
    /// Runs to the end, answering each request in send order with
    /// `answer(pool, job, messages)`; checks no pool ever exceeds its limit.
    fn drive(&mut self, mut answer: impl FnMut(usize, usize, &[ChatMessage]) -> CallOutcome) {
        let limits = self.engine.current_limits();
        let mut queue: VecDeque<(usize, usize, Vec<ChatMessage>)> = VecDeque::new();
        let mut step = self.engine.start(0);
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
                    self.sent.push((*pool, *case, messages.clone()));
                }
            }
            for (p, limit) in limits.iter().enumerate() {
                let busy = queue.iter().filter(|(q, _, _)| *q == p).count();
                assert!(busy <= *limit, "pool {p}: {busy} in flight, limit {limit}");
            }
            self.events.append(&mut step.events);
            if self.engine.status() != RunStatus::Running {
                return;
            }
            let (pool, job, messages) = queue.pop_front().expect("a request in flight");
            now += 10;
            let outcome = answer(pool, job, &messages);
            step = self
                .engine
                .handle(Input::Outcome { case: job, outcome }, now);
        }
    }

    fn report(&self) -> (Value, String, String) {
        let scored = self.engine.scored();
        let source = AnswerSource::Run(RunDescription {
            run_id: "j1".into(),
            backend: "mock".into(),
            models: self.engine.config().models.clone(),
            settings: self.engine.config().run.settings,
        });
        let meta = RunMeta {
            tool: "test".into(),
            version: "0".into(),
            argv: vec![],
            dataset: "d.jsonl".into(),
            metadata: None,
            started_at_ms: 0,
            ended_at_ms: 1000,
        };
        let task = self.engine.task().clone();
        let files = evalpage_core::task::render_files(&evalpage_core::task::Inputs {
            task: &task,
            info: &info(),
            prompts: self.engine.prompts(),
            data: &self.data,
            dataset_bytes: self.bytes.as_bytes(),
            scored: &scored,
            line_errors: &self.data.errors,
            source: &source,
            meta: &meta,
            lang: Lang::En,
        })
        .expect("render");
        let file = |name: &str| {
            files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.clone())
                .unwrap_or_else(|| panic!("no {name}"))
        };
        let report: Value = serde_json::from_str(&file("report.json")).expect("report.json");
        (report, file("report.md"), file("summary.csv"))
    }

    fn case_records(&self) -> HashMap<String, Value> {
        self.events
            .iter()
            .filter_map(|r| match r {
                Record::Case(c) => Some((c.case_id.clone(), serde_json::to_value(c).ok()?)),
                _ => None,
            })
            .collect()
    }
}

fn user_text(m: &[ChatMessage]) -> &str {
    m.iter()
        .rev()
        .find(|m| m.role == "user")
        .map_or("", |m| m.content.as_str())
}

const CORRECTNESS: &str = "  - type: llm_judge
    name: correct
    judge: correctness
    language: en
    reference_field: reference
    human_label_field: human
";

#[test]
fn answer_then_judge_then_repair_then_unscored() {
    let rows = [
        json!({"sample_id": "s1", "question": "q1", "reference": "r1", "human": "pass"}),
        json!({"sample_id": "s2", "question": "q2", "reference": "r2", "human": "fail"}),
        json!({"sample_id": "s3", "question": "q3", "reference": "r3", "human": true}),
        json!({"sample_id": "s4", "question": "q4", "reference": "r4", "human": "pass"}),
        json!({"sample_id": "s5", "question": "q5", "reference": "r5", "human": "pass"}),
    ];
    let mut run = engine(CORRECTNESS, &rows, 1);
    run.drive(|pool, _job, m| {
        let text = user_text(m);
        if pool == 0 {
            return CallOutcome::text(format!("answer to {text}"));
        }
        let repaired = text.starts_with("Your verdict could not be read");
        let all: String = m.iter().map(|m| m.content.clone()).collect();
        let reply = if all.contains("answer to q1") || all.contains("answer to q3") && repaired {
            "Matches the reference.\nGRADE: CORRECT"
        } else if all.contains("answer to q2") || all.contains("answer to q5") {
            "{\"verdict\": \"INCORRECT\"}"
        } else if all.contains("answer to q3") {
            "Looks right to me."
        } else {
            "downgrade: CORRECT is too generous"
        };
        CallOutcome::text(reply)
    });
    // every answer call on pool 0, every judge call on pool 1, after its answer
    let judge_calls: Vec<&(usize, usize, Vec<ChatMessage>)> =
        run.sent.iter().filter(|(p, _, _)| *p == 1).collect();
    assert_eq!(run.sent.len() - judge_calls.len(), 5);
    // s3 and s4 are asked again once (max_repairs 1): 5 + 2 judge calls
    assert_eq!(judge_calls.len(), 7);
    let repair = judge_calls
        .iter()
        .find(|(_, job, m)| *job == 2 && m.len() > 2)
        .expect("s3's repair call");
    let roles: Vec<&str> = repair.2.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(repair.2[2].content, "Looks right to me.");
    assert!(repair.2[1].content.contains("answer to q3") && repair.2[1].content.contains("r3"));

    let (report, md, csv) = run.report();
    let summary = &report["report"]["summaries"][0];
    // mean over the scored cases s1, s2, s3, s5 only; s4 is unscored, not 0
    assert_eq!(summary["mean"], 0.5);
    assert_eq!(summary["sample_count"], 4);
    assert_eq!(summary["skipped"], 1);
    let c = &summary["components"];
    assert_eq!(
        (
            c["pass"].as_f64(),
            c["fail"].as_f64(),
            c["unscored"].as_f64()
        ),
        (Some(2.0), Some(2.0), Some(1.0))
    );
    assert_eq!(c["unscored_rate"], 0.2);
    // human labels: (judge, human) = (1,1) (0,0) (1,1) (0,1) -> raw 0.75, kappa 0.5
    assert_eq!(c["human_agreement"], 0.75);
    assert!((c["human_kappa"].as_f64().expect("kappa") - 0.5).abs() < 1e-12);

    let d = &report["report"]["llm_judge_details"][0];
    assert_eq!(d["metric"], "correct");
    assert_eq!(
        (d["prompt_id"].as_str(), d["prompt_version"].as_str()),
        (Some("correctness"), Some("1"))
    );
    // The samples carry no language; the prompt's is its own field.
    assert_eq!(d["language"], Value::Null);
    assert_eq!(d["prompt_language"], "en");
    assert_eq!(d["sample_count"], 5);
    assert_eq!(d["sample_ids"], json!(["s1", "s2", "s3", "s4", "s5"]));
    assert_eq!(d["judge_model"], "judge");
    assert_eq!(
        (d["unscored"].as_u64(), d["repairs"].as_u64()),
        (Some(1), Some(2))
    );
    assert!(d["criteria"].as_array().is_some_and(|c| !c.is_empty()));

    // the event log keeps every raw judge answer and how it was read
    let cases = run.case_records();
    let s3 = &cases["s3"]["judgements"]["correct"];
    assert_eq!(s3["value"], 1.0);
    let scale = &s3["detail"]["scale"];
    assert!(scale["labels"].as_array().is_some_and(|l| l.len() >= 2));
    let verdict = s3["detail"]["verdict"].as_str().expect("the judge's label");
    assert!(scale["pass"]
        .as_array()
        .is_some_and(|p| p.iter().any(|p| p == verdict)));
    let attempts = &s3["detail"]["judgements"][0]["attempts"];
    assert_eq!(attempts[0]["raw"], "Looks right to me.");
    assert_eq!(attempts[0]["verdict"]["outcome"], "unscored");
    assert_eq!(attempts[1]["verdict"]["from"], "grade_line");
    let s4 = &cases["s4"]["judgements"]["correct"];
    assert_eq!(s4["value"], Value::Null);
    assert_eq!(s4["detail"]["outcome"], "unscored");
    assert_eq!(
        cases["s2"]["judgements"]["correct"]["detail"]["judgements"][0]["attempts"][0]["verdict"]
            ["from"],
        "json"
    );
    // the model's own call is what the case record's attempts count
    assert_eq!(cases["s3"]["attempts"], 1);
    assert_eq!(cases["s4"]["passed"], true);

    // the log reconciles with the report; the Markdown has the judge section
    let log: String = run.events.iter().map(to_jsonl).collect();
    let rec = reconcile(&report, &read(log.as_bytes()));
    assert!(rec.ok, "{:#?}", rec.checks);
    assert!(md.contains("## LLM judge"), "{md}");
    assert!(
        md.contains(
            "| m | correct | judge | correctness v1 (en) | 2 | 2 | 0 | 1 | 0.200 | 0.500 |"
        ),
        "{md}"
    );
    assert!(csv.contains("tm_correct_unscored"), "{csv}");
}

#[test]
fn repeats_report_spread_and_agreement() {
    let metrics = "  - type: llm_judge
    name: rubric
    judge: rubric
    language: en
    samples: 3
    rubric: [names the capital, is one sentence]
";
    let rows = [
        json!({"sample_id": "s1", "question": "q1"}),
        json!({"sample_id": "s2", "question": "q2"}),
    ];
    let mut run = engine(metrics, &rows, 2);
    let mut nth: HashMap<usize, usize> = HashMap::new();
    run.drive(|pool, job, _m| {
        if pool == 0 {
            return CallOutcome::text("Paris is the capital.");
        }
        let n = nth.entry(job).or_default();
        *n += 1;
        let grade = match (job, *n) {
            (0, _) => 5,
            (_, 1) => 5,
            (_, 2) => 1,
            _ => 4,
        };
        CallOutcome::text(format!("GRADE: {grade}"))
    });
    let (report, _, _) = run.report();
    let c = &report["report"]["summaries"][0]["components"];
    assert_eq!(c["repeat_agreement"], 0.5);
    // s2's values 1, 0, 0.75: population std
    let want = {
        let v = [1.0f64, 0.0, 0.75];
        let m = v.iter().sum::<f64>() / 3.0;
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 3.0).sqrt()
    };
    assert!((c["mean_spread"].as_f64().expect("spread") - want / 2.0).abs() < 1e-12);
    let cases = run.case_records();
    let s2 = &cases["s2"]["judgements"]["rubric"]["detail"];
    assert_eq!(s2["spread"]["values"], json!([1.0, 0.0, 0.75]));
    // two of three repeats pass (>= 4): the case passes
    assert_eq!(s2["outcome"], "pass");
    // the judge's own label (three repeats, each different: the first) and
    // the scale it answered on, for a reviewer to label on
    assert_eq!(s2["verdict"], "5");
    assert_eq!(s2["scale"]["range"], json!([1, 5]));
    let d = &report["report"]["llm_judge_details"][0];
    assert_eq!(d["samples_per_case"], 3);
}

#[test]
fn pairwise_runs_both_orders_and_counts_flips_as_ties() {
    let metrics = "  - type: llm_judge
    name: versus
    judge: pairwise
    language: en
    baseline_field: baseline
";
    let rows = [
        json!({"sample_id": "s1", "question": "q1", "baseline": "a weak answer"}),
        json!({"sample_id": "s2", "question": "q2", "baseline": "a weak answer"}),
    ];
    let mut run = engine(metrics, &rows, 1);
    run.drive(|pool, job, m| {
        if pool == 0 {
            return CallOutcome::text("a good answer");
        }
        let text = user_text(m);
        let a_first = text.find("a good answer") < text.find("a weak answer");
        // s1: a fair judge picks the good answer wherever it is; s2: always A
        let pick = match (job, a_first) {
            (0, true) | (1, _) => "A",
            (0, false) => "B",
            _ => unreachable!(),
        };
        CallOutcome::text(format!("[[{pick}]]"))
    });
    let judge_calls: Vec<bool> = run
        .sent
        .iter()
        .filter(|(p, _, _)| *p == 1)
        .map(|(_, _, m)| {
            let t = user_text(m);
            t.find("a good answer") < t.find("a weak answer")
        })
        .collect();
    assert_eq!(
        judge_calls,
        [true, false, true, false],
        "each case in both orders"
    );
    let (report, md, _) = run.report();
    let s = &report["report"]["summaries"][0];
    // s1 wins (1), s2 flipped: a tie (0.5)
    assert_eq!(s["mean"], 0.75);
    let c = &s["components"];
    assert_eq!(
        (c["pass"].as_f64(), c["tie"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(c["flip_rate"], 0.5);
    assert_eq!(report["report"]["llm_judge_details"][0]["flip_rate"], 0.5);
    assert!(md.contains("flip_rate"), "{md}");
}

#[test]
fn a_failed_judge_call_leaves_the_answer_scored_and_the_verdict_unscored() {
    let metrics = format!(
        "{CORRECTNESS}  - type: exact_match\n    name: em\n    pred_field: raw_answer\n    label_field: reference\n"
    );
    let rows = [json!({"sample_id": "s1", "question": "q1", "reference": "r1"})];
    let mut run = engine(&metrics, &rows, 1);
    run.drive(|pool, _, _| match pool {
        0 => CallOutcome::text("r1"),
        _ => {
            let mut e = CallError::new(ErrorKind::Http, "400 bad request");
            e.status_code = Some(400);
            CallOutcome::Failed(e)
        }
    });
    let cases = run.case_records();
    let s1 = &cases["s1"];
    assert_eq!(s1["metrics"]["em"], 1.0);
    assert_eq!(s1["llm_call_ok"], true);
    let j = &s1["judgements"]["correct"];
    assert_eq!(j["value"], Value::Null);
    let why = j["detail"]["judgements"][0]["error"]
        .as_str()
        .expect("error");
    assert!(why.starts_with("the judge call failed"), "{why}");
}

#[test]
fn the_mock_judge_exercises_repairs_and_a_judge_needs_configuring() {
    let rows: Vec<Value> = (0..40)
        .map(|i| json!({"sample_id": format!("s{i}"), "question": format!("question {i}"), "reference": format!("r{i}"), "expected": format!("r{i}")}))
        .collect();
    let mut run = engine(CORRECTNESS, &rows, 3);
    let kind_answers =
        |run: &Run, job: usize, m: &[ChatMessage]| run.engine.kind().mock_answer(job, m);
    let mut answers = Vec::new();
    {
        // the mock model answers both the task prompt and the judge requests
        let mut queue = VecDeque::new();
        let mut step = run.engine.start(0);
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
                }
            }
            run.events.append(&mut step.events);
            if run.engine.status() != RunStatus::Running {
                break;
            }
            let (pool, job, m) = queue.pop_front().expect("in flight");
            let a = kind_answers(&run, job, &m);
            answers.push((pool, a.text.clone()));
            now += 5;
            step = run.engine.handle(
                Input::Outcome {
                    case: job,
                    outcome: CallOutcome::Answer(a),
                },
                now,
            );
        }
    }
    let (report, _, _) = run.report();
    let d = &report["report"]["llm_judge_details"][0];
    assert_eq!(d["sample_count"], 40);
    assert!(d["repairs"].as_u64().expect("repairs") > 0, "{d}");
    assert!(
        d["pass"].as_u64().expect("pass") > 0 && d["fail"].as_u64().expect("fail") > 0,
        "{d}"
    );
    assert!(answers.iter().any(|(p, a)| *p == 1 && a.contains("GRADE:")));

    // a task with a judged metric and no judge: the check says where and what
    let t = task(CORRECTNESS);
    let e = missing_judge(&t);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].path, "metrics[0].type");
    assert!(
        e[0].message.contains("needs a judge model"),
        "{}",
        e[0].message
    );
}
