//! The registry lines of the metrics the other kinds compute: a retrieval
//! run's four trec_eval metrics (`retrieval::metrics` computes them) and a
//! dialog run's M1–M5 of spec 001 (`dialog::summary`, whose
//! `metrics_summary.json` gives each its description as `definition`).
//! A task cannot name them (`build` is None).

use super::{MetricKind, MetricType};

const fn fixed(
    name: &'static str,
    kind: MetricKind,
    description: &'static str,
    description_zh: &'static str,
    needs: &'static str,
) -> MetricType {
    MetricType {
        name,
        kind,
        description,
        description_zh,
        needs,
        keys: &[],
        example: "",
    }
}

const RANKED: &str =
    "A case's `expected_sources` and the ranked list the retrieval endpoint returned (or a saved list).";

/// trec_eval `success.k`.
pub const HIT_AT_K: MetricType = fixed(
    "hit_at_k",
    MetricKind::Retrieval,
    "1 when an expected source is among the first k items of the ranked list (trec_eval success.k).",
    "排序列表前 k 项中有预期来源时为 1（trec_eval success.k）。",
    RANKED,
);

/// trec_eval `recall.k`.
pub const RECALL_AT_K: MetricType = fixed(
    "recall_at_k",
    MetricKind::Retrieval,
    "Share of the distinct expected sources found in the first k items (trec_eval recall.k).",
    "前 k 项中找到的不同预期来源占全部预期来源的比例（trec_eval recall.k）。",
    RANKED,
);

/// trec_eval `recip_rank`.
pub const MRR: MetricType = fixed(
    "mrr",
    MetricKind::Retrieval,
    "1 / the rank of the first expected source in the whole list, 0 when none (trec_eval recip_rank).",
    "整个列表中第一个预期来源排名的倒数，没有则为 0（trec_eval recip_rank）。",
    RANKED,
);

/// trec_eval `ndcg_cut.k`.
pub const NDCG_AT_K: MetricType = fixed(
    "ndcg_at_k",
    MetricKind::Retrieval,
    "DCG of the first k items over the ideal DCG, with binary relevance (trec_eval ndcg_cut.k).",
    "前 k 项的 DCG 除以理想 DCG，二元相关（trec_eval ndcg_cut.k）。",
    RANKED,
);

/// M1.
pub const M1_MEMORY_RECALL: MetricType = fixed(
    "m1_memory_recall",
    MetricKind::Dialog,
    "hit keys / resolvable keys (short-term, long-term, profile)",
    "命中的记忆键 / 可解析的记忆键（短期、长期、画像）",
    "Turns with `memory_required_keys_gt`, resolved in the dialog's memory and `profile_gt`.",
);

/// M2.
pub const M2_CONSTRAINT_CONTRADICTION: MetricType = fixed(
    "m2_constraint_contradiction",
    MetricKind::Dialog,
    "turns recommending a forbidden term / eligible turns (lower is better)",
    "推荐了禁用项的轮次 / 适用轮次（越低越好）",
    "Turns after a constraint in `profile_gt.constraints_gt` (its forbidden terms), and the answers.",
);

/// M3, by the lexicon.
pub const M3_RISK_DISCLOSURE: MetricType = fixed(
    "m3_risk_disclosure",
    MetricKind::Dialog,
    "required risk tags found by the lexicon / required risk tags",
    "词表找到的必需风险标签 / 必需风险标签",
    "Turns with `risk_disclosure_required_gt`, and the answers.",
);

/// M3, by the judge.
pub const M3_RISK_DISCLOSURE_JUDGE: MetricType = fixed(
    "m3_risk_disclosure_judge",
    MetricKind::Dialog,
    "required risk tags found by the judge / required risk tags",
    "评审模型找到的必需风险标签 / 必需风险标签",
    "Turns with `risk_disclosure_required_gt`, and a judge model.",
);

/// M4, from the trace's labels.
pub const M4_COMPLIANCE: MetricType = fixed(
    "m4_compliance",
    MetricKind::Dialog,
    "turns whose trace compliance label equals compliance_label_gt / eligible turns",
    "轨迹合规标签等于 compliance_label_gt 的轮次 / 适用轮次",
    "Turns with `compliance_label_gt`, and a compliance label in the trace.",
);

/// M4, by the judge.
pub const M4_COMPLIANCE_JUDGE: MetricType = fixed(
    "m4_compliance_judge",
    MetricKind::Dialog,
    "turns whose judged label equals compliance_label_gt / eligible turns",
    "评审标签等于 compliance_label_gt 的轮次 / 适用轮次",
    "Turns with `compliance_label_gt`, and a judge model.",
);

/// M5.
pub const M5_EXPLAINABILITY: MetricType = fixed(
    "m5_explainability",
    MetricKind::Dialog,
    "required rubric items the judge says are met / required items; mean judge_score_1_5 beside it",
    "评审认为满足的必需评分项 / 必需评分项；旁附 judge_score_1_5 的均值",
    "Turns with `explainability_rubric_gt`, and a judge model.",
);
