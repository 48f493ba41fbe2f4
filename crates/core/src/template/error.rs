//! Errors of task and template files: each names the file, the key path
//! (`metrics[1].pred_field`) and, when known, the line and column, as every
//! input error does (see [`crate::position`]).

use crate::position::InputError;
use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// A problem at one key of a task or template file.
pub type TaskError = InputError;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::KeyError;

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
