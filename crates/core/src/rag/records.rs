//! The RAG check's records of the event log: its `meta`, `case` and `summary`.

use super::result::{CaseResult, RunConfig};
use crate::dataset::rag::RagCase;
use crate::events::record::SNIPPET_CHARS;
use crate::events::{CaseRecord, MetaRecord, Record, SummaryRecord};
use crate::report::ErrorDetail;
use crate::report::RunMetrics;
use crate::text::truncate_chars;

impl Record {
    /// The `meta` record for a run.
    pub fn meta(cfg: &RunConfig, cases_total: usize, ts_ms: u64) -> Record {
        let i = &cfg.info;
        Record::Meta(MetaRecord {
            model: Some(i.model.clone()),
            endpoint: i.endpoint.clone(),
            scoring: Some(cfg.scoring),
            lang: Some(i.lang.code().to_string()),
            ..MetaRecord::of(
                Some(crate::RunKind::Rag),
                &cfg.run,
                &i.dataset_name,
                &i.backend,
                cases_total,
                ts_ms,
            )
        })
    }

    /// The `case` record for a finished case of the RAG check; the prompt
    /// gave the model `context_chars` characters of context.
    pub fn case(
        run_id: &str,
        case: &RagCase,
        r: &CaseResult,
        context_chars: usize,
        ts_ms: u64,
    ) -> Record {
        let list = |f: fn(&CaseResult) -> Option<Vec<String>>| Some(f(r).unwrap_or_default());
        Record::Case(CaseRecord {
            run_id: run_id.to_string(),
            ts_ms,
            case_id: r.case_id.clone(),
            case_index: r.index,
            model: None,
            line: case.line,
            passed: r.passed(),
            llm_call_ok: r.call_ok(),
            accuracy: Some(r.accurate()),
            citation: Some(r.cited()),
            missing: if r.call_ok() {
                list(|r| r.accuracy.as_ref().map(|a| a.missing()))
            } else {
                Some(case.gold.clone())
            },
            matched: list(|r| r.accuracy.as_ref().map(|a| a.matched())),
            cited_docs: list(|r| r.citation.as_ref().map(|c| c.cited.clone())),
            wrong_docs: list(|r| r.citation.as_ref().map(|c| c.wrong.clone())),
            context_chars: Some(context_chars),
            parse_problems: None,
            metrics: None,
            elapsed_ms: r.elapsed_ms,
            attempts: r.attempts,
            answer_snippet: r
                .answer
                .as_deref()
                .map(|a| truncate_chars(a, SNIPPET_CHARS)),
            answer: r.answer.clone(),
            error: r.error.as_ref().map(|e| e.message.clone()),
            error_detail: r.error.as_ref().map(ErrorDetail::from),
            reasoning: r.reasoning.clone(),
            finish_reason: r.finish_reason.clone(),
            usage: r.usage.clone(),
            cached: r.cached.clone(),
            truncated: r.truncated(),
            ..CaseRecord::default()
        })
    }

    /// The `summary` record of a run with these results.
    pub fn summary_of(
        cfg: &RunConfig,
        results: &[Option<CaseResult>],
        cancelled: bool,
        ts_ms: u64,
    ) -> Record {
        let metrics = (&RunMetrics::from_results(results)).into();
        Record::Summary(SummaryRecord::of(&cfg.run, metrics, cancelled, ts_ms))
    }
}
