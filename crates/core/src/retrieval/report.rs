//! The report, event log and files of a retrieval evaluation (spec 000's
//! retrieval side), through the one report builder and the one renderer of
//! every run's files. Buckets are the cases' tags, so the breakdown by tag is
//! the breakdown by bucket.

use super::metrics::{Evaluated, Obtained, Row, METRICS};
use crate::dataset::fingerprint::fingerprint;
use crate::events::{CaseRecord, MetaRecord, Record, SummaryRecord};
use crate::lang::Words;
use crate::report::metadata::{report_metadata, DatasetMetadataFile as MetadataFile};
use crate::report::outputs::{Outputs, RunMeta};
use crate::report::*;
use crate::report::{Outcome, RunRecord};
use crate::run::KindDecl;
use crate::run::{RunIdentity, RunSettings};
use crate::timefmt::rfc3339_ms;
use crate::Lang;
use serde_json::json;

/// What this kind states about itself (found by `RunKind::decl`).
pub(crate) const KIND: KindDecl = KindDecl {
    title: Words {
        zh: "检索评测",
        en: "Retrieval",
    },
    unfinished: Words {
        zh: "发现未完成的检索评测",
        en: "Unfinished retrieval run",
    },
    settled: Words {
        zh: "条用例已完成。",
        en: "cases settled.",
    },
    names: ReportNames {
        report: "eval_retrieval_report.json",
        jsonl: "eval_retrieval_report.events.jsonl",
        json_seq: "eval_retrieval_report.events.json-seq",
    },
    evaluation_report: true,
};

/// Where the evaluation's inputs came from.
#[derive(Clone, Copy, Debug)]
pub struct RetrievalInputs<'a> {
    /// The cases file as given.
    pub cases_file: &'a str,
    /// Its bytes (for the fingerprint).
    pub cases_bytes: &'a [u8],
    /// Its skipped lines.
    pub line_errors: &'a [crate::dataset::LineError],
    /// Where the ranked lists came from.
    pub from: &'a ListsFrom,
    /// `metadata.json` of the dataset, if given.
    pub metadata: Option<&'a MetadataFile>,
    /// Run id of the event log.
    pub run_id: &'a str,
    /// Tool, argv, times.
    pub meta: &'a RunMeta,
    /// Language of `report.md`.
    pub lang: Lang,
}

/// Where a retrieval evaluation's ranked lists came from.
#[derive(Clone, Debug, PartialEq)]
pub enum ListsFrom {
    /// A ranked lists file, as given (`score --retrieval`).
    File(String),
    /// A retrieval endpoint (`run --retrieval`).
    Endpoint {
        /// URL without query string.
        url: String,
        /// `http`, or `mock` for the offline demo retriever.
        backend: String,
        /// The JSON request body template.
        body: String,
        /// The path of the ranked list in the answer.
        path: String,
    },
}

impl ListsFrom {
    /// The backend name in reports and logs (`responses` for a file).
    pub fn backend(&self) -> &str {
        match self {
            ListsFrom::File(_) => "responses",
            ListsFrom::Endpoint { backend, .. } => backend,
        }
    }

    /// The command that made the lists (`score` or `run`).
    pub fn command(&self) -> &'static str {
        match self {
            ListsFrom::File(_) => "score",
            ListsFrom::Endpoint { .. } => "run",
        }
    }

    /// A short name of the source: the file, or the endpoint's URL.
    pub fn name(&self) -> &str {
        match self {
            ListsFrom::File(f) => f,
            ListsFrom::Endpoint { url, .. } => url,
        }
    }

    /// The report's `run_config` facts about the source.
    fn config(&self) -> serde_json::Value {
        match self {
            ListsFrom::File(f) => json!({"responses": f}),
            ListsFrom::Endpoint {
                url,
                backend,
                body,
                path,
            } => {
                json!({"endpoint": url, "backend": backend, "body_template": body, "list_path": path})
            }
        }
    }

    /// Why a case has no list.
    fn missing(&self, row: &Row) -> String {
        match (self, row.error()) {
            (_, Some(e)) => e.message.clone(),
            (ListsFrom::File(f), None) => format!("no ranked list for this case in {f}"),
            (ListsFrom::Endpoint { url, .. }, None) => format!("no ranked list from {url}"),
        }
    }
}

fn attempts_of(row: &Row) -> (u32, Option<u64>) {
    match &row.obtained {
        Obtained::Called {
            attempts,
            elapsed_ms,
            ..
        } => (*attempts, Some(*elapsed_ms)),
        _ => (0, None),
    }
}

/// The final report.
pub fn retrieval_report(e: &Evaluated, i: &RetrievalInputs<'_>) -> EvaluationResult {
    let tallies = e
        .rows
        .iter()
        .map(|r| (None, std::slice::from_ref(&r.case.bucket)));
    let dataset = report_metadata(i.metadata, i.cases_file, tallies, i.line_errors.len());
    let scores: Vec<EvalScore> = e
        .rows
        .iter()
        .flat_map(|r| {
            let (c, s) = (&r.case, &r.score);
            let detail = json!({
                "query": c.query, "expected_sources": c.expected_sources, "topk": s.topk,
                "found": s.found, "first_hit_rank": s.first_hit_rank, "k": e.k, "listed": r.has_list(),
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
        .filter(|r| !r.has_list())
        .map(|r| {
            let (attempts, latency_ms) = attempts_of(r);
            ErrorCase {
                model: None,
                sample_id: r.case.case_id.clone(),
                status: if r.error().is_some() {
                    "failed"
                } else {
                    "no_response"
                }
                .into(),
                trace_id: format!("{}/{}", i.run_id, r.case.case_id),
                message: Some(i.from.missing(r)),
                latency_ms: latency_ms.map(|ms| ms as f64),
                backend: Some(i.from.backend().to_string()),
                status_code: r.error().and_then(|e| e.status_code),
                attempts,
            }
        })
        .collect();
    let experiment = ExperimentMetadata {
        report_language: None, // set where report.md is rendered
        dataset,
        run_config: {
            let mut c = json!({"mode": i.from.command(), "kind": crate::RunKind::Retrieval.tag(), "run_id": i.run_id, "k": e.k});
            if let (Some(m), serde_json::Value::Object(from)) = (c.as_object_mut(), i.from.config())
            {
                m.extend(from);
            }
            c
        },
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
    // Lists read from a file: no calls were scheduled.
    let run = RunIdentity {
        run_id: i.run_id.to_string(),
        tool: i.meta.tool.clone(),
        started_at_ms: i.meta.started_at_ms,
        argv: i.meta.argv.clone(),
        dataset: i.meta.dataset.clone(),
        settings: RunSettings {
            concurrency: 0,
            max_attempts: 0,
            timeout_ms: 0,
            ..RunSettings::default()
        },
    };
    let (cases, backend) = (e.rows.len(), i.from.backend());
    let meta = MetaRecord::of(
        Some(crate::RunKind::Retrieval),
        &run,
        i.cases_file,
        backend,
        cases,
        i.meta.started_at_ms,
    );
    let mut out = vec![Record::Meta(MetaRecord {
        k: Some(e.k),
        ..meta
    })];
    for (n, r) in e.rows.iter().enumerate() {
        out.push(case_record(i.run_id, n, r, i.from, ts));
    }
    out.push(Record::Summary(SummaryRecord::of(
        &run,
        e.counts().into(),
        false,
        ts,
    )));
    out
}

/// The `case` record of one retrieval case (spec 000's retrieval fields:
/// `bucket`, `query`, `expected_sources`, `hit_at_k`, `topk`, `elapsed_ms`).
pub fn case_record(run_id: &str, n: usize, r: &Row, from: &ListsFrom, ts_ms: u64) -> Record {
    let (c, s) = (&r.case, &r.score);
    let (attempts, elapsed_ms) = attempts_of(r);
    let metrics = METRICS
        .iter()
        .zip(s.values())
        .map(|(m, v)| (m.to_string(), Some(v)))
        .collect();
    Record::Case(CaseRecord {
        run_id: run_id.to_string(),
        ts_ms,
        case_id: c.case_id.clone(),
        case_index: n,
        line: c.line,
        passed: s.hit_at_k,
        llm_call_ok: r.has_list(),
        attempts,
        elapsed_ms: elapsed_ms.unwrap_or(0),
        metrics: Some(metrics),
        bucket: Some(c.bucket.clone()),
        query: Some(c.query.clone()),
        expected_sources: Some(c.expected_sources.clone()),
        hit_at_k: Some(s.hit_at_k),
        topk: Some(s.topk.clone()),
        error: (!r.has_list()).then(|| from.missing(r)),
        error_detail: r.error().map(crate::report::ErrorDetail::from),
        ..CaseRecord::default()
    })
}

/// `report.md` of a retrieval evaluation, from its report alone (the run
/// and `evalpage report` render it the same): the cases file, where the
/// lists came from, `k` and the hit rate.
pub fn retrieval_markdown(report: &EvaluationResult, lang: Lang) -> String {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let e = &report.report.experiment;
    let rc = &e.run_config;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let m = &report.metrics;
    let lists = match rc["responses"].as_str() {
        Some(f) => format!("{}: {f}", t("排序列表", "Ranked lists")),
        None => format!(
            "{}: {} ({})",
            t("检索端点", "Retrieval endpoint"),
            text(&rc["endpoint"]),
            text(&rc["list_path"])
        ),
    };
    let parts = MarkdownParts {
        experiment: vec![
            format!(
                "{}: {} ({} {})",
                t("数据集", "Dataset"),
                e.dataset.name.as_deref().unwrap_or_default(),
                m.cases,
                t("条用例", "cases")
            ),
            lists,
            format!("k: {}", rc["k"]),
            format!(
                "hit_rate: {:.3} ({}/{})",
                m.counts.hit_rate.unwrap_or(0.0),
                m.counts.hit_cases.unwrap_or(0),
                m.cases
            ),
        ],
        after_overall: None,
        sections: Vec::new(),
        notes: Vec::new(),
    };
    render_md(report, &parts, lang)
}

/// Every file of the evaluation (see `report::outputs`).
pub fn retrieval_outputs(e: &Evaluated, i: &RetrievalInputs<'_>) -> Outputs {
    let mut report = retrieval_report(e, i);
    report.report.experiment.report_language = Some(i.lang);
    let lines: Vec<usize> = e.rows.iter().map(|r| r.case.line).collect();
    let fp = fingerprint(i.cases_file, i.cases_bytes, &lines, i.line_errors.len());
    let results: String = e
        .rows
        .iter()
        .map(|r| {
            let (c, s) = (&r.case, &r.score);
            let (attempts, latency_ms) = attempts_of(r);
            let mut run_config = i.from.config();
            if let Some(m) = run_config.as_object_mut() {
                m.insert("k".into(), json!(e.k));
            }
            let detail = r.error().map(crate::report::ErrorDetail::from);
            let missing = i.from.missing(r);
            let (status, error, error_detail) = match (r.has_list(), &detail) {
                (true, _) => Outcome::Answered,
                (false, Some(e)) => Outcome::Failed(e),
                (false, None) => Outcome::NoResponse(&missing),
            }
            .fields();
            let record = RunRecord {
                sample_id: c.case_id.clone(),
                dataset_id: Some(report.report.experiment.dataset.dataset_id.clone()),
                backend: i.from.backend().to_string(),
                run_config,
                response_text: None,
                status: status.into(),
                latency_ms: latency_ms.map(|ms| ms as f64),
                trace_id: format!("{}/{}", i.run_id, c.case_id),
                attempts,
                error,
                error_detail,
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
    let markdown = retrieval_markdown(&report, i.lang);
    let m = i.meta;
    Outputs {
        report_file: KIND.names.report,
        markdown,
        results_jsonl: results,
        samples: e.rows.len(),
        default_model: i.from.backend().to_string(),
        identity: vec![
            ("kind".into(), "retrieval".into()),
            ("k".into(), e.k.to_string()),
        ],
        run_meta: json!({
            "tool": m.tool, "version": m.version, "command": i.from.command(), "kind": crate::RunKind::Retrieval.tag(),
            "run_id": i.run_id, "k": e.k, "dataset": m.dataset, "responses": i.from.name(),
            "metadata": m.metadata, "argv": m.argv,
            "started_at": rfc3339_ms(m.started_at_ms), "ended_at": rfc3339_ms(m.ended_at_ms),
            "started_at_ms": m.started_at_ms, "ended_at_ms": m.ended_at_ms,
        }),
        fingerprint: serde_json::to_value(&fp).unwrap_or_default(),
        model_snapshot: json!({"kind": crate::RunKind::Retrieval.tag(), "models": [{
            "name": i.from.backend(),
            "source": match i.from { ListsFrom::File(_) => "ranked lists file", ListsFrom::Endpoint { .. } => "retrieval endpoint" },
            "file": i.from.name(),
            "answered": e.rows.iter().filter(|r| r.has_list()).count(), "samples": e.rows.len(),
        }]}),
        report,
    }
}
