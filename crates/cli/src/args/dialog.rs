//! `evalpage run`'s flags of a dialog run.

use clap::Args;
use std::path::PathBuf;

/// A dialog run (spec 001): `--dialogs` and what goes with it.
#[derive(Debug, Args)]
pub struct DialogArgs {
    /// Play spec 001 dialogs (JSONL, one dialog per line) turn by turn against
    /// the endpoint (or --provider demo, the dialog mock) and write spec 001's
    /// five artifacts; --concurrency is workers_dialog.
    #[arg(long, value_name = "DATASET", conflicts_with_all = ["dataset", "task", "metadata", "price_in", "price_out", "retrieval"], display_order = 2)]
    pub dialogs: Option<PathBuf>,
    /// With --dialogs: M1 of a turn without a `recall` trace searches the
    /// conversation sent up to the turn (every key the user said is a hit);
    /// without it such a turn is not run for M1 (a plain chat model recalls
    /// nothing). Recorded in run_manifest.json.
    #[arg(long, requires = "dialogs", display_order = 3)]
    pub m1_from_conversation: bool,
}
