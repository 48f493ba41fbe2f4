//! The kinds' declarations, above the kinds: [`RunKind::decl`] is the one
//! match from a kind to what it states about itself in its own room
//! (`rag::KIND`, `task::KIND`, `retrieval::KIND`, `dialog::KIND`: a
//! [`KindDecl`]), and what is made of every kind's declaration (the report
//! and event log names readers look for) is made here, from `RunKind::ALL`.
//! `run_kind.rs`, below the kinds, holds the enum, its tags and the reader of
//! "which kind wrote this file".

use crate::report::{ReportNames, TASK_NAMES};
use crate::run::KindDecl;
use crate::RunKind;

impl RunKind {
    /// The kind's declaration, from its room: the one match from a kind to
    /// what it states about itself.
    pub fn decl(self) -> &'static KindDecl {
        match self {
            RunKind::Rag => &crate::rag::KIND,
            RunKind::Task => &crate::task::KIND,
            RunKind::Retrieval => &crate::retrieval::KIND,
            RunKind::Dialog => &crate::dialog::KIND,
        }
    }

    /// The kind's report and event log names.
    pub fn names(self) -> ReportNames {
        self.decl().names
    }

    /// Every name a saved `EvaluationResult` report has, for readers of a
    /// run's folder or zip, in the order they are looked for (each once):
    /// `report.json` (a task run's, and `evalpage score`'s) first, then each
    /// kind's.
    pub fn report_files() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = vec![TASK_NAMES.report];
        for k in RunKind::ALL {
            let d = k.decl();
            if d.evaluation_report && !names.contains(&d.names.report) {
                names.push(d.names.report);
            }
        }
        names
    }

    /// Every event log name of a run (JSONL, then json-seq, `report.json`'s
    /// first, then kind after kind), in the order readers look for them
    /// (each once).
    pub fn event_log_files() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = TASK_NAMES.events().to_vec();
        for k in RunKind::ALL {
            for n in k.decl().names.events() {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_declares_distinct_tags_and_report_files() {
        let tags: std::collections::HashSet<_> = RunKind::ALL.iter().map(|k| k.tag()).collect();
        assert_eq!(tags.len(), RunKind::ALL.len());
        assert_eq!(
            RunKind::report_files(),
            [
                "report.json",
                "eval_rag_report.json",
                "eval_retrieval_report.json"
            ]
        );
        assert_eq!(RunKind::event_log_files().len(), 6);
        assert!(RunKind::event_log_files().contains(&"report.events.json-seq"));
        for k in RunKind::ALL {
            let d = k.decl();
            assert!(!d.title.zh.is_empty() && !d.title.en.is_empty(), "{k:?}");
            assert!(
                !d.settled.en.is_empty() && !d.unfinished.en.is_empty(),
                "{k:?}"
            );
        }
    }
}
