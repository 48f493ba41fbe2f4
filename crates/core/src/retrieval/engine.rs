//! Spec 000's retrieval evaluation run against a retrieval endpoint, as a kind
//! of evaluation on the one [`Pipeline`]: one call per case (the scheduler,
//! retries, 429 limits, pause and cancel are the engine's), scored with
//! `crate::retrieval`'s trec_eval definitions as it settles, recorded with
//! spec 000's retrieval fields, reported through the one report builder.
//!
//! The endpoint is given by its URL, a JSON request body template and the path
//! of the ranked source list in its answer ([`crate::json_path`]). The body
//! template is JSON text with `{{ field }}` and `{{ field|tojson }}`
//! placeholders over the case's `case_id`, `query`, `bucket` and the run's
//! `k`, rendered without the Jinja engine ([`PromptTemplate::plain`]: the
//! same text Jinja would render; anything more, `{% if %}` or another filter,
//! is refused when the endpoint is set up). String values need `|tojson`
//! (`{"query": {{ query|tojson }}, "top_k": {{ k }}}`, the default), and the
//! rendered text must be JSON. The expected sources are never given to the
//! template: the system under test must not see the answer key.
//!
//! Decision (issue 20): the body used to go through the whole Jinja engine.
//! A request body is JSON with values put in, and the plain engine does that
//! byte for byte as Jinja did, so the page's retrieval mode no longer loads
//! minijinja (about 45 KB of its gzipped first load).
//!
//! A case whose body cannot be rendered is failed without a call
//! (`ErrorKind::Prompt`); an answer that is not JSON, or whose path finds no
//! list, is a failed case (`InvalidResponse`) with what was found instead.
//! Failed cases score 0 and stay in every denominator. Decision: a failed
//! call is not retried for a bad answer shape (the same request would get the
//! same shape); HTTP 429 / 5xx / timeouts are retried as for chat models.

use super::dataset::{Ranked, RetrievalCase};
use super::metrics::{score, Evaluated, Obtained, Row};
use super::report::{case_record, ListsFrom};
use crate::dataset::sample::Sample;
use crate::demo;
use crate::events::resume::{prior_calls, Prior, PriorCall};
use crate::events::ReadLog;
use crate::events::{MetaRecord, Record, SummaryRecord};
use crate::json_path::JsonPath;
use crate::provider::{Answer, CallError, ChatMessage, ErrorKind};
use crate::run::{Call, JobOutcome, Kind, Pipeline, PriorJob, RunIdentity, RunSettings};
use crate::run::{PoolModel, Start, TakenOver};
use crate::template::{PromptTemplate, RawTemplate};
use serde_json::{json, Map, Value};

/// The request body sent when none is given.
pub const DEFAULT_BODY: &str = r#"{"query": {{ query|tojson }}, "top_k": {{ k }}}"#;

/// Where the ranked list is in the answer when no path is given.
pub const DEFAULT_PATH: &str = "results[*].source";

/// A retrieval endpoint: its URL, request body template and list path, checked.
#[derive(Clone, Debug)]
pub struct RetrievalEndpoint {
    /// URL without query string, as reports show it.
    pub url: String,
    /// `http`, or `mock` for the offline demo retriever.
    pub backend: String,
    body_text: String,
    body: PromptTemplate,
    path: JsonPath,
}

impl RetrievalEndpoint {
    /// Checks the body template and the list path; the error names which of
    /// the two is wrong and why.
    pub fn new(
        url: &str,
        backend: &str,
        body_template: &str,
        list_path: &str,
    ) -> Result<RetrievalEndpoint, String> {
        let body = PromptTemplate::plain(RawTemplate {
            name: "retrieval_body".into(),
            version: "v1".into(),
            system: None,
            user: body_template.to_string(),
        })
        .map_err(|e| format!("request body template: {e}"))?;
        let path = JsonPath::parse(list_path).map_err(|e| format!("list path: {e}"))?;
        Ok(RetrievalEndpoint {
            url: url.split(['?', '#']).next().unwrap_or(url).to_string(),
            backend: backend.to_string(),
            body_text: body_template.to_string(),
            body,
            path,
        })
    }

    /// The JSON body for one case.
    pub fn body(&self, case: &RetrievalCase, k: usize) -> Result<Value, String> {
        let mut fields = Map::new();
        fields.insert("case_id".into(), json!(case.case_id));
        fields.insert("query".into(), json!(case.query));
        fields.insert("bucket".into(), json!(case.bucket));
        fields.insert("k".into(), json!(k));
        let sample = Sample {
            id: case.case_id.clone(),
            line: case.line,
            fields,
        };
        let rendered = self.body.render(&sample, &[]).map_err(|e| e.to_string())?;
        let text = rendered
            .messages
            .first()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        serde_json::from_str(&text).map_err(|e| {
            format!(
                "the rendered request body is not JSON ({e}); use `|tojson` for strings: {}",
                crate::text::truncate_chars(&text, 200)
            )
        })
    }

    /// The ranked list in an answer body.
    pub fn list(&self, answer: &str) -> Result<Vec<String>, String> {
        let v: Value = serde_json::from_str(answer).map_err(|e| format!("not JSON: {e}"))?;
        self.path.strings(&v)
    }

    /// What the offline demo retriever answers for `query`, in the shape
    /// this endpoint's path reads.
    pub fn mock_answer(&self, query: &str, k: usize) -> String {
        let docs: Vec<String> = demo::retrieve(query, k)
            .into_iter()
            .map(|(d, _)| d.to_string())
            .collect();
        self.path.nest(&docs).to_string()
    }

    /// Where the lists come from, for the report.
    pub fn lists_from(&self) -> ListsFrom {
        ListsFrom::Endpoint {
            url: self.url.clone(),
            backend: self.backend.clone(),
            body: self.body_text.clone(),
            path: self.path.to_string(),
        }
    }
}

/// Who runs what (recorded in `meta`, never a key).
#[derive(Clone, Debug)]
pub struct RetrievalRunConfig {
    /// Who runs what, and its scheduling.
    pub run: RunIdentity,
    /// The cases file name.
    pub dataset: String,
    /// The cut-off.
    pub k: usize,
    /// The endpoint.
    pub endpoint: RetrievalEndpoint,
}

/// The retrieval evaluation as a kind: one call per case.
#[derive(Clone, Debug)]
pub struct RetrievalKind {
    cfg: RetrievalRunConfig,
    cases: Vec<RetrievalCase>,
    bodies: Vec<Result<Value, String>>,
    rows: Vec<Option<Row>>,
    /// Each settled job's answer as the endpoint sent it: its `case` record
    /// keeps it (`answer`), so a resumed run reads the list again from it.
    answers: Vec<Option<String>>,
}

impl RetrievalKind {
    fn settle_row(&mut self, job: usize, outcome: &Result<Answer, CallError>, o: &JobOutcome) {
        let Some(case) = self.cases.get(job) else {
            return;
        };
        if let (Ok(answer), Some(slot)) = (outcome, self.answers.get_mut(job)) {
            *slot = Some(answer.text.clone());
        }
        let list = match outcome {
            Ok(answer) => self.cfg.endpoint.list(&answer.text).map_err(|why| {
                let mut e = CallError::new(
                    ErrorKind::InvalidResponse,
                    format!("the answer has no ranked list: {why}"),
                )
                .with_url(&self.cfg.endpoint.url);
                e.response_snippet = Some(crate::text::truncate_chars(answer.text.trim(), 300));
                e
            }),
            Err(e) => Err(e.clone()),
        };
        let (ranked, error) = match list {
            Ok(sources) => (
                Some(Ranked {
                    case_id: case.case_id.clone(),
                    line: case.line,
                    sources,
                }),
                None,
            ),
            Err(e) => (None, Some(e)),
        };
        let row = Row {
            case: case.clone(),
            score: score(case, ranked.as_ref(), self.cfg.k),
            obtained: Obtained::Called {
                attempts: o.attempts,
                elapsed_ms: o.elapsed_ms,
                error,
            },
        };
        if let Some(slot) = self.rows.get_mut(job) {
            *slot = Some(row);
        }
    }

    /// The settled rows so far, in dataset order.
    fn evaluated(&self) -> Evaluated {
        Evaluated {
            k: self.cfg.k,
            rows: self.rows.iter().flatten().cloned().collect(),
            unknown: Vec::new(),
        }
    }
}

impl Kind for RetrievalKind {
    type Record = Record;

    fn identity(&self) -> &RunIdentity {
        &self.cfg.run
    }

    fn jobs(&self) -> usize {
        self.cases.len()
    }

    fn pools(&self) -> Vec<RunSettings> {
        vec![self.cfg.run.settings]
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        if !answers.is_empty() {
            return Ok(None);
        }
        match self.bodies.get(job) {
            Some(Ok(body)) => Ok(Some(Call::json(0, body.clone()))),
            Some(Err(why)) => Err(CallError::new(
                ErrorKind::Prompt,
                format!("the request body could not be rendered, nothing was sent: {why}"),
            )),
            None => Ok(None),
        }
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<Record> {
        let last = outcome.last();
        self.settle_row(job, &last, &outcome);
        self.restored(job, now_ms).into_iter().collect()
    }

    fn restored(&self, job: usize, now_ms: u64) -> Option<Record> {
        let row = self.rows.get(job)?.as_ref()?;
        let mut record = case_record(
            &self.cfg.run.run_id,
            job,
            row,
            &self.cfg.endpoint.lists_from(),
            now_ms,
        );
        if let Record::Case(c) = &mut record {
            c.answer = self.answers.get(job).cloned().flatten();
        }
        Some(record)
    }

    fn meta(&self, now_ms: u64) -> Record {
        let (c, e) = (&self.cfg, &self.cfg.endpoint);
        Record::Meta(MetaRecord {
            endpoint: (e.backend != "mock").then(|| e.url.clone()),
            k: Some(c.k),
            ..MetaRecord::of(
                Some(crate::RunKind::Retrieval),
                &c.run,
                &c.dataset,
                &e.backend,
                self.cases.len(),
                now_ms,
            )
        })
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> Record {
        let counts = self.evaluated().counts().into();
        Record::Summary(SummaryRecord::of(&self.cfg.run, counts, cancelled, now_ms))
    }

    fn error(&self, message: &str, now_ms: u64) -> Option<Record> {
        Some(Record::error(&self.cfg.run.run_id, message, now_ms))
    }

    fn mock_answer(&self, job: usize, _messages: &[ChatMessage]) -> Answer {
        let query = self.cases.get(job).map_or("", |c| c.query.as_str());
        Answer::from(self.cfg.endpoint.mock_answer(query, self.cfg.k))
    }
}

/// The retrieval run: the one [`Pipeline`] over cases with [`RetrievalKind`].
pub type RetrievalEngine = Pipeline<RetrievalKind>;

impl RetrievalKind {
    /// A run over these cases; bodies are rendered once, up front.
    pub fn new(cfg: RetrievalRunConfig, cases: Vec<RetrievalCase>) -> RetrievalKind {
        let bodies = cases.iter().map(|c| cfg.endpoint.body(c, cfg.k)).collect();
        let rows = vec![None; cases.len()];
        RetrievalKind {
            answers: vec![None; cases.len()],
            cfg,
            cases,
            bodies,
            rows,
        }
    }
}

impl Pipeline<RetrievalKind> {
    /// A run over these cases (see [`RetrievalKind::new`]).
    pub fn new(cfg: RetrievalRunConfig, cases: Vec<RetrievalCase>) -> RetrievalEngine {
        Pipeline::over(RetrievalKind::new(cfg, cases))
    }

    /// Takes over the cases an interrupted run settled (from its event log,
    /// see [`resumable`]), before `start`: each is settled at start from its
    /// recorded answer (its list read again, so a changed `k` or path is
    /// applied) or its recorded failure, and not sent again. Returns how
    /// many were taken.
    pub fn restore(&mut self, prior: Vec<PriorCall>) -> usize {
        let mut taken = 0;
        for call in prior {
            let job = match call.outcome {
                Ok(answer) => PriorJob {
                    answers: vec![(answer, call.attempts, call.elapsed_ms)],
                    failed: None,
                },
                Err(e) => PriorJob {
                    answers: Vec::new(),
                    failed: Some((e, call.attempts, call.elapsed_ms)),
                },
            };
            if self.restore_calls(call.job, job) {
                taken += 1;
            }
        }
        taken
    }

    /// The configuration.
    pub fn config(&self) -> &RetrievalRunConfig {
        &self.kind().cfg
    }

    /// The cases, in dataset order.
    pub fn cases(&self) -> &[RetrievalCase] {
        &self.kind().cases
    }

    /// The settled case of a job.
    pub fn row(&self, job: usize) -> Option<&Row> {
        self.kind().rows.get(job)?.as_ref()
    }

    /// The settled cases, in dataset order, for the report.
    pub fn evaluated(&self) -> Evaluated {
        self.kind().evaluated()
    }
}

/// What an interrupted retrieval run's log gives this run: its settled
/// cases by job (a `case` record names its case by `case_id`), the records
/// of cases this run does not have, and the cases sent again (cancelled or
/// not run, or recorded before answers were kept in the log).
pub fn resumable(log: &ReadLog, cases: &[RetrievalCase]) -> Prior {
    let index: std::collections::HashMap<&str, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.case_id.as_str(), i))
        .collect();
    prior_calls(
        log,
        |_, id, _| index.get(id).copied(),
        |e| matches!(e.kind, ErrorKind::Prompt),
    )
}

/// A retrieval run calls one endpoint (unpriced); a resume takes over its
/// settled cases.
impl Start for RetrievalKind {
    type Log = ReadLog;

    fn pool_models(&self) -> Vec<PoolModel> {
        vec![PoolModel {
            name: self.cfg.endpoint.url.clone(),
            judge: false,
        }]
    }

    fn take_over(engine: &mut RetrievalEngine, log: &ReadLog) -> TakenOver {
        let prior = resumable(log, engine.cases());
        let jobs = engine.restore(prior.calls);
        TakenOver::cases(jobs, engine.cases().len(), &prior.unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::parse_cases;

    fn case() -> RetrievalCase {
        let line =
            r#"{"case_id":"c1","query":"say \"hi\"","expected_sources":["a.md"],"bucket":"b"}"#;
        parse_cases("c.jsonl", line.as_bytes()).0.remove(0)
    }

    #[test]
    fn the_body_is_rendered_as_json_and_never_sees_the_expected_sources() {
        let e = RetrievalEndpoint::new("http://x/r?key=1", "http", DEFAULT_BODY, DEFAULT_PATH)
            .expect("endpoint");
        assert_eq!(e.url, "http://x/r", "no query string in reports");
        assert_eq!(
            e.body(&case(), 4).expect("body"),
            json!({"query": "say \"hi\"", "top_k": 4})
        );
        let peek = RetrievalEndpoint::new("u", "http", "[{{ expected_sources }}]", DEFAULT_PATH)
            .expect("compiles");
        assert!(
            peek.body(&case(), 4).is_err(),
            "the answer key is not given"
        );
        let peek =
            RetrievalEndpoint::new("u", "http", "{{ expected_sources|tojson }}", DEFAULT_PATH)
                .expect("compiles");
        assert!(!format!("{:?}", peek.body(&case(), 4)).contains("a.md"));
        let loose = RetrievalEndpoint::new("u", "http", "{\"q\": \"{{ query }}\"}", DEFAULT_PATH)
            .expect("compiles");
        let why = loose.body(&case(), 4).expect_err("a quote breaks the JSON");
        assert!(why.contains("tojson"), "{why}");
    }

    /// The body is rendered by the plain engine: a placeholder, `|tojson`
    /// and nothing else, and what more it is asked is refused up front.
    #[test]
    fn a_body_that_needs_more_than_placeholders_is_refused_up_front() {
        for (body, why) in [
            (
                r#"{"q": {{ query|upper }}}"#,
                "`|upper` needs the Jinja engine",
            ),
            (
                r#"{% if bucket %}{"q": 1}{% endif %}"#,
                "`{%` needs the Jinja engine",
            ),
            (r#"{"k": {{ k + 1 }}}"#, "not a plain field name"),
        ] {
            let e = RetrievalEndpoint::new("u", "http", body, DEFAULT_PATH).expect_err("refused");
            assert!(
                e.starts_with("request body template") && e.contains(why),
                "{e}"
            );
        }
    }

    #[test]
    fn a_case_without_a_hit_scores_positive_zero() {
        let e = RetrievalEndpoint::new("u", "mock", DEFAULT_BODY, DEFAULT_PATH).expect("endpoint");
        let cfg = RetrievalRunConfig {
            run: RunIdentity {
                run_id: "r".into(),
                tool: "t".into(),
                started_at_ms: 0,
                argv: vec![],
                dataset: "c.jsonl".into(),
                settings: RunSettings::default(),
            },
            dataset: "c.jsonl".into(),
            k: 3,
            endpoint: e,
        };
        let mut engine = RetrievalEngine::new(cfg, vec![case()]);
        engine.start(0);
        engine.handle(
            crate::run::Input::Outcome {
                case: 0,
                outcome: crate::provider::CallOutcome::text(
                    json!({"results": [{"source": "b.md"}]}).to_string(),
                ),
            },
            5,
        );
        let row = engine.row(0).expect("settled");
        assert!(!row.score.hit_at_k);
        assert!(row.score.ndcg_at_k.is_sign_positive(), "no -0.0 in reports");
        assert!(row.has_list());
    }
}
