//! Saves text as a download through a Blob and an object URL.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `content` as a file named `name`.
pub fn save(name: &str, mime: &str, content: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
    let props = BlobPropertyBag::new();
    props.set_type(mime);
    let blob =
        Blob::new_with_str_sequence_and_options(&parts, &props).map_err(|e| format!("{e:?}"))?;
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
