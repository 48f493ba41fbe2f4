//! Saves text or bytes as a download through a Blob and an object URL.

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `content` as a file named `name`.
pub fn save(name: &str, mime: &str, content: &str) -> Result<(), String> {
    offer(name, mime, &JsValue::from_str(content))
}

/// Offers `bytes` (a zip, ...) as a file named `name`.
pub fn save_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    offer(name, mime, &js_sys::Uint8Array::from(bytes))
}

/// `new Blob([part])` takes a string or a byte array alike (web-sys names one
/// constructor several ways by the part type; they are the same JS call).
fn offer(name: &str, mime: &str, part: &JsValue) -> Result<(), String> {
    let parts = js_sys::Array::of1(part);
    let props = BlobPropertyBag::new();
    props.set_type(mime);
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &props)
        .map_err(|e| format!("{e:?}"))?;
    let url = Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    let document = gloo_utils_document().ok_or("no document")?;
    let a: HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| format!("{e:?}"))?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = Url::revoke_object_url(&url);
    Ok(())
}

fn gloo_utils_document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}
