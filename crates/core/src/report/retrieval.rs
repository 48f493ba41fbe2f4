//! The report, event log and files of a retrieval evaluation (spec 000's
//! retrieval side), through the one report builder and the one renderer of
//! every run's files. Buckets are the cases' tags, so the breakdown by tag is
//! the breakdown by bucket.

use super::outputs::{Outputs, RunMeta};
use super::run_record::RunRecord;
use super::*;
use crate::dataset::fingerprint::fingerprint;
use crate::dataset::metadata::{report_metadata, DatasetMetadata as MetadataFile};
use crate::events::{CaseRecord, MetaRecord, Record, SummaryRecord, SCHEMA_VERSION};
use crate::retrieval::{Evaluated, METRICS};
use crate::timefmt::rfc3339_ms;
use crate::Lang;
use serde_json::json;

/// Where the evaluation's inputs came from.
#[derive(Clone, Copy, Debug)]
pub struct RetrievalInputs<'a> {
    /// The cases file as given.
    pub cases_file: &'a str,
    /// Its bytes (for the fingerprint).
    pub cases_bytes: &'a [u8],
    /// Its skipped lines.
    pub line_errors: &'a [crate::dataset::LineError],
    /// The ranked lists file as given.
    pub lists_file: &'a str,
    /// `metadata.json` of the dataset, if given.
    pub metadata: Option<&'a MetadataFile>,
    /// Run id of the event log.
    pub run_id: &'a str,
    /// Tool, argv, times.
    pub meta: &'a RunMeta,
    /// Language of `report.md`.
    pub lang: Lang,
}

/// The final report.
pub fn retrieval_report(e: &Evaluated, i: &RetrievalInputs<'_>) -> EvaluationResult {
    let tallies = e
        .rows
        .iter()
        .map(|(c, _, _)| (None, std::slice::from_ref(&c.bucket)));
    let dataset = report_metadata(i.metadata, i.cases_file, tallies, i.line_errors.len());
    let scores: Vec<EvalScore> = e
        .rows
        .iter()
        .flat_map(|(c, s, listed)| {
            let detail = json!({
                "query": c.query, "expected_sources": c.expected_sources, "topk": s.topk,
                "found": s.found, "first_hit_rank": s.first_hit_rank, "k": e.k, "listed": listed,
            });
            METRICS.iter().zip(s.values()).map(move |(m, v)| EvalScore {
                sample_id: c.case_id.clone(),
                metric: m.to_string(),
                value: v,
                tags: vec![c.bucket.clone()],
                language: None,
                length_bucket: Some(length_bucket(&c.query).to_string()),
                detail: detail.clone(),
            })
        })
        .collect();
    let errors = e
        .rows
        .iter()
        .filter(|(_, _, listed)| !listed)
        .map(|(c, _, _)| ErrorCase {
            model: None,
            sample_id: c.case_id.clone(),
            status: "no_response".into(),
            trace_id: format!("{}/{}", i.run_id, c.case_id),
            message: Some(format!("no ranked list for this case in {}", i.lists_file)),
            latency_ms: None,
            backend: Some("responses".into()),
            status_code: None,
            attempts: 0,
        })
        .collect();
    let experiment = ExperimentMetadata {
        dataset,
        run_config: json!({"mode": "score", "kind": "retrieval", "run_id": i.run_id, "responses": i.lists_file, "k": e.k}),
        evaluator_config: json!({
            "metrics": METRICS.iter().map(|m| json!({"type": m, "name": m})).collect::<Vec<_>>(),
            "k": e.k,
            "ranking": "the list's own order; a repeated source counts once, at its first rank",
            "source_match": "file name, without folders, case-insensitive",
            "breakdown": {"dimensions": ["tag (bucket)", "length"]},
        }),
        run: None,
    };
    let names: Vec<&str> = METRICS.to_vec();
    let mut line_errors: Vec<_> = i.line_errors.to_vec();
    line_errors.extend(e.unknown.iter().cloned());
    assemble(ReportParts {
        metrics: e.counts(),
        cases: Vec::new(),
        models: vec![ModelRows {
            model: None,
            summaries: summaries(&scores, &names),
            scores,
            errors,
            usage: None,
        }],
        metric_names: METRICS.iter().map(|m| m.to_string()).collect(),
        experiment,
        line_errors: Some(line_errors),
        llm_judge_details: Vec::new(),
    })
}

/// The event log (spec 000's retrieval fields): `meta` with `k`, one `case`
/// per case, `summary` with `hit_cases` and `hit_rate`.
pub fn retrieval_records(e: &Evaluated, i: &RetrievalInputs<'_>) -> Vec<Record> {
    let ts = i.meta.ended_at_ms;
    let mut out = vec![Record::Meta(MetaRecord {
        run_id: i.run_id.to_string(),
        ts_ms: i.meta.started_at_ms,
        tool: i.meta.tool.clone(),
        schema_version: SCHEMA_VERSION,
        dataset: i.cases_file.to_string(),
        cases_total: e.rows.len(),
        backend: "responses".into(),
        argv: i.meta.argv.clone(),
        k: Some(e.k),
        ..MetaRecord::default()
    })];
    for (n, (c, s, listed)) in e.rows.iter().enumerate() {
        let metrics = METRICS
            .iter()
            .zip(s.values())
            .map(|(m, v)| (m.to_string(), Some(v)))
            .collect();
        out.push(Record::Case(CaseRecord {
            run_id: i.run_id.to_string(),
            ts_ms: ts,
            case_id: c.case_id.clone(),
            case_index: n,
            line: c.line,
            passed: s.hit_at_k,
            llm_call_ok: *listed,
            metrics: Some(metrics),
            bucket: Some(c.bucket.clone()),
            query: Some(c.query.clone()),
            expected_sources: Some(c.expected_sources.clone()),
            hit_at_k: Some(s.hit_at_k),
            topk: Some(s.topk.clone()),
            error: (!listed).then(|| format!("no ranked list in {}", i.lists_file)),
            ..CaseRecord::default()
        }));
    }
    out.push(Record::Summary(SummaryRecord {
        run_id: i.run_id.to_string(),
        ts_ms: ts,
        status: "done".into(),
        metrics: e.counts().into(),
        elapsed_ms_total: ts.saturating_sub(i.meta.started_at_ms),
        final_report_path: None,
    }));
    out
}

/// Every file of the evaluation (see `report::outputs`).
pub fn retrieval_outputs(e: &Evaluated, i: &RetrievalInputs<'_>) -> Outputs {
    let report = retrieval_report(e, i);
    let lines: Vec<usize> = e.rows.iter().map(|(c, _, _)| c.line).collect();
    let fp = fingerprint(i.cases_file, i.cases_bytes, &lines, i.line_errors.len());
    let results: String = e
        .rows
        .iter()
        .map(|(c, s, listed)| {
            let record = RunRecord {
                sample_id: c.case_id.clone(),
                dataset_id: Some(report.report.experiment.dataset.dataset_id.clone()),
                backend: "responses".into(),
                run_config: json!({"k": e.k, "responses": i.lists_file}),
                response_text: None,
                status: if *listed { "ok" } else { "no_response" }.into(),
                latency_ms: None,
                trace_id: format!("{}/{}", i.run_id, c.case_id),
                attempts: 0,
                error: None,
                raw: json!({"topk": s.topk}),
            };
            let mut v = serde_json::to_value(&record).unwrap_or_default();
            if let serde_json::Value::Object(m) = &mut v {
                m.insert("bucket".into(), json!(c.bucket));
                m.insert("query".into(), json!(c.query));
                m.insert("expected_sources".into(), json!(c.expected_sources));
                for (name, value) in METRICS.iter().zip(s.values()) {
                    m.insert(name.to_string(), json!(value));
                }
                m.insert("first_hit_rank".into(), json!(s.first_hit_rank));
            }
            v.to_string() + "\n"
        })
        .collect();
    let t = |zh: &'static str, en: &'static str| i.lang.pick(zh, en);
    let counts = e.counts();
    let parts = MarkdownParts {
        experiment: vec![
            format!(
                "{}: {} ({} {})",
                t("数据集", "Dataset"),
                i.cases_file,
                e.rows.len(),
                t("条用例", "cases")
            ),
            format!("{}: {}", t("排序列表", "Ranked lists"), i.lists_file),
            format!("k: {}", e.k),
            format!(
                "hit_rate: {:.3} ({}/{})",
                counts.hit_rate.unwrap_or(0.0),
                e.hit_cases(),
                e.rows.len()
            ),
        ],
        after_overall: None,
        sections: Vec::new(),
        notes: Vec::new(),
    };
    let markdown = render_md(&report, &parts, i.lang);
    let m = i.meta;
    Outputs {
        markdown,
        results_jsonl: results,
        samples: e.rows.len(),
        default_model: "responses".into(),
        identity: vec![
            ("kind".into(), "retrieval".into()),
            ("k".into(), e.k.to_string()),
        ],
        run_meta: json!({
            "tool": m.tool, "version": m.version, "command": "score", "kind": "retrieval",
            "run_id": i.run_id, "k": e.k, "dataset": m.dataset, "responses": i.lists_file,
            "metadata": m.metadata, "argv": m.argv,
            "started_at": rfc3339_ms(m.started_at_ms), "ended_at": rfc3339_ms(m.ended_at_ms),
            "started_at_ms": m.started_at_ms, "ended_at_ms": m.ended_at_ms,
        }),
        fingerprint: serde_json::to_value(&fp).unwrap_or_default(),
        model_snapshot: json!({"kind": "retrieval", "models": [{
            "name": "responses", "source": "ranked lists file", "file": i.lists_file,
            "answered": e.rows.iter().filter(|(_, _, l)| *l).count(), "samples": e.rows.len(),
        }]}),
        report,
    }
}
