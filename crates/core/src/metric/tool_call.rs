//! `tool_call` and `tool_call_f1`: the function calls an answer made.
//!
//! `tool_call` is BFCL's AST checker (`toolcall::bfcl::check`, equal to
//! bfcl-eval 2026.3.23's verdict on every answer of `tests/bfcl_parity.rs`):
//! 1 when the calls are right for the sample's category, else 0 with BFCL's
//! error type (`simple_function_checker:missing_required`, `value_error:string`,
//! ...) and its message in the detail. It reads the sample's function
//! declarations (`functions_field`, default `function`), its possible answers
//! (`label_field`, default `ground_truth`: `[{name: {parameter: [values]}}]`,
//! BFCL's form) and its category (`category`, else the sample's
//! `bfcl_category`, else `multiple` for one possible call, `parallel_multiple`
//! for several and `irrelevance` for none). An answer that made no call list
//! (text only) fails with `ast_decoder:decoder_failed` where a call is
//! expected; a call whose arguments are not a JSON object fails with
//! `parse_error` in every category (BFCL credits it as an abstention in the
//! irrelevance categories: the one deliberate difference, gorilla #1362).
//!
//! `tool_call_f1` gives partial credit (`toolcall::f1`): the calls matched one
//! to one with the expected calls (`label_field`: a list of `{name, arguments}`
//! or of `{name: arguments}`) by an optimal assignment, a pair matching by name
//! and by arguments as `args` says (`exact`, `ignore`, `subset`, `superset`);
//! the value is F1 over calls, with `precision` and `recall` as components.

use super::{
    Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::Schema;
use crate::toolcall::bfcl::{check, Category};
use crate::toolcall::f1::{score as f1_score, ArgsMode};
use crate::toolcall::py::Py;
use crate::toolcall::Call;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry of `tool_call`.
pub const TYPE: MetricType = MetricType {
    name: "tool_call",
    kind: RunKind::Task,
    needs: "An answer with function calls, the sample's function declarations and possible answers (BFCL's files, or the same fields in a dataset).",
    description: "The calls are right as BFCL's AST checker decides (name, required and allowed parameters, types, values; any order for parallel calls) (0/1).",
    description_zh: "按 BFCL 的 AST 检查器判定函数调用是否正确（函数名、必需与允许的参数、类型、取值；并行调用不计顺序）（0/1）。",
    keys: &[
        MetricKey {
            name: "functions_field",
            description: "The sample field holding the function declarations (default `function`).",
        },
        MetricKey {
            name: "functions",
            description: "The declarations, when the samples hold none (default: the task's `tools`).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the possible answers, [{name: {parameter: [values]}}] (default `ground_truth`).",
        },
        MetricKey {
            name: "category",
            description: "simple, multiple, parallel, parallel_multiple, irrelevance or relevance (default: the sample's `bfcl_category`, else from the possible answers).",
        },
    ],
    example: "type: tool_call\nname: tool_call\n",
};

/// Registry entry of `tool_call_f1`.
pub const F1_TYPE: MetricType = MetricType {
    name: "tool_call_f1",
    kind: RunKind::Task,
    needs: "An answer with function calls and the expected calls in the sample.",
    description: "F1 of the calls made against the expected calls, matched one to one by an optimal assignment, by name and arguments (exact, ignore, subset or superset).",
    description_zh: "所做调用与预期调用的 F1：按最优一一匹配，按名称与参数（exact、ignore、subset、superset）比较。",
    keys: &[
        MetricKey {
            name: "label_field",
            description: "The sample field holding the expected calls: [{name, arguments}], [{name: arguments}], or a trajectory of chat messages (default `expected_calls`).",
        },
        MetricKey {
            name: "args",
            description: "How arguments must agree: exact (default), ignore, subset (every argument made is expected) or superset (every expected argument is made).",
        },
    ],
    example: "type: tool_call_f1\nlabel_field: expected_calls\nargs: exact\n",
};

/// A built `tool_call`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// Declarations field.
    pub functions_field: String,
    /// Declarations for every sample (the task's `tools`), read as the
    /// checker reads them; a sample's own field wins.
    pub functions: Option<Arc<Vec<Py>>>,
    /// Possible answers field.
    pub label_field: String,
    /// A category for every sample, when the task gives one.
    pub category: Option<Category>,
}

pub(super) fn build(raw: &RawMetric, _schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let category = match raw.string("category")? {
        Some(c) => Some(Category::from_name(c).map_err(|e| KeyError::new("category", e))?),
        None => None,
    };
    let functions = match raw.value("functions") {
        None => None,
        Some(Value::Array(list)) => Some(Arc::new(list.iter().map(declaration).collect())),
        Some(_) => {
            return Err(KeyError::new(
                "functions",
                "expected a list of function declarations",
            ))
        }
    };
    Ok(Arc::new(ToolCall {
        functions,
        functions_field: raw
            .string("functions_field")?
            .unwrap_or("function")
            .to_string(),
        label_field: raw
            .string("label_field")?
            .unwrap_or("ground_truth")
            .to_string(),
        category,
    }))
}

impl ToolCall {
    fn category_of(&self, input: &ScoreInput<'_>, possible: &Py) -> Result<Category, String> {
        if let Some(c) = self.category {
            return Ok(c);
        }
        if let Some(name) = input.label("bfcl_category").and_then(Value::as_str) {
            return Category::from_name(name).map_err(|e| format!("field `bfcl_category`: {e}"));
        }
        Ok(match possible.len() {
            0 => Category::Irrelevance,
            1 => Category::Multiple,
            _ => Category::ParallelMultiple,
        })
    }
}

impl Metric for ToolCall {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let own: Vec<Py>;
        let functions: &[Py] = match (input.label(&self.functions_field), &self.functions) {
            (Some(Value::Array(list)), _) => {
                own = list.iter().map(declaration).collect();
                &own
            }
            (None, Some(f)) => f,
            _ => {
                return SampleScore::skipped(format!(
                    "field `{}`: expected the list of function declarations",
                    self.functions_field
                ))
            }
        };
        let possible = match input.label(&self.label_field) {
            Some(v @ Value::Array(_)) => Py::from_json(v),
            None => Py::List(Vec::new()),
            Some(_) => {
                return SampleScore::skipped(format!(
                "field `{}`: expected the possible answers, [{{name: {{parameter: [values]}}}}]",
                self.label_field
            ))
            }
        };
        let category = match self.category_of(input, &possible) {
            Ok(c) => c,
            Err(e) => return SampleScore::skipped(e),
        };
        if category.needs_answers() && input.label(&self.label_field).is_none() {
            return SampleScore::skipped(format!(
                "field `{}` is missing: the {} category is checked against possible answers",
                self.label_field,
                category.name()
            ));
        }
        let verdict = check(
            category,
            functions,
            input.answer.calls.as_deref(),
            &possible,
        );
        let mut s = SampleScore::new(if verdict.valid { 1.0 } else { 0.0 })
            .detail("category", category.name())
            .detail("valid", verdict.valid)
            .detail("calls", calls_shown(input.answer.calls.as_deref()));
        if let Some(t) = &verdict.error_type {
            s = s
                .with(&format!("{ERROR_PREFIX}{t}"), 1.0)
                .detail("error_type", *t);
        }
        if !verdict.errors.is_empty() {
            s = s.detail("errors", verdict.errors.clone());
        }
        s
    }

    /// The accuracy, and per BFCL error type the number of samples that
    /// failed with it (`error:<type>`): the breakdown by error type.
    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        let mut agg = Aggregate::of(scores);
        for (k, v) in agg.components.iter_mut() {
            if k.starts_with(ERROR_PREFIX) {
                *v = scores
                    .iter()
                    .filter(|s| s.value.is_some() && s.components.contains_key(k))
                    .count() as f64;
            }
        }
        agg
    }
}

/// The component a failed sample carries, followed by its error type.
pub const ERROR_PREFIX: &str = "error:";

/// The calls as the report shows them: `name(arguments)`, the arguments as
/// sent; null for an answer that made no call list (text).
fn calls_shown(calls: Option<&[Call]>) -> Value {
    match calls {
        None => Value::Null,
        Some(c) => Value::Array(
            c.iter()
                .map(|c| Value::String(format!("{}({})", c.name, c.arguments)))
                .collect(),
        ),
    }
}

/// A declaration as the checker reads it: OpenAI's `{type: "function",
/// function: {...}}` unwrapped.
fn declaration(d: &Value) -> Py {
    match d.get("function") {
        Some(f @ Value::Object(_)) if d.get("type").and_then(Value::as_str) == Some("function") => {
            Py::from_json(f)
        }
        _ => Py::from_json(d),
    }
}

/// A built `tool_call_f1`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallF1 {
    /// Expected calls field.
    pub label_field: String,
    /// How arguments must agree.
    pub args: ArgsMode,
}

pub(super) fn build_f1(raw: &RawMetric, _schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let args = match raw.string("args")? {
        None | Some("exact") => ArgsMode::Exact,
        Some("ignore") => ArgsMode::Ignore,
        Some("subset") => ArgsMode::Subset,
        Some("superset") => ArgsMode::Superset,
        Some(other) => {
            return Err(KeyError::new(
                "args",
                format!("{other:?}: expected exact, ignore, subset or superset"),
            ))
        }
    };
    Ok(Arc::new(ToolCallF1 {
        label_field: raw
            .string("label_field")?
            .unwrap_or("expected_calls")
            .to_string(),
        args,
    }))
}

/// Expected calls as a dataset writes them: `{name, arguments}` (arguments
/// an object or JSON text) or `{name: arguments}`; or a trajectory (chat
/// messages), whose assistant messages' calls are the expected ones.
fn expected_calls(v: &Value, field: &str) -> Result<Vec<Call>, String> {
    let Value::Array(items) = v else {
        return Err(format!("field `{field}`: expected a list of calls"));
    };
    // a trajectory (chat messages): the calls of its assistant messages
    if !items.is_empty() && items.iter().all(|i| i.get("role").is_some()) {
        return crate::toolcall::read_answer(v, field)
            .map(|parts| parts.calls.unwrap_or_default())
            .map_err(|e| format!("field {e}"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("field `{field}[{i}]`");
            let Value::Object(o) = item else {
                return Err(format!("{at}: expected {{name, arguments}}"));
            };
            let args_text = |a: &Value| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            match (o.get("name"), o.get("arguments")) {
                (Some(Value::String(name)), args) => Ok(Call::new(
                    name,
                    &args.map(args_text).unwrap_or_else(|| "{}".into()),
                )),
                _ if o.len() == 1 => {
                    let (name, args) = o.iter().next().ok_or_else(|| format!("{at}: empty"))?;
                    Ok(Call::new(name, &args_text(args)))
                }
                _ => Err(format!(
                    "{at}: expected {{name, arguments}} or {{name: arguments}}"
                )),
            }
        })
        .collect()
}

impl Metric for ToolCallF1 {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let expected = match expected_calls(label, &self.label_field) {
            Ok(c) => c,
            Err(e) => return SampleScore::skipped(e),
        };
        let made = input.answer.calls.as_deref().unwrap_or_default();
        let f = f1_score(&expected, made, self.args);
        SampleScore::new(f.f1)
            .with("precision", f.precision)
            .with("recall", f.recall)
            .detail("calls", calls_shown(input.answer.calls.as_deref()))
            .detail("matched", f.matched)
            .detail("expected", f.expected)
            .detail("made", f.made)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    fn answered(calls: serde_json::Value) -> crate::schema::ParsedAnswer {
        let parts = crate::toolcall::read_answer(&json!({ "tool_calls": calls }), "response")
            .expect("calls");
        let mut a = schema("[]").parse_answer("");
        a.calls = parts.calls;
        a
    }

    fn call(name: &str, args: serde_json::Value) -> serde_json::Value {
        json!({"id": "c", "type": "function", "function": {"name": name, "arguments": args.to_string()}})
    }

    #[test]
    fn bfcl_verdict_with_its_error_type() {
        let m = built("{type: tool_call}", &schema("[]"));
        let sample = json!({
            "function": [{"name": "area", "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}, "unit": {"type": "string"}}, "required": ["base"]}}],
            "ground_truth": [{"area": {"base": [10], "unit": ["cm", ""]}}],
            "bfcl_category": "simple_python"
        });
        let right = score_parsed(
            &m,
            sample.clone(),
            &answered(json!([call("area", json!({"base": 10}))])),
        );
        assert_eq!(right.value, Some(1.0));
        let wrong = score_parsed(
            &m,
            sample.clone(),
            &answered(json!([call("area", json!({"base": 10.0}))])),
        );
        assert_eq!(wrong.value, Some(0.0));
        assert_eq!(wrong.detail["error_type"], json!("type_error:simple"));
        let agg = m.aggregate(&[right.clone(), wrong.clone(), wrong.clone()]);
        assert_eq!(agg.components["error:type_error:simple"], 2.0);
        super::super::testing::close(agg.mean, 1.0 / 3.0);
        let text = score_parsed(&m, sample, &schema("[]").parse_answer("no"));
        assert_eq!(
            text.detail["error_type"],
            json!("ast_decoder:decoder_failed")
        );
    }

    #[test]
    fn f1_counts_duplicates_and_reads_both_label_forms() {
        let m = built("{type: tool_call_f1, args: exact}", &schema("[]"));
        let sample =
            json!({"expected_calls": [{"name": "f", "arguments": {"x": 1}}, {"f": {"x": 1}}]});
        let both = score_parsed(
            &m,
            sample.clone(),
            &answered(json!([
                call("f", json!({"x": 1})),
                call("f", json!({"x": 1.0}))
            ])),
        );
        assert_eq!(
            both.value,
            Some(1.0),
            "DeepEval #3141: two right calls of one tool"
        );
        let one = score_parsed(&m, sample, &answered(json!([call("f", json!({"x": 1}))])));
        assert_eq!(one.components["recall"], 0.5);
        assert!((one.value.unwrap_or(0.0) - 2.0 / 3.0).abs() < 1e-12);
    }
}
