//! The kinds of evaluation the simulator runs, each on the real core's
//! engine (`Pipeline` over the kind) and its own files: what a kind's run is
//! built from, how a job is named in its log, what its verdicts are, and the
//! checks its report must pass.

use crate::scenario::{model_name, Scenario, SimKind};
use evalpage_core::dialog::{parse_dialogs, DialogKind, DialogRunConfig};
use evalpage_core::events::ReadLog;
use evalpage_core::rag::{self, RagKind, RunConfig};
use evalpage_core::retrieval::{
    parse_cases, RetrievalEndpoint, RetrievalFiles, RetrievalKind, RetrievalRunConfig,
    DEFAULT_BODY, DEFAULT_PATH,
};
use evalpage_core::run::{Finish, Kind, Pipeline, RunIdentity, RunInfo, RunSettings, Start};
use evalpage_core::task::{
    builtin_template, load_dataset, preset, DatasetFormat, PromptTemplate, Repeats, Task,
    TaskFiles, TaskInfo, TaskKind, TaskRunConfig,
};
use evalpage_core::{demo, Lang, ModelSettings, ScoringConfig};
use serde_json::Value;
use std::cell::RefCell;

/// The simulated endpoint's base URL.
pub(crate) const URL: &str = "http://127.0.0.1:1/v1";

/// The simulated run's start, ms since the epoch.
pub(crate) const START_MS: u64 = 1_000_000;

/// A kind of evaluation as the simulator runs it.
pub trait Simulated: Kind + Start<Log = ReadLog> + Finish + Sized
where
    Self::Record: serde::Serialize,
{
    /// The kind over the scenario's dataset, fresh.
    fn build(sc: &Scenario) -> Self;
    /// What its files are rendered from at the end.
    fn inputs(sc: &Scenario) -> Self::Inputs;
    /// The job's name in the log: its `case_id`, after its model when the
    /// run asks several.
    fn key(engine: &Pipeline<Self>, job: usize) -> String;
    /// Each settled job's name, verdicts (the scores, as JSON; empty when
    /// the call failed) and answer (none when the call failed).
    fn verdicts(engine: &Pipeline<Self>) -> Vec<(String, String, Option<String>)>;
    /// What the final report (its JSON) must hold for the run's `jobs`.
    fn check_report(jobs: usize, report: &Value, log: &ReadLog) -> Vec<String>;
    /// How many calls a job may still start after a resume from `prior`
    /// (its first attempts), when the kind takes over part of a job: none
    /// when it takes over whole jobs only.
    fn calls_left(_engine: &Pipeline<Self>, _job: usize, _prior: &ReadLog) -> Option<usize> {
        None
    }
}

fn identity(sc: &Scenario) -> RunIdentity {
    RunIdentity {
        run_id: format!("sim-{}", sc.seed),
        tool: "evalpage-sim".into(),
        started_at_ms: START_MS,
        argv: vec![],
        dataset: "sim.jsonl".into(),
        settings: RunSettings {
            concurrency: sc.concurrency,
            max_attempts: sc.max_attempts,
            backoff_base_ms: sc.backoff_base_ms,
            timeout_ms: sc.timeout_ms,
            ..RunSettings::default()
        },
    }
}

/// `lines` repeated to `n` samples, each with a fresh `field` id. A seed
/// builds its dataset several times (its runs, a resume, the final files):
/// the last few are kept, so the generator runs once per seed; and each
/// source's lines are read once per process (see [`around_ids`]).
fn repeated(lines: &'static str, n: usize, field: &'static str, prefix: char) -> Vec<u8> {
    type Key = (usize, usize, &'static str);
    thread_local! {
        static MEMO: RefCell<Vec<(Key, Vec<u8>)>> = const { RefCell::new(Vec::new()) };
    }
    let key = (lines.as_ptr() as usize, n, field);
    if let Some(hit) =
        MEMO.with_borrow(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()))
    {
        return hit;
    }
    let lines = around_ids(lines, field);
    let mut out = String::new();
    for i in 0..n {
        let (before, after) = &lines[i % lines.len()];
        out.push_str(before);
        out.push_str(&format!("{prefix}{i:04}"));
        out.push_str(after);
        out.push('\n');
    }
    let out = out.into_bytes();
    MEMO.with_borrow_mut(|m| {
        if m.len() >= 4 {
            m.remove(0);
        }
        m.push((key, out.clone()));
    });
    out
}

/// Each non-blank line of `lines` written once with a mark for its `field`
/// id, as the text before the mark and after it (the id needs no escaping),
/// kept per source and field for the process.
fn around_ids(lines: &'static str, field: &'static str) -> std::rc::Rc<Vec<(String, String)>> {
    type Key = (usize, &'static str);
    type Split = std::rc::Rc<Vec<(String, String)>>;
    thread_local! {
        static SPLIT: RefCell<Vec<(Key, Split)>> = const { RefCell::new(Vec::new()) };
    }
    let key = (lines.as_ptr() as usize, field);
    if let Some(hit) =
        SPLIT.with_borrow(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()))
    {
        return hit;
    }
    const MARK: &str = "\u{1}id\u{1}";
    let written = Value::from(MARK).to_string();
    let mark = written.trim_matches('"');
    let split: Split = std::rc::Rc::new(
        lines
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap_or_default();
                v[field] = Value::from(MARK);
                let text = v.to_string();
                match text.split_once(mark) {
                    Some((before, after)) => (before.to_string(), after.to_string()),
                    None => (text, String::new()),
                }
            })
            .collect(),
    );
    SPLIT.with_borrow_mut(|m| m.push((key, split.clone())));
    split
}

/// The rates of a report's `metrics` over all `jobs`, failed calls included,
/// and its failed calls the log's jobs without an answer.
fn rates_over_all(jobs: usize, m: &Value, rates: &[(&str, &str)], log: &ReadLog) -> Vec<String> {
    let mut out = Vec::new();
    for (rate, count) in rates {
        let (Some(r), Some(k)) = (m[rate].as_f64(), m[count].as_u64()) else {
            out.push(format!(
                "the report has no metrics.{rate} or metrics.{count}"
            ));
            continue;
        };
        let want = if jobs == 0 {
            0.0
        } else {
            k as f64 / jobs as f64
        };
        if (r - want).abs() > 1e-9 {
            out.push(format!(
                "metrics.{rate} is {r}, not {count} over all {jobs} cases ({want})"
            ));
        }
    }
    let unanswered = log
        .of_type("case")
        .filter(|r| r["llm_call_ok"] == false)
        .count();
    if m["failed_calls"].as_u64() != Some(unanswered as u64) {
        out.push(format!(
            "metrics.failed_calls is {}, the log has {unanswered} cases without an answer",
            m["failed_calls"]
        ));
    }
    out
}

/// A job's verdicts as JSON, where it has an answer (the invariants compare
/// verdicts only where a run's answer is the fault-free run's); empty where
/// its call failed.
fn verdict<T: serde::Serialize + ?Sized>(answer: &Option<String>, scores: &T) -> String {
    match answer {
        Some(_) => serde_json::to_string(scores).unwrap_or_default(),
        None => String::new(),
    }
}

fn cases_counted(jobs: usize, m: &Value) -> Option<String> {
    match m["cases"].as_u64() {
        Some(t) if t as usize == jobs => None,
        Some(t) => Some(format!("the report counts {t} cases of {jobs}")),
        None => Some("the report has no metrics.cases".into()),
    }
}

impl Simulated for RagKind {
    fn build(sc: &Scenario) -> RagKind {
        let cases = rag::parse("sim.jsonl", &Self::inputs(sc)).cases;
        let config = RunConfig {
            run: identity(sc),
            info: RunInfo {
                lang: Lang::Zh,
                backend: "openai".into(),
                model: "sim".into(),
                endpoint: Some(URL.into()),
                parameters: serde_json::json!({"temperature": 0}),
                dataset_name: "sim.jsonl".into(),
                dataset_line_errors: 0,
            },
            scoring: ScoringConfig::default(),
            system_prompt: "sys".into(),
            dataset_meta: None,
        };
        RagKind::new(config, cases)
    }

    fn inputs(sc: &Scenario) -> Vec<u8> {
        repeated(demo::DATASET, sc.cases, "id", 'c')
    }

    fn key(_: &Pipeline<Self>, job: usize) -> String {
        format!("c{job:04}")
    }

    fn verdicts(engine: &Pipeline<Self>) -> Vec<(String, String, Option<String>)> {
        engine
            .results()
            .iter()
            .flatten()
            .map(|r| {
                let answer = r.error.is_none().then(|| r.answer.clone()).flatten();
                (
                    r.case_id.clone(),
                    verdict(&answer, &(&r.accuracy, &r.citation)),
                    answer,
                )
            })
            .collect()
    }

    fn check_report(jobs: usize, report: &Value, log: &ReadLog) -> Vec<String> {
        let m = &report["metrics"];
        let rates = [
            ("pass_rate", "passed_cases"),
            ("accuracy", "accurate_cases"),
            ("citation_rate", "cited_cases"),
        ];
        cases_counted(jobs, m)
            .into_iter()
            .chain(rates_over_all(jobs, m, &rates, log))
            .collect()
    }
}

/// The task's samples: spec 004's `event_eval` preset (sentiment, impact
/// score, keywords), one with a template field missing.
const TASK_SAMPLES: &str = concat!(
    "{\"sample_id\":\"S1\",\"ticker\":\"A\",\"news_items\":[{\"title\":\"AI chips sell out\"}],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"ai\"]}\n",
    "{\"sample_id\":\"S2\",\"ticker\":\"B\",\"news_items\":[{\"title\":\"Quarterly loss\"}],\"gt_sentiment\":\"negative\",\"gt_impact_score\":-3,\"gt_keywords\":[\"loss\"]}\n",
    "{\"sample_id\":\"S3\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
    "{\"sample_id\":\"S4\",\"ticker\":\"D\",\"news_items\":[{\"title\":\"x\"}],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":1,\"gt_keywords\":[\"x\"]}\n",
);

fn task_info() -> TaskInfo {
    TaskInfo {
        name: "event_eval".into(),
        version: "v1".into(),
        source: "preset".into(),
        prompt_name: "ie_json".into(),
        prompt_version: "v1".into(),
        prompt_source: "builtin".into(),
    }
}

/// The agent task: `examples/agent/bank.yaml` (scripted tools, each line's
/// own results, `max_steps: 4`), its prompt and its six samples.
const AGENT_TASK: &str = include_str!("../../../examples/agent/bank.yaml");
const AGENT_PROMPT: &str = include_str!("../../../examples/agent/bank_prompt.yaml");
const AGENT_SAMPLES: &str = include_str!("../../../examples/agent/bank.jsonl");

/// The task a task or agent scenario runs, with its template.
fn task_and_template(sc: &Scenario) -> (Task, PromptTemplate, TaskInfo) {
    if sc.kind == SimKind::Agent {
        let task = Task::parse("bank.yaml", AGENT_TASK).expect("bank.yaml is a valid task");
        let template = PromptTemplate::parse("bank_prompt.yaml", AGENT_PROMPT)
            .expect("bank_prompt.yaml is a valid template");
        let info = TaskInfo {
            name: task.name.clone(),
            version: task.version.clone(),
            source: "bank.yaml".into(),
            prompt_name: template.name().to_string(),
            prompt_version: template.version().to_string(),
            prompt_source: "bank_prompt.yaml".into(),
        };
        return (task, template, info);
    }
    let task = preset("event_eval").expect("event_eval is a built-in preset");
    let template = builtin_template("ie_json").expect("ie_json is a built-in template");
    (task, template, task_info())
}

/// The task's files, and its template (the task and template read once).
fn task_files(sc: &Scenario) -> (TaskFiles, PromptTemplate) {
    let samples = match sc.kind {
        SimKind::Agent => AGENT_SAMPLES,
        _ => TASK_SAMPLES,
    };
    let bytes = repeated(samples, sc.cases, "sample_id", 's');
    let (task, template, info) = task_and_template(sc);
    let format = DatasetFormat::for_task(&task);
    let files = TaskFiles {
        data: load_dataset("sim.jsonl", &bytes, format, None),
        task,
        info,
        dataset_bytes: bytes,
        lang: Lang::En,
    };
    (files, template)
}

/// A task (spec 004's `event_eval` preset) or an agent task (scripted
/// tools), each sample asked of each model `repeats` times.
impl Simulated for TaskKind {
    fn build(sc: &Scenario) -> TaskKind {
        let (files, template) = task_files(sc);
        let cfg = TaskRunConfig {
            run: identity(sc),
            backend: "openai".into(),
            repeats: Repeats::new(sc.repeats, Vec::new())
                .expect("1 to 3 repeats with the default k"),
            models: (0..sc.models)
                .map(|i| ModelSettings {
                    name: model_name(i),
                    model: model_name(i),
                    base_url: Some(URL.into()),
                    api_key_env: None,
                    params: serde_json::Map::new(),
                    engine: None,
                })
                .collect(),
        };
        TaskKind::judged(cfg, files.task, files.info, &template, &files.data, None)
    }

    fn inputs(sc: &Scenario) -> TaskFiles {
        task_files(sc).0
    }

    fn key(engine: &Pipeline<Self>, job: usize) -> String {
        let Some(j) = engine.job(job) else {
            return format!("job {job}");
        };
        let id = engine
            .samples()
            .get(j.sample)
            .map_or("?", |s| s.sample.id.as_str());
        let model = model_name(j.model);
        match engine.repeats() {
            1 => format!("{model}/{id}"),
            _ => format!("{model}/{id}#{}", j.repeat),
        }
    }

    fn verdicts(engine: &Pipeline<Self>) -> Vec<(String, String, Option<String>)> {
        let mut out = Vec::new();
        for (job, r) in (0..engine.jobs()).filter_map(|j| Some((j, engine.result(j)?))) {
            // an agent's answer is its whole trajectory, its last text with it
            let answer = r.error.is_none().then(|| {
                serde_json::to_string(&(&r.raw_answer, &r.parsed.trajectory)).unwrap_or_default()
            });
            out.push((Self::key(engine, job), verdict(&answer, &r.scores), answer));
        }
        out
    }

    fn check_report(jobs: usize, report: &Value, log: &ReadLog) -> Vec<String> {
        let m = &report["metrics"];
        let mut out: Vec<String> = cases_counted(jobs, m).into_iter().collect();
        let rows = report["cases"].as_array().map_or(0, Vec::len);
        if rows != jobs {
            out.push(format!("the report lists {rows} case rows of {jobs}"));
        }
        // a task report counts (no rates in its metrics); its failed calls are the log's
        out.extend(rates_over_all(jobs, m, &[], log));
        out
    }
}

fn retrieval_bytes(sc: &Scenario) -> Vec<u8> {
    repeated(demo::RETRIEVAL_DATASET, sc.cases, "case_id", 'r')
}

impl Simulated for RetrievalKind {
    fn build(sc: &Scenario) -> RetrievalKind {
        let (cases, _) = parse_cases("sim.jsonl", &retrieval_bytes(sc));
        let endpoint = RetrievalEndpoint::new(URL, "http", DEFAULT_BODY, DEFAULT_PATH)
            .expect("the default body and path are valid");
        let cfg = RetrievalRunConfig {
            run: identity(sc),
            dataset: "sim.jsonl".into(),
            k: 3,
            endpoint,
        };
        RetrievalKind::new(cfg, cases)
    }

    fn inputs(sc: &Scenario) -> RetrievalFiles {
        let bytes = retrieval_bytes(sc);
        let (_, line_errors) = parse_cases("sim.jsonl", &bytes);
        RetrievalFiles {
            cases_file: "sim.jsonl".into(),
            cases_bytes: bytes,
            line_errors,
            metadata: None,
            lang: Lang::Zh,
        }
    }

    fn key(engine: &Pipeline<Self>, job: usize) -> String {
        engine
            .cases()
            .get(job)
            .map_or_else(|| format!("job {job}"), |c| c.case_id.clone())
    }

    fn verdicts(engine: &Pipeline<Self>) -> Vec<(String, String, Option<String>)> {
        (0..engine.cases().len())
            .filter_map(|job| {
                let row = engine.row(job)?;
                let answer = row.error().is_none().then(|| row.score.topk.join("\n"));
                Some((
                    row.case.case_id.clone(),
                    verdict(&answer, &row.score),
                    answer,
                ))
            })
            .collect()
    }

    fn check_report(jobs: usize, report: &Value, log: &ReadLog) -> Vec<String> {
        let m = &report["metrics"];
        cases_counted(jobs, m)
            .into_iter()
            .chain(rates_over_all(jobs, m, &[("hit_rate", "hit_cases")], log))
            .collect()
    }
}

/// The demo's dialogs (spec 001), repeated with fresh `dialog_id`s.
fn dialog_bytes(sc: &Scenario) -> Vec<u8> {
    repeated(demo::DIALOG_DATASET, sc.cases, "dialog_id", 'd')
}

/// Spec 001's dialogs: a job is a dialog, its calls its turns in order.
impl Simulated for DialogKind {
    fn build(sc: &Scenario) -> DialogKind {
        let set = parse_dialogs("sim.jsonl", &dialog_bytes(sc));
        let cfg = DialogRunConfig {
            run: identity(sc),
            backend: "openai".into(),
            model_name: "sim".into(),
            endpoint: Some(URL.into()),
            dataset_name: "sim.jsonl".into(),
            system_prompt: Some("sys".into()),
            notes: None,
            scoring: Default::default(),
        };
        DialogKind::new(cfg, set)
    }

    fn inputs(_: &Scenario) {}

    fn key(engine: &Pipeline<Self>, job: usize) -> String {
        engine
            .kind()
            .dialog_of_job(job)
            .map_or_else(|| format!("job {job}"), |d| d.dialog_id.clone())
    }

    /// A dialog's verdicts are its turns' rows (`turn_eval.jsonl`); its
    /// answer every turn's, in order.
    fn verdicts(engine: &Pipeline<Self>) -> Vec<(String, String, Option<String>)> {
        let kind = engine.kind();
        (0..engine.progress().1)
            .filter_map(|job| {
                let trace = kind.trace_of_job(job)?;
                let rows = kind.rows_of_job(job)?;
                let answers: Vec<Option<&str>> = trace
                    .turns
                    .iter()
                    .map(|t| t.pred_assistant_text.as_deref())
                    .collect();
                let answered = trace.dialog_error.is_none();
                let answer = answered.then(|| serde_json::to_string(&answers).unwrap_or_default());
                Some((trace.dialog_id.clone(), verdict(&answer, rows), answer))
            })
            .collect()
    }

    /// `metrics_summary.json`: every played dialog counted once, as the log's
    /// case records say (played, passed: every turn answered; failed: none).
    /// A resumed dialog plays only its turns the log did not settle: its
    /// pairs less its `turn` records.
    fn calls_left(engine: &Pipeline<Self>, job: usize, prior: &ReadLog) -> Option<usize> {
        let d = engine.kind().dialog_of_job(job)?;
        let settled: std::collections::BTreeSet<u64> = prior
            .of_type("turn")
            .filter(|r| r["case_id"] == d.dialog_id.as_str())
            .filter_map(|r| r["turn_pair_id"].as_u64())
            .collect();
        Some(d.pairs().len().saturating_sub(settled.len()))
    }

    fn check_report(jobs: usize, report: &Value, log: &ReadLog) -> Vec<String> {
        let c = &report["counters"];
        let mut out = Vec::new();
        let cases: Vec<&Value> = log.of_type("case").collect();
        let passed = cases.iter().filter(|r| r["passed"] == true).count();
        let (valid, failed, partial) = (
            c["valid_dialogs"].as_u64(),
            c["failed_dialogs"].as_u64(),
            c["partial_dialogs"].as_u64(),
        );
        match (valid, failed, partial) {
            (Some(v), Some(f), Some(p)) => {
                if v as usize != jobs {
                    out.push(format!("the summary counts {v} played dialogs of {jobs}"));
                }
                let ok = v.saturating_sub(f + p) as usize;
                if ok != passed {
                    out.push(format!(
                        "the summary has {ok} dialogs with every turn answered, the log {passed}"
                    ));
                }
            }
            _ => out.push("metrics_summary.json has no counters".into()),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_lines_are_the_lines_with_their_fresh_ids() {
        for (lines, field, prefix) in [
            (demo::DATASET, "id", 'c'),
            (demo::DIALOG_DATASET, "dialog_id", 'd'),
            (TASK_SAMPLES, "sample_id", 's'),
        ] {
            let made = String::from_utf8(repeated(lines, 7, field, prefix)).expect("UTF-8");
            let sources: Vec<&str> = lines.lines().filter(|l| !l.trim().is_empty()).collect();
            let mut want = String::new();
            for i in 0..7 {
                let mut v: Value = serde_json::from_str(sources[i % sources.len()]).expect("JSON");
                v[field] = Value::from(format!("{prefix}{i:04}"));
                want.push_str(&format!("{v}\n"));
            }
            assert_eq!(made, want);
        }
    }
}
