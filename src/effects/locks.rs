//! One Web Lock per run (`navigator.locks`), held by the tab that runs it for
//! as long as it runs, so that another tab never offers or resumes a run
//! that is live elsewhere. The browser releases a tab's locks when the tab
//! closes or reloads, so a reloaded tab finds its own run free again.
//!
//! web-sys's `LockManager` bindings are behind `web_sys_unstable_apis`, so
//! the API is called through `js_sys::Reflect`. Where it is missing (a page
//! served over plain http from another host is not a secure context), runs
//! are not locked and every stored run is offered, as before.

use js_sys::{Array, Function, Object, Promise, Reflect};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The lock name of a run.
fn name(run_id: &str) -> String {
    format!("evalpage-run:{run_id}")
}

/// `navigator.locks`, when the browser has it here.
fn manager() -> Option<JsValue> {
    let navigator = Reflect::get(&js_sys::global(), &JsValue::from_str("navigator")).ok()?;
    let locks = Reflect::get(&navigator, &JsValue::from_str("locks")).ok()?;
    (!locks.is_undefined() && !locks.is_null()).then_some(locks)
}

fn method(target: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(target, &JsValue::from_str(name))
        .ok()?
        .dyn_into()
        .ok()
}

/// A run's lock, held until dropped (or until the tab goes away).
pub struct RunLock {
    release: Option<Function>,
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            let _ = release.call0(&JsValue::NULL);
        }
    }
}

/// Takes the lock of `run_id` if no tab holds it: `None` when another tab
/// runs it. Without Web Locks, a lock that holds nothing.
async fn try_lock(run_id: &str) -> Option<RunLock> {
    let unlocked = Some(RunLock { release: None });
    let Some((locks, request)) = manager().and_then(|l| method(&l, "request").map(|r| (l, r)))
    else {
        return unlocked;
    };
    let release: Rc<RefCell<Option<Function>>> = Rc::default();
    let slot = release.clone();
    let name = name(run_id);
    let granted = Promise::new(&mut |resolve: Function, _reject: Function| {
        let (slot, on_error) = (slot.clone(), resolve.clone());
        // Called with the lock, or with `null` when another tab holds it;
        // the lock is held until the promise it returns settles.
        let callback = Closure::once_into_js(move |lock: JsValue| -> JsValue {
            if lock.is_null() {
                let _ = resolve.call1(&JsValue::NULL, &JsValue::FALSE);
                return JsValue::UNDEFINED;
            }
            let held = Promise::new(&mut |release: Function, _| {
                *slot.borrow_mut() = Some(release);
            });
            let _ = resolve.call1(&JsValue::NULL, &JsValue::TRUE);
            held.into()
        });
        let options = Object::new();
        let _ = Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE);
        let args = Array::of3(&JsValue::from_str(&name), &options, &callback);
        // A browser that refuses the request runs the run unlocked.
        let fail = Closure::once_into_js(move |_: JsValue| {
            let _ = on_error.call1(&JsValue::NULL, &JsValue::UNDEFINED);
        });
        match request.apply(&locks, &args) {
            Ok(p) => {
                if let Some(catch) = method(&p, "catch") {
                    let _ = catch.call1(&p, &fail);
                }
            }
            Err(_) => {
                let _ = fail
                    .unchecked_ref::<Function>()
                    .call1(&JsValue::NULL, &JsValue::NULL);
            }
        }
    });
    match JsFuture::from(granted).await {
        Ok(v) if v == JsValue::FALSE => None,
        Ok(v) if v == JsValue::TRUE => Some(RunLock {
            release: release.borrow_mut().take(),
        }),
        _ => unlocked,
    }
}

/// Takes the lock of `run_id`, then calls `then` with it (`None`: another
/// tab runs it).
pub fn lock(run_id: &str, then: impl FnOnce(Option<RunLock>) + 'static) {
    let run_id = run_id.to_string();
    super::spawn(async move { then(try_lock(&run_id).await) });
}

/// The run ids whose lock some tab holds now (empty without Web Locks).
pub async fn held() -> HashSet<String> {
    let Some((locks, query)) = manager().and_then(|l| method(&l, "query").map(|q| (l, q))) else {
        return HashSet::new();
    };
    let Ok(promise) = query.call0(&locks) else {
        return HashSet::new();
    };
    let Ok(snapshot) = JsFuture::from(promise.unchecked_into::<Promise>()).await else {
        return HashSet::new();
    };
    let held = Reflect::get(&snapshot, &"held".into()).unwrap_or(JsValue::UNDEFINED);
    let Ok(held) = held.dyn_into::<Array>() else {
        return HashSet::new();
    };
    held.iter()
        .filter_map(|info| Reflect::get(&info, &"name".into()).ok()?.as_string())
        .filter_map(|n| n.strip_prefix("evalpage-run:").map(str::to_string))
        .collect()
}
