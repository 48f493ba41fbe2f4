//! The runs saved in this browser (IndexedDB): the unfinished ones that no
//! other tab is running (each with its settled count and the origins its
//! requests go to), and discarding one.

use super::{idb, locks, url};
use crate::state::resume::Offer;
use crate::state::stored::{StoredInputs, StoredRun};
use crate::state::Provider;
use evalpage_core::events;
use yew::Callback;

/// The origins a stored run's requests go to, as the browser reads them.
fn origins(s: &StoredRun) -> Vec<String> {
    let mut out: Vec<String> = match &s.inputs {
        StoredInputs::Rag(r) if r.settings.provider == Provider::Openai => {
            url::origin(&r.settings.base_url).into_iter().collect()
        }
        StoredInputs::Rag(_) => Vec::new(),
        StoredInputs::Retrieval(r) => url::origin(&r.url).into_iter().collect(),
        StoredInputs::Dialog(d) => url::origin(&d.url).into_iter().collect(),
        StoredInputs::Task(t) => t
            .models
            .iter()
            .filter_map(|m| m.entry.as_ref())
            .filter_map(|e| url::origin(&e.base_url))
            .collect(),
    };
    out.dedup();
    out
}

async fn unfinished() -> Result<Vec<Offer>, String> {
    let db = idb::open().await?;
    let live = locks::held().await;
    let mut out = Vec::new();
    for stored in idb::runs(&db).await? {
        if stored.status != "running" || live.contains(&stored.run_id) {
            continue;
        }
        let events = idb::events(&db, &stored.run_id).await?;
        let done = events::read(events.as_bytes()).of_type("case").count();
        out.push(Offer {
            origins: origins(&stored),
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
