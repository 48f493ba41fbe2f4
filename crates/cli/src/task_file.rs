//! Finding a task and its prompt template. `--task` is a task YAML file when a
//! file of that name exists, else a preset name (`event_eval`, `support_qa`,
//! `rag_qa`). A task's `prompt_template` is a built-in template name
//! (`ie_json`, `rag_qa`, `support_qa`) or a template file beside the task
//! file: `NAME`, `NAME.yaml`, `NAME.yml`, `prompts/NAME.yaml`, or
//! `../prompts/NAME.yaml` (spec 004's `bench/tasks` + `bench/prompts` layout).
//! An `llm_judge` metric's `judge: FILE.yaml` is a judge prompt file beside
//! the task file (or a path relative to it); it is read and checked here,
//! with the metric's keys checked against it (errors on the task's lines).

use crate::error::CliError;
use evalpage_core::task::{
    self, builtin_template, judge_setups, judged_metrics, locate_errors, PromptTemplate, Task,
    TaskErrors, TaskInfo, PRESETS, TEMPLATE_NAMES,
};
use evalpage_core::JudgePrompt;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A validated task with its resolved template.
#[derive(Debug)]
pub struct LoadedTask {
    /// The task.
    pub task: Task,
    /// The compiled template (`score` renders it only for `results.jsonl`'s `messages`).
    pub template: PromptTemplate,
    /// Names, versions and origins for the outputs.
    pub info: TaskInfo,
    /// Judge prompt files the task's `llm_judge` metrics name, read, by the
    /// `judge` value as written.
    pub judges: BTreeMap<String, JudgePrompt>,
    /// The task file and its text (none for presets), to place errors found later.
    pub file: Option<(String, String)>,
}

impl LoadedTask {
    /// Errors found in the task after loading it (key paths such as
    /// `metrics[1].type`), placed on the task file's lines.
    pub fn errors(&self, errors: Vec<evalpage_core::InputError>) -> CliError {
        let (file, text) = self
            .file
            .clone()
            .unwrap_or_else(|| (self.info.source.clone(), String::new()));
        invalid(&file, &locate_errors(&file, &text, errors))
    }
}

/// Loads and validates `--task` and its template.
pub fn load(spec: &str) -> Result<LoadedTask, CliError> {
    let path = Path::new(spec);
    if path.is_file() {
        return load_file(path);
    }
    // Spec 004's layout: a task NAME is `bench/tasks/NAME.yaml` (from the
    // current directory), before a preset of the same name.
    if let Some(found) = bench_task(spec) {
        eprintln!("evalpage: task `{spec}` read from {}", found.display());
        return load_file(&found);
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
            "no such task file, no bench/tasks/{spec}.yaml, and not a preset name (presets: {})",
            names.join(", ")
        ),
    })
}

/// `bench/tasks/NAME.yaml` (or `.yml`) when `spec` is a bare name and the
/// file exists.
fn bench_task(spec: &str) -> Option<PathBuf> {
    let bare = !spec.is_empty()
        && spec
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !bare {
        return None;
    }
    ["yaml", "yml"]
        .iter()
        .map(|ext| {
            Path::new("bench")
                .join("tasks")
                .join(format!("{spec}.{ext}"))
        })
        .find(|p| p.is_file())
}

fn load_file(path: &Path) -> Result<LoadedTask, CliError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let task = Task::parse(&shown, &text).map_err(|e| invalid(&shown, &e))?;
    let task = read_tools_file(path, task)?;
    let task = read_scripts_file(path, task)?;
    if builtin_template(&task.prompt_template).is_some() {
        let judges = read_judges(path, &task, &shown, &text)?;
        let mut loaded = with_builtin(task, shown.clone(), &shown)?;
        loaded.judges = judges;
        loaded.file = Some((shown, text));
        return Ok(loaded);
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
    let judges = read_judges(path, &task, &shown, &text)?;
    let info = info_of(&task, &template, shown.clone(), found.display().to_string());
    Ok(LoadedTask {
        task,
        template,
        info,
        judges,
        file: Some((shown, text)),
    })
}

/// A task's `tools: FILE`, read relative to the task file.
fn read_tools_file(path: &Path, task: Task) -> Result<Task, CliError> {
    let evalpage_core::task::Tools::File(name) = &task.tools else {
        return Ok(task);
    };
    let name = name.clone();
    read_beside(path, &name, "the task's tools file", |shown, text| {
        task.with_tools_file(shown, text)
    })
}

/// A file a task names, read relative to the task file (`what` says which
/// in errors), then given to `apply` with its shown name.
fn read_beside(
    path: &Path,
    name: &str,
    what: &str,
    apply: impl FnOnce(&str, &str) -> Result<Task, String>,
) -> Result<Task, CliError> {
    let file = path.parent().unwrap_or(Path::new("")).join(name);
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(&file).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: format!("{what}: {e}"),
    })?;
    apply(&shown, &text).map_err(|message| CliError::Input {
        path: shown,
        message,
    })
}

/// An agent task's `scripted: FILE`, read relative to the task file.
fn read_scripts_file(path: &Path, task: Task) -> Result<Task, CliError> {
    let Some(evalpage_core::ToolEnvironment::Scripted(evalpage_core::Scripts::File(name))) =
        task.agent.as_ref().map(|a| &a.env)
    else {
        return Ok(task);
    };
    let name = name.clone();
    read_beside(
        path,
        &name,
        "the task's scripted tool results",
        |shown, text| task.with_scripts_file(shown, text),
    )
}

fn with_builtin(task: Task, source: String, spec: &str) -> Result<LoadedTask, CliError> {
    let template = builtin_template(&task.prompt_template).ok_or_else(|| CliError::Input {
        path: spec.to_string(),
        message: format!("built-in template `{}` is missing", task.prompt_template),
    })?;
    if let Err(errors) = judge_setups(&task, &BTreeMap::new()) {
        let e = locate_errors(spec, "", errors);
        return Err(invalid(spec, &e));
    }
    let info = info_of(&task, &template, source, "builtin".into());
    Ok(LoadedTask {
        task,
        template,
        info,
        judges: BTreeMap::new(),
        file: None,
    })
}

/// Reads the judge prompt files of the task's `llm_judge` metrics (relative
/// to the task file) and checks every judged metric against its prompt.
fn read_judges(
    task_path: &Path,
    task: &Task,
    shown: &str,
    text: &str,
) -> Result<BTreeMap<String, JudgePrompt>, CliError> {
    let dir = task_path.parent().unwrap_or(Path::new(""));
    let mut judges = BTreeMap::new();
    for (i, _, file) in judged_metrics(task) {
        let Some(file) = file else { continue };
        if judges.contains_key(file) {
            continue;
        }
        let path = dir.join(file);
        let prompt_text = std::fs::read_to_string(&path).map_err(|e| {
            let line = task::locate_in_yaml(text, &format!("metrics[{i}].judge"))
                .map_or(String::new(), |l| format!(":{l}"));
            CliError::TaskInvalid {
                path: shown.to_string(),
                errors: vec![format!(
                    "{shown}{line}: `metrics[{i}].judge`: cannot read the judge prompt file {}: {e}",
                    path.display()
                )],
            }
        })?;
        let shown_prompt = path.display().to_string();
        let prompt = JudgePrompt::parse(&shown_prompt, &prompt_text)
            .map_err(|e| invalid(&shown_prompt, &e))?;
        judges.insert(file.to_string(), prompt);
    }
    judge_setups(task, &judges)
        .map_err(|errors| invalid(shown, &locate_errors(shown, text, errors)))?;
    Ok(judges)
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
        task::locate_in_yaml(text, "prompt_template").map_or(String::new(), |l| format!(":{l}"));
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
