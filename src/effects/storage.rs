//! Settings in localStorage; the API key in sessionStorage unless the user asks
//! to remember it (then localStorage). The key is never put anywhere else.

use crate::state::ModelSettings;

const SETTINGS: &str = "evalpage.settings";
const KEY: &str = "evalpage.api_key";

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

/// Loads saved settings and key, or the defaults.
pub fn load() -> ModelSettings {
    let mut s: ModelSettings = local()
        .and_then(|st| st.get_item(SETTINGS).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    let stored = |st: Option<web_sys::Storage>| st.and_then(|st| st.get_item(KEY).ok().flatten());
    s.api_key = stored(session())
        .or_else(|| stored(local()))
        .unwrap_or_default();
    s
}

/// Saves settings (never the key) and the key where the user chose.
pub fn save(s: &ModelSettings) {
    if let (Some(st), Ok(json)) = (local(), serde_json::to_string(s)) {
        let _ = st.set_item(SETTINGS, &json);
    }
    let (keep, drop) = if s.remember_key {
        (local(), session())
    } else {
        (session(), local())
    };
    if let Some(st) = drop {
        let _ = st.remove_item(KEY);
    }
    if let Some(st) = keep {
        let _ = if s.api_key.is_empty() {
            st.remove_item(KEY)
        } else {
            st.set_item(KEY, &s.api_key)
        };
    }
}
