//! The registry lines of a retrieval run's four trec_eval metrics
//! (`retrieval::metrics` computes them). A task cannot name them (`build` is
//! None).

use super::{fixed, MetricType, RunKind};

const RANKED: &str =
    "A case's `expected_sources` and the ranked list the retrieval endpoint returned (or a saved list).";

/// trec_eval `success.k`.
pub const HIT_AT_K: MetricType = fixed(
    "hit_at_k",
    RunKind::Retrieval,
    "1 when an expected source is among the first k items of the ranked list (trec_eval success.k).",
    "排序列表前 k 项中有预期来源时为 1（trec_eval success.k）。",
    RANKED,
);

/// trec_eval `recall.k`.
pub const RECALL_AT_K: MetricType = fixed(
    "recall_at_k",
    RunKind::Retrieval,
    "Share of the distinct expected sources found in the first k items (trec_eval recall.k).",
    "前 k 项中找到的不同预期来源占全部预期来源的比例（trec_eval recall.k）。",
    RANKED,
);

/// trec_eval `recip_rank`.
pub const MRR: MetricType = fixed(
    "mrr",
    RunKind::Retrieval,
    "1 / the rank of the first expected source in the whole list, 0 when none (trec_eval recip_rank).",
    "整个列表中第一个预期来源排名的倒数，没有则为 0（trec_eval recip_rank）。",
    RANKED,
);

/// trec_eval `ndcg_cut.k`.
pub const NDCG_AT_K: MetricType = fixed(
    "ndcg_at_k",
    RunKind::Retrieval,
    "DCG of the first k items over the ideal DCG, with binary relevance (trec_eval ndcg_cut.k).",
    "前 k 项的 DCG 除以理想 DCG，二元相关（trec_eval ndcg_cut.k）。",
    RANKED,
);
