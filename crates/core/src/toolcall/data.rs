//! BFCL's files as a dataset: a question file (`BFCL_v4_<category>.json`, JSON
//! lines of `id`, `question`, `function`) and its possible answers
//! (`possible_answer/<same name>`, JSON lines of `id`, `ground_truth`).

use super::bfcl::Category;
use super::py::Py;
use crate::dataset::LineError;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The category a BFCL file's name gives (`BFCL_v4_simple_python.json` →
/// `simple_python`), if the name is BFCL's.
pub fn category_of_file(file_name: &str) -> Option<String> {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base
        .strip_suffix(".jsonl")
        .or_else(|| base.strip_suffix(".json"))?;
    let rest = stem.strip_prefix("BFCL_")?;
    let (_version, category) = rest.split_once('_')?;
    (!category.is_empty()).then(|| category.to_string())
}

/// One entry: the sample the task scores.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// `id`.
    pub id: String,
    /// 1-based line in the question file.
    pub line: usize,
    /// The category (from the file name).
    pub category: String,
    /// The first turn's messages (`question[0]`).
    pub messages: Vec<Value>,
    /// The function declarations (`function`), as written.
    pub functions: Vec<Value>,
    /// The possible answers (`ground_truth`), for the categories that have them.
    pub ground_truth: Option<Value>,
}

impl Entry {
    /// The entry as a task sample's fields: `id`, `question`, `function`,
    /// `ground_truth`, `bfcl_category`.
    pub fn to_sample(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("id".into(), Value::String(self.id.clone()));
        m.insert("question".into(), Value::Array(self.messages.clone()));
        m.insert("function".into(), Value::Array(self.functions.clone()));
        if let Some(g) = &self.ground_truth {
            m.insert("ground_truth".into(), g.clone());
        }
        m.insert("bfcl_category".into(), Value::String(self.category.clone()));
        m
    }

    /// The declarations as the checker reads them.
    pub fn functions_py(&self) -> Vec<Py> {
        self.functions.iter().map(Py::from_json).collect()
    }
}

/// What reading a question file gives: the entries, and every line that was
/// skipped with why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    /// Entries in file order.
    pub entries: Vec<Entry>,
    /// Lines skipped, each with where and why.
    pub problems: Vec<LineError>,
}

/// Reads a BFCL question file and, for the categories scored against possible
/// answers, its possible-answer file (`answers`: its name and text; `None`
/// when it could not be found, which is an error for those categories). A bad
/// line is reported and skipped; an entry with no possible answer too.
pub fn read(file: &str, text: &str, answers: Option<(&str, &str)>) -> Result<Read, String> {
    let category = category_of_file(file).ok_or_else(|| {
        format!("{file}: a BFCL question file is named BFCL_v<N>_<category>.json (the category decides how answers are checked)")
    })?;
    let kind = Category::from_name(&category).map_err(|e| format!("{file}: {e}"))?;
    let mut out = Read::default();
    let mut truths: HashMap<String, Value> = HashMap::new();
    // Each question line read once: (1-based line, the value or why not).
    let lines: Vec<(usize, Result<Value, String>)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            (
                i + 1,
                serde_json::from_str(l).map_err(|e| format!("not JSON: {e}")),
            )
        })
        .collect();
    // A question file whose lines carry their own `ground_truth` (the page's
    // demo, or a file merged for the page) needs no possible-answer file.
    let inline = answers.is_none()
        && lines
            .iter()
            .any(|(_, v)| v.as_ref().is_ok_and(|v| v.get("ground_truth").is_some()));
    if kind.needs_answers() && !inline {
        let Some((answers_file, answers_text)) = answers else {
            return Err(format!(
                "{file}: the {category} category is checked against possible answers, and none were found: the CLI reads BFCL's possible_answer/{} beside the file, or the file named by --possible-answers; a file whose lines carry their own `ground_truth` needs neither (the page reads only such files)",
                file.rsplit(['/', '\\']).next().unwrap_or(file)
            ));
        };
        for (i, line) in answers_text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let problem = |message: String| LineError {
                file: answers_file.to_string(),
                line: i + 1,
                field: None,
                message,
            };
            match serde_json::from_str::<Value>(line) {
                Ok(v) => match (v.get("id").and_then(Value::as_str), v.get("ground_truth")) {
                    (Some(id), Some(g @ Value::Array(_))) => {
                        truths.insert(id.to_string(), g.clone());
                    }
                    (None, _) => out.problems.push(problem("field id: missing (expected the question's id)".into())),
                    (Some(_), _) => out.problems.push(problem(
                        "field ground_truth: expected a list of {function: {parameter: [possible values]}}".into(),
                    )),
                },
                Err(e) => out.problems.push(problem(format!("not JSON: {e}"))),
            }
        }
    }
    for (line, v) in lines {
        let problem = |message: String| LineError {
            file: file.to_string(),
            line,
            field: None,
            message,
        };
        let v = match v {
            Ok(v) => v,
            Err(e) => {
                out.problems.push(problem(e));
                continue;
            }
        };
        let Some(id) = v.get("id").and_then(Value::as_str) else {
            out.problems
                .push(problem("field id: missing (expected a string)".into()));
            continue;
        };
        let messages = match v.get("question") {
            Some(Value::Array(turns)) => match turns.first() {
                Some(Value::Array(m)) => m.clone(),
                // A flat list of messages is read too.
                Some(Value::Object(_)) => turns.clone(),
                _ => {
                    out.problems.push(problem("field question: expected a list of turns, each a list of {role, content} messages".into()));
                    continue;
                }
            },
            _ => {
                out.problems.push(problem("field question: expected a list of turns, each a list of {role, content} messages".into()));
                continue;
            }
        };
        let functions = match v.get("function") {
            Some(Value::Array(f)) => f.clone(),
            Some(f @ Value::Object(_)) => vec![f.clone()],
            _ => {
                out.problems.push(problem("field function: expected a list of function declarations {name, description, parameters}".into()));
                continue;
            }
        };
        if let Some(j) = functions.iter().position(|f| {
            f.get("name").and_then(Value::as_str).is_none()
                || !f.get("parameters").is_some_and(Value::is_object)
        }) {
            out.problems.push(problem(format!(
                "field function[{j}]: expected a declaration with a name and a parameters schema ({{\"type\": \"dict\", \"properties\": ..., \"required\": [...]}})"
            )));
            continue;
        }
        let ground_truth = if kind.needs_answers() {
            match truths.remove(id).or_else(|| {
                v.get("ground_truth")
                    .filter(|g| inline && g.is_array())
                    .cloned()
            }) {
                Some(g) => Some(g),
                None => {
                    out.problems.push(problem(if inline {
                        format!("{id}: field ground_truth: missing or not a list (the file's other lines carry their possible answers)")
                    } else {
                        format!("{id}: no possible answer for this id in the possible-answer file")
                    }));
                    continue;
                }
            }
        } else {
            None
        };
        out.entries.push(Entry {
            id: id.to_string(),
            line,
            category: category.clone(),
            messages,
            functions,
            ground_truth,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_category_comes_from_the_file_name() {
        assert_eq!(
            category_of_file("data/BFCL_v4_simple_python.json").as_deref(),
            Some("simple_python")
        );
        assert_eq!(
            category_of_file("BFCL_v3_live_parallel_multiple.json").as_deref(),
            Some("live_parallel_multiple")
        );
        assert_eq!(category_of_file("answers.jsonl"), None);
    }

    #[test]
    fn bad_lines_are_located_and_skipped() {
        let q = concat!(
            r#"{"id": "simple_python_0", "question": [[{"role": "user", "content": "hi"}]], "function": [{"name": "f", "parameters": {"type": "dict", "properties": {}, "required": []}}]}"#,
            "\n{oops\n",
            r#"{"id": "simple_python_2", "question": [[{"role": "user", "content": "x"}]], "function": [{"name": "f"}]}"#,
            "\n",
            r#"{"id": "simple_python_3", "question": [[{"role": "user", "content": "x"}]], "function": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}]}"#,
        );
        let a = r#"{"id": "simple_python_0", "ground_truth": [{"f": {}}]}"#;
        let r = read(
            "BFCL_v4_simple_python.json",
            q,
            Some(("possible_answer/BFCL_v4_simple_python.json", a)),
        )
        .unwrap();
        assert_eq!(r.entries.len(), 1);
        let lines: Vec<String> = r.problems.iter().map(ToString::to_string).collect();
        assert!(
            lines[0].starts_with("BFCL_v4_simple_python.json:2: not JSON"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("BFCL_v4_simple_python.json:3: field function[0]"),
            "{lines:?}"
        );
        assert!(
            lines[2].contains(":4: simple_python_3: no possible answer"),
            "{lines:?}"
        );
        let e = read("BFCL_v4_simple_python.json", q, None).unwrap_err();
        assert!(
            e.contains("possible_answer/BFCL_v4_simple_python.json"),
            "{e}"
        );
        assert!(read("BFCL_v4_irrelevance.json", q, None).is_ok());
    }
}
