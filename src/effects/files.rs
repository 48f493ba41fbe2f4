//! Reads a user-chosen file into bytes, locally: nothing is uploaded; and
//! fetches a dataset named by the page URL. `read_then` and `fetch_then`
//! spawn the reading here, so components only pass a callback.

use wasm_bindgen_futures::JsFuture;
use web_sys::File;

/// A file's name and bytes, or why it could not be read.
pub type Read = Result<(String, Vec<u8>), String>;

/// Reads `file`, then calls `then` with its name and bytes.
pub fn read_then(file: File, then: impl FnOnce(Read) + 'static) {
    super::spawn(async move { then(read(file).await) });
}

/// Reads every file of `list` in turn, then calls `then` with each name and
/// bytes (or the first file that could not be read).
pub fn read_all_then(
    list: Vec<File>,
    then: impl FnOnce(Result<Vec<(String, Vec<u8>)>, String>) + 'static,
) {
    super::spawn(async move {
        let mut out = Vec::with_capacity(list.len());
        for file in list {
            match read(file).await {
                Ok(f) => out.push(f),
                Err(e) => return then(Err(e)),
            }
        }
        then(Ok(out))
    });
}

/// Fetches `url`, then calls `then` with its file name and bytes.
pub fn fetch_then(url: String, then: impl FnOnce(Read) + 'static) {
    super::spawn(async move { then(fetch_url(&url).await) });
}

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
