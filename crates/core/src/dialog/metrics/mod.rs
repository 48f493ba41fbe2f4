//! Spec 001's dialog metrics, one unit per file as the task metrics are:
//! M1 memory recall (`m1_memory`), M2 constraint contradiction
//! (`m2_constraint`), M3 risk disclosure by the lexicon and by the judge
//! (`m3_risk`), M4 compliance from the trace and by the judge
//! (`m4_compliance`), M5 explainability (`m5_explain`). Each file declares
//! its [`TurnMetric`]: the registry line it describes itself with
//! (`metric::dialog`: name and one-line description), its formula in the
//! doc comment, its §7 eligibility, how it scores one turn (its fields of
//! the `turn_eval.jsonl` row, its `eligible_*` and `*_status`, its skip
//! reason), its aggregate for `metrics_summary.json` (value, details, the
//! `not_run` reason), and its tests at the bottom.
//!
//! [`REGISTRY`] lists them once, in summary order, and [`SCORERS`] their
//! scorers in the same order; `score::score_turn` runs the scorers and
//! `summary::summarize_judged` the aggregates. Adding a dialog metric is one
//! file here, one line in [`REGISTRY`] and one in [`SCORERS`], its registry line in `metric/dialog.rs`
//! (which `metric::REGISTRY` lists for the page and the docs) and its fields
//! in `TurnEval`.
//!
//! The units live beside the dialog kind rather than in `metric/`: they
//! read the dialog's dataset, trace and row types, and `metric/` is below
//! `dialog/` (the dialog kind imports it, not the other way round), as its
//! descriptive `REGISTRY` must stay, so the page's metric panels list every
//! metric without linking any kind's scoring.

pub(crate) mod m1_memory;
pub(crate) mod m2_constraint;
mod m3_risk;
mod m4_compliance;
mod m5_explain;
mod unit;

pub use unit::{Aggregate, Scorer, TurnInput, TurnMetric};

/// Every dialog metric, in summary order (their `metric::dialog` lines'
/// order): the one list the scoring of a turn and the summary iterate.
pub const REGISTRY: &[TurnMetric] = &[
    m1_memory::M1,
    m2_constraint::M2,
    m3_risk::M3,
    m3_risk::M3_JUDGE,
    m4_compliance::M4,
    m4_compliance::M4_JUDGE,
    m5_explain::M5,
];

/// How each metric of [`REGISTRY`] scores one turn, in the same order (a
/// length that differs does not compile): apart from the registry so that
/// the summary of saved rows, which the viewer's bundle reads, links none
/// of the scoring.
pub const SCORERS: [Scorer; REGISTRY.len()] = [
    m1_memory::score,
    m2_constraint::score,
    m3_risk::score,
    m3_risk::score_judge,
    m4_compliance::score,
    m4_compliance::score_judge,
    m5_explain::score,
];

/// The metric names, in [`REGISTRY`] order.
pub const NAMES: [&str; REGISTRY.len()] = {
    let mut names = [""; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        names[i] = REGISTRY[i].ty.name;
        i += 1;
    }
    names
};

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::dialog::turn_eval::{JudgedPart, TurnJudgement};
    use crate::metric::{dialog as lines, of_kind};
    use crate::RunKind;
    use std::collections::BTreeMap;

    #[test]
    fn the_registry_lists_m1_to_m5_and_the_judge_variants_in_summary_order() {
        let names: Vec<&str> = REGISTRY.iter().map(|m| m.ty.name).collect();
        assert_eq!(
            names,
            [
                lines::M1_MEMORY_RECALL.name,
                lines::M2_CONSTRAINT_CONTRADICTION.name,
                lines::M3_RISK_DISCLOSURE.name,
                lines::M3_RISK_DISCLOSURE_JUDGE.name,
                lines::M4_COMPLIANCE.name,
                lines::M4_COMPLIANCE_JUDGE.name,
                lines::M5_EXPLAINABILITY.name,
            ]
        );
        assert_eq!(NAMES.to_vec(), names);
        assert_eq!(crate::dialog::summary::METRICS.to_vec(), names);
        let registered: Vec<&str> = of_kind(RunKind::Dialog).map(|t| t.name).collect();
        assert_eq!(registered, names, "metric::REGISTRY's dialog lines");
        let keys: Vec<&str> = REGISTRY.iter().map(|m| m.key).collect();
        assert_eq!(keys, ["m1", "m2", "m3", "m3_judge", "m4", "m4_judge", "m5"]);
    }

    #[test]
    fn each_unit_reads_back_the_eligible_and_status_fields_its_key_names() {
        let d = dialog();
        let mut t1 = turn(&d, 1, "y", TurnStatus::Ok);
        t1.compliance = serde_json::from_value(serde_json::json!({"is_compliant": true})).ok();
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "市场不确定", TurnStatus::Ok),
                t1,
                turn(&d, 2, "", TurnStatus::Timeout),
            ],
        );
        let part = |v: Option<Vec<String>>| JudgedPart {
            value: v,
            raw: "x".into(),
            error: None,
        };
        let mut j = BTreeMap::new();
        j.insert(
            1,
            TurnJudgement {
                risk_tags: Some(part(None)),
                rubric_hit_items: Some(part(Some(vec!["信息依据".into()]))),
                ..TurnJudgement::default()
            },
        );
        let rows = score_dialog(&d, &tr, Some(&j), CONVERSATION);
        assert_eq!(rows.len(), 3);
        for row in &rows {
            let json = serde_json::to_value(row).expect("a row");
            for m in REGISTRY {
                let (eligible, status) = (m.run)(row);
                assert_eq!(json[format!("eligible_{}", m.key)], eligible, "{}", m.key);
                assert_eq!(
                    json[format!("{}_status", m.key)],
                    status.as_str(),
                    "{}",
                    m.key
                );
                let reason = row.skip_reasons.get(m.key);
                assert_eq!(
                    reason.is_none(),
                    status == MetricRun::Scored,
                    "{} {reason:?}",
                    m.key
                );
            }
        }
        let statuses: Vec<Vec<&str>> = rows
            .iter()
            .map(|r| REGISTRY.iter().map(|m| (m.run)(r).1.as_str()).collect())
            .collect();
        assert_eq!(
            statuses[0],
            ["scored", "scored", "scored", "unscored", "not_run", "not_run", "scored"]
        );
        assert_eq!(
            statuses[1],
            [
                "unscored",
                "scored",
                "not_eligible",
                "not_eligible",
                "scored",
                "not_run",
                "not_eligible"
            ]
        );
        assert!(statuses[2].iter().all(|s| *s == "not_eligible"));
    }

    /// Each unit's file, as compiled.
    const UNIT_FILES: [(&str, &str); 5] = [
        ("m1_memory.rs", include_str!("m1_memory.rs")),
        ("m2_constraint.rs", include_str!("m2_constraint.rs")),
        ("m3_risk.rs", include_str!("m3_risk.rs")),
        ("m4_compliance.rs", include_str!("m4_compliance.rs")),
        ("m5_explain.rs", include_str!("m5_explain.rs")),
    ];

    #[test]
    fn each_unit_file_has_its_formula_and_its_tests_at_the_bottom() {
        for (file, text) in UNIT_FILES {
            assert!(text.starts_with("//! "), "{file}: its doc comment first");
            assert!(text.contains("//! Formula: "), "{file}: its formula");
            let at = text
                .find("\n#[cfg(test)]\nmod tests {\n")
                .unwrap_or_else(|| panic!("{file}: a `mod tests`"));
            let rest = &text[at..];
            assert_eq!(rest.matches("#[cfg(test)]").count(), 1, "{file}");
            assert!(rest.contains("#[test]"), "{file}: a test");
            let lines: Vec<&str> = rest.lines().skip(3).collect();
            let (last, body) = lines.split_last().expect("a body");
            assert_eq!(*last, "}", "{file}: nothing after the tests");
            assert!(
                body.iter().all(|l| l.is_empty() || l.starts_with(' ')),
                "{file}: nothing after the tests"
            );
        }
        let units: usize = UNIT_FILES
            .iter()
            .map(|(_, text)| text.matches(": TurnMetric = TurnMetric {").count())
            .sum();
        assert_eq!(units, REGISTRY.len(), "every unit is registered");
    }
}
