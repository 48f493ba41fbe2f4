//! LLM-as-judge (issue 11), built up piece by piece: the strict verdict
//! reader every judged metric goes through, and the agreement statistics a
//! report gives next to judged metrics (kappa against human labels, repeat
//! agreement, pairwise flip rate). The judge as a metric type and its calls
//! on their own pool are still to come.

pub mod agreement;
pub mod verdict;
