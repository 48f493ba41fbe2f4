//! Reads a user-chosen file into bytes, locally: nothing is uploaded.

use wasm_bindgen_futures::JsFuture;
use web_sys::File;

/// The file's name and bytes.
pub async fn read(file: File) -> Result<(String, Vec<u8>), String> {
    let name = file.name();
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("could not read {name}: {e:?}"))?;
    Ok((name, js_sys::Uint8Array::new(&buffer).to_vec()))
}

/// Fetches a dataset from a URL (`?dataset=`), for hosted evaluations.
pub async fn fetch_url(url: &str) -> Result<(String, Vec<u8>), String> {
    let response = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| format!("could not fetch {url}: {e}"))?;
    if !response.ok() {
        return Err(format!("could not fetch {url}: HTTP {}", response.status()));
    }
    let bytes = response
        .binary()
        .await
        .map_err(|e| format!("could not read {url}: {e}"))?;
    let name = url
        .rsplit('/')
        .next()
        .unwrap_or(url)
        .split('?')
        .next()
        .unwrap_or(url);
    Ok((name.to_string(), bytes))
}
