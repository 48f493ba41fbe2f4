//! The models a task run can call: the built-in offline mock models, always
//! there, the endpoints added with the endpoint form (as in the RAG check;
//! their key is the one kept in memory for their origin), and the entries of
//! the registry the user loaded (their key bound to their base URL). Turns
//! the ticked ones into what the run records (`ModelSettings`, never a key)
//! and how each is called (the mock, or an OpenAI-compatible endpoint with
//! its key).

use crate::state::keys::KeyRing;
use crate::state::local::LocalModelInfo;
use evalpage_core::run::RunSettings;
use evalpage_core::task::{
    judge_setups, judged_metrics, merged_params, ModelEntry, Registry, Task, TaskJudge,
};
use evalpage_core::ModelSettings;
use evalpage_core::OpenAiConfig;
use evalpage_core::{strip_query, ApiKey};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The built-in mock models. The mock is seeded by the model name, so two
/// names give two different, repeatable result sets.
pub const MOCK_MODELS: [&str; 2] = ["mock-a", "mock-b"];

/// Connections a browser opens to one HTTP/1.1 origin.
const BROWSER_HTTP1_CONNECTIONS: usize = 6;

/// Where a model answers from.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelSource {
    /// The built-in deterministic mock.
    Mock,
    /// An endpoint added with the endpoint form.
    Endpoint(EndpointModel),
    /// A registry entry (an OpenAI-compatible endpoint).
    Registry(ModelEntry),
    /// The model file on this device, run in the page.
    InPage(Rc<LocalModelInfo>),
}

/// A model added with the endpoint form: its entry (no key variable) and the
/// origin of its base URL as the browser reads it. Its key is the one kept
/// for that origin (`KeyRing`, in memory), and goes to that origin only.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointModel {
    /// Name, base URL and model id.
    pub entry: ModelEntry,
    /// `scheme://host:port` of the base URL.
    pub origin: String,
}

/// A model the user can tick.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelChoice {
    /// Name in reports.
    pub name: String,
    /// Where it answers from.
    pub source: ModelSource,
}

impl ModelChoice {
    /// How its requests are made, keys aside (`None` for a mock model,
    /// which answers in the page): what a batch file's bodies come from,
    /// the same bodies a run sends.
    pub fn request_config(
        &self,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<OpenAiConfig> {
        let (ModelSource::Registry(e) | ModelSource::Endpoint(EndpointModel { entry: e, .. })) =
            &self.source
        else {
            return None;
        };
        match endpoint_model(params, e, None).call {
            ModelCall::OpenAi(cfg, _) | ModelCall::InPage(cfg) => Some(cfg),
            ModelCall::Mock(_) => None,
        }
    }

    /// Its price (a registry entry's) and the request parameters it is sent
    /// (`params`, the task's, under its own), keys aside: what an estimate
    /// of a run needs.
    pub fn price_and_params(
        &self,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> (
        Option<evalpage_core::report::Price>,
        serde_json::Map<String, serde_json::Value>,
    ) {
        match &self.source {
            ModelSource::Mock | ModelSource::InPage(_) => (None, params.clone()),
            ModelSource::Registry(e) | ModelSource::Endpoint(EndpointModel { entry: e, .. }) => {
                (e.price(), merged_params(params, &e.default_params))
            }
        }
    }

    /// The environment variable the registry names for the key, if any (the
    /// page asks for the key itself).
    pub fn key_env(&self) -> Option<&str> {
        match &self.source {
            ModelSource::Registry(e) => e.api_key_env.as_deref(),
            ModelSource::Mock | ModelSource::Endpoint(_) | ModelSource::InPage(_) => None,
        }
    }
}

/// The mock models, the model file loaded in the page (named after the
/// file), the endpoints added with the form, then the registry's models in
/// file order.
pub fn choices(
    registry: &Registry,
    endpoints: &[EndpointModel],
    local: Option<&Rc<LocalModelInfo>>,
) -> Vec<ModelChoice> {
    let mocks = MOCK_MODELS.iter().map(|n| ModelChoice {
        name: n.to_string(),
        source: ModelSource::Mock,
    });
    let local = local.map(|info| ModelChoice {
        name: info.file.clone(),
        source: ModelSource::InPage(info.clone()),
    });
    let added = endpoints.iter().map(|e| ModelChoice {
        name: e.entry.name.clone(),
        source: ModelSource::Endpoint(e.clone()),
    });
    let entries = registry.models.iter().map(|e| ModelChoice {
        name: e.name.clone(),
        source: ModelSource::Registry(e.clone()),
    });
    mocks.chain(local).chain(added).chain(entries).collect()
}

/// A name for a model added with the endpoint form that no other model has:
/// the model id, else `model@host:port`, else with a counter.
pub fn endpoint_name(model: &str, origin: &str, taken: &[ModelChoice]) -> String {
    let free = |n: &str| !taken.iter().any(|c| c.name == n);
    let host = origin.split("://").nth(1).unwrap_or(origin);
    let first = [model.to_string(), format!("{model}@{host}")];
    if let Some(n) = first.into_iter().find(|n| free(n)) {
        return n;
    }
    (2..)
        .map(|i| format!("{model}@{host}#{i}"))
        .find(|n| free(n))
        .unwrap_or_default()
}

/// Keys typed into the page, by registry model name, each bound to the base
/// URL the entry had when the key was typed. In memory only: it has no
/// `Serialize`, and `ApiKey`'s `Debug` prints `***`.
pub type Keys = BTreeMap<String, BoundKey>;

/// A key and the base URL it was typed for: it is used for that base URL
/// only, never for another one the registry later gives the same name.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundKey {
    /// The entry's base URL when the key was typed (trimmed).
    pub base_url: String,
    /// The key.
    pub key: ApiKey,
}

impl BoundKey {
    /// Binds a key to an entry's base URL; blank gives `None`.
    pub fn new(entry: &ModelEntry, key: &str) -> Option<BoundKey> {
        Some(BoundKey {
            base_url: entry.base_url.trim().to_string(),
            key: ApiKey::new(key)?,
        })
    }

    /// True when the key was typed for this entry's base URL.
    pub fn fits(&self, entry: &ModelEntry) -> bool {
        self.base_url == entry.base_url.trim()
    }
}

/// The keys that still fit their model's entry in `registry`: a key whose
/// model is gone or points at another base URL now is dropped.
pub fn keys_that_fit(keys: &Keys, registry: &Registry) -> Keys {
    keys.iter()
        .filter(|(name, k)| {
            registry
                .models
                .iter()
                .any(|e| &e.name == *name && k.fits(e))
        })
        .map(|(n, k)| (n.clone(), k.clone()))
        .collect()
}

pub use crate::state::settings::ModelCall;

/// One model of a run: what is recorded and how it is called.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedModel {
    /// Recorded in `meta`, `report.json` and `model_snapshot.json` (no key).
    pub settings: ModelSettings,
    /// How it is called (holds the key, if any).
    pub call: ModelCall,
    /// Its price per million tokens (a registry entry's), for the report's cost.
    pub price: Option<evalpage_core::report::Price>,
}

/// Scheduling of a task run, as the user sets it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskRunSettings {
    /// Calls in flight per model.
    pub concurrency: usize,
    /// Per-request timeout, seconds.
    pub timeout_s: u64,
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// Mock latency factor (0 = instant).
    pub mock_latency: f64,
    /// Count an answer cut off at `max_tokens` as a failed call.
    #[serde(default)]
    pub truncated_as_failure: bool,
    /// Keep sending after a fatal answer (401, 403, 404) instead of stopping.
    #[serde(default)]
    pub keep_going_on_fatal: bool,
    /// Ask each sample this many times (`None`: the task file's `repeats`,
    /// else once).
    #[serde(default)]
    pub repeats: Option<u32>,
    /// Stop the run once its priced usage (registry prices) reaches this cost.
    #[serde(default)]
    pub max_cost: Option<f64>,
}

impl Default for TaskRunSettings {
    fn default() -> Self {
        TaskRunSettings {
            concurrency: 4,
            timeout_s: 60,
            max_attempts: 3,
            mock_latency: 1.0,
            truncated_as_failure: false,
            keep_going_on_fatal: false,
            repeats: None,
            max_cost: None,
        }
    }
}

impl TaskRunSettings {
    /// How many times each sample is asked, and the k of pass@k: the field
    /// when set, else the task file's `repeats` (its `pass_k` kept while
    /// every k fits, else 1 and N).
    pub fn repeats(&self, task: &evalpage_core::task::Task) -> evalpage_core::task::Repeats {
        let from_task = evalpage_core::task::Repeats::of(task);
        let n = self
            .repeats
            .unwrap_or(from_task.n)
            .clamp(1, evalpage_core::task::MAX_REPEATS);
        evalpage_core::task::Repeats::new(n, from_task.pass_k.clone()).unwrap_or(
            evalpage_core::task::Repeats {
                n,
                pass_k: Vec::new(),
            },
        )
    }

    /// What the engine does with truncated and fatal answers.
    pub fn policy(&self) -> evalpage_core::run::AnswerPolicy {
        evalpage_core::run::AnswerPolicy {
            truncated_as_failure: self.truncated_as_failure,
            keep_going_on_fatal: self.keep_going_on_fatal,
        }
    }

    /// The engine's settings. Browsers keep at most 6 HTTP/1.1 connections
    /// per origin, so with a plain `http://` endpoint among the models each
    /// model keeps at most 6 calls in flight (more would queue in the browser
    /// while their timeouts run).
    pub fn run_settings(&self, models: &[PlannedModel], seed: u64) -> RunSettings {
        let plain_http = models.iter().any(|m| match &m.call {
            ModelCall::OpenAi(c, _) => c
                .base_url
                .trim()
                .to_ascii_lowercase()
                .starts_with("http://"),
            ModelCall::Mock(_) | ModelCall::InPage(_) => false,
        });
        let mut concurrency = self.concurrency.clamp(1, 64);
        if plain_http {
            concurrency = concurrency.min(BROWSER_HTTP1_CONNECTIONS);
        }
        RunSettings {
            concurrency,
            max_attempts: self.max_attempts.clamp(1, 10),
            timeout_ms: self.timeout_s.clamp(1, 600) * 1000,
            seed,
            ..RunSettings::default()
        }
    }
}

/// The keys a run may use: registry models' (by name, bound to their base
/// URL) and the endpoint form's (by origin).
#[derive(Clone, Copy)]
pub struct KeySources<'a> {
    /// Registry models' keys.
    pub registry: &'a Keys,
    /// Keys typed in the endpoint form, by origin.
    pub origins: &'a KeyRing,
}

/// The ticked models in list order, each with its request parameters (the
/// task's `default_params`, the registry entry's over them) and its key.
pub fn plan(
    task: &Task,
    choices: &[ModelChoice],
    selected: &BTreeSet<String>,
    keys: KeySources<'_>,
    mock_latency: f64,
) -> Result<Vec<PlannedModel>, String> {
    let planned: Vec<PlannedModel> = choices
        .iter()
        .filter(|c| selected.contains(&c.name))
        .map(|c| planned(&task.default_params, c, keys, mock_latency))
        .collect();
    if planned.is_empty() {
        return Err("tick at least one model".into());
    }
    Ok(planned)
}

/// One model of the list as called, with `params` under its own.
fn planned(
    params: &serde_json::Map<String, serde_json::Value>,
    c: &ModelChoice,
    keys: KeySources<'_>,
    mock_latency: f64,
) -> PlannedModel {
    match &c.source {
        ModelSource::Mock => PlannedModel {
            settings: ModelSettings {
                name: c.name.clone(),
                model: c.name.clone(),
                base_url: None,
                api_key_env: None,
                params: params.clone(),
                engine: None,
            },
            call: ModelCall::Mock(mock_latency.max(0.0)),
            price: None,
        },
        ModelSource::InPage(info) => in_page_model(params, &c.name, info),
        ModelSource::Registry(e) => {
            let key = keys.registry.get(&e.name).filter(|k| k.fits(e));
            endpoint_model(params, e, key.map(|k| (k.key.clone(), k.base_url.clone())))
        }
        ModelSource::Endpoint(m) => {
            let key = keys.origins.get(&m.origin).and_then(ApiKey::new);
            endpoint_model(params, &m.entry, key.map(|k| (k, m.origin.clone())))
        }
    }
}

/// The judge named `judge` (`mock`, the built-in mock judge, or a model of
/// the list, ticked or not) for a task with `llm_judge` metrics; `None` for a
/// task without. A judge is sent its own parameters only, not the task's (a
/// task's `response_format: json_object` would break `GRADE:` lines), and
/// runs on its own pool with the models' scheduling.
pub fn plan_judge(
    task: &Task,
    choices: &[ModelChoice],
    judge: &str,
    keys: KeySources<'_>,
    mock_latency: f64,
    settings: RunSettings,
) -> Result<Option<(TaskJudge, ModelCall, Option<evalpage_core::report::Price>)>, String> {
    if judged_metrics(task).is_empty() {
        return Ok(None);
    }
    let setups = judge_setups(task, &BTreeMap::new()).map_err(|errors| {
        let first = errors.first().map(|e| e.to_string()).unwrap_or_default();
        format!(
            "{first} (the page reads the built-in judge prompts only; run a task with its own judge prompt file with the CLI)"
        )
    })?;
    let none = serde_json::Map::new();
    let model = if judge == MOCK_JUDGE {
        PlannedModel {
            settings: ModelSettings {
                name: MOCK_JUDGE.into(),
                model: MOCK_JUDGE.into(),
                base_url: None,
                api_key_env: None,
                params: none,
                engine: None,
            },
            call: ModelCall::Mock(mock_latency.max(0.0)),
            price: None,
        }
    } else {
        let c = choices
            .iter()
            .find(|c| c.name == judge)
            .ok_or_else(|| format!("the judge `{judge}` is not a model of the list"))?;
        planned(&none, c, keys, mock_latency)
    };
    Ok(Some((
        TaskJudge {
            model: model.settings,
            settings,
            setups,
        },
        model.call,
        model.price,
    )))
}

/// The name of the built-in mock judge.
pub const MOCK_JUDGE: &str = "mock";

/// The model file in the page: its request is built as for an endpoint and
/// answered by the engine in the page; what the report says of it is the
/// engine's description of the file.
fn in_page_model(
    params: &serde_json::Map<String, serde_json::Value>,
    name: &str,
    info: &LocalModelInfo,
) -> PlannedModel {
    PlannedModel {
        settings: ModelSettings {
            name: name.to_string(),
            model: info.file.clone(),
            base_url: None,
            api_key_env: None,
            params: params.clone(),
            engine: serde_json::to_value(info).ok(),
        },
        call: ModelCall::InPage(OpenAiConfig {
            params: params.clone(),
            ..crate::state::settings::in_page(&info.file)
        }),
        price: None,
    }
}

/// An endpoint model with its key and what the key was entered for.
fn endpoint_model(
    params: &serde_json::Map<String, serde_json::Value>,
    e: &ModelEntry,
    key: Option<(ApiKey, String)>,
) -> PlannedModel {
    let params = merged_params(params, &e.default_params);
    let (key, key_for) = key.unzip();
    PlannedModel {
        settings: ModelSettings {
            name: e.name.clone(),
            model: e.model_id().to_string(),
            base_url: Some(strip_query(e.base_url.trim())),
            api_key_env: e.api_key_env.clone(),
            params: params.clone(),
            engine: None,
        },
        price: e.price(),
        call: ModelCall::OpenAi(
            OpenAiConfig {
                base_url: e.base_url.trim().to_string(),
                model: e.model_id().to_string(),
                api_key: key,
                temperature: None,
                max_tokens: None,
                params,
            },
            key_for,
        ),
    }
}

/// What answers the run: `mock`, `local` (a model file in the page),
/// `openai`, or those it mixes joined by `+` (`mock+openai`).
pub fn backend(models: &[PlannedModel]) -> String {
    let has = |f: fn(&ModelCall) -> bool| models.iter().any(|m| f(&m.call));
    let kinds = [
        ("mock", has(|c| matches!(c, ModelCall::Mock(_)))),
        ("local", has(|c| matches!(c, ModelCall::InPage(_)))),
        ("openai", has(|c| matches!(c, ModelCall::OpenAi(..)))),
    ];
    let named: Vec<&str> = kinds
        .iter()
        .filter(|(_, on)| *on)
        .map(|(k, _)| *k)
        .collect();
    match named.is_empty() {
        true => "mock".into(),
        false => named.join("+"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::task::preset;

    fn registry() -> Registry {
        Registry::parse(
            "r.json",
            r#"[{"name": "local", "base_url": "http://127.0.0.1:8091/v1?x=1", "model": "m1",
                 "api_key_env": "LOCAL_KEY", "default_params": {"temperature": 0.5}}]"#,
        )
        .expect("valid")
    }

    #[test]
    fn mocks_come_first_and_registry_models_carry_params_and_key() {
        let task = preset("event_eval").expect("preset");
        let all = choices(&registry(), &[], None);
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["mock-a", "mock-b", "local"]);
        assert_eq!(all[2].key_env(), Some("LOCAL_KEY"));
        let selected: BTreeSet<String> = ["local", "mock-b"].map(String::from).into();
        let entry = &registry().models[0];
        let bound = BoundKey::new(entry, "sk-test").expect("key");
        let keys: Keys = [("local".to_string(), bound)].into();
        let plan = plan(
            &task,
            &all,
            &selected,
            KeySources {
                registry: &keys,
                origins: &KeyRing::default(),
            },
            0.0,
        )
        .expect("planned");
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[0].settings.name, "mock-b");
        assert_eq!(
            plan[0].settings.params["response_format"]["type"],
            "json_object"
        );
        let s = &plan[1].settings;
        assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:8091/v1"));
        assert_eq!(s.params["temperature"], 0.5);
        assert_eq!(s.params["response_format"]["type"], "json_object");
        let json = serde_json::to_string(s).expect("json");
        assert!(!json.contains("sk-test"));
        let ModelCall::OpenAi(cfg, _) = &plan[1].call else {
            panic!("endpoint")
        };
        assert_eq!(cfg.api_key.as_ref().map(ApiKey::expose), Some("sk-test"));
        assert!(
            !format!("{plan:?}").contains("sk-test"),
            "Debug hides the key"
        );
        assert_eq!(backend(&plan), "mock+openai");
        assert_eq!(backend(&plan[..1]), "mock");
    }

    fn gguf() -> Rc<LocalModelInfo> {
        Rc::new(
            serde_json::from_value(serde_json::json!({
                "engine": "llama.cpp (@wllama/wllama)", "file": "gemma.gguf",
                "size_bytes": 253, "sha256": "a5fd", "architecture": "gemma3",
                "quantisation": "Q4_K_M", "threads": 2
            }))
            .expect("an engine's description"),
        )
    }

    #[test]
    fn a_model_file_in_the_page_is_a_model_of_the_list_answered_in_the_page() {
        let task = preset("event_eval").expect("preset");
        let all = choices(&registry(), &[], Some(&gguf()));
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["mock-a", "mock-b", "gemma.gguf", "local"]);
        let selected: BTreeSet<String> = ["gemma.gguf", "mock-a", "local"].map(String::from).into();
        let keys = KeySources {
            registry: &Keys::new(),
            origins: &KeyRing::default(),
        };
        let plan = plan(&task, &all, &selected, keys, 0.0).expect("planned");
        let local = &plan[1];
        assert_eq!(local.settings.model, "gemma.gguf");
        assert_eq!(local.settings.base_url, None, "nothing is sent anywhere");
        let engine = local
            .settings
            .engine
            .as_ref()
            .expect("the engine's description");
        assert_eq!(engine["sha256"], "a5fd");
        assert_eq!(engine["quantisation"], "Q4_K_M");
        let ModelCall::InPage(cfg) = &local.call else {
            panic!("answered in the page")
        };
        assert_eq!(
            cfg.params["response_format"]["type"], "json_object",
            "the task's params"
        );
        assert_eq!(cfg.api_key, None);
        assert_eq!(local.price, None);
        assert_eq!(backend(&plan), "mock+local+openai");
        assert_eq!(backend(&plan[1..2]), "local");
        // A judge may be the model file too.
        let judged = preset("support_judged").expect("preset");
        let judge = plan_judge(
            &judged,
            &all,
            "gemma.gguf",
            keys,
            0.0,
            RunSettings::default(),
        );
        let Ok(Some((j, call, _))) = judge else {
            panic!("a judge: {judge:?}")
        };
        assert!(matches!(call, ModelCall::InPage(_)));
        assert_eq!(
            j.model.engine.as_ref().map(|e| &e["file"]),
            Some(&serde_json::json!("gemma.gguf"))
        );
    }

    #[test]
    fn a_key_bound_to_another_base_url_is_not_used() {
        let task = preset("event_eval").expect("preset");
        let all = choices(&registry(), &[], None);
        let other = ModelEntry {
            base_url: "https://other.example/v1".into(),
            ..registry().models[0].clone()
        };
        let keys: Keys = [(
            "local".to_string(),
            BoundKey::new(&other, "sk-other").expect("key"),
        )]
        .into();
        let plan = plan(
            &task,
            &all,
            &["local".to_string()].into(),
            KeySources {
                registry: &keys,
                origins: &KeyRing::default(),
            },
            0.0,
        )
        .expect("planned");
        let ModelCall::OpenAi(cfg, key_for) = &plan[0].call else {
            panic!("endpoint")
        };
        assert!(cfg.api_key.is_none());
        assert!(key_for.is_none());
    }

    #[test]
    fn nothing_ticked_is_an_error_and_http_endpoints_cap_concurrency() {
        let task = preset("event_eval").expect("preset");
        let all = choices(&registry(), &[], None);
        assert!(plan(
            &task,
            &all,
            &BTreeSet::new(),
            KeySources {
                registry: &Keys::new(),
                origins: &KeyRing::default()
            },
            1.0
        )
        .is_err());
        let settings = TaskRunSettings {
            concurrency: 16,
            ..TaskRunSettings::default()
        };
        let only_mock = plan(
            &task,
            &all,
            &["mock-a".to_string()].into(),
            KeySources {
                registry: &Keys::new(),
                origins: &KeyRing::default(),
            },
            1.0,
        )
        .expect("planned");
        assert_eq!(settings.run_settings(&only_mock, 1).concurrency, 16);
        let with_http = plan(
            &task,
            &all,
            &["local".to_string()].into(),
            KeySources {
                registry: &Keys::new(),
                origins: &KeyRing::default(),
            },
            1.0,
        )
        .expect("planned");
        assert_eq!(settings.run_settings(&with_http, 1).concurrency, 6);
        assert_eq!(settings.run_settings(&with_http, 1).timeout_ms, 60_000);
    }

    #[test]
    fn an_endpoint_form_model_takes_the_key_of_its_own_origin_only() {
        let task = preset("event_eval").expect("preset");
        let entry = ModelEntry {
            name: "evalpage-demo".into(),
            base_url: "http://127.0.0.1:8091/v1".into(),
            model: Some("evalpage-demo".into()),
            api_key_env: None,
            default_params: Default::default(),
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        };
        let added = EndpointModel {
            entry,
            origin: "http://127.0.0.1:8091".into(),
        };
        let all = choices(&registry(), std::slice::from_ref(&added), None);
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["mock-a", "mock-b", "evalpage-demo", "local"]);
        let selected: BTreeSet<String> = ["evalpage-demo".to_string()].into();
        let mut ring = KeyRing::default();
        ring.set("http://127.0.0.1:9999", "sk-other-origin", false);
        let keys = KeySources {
            registry: &Keys::new(),
            origins: &ring,
        };
        let planned = plan(&task, &all, &selected, keys, 0.0).expect("planned");
        let ModelCall::OpenAi(cfg, key_for) = &planned[0].call else {
            panic!("endpoint")
        };
        assert!(cfg.api_key.is_none(), "another origin's key is never used");
        assert!(key_for.is_none());
        ring.set("http://127.0.0.1:8091", "sk-own", false);
        let keys = KeySources {
            registry: &Keys::new(),
            origins: &ring,
        };
        let planned = plan(&task, &all, &selected, keys, 0.0).expect("planned");
        let ModelCall::OpenAi(cfg, key_for) = &planned[0].call else {
            panic!("endpoint")
        };
        assert_eq!(cfg.api_key.as_ref().map(ApiKey::expose), Some("sk-own"));
        assert_eq!(key_for.as_deref(), Some("http://127.0.0.1:8091"));
        assert_eq!(planned[0].settings.api_key_env, None);
        assert_eq!(
            endpoint_name("evalpage-demo", "http://127.0.0.1:8091", &all),
            "evalpage-demo@127.0.0.1:8091"
        );
        assert_eq!(endpoint_name("m", "http://h:1", &all), "m");
    }
}
