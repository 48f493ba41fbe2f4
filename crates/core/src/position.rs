//! Where a problem is in an input file, and the errors that say so.
//!
//! Every reader of user input (dataset lines, task and template YAML, the model
//! registry, `metadata.json`, the keys of a metric or a `parse_schema` field)
//! says where a problem is with one [`Position`]: file, line, column and key
//! path, each left out when unknown. It prints as `file:line:column: ` followed
//! by the quoted key path, so every message reads the same:
//!
//! ```text
//! t.yaml:12: `metrics[0].pred_field`: `summry` is not a parse_schema field
//! data.jsonl:4: field `gold`: missing: expected an array of at least one keypoint
//! metadata.json: key `dataset_id`: missing: spec 003 requires it
//! ```
//!
//! Code that checks one item (a metric entry, a schema field, a dataset record)
//! knows only the key within that item: it returns a [`KeyError`], and its
//! caller, who knows the file, the line and the item's path, places it
//! ([`KeyError::under`], [`KeyError::at`]). This module imports nothing from the
//! rest of the crate, so every layer can use it.

use serde::Serialize;
use std::fmt;
use std::ops::{Deref, DerefMut};
use thiserror::Error;

/// How a message introduces a key path; the formats name their keys differently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathLabel {
    /// The path alone, `` `metrics[1].pred_field` `` (task, template, registry).
    #[default]
    Bare,
    /// A field of a dataset record, ``field `gold` ``.
    Field,
    /// A key of a JSON document, ``key `dataset_id` ``.
    Key,
}

/// Where a problem is: file, line, column and key path, each optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Position {
    /// File name as the user gave it (empty for input built in code).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column in characters, when known (only shown with a line).
    pub column: Option<usize>,
    /// Key path such as `metrics[1].pred_field` or `gold`; empty for the whole
    /// file or record.
    pub path: String,
    /// How the path is introduced in messages.
    #[serde(skip)]
    pub label: PathLabel,
}

impl Position {
    /// A position in `file`, on `line` when known.
    pub fn new(file: impl Into<String>, line: Option<usize>) -> Position {
        Position {
            file: file.into(),
            line,
            ..Position::default()
        }
    }

    /// The same position with a column.
    pub fn with_column(mut self, column: Option<usize>) -> Position {
        self.column = column;
        self
    }

    /// The same position at key path `path`, introduced as `label` says.
    pub fn with_path(mut self, path: impl Into<String>, label: PathLabel) -> Position {
        self.path = path.into();
        self.label = label;
        self
    }
}

impl fmt::Display for Position {
    /// `file:line:column: ` then the quoted key path and `: `; unknown parts
    /// are left out, and an unknown position prints nothing.
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
            let label = match self.label {
                PathLabel::Bare => "",
                PathLabel::Field => "field ",
                PathLabel::Key => "key ",
            };
            write!(f, "{label}`{}`: ", self.path)?;
        }
        Ok(())
    }
}

/// A problem at a position in an input file: a task or template file
/// (`task::TaskError`), the model registry (`task_run::registry::RegistryError`)
/// or `metadata.json` (`report::metadata::MetadataError`).
///
/// It reads as its position plus a message (`e.line`, `e.path`, `e.message`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[error("{position}{message}")]
pub struct InputError {
    /// Where the problem is.
    #[serde(flatten)]
    pub position: Position,
    /// What was wrong and what was expected.
    pub message: String,
}

impl InputError {
    /// A problem at `position`.
    pub fn new(position: Position, message: impl Into<String>) -> InputError {
        InputError {
            position,
            message: message.into(),
        }
    }

    /// A problem at key path `path`, with no file or line yet (the reader of
    /// the file adds them).
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> InputError {
        InputError::new(
            Position {
                path: path.into(),
                ..Position::default()
            },
            message,
        )
    }
}

impl Deref for InputError {
    type Target = Position;

    fn deref(&self) -> &Position {
        &self.position
    }
}

impl DerefMut for InputError {
    fn deref_mut(&mut self) -> &mut Position {
        &mut self.position
    }
}

/// A problem at a key of the item being checked (`lo`, `pred_field`, `gold`);
/// an empty key stands for the whole item. The caller places it in its file.
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

    /// An error about the whole item rather than one of its keys.
    pub fn whole(message: impl Into<String>) -> KeyError {
        KeyError::new("", message)
    }

    /// The key, or `None` for the whole item.
    pub fn key(&self) -> Option<&str> {
        (!self.key.is_empty()).then_some(self.key.as_str())
    }

    /// The error placed under the item's path `parent` (`metrics[1]` + `pred_field`).
    pub fn under(self, parent: &str) -> InputError {
        let path = match self.key() {
            None => parent.to_string(),
            Some(key) => format!("{parent}.{key}"),
        };
        InputError::at(path, self.message)
    }

    /// The error placed in a file: `at` is the item's file and line, and the
    /// key is introduced as `label` says.
    pub fn at(self, at: Position, label: PathLabel) -> InputError {
        InputError::new(at.with_path(self.key, label), self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_the_known_parts_then_the_quoted_path() {
        let at = Position::new("t.yaml", Some(7));
        assert_eq!(at.to_string(), "t.yaml:7: ");
        assert_eq!(at.clone().with_column(Some(5)).to_string(), "t.yaml:7:5: ");
        let field = at.with_path("gold", PathLabel::Field);
        assert_eq!(field.to_string(), "t.yaml:7: field `gold`: ");
        assert_eq!(Position::default().to_string(), "");
        // a column without a line says nothing
        let col = Position::new("m.json", None).with_column(Some(3));
        assert_eq!(col.to_string(), "m.json: ");
    }

    #[test]
    fn key_errors_are_placed_under_a_parent_or_in_a_file() {
        let e = KeyError::new("lo", "must not exceed `hi`").under("parse_schema[1]");
        assert_eq!(e.to_string(), "`parse_schema[1].lo`: must not exceed `hi`");
        let e = KeyError::whole("expected at least one").under("metrics");
        assert_eq!(e.path, "metrics");
        let e = KeyError::new("dataset_id", "missing")
            .at(Position::new("m.json", None), PathLabel::Key);
        assert_eq!(e.to_string(), "m.json: key `dataset_id`: missing");
        assert_eq!((e.line, e.message.as_str()), (None, "missing"));
    }
}
