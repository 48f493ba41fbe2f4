//! What the task and template editors hold, and their last check: one
//! concern of [`super::TaskState`].

use super::check::{TaskCheck, TaskSource, TemplateNeed};
use super::code::TaskCode;
use evalpage_core::task::PRESETS;
use std::rc::Rc;

/// The editors and their check (the check reads the dataset's format, so
/// `TaskState` runs it).
#[derive(Clone, Debug, PartialEq)]
pub struct Editors {
    /// The preset last chosen (`None` after loading a task file).
    pub preset: Option<&'static str>,
    /// File name of the task text (in messages).
    pub task_file: String,
    /// The task YAML as edited.
    pub task_text: Rc<str>,
    /// File name of the template text.
    pub template_file: String,
    /// The template YAML as edited (for a task that names no built-in template).
    pub template_text: Rc<str>,
    /// The code that checks the task and renders prompts: `None` until the
    /// page has fetched it (the task stays unchecked until then).
    pub code: Option<TaskCode>,
    /// The last fetch of that code failed (the editor offers to try again).
    pub code_failed: bool,
    /// The last check of task and template.
    pub check: Rc<TaskCheck>,
    /// The texts that check read.
    pub(super) checked: (Rc<str>, Rc<str>),
}

impl Editors {
    /// `preset`'s task (the first preset if unknown), unchecked, with `code`.
    pub fn of_preset(preset: &str, code: Option<TaskCode>) -> Editors {
        let p = PRESETS
            .iter()
            .find(|p| p.name == preset)
            .unwrap_or(&PRESETS[0]);
        Editors {
            preset: Some(p.name),
            task_file: format!("{}.yaml", p.name),
            task_text: Rc::from(p.yaml),
            template_file: TEMPLATE_FILE.into(),
            template_text: Rc::from(""),
            code,
            code_failed: false,
            check: Rc::new(TaskCheck {
                errors: Vec::new(),
                template: TemplateNeed::Unknown,
                checked: None,
            }),
            checked: (Rc::from(""), Rc::from("")),
        }
    }

    /// True while the task or template text has not been checked yet.
    pub fn pending(&self) -> bool {
        self.checked.0 != self.task_text || self.checked.1 != self.template_text
    }

    /// Shows the preset `name`'s task; false for an unknown preset.
    pub fn choose_preset(&mut self, name: &str) -> bool {
        let Some(p) = PRESETS.iter().find(|p| p.name == name) else {
            return false;
        };
        self.preset = Some(p.name);
        self.task_file = format!("{}.yaml", p.name);
        self.task_text = Rc::from(p.yaml);
        true
    }

    /// Checks task and template with the code, when it is here: the check,
    /// which the editors keep.
    pub fn check_now(&mut self) -> Option<Rc<TaskCheck>> {
        let code = self.code?;
        let preset_yaml = self
            .preset
            .and_then(|n| PRESETS.iter().find(|p| p.name == n))
            .map(|p| p.yaml);
        let check = (code.check)(&TaskSource {
            task_file: &self.task_file,
            task_text: &self.task_text,
            preset_yaml,
            template_file: &self.template_file,
            template_text: &self.template_text,
        });
        self.checked = (self.task_text.clone(), self.template_text.clone());
        self.check = Rc::new(check);
        Some(self.check.clone())
    }
}

/// File name of a template pasted into the page.
const TEMPLATE_FILE: &str = "template.yaml";
