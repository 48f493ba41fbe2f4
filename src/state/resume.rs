//! Resuming interrupted runs: what a resumed run takes over, the unfinished
//! runs found in this browser's storage after a reload (both modes, each
//! offered with its dataset, mode, settled/total and origin), and which of
//! them the user picked.

use super::shell::Mode;
use super::stored::StoredRun;
use evalpage_core::Lang;
use evalpage_core::RunKind;
use std::rc::Rc;
use yew::Reducible;

/// What a resumed run takes over from the interrupted one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Takeover {
    /// The interrupted run's id (kept, so both logs belong to one run).
    pub run_id: Option<String>,
    /// Its start time, when known (a resume from this browser's storage; it
    /// also seeds the retry jitter).
    pub started_at_ms: Option<u64>,
    /// Its event log (JSONL or json-seq): what it settled is not sent again.
    pub log: Option<Rc<str>>,
}

/// An unfinished run found in this browser's storage after a reload, that
/// no other tab is running.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// Its mode (a record of a mode the page does not have is not offered).
    pub mode: Mode,
    /// The stored run.
    pub stored: StoredRun,
    /// Its saved event lines (JSONL).
    pub events: Rc<str>,
    /// Jobs already settled (its `case` records).
    pub done: usize,
}

impl Offer {
    /// What resuming it takes over: its id, start time and log.
    pub fn takeover(&self) -> Takeover {
        Takeover {
            run_id: Some(self.stored.run_id.clone()),
            started_at_ms: Some(self.stored.started_at_ms),
            log: Some(self.events.clone()),
        }
    }

    /// The offer's line: run, what it runs, settled/total, and the origins
    /// that will receive the requests (and a key, if one is saved for them).
    pub fn summary(&self, lang: Lang) -> String {
        let s = &self.stored;
        let to = if s.origins.is_empty() {
            String::new()
        } else {
            let origins = s.origins.join(", ");
            format!(" {} {origins}", lang.pick("请求将发往", "Requests go to"))
        };
        // A stored run is always a kind's (the viewer runs nothing).
        let decl = match self.mode {
            Mode::Run(k) => k.decl(),
            Mode::View => RunKind::Task.decl(),
        };
        let (what, unit) = (decl.unfinished.get(lang), decl.settled.get(lang));
        let shown = if s.shown.is_empty() {
            &s.dataset_name
        } else {
            &s.shown
        };
        format!(
            "{what} {} ({shown}): {}/{} {unit}{to}",
            s.run_id, self.done, s.total
        )
    }

    /// The run's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }
}

/// The unfinished runs offered, newest first, and the one picked in the
/// other mode's tab (resumed once that mode shows).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offers {
    /// Unfinished runs no other tab is running.
    pub list: Rc<Vec<Rc<Offer>>>,
    /// The run id picked to resume when its mode shows.
    pub pending: Option<String>,
}

/// What changes the offers.
#[derive(Clone, Debug)]
pub enum OffersAction {
    /// The unfinished runs found in storage.
    Found(Vec<Offer>),
    /// A run was resumed, discarded, or is live in another tab: offer it no more.
    Remove(String),
    /// Resume this run once its mode shows (or forget the pick).
    Pick(Option<String>),
}

impl Offers {
    /// The offer of a run id.
    pub fn get(&self, run_id: &str) -> Option<Rc<Offer>> {
        self.list
            .iter()
            .find(|o| o.stored.run_id == run_id)
            .cloned()
    }
}

impl Reducible for Offers {
    type Action = OffersAction;

    fn reduce(self: Rc<Self>, action: OffersAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            OffersAction::Found(list) => {
                next.list = Rc::new(list.into_iter().map(Rc::new).collect())
            }
            OffersAction::Remove(run_id) => {
                let kept = next.list.iter().filter(|o| o.stored.run_id != run_id);
                next.list = Rc::new(kept.cloned().collect());
                if next.pending.as_deref() == Some(run_id.as_str()) {
                    next.pending = None;
                }
            }
            OffersAction::Pick(run_id) => next.pending = run_id,
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rag::state::RagInputs;
    use crate::state::stored::StoredInputs;
    use crate::state::ModelSettings;
    use crate::task::state::TaskState;

    fn rag(run_id: &str) -> Offer {
        Offer {
            mode: Mode::Run(RunKind::Rag),
            stored: StoredRun {
                run_id: run_id.into(),
                started_at_ms: 1,
                status: "running".into(),
                dataset_name: "a.jsonl".into(),
                lang: "en".into(),
                total: 10,
                inputs: StoredInputs::of(&RagInputs {
                    dataset_text: String::new(),
                    settings: ModelSettings::default(),
                    local_model: None,
                }),
                shown: String::new(),
                origins: vec!["http://127.0.0.1:8091".into()],
            },
            events: Rc::from(""),
            done: 3,
        }
    }

    #[test]
    fn each_offer_names_its_run_dataset_progress_and_origin() {
        assert_eq!(
            rag("eval_rag-1").summary(Lang::En),
            "Unfinished run eval_rag-1 (a.jsonl): 3/10 cases settled. Requests go to http://127.0.0.1:8091"
        );
        let stored =
            StoredRun::of_task(&TaskState::default(), "eval_task-1", 1, Lang::En, |_| None);
        let task = Offer {
            mode: Mode::Run(RunKind::Task),
            stored,
            events: Rc::from(""),
            done: 5,
        };
        assert_eq!(task.mode(), Mode::Run(RunKind::Task));
        assert_eq!(
            task.summary(Lang::En),
            "Unfinished task run eval_task-1 (event_eval · event_eval.jsonl · mock-a, mock-b): 5/16 calls settled."
        );
    }

    #[test]
    fn a_resumed_run_is_offered_no_more_and_its_pick_is_dropped() {
        let s = Rc::new(Offers::default());
        let s = s.reduce(OffersAction::Found(vec![rag("a"), rag("b")]));
        let s = s.reduce(OffersAction::Pick(Some("b".into())));
        assert_eq!(s.get("b").map(|o| o.done), Some(3));
        let s = s.reduce(OffersAction::Remove("b".into()));
        assert_eq!(s.list.len(), 1);
        assert_eq!(s.pending, None);
        assert!(s.get("b").is_none());
    }
}
