//! `evalpage run`'s flags of a task run.

use clap::Args;
use std::path::PathBuf;

/// A task run (spec 004): `--task` and what goes with it.
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// Run a task (a task YAML file, a name in bench/tasks/NAME.yaml, or a preset:
    /// event_eval, news_analysis, support_qa, support_judged, rag_qa) instead of the RAG check.
    #[arg(long, value_name = "NAME|FILE.yaml", conflicts_with_all = ["provider", "endpoint", "model", "api_key_env", "system_prompt", "retrieval"], display_order = 4)]
    pub task: Option<String>,
    /// With --task: the models to evaluate, comma-separated registry names
    /// (with --mock, any names: each is a differently seeded mock model).
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        requires = "task",
        display_order = 9
    )]
    pub models: Vec<String>,
    /// With --task: answer with the deterministic offline mock model
    /// (schema-valid JSON), no endpoint, no key.
    #[arg(long, requires = "task", display_order = 11)]
    pub mock: bool,
    /// With --task: only the first N valid samples.
    #[arg(long, value_name = "N", requires = "task", value_parser = clap::value_parser!(u64).range(1..), display_order = 14)]
    pub max_samples: Option<u64>,
    /// With --task bfcl: BFCL's possible answers for --dataset [default:
    /// possible_answer/<the dataset's file name> beside it].
    #[arg(long, value_name = "FILE", requires = "task", display_order = 16)]
    pub possible_answers: Option<PathBuf>,
    /// With --task: ask each sample N times (each answer its own call and
    /// cache entry, each scored; pass@k and pass^k for 0/1 metrics)
    /// [default: the task file's `repeats`, else 1].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100), display_order = 36)]
    pub repeats: Option<u32>,
    /// With --repeats: the k of pass@k and pass^k, comma-separated, each at
    /// most N [default: the task file's `pass_k`, else 1 and N].
    #[arg(long, value_name = "K,...", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..), display_order = 37)]
    pub pass_k: Option<Vec<u32>>,
}
