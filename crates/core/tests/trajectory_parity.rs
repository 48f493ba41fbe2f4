//! `trajectory_match` equals agentevals 0.0.9 on every pair of
//! `tests/data/trajectory` (240 pairs of generated trajectories, each in the 4
//! modes x 4 argument modes and 3 per-tool overrides: 6,720 verdicts made by
//! agentevals itself, `make_verdicts.py` says how). Where agentevals raised
//! (arguments that are not JSON) the verdict here is a failure that says why:
//! the one deliberate difference.

use evalpage_core::{
    match_trajectory, trajectory_steps, ArgsMode, ArgsRules, ChatMessage, TrajectoryMode,
};
use serde_json::Value;
use std::path::PathBuf;

fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/trajectory")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn lines(name: &str) -> Vec<Value> {
    data(name)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn messages(v: &Value) -> Vec<ChatMessage> {
    serde_json::from_value(v.clone()).expect("OpenAI chat messages")
}

#[test]
fn every_verdict_equals_agentevals() {
    let cases = lines("cases.jsonl");
    let verdicts = lines("verdicts.jsonl");
    let overrides: Vec<Value> = serde_json::from_str(&data("overrides.json")).expect("overrides");
    assert_eq!(cases.len(), verdicts.len());
    let (mut checked, mut raised, mut matched) = (0, 0, 0);
    let mut mismatches = Vec::new();
    for (c, v) in cases.iter().zip(&verdicts) {
        assert_eq!(c["id"], v["id"]);
        let outputs = messages(&c["outputs"]);
        let reference = messages(&c["reference"]);
        let (o, r) = (trajectory_steps(&outputs), trajectory_steps(&reference));
        for (setting, theirs) in v["scores"].as_object().expect("scores") {
            let mut parts = setting.split(' ');
            let (Some(mode), Some(args), Some(n)) = (parts.next(), parts.next(), parts.next())
            else {
                panic!("setting {setting}")
            };
            let mode = TrajectoryMode::from_name(mode).expect("mode");
            let args: ArgsMode = serde_json::from_value(Value::String(args.into())).expect("args");
            let n: usize = n.parse().expect("override index");
            let rules = ArgsRules::read(args, &overrides[n]).expect("rules");
            let ours = match_trajectory(&o, &r, mode, &rules);
            let expected = match theirs {
                Value::Bool(b) => *b,
                // agentevals raised (arguments that are not JSON): a failure here
                Value::String(_) => {
                    raised += 1;
                    assert!(
                        ours.problems.iter().any(|p| p.contains("not JSON")),
                        "{} {setting}: {:?}",
                        c["id"],
                        ours.problems
                    );
                    false
                }
                other => panic!("verdict {other}"),
            };
            checked += 1;
            matched += usize::from(expected);
            if ours.matched != expected {
                mismatches.push(format!(
                    "{} {setting} ({}): agentevals {expected}, evalpage {:?}",
                    c["id"], c["changes"], ours
                ));
            } else if !ours.matched && ours.problems.is_empty() {
                mismatches.push(format!("{} {setting}: a failure without a reason", c["id"]));
            }
        }
    }
    assert!(checked >= 6000, "{checked} verdicts");
    assert!(
        raised > 0 && matched > 1000 && checked - matched > 1000,
        "{raised} raised, {matched} matched of {checked}"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {checked} differ:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
