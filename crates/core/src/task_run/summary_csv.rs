//! `summary.csv`: one row per model, written with the `csv` crate.
//!
//! Columns: `model`, `samples` (dataset samples; unanswered ones included),
//! then for each task metric in task order `tm_<metric>` (the mean of the
//! per-sample values over the samples the metric scored) followed by
//! `tm_<metric>_<component>` for each aggregate component in name order
//! (`numeric_error`: `hit_rate`, `mae`; `list_overlap`: `f1`, `precision`,
//! `recall`, `micro_f1`, ...). A component one model lacks (e.g. no numeric
//! prediction at all, so no `mae`) is an empty cell. Numbers are written in
//! Rust's shortest round-trip form (`0.6`, `0.3333333333333333`). The last
//! columns name the task and the prompt template with their versions (`task`,
//! `task_version`, `prompt`, `prompt_version`), so rows of several runs can be
//! compared after a prompt change.

use super::report::TaskInfo;
use super::score::ModelRun;
use crate::task::Task;
use std::collections::BTreeSet;
use thiserror::Error;

/// The CSV could not be produced.
#[derive(Debug, Error)]
#[error("cannot write summary.csv: {0}")]
pub struct CsvError(#[from] csv::Error);

/// One `tm_` column: a metric, and a component of it or its mean.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Column {
    metric: String,
    component: Option<String>,
}

impl Column {
    fn header(&self) -> String {
        match &self.component {
            Some(c) => format!("tm_{}_{c}", self.metric),
            None => format!("tm_{}", self.metric),
        }
    }

    fn cell(&self, run: &ModelRun) -> String {
        let Some((_, agg)) = run.aggregates.iter().find(|(m, _)| *m == self.metric) else {
            return String::new();
        };
        let value = match &self.component {
            None if agg.sample_count == 0 => None,
            None => Some(agg.mean),
            Some(c) => agg.components.get(c).copied(),
        };
        value.map(|v| v.to_string()).unwrap_or_default()
    }
}

fn columns(task: &Task, runs: &[ModelRun]) -> Vec<Column> {
    let mut out = Vec::new();
    for m in &task.metrics {
        out.push(Column {
            metric: m.name.clone(),
            component: None,
        });
        let components: BTreeSet<&String> = runs
            .iter()
            .flat_map(|r| r.aggregates.iter())
            .filter(|(name, _)| *name == m.name)
            .flat_map(|(_, agg)| agg.components.keys())
            .collect();
        out.extend(components.into_iter().map(|c| Column {
            metric: m.name.clone(),
            component: Some(c.clone()),
        }));
    }
    out
}

/// Renders `summary.csv` (see the module doc for the columns).
pub fn render(
    task: &Task,
    info: &TaskInfo,
    samples: usize,
    runs: &[ModelRun],
) -> Result<String, CsvError> {
    let cols = columns(task, runs);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["model".to_string(), "samples".to_string()];
    header.extend(cols.iter().map(Column::header));
    header.extend(["task", "task_version", "prompt", "prompt_version"].map(String::from));
    w.write_record(&header)?;
    for run in runs {
        let mut row = vec![run.model.clone(), samples.to_string()];
        row.extend(cols.iter().map(|c| c.cell(run)));
        row.extend([
            info.name.clone(),
            info.version.clone(),
            info.prompt_name.clone(),
            info.prompt_version.clone(),
        ]);
        w.write_record(&row)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::super::testing::fixture;
    use super::*;

    #[test]
    fn one_row_per_model_with_tm_columns_and_components() {
        let f = fixture();
        let text = render(&f.task, &f.info, f.data.samples.len(), &f.scored.models).expect("csv");
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some(
                "model,samples,tm_sentiment_acc,tm_impact,tm_impact_hit_rate,tm_impact_mae,\
tm_keyword,tm_keyword_f1,tm_keyword_micro_f1,tm_keyword_micro_precision,\
tm_keyword_micro_recall,tm_keyword_precision,tm_keyword_recall,task,task_version,prompt,prompt_version"
            )
        );
        // m1: S1 all right (keywords {ai} vs {ai, chips}: p 1, r 0.5, f1 2/3);
        // S2 not JSON: neutral vs negative, 0 vs -3, [] vs [loss].
        assert_eq!(
            lines.next(),
            Some("m1,2,0.5,0.5,0.5,1.5,0.3333333333333333,0.3333333333333333,0.5,1,0.3333333333333333,0.5,0.25,event_eval,v1,ie_json,v1")
        );
        // m2: S1 neutral/1/{ai, chips}; S2 unanswered: defaults.
        assert_eq!(
            lines.next(),
            Some("m2,2,0,0.5,0.5,2,0.5,0.5,0.8,1,0.6666666666666666,0.5,0.5,event_eval,v1,ie_json,v1")
        );
        assert_eq!(lines.next(), None);
    }
}
