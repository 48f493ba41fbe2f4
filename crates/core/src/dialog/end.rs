//! The end of a dialog run: its five files (manifest, traces, turn
//! evaluations, `metrics_summary.json`, progress) and one `[EVAL]` line per
//! metric.

use super::artifacts::render;
use super::kind::DialogKind;
use super::summary::MetricsSummary;
use crate::lang::Words;
use crate::report::{Prices, ReportNames, RunMeta, TASK_NAMES};
use crate::run::{Ended, Finish, KindDecl, Pipeline};

/// What this kind states about itself (found by `RunKind::decl`).
pub(crate) const KIND: KindDecl = KindDecl {
    title: Words {
        zh: "多轮对话",
        en: "Dialogs",
    },
    unfinished: Words {
        zh: "发现未完成的对话运行",
        en: "Unfinished dialog run",
    },
    settled: Words {
        zh: "个对话已完成。",
        en: "dialogs settled.",
    },
    names: ReportNames {
        // Spec 001's summary; the event logs are named as a task run's.
        report: "metrics_summary.json",
        ..TASK_NAMES
    },
    evaluation_report: false,
};

impl Finish for DialogKind {
    const NAMES: ReportNames = KIND.names;
    /// Everything is in the engine.
    type Inputs = ();

    /// The dialog files carry no cost: `prices` are not used.
    fn files(
        engine: &Pipeline<DialogKind>,
        _: (),
        meta: &RunMeta,
        _prices: &Prices,
    ) -> Result<Ended, String> {
        let artifacts = engine.kind().artifacts(meta.ended_at_ms);
        let files =
            render(&artifacts).map_err(|e| format!("could not render the dialog files: {e}"))?;
        Ok(Ended {
            files,
            report: None,
            lines: metric_lines(&artifacts.summary),
            not_run: artifacts.summary.counters.failed_dialogs,
        })
    }
}

/// `[EVAL] NAME: value (status; eligible n, skipped n, failed n[, not run n][, unscored n][, no recall n])` per metric
/// (`no recall`: M1's eligible turns whose endpoint returned no recall).
pub fn metric_lines(summary: &MetricsSummary) -> Vec<String> {
    summary
        .metrics
        .iter()
        .map(|(name, m)| {
            let value = m.value.map_or("-".to_string(), |v| format!("{v:.3}"));
            let mut not_scored = String::new();
            if m.not_run_count > 0 {
                not_scored += &format!(", not run {}", m.not_run_count);
            }
            if m.unscored_count > 0 {
                not_scored += &format!(", unscored {}", m.unscored_count);
            }
            let no_recall = m
                .details
                .get("turns_without_recall")
                .and_then(|v| v.as_u64());
            if let Some(n) = no_recall.filter(|n| *n > 0) {
                not_scored += &format!(", no recall {n}");
            }
            format!(
                "[EVAL] {name}: {value} ({}; eligible {}, skipped {}, failed {}{not_scored})",
                m.status, m.eligible_count, m.skipped_count, m.failed_count
            )
        })
        .collect()
}
