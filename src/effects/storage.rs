//! Settings in localStorage; API keys by endpoint origin, in sessionStorage
//! unless the user asks to remember them (then localStorage). A key is never
//! put anywhere else.

use super::url;
use crate::state::keys::KeyRing;
use crate::state::ModelSettings;
use std::collections::BTreeMap;

const SETTINGS: &str = "evalpage.settings";
/// The model file's threads: `0` for auto, else the number asked.
const MODEL_THREADS: &str = "evalpage.model_threads";
/// `{origin: key}` in each storage.
const KEYS: &str = "evalpage.api_keys";
/// The single key of earlier versions, entered for the saved settings' endpoint.
const LEGACY_KEY: &str = "evalpage.api_key";

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

fn read_keys(st: &Option<web_sys::Storage>) -> BTreeMap<String, String> {
    st.as_ref()
        .and_then(|st| st.get_item(KEYS).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// The saved settings (the key field empty).
pub fn load_settings() -> ModelSettings {
    local()
        .and_then(|st| st.get_item(SETTINGS).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// The saved keys (a key of an earlier version moved to its origin first).
pub fn load_keys() -> KeyRing {
    let mut ring = KeyRing::default();
    ring.absorb(read_keys(&session()), false);
    ring.absorb(read_keys(&local()), true);
    migrate_legacy(&load_settings(), &mut ring);
    ring
}

/// An earlier version kept one key, entered for the saved settings'
/// endpoint: it now belongs to that endpoint's origin only.
fn migrate_legacy(settings: &ModelSettings, ring: &mut KeyRing) {
    for (st, remembered) in [(session(), false), (local(), true)] {
        let Some(st) = st else { continue };
        if let Ok(Some(key)) = st.get_item(LEGACY_KEY) {
            if let Some(origin) = url::origin(&settings.base_url) {
                if ring.get(&origin).is_none() {
                    ring.set(&origin, &key, remembered);
                }
            }
            let _ = st.remove_item(LEGACY_KEY);
        }
    }
    save_keys(ring);
}

/// The model file's thread setting this browser remembers: `0` for auto.
pub fn model_threads() -> u32 {
    local()
        .and_then(|st| st.get_item(MODEL_THREADS).ok().flatten())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Remembers the model file's thread setting (`0`: auto).
pub fn save_model_threads(n: u32) {
    if let Some(st) = local() {
        let _ = st.set_item(MODEL_THREADS, &n.to_string());
    }
}

/// Saves the settings (never the key).
pub fn save_settings(s: &ModelSettings) {
    if let (Some(st), Ok(json)) = (local(), serde_json::to_string(s)) {
        let _ = st.set_item(SETTINGS, &json);
    }
}

/// Writes the keys: remembered ones to localStorage, the others to
/// sessionStorage; an empty set removes the entry.
pub fn save_keys(ring: &KeyRing) {
    for (st, remembered) in [(session(), false), (local(), true)] {
        let Some(st) = st else { continue };
        let entries = ring.entries(remembered);
        let _ = if entries.is_empty() {
            st.remove_item(KEYS)
        } else {
            match serde_json::to_string(&entries) {
                Ok(json) => st.set_item(KEYS, &json),
                Err(_) => st.remove_item(KEYS),
            }
        };
    }
}

/// The name the reviewer last labelled under (the viewer's review).
const REVIEWER: &str = "evalpage.reviewer";

/// The reviewer's name, as last used on this browser.
pub fn reviewer() -> String {
    local()
        .and_then(|st| st.get_item(REVIEWER).ok().flatten())
        .unwrap_or_default()
}

/// Remembers the reviewer's name.
pub fn save_reviewer(name: &str) {
    if let Some(st) = local() {
        let _ = st.set_item(REVIEWER, name);
    }
}
