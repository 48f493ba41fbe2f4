//! LLM-as-judge (issue 11): judge prompts as versioned files (`prompt`),
//! the strict verdict reader every judged metric goes through (`verdict`),
//! the judge calls of a case and the score they give (`flow`), the agreement
//! statistics a report gives next to judged metrics (`agreement`: kappa
//! against human labels, repeat agreement, pairwise flip rate) and the
//! deterministic mock judge (`mock`). The metric type is
//! `metric::llm_judge`; the calls run on the judge's own pool of the one run
//! engine (`task_run::engine`).

pub mod agreement;
pub mod mock;
pub mod prompt;
pub mod verdict;
