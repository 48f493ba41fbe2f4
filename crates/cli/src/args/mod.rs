//! The command line, as clap parses it. Values are checked for range here;
//! combinations (which provider, which key) are resolved in `run::setup`.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod dialog;
mod retrieval;
mod task;
pub use dialog::DialogArgs;
pub use retrieval::RetrievalArgs;
pub use task::TaskArgs;

/// `evalpage`: evaluate an LLM or RAG system from a terminal.
#[derive(Debug, Parser)]
#[command(name = "evalpage", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run an evaluation over a JSONL dataset and write the report and event logs.
    Run(Box<RunArgs>),
    /// Serve a deterministic OpenAI-compatible endpoint on 127.0.0.1 (for tests and demos).
    MockServer(MockArgs),
    /// Check an event log against a final report (spec 000 section 5).
    Reconcile(ReconcileArgs),
    /// Score answers produced elsewhere against a task (no model call) and write every artifact.
    Score(ScoreArgs),
    /// Work with task files (spec 004 task YAML).
    #[command(subcommand)]
    Task(TaskCommand),
    /// Compare saved runs with a base run case by case (paired bootstrap intervals,
    /// McNemar's exact test) and gate on drops: exit 1 when a --fail-if-drop rule fails.
    Compare(CompareArgs),
    /// Render a saved report.json again (report.md, summary.csv or report.json) without re-running it.
    Report(ReportArgs),
    /// Join the shards of a run (`run --shard I/N`) into one run: the files an
    /// unsharded run writes, nothing sent.
    Merge(MergeArgs),
    /// Look at or empty a response cache (`run --cache DIR`).
    Cache(CacheArgs),
    /// Read other evaluators' results into run folders that `report`,
    /// `compare` and the viewer open: promptfoo output JSON, Inspect AI logs
    /// (.eval, .json), lm-evaluation-harness samples_*.jsonl with results_*.json,
    /// OpenAI Evals API runs with their output items, oaieval record logs.
    Import(ImportArgs),
    /// Hand a run's calls to a batch engine (OpenAI Batch API, `vllm
    /// run-batch`, Ray Data, Anthropic Message Batches) and score what comes
    /// back: `batch export <run flags> --out DIR`, then `batch import DIR
    /// ANSWERS...` (again for each further round).
    #[command(subcommand)]
    Batch(BatchCommand),
    /// Measure a run's automatic verdicts (a judge's, any metric's) against
    /// people's labels (labels.jsonl or .json-seq files, or Langfuse score /
    /// Phoenix span annotation exports as JSON; several reviewers' merged):
    /// agreement, Cohen's kappa, TPR/TNR, the judge-corrected pass rate,
    /// Krippendorff's alpha among reviewers; writes agreement.json,
    /// agreement.md and report.md with the agreement section, and with
    /// --langfuse / --phoenix the standing labels in those tools' shapes.
    /// Exit 1 when a --fail-if-kappa-below gate fails.
    Agree(AgreeArgs),
}

/// Options of `evalpage agree`.
#[derive(Debug, Args)]
pub struct AgreeArgs {
    /// The run: its report.json, or the run directory holding it; or a
    /// dialog run's directory (spec 001), each dialog a case.
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// People's labels: labels.jsonl or labels.json-seq files (the viewer's
    /// review mode downloads them), one per reviewer or merged, or a JSON
    /// array of Langfuse scores or of Phoenix span annotations (also as
    /// {"data": [...]}); the format is told from the content.
    #[arg(value_name = "LABELS", required = true)]
    pub labels: Vec<PathBuf>,
    /// Where agreement.json, agreement.md and report.md go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// What a metric's labels are: METRIC=pass-fail (the default; pass-fail@T
    /// passes a score at or above T when it has no outcome, 0.5 by default),
    /// METRIC=1-5 (an integer rating) or METRIC=a,b,c (categories). Repeatable.
    #[arg(long, value_name = "METRIC=SCHEME")]
    pub scale: Vec<String>,
    /// Fail (exit 1) when a metric's kappa against people (their majority
    /// label) is below K, or cannot be computed.
    #[arg(long, value_name = "K", value_parser = parse_kappa)]
    pub fail_if_kappa_below: Option<f64>,
    /// Seed of the corrected pass rate's bootstrap.
    #[arg(long, value_name = "S", default_value_t = 2026)]
    pub seed: u64,
    /// Also write the standing labels (each reviewer's latest per case,
    /// metric and model) as Langfuse scores: a JSON array of the bodies of
    /// POST /api/public/scores (traceId `model/case`, as in results.jsonl).
    #[arg(long, value_name = "FILE")]
    pub langfuse: Option<PathBuf>,
    /// Also write the standing labels as Phoenix span annotations: the body
    /// of POST /v1/span_annotations, {"data": [...]} (span_id `model/case`,
    /// identifier the reviewer).
    #[arg(long, value_name = "FILE")]
    pub phoenix: Option<PathBuf>,
}

/// `evalpage batch export|import`.
#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Write the run's calls as OpenAI Batch input under DIR/round-1/ (the
    /// flags of `evalpage run`, --out naming the batch directory); nothing is sent.
    Export(Box<RunArgs>),
    /// Read batch answers (files or directories) into DIR: the run's files
    /// when no call is left, else the next round's requests under DIR/round-N/.
    Import(BatchImportArgs),
}

/// Options of `evalpage batch import`.
#[derive(Debug, Args)]
pub struct BatchImportArgs {
    /// The batch directory `batch export` wrote.
    pub dir: PathBuf,
    /// Answer files or directories of them (JSONL or JSON): OpenAI Batch
    /// output and error files, `vllm run-batch` output, Ray Data `write_json`
    /// shards, Anthropic Message Batches results.
    #[arg(value_name = "ANSWERS", required = true)]
    pub answers: Vec<PathBuf>,
}

/// Options of `evalpage import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The files: each promptfoo file, Inspect log or oaieval log is one run;
    /// an lm-eval output's samples and results files are one run, as are an
    /// Evals API run and its output items.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Output directory: the run folder of one run, else one folder per run
    /// inside it (named after the run's first file).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Language of report.md.
    #[arg(long, value_enum, default_value_t = LangArg::En)]
    pub lang: LangArg,
}

/// Options of `evalpage cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CacheCommand,
}

/// `evalpage cache stats|clear`.
#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// How many entries, how many bytes, the oldest entry's age.
    Stats {
        /// The cache directory.
        dir: PathBuf,
    },
    /// Removes entries (all of them, or those older than --older-than).
    Clear {
        /// The cache directory.
        dir: PathBuf,
        /// Only entries stored longer ago than this (30m, 12h, 7d).
        #[arg(long, value_name = "AGE")]
        older_than: Option<String>,
    },
}

/// Options of `evalpage merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' output directories (or their event logs), every shard once.
    #[arg(value_name = "SHARD", required = true)]
    pub shards: Vec<PathBuf>,
    /// Output directory of the joined run (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Options of `evalpage compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base run: its report.json, or the run directory holding it.
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The new run(s): report.json or run directory, each compared with BASE on its
    /// own [default with --models: BASE].
    #[arg(value_name = "NEW", required_unless_present = "models")]
    pub new: Vec<PathBuf>,
    /// Fail (exit 1) when METRIC's mean drops by more than DELTA (in the metric's
    /// units, e.g. accuracy=0.02) and the drop is significant at --alpha
    /// (McNemar's exact test for 0/1 metrics, the paired bootstrap interval
    /// otherwise). Repeatable.
    #[arg(long, value_name = "METRIC=DELTA")]
    pub fail_if_drop: Vec<String>,
    /// Significance level of the gate; the intervals are at 1 - alpha.
    #[arg(long, value_name = "A", default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Seed of the paired bootstrap (10,000 resamples).
    #[arg(long, value_name = "S", default_value_t = evalpage_core::COMPARE_SEED)]
    pub seed: u64,
    /// Write the whole comparison (rows, per-case diff, gate verdicts) as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Compare model A of BASE with model B of each NEW (of BASE when no NEW is given).
    #[arg(long, value_name = "A,B")]
    pub models: Option<String>,
    /// Compare metric A of BASE with metric B of each NEW (two tools name the
    /// same verdict differently: promptfoo's pass, Inspect's match).
    #[arg(long, value_name = "A,B")]
    pub metrics: Option<String>,
    /// Per-case differences listed of each kind (regressions, improvements).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub show: usize,
    /// Fail (exit 1) when a NEW run's judge agrees with people less than K
    /// (Cohen's kappa), or its kappa cannot be computed. The kappa is the
    /// run directory's agreement.json (`evalpage agree RUN LABELS --out
    /// RUNDIR`) when there is one, else the report's `human_kappa` (a judge
    /// with `human_label_field`); a NEW run with neither exits 2.
    #[arg(long, value_name = "K", value_parser = parse_kappa)]
    pub fail_if_kappa_below: Option<f64>,
}

/// What `evalpage report` renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// report.md (spec 003's sections).
    Md,
    /// summary.csv (one row per model).
    Csv,
    /// report.json, normalized and pretty.
    Json,
}

/// Options of `evalpage report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A saved report.json, or the run directory holding it.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// What to render [default: md].
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,
    /// Output directory (created if missing); without it the rendering is
    /// printed on standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Language of report.md [default: the one the run recorded, else zh].
    #[arg(long, value_enum)]
    pub lang: Option<LangArg>,
}

fn parse_kappa(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if (-1.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("`{s}`: kappa lies between -1 and 1"))
    }
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("`{s}` is not between 0 and 1 (exclusive)"))
    }
}

/// `evalpage task ...`.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Validate a task (a preset name or a YAML file) and its prompt template.
    Check(TaskCheckArgs),
}

/// Options of `evalpage task check`.
#[derive(Debug, Args)]
pub struct TaskCheckArgs {
    /// A task YAML file, a name in bench/tasks/NAME.yaml, or a preset (event_eval, news_analysis, support_qa, support_judged, rag_qa).
    #[arg(value_name = "NAME|FILE.yaml")]
    pub task: String,
}

/// Options of `evalpage score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// A task YAML file, a name in bench/tasks/NAME.yaml, or a preset (event_eval, news_analysis, support_qa, support_judged, rag_qa).
    #[arg(
        long,
        value_name = "NAME|FILE.yaml",
        required_unless_present_any = ["retrieval", "dialogs"],
        conflicts_with_all = ["retrieval", "dialogs"]
    )]
    pub task: Option<String>,
    /// Score a spec 001 dialog trace produced elsewhere: the dialog dataset
    /// (JSONL, one dialog per line); give the trace with --dialog-trace.
    #[arg(long, value_name = "DATASET", requires = "dialog_trace", conflicts_with_all = ["retrieval", "dataset", "responses", "metadata"])]
    pub dialogs: Option<PathBuf>,
    /// With --dialogs: the `dialog_trace.jsonl` (spec 001 v1 or v1.x) to score.
    #[arg(long, value_name = "FILE", requires = "dialogs", conflicts_with_all = ["task", "retrieval", "dataset", "responses", "metadata"])]
    pub dialog_trace: Option<PathBuf>,
    /// With --dialogs: M1 of a turn without a `recall` trace searches the
    /// conversation sent up to the turn (every key the user said is a hit);
    /// without it such a turn is not run for M1 (a plain chat model recalls
    /// nothing). Recorded in run_manifest.json.
    #[arg(long, requires = "dialogs")]
    pub m1_from_conversation: bool,
    /// Score ranked source lists of a retrieval system (spec 000): --dataset has
    /// {case_id, query, expected_sources, bucket} lines, --responses
    /// {case_id, sources: [...]} lines, best first.
    #[arg(long)]
    pub retrieval: bool,
    /// With --retrieval: the cut-off of hit_at_k, recall_at_k and ndcg_at_k [default: 5].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub k: Option<u64>,
    /// The dataset, JSONL in the format the task reads (spec 004 samples;
    /// spec 003 records for support_qa; q/gold/doc_hint for rag_qa).
    #[arg(long, value_name = "FILE", required_unless_present = "dialogs")]
    pub dataset: Option<PathBuf>,
    /// The answers, JSONL: {"sample_id": ..., "response": ..., "model": optional};
    /// `response` may be text or a model's message with `tool_calls` (OpenAI,
    /// Anthropic, Responses), and BFCL's result lines (`id`, `result`) are read too.
    #[arg(long, value_name = "FILE", required_unless_present = "dialogs")]
    pub responses: Option<PathBuf>,
    /// With --task bfcl: BFCL's possible answers for --dataset [default:
    /// possible_answer/<the dataset's file name> beside it].
    #[arg(long, value_name = "FILE", requires = "task")]
    pub possible_answers: Option<PathBuf>,
    /// Optional spec 003 `metadata.json` of the dataset.
    #[arg(long, value_name = "FILE")]
    pub metadata: Option<PathBuf>,
    /// Language of report.md (and of the dialog judge's prompts).
    #[arg(long, value_enum, default_value_t = LangArg::Zh)]
    pub lang: LangArg,
    /// The judge: with --task, of the task's llm_judge metrics (as `run --task
    /// --judge` judges them); with --dialogs, of spec 001's judged metrics (M3
    /// and M4 by a judge, M5). A model registry entry (from --model-registry)
    /// or `mock`.
    #[arg(long, value_name = "NAME")]
    pub judge: Option<String>,
    /// With --judge: most judge requests in flight at once (workers_judge) [default: 4].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub judge_concurrency: Option<u16>,
    /// With --judge NAME: the model registry JSON that has the entry.
    #[arg(long, value_name = "FILE")]
    pub model_registry: Option<PathBuf>,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Which model answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    /// An OpenAI-compatible chat completions endpoint (`--endpoint`, `--model`).
    Openai,
    /// The built-in offline demo model.
    Demo,
}

/// How gold keypoints are matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MatchModeArg {
    /// Verbatim (after normalization).
    Strict,
    /// Verbatim, or bigram recall at or above `--fuzzy-threshold`.
    Fuzzy,
}

/// Language of console lines and the Markdown report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// Chinese.
    Zh,
    /// English.
    En,
}

impl From<LangArg> for evalpage_core::Lang {
    fn from(l: LangArg) -> evalpage_core::Lang {
        match l {
            LangArg::Zh => evalpage_core::Lang::Zh,
            LangArg::En => evalpage_core::Lang::En,
        }
    }
}

/// Options of `evalpage run`: a RAG check (the default), or with `--task` a
/// spec 004 task over one or more models, with `--retrieval` a retrieval
/// evaluation, with `--dialogs` a dialog run. The flags come in parts, one
/// struct each; a kind's plan (`run::check`) hands each helper only the parts
/// it reads. A flag's `display_order` is its place in `run --help` (the
/// parts do not keep the flags in that order); clap ids are global, so a
/// flag's relations (`requires`, `conflicts_with`) reach across the parts.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The input: the dataset and its metadata.
    #[command(flatten)]
    pub input: InputArgs,
    /// A dialog run (spec 001): `--dialogs` and what goes with it.
    #[command(flatten)]
    pub dialog: DialogArgs,
    /// A task run (spec 004): `--task` and what goes with it.
    #[command(flatten)]
    pub task: TaskArgs,
    /// A retrieval run (spec 000): `--retrieval` and what goes with it.
    #[command(flatten)]
    pub retrieval: RetrievalArgs,
    /// The model registry and the judge (with `--task` or `--dialogs`): the
    /// registry also holds the models of `--task --models`.
    #[command(flatten)]
    pub judge: JudgeArgs,
    /// Who answers the RAG check, a dialog run or a retrieval run: the provider,
    /// the endpoint, the model and the variable of its key.
    #[command(flatten)]
    pub endpoint: EndpointArgs,
    /// The run's limits: requests in flight, timeout and attempts, what a
    /// truncated or fatal answer does, the prices and the cost cap.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// What each request to the model carries besides the question: sampling
    /// temperature, answer tokens, system prompt.
    #[command(flatten)]
    pub request: RequestArgs,
    /// The RAG check's keypoint matching.
    #[command(flatten)]
    pub matching: MatchArgs,
    /// Where the run goes and what it starts from: the output directory and
    /// the report's language, an estimate instead of a run, the resumed log,
    /// the shard, the response cache (or a batch's answers).
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The input: the dataset and its metadata.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The dataset: JSONL with `q`, `gold`, `doc_hint` per line; with `--task`,
    /// in the format the task reads.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "dialogs",
        display_order = 1
    )]
    pub dataset: Option<PathBuf>,
    /// The dataset's spec 003 `metadata.json` (its fields go into the report).
    #[arg(long, value_name = "FILE", display_order = 15)]
    pub metadata: Option<PathBuf>,
}

/// The model registry and the judge (with `--task` or `--dialogs`): the
/// registry also holds the models of `--task --models`.
#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// With --task (or a --judge of --dialogs): the model registry JSON
    /// ({"models": [{"name", "base_url", "model", "api_key_env", "default_params"}]}).
    #[arg(long, value_name = "FILE", display_order = 10)]
    pub model_registry: Option<PathBuf>,
    /// With --task or --dialogs: the judge of the task's llm_judge metrics or
    /// of spec 001's judged metrics, a registry entry name (from
    /// --model-registry) or `mock` (the deterministic mock judge) [default
    /// with --task --mock: mock].
    #[arg(long, value_name = "NAME", display_order = 12)]
    pub judge: Option<String>,
    /// With --judge: most judge requests in flight at once (the judge's own
    /// pool; workers_judge of a dialog run) [default: --concurrency].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256), display_order = 13)]
    pub judge_concurrency: Option<u16>,
}

/// Who answers the RAG check, a dialog run or a retrieval run: the provider,
/// the endpoint, the model and the variable of its key.
#[derive(Debug, Args)]
pub struct EndpointArgs {
    /// Model provider [default: openai when --endpoint is given].
    #[arg(long, value_enum, display_order = 17)]
    pub provider: Option<Provider>,
    /// API base URL as OpenAI clients take it, e.g. http://127.0.0.1:8091/v1.
    #[arg(long, value_name = "URL", display_order = 18)]
    pub endpoint: Option<String>,
    /// Model name sent to the endpoint.
    #[arg(long, value_name = "NAME", display_order = 19)]
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (the key itself is never a flag).
    #[arg(long, value_name = "VAR", display_order = 20)]
    pub api_key_env: Option<String>,
}

/// The run's limits: requests in flight, timeout and attempts, what a
/// truncated or fatal answer does, the prices and the cost cap.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Most requests in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256), display_order = 21)]
    pub concurrency: u16,
    /// Per-request timeout in seconds.
    #[arg(long = "timeout-s", value_name = "S", default_value_t = 60.0, value_parser = positive_f64, display_order = 22)]
    pub timeout_s: f64,
    /// Attempts per case, the first included (retries on network errors, timeouts, 429, 5xx).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20), display_order = 23)]
    pub max_attempts: u32,
    /// Count an answer cut off at max_tokens (`finish_reason: "length"`) as a
    /// failed call instead of scoring it as it is.
    #[arg(long, display_order = 30)]
    pub truncated_as_failure: bool,
    /// Keep sending after a fatal answer (HTTP 401, 403, 404) instead of
    /// stopping the run (for endpoints that fail per case).
    #[arg(long, display_order = 31)]
    pub keep_going_on_fatal: bool,
    /// Price per million prompt (input) tokens, for the cost in the report
    /// (a one-model run; with --task, registry entries take `price_in_per_mtok`).
    #[arg(long, value_name = "PRICE", value_parser = price, display_order = 32)]
    pub price_in: Option<f64>,
    /// Price per million completion (output) tokens (see --price-in).
    #[arg(long, value_name = "PRICE", value_parser = price, display_order = 33)]
    pub price_out: Option<f64>,
    /// Stop the run once its priced usage reaches this cost (the prices'
    /// currency): calls in flight finish, the rest are not run (exit 3); a
    /// resume with a higher cap sends them.
    #[arg(long, value_name = "COST", value_parser = price, display_order = 39)]
    pub max_cost: Option<f64>,
}

/// What each request to the model carries besides the question: sampling
/// temperature, answer tokens, system prompt.
#[derive(Debug, Args)]
pub struct RequestArgs {
    /// Sampling temperature sent to the model.
    #[arg(long, value_name = "T", display_order = 24)]
    pub temperature: Option<f64>,
    /// Maximum answer tokens sent to the model.
    #[arg(long, value_name = "N", display_order = 25)]
    pub max_tokens: Option<u32>,
    /// System prompt sent with every question [default: the built-in RAG prompt].
    #[arg(long, value_name = "TEXT", display_order = 26)]
    pub system_prompt: Option<String>,
}

/// The RAG check's keypoint matching.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Keypoint matching mode.
    #[arg(long, value_enum, default_value_t = MatchModeArg::Fuzzy, display_order = 27)]
    pub match_mode: MatchModeArg,
    /// Minimum bigram recall for a fuzzy keypoint match, in (0, 1].
    #[arg(long, value_name = "F", default_value_t = 0.6, value_parser = threshold, display_order = 28)]
    pub fuzzy_threshold: f64,
}

/// Where the run goes and what it starts from: the output directory and
/// the report's language, an estimate instead of a run, the resumed log,
/// the shard, the response cache (or a batch's answers).
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Language of the console lines and report.md.
    #[arg(long, value_enum, default_value_t = LangArg::Zh, display_order = 29)]
    pub lang: LangArg,
    /// Event log (json-seq or JSONL) of an interrupted run of this dataset (and,
    /// with --task, of these models): its settled cases are taken over and only
    /// the rest is sent; with --dialogs, its settled turns (each dialog goes on
    /// at its first unsettled turn, the judge's settled verdicts kept).
    #[arg(long, value_name = "FILE", display_order = 34)]
    pub resume_from: Option<PathBuf>,
    /// Run shard I of N: a deterministic 1/N of the samples (split by sample
    /// id, the same on every machine); `evalpage merge` joins the N shards'
    /// directories into one run.
    #[arg(long, value_name = "I/N", value_parser = evalpage_core::run::Shard::parse, display_order = 35)]
    pub shard: Option<evalpage_core::run::Shard>,
    /// Response cache directory: an answer already there for the same
    /// endpoint, body and repeat is used without a request; answered calls
    /// are stored (never a failed call or a truncated answer).
    #[arg(long, value_name = "DIR", display_order = 38)]
    pub cache: Option<PathBuf>,
    /// Print what the run would send (calls, an upper bound of tokens and
    /// cost per model), write it to estimate.json in --out, and send nothing.
    #[arg(long, display_order = 40)]
    pub estimate: bool,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR", display_order = 41)]
    pub out: PathBuf,
    /// Set by `evalpage batch`: every endpoint request is answered from the
    /// batch's answers (or written to its next round), none is sent.
    #[arg(skip)]
    pub batch: Option<std::sync::Arc<crate::store::Book>>,
}

impl InputArgs {
    /// `--dataset` (clap requires it unless `--dialogs` is given).
    pub fn dataset(&self) -> &std::path::Path {
        self.dataset.as_deref().unwrap_or(std::path::Path::new(""))
    }
}

impl LimitArgs {
    /// `--timeout-s`, the time one request is given.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.timeout_s)
    }
}

impl ScoreArgs {
    /// `--dataset` (clap requires it unless `--dialogs` is given).
    pub fn dataset(&self) -> &std::path::Path {
        self.dataset.as_deref().unwrap_or(std::path::Path::new(""))
    }

    /// `--responses` (clap requires it unless `--dialogs` is given).
    pub fn responses(&self) -> &std::path::Path {
        self.responses
            .as_deref()
            .unwrap_or(std::path::Path::new(""))
    }

    /// `--k`, 5 when not given.
    pub fn k(&self) -> u64 {
        self.k.unwrap_or(5)
    }
}

/// Options of `evalpage mock-server`.
#[derive(Clone, Debug, Args)]
pub struct MockArgs {
    /// Port on 127.0.0.1; 0 picks a free one (the startup line prints it).
    #[arg(long, default_value_t = 8091)]
    pub port: u16,
    /// Delay before each normal answer, in ms.
    #[arg(long, value_name = "L", default_value_t = 0)]
    pub latency_ms: u64,
    /// Share of chat requests answered with HTTP 500.
    #[arg(long, value_name = "F", default_value_t = 0.0, value_parser = rate)]
    pub fail_rate: f64,
    /// Share of chat requests answered with HTTP 429 and `Retry-After: 1`.
    #[arg(long, value_name = "R", default_value_t = 0.0, value_parser = rate)]
    pub rate_limit_rate: f64,
    /// Share of chat requests that hang for 120 s before answering.
    #[arg(long, value_name = "H", default_value_t = 0.0, value_parser = rate)]
    pub hang_rate: f64,
    /// Seed of the fault draws (one draw per chat request, in arrival order).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// JSONL of `{"q": ..., "answer": ...}`: scripted answers for these questions
    /// (others get the demo model's answer).
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Answer the prompts of this task's samples (from --dataset) with the task
    /// mock model, per requested model name, as `run --task --mock` does.
    #[arg(long, value_name = "NAME|FILE.yaml", requires = "dataset")]
    pub task: Option<String>,
    /// The dataset whose prompts --task answers.
    #[arg(long, value_name = "FILE", requires = "task")]
    pub dataset: Option<PathBuf>,
    /// Send reasoning with every answer (scripted `reasoning`, else a short
    /// generated one): as `reasoning_content` (field), `reasoning`, an inline
    /// `<think>` block (inline), or only a closing `</think>` (inline-no-open).
    #[arg(long, value_enum, value_name = "STYLE")]
    pub reasoning_style: Option<ReasoningStyle>,
    /// `finish_reason` of every answer that does not script one (e.g. `length`).
    #[arg(long, value_name = "REASON")]
    pub finish_reason: Option<String>,
    /// Answer every chat request with this HTTP status (401: a wrong key; 403, 404).
    #[arg(long, value_name = "STATUS", value_parser = clap::value_parser!(u16).range(400..=599))]
    pub fail_status: Option<u16>,
    /// Answer as a spec 001 dialog system (the core's deterministic dialog
    /// mock) with trace fields (`recall`, `tools`, `compliance`,
    /// `profile_snapshot`): in a top-level `evalpage_trace` field (field), or
    /// as a JSON object in the message content (message).
    #[arg(long, value_enum, value_name = "STYLE")]
    pub dialog_trace: Option<DialogTraceStyle>,
    /// With --dialog-trace: the dialog dataset whose ground truth the mock
    /// plays against (without it every answer is generic).
    #[arg(long, value_name = "FILE", requires = "dialog_trace")]
    pub dialogs: Option<PathBuf>,
    /// Answer chat and retrieval requests without `Authorization: Bearer KEY`
    /// with 401, as an endpoint behind a key does (the key is never logged).
    #[arg(long, value_name = "KEY")]
    pub require_key: Option<String>,
    /// Log one line per request to stderr (method, path, status; never headers).
    #[arg(long)]
    pub log: bool,
}

/// Options of `evalpage reconcile`.
#[derive(Debug, Args)]
pub struct ReconcileArgs {
    /// The final report: `report.json` (a task run's), `eval_rag_report.json`,
    /// `eval_retrieval_report.json`, or a dialog run's `metrics_summary.json`.
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// The event log, JSONL or json-seq (a cut-off last record is tolerated).
    #[arg(long, value_name = "FILE")]
    pub events: PathBuf,
}

fn parse_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a finite number"))
    }
}

fn price(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err("must be 0 or more".into())
    }
}

fn positive_f64(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err("must be greater than 0".into())
    }
}

fn threshold(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err("must be in (0, 1]".into())
    }
}

fn rate(s: &str) -> Result<f64, String> {
    let v = parse_f64(s)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err("must be in [0, 1]".into())
    }
}

/// Where the mock puts spec 001 trace fields (`--dialog-trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DialogTraceStyle {
    /// A top-level `evalpage_trace` object in the response.
    Field,
    /// The message content is `{"answer": ..., "recall": ..., ...}`.
    Message,
}

/// How the mock sends reasoning (`--reasoning-style`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReasoningStyle {
    /// `message.reasoning_content` (DeepSeek, vLLM, llama.cpp).
    #[default]
    Field,
    /// `message.reasoning` (Ollama, OpenRouter).
    Reasoning,
    /// `<think>…</think>` at the start of `content`.
    Inline,
    /// Only `</think>` in `content` (the opening tag was in the chat template).
    InlineNoOpen,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_run_defaults_and_rejects_bad_ranges() {
        let cli = Cli::try_parse_from(["evalpage", "run", "--dataset", "d", "--out", "o"])
            .expect("minimal run parses");
        let Command::Run(a) = cli.command else {
            panic!("expected run")
        };
        assert_eq!((a.limits.concurrency, a.limits.max_attempts), (4, 3));
        assert_eq!(
            (a.limits.timeout_s, a.matching.fuzzy_threshold),
            (60.0, 0.6)
        );
        assert_eq!(a.output.lang, LangArg::Zh);
        let bad = ["--fuzzy-threshold", "0", "--concurrency", "0"];
        for pair in bad.chunks(2) {
            let mut argv = vec!["evalpage", "run", "--dataset", "d", "--out", "o"];
            argv.extend_from_slice(pair);
            assert!(Cli::try_parse_from(argv).is_err(), "{pair:?}");
        }
    }

    #[test]
    fn parses_score_and_task_check() {
        let cli = Cli::try_parse_from([
            "evalpage",
            "score",
            "--task",
            "event_eval",
            "--dataset",
            "d",
            "--responses",
            "r",
            "--out",
            "o",
        ])
        .expect("score parses");
        let Command::Score(a) = cli.command else {
            panic!("expected score")
        };
        assert_eq!(
            (a.task.as_deref(), a.lang, a.metadata),
            (Some("event_eval"), LangArg::Zh, None)
        );
        let cli = Cli::try_parse_from([
            "evalpage",
            "run",
            "--task",
            "event_eval",
            "--dataset",
            "d",
            "--models",
            "a,b",
            "--model-registry",
            "r.json",
            "--max-samples",
            "3",
            "--out",
            "o",
        ])
        .expect("task run parses");
        let Command::Run(a) = cli.command else {
            panic!("expected run")
        };
        assert_eq!(a.task.models, ["a", "b"]);
        assert_eq!(a.task.max_samples, Some(3));
        for bad in [
            vec!["--models", "a"],
            vec!["--mock"],
            vec!["--task", "t", "--endpoint", "http://h"],
            vec!["--task", "t", "--max-samples", "0"],
        ] {
            let mut argv = vec!["evalpage", "run", "--dataset", "d", "--out", "o"];
            argv.extend(bad.iter().copied());
            assert!(Cli::try_parse_from(&argv).is_err(), "{argv:?}");
        }
        let cli = Cli::try_parse_from(["evalpage", "task", "check", "t.yaml"]).expect("check");
        assert!(matches!(cli.command, Command::Task(TaskCommand::Check(_))));
        assert!(Cli::try_parse_from(["evalpage", "score", "--task", "x"]).is_err());
    }

    #[test]
    fn parses_dialog_runs_and_dialog_scoring() {
        let cli = Cli::try_parse_from(["evalpage", "run", "--dialogs", "d.jsonl", "--out", "o"])
            .expect("a dialog run needs no --dataset");
        let Command::Run(a) = cli.command else {
            panic!("expected run")
        };
        assert_eq!(
            a.dialog.dialogs.as_deref(),
            Some(std::path::Path::new("d.jsonl"))
        );
        let cli = Cli::try_parse_from([
            "evalpage",
            "score",
            "--dialogs",
            "d",
            "--dialog-trace",
            "t",
            "--out",
            "o",
        ])
        .expect("dialog scoring needs no --task");
        assert!(matches!(cli.command, Command::Score(a) if a.dialog_trace.is_some()));
        for bad in [
            vec!["run", "--dialogs", "d", "--dataset", "x", "--out", "o"],
            vec!["run", "--dialogs", "d", "--task", "t", "--out", "o"],
            vec!["run", "--out", "o"],
            vec!["score", "--dialogs", "d", "--out", "o"],
            vec![
                "score",
                "--dialog-trace",
                "t",
                "--task",
                "x",
                "--dataset",
                "d",
                "--responses",
                "r",
                "--out",
                "o",
            ],
            vec!["mock-server", "--dialogs", "d"],
        ] {
            let mut argv = vec!["evalpage"];
            argv.extend(bad.iter().copied());
            assert!(Cli::try_parse_from(&argv).is_err(), "{argv:?}");
        }
        assert!(
            Cli::try_parse_from(["evalpage", "mock-server", "--dialog-trace", "message"]).is_ok()
        );
    }

    #[test]
    fn rates_must_be_shares() {
        assert_eq!(rate("0.25"), Ok(0.25));
        assert!(rate("1.5").is_err() && rate("nan").is_err() && rate("x").is_err());
        assert!(positive_f64("0").is_err());
    }
}
