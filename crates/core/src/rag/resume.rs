//! Resuming a RAG check from its event log.

use crate::dataset::rag::RagCase;
use crate::events::resume::prior_calls;
use crate::events::{ReadLog, Resumable};
use std::collections::HashMap;

/// The RAG check's view of a log: the calls it settled for these cases
/// (scored again by the new run, with its current scoring settings, so the
/// resumed report equals an uninterrupted one).
pub fn resumable(log: &ReadLog, cases: &[RagCase]) -> Resumable {
    let index: HashMap<&str, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let prior = prior_calls(log, |_, id, _| index.get(id).copied(), |_| false);
    Resumable {
        run_id: prior.run_id,
        dataset: prior.dataset,
        calls: prior.calls,
        unknown_ids: prior.unknown,
        rerun_ids: prior.rerun,
    }
}
