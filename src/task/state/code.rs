//! The code that reads the task mode's texts, as a table of functions the
//! task state calls: checking the task YAML (a YAML reader) and its prompt
//! template (the Jinja engine), and rendering prompts (the preview, the
//! estimate beside *Start*, a batch export). The page fetches it after its
//! first load (a wasm-split point, `task::code`) and hands it to the state
//! (`TaskAction::Edit(EditAction::CodeLoaded)`); until then the editors say they are checking.
//! Tests and the run itself use [`TaskCode::HERE`].

use super::check::{check_task, CheckedTask, TaskCheck, TaskSource};
use super::data::{self, Preview};
use evalpage_core::task::{EvalSample, PromptTemplate, Task, TaskDataset};
use evalpage_core::ChatMessage;
use std::fmt;

/// Each sample's prompt, or why it cannot be rendered.
pub type Prompts = Vec<Result<Vec<ChatMessage>, String>>;

/// The functions of the task mode that need its parsers and template engine.
#[derive(Clone, Copy)]
pub struct TaskCode {
    /// Checks the task and its template ([`check_task`]).
    pub check: fn(&TaskSource<'_>) -> TaskCheck,
    /// Renders the first sample's prompt ([`data::preview`]).
    pub preview: fn(&CheckedTask, &TaskDataset) -> Preview,
    /// Renders every sample's prompt ([`evalpage_core::task::render_prompts`]).
    pub prompts: fn(&Task, &PromptTemplate, &[EvalSample]) -> Prompts,
}

impl TaskCode {
    /// The functions themselves: whatever names this is linked with them.
    pub const HERE: TaskCode = TaskCode {
        check: check_task,
        preview: data::preview,
        prompts: evalpage_core::task::render_prompts,
    };
}

impl fmt::Debug for TaskCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TaskCode")
    }
}

/// There is one task code: a state that has it equals one that has it.
impl PartialEq for TaskCode {
    fn eq(&self, _: &TaskCode) -> bool {
        true
    }
}
