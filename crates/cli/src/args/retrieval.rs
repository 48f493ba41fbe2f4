//! `evalpage run`'s flags of a retrieval run.

use clap::Args;

/// A retrieval run (spec 000): `--retrieval` and what goes with it.
#[derive(Debug, Args)]
pub struct RetrievalArgs {
    /// A retrieval evaluation (spec 000): the dataset holds `{case_id, query,
    /// expected_sources, bucket}` lines and each query is sent to the retrieval
    /// endpoint `--endpoint` (the full URL of its search route; without one, the
    /// offline demo retriever over the bundled documents answers).
    #[arg(long, conflicts_with_all = ["provider", "model", "system_prompt"], display_order = 5)]
    pub retrieval: bool,
    /// With --retrieval: the JSON request body, as a template over `query`,
    /// `case_id`, `bucket` and `k` (strings need `|tojson`); `@FILE` reads it
    /// from a file. Default: `{"query": {{ query|tojson }}, "top_k": {{ k }}}`.
    #[arg(
        long,
        value_name = "TEMPLATE|@FILE",
        requires = "retrieval",
        display_order = 6
    )]
    pub body: Option<String>,
    /// With --retrieval: where the ranked source list is in the answer, e.g.
    /// `results[*].source` (the default) or `$.data.documents[*].file`.
    #[arg(long, value_name = "PATH", requires = "retrieval", display_order = 7)]
    pub list_path: Option<String>,
    /// With --retrieval: the cut-off of hit_at_k, recall_at_k and ndcg_at_k.
    #[arg(long = "k", value_name = "K", default_value_t = 5, requires = "retrieval", value_parser = clap::value_parser!(u64).range(1..), display_order = 8)]
    pub retrieval_k: u64,
}
