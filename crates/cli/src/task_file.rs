//! Finding a task and its prompt template. `--task` is a task YAML file when a
//! file of that name exists, else a preset name (`event_eval`, `support_qa`,
//! `rag_qa`). A task's `prompt_template` is a built-in template name
//! (`ie_json`, `rag_qa`, `support_qa`) or a template file beside the task
//! file: `NAME`, `NAME.yaml`, `NAME.yml`, `prompts/NAME.yaml`, or
//! `../prompts/NAME.yaml` (spec 004's `bench/tasks` + `bench/prompts` layout).

use crate::error::CliError;
use evalpage_core::task::{self, builtin_template, PromptTemplate, Task, TaskErrors, PRESETS};
use evalpage_core::task_run::TaskInfo;
use evalpage_core::TEMPLATE_NAMES;
use std::path::{Path, PathBuf};

/// A validated task with its resolved template.
#[derive(Debug)]
pub struct LoadedTask {
    /// The task.
    pub task: Task,
    /// The compiled template (recorded by `score`, not rendered).
    pub template: PromptTemplate,
    /// Names, versions and origins for the outputs.
    pub info: TaskInfo,
}

/// Loads and validates `--task` and its template.
pub fn load(spec: &str) -> Result<LoadedTask, CliError> {
    let path = Path::new(spec);
    if path.is_file() {
        return load_file(path);
    }
    if let Some(p) = PRESETS.iter().find(|p| p.name == spec) {
        let task =
            Task::parse(&format!("{}.yaml", p.name), p.yaml).map_err(|e| invalid(spec, &e))?;
        return with_builtin(task, "preset".into(), spec);
    }
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    Err(CliError::Input {
        path: spec.to_string(),
        message: format!(
            "no such task file, and not a preset name (presets: {})",
            names.join(", ")
        ),
    })
}

fn load_file(path: &Path) -> Result<LoadedTask, CliError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let task = Task::parse(&shown, &text).map_err(|e| invalid(&shown, &e))?;
    if builtin_template(&task.prompt_template).is_some() {
        return with_builtin(task, shown.clone(), &shown);
    }
    let candidates = template_candidates(path, &task.prompt_template);
    let Some(found) = candidates.iter().find(|c| c.is_file()) else {
        return Err(missing_template(
            &shown,
            &text,
            &task.prompt_template,
            &candidates,
        ));
    };
    let template = read_template(found)?;
    let info = info_of(&task, &template, shown, found.display().to_string());
    Ok(LoadedTask {
        task,
        template,
        info,
    })
}

fn with_builtin(task: Task, source: String, spec: &str) -> Result<LoadedTask, CliError> {
    let template = builtin_template(&task.prompt_template).ok_or_else(|| CliError::Input {
        path: spec.to_string(),
        message: format!("built-in template `{}` is missing", task.prompt_template),
    })?;
    let info = info_of(&task, &template, source, "builtin".into());
    Ok(LoadedTask {
        task,
        template,
        info,
    })
}

fn info_of(task: &Task, template: &PromptTemplate, source: String, prompt: String) -> TaskInfo {
    TaskInfo {
        name: task.name.clone(),
        version: task.version.clone(),
        source,
        prompt_name: template.name().to_string(),
        prompt_version: template.version().to_string(),
        prompt_source: prompt,
    }
}

/// Where a template file named `name` may be, in the order tried.
fn template_candidates(task_path: &Path, name: &str) -> Vec<PathBuf> {
    let dir = task_path.parent().unwrap_or(Path::new(""));
    let mut out = vec![dir.join(name)];
    if Path::new(name).extension().is_none() {
        for f in [format!("{name}.yaml"), format!("{name}.yml")] {
            out.push(dir.join(&f));
        }
        out.push(dir.join("prompts").join(format!("{name}.yaml")));
        out.push(dir.join("..").join("prompts").join(format!("{name}.yaml")));
    }
    out
}

fn read_template(path: &Path) -> Result<PromptTemplate, CliError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    PromptTemplate::parse(&shown, &text).map_err(|e| invalid(&shown, &e))
}

fn missing_template(task: &str, text: &str, name: &str, tried: &[PathBuf]) -> CliError {
    let line =
        task::yaml::locate(text, "prompt_template").map_or(String::new(), |l| format!(":{l}"));
    let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    CliError::TaskInvalid {
        path: task.to_string(),
        errors: vec![format!(
            "{task}{line}: `prompt_template`: `{name}` is not a built-in template ({}) and no template file was found (looked for {})",
            TEMPLATE_NAMES.join(", "),
            tried.join(", ")
        )],
    }
}

fn invalid(path: &str, e: &TaskErrors) -> CliError {
    CliError::TaskInvalid {
        path: path.to_string(),
        errors: e.0.iter().map(ToString::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_with_builtin_templates() {
        let t = load("event_eval").expect("preset");
        assert_eq!(t.info.prompt_name, "ie_json");
        assert_eq!(
            (t.info.source.as_str(), t.info.prompt_source.as_str()),
            ("preset", "builtin")
        );
        assert!(matches!(load("nope"), Err(CliError::Input { .. })));
    }

    #[test]
    fn template_candidates_follow_the_documented_order() {
        let c = template_candidates(Path::new("bench/tasks/t.yaml"), "p");
        let shown: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            shown,
            vec![
                "bench/tasks/p",
                "bench/tasks/p.yaml",
                "bench/tasks/p.yml",
                "bench/tasks/prompts/p.yaml",
                "bench/tasks/../prompts/p.yaml"
            ]
        );
        assert_eq!(template_candidates(Path::new("t.yaml"), "p.yaml").len(), 1);
    }
}
