//! LLM-as-judge (issue 11), built up piece by piece: so far the strict
//! verdict reader, which every judged metric will go through.

pub mod verdict;
