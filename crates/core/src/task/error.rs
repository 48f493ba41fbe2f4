//! Errors of task and template files: each names the file, the key path
//! (`metrics[1].pred_field`) and, when known, the line and column.

use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// A problem at one key of a task or template file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
pub struct TaskError {
    /// File name as the user gave it (empty for a task built in code).
    pub file: String,
    /// Key path such as `metrics[1].pred_field`; empty for the whole document.
    pub path: String,
    /// 1-based line, when the YAML parser or the locator found one.
    pub line: Option<usize>,
    /// 1-based column, when the YAML parser gave one.
    pub column: Option<usize>,
    /// What was wrong and what was expected.
    pub message: String,
}

impl TaskError {
    /// An error at `path` with no position yet.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> TaskError {
        TaskError {
            file: String::new(),
            path: path.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut place = self.file.clone();
        if let Some(line) = self.line {
            place.push_str(&format!(":{line}"));
            if let Some(column) = self.column {
                place.push_str(&format!(":{column}"));
            }
        }
        if !place.is_empty() {
            write!(f, "{place}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "`{}`: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

/// Every problem found in one file, in document order where known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
pub struct TaskErrors(pub Vec<TaskError>);

impl fmt::Display for TaskErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&shown.join("\n"))
    }
}

impl From<TaskError> for TaskErrors {
    fn from(e: TaskError) -> TaskErrors {
        TaskErrors(vec![e])
    }
}

/// A problem at a key relative to the item being built (`lo`, `pred_field`);
/// the task prefixes it with the item's path (`parse_schema[2].lo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    /// Key within the item.
    pub key: String,
    /// What was wrong.
    pub message: String,
}

impl KeyError {
    /// An error at `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> KeyError {
        KeyError {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The error placed under `parent` (`metrics[1]` + `pred_field`).
    pub fn under(self, parent: &str) -> TaskError {
        let path = if self.key.is_empty() {
            parent.to_string()
        } else {
            format!("{parent}.{}", self.key)
        };
        TaskError::at(path, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_file_line_column_path_and_message() {
        let mut e = KeyError::new("lo", "must not exceed `hi`").under("parse_schema[1]");
        assert_eq!(e.to_string(), "`parse_schema[1].lo`: must not exceed `hi`");
        e.file = "t.yaml".into();
        e.line = Some(7);
        assert_eq!(
            e.to_string(),
            "t.yaml:7: `parse_schema[1].lo`: must not exceed `hi`"
        );
        e.column = Some(5);
        e.path.clear();
        assert_eq!(e.to_string(), "t.yaml:7:5: must not exceed `hi`");
        let all = TaskErrors(vec![e.clone(), e]);
        assert_eq!(all.to_string().lines().count(), 2);
    }
}
