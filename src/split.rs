//! Code a bin fetches after its first load, from a wasm-split point it
//! declares with [`split_point!`](crate::split_point) and hands to
//! [`crate::app::start`]: the point's loader, and what it gave once it has loaded
//! (kept for the page load, so that a page can ask for it synchronously).
//! Each point gives one value (a table of functions, or one function) that
//! is reachable only through the point, so the linker puts the code behind
//! it in the split module. The run code (`launch`), the zip writer
//! (`components::zip_button`), the dialog judge's prompts (`dialog::judges`)
//! the task mode's checks (`task::code`) and the loader of a model file run
//! in the page (`effects::local_model`) each keep one [`SplitCode`];
//! wasm_split_helpers caches a module once it has loaded and fetches again
//! after a failure.
//!
//! A point is declared in the bin, not in this crate: `wasm_split` exports
//! the split function from the crate it is written in, so written here it
//! would be linked into every bin, the viewer's too.

use crate::NotLoaded;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::thread::LocalKey;

/// What a split point gives, on its way.
pub type SplitFuture<T> = Pin<Box<dyn Future<Output = Result<T, NotLoaded>>>>;

/// A bin's split point (declared by [`split_point!`](crate::split_point)).
pub type Loader<T> = fn() -> SplitFuture<T>;

/// One split point's loader and what it gave.
pub struct SplitCode<T: 'static> {
    loader: Cell<Option<Loader<T>>>,
    loaded: RefCell<Option<T>>,
}

impl<T: Clone + 'static> Default for SplitCode<T> {
    fn default() -> Self {
        SplitCode::new()
    }
}

impl<T: Clone + 'static> SplitCode<T> {
    /// Nothing to load yet.
    pub const fn new() -> SplitCode<T> {
        SplitCode {
            loader: Cell::new(None),
            loaded: RefCell::new(None),
        }
    }

    /// The bin's loader (set once by [`crate::app::start`], or by a test that
    /// mounts a mode's root itself).
    pub fn set_loader(&self, loader: Option<Loader<T>>) {
        self.loader.set(loader);
    }

    /// What the point gave, once loaded in this page load.
    pub fn loaded(&self) -> Option<T> {
        self.loaded.borrow().clone()
    }

    /// True when there is something to load: a loader, and nothing loaded yet.
    pub fn to_load(&self) -> bool {
        self.loader.get().is_some() && self.loaded.borrow().is_none()
    }
}

/// What the point of `code` gives, loaded the first time (a failed fetch, or
/// a bin without the point, is [`NotLoaded`]; the next call tries again).
pub async fn load<T: Clone + 'static>(
    code: &'static LocalKey<SplitCode<T>>,
) -> Result<T, NotLoaded> {
    if let Some(t) = code.with(SplitCode::loaded) {
        return Ok(t);
    }
    let loader = code.with(|c| c.loader.get()).ok_or(NotLoaded)?;
    let t = loader().await?;
    code.with(|c| *c.loaded.borrow_mut() = Some(t.clone()));
    Ok(t)
}

/// Declares, in a bin, the wasm-split point `$module` and a [`Loader`] named
/// `$loader` that fetches it and gives `$value` (of type `$t`), for a field
/// of [`crate::app::Splits`]:
///
/// ```ignore
/// evalpage_web::split_point!(zip, zipper: Zipper = evalpage_web::archive::zip_files);
/// ```
#[macro_export]
macro_rules! split_point {
    ($module:ident, $loader:ident: $t:ty = $value:expr) => {
        fn $loader() -> $crate::split::SplitFuture<$t> {
            #[::wasm_split_helpers::wasm_split($module, fallible)]
            fn $loader() -> ::std::result::Result<$t, $crate::NotLoaded> {
                Ok($value)
            }
            ::std::boxed::Box::pin($loader())
        }
    };
}
