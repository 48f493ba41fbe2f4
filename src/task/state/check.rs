//! Live checks of what the task editors hold: the task YAML, its prompt
//! template (built in, or pasted/loaded when the task names another one) and
//! the model registry JSON. Every problem keeps the line and key path the core
//! found, so the page can list it as the CLI's `task check` prints it.

use super::models::MOCK_MODELS;
use evalpage_core::task::{
    builtin_template, entry_line, locate_in_yaml, DatasetFormat, PromptTemplate, Registry,
    RegistryError, Task, TaskErrors, TaskInfo, TEMPLATE_NAMES,
};
use evalpage_core::{PathLabel, Position};
use std::rc::Rc;

/// One problem shown under an editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorError {
    /// 1-based line in the editor's text, when known.
    pub line: Option<usize>,
    /// Key path such as `metrics[0].pred_field`; empty for the whole text.
    pub path: String,
    /// The full message: `file:line: `path`: what was wrong`.
    pub text: String,
}

impl EditorError {
    fn from_task_errors(e: &TaskErrors) -> Vec<EditorError> {
        e.0.iter()
            .map(|e| EditorError {
                line: e.line,
                path: e.path.clone(),
                text: e.to_string(),
            })
            .collect()
    }

    fn from_registry(e: &RegistryError) -> EditorError {
        EditorError {
            line: e.line,
            path: e.path.clone(),
            text: e.to_string(),
        }
    }
}

/// A task ready to run: validated, with its compiled template.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedTask {
    /// The task.
    pub task: Task,
    /// Its prompt template.
    pub template: PromptTemplate,
    /// Names, versions and origins for every output.
    pub info: TaskInfo,
    /// The dataset reader the task needs.
    pub format: DatasetFormat,
}

/// Where the task's prompt template comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateNeed {
    /// The task could not be read, so it names no template yet.
    Unknown,
    /// A built-in template of this name.
    Builtin(String),
    /// A template the user must paste or load (the task names one that is not built in).
    External {
        /// The name the task gives.
        name: String,
        /// Problems of the template editor's text.
        errors: Vec<EditorError>,
    },
}

/// The result of checking the task and template editors.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskCheck {
    /// Problems of the task YAML.
    pub errors: Vec<EditorError>,
    /// The template the task needs and its problems.
    pub template: TemplateNeed,
    /// The runnable task, when both are valid.
    pub checked: Option<Rc<CheckedTask>>,
}

impl TaskCheck {
    /// Problems of the template editor, if it is needed.
    pub fn template_errors(&self) -> &[EditorError] {
        match &self.template {
            TemplateNeed::External { errors, .. } => errors,
            _ => &[],
        }
    }
}

/// What the editors hold.
#[derive(Clone, Copy, Debug)]
pub struct TaskSource<'a> {
    /// File name shown in messages (`event_eval.yaml`, or the loaded file's name).
    pub task_file: &'a str,
    /// The task YAML.
    pub task_text: &'a str,
    /// The preset's YAML when a preset was chosen (the task's `source` is
    /// `preset` while the text is unchanged).
    pub preset_yaml: Option<&'a str>,
    /// File name of the template text.
    pub template_file: &'a str,
    /// The template YAML (used only when the task names a template that is not built in).
    pub template_text: &'a str,
}

/// Checks the task and, when it names one that is not built in, the template.
pub fn check_task(src: &TaskSource<'_>) -> TaskCheck {
    let task = match Task::parse(src.task_file, src.task_text) {
        Ok(t) => t,
        Err(e) => {
            return TaskCheck {
                errors: EditorError::from_task_errors(&e),
                template: TemplateNeed::Unknown,
                checked: None,
            }
        }
    };
    let source = match src.preset_yaml {
        Some(yaml) if yaml == src.task_text => "preset".to_string(),
        _ => src.task_file.to_string(),
    };
    if let Some(template) = builtin_template(&task.prompt_template) {
        let name = task.prompt_template.clone();
        let checked = ready(task, template, source, "builtin".into());
        return TaskCheck {
            errors: Vec::new(),
            template: TemplateNeed::Builtin(name),
            checked: Some(checked),
        };
    }
    let name = task.prompt_template.clone();
    let template = if src.template_text.trim().is_empty() {
        Err(vec![missing_template(src, &name)])
    } else {
        PromptTemplate::parse(src.template_file, src.template_text)
            .map_err(|e| EditorError::from_task_errors(&e))
    };
    match template {
        Ok(t) => TaskCheck {
            errors: Vec::new(),
            template: TemplateNeed::External {
                name,
                errors: Vec::new(),
            },
            checked: Some(ready(task, t, source, src.template_file.to_string())),
        },
        Err(errors) => TaskCheck {
            errors: Vec::new(),
            template: TemplateNeed::External { name, errors },
            checked: None,
        },
    }
}

fn ready(task: Task, template: PromptTemplate, source: String, prompt: String) -> Rc<CheckedTask> {
    let info = TaskInfo {
        name: task.name.clone(),
        version: task.version.clone(),
        source,
        prompt_name: template.name().to_string(),
        prompt_version: template.version().to_string(),
        prompt_source: prompt,
    };
    let format = DatasetFormat::for_task(&task);
    Rc::new(CheckedTask {
        task,
        template,
        info,
        format,
    })
}

fn missing_template(src: &TaskSource<'_>, name: &str) -> EditorError {
    let line = locate_in_yaml(src.task_text, "prompt_template");
    let place = line.map_or(String::new(), |l| format!(":{l}"));
    EditorError {
        line,
        path: "prompt_template".into(),
        text: format!(
            "{}{place}: `prompt_template`: `{name}` is not a built-in template ({}); paste or load its YAML (name, version, system, user) in the template editor",
            src.task_file,
            TEMPLATE_NAMES.join(", ")
        ),
    }
}

/// A registry as checked: the valid entries, or every problem.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegistryCheck {
    /// The entries (empty while there are errors).
    pub registry: Registry,
    /// Problems with their lines.
    pub errors: Vec<EditorError>,
}

/// Checks registry JSON. Blank text is an empty registry; a model named like
/// a built-in mock model is an error, since the page lists both.
pub fn check_registry(file: &str, text: &str) -> RegistryCheck {
    if text.trim().is_empty() {
        return RegistryCheck::default();
    }
    let registry = match Registry::parse(file, text) {
        Ok(r) => r,
        Err(errors) => {
            return RegistryCheck {
                registry: Registry::default(),
                errors: errors.iter().map(EditorError::from_registry).collect(),
            }
        }
    };
    let clashes: Vec<EditorError> = registry
        .models
        .iter()
        .enumerate()
        .filter(|(_, m)| MOCK_MODELS.contains(&m.name.as_str()))
        .map(|(i, m)| {
            let at = Position::new(file, entry_line(text, i))
                .with_path(format!("models[{i}].name"), PathLabel::Bare);
            let e = RegistryError::new(
                at,
                format!(
                    "`{}` is the name of a built-in mock model; choose another name",
                    m.name
                ),
            );
            EditorError::from_registry(&e)
        })
        .collect();
    if clashes.is_empty() {
        RegistryCheck {
            registry,
            errors: Vec::new(),
        }
    } else {
        RegistryCheck {
            registry: Registry::default(),
            errors: clashes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::task::PRESETS;

    fn src<'a>(task: &'a str, template: &'a str) -> TaskSource<'a> {
        TaskSource {
            task_file: "task.yaml",
            task_text: task,
            preset_yaml: None,
            template_file: "template.yaml",
            template_text: template,
        }
    }

    #[test]
    fn presets_check_with_their_builtin_templates() {
        for p in PRESETS {
            let s = TaskSource {
                preset_yaml: Some(p.yaml),
                ..src(p.yaml, "")
            };
            let c = check_task(&s);
            let checked = c.checked.expect("valid preset");
            assert_eq!(checked.info.source, "preset");
            assert_eq!(checked.info.prompt_source, "builtin");
            assert!(matches!(c.template, TemplateNeed::Builtin(_)));
        }
        let edited = format!("{}\n", PRESETS[0].yaml);
        let s = TaskSource {
            preset_yaml: Some(PRESETS[0].yaml),
            ..src(&edited, "")
        };
        assert_eq!(
            check_task(&s).checked.expect("valid").info.source,
            "task.yaml"
        );
    }

    #[test]
    fn an_unknown_key_is_reported_with_its_line_and_path() {
        let yaml = PRESETS[0]
            .yaml
            .replace("serialize_fields:", "serialise_fields:");
        let c = check_task(&src(&yaml, ""));
        assert!(c.checked.is_none());
        assert_eq!(c.errors.len(), 1);
        let e = &c.errors[0];
        assert_eq!(e.line, Some(7));
        assert!(e.text.starts_with("task.yaml:7:"), "{}", e.text);
        assert!(
            e.text.contains("unknown field `serialise_fields`"),
            "{}",
            e.text
        );
    }

    #[test]
    fn a_task_naming_another_template_needs_its_yaml() {
        let yaml = PRESETS[0].yaml.replace("ie_json", "my_prompt");
        let c = check_task(&src(&yaml, "  "));
        assert!(c.checked.is_none() && c.errors.is_empty());
        let e = &c.template_errors()[0];
        assert_eq!(e.line, Some(3));
        assert!(
            e.text.contains("`my_prompt` is not a built-in template"),
            "{}",
            e.text
        );
        let bad = check_task(&src(&yaml, "name: p\nversion: v1\nuser: \"{{ ticker \"\n"));
        assert!(bad.checked.is_none());
        assert!(bad.template_errors()[0].text.starts_with("template.yaml:"));
        let good =
            "name: my_prompt\nversion: v2\nuser: \"News for {{ ticker }}: {{ news_items }}\"\n";
        let ok = check_task(&src(&yaml, good)).checked.expect("valid");
        assert_eq!(
            (
                ok.info.prompt_name.as_str(),
                ok.info.prompt_version.as_str()
            ),
            ("my_prompt", "v2")
        );
        assert_eq!(ok.info.prompt_source, "template.yaml");
    }

    #[test]
    fn registry_errors_name_the_entry_line() {
        assert_eq!(check_registry("r.json", " \n"), RegistryCheck::default());
        let text = "{\"models\": [\n  {\"name\": \"a\", \"base_url\": \"http://h/v1\"},\n  {\"name\": \"b\",\n   \"base_url\": \"h/v1\"}\n]}";
        let c = check_registry("r.json", text);
        assert_eq!(c.errors.len(), 1);
        assert_eq!(c.errors[0].line, Some(3));
        assert_eq!(
            c.errors[0].text,
            "r.json:3: `models[1].base_url`: expected an http:// or https:// URL"
        );
        let c = check_registry("r.json", "{\"models\": [\n  {\"name\": }\n]}");
        assert_eq!(c.errors[0].line, Some(2));
        let c = check_registry(
            "r.json",
            "[{\"name\": \"mock-a\", \"base_url\": \"http://h\"}]",
        );
        assert!(
            c.errors[0].text.contains("built-in mock model"),
            "{:?}",
            c.errors
        );
        let ok = check_registry("r.json", "[{\"name\": \"x\", \"base_url\": \"http://h\"}]");
        assert_eq!(ok.registry.models.len(), 1);
    }
}
