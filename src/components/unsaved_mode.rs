//! The state and the run of a mode that is not saved for resume (retrieval,
//! dialogs): the page state's reducer and the handle of the run going, kept
//! by the app for the whole page load so switching modes loses nothing.

use crate::effects::runner::{Handle, RunView};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// A mode's state `S` and its run of view `V`.
pub struct UnsavedMode<S: Reducible, V: RunView> {
    /// The page state.
    pub state: UseReducerHandle<S>,
    /// The run going, if any.
    pub run: Rc<RefCell<Option<Handle<V>>>>,
}

impl<S: Reducible, V: RunView> Clone for UnsavedMode<S, V> {
    fn clone(&self) -> Self {
        UnsavedMode {
            state: self.state.clone(),
            run: self.run.clone(),
        }
    }
}

impl<S: Reducible + PartialEq, V: RunView> PartialEq for UnsavedMode<S, V> {
    fn eq(&self, other: &Self) -> bool {
        self.state == other.state && Rc::ptr_eq(&self.run, &other.run)
    }
}

/// A mode's state and run (call once, in the app).
#[hook]
pub fn use_unsaved_mode<S, V>() -> UnsavedMode<S, V>
where
    S: Reducible + Default + 'static,
    V: RunView,
{
    UnsavedMode {
        state: use_reducer(S::default),
        run: use_mut_ref(|| None),
    }
}
