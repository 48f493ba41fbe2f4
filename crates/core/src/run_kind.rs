//! Which kind of evaluation a run is, and the one reader of "which kind wrote
//! this file".
//!
//! Every kind writes its tag where a reader looks first: the report's
//! `experiment.run_config.kind`, the event log's `meta.kind`, and a dialog
//! run's `run_manifest.json` `kind`. [`RunKind::read`] reads it from any of
//! those objects; for a file written before the tag it falls back on the
//! keys each kind has always written (a task's `task`, a retrieval run's `k`,
//! the RAG check's `keypoint_match` or `scoring`, a dialog run's metric
//! names), so old files still open as what they are.
//!
//! Each kind also owns the shape of its run ids ([`RunKind::run_id`]): the
//! shells hand in only the start time and some entropy.
//!
//! What else a kind states about itself (its names, its files) is its
//! declaration in its own room, found by `RunKind::decl` (`kinds.rs`, above
//! the kinds: this file is below them and knows none).

use crate::timefmt::utc_stamp;
use serde_json::Value;

/// Declares [`RunKind`] from one list of kinds, each with its tag: the
/// enum, [`RunKind::ALL`] (in the list's order) and [`RunKind::tag`]. A new
/// kind is one line here and its `KindDecl` in its room.
macro_rules! run_kinds {
    ($($(#[$doc:meta])* $kind:ident = $tag:literal,)+) => {
        /// A kind of evaluation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RunKind {
            $($(#[$doc])* $kind,)+
        }

        impl RunKind {
            /// Every kind, in the order the page lists its modes.
            pub const ALL: [RunKind; [$($tag),+].len()] = [$(RunKind::$kind),+];

            /// The tag written into files and the page's `?mode=`: `rag`,
            /// `task`, `retrieval`, `dialog`.
            pub fn tag(self) -> &'static str {
                match self {
                    $(RunKind::$kind => $tag,)+
                }
            }
        }
    };
}

run_kinds! {
    /// The RAG accuracy/citation check (spec 002).
    Rag = "rag",
    /// A prompt-driven task (spec 004).
    Task = "task",
    /// Ranked source lists of a retrieval system (spec 000).
    Retrieval = "retrieval",
    /// Multi-turn dialogs (spec 001).
    Dialog = "dialog",
}

/// The metric names of a dialog run's summary (spec 001's M1-M5), by which a
/// dialog log without a tag is known.
const DIALOG_METRICS: [&str; 4] = [
    "m1_memory_recall",
    "m2_constraint_contradiction",
    "m3_risk_disclosure",
    "m4_compliance",
];

impl RunKind {
    /// The kind a tag names.
    pub fn parse(tag: &str) -> Option<RunKind> {
        RunKind::ALL.into_iter().find(|k| k.tag() == tag)
    }

    /// A new run's id, `eval_<tag>-<UTC stamp>-<6 hex digits>` (e.g.
    /// `eval_task-20261125T221500Z-1a2b3c`): the start second, and the low
    /// 24 bits of `entropy` so that two runs started in the same second differ.
    pub fn run_id(self, started_at_ms: u64, entropy: u32) -> String {
        format!(
            "eval_{}-{}-{:06x}",
            self.tag(),
            utc_stamp(started_at_ms / 1000),
            entropy & 0xFF_FFFF
        )
    }

    /// The run id of files scored without a run of the engine (`evalpage
    /// score`, the page's scoring of a dialog trace) whose input names none:
    /// `scored-<start, ms since the epoch>`.
    pub fn scored_run_id(started_at_ms: u64) -> String {
        format!("scored-{started_at_ms}")
    }

    /// The kind that wrote a file, from the objects that describe it (a
    /// report's `run_config` and `evaluator_config`; a log's `meta` record;
    /// a dialog run's manifest) and, for a log, the metric names its records
    /// carry: the first `kind` tag, else the keys of a file written before
    /// the tag (see the module doc); `None` for another producer's file.
    pub fn read(described_by: &[&Value], metrics: &[String]) -> Option<RunKind> {
        let tagged = described_by
            .iter()
            .filter_map(|v| v.get("kind").and_then(Value::as_str))
            .find_map(RunKind::parse);
        if tagged.is_some() {
            return tagged;
        }
        let has = |k: &str| {
            described_by
                .iter()
                .any(|v| v.get(k).is_some_and(|x| !x.is_null()))
        };
        let rag_metric = described_by.iter().any(|v| {
            v.get("metrics")
                .and_then(Value::as_array)
                .is_some_and(|ms| ms.iter().any(|m| m["type"] == "rag_accuracy"))
        });
        if has("task") {
            Some(RunKind::Task)
        } else if has("k") {
            Some(RunKind::Retrieval)
        } else if has("keypoint_match") || has("scoring") || rag_metric {
            Some(RunKind::Rag)
        } else if has("trace_version")
            || metrics.iter().any(|m| DIALOG_METRICS.contains(&m.as_str()))
        {
            Some(RunKind::Dialog)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tags_round_trip_and_run_ids_have_one_shape() {
        for k in RunKind::ALL {
            assert_eq!(RunKind::parse(k.tag()), Some(k));
        }
        assert_eq!(RunKind::parse("other"), None);
        assert_eq!(
            RunKind::Task.run_id(1_795_644_900_123, 0x1a2b3c),
            "eval_task-20261125T221500Z-1a2b3c"
        );
        assert_eq!(
            RunKind::Dialog.run_id(0, 0xFFFF_FFFF),
            "eval_dialog-19700101T000000Z-ffffff"
        );
    }

    #[test]
    fn the_tag_wins_and_files_without_one_are_known_by_their_keys() {
        let tagged = json!({"kind": "retrieval", "task": {"name": "x"}});
        assert_eq!(RunKind::read(&[&tagged], &[]), Some(RunKind::Retrieval));
        let old_task = (json!({"mode": "run"}), json!({"task": {"name": "t"}}));
        assert_eq!(
            RunKind::read(&[&old_task.0, &old_task.1], &[]),
            Some(RunKind::Task)
        );
        assert_eq!(
            RunKind::read(&[&json!({"k": 5})], &[]),
            Some(RunKind::Retrieval)
        );
        let old_rag = json!({"metrics": [{"type": "rag_accuracy", "name": "accuracy"}]});
        assert_eq!(
            RunKind::read(&[&json!({}), &old_rag], &[]),
            Some(RunKind::Rag)
        );
        assert_eq!(
            RunKind::read(&[&json!({"scoring": {}})], &[]),
            Some(RunKind::Rag)
        );
        let m1 = vec!["m1_memory_recall".to_string()];
        assert_eq!(RunKind::read(&[&json!({})], &m1), Some(RunKind::Dialog));
        assert_eq!(
            RunKind::read(&[&json!({"trace_version": "v1"})], &[]),
            Some(RunKind::Dialog)
        );
        assert_eq!(RunKind::read(&[&json!({"kind": "mystery"})], &[]), None);
        assert_eq!(RunKind::read(&[&Value::Null], &[]), None);
    }
}
