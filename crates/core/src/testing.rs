//! The door for tests, benches and fuzz targets: the scoring primitives the
//! agreement tests check against reference implementations, the judge's
//! verdict reader, and the synthetic task set the throughput benchmarks score.
//! Nothing here is needed to run an evaluation.

pub use crate::dataset::spec003::parse as parse_test_samples;
pub use crate::judge::agreement::{flip_rate, repeat_agreement};
pub use crate::judge::verdict::{read as read_verdict, Scale, Verdict};
pub use crate::metric::reference_rouge::{is_cjk, rouge, RougeScore, ROUGE_TYPES};
pub use crate::metric::token_f1::{best as best_token_f1, token_f1};
pub use crate::rag_rules::accuracy::score as accuracy;
pub use crate::rag_rules::citation::{base_name, score as citation};
pub use crate::task::synthetic::{
    generate, metric_types, parse_round, report_line, score_round, task, task_for, Generator,
    SyntheticSet, CHUNK,
};
pub use crate::text::fold;
