//! API keys belong to the origin (scheme, host, port) of the endpoint they
//! were entered for. The page keeps them by origin, fills the key field only
//! with the key of the endpoint's own origin, and sends a key only to it.
//!
//! Pure data and rules; origins are computed by the browser's URL parser in
//! `effects::url` (the parser `fetch` uses, so no parser differential can send
//! a key elsewhere) and passed in.

use super::{ModelSettings, Provider};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::rc::Rc;

/// Saved keys by origin. `Debug` prints the origins only.
#[derive(Clone, Default, PartialEq)]
pub struct KeyRing {
    keys: BTreeMap<String, SavedKey>,
}

/// One saved key and where it is kept.
#[derive(Clone, PartialEq)]
struct SavedKey {
    key: String,
    /// In localStorage (kept across sessions) rather than sessionStorage.
    remembered: bool,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.keys.keys()).finish()
    }
}

impl KeyRing {
    /// The key saved for this origin, if any.
    pub fn get(&self, origin: &str) -> Option<&str> {
        self.keys.get(origin).map(|k| k.key.as_str())
    }

    /// Saves (or, for a blank key, forgets) the key of one origin.
    pub fn set(&mut self, origin: &str, key: &str, remembered: bool) {
        let key = key.trim();
        if key.is_empty() {
            self.keys.remove(origin);
        } else {
            let saved = SavedKey {
                key: key.to_string(),
                remembered,
            };
            self.keys.insert(origin.to_string(), saved);
        }
    }

    /// The origins that have a key, each with whether it is remembered
    /// across sessions.
    pub fn origins(&self) -> Vec<(String, bool)> {
        self.keys
            .iter()
            .map(|(o, k)| (o.clone(), k.remembered))
            .collect()
    }

    /// The (origin, key) pairs kept in one storage: remembered ones in
    /// localStorage, the others in sessionStorage.
    pub fn entries(&self, remembered: bool) -> BTreeMap<String, String> {
        self.keys
            .iter()
            .filter(|(_, k)| k.remembered == remembered)
            .map(|(o, k)| (o.clone(), k.key.clone()))
            .collect()
    }

    /// Adds keys read from one storage; a key already present wins (the
    /// session's key over the remembered one).
    pub fn absorb(&mut self, entries: BTreeMap<String, String>, remembered: bool) {
        for (origin, key) in entries {
            if !self.keys.contains_key(&origin) && !key.trim().is_empty() {
                self.set(&origin, &key, remembered);
            }
        }
    }

    /// True when no key is saved.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Where requests of the current settings go, as the Start button shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `scheme://host:port` as the browser computes it.
    pub origin: String,
    /// Plain `http://` to a host that is not loopback: a key would cross the
    /// network unencrypted.
    pub plain_http_remote: bool,
}

/// What the line beside the Start button says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetLine {
    /// The offline demo model: nothing leaves the page.
    Offline,
    /// The model file on this device, run in the page: nothing leaves it.
    InPage,
    /// Requests go to this endpoint, with or without a key.
    Endpoint {
        /// Origin and transport.
        target: Target,
        /// A key would be sent.
        with_key: bool,
    },
}

/// The key field after an edit of the settings: `new` with the key of its
/// own origin. A key typed by the user is saved for the origin it was typed
/// for; a changed endpoint never takes the previous endpoint's key with it.
/// Returns the settings to keep and whether the user typed a key (which
/// confirms that origin for this page load).
pub fn settle(
    old: &ModelSettings,
    mut new: ModelSettings,
    old_origin: Option<&str>,
    new_origin: Option<&str>,
    ring: &mut KeyRing,
) -> (ModelSettings, bool) {
    let typed = new.api_key != old.api_key;
    if old_origin != new_origin {
        let saved = new_origin.and_then(|o| ring.keys.get(o));
        new.api_key = saved.map(|k| k.key.clone()).unwrap_or_default();
        // An origin without a key starts with the safer choice: this tab only.
        new.remember_key = saved.is_some_and(|k| k.remembered);
        return (new, false);
    }
    if let Some(origin) = new_origin {
        if typed || new.remember_key != old.remember_key {
            ring.set(origin, &new.api_key, new.remember_key);
        }
    }
    let confirms = typed && !new.api_key.trim().is_empty();
    (new, confirms)
}

/// A key typed into a mode's own key field (retrieval, dialogs): `Debug`
/// never prints it, so a logged state holds no key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() {
            "Secret(none)"
        } else {
            "Secret(..)"
        })
    }
}

impl Secret {
    /// A key as typed (trimmed).
    pub fn new(key: &str) -> Secret {
        Secret(key.trim().to_string())
    }

    /// The key.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// True when no key is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Why a run must wait for a click before a key is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPrompt {
    /// The origin that would receive the key.
    pub origin: String,
    /// The key would go over plain `http://` to a host that is not loopback.
    pub plain_http_remote: bool,
}

/// The one-endpoint form of a mode whose requests go to one URL (retrieval,
/// dialogs): the URL as typed, the key field of its origin, and the prompt of
/// a run waiting for a click before that key is sent. Each such mode keeps
/// one, changed by [`FormAction`]s only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndpointForm {
    /// The URL as typed.
    pub url: String,
    /// The API key of the URL's origin (typed for it, or saved for it).
    pub api_key: Secret,
    /// A run waiting for a click before its key is sent.
    pub key_prompt: Option<Rc<KeyPrompt>>,
}

/// A change of an [`EndpointForm`].
#[derive(Clone, Debug, PartialEq)]
pub enum FormAction {
    /// The URL typed.
    SetUrl(String),
    /// The key typed (or the one of the URL's origin); clears the prompt.
    SetKey(Secret),
    /// Shows or clears the prompt.
    PromptKey(Option<Rc<KeyPrompt>>),
}

impl EndpointForm {
    /// The form after `action`.
    pub fn apply(&mut self, action: FormAction) {
        match action {
            FormAction::SetUrl(u) => self.url = u,
            FormAction::SetKey(k) => {
                self.api_key = k;
                self.key_prompt = None;
            }
            FormAction::PromptKey(p) => self.key_prompt = p,
        }
    }
}

/// What the origins confirmed in this page load allow.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Confirmed {
    /// Origins the user typed a key for or pressed Start for.
    pub origins: BTreeSet<String>,
    /// Origins the user agreed to send a key to over plain `http://`.
    pub plain_http: BTreeSet<String>,
}

/// Decides whether a run may start now. A run that sends no key starts; a
/// key goes only to an origin the user entered it for or confirmed in this
/// page load, and over plain `http://` to a remote host only after the user
/// agreed to that too.
pub fn gate(
    settings: &ModelSettings,
    target: Option<&Target>,
    confirmed: &Confirmed,
) -> Result<(), KeyPrompt> {
    if settings.provider != Provider::Openai {
        return Ok(());
    }
    gate_key(&settings.api_key, target, confirmed)
}

/// [`gate`] for a key typed for one endpoint (a mode without providers).
pub fn gate_key(
    key: &str,
    target: Option<&Target>,
    confirmed: &Confirmed,
) -> Result<(), KeyPrompt> {
    if key.trim().is_empty() {
        return Ok(());
    }
    let Some(t) = target else {
        return Ok(());
    };
    let known = confirmed.origins.contains(&t.origin);
    let insecure_ok = !t.plain_http_remote || confirmed.plain_http.contains(&t.origin);
    if known && insecure_ok {
        return Ok(());
    }
    Err(KeyPrompt {
        origin: t.origin.clone(),
        plain_http_remote: t.plain_http_remote,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai(base: &str, key: &str) -> ModelSettings {
        ModelSettings {
            provider: Provider::Openai,
            base_url: base.into(),
            api_key: key.into(),
            ..ModelSettings::default()
        }
    }

    #[test]
    fn a_changed_origin_takes_its_own_key_or_none() {
        let mut ring = KeyRing::default();
        ring.set("https://a.example", "sk-a", true);
        let old = openai("https://a.example/v1", "sk-a");
        let new = openai("https://b.example/v1", "sk-a");
        let (kept, typed) = settle(
            &old,
            new,
            Some("https://a.example"),
            Some("https://b.example"),
            &mut ring,
        );
        assert_eq!(kept.api_key, "", "b has no key of its own");
        assert!(!typed);
        let back = openai("https://a.example/v2", "");
        let (kept, _) = settle(
            &kept,
            back,
            Some("https://b.example"),
            Some("https://a.example"),
            &mut ring,
        );
        assert_eq!(kept.api_key, "sk-a", "a's own key comes back");
        assert_eq!(ring.origins(), [("https://a.example".to_string(), true)]);
    }

    #[test]
    fn a_typed_key_is_saved_for_its_origin_and_confirms_it() {
        let mut ring = KeyRing::default();
        let old = openai("http://127.0.0.1:8091/v1", "");
        let new = openai("http://127.0.0.1:8091/v1", " sk-1 ");
        let o = Some("http://127.0.0.1:8091");
        let (kept, typed) = settle(&old, new, o, o, &mut ring);
        assert!(typed);
        assert_eq!(ring.get("http://127.0.0.1:8091"), Some("sk-1"));
        assert_eq!(ring.entries(false).len(), 1, "session storage by default");
        let cleared = openai("http://127.0.0.1:8091/v1", "");
        let (_, typed) = settle(&kept, cleared, o, o, &mut ring);
        assert!(!typed);
        assert!(ring.is_empty(), "a blank key forgets the origin's key");
        assert!(!format!("{ring:?}").contains("sk-"), "Debug hides keys");
    }

    #[test]
    fn the_gate_holds_an_unconfirmed_key_and_plain_http_to_a_remote_host() {
        let s = openai("https://x.example/v1", "sk");
        let t = Target {
            origin: "https://x.example".into(),
            plain_http_remote: false,
        };
        let mut c = Confirmed::default();
        assert!(gate(&s, Some(&t), &c).is_err(), "not confirmed yet");
        c.origins.insert(t.origin.clone());
        assert_eq!(gate(&s, Some(&t), &c), Ok(()));
        let remote = Target {
            origin: "http://x.example".into(),
            plain_http_remote: true,
        };
        c.origins.insert(remote.origin.clone());
        let prompt = gate(&s, Some(&remote), &c).expect_err("plain http");
        assert!(prompt.plain_http_remote);
        c.plain_http.insert(remote.origin.clone());
        assert_eq!(gate(&s, Some(&remote), &c), Ok(()));
        let no_key = openai("https://y.example/v1", "");
        assert_eq!(gate(&no_key, None, &Confirmed::default()), Ok(()));
    }
}
