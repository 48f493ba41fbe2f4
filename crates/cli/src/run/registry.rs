//! Reading the model registry (`--model-registry`) and a registry model's
//! key (from the environment variable its entry names; the key is never
//! written anywhere): shared by `run --task` (its models) and every judge
//! (`run/judge.rs`).

use crate::error::CliError;
use evalpage_core::task::{ModelEntry, Registry};
use evalpage_core::ApiKey;
use std::path::Path;

/// The registry file, checked (errors placed on its lines).
pub(super) fn read_registry(path: &Path) -> Result<Registry, CliError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    Registry::parse(&shown, &text).map_err(|errs| CliError::TaskInvalid {
        path: shown,
        errors: errs.iter().map(ToString::to_string).collect(),
    })
}

/// A registry model's key, read from its `api_key_env` (`None` without one;
/// an unset or empty variable is an error naming it).
pub(super) fn read_key(e: &ModelEntry, registry: &Path) -> Result<Option<ApiKey>, CliError> {
    let Some(var) = &e.api_key_env else {
        return Ok(None);
    };
    let value = std::env::var(var).unwrap_or_default();
    ApiKey::new(&value).map(Some).ok_or_else(|| {
        CliError::Usage(format!(
            "model `{}` ({}): its key variable {var} is not set or empty",
            e.name,
            registry.display()
        ))
    })
}
