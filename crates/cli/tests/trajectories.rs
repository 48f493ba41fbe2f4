//! Saved agent trajectories on the CLI's `score` path, against agentevals'
//! own verdicts (`crates/core/tests/data/trajectory`, made by agentevals
//! 0.0.9): every pair of the fixture as a dataset line (`expected_trajectory`)
//! and a response that is the whole conversation; `trajectory_match` in the
//! four modes gives agentevals' verdict on each (where agentevals raised on
//! arguments that are not JSON, a failure that says so). The trajectories are
//! kept in `results.jsonl`; a conversation that is not one is located.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/trajectory")
}

const MODES: [&str; 4] = ["strict", "unordered", "subset", "superset"];

#[test]
fn score_gives_agentevals_verdict_on_every_saved_trajectory() {
    let s = Scratch::new("trajectories");
    let cases = read_jsonl(&fixture().join("cases.jsonl"));
    let verdicts = read_jsonl(&fixture().join("verdicts.jsonl"));
    let dataset: Vec<String> = cases
        .iter()
        .map(|c| {
            json!({"id": c["id"], "question": "q", "expected_trajectory": c["reference"]})
                .to_string()
        })
        .collect();
    let mut responses: Vec<String> = cases
        .iter()
        .map(|c| {
            json!({"sample_id": c["id"], "model": "agent", "response": c["outputs"]}).to_string()
        })
        .collect();
    // a conversation with a message that has no role: located, skipped
    responses.push(
        json!({"sample_id": "nope", "model": "agent", "response": [{"role": "user", "content": "q"}, {"content": "a", "role": 3}]})
            .to_string(),
    );
    let dataset = s.write("cases.jsonl", &(dataset.join("\n") + "\n"));
    let resp = s.write("conversations.jsonl", &(responses.join("\n") + "\n"));
    let metrics: String = MODES
        .iter()
        .map(|m| format!("  - type: trajectory_match\n    name: {m}\n    mode: {m}\n"))
        .collect();
    let task = s.write(
        "agent.yaml",
        &format!("name: agent\nversion: v1\nprompt_template: agent_prompt\nmetrics:\n{metrics}  - type: tool_call_f1\n    label_field: expected_trajectory\n"),
    );
    s.write(
        "agent_prompt.yaml",
        "name: agent_prompt\nversion: v1\nuser: \"{{ question }}\"\n",
    );
    let mut cmd = evalpage();
    cmd.args(["score", "--task"])
        .arg(&task)
        .arg("--dataset")
        .arg(&dataset)
        .arg("--responses")
        .arg(&resp)
        .arg("--out")
        .arg(s.join("out"));
    let out = finish(cmd);
    assert_ok(&out);
    let (_, err) = texts(&out);
    assert!(
        err.contains(&format!(
            "conversations.jsonl:{}: field `response[1].role`: expected a role",
            cases.len() + 1
        )),
        "{err}"
    );
    let mut ours: HashMap<(String, String), (Option<f64>, Value)> = HashMap::new();
    for r in read_jsonl(&s.join("out/scores.jsonl")) {
        ours.insert(
            (
                r["sample_id"].as_str().unwrap_or("").to_string(),
                r["metric"].as_str().unwrap_or("").to_string(),
            ),
            (r["value"].as_f64(), r["detail"]["problems"].clone()),
        );
    }
    let mut checked = 0;
    for v in &verdicts {
        let id = v["id"].as_str().unwrap_or("").to_string();
        for m in MODES {
            let theirs = &v["scores"][format!("{m} exact 0")];
            let (value, problems) = &ours[&(id.clone(), m.to_string())];
            match theirs {
                Value::Bool(b) => assert_eq!(
                    *value,
                    Some(f64::from(u8::from(*b))),
                    "{id} {m}: {problems}"
                ),
                _ => {
                    assert_eq!(*value, Some(0.0), "{id} {m}");
                    assert!(
                        problems.to_string().contains("not JSON"),
                        "{id} {m}: {problems}"
                    );
                }
            }
            checked += 1;
        }
        assert!(ours[&(id, "tool_call_f1".to_string())].0.is_some());
    }
    assert_eq!(checked, cases.len() * 4);
    // results.jsonl keeps each conversation as the trajectory
    let results = read_jsonl(&s.join("out/results.jsonl"));
    assert_eq!(results.len(), cases.len());
    for (r, c) in results.iter().zip(&cases) {
        assert_eq!(r["sample_id"], c["id"]);
        let kept: Vec<Value> = r["trajectory"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            kept.len(),
            c["outputs"].as_array().map_or(0, Vec::len),
            "{}",
            c["id"]
        );
        for (k, o) in kept
            .iter()
            .zip(c["outputs"].as_array().into_iter().flatten())
        {
            assert_eq!(k["role"], o["role"]);
        }
    }
}
