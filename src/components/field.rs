//! How the page's fields commit what the user types: on every `input` event,
//! never on blur.
//!
//! A field that commits on `change` updates the page when it loses focus,
//! and it loses focus on the `mousedown` of the next click: the re-render
//! that follows (the key's origin listed, a warning shown) moves what was
//! under the pointer, the `mouseup` lands elsewhere and the click is lost.
//! That was the swallowed first click on Start after typing an API key. So
//! text and number fields commit as they are typed (`oninput={field::on_input(cb)}`)
//! and nothing changes on blur. A number field mid-edit (`1.`, `-`: the
//! browser reports no value and flags `badInput`) commits nothing until it
//! holds a number again, so typing `0.7` is never reset under the cursor.

use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::{Callback, Event, InputEvent};

/// The value of the event's field: an input's text (`true`/`false` for a
/// checkbox), a select's value, a text area's text.
pub fn value(e: &Event) -> Option<String> {
    let t = e.target()?;
    if let Some(i) = t.dyn_ref::<HtmlInputElement>() {
        return Some(if i.type_() == "checkbox" {
            i.checked().to_string()
        } else {
            i.value()
        });
    }
    if let Some(s) = t.dyn_ref::<HtmlSelectElement>() {
        return Some(s.value());
    }
    t.dyn_ref::<HtmlTextAreaElement>().map(|a| a.value())
}

/// The text of an `input` event's field, or `None` while a number field is
/// mid-edit (not a number yet).
pub fn typed(e: &InputEvent) -> Option<String> {
    let e: &Event = e;
    if let Some(i) = e
        .target()
        .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
    {
        if i.type_() == "number" && i.validity().bad_input() {
            return None;
        }
    }
    value(e)
}

/// An `oninput` handler that hands the field's text to `cb` as it is typed
/// (see the module header).
pub fn on_input(cb: Callback<String>) -> Callback<InputEvent> {
    Callback::from(move |e: InputEvent| {
        if let Some(v) = typed(&e) {
            cb.emit(v);
        }
    })
}
