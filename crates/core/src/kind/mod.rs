//! Kinds of evaluation on the one run engine (`run::Pipeline`), one file
//! each. The RAG check (`run/engine.rs`) and tasks (`task_run/engine.rs`) are
//! older and live beside their own modules; new kinds go here.

pub mod retrieval;
