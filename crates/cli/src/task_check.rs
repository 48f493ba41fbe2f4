//! `evalpage task check NAME|FILE.yaml`: validates a task and its prompt
//! template. Valid: one summary line on stdout, exit 0. Invalid: every located
//! error (`file:line: `key.path`: message`) on stderr, exit 2.

use crate::args::TaskCheckArgs;
use crate::error::CliError;
use crate::task_file::{self, LoadedTask};

/// Checks the task and prints the summary line.
pub fn check(args: &TaskCheckArgs) -> Result<(), CliError> {
    let loaded = task_file::load(&args.task)?;
    println!("{}", summary_line(&loaded));
    Ok(())
}

/// `ok: NAME VERSION, template T V (SOURCE; reads VARS), N fields, metrics: a (type), ...`.
fn summary_line(t: &LoadedTask) -> String {
    let metrics: Vec<String> = t
        .task
        .metrics
        .iter()
        .map(|m| format!("{} ({})", m.name, m.kind))
        .collect();
    let vars: Vec<String> = t.template.variables().into_iter().collect();
    let judged = evalpage_core::task::judged_metrics(&t.task);
    let judge_note = if judged.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = judged.iter().map(|(_, n, _)| *n).collect();
        format!(
            "; {} judged by a model: run with --judge NAME (a registry entry) or --judge mock",
            names.join(", ")
        )
    };
    format!(
        "ok: {} {}, template {} {} ({}; reads {}), {} fields, metrics: {}{judge_note}",
        t.info.name,
        t.info.version,
        t.info.prompt_name,
        t.info.prompt_version,
        t.info.prompt_source,
        vars.join(", "),
        t.task.schema.fields.len(),
        metrics.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_template_fields_and_metrics() {
        let t = task_file::load("event_eval").expect("preset");
        assert_eq!(
            summary_line(&t),
            "ok: event_eval v1, template ie_json v1 (builtin; reads news_items, ticker), 3 fields, metrics: sentiment_acc (exact_match), impact (numeric_error), keyword (list_overlap)"
        );
    }
}
