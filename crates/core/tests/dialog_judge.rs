//! Spec 001's judged metrics with a judge plugged in: in a dialog run the
//! judge calls of each turn follow its answer on the judge's pool, verdicts
//! are read strictly (tag lists, labels, 1–5), an unreadable one is repaired
//! once then unscored, a failed judge call leaves its part unscored and the
//! dialog goes on; unscored verdicts are out of the denominators and
//! counted. A trace scored offline is judged by judge-only jobs.

use evalpage_core::dialog::{
    parse_dialogs, prepare_trace, render, score_prepared, DialogJudge, JudgeOnlyEngine,
    JudgeOnlyKind, MetricRun,
};
use evalpage_core::dialog::{DialogEngine, DialogRunConfig, OfflineRun};
use evalpage_core::events::Record;
use evalpage_core::run::{Command, Input, Kind, Pipeline, RunIdentity, RunSettings, RunStatus};
use evalpage_core::{Answer, CallError, CallOutcome, ChatMessage, ErrorKind};
use evalpage_core::{Lang, ModelSettings};
use serde_json::{json, Value};
use std::collections::VecDeque;

const DATA: &str = r#"{"dialog_id":"j","profile_gt":{"risk_level_gt":"稳健","constraints_gt":["不投资股票"]},"turns":[{"role":"user","content":"我是稳健型，想买基金"},{"role":"assistant","content":"好","gt_turn_tags":{"risk_disclosure_required_gt":["市场不确定性","波动风险"],"compliance_label_gt":"compliant","explainability_rubric_gt":["信息依据","边界声明"]}},{"role":"user","content":"那股票呢"},{"role":"assistant","content":"不建议","gt_turn_tags":{"risk_disclosure_required_gt":["不构成投资建议"],"compliance_label_gt":"minor_violation","explainability_rubric_gt":["信息依据"]}}]}
{"dialog_id":"k","profile_gt":{"risk_level_gt":"进取"},"turns":[{"role":"user","content":"存款怎么样"},{"role":"assistant","content":"可以","gt_turn_tags":{"risk_disclosure_required_gt":["流动性风险"],"compliance_label_gt":"compliant"}}]}
"#;

fn judge() -> DialogJudge {
    DialogJudge::new(
        ModelSettings {
            name: "grader".into(),
            model: "grader-1".into(),
            base_url: None,
            api_key_env: None,
            params: serde_json::Map::new(),
            engine: None,
        },
        RunSettings {
            concurrency: 2,
            max_attempts: 1,
            ..RunSettings::default()
        },
        Lang::Zh,
    )
}

fn config() -> DialogRunConfig {
    DialogRunConfig {
        run: RunIdentity {
            run_id: "run1".into(),
            tool: "test".into(),
            started_at_ms: 1_700_000_000_000,
            dataset: "dialogs.jsonl".into(),
            settings: RunSettings {
                concurrency: 2,
                max_attempts: 1,
                ..RunSettings::default()
            },
            ..RunIdentity::default()
        },
        backend: "openai".into(),
        model_name: "m".into(),
        dataset_name: "dialogs.jsonl".into(),
        ..DialogRunConfig::default()
    }
}

/// Which prompt a judge request is (by its system message).
fn part_of(messages: &[ChatMessage]) -> &'static str {
    let system = messages.first().map_or("", |m| m.content.as_str());
    if system.contains("合规标签") {
        "compliance"
    } else if system.contains("风险提示") {
        "risk"
    } else if system.contains("逐条判断") {
        "rubric"
    } else if system.contains("打分") {
        "score"
    } else {
        "?"
    }
}

/// Runs an engine to the end, answering every send with `answer(job, pool,
/// messages)`, one at a time in send order; returns (job, pool) per send.
fn drive<K: Kind<Record = Record>>(
    e: &mut Pipeline<K>,
    mut answer: impl FnMut(usize, usize, &[ChatMessage]) -> CallOutcome,
) -> (Vec<(usize, usize)>, Vec<Record>) {
    let mut queue = VecDeque::new();
    let mut sent = Vec::new();
    let mut records = Vec::new();
    let mut step = e.start(0);
    let mut now = 0;
    loop {
        records.append(&mut step.events);
        for c in step.commands.drain(..) {
            if let Command::Send {
                case,
                messages,
                pool,
                ..
            } = c
            {
                queue.push_back((case, pool, messages));
            }
        }
        if e.status() != RunStatus::Running {
            break;
        }
        let Some((job, pool, messages)) = queue.pop_front() else {
            panic!("stalled")
        };
        sent.push((job, pool));
        now += 1;
        let outcome = answer(job, pool, &messages);
        step = e.handle(Input::Outcome { case: job, outcome }, now);
    }
    (sent, records)
}

fn text(s: &str) -> CallOutcome {
    CallOutcome::Answer(Answer::from(s.to_string()))
}

fn failed() -> CallOutcome {
    CallOutcome::Failed(CallError::new(ErrorKind::Network, "connection reset"))
}

/// The scripted judge (see the test) and the model's answers.
fn scripted(job: usize, pool: usize, m: &[ChatMessage]) -> CallOutcome {
    let last = m.last().map_or("", |x| x.content.as_str());
    let repair = last.starts_with("无法读取你的评分");
    let turn = m.iter().filter(|x| x.role == "user").count();
    if pool == 0 {
        return text(&format!("第{turn}轮的回答：市场有不确定性，仅供参考。"));
    }
    let user = m.get(1).map_or("", |x| x.content.as_str());
    let second_turn = user.contains("那股票呢");
    match (job, second_turn, part_of(m)) {
        (0, false, "risk") => text("回答提到了市场不确定性。\nTAGS: [\"market_uncertainty\"]"),
        (0, false, "compliance") => text("GRADE: compliant"),
        (0, false, "rubric") if repair => text("TAGS: [\"信息依据\"]"),
        (0, false, "rubric") => text("满足信息依据和边界声明"),
        (0, false, "score") => text("理由……\nGRADE: 4"),
        (0, true, "risk") => text("我无法判断"),
        (0, true, "compliance") => text("{\"label\": \"severe_violation\"}"),
        (0, true, "rubric") => text("{\"tags\": [\"信息依据\"]}"),
        (0, true, "score") => failed(),
        (1, _, "risk") => text("TAGS: [\"liquidity_risk\", \"credit_risk\"]"),
        (1, _, "compliance") => failed(),
        other => panic!("unexpected request {other:?}"),
    }
}

#[test]
fn judge_calls_follow_each_turn_and_unscored_verdicts_count_nowhere() {
    let set = parse_dialogs("dialogs.jsonl", DATA.as_bytes());
    let mut e = DialogEngine::judged_dialogs(config(), set, Some(judge()));
    let (sent, records) = drive(&mut e, scripted);
    // dialog j: turn 1, its four judge calls (+1 repair), then turn 2 and its calls
    let j: Vec<usize> = sent
        .iter()
        .filter(|(job, _)| *job == 0)
        .map(|(_, p)| *p)
        .collect();
    assert_eq!(j, [0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1]);
    let a = e.kind().artifacts(100);
    assert_eq!(a.manifest.workers_judge, 2);
    assert!(a.traces.iter().all(|t| t
        .turns
        .iter()
        .all(|x| x.turn_status == evalpage_core::dialog::TurnStatus::Ok)));

    let m3 = &a.summary.metrics["m3_risk_disclosure_judge"];
    assert_eq!((m3.status.as_str(), m3.scored_count), ("ok", 2));
    assert_eq!(m3.unscored_count, 1, "j turn 2: unreadable twice");
    assert_eq!(m3.eligible_count, 3, "§7: every turn with required tags");
    assert!((m3.value.unwrap_or_default() - 2.0 / 3.0).abs() < 1e-9);
    let m4 = &a.summary.metrics["m4_compliance_judge"];
    assert_eq!((m4.scored_count, m4.value), (2, Some(0.5)));
    assert_eq!(m4.unscored_count, 1, "k: the judge call failed");
    assert_eq!(
        m4.skipped_reasons.get("unscored: the judge call failed"),
        Some(&1)
    );
    let m5 = &a.summary.metrics["m5_explainability"];
    assert_eq!((m5.scored_count, m5.unscored_count), (2, 0));
    assert!((m5.value.unwrap_or_default() - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(m5.details["mean_judge_score_1_5"], json!(4.0));
    assert_eq!(m5.details["scored_turns"], json!(1));

    let judge = a.summary.judge.as_ref().expect("the judge is named");
    assert_eq!(judge.info.model, "grader");
    assert_eq!(judge.info.prompts["risk_tags"].id, "dialog_risk_tags");
    assert_eq!(judge.info.prompts["risk_tags"].version, "1");
    assert_eq!((judge.calls, judge.repairs, judge.failed_calls), (10, 2, 2));

    // turn_eval rows keep every raw answer and how it was read
    let row = a
        .rows
        .iter()
        .find(|r| r.dialog_id == "j" && r.turn_pair_id == 1)
        .expect("row");
    let rubric = &row.judgements["rubric_hit_items"];
    assert_eq!(rubric["repairs"], json!(1));
    assert_eq!(
        rubric["attempts"][0]["verdict"]["outcome"],
        json!("unscored")
    );
    assert_eq!(rubric["attempts"][1]["verdict"]["from"], json!("tags_line"));
    assert_eq!(
        row.rubric_hit_items.as_deref(),
        Some(&["信息依据".to_string()][..])
    );
    assert_eq!(row.risk_tag_hits_judge, Some(1));
    let row2 = a
        .rows
        .iter()
        .find(|r| r.dialog_id == "j" && r.turn_pair_id == 2)
        .expect("row");
    assert!(row2.eligible_m3_judge && row2.eligible_m5, "§7 alone");
    assert_eq!(
        (row2.m3_judge_status, row2.m5_status),
        (MetricRun::Unscored, MetricRun::Scored)
    );
    assert_eq!(row2.judgements["score_1_5"]["outcome"], json!("failed"));
    assert_eq!(row2.judge_score_1_5, None);

    // the event log's case records carry the judgements
    let case = records
        .iter()
        .find_map(|r| match r {
            Record::Case(c) if c.case_id == "j" => Some(c.clone()),
            _ => None,
        })
        .expect("case j");
    let logged = case.judgements.expect("judgements");
    assert_eq!(
        logged["turn_pair_1"]["risk_tags"]["attempts"][0]["raw"],
        json!("回答提到了市场不确定性。\nTAGS: [\"market_uncertainty\"]")
    );
    let metrics = case.metrics.expect("metrics");
    assert_eq!(metrics["m4_compliance_judge"], Some(0.5));

    let files = render(&a).expect("renders");
    let summary: Value = serde_json::from_str(&files[3].1).expect("json");
    assert_eq!(
        summary["judge"]["prompts"]["compliance_label"]["id"],
        "dialog_compliance"
    );
}

#[test]
fn the_mock_judge_plays_every_part_and_a_trace_is_judged_by_judge_only_jobs() {
    let bytes = evalpage_core::demo::DIALOG_DATASET.as_bytes().to_vec();
    let set = parse_dialogs("memfin_dialogs.jsonl", &bytes);
    let mut e = DialogEngine::judged_dialogs(config(), set.clone(), Some(judge()));
    let mock = evalpage_core::dialog::DialogKind::judged(config(), set.clone(), Some(judge()));
    let (sent, _) = drive(&mut e, |job, _, m| {
        CallOutcome::Answer(mock.mock_answer(job, m))
    });
    assert!(sent.iter().any(|(_, p)| *p == 1));
    let a = e.kind().artifacts(1);
    for name in [
        "m3_risk_disclosure_judge",
        "m4_compliance_judge",
        "m5_explainability",
    ] {
        let m = &a.summary.metrics[name];
        assert_eq!(m.status, "ok", "{name}");
        assert!(m.eligible_count > 5, "{name}: {}", m.eligible_count);
        assert_eq!(
            m.scored_count + m.unscored_count + m.not_run_count,
            m.eligible_count,
            "{name}"
        );
        let v = m.value.unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&v), "{name}: {v}");
    }
    let judge_summary = a.summary.judge.as_ref().expect("judge");
    assert!(
        judge_summary.repairs > 0,
        "the mock gives unreadable answers"
    );
    assert!(judge_summary.prompt_tokens > 0);

    // the same trace scored offline, judged by judge-only jobs
    let files = render(&a).expect("renders");
    let trace = files[1].1.as_bytes();
    let run = OfflineRun {
        dataset_path: "memfin_dialogs.jsonl".into(),
        trace_file: "dialog_trace.jsonl".into(),
        model_name: None,
        started_at_ms: 0,
        ended_at_ms: 1,
        scoring: Default::default(),
    };
    let prepared = prepare_trace(&run, &set, trace);
    let kind = JudgeOnlyKind::new(judge(), "scored", 0, &set.dialogs, &prepared.traces);
    let mut j = JudgeOnlyEngine::over(kind);
    let mock_judge = JudgeOnlyKind::new(judge(), "x", 0, &[], &[]);
    let (calls, _) = drive(&mut j, |job, _, m| {
        CallOutcome::Answer(mock_judge.mock_answer(job, m))
    });
    assert!(!calls.is_empty());
    let info = j.kind().judge().info();
    let scored = score_prepared(&run, &set, prepared, &j.kind().judgements(), Some(&info));
    let s = &scored.artifacts.summary;
    assert_eq!(scored.artifacts.manifest.workers_judge, 2);
    for name in [
        "m3_risk_disclosure_judge",
        "m4_compliance_judge",
        "m5_explainability",
    ] {
        assert_eq!(s.metrics[name].status, "ok", "{name}");
        assert_eq!(
            s.metrics[name].eligible_count, a.summary.metrics[name].eligible_count,
            "{name}: the same turns are judged"
        );
    }
    // without a judge they stay not run
    let plain = score_prepared(
        &run,
        &set,
        prepare_trace(&run, &set, trace),
        &Default::default(),
        None,
    );
    assert_eq!(
        plain.artifacts.summary.metrics["m5_explainability"].status,
        "not_run"
    );
}
