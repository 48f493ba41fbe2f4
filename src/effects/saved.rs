//! The runs saved in this browser (IndexedDB): the unfinished ones that no
//! other tab is running (each with its settled count and the origins its
//! requests go to), and discarding one.

use super::{idb, locks};
use crate::state::resume::Offer;
use evalpage_core::events;
use yew::Callback;

async fn unfinished() -> Result<Vec<Offer>, String> {
    let db = idb::open().await?;
    let live = locks::held().await;
    let mut out = Vec::new();
    for stored in idb::runs(&db).await? {
        // A record of a mode this page does not have (a newer page wrote
        // it) is left as it is.
        let Some(mode) = stored.mode() else { continue };
        if stored.status != "running" || live.contains(&stored.run_id) {
            continue;
        }
        let events = idb::events(&db, &stored.run_id).await?;
        let done = events::read(events.as_bytes()).of_type("case").count();
        out.push(Offer {
            mode,
            stored,
            events: events.into(),
            done,
        });
    }
    Ok(out)
}

/// Looks for the unfinished runs saved in this browser that no tab is
/// running (newest first) and hands them to `then`.
pub fn find_unfinished(then: Callback<Vec<Offer>>) {
    super::spawn(async move {
        match unfinished().await {
            Ok(offers) => then.emit(offers),
            Err(e) => web_sys::console::warn_1(
                &format!("evalpage: cannot look for unfinished runs: {e}").into(),
            ),
        }
    });
}

/// Deletes a saved run and its events, then calls `then`.
pub fn discard(run_id: String, then: impl FnOnce() + 'static) {
    super::spawn(async move {
        let deleted = async {
            let db = idb::open().await?;
            idb::delete(&db, &run_id).await
        };
        if let Err(e) = deleted.await {
            web_sys::console::warn_1(
                &format!("evalpage: could not delete the run {run_id}: {e}").into(),
            );
        }
        then();
    });
}
