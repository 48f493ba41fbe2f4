//! The registry lines of a dialog run's M1–M5 of spec 001
//! (`dialog::summary`, whose `metrics_summary.json` gives each its
//! description as `definition`). A task cannot name them (`build` is None).

use super::{fixed, MetricType, RunKind};

/// M1.
pub const M1_MEMORY_RECALL: MetricType = fixed(
    "m1_memory_recall",
    RunKind::Dialog,
    "hit keys / resolvable keys (short-term, long-term, profile)",
    "命中的记忆键 / 可解析的记忆键（短期、长期、画像）",
    "Turns with `memory_required_keys_gt`, resolved in the dialog's memory and `profile_gt`.",
);

/// M2.
pub const M2_CONSTRAINT_CONTRADICTION: MetricType = fixed(
    "m2_constraint_contradiction",
    RunKind::Dialog,
    "turns recommending a forbidden term / eligible turns (lower is better)",
    "推荐了禁用项的轮次 / 适用轮次（越低越好）",
    "Turns after a constraint in `profile_gt.constraints_gt` (its forbidden terms), and the answers.",
);

/// M3, by the lexicon.
pub const M3_RISK_DISCLOSURE: MetricType = fixed(
    "m3_risk_disclosure",
    RunKind::Dialog,
    "required risk tags found by the lexicon / required risk tags",
    "词表找到的必需风险标签 / 必需风险标签",
    "Turns with `risk_disclosure_required_gt`, and the answers.",
);

/// M3, by the judge.
pub const M3_RISK_DISCLOSURE_JUDGE: MetricType = fixed(
    "m3_risk_disclosure_judge",
    RunKind::Dialog,
    "required risk tags found by the judge / required risk tags",
    "评审模型找到的必需风险标签 / 必需风险标签",
    "Turns with `risk_disclosure_required_gt`, and a judge model.",
);

/// M4, from the trace's labels.
pub const M4_COMPLIANCE: MetricType = fixed(
    "m4_compliance",
    RunKind::Dialog,
    "turns whose trace compliance label equals compliance_label_gt / eligible turns",
    "轨迹合规标签等于 compliance_label_gt 的轮次 / 适用轮次",
    "Turns with `compliance_label_gt`, and a compliance label in the trace.",
);

/// M4, by the judge.
pub const M4_COMPLIANCE_JUDGE: MetricType = fixed(
    "m4_compliance_judge",
    RunKind::Dialog,
    "turns whose judged label equals compliance_label_gt / eligible turns",
    "评审标签等于 compliance_label_gt 的轮次 / 适用轮次",
    "Turns with `compliance_label_gt`, and a judge model.",
);

/// M5.
pub const M5_EXPLAINABILITY: MetricType = fixed(
    "m5_explainability",
    RunKind::Dialog,
    "required rubric items the judge says are met / required items; mean judge_score_1_5 beside it",
    "评审认为满足的必需评分项 / 必需评分项；旁附 judge_score_1_5 的均值",
    "Turns with `explainability_rubric_gt`, and a judge model.",
);
