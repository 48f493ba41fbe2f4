//! The task mode's model list as the user edits it: the registry text and
//! its check, the models listed and ticked, the endpoint form and the keys
//! typed (in memory only), where a key may go, the judge, and the model file
//! on this device. One concern of [`super::TaskState`].

use super::check::{check_registry, RegistryCheck};
use super::models::{
    choices, keys_that_fit, BoundKey, EndpointModel, KeySources, Keys, ModelChoice, MOCK_JUDGE,
    MOCK_MODELS,
};
use crate::state::keys::{KeyPrompt, KeyRing};
use crate::state::local::LocalModel;
use crate::state::settings::{ModelSettings, Provider};
use std::collections::BTreeSet;
use std::rc::Rc;

/// File name of a registry edited in the page.
const REGISTRY_FILE: &str = "registry.json";

/// The models a task run may call, and their keys.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelList {
    /// File name of the registry text.
    pub registry_file: String,
    /// The registry JSON as edited.
    pub registry_text: Rc<str>,
    /// The last check of the registry.
    pub registry: Rc<RegistryCheck>,
    registry_checked: Rc<str>,
    /// Mock models, the model file, endpoints, then registry models.
    pub choices: Rc<Vec<ModelChoice>>,
    /// Ticked model names.
    pub selected: Rc<BTreeSet<String>>,
    /// Keys typed in, by registry model name (memory only).
    pub keys: Rc<Keys>,
    /// The endpoint form as edited (base URL, model, the key of its origin).
    pub endpoint: Rc<ModelSettings>,
    /// Keys typed in the endpoint form, by origin (memory only).
    pub ring: Rc<KeyRing>,
    /// The models added with the endpoint form.
    pub endpoints: Rc<Vec<EndpointModel>>,
    /// Origins the user agreed to send a key to over plain `http://`.
    pub plain_http_ok: Rc<BTreeSet<String>>,
    /// A run waiting for the user to confirm where a key goes.
    pub key_prompt: Option<Rc<KeyPrompt>>,
    /// The judge of `llm_judge` metrics: `mock` or a model of the list.
    pub judge: Rc<str>,
    /// The model file on this device (a model of the list once loaded).
    pub local: LocalModel,
}

impl Default for ModelList {
    /// The two mock models, ticked; an empty registry; the mock judge.
    fn default() -> Self {
        let registry = Rc::new(RegistryCheck::default());
        ModelList {
            registry_file: REGISTRY_FILE.into(),
            registry_text: Rc::from(""),
            choices: Rc::new(choices(&registry.registry, &[], None)),
            registry,
            registry_checked: Rc::from(""),
            selected: Rc::new(MOCK_MODELS.iter().map(|m| m.to_string()).collect()),
            keys: Rc::default(),
            endpoint: Rc::new(ModelSettings {
                provider: Provider::Openai,
                ..ModelSettings::default()
            }),
            ring: Rc::default(),
            endpoints: Rc::default(),
            plain_http_ok: Rc::default(),
            key_prompt: None,
            judge: Rc::from(MOCK_JUDGE),
            local: LocalModel::None,
        }
    }
}

/// What changes the model list.
#[derive(Clone, Debug)]
pub enum ModelAction {
    /// The registry editor's text changed (checked on `CheckRegistry`).
    EditRegistry(String),
    /// A registry file was loaded: (name, text).
    LoadRegistry(String, String),
    /// Check the registry text (debounced after edits).
    CheckRegistry,
    /// Tick or untick a model.
    Toggle(String, bool),
    /// A key was typed for a registry model (blank removes it).
    SetKey(String, String),
    /// The judge of `llm_judge` metrics was chosen.
    SetJudge(String),
    /// The endpoint form was edited: its settings and the keys by origin.
    SetEndpoint(Rc<ModelSettings>, Rc<KeyRing>),
    /// A model was added with the endpoint form (and ticked).
    AddEndpoint(EndpointModel),
    /// Where the model file on this device stands.
    SetLocal(LocalModel),
    /// Forget every key typed in the endpoint form.
    ForgetKeys,
    /// A run waits for a click before a key goes over plain `http://` (or no longer does).
    PromptKey(Option<Rc<KeyPrompt>>),
    /// The user agreed to send a key to this origin over plain `http://`.
    AllowPlainHttp(String),
}

impl ModelList {
    /// Applies `action`.
    pub fn apply(&mut self, action: ModelAction) {
        match action {
            ModelAction::EditRegistry(text) => self.registry_text = Rc::from(text),
            ModelAction::LoadRegistry(name, text) => {
                self.registry_file = name;
                self.registry_text = Rc::from(text);
                self.recheck();
            }
            ModelAction::CheckRegistry => self.recheck(),
            ModelAction::Toggle(name, on) => self.toggle(name, on),
            ModelAction::SetKey(name, key) => self.set_key(name, &key),
            ModelAction::SetJudge(j) => self.judge = Rc::from(j.as_str()),
            ModelAction::SetEndpoint(settings, ring) => {
                self.endpoint = settings;
                self.ring = ring;
                self.key_prompt = None;
            }
            ModelAction::AddEndpoint(m) => self.add_endpoint(m),
            ModelAction::SetLocal(local) => self.set_local(local),
            ModelAction::ForgetKeys => self.forget_keys(),
            ModelAction::PromptKey(prompt) => self.key_prompt = prompt,
            ModelAction::AllowPlainHttp(origin) => self.allow_plain_http(origin),
        }
    }

    /// The keys a run may use.
    pub fn key_sources(&self) -> KeySources<'_> {
        KeySources {
            registry: &self.keys,
            origins: &self.ring,
        }
    }

    /// True while the registry text has not been checked yet.
    pub fn pending(&self) -> bool {
        self.registry_checked != self.registry_text
    }

    /// Why no run can start for want of a model, if none is ticked.
    pub fn no_model(&self) -> Option<(&'static str, &'static str)> {
        let ticked = self.choices.iter().any(|c| self.selected.contains(&c.name));
        (!ticked).then_some(("请至少勾选一个模型", "Tick at least one model"))
    }

    /// The models of the list: mocks, the model file, endpoints, registry.
    fn listed(&self) -> Vec<ModelChoice> {
        choices(
            &self.registry.registry,
            &self.endpoints,
            self.local.shared(),
        )
    }

    /// Checks the registry text and lists its models.
    pub(super) fn recheck(&mut self) {
        self.registry = Rc::new(check_registry(&self.registry_file, &self.registry_text));
        self.registry_checked = self.registry_text.clone();
        self.choices = Rc::new(self.listed());
        // A key stays only with the base URL it was typed for.
        self.keys = Rc::new(keys_that_fit(&self.keys, &self.registry.registry));
    }

    /// Ticks or unticks a model.
    fn toggle(&mut self, name: String, on: bool) {
        let mut s = (*self.selected).clone();
        if on {
            s.insert(name);
        } else {
            s.remove(&name);
        }
        self.selected = Rc::new(s);
    }

    /// A key typed for the registry model `name` (blank removes it).
    fn set_key(&mut self, name: String, key: &str) {
        let mut keys = (*self.keys).clone();
        let entry = self
            .registry
            .registry
            .models
            .iter()
            .find(|e| e.name == name);
        match entry.and_then(|e| BoundKey::new(e, key)) {
            Some(k) => keys.insert(name, k),
            None => keys.remove(&name),
        };
        self.keys = Rc::new(keys);
    }

    /// A model added with the endpoint form, ticked.
    fn add_endpoint(&mut self, m: EndpointModel) {
        let mut selected = (*self.selected).clone();
        selected.insert(m.entry.name.clone());
        self.selected = Rc::new(selected);
        let mut endpoints = (*self.endpoints).clone();
        endpoints.push(m);
        self.endpoints = Rc::new(endpoints);
        self.choices = Rc::new(self.listed());
    }

    /// Where the model file on this device stands; a file just loaded is
    /// ticked, as an endpoint just added is.
    fn set_local(&mut self, local: LocalModel) {
        if let LocalModel::Loaded(info) = &local {
            let mut selected = (*self.selected).clone();
            selected.insert(info.file.clone());
            self.selected = Rc::new(selected);
        }
        self.local = local;
        self.choices = Rc::new(self.listed());
    }

    /// Forgets every key typed in the endpoint form.
    fn forget_keys(&mut self) {
        self.ring = Rc::default();
        self.endpoint = Rc::new(ModelSettings {
            api_key: String::new(),
            ..(*self.endpoint).clone()
        });
    }

    /// The user agreed to send a key to `origin` over plain `http://`.
    fn allow_plain_http(&mut self, origin: String) {
        let mut ok = (*self.plain_http_ok).clone();
        ok.insert(origin);
        self.plain_http_ok = Rc::new(ok);
    }
}
