//! Scripted tools: results written down beforehand, in the task, a file
//! beside it, or each dataset line. A call takes the first result with its
//! tool's name whose `arguments` (when given) are all in the call's with
//! equal values; a call with none is answered with an error that says so.

use super::ToolAnswer;
use crate::dataset::sample::Sample;
use crate::toolcall::py::Py;
use crate::toolcall::Call;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// One scripted result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedResult {
    /// The tool.
    pub name: String,
    /// The arguments it answers (a subset of the call's); any when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Map<String, Value>>,
    /// What the tool answers: text as it is, anything else as JSON text.
    pub result: Value,
    /// The answer is the tool's error (MCP's `isError`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// Where a task's scripted results are.
#[derive(Clone, Debug, PartialEq)]
pub enum Scripts {
    /// The same for every sample (written in the task, or read from a file
    /// beside it).
    Inline(Arc<Vec<ScriptedResult>>),
    /// Each sample's own, in this field.
    Field(String),
    /// A file not read yet (the CLI reads it beside the task).
    File(String),
}

impl Scripts {
    /// Reads a list of scripted results (`what` names it in errors).
    pub fn read_list(v: &Value, what: &str) -> Result<Vec<ScriptedResult>, String> {
        let Value::Array(items) = v else {
            return Err(format!(
                "{what}: expected a list of {{name, arguments, result}}"
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                serde_json::from_value(item.clone()).map_err(|e| format!("{what}[{i}]: {e}"))
            })
            .collect()
    }

    /// The results one sample's calls meet.
    pub fn for_sample(&self, sample: &Sample) -> Result<Arc<Vec<ScriptedResult>>, String> {
        match self {
            Scripts::Inline(list) => Ok(list.clone()),
            Scripts::Field(field) => match sample.get(field) {
                Some(v) => Scripts::read_list(v, &format!("field {field}")).map(Arc::new),
                None => Err(format!(
                    "field {field}: missing (the scripted tool results are each sample's own)"
                )),
            },
            Scripts::File(f) => Err(format!(
                "tools.scripted: the file {f} was not read (the CLI reads it beside the task; in the page, write the results in the task or the dataset)"
            )),
        }
    }
}

/// The scripted answer to `call` (its arguments already known to be a JSON
/// object).
pub fn answer(results: &[ScriptedResult], call: &Call) -> ToolAnswer {
    let args = call.arguments_py().ok();
    let found = results.iter().find(|r| {
        r.name == call.name
            && r.arguments.as_ref().is_none_or(|want| {
                want.iter().all(|(k, v)| {
                    args.as_ref()
                        .and_then(|a| a.get(k))
                        .is_some_and(|got| got.py_eq(&Py::from_json(v)))
                })
            })
    });
    match found {
        Some(r) => ToolAnswer {
            content: match &r.result {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            is_error: r.is_error,
        },
        None => ToolAnswer {
            content: format!(
                "error: no scripted result for {} with these arguments",
                call.name
            ),
            is_error: true,
        },
    }
}
