//! Spec 000's retrieval evaluation, one room: its dataset reader (queries with
//! expected sources, and ranked lists saved from a retrieval service), its run
//! against a retrieval endpoint (a JSON body template and a path to the ranked
//! list, on the one [`Pipeline`](crate::run::Pipeline)), its trec_eval scoring
//! (`hit_at_k`, `recall_at_k`, `mrr`, `ndcg_at_k`), its resume, and its report,
//! records and files.

pub(crate) mod dataset;
mod end;
pub(crate) use report::KIND;
mod engine;
pub(crate) mod metrics;
mod report;

pub use dataset::{parse_cases, parse_ranked, Ranked, RetrievalCase, NO_BUCKET};
pub use end::RetrievalFiles;
pub use engine::{
    resumable, RetrievalEndpoint, RetrievalEngine, RetrievalKind, RetrievalRunConfig, DEFAULT_BODY,
    DEFAULT_PATH,
};
pub use metrics::{
    bucket_means, evaluate, score, source_key, Evaluated, Obtained, RetrievalScore, Row, METRICS,
};
pub use report::{
    case_record, retrieval_markdown, retrieval_outputs, retrieval_records, retrieval_report,
    ListsFrom, RetrievalInputs,
};
