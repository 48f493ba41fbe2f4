//! The `tool_call` verdict: the Berkeley Function Calling Leaderboard's AST
//! checker for Python (`bfcl_eval/eval_checker/ast_eval/ast_checker.py` of
//! PyPI `bfcl-eval` 2026.3.23, Apache-2.0), written again from its rules, and
//! its runner's decoding and relevance steps (`eval_runner.py`).
//!
//! The rules, each as BFCL has them:
//! - the function's name is the declared one, or the declared one with each
//!   `.` as `_` (OpenAI-style names cannot hold a dot; BFCL takes one or the
//!   other by model, this takes either);
//! - every required parameter is there; none is outside the declaration or
//!   outside the possible answer;
//! - types as Python has them: an integer is taken for a float, a float is not
//!   an integer, a boolean is not an integer, a `tuple` is a list; a value of the
//!   possible answer's type where that differs from the declared one is a
//!   "variable" and only compared by value; an array's items are checked one
//!   level deep;
//! - strings compared standardised (spaces and `,./-_*^` dropped, lower case,
//!   `'` as `"`), lists element by element (their strings standardised), dicts
//!   and lists of dicts key by key; `""` among a parameter's possible answers
//!   makes it optional;
//! - parallel categories match calls to possible answers in any order, greedily
//!   as BFCL does (the first call that passes takes the answer);
//! - relevance: a call expected; irrelevance: none (an empty list is none).
//!
//! One deliberate difference: a call whose arguments are not a JSON object is a
//! call that fails (`parse_error`), also in an irrelevance case, where BFCL's
//! runner, failing to decode it, counts it as an abstention and credits it
//! (gorilla issue #1362).

use super::py::{Py, PyType, ShownList};
use super::{call_names as names, Call};
use serde::Serialize;

/// BFCL's test categories, as the checker tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// One call of the one function (`simple_python`, `live_simple`).
    Simple,
    /// One call, of the right one of several functions.
    Multiple,
    /// Several calls, any order.
    Parallel,
    /// Several calls of several functions, any order.
    ParallelMultiple,
    /// No call expected.
    Irrelevance,
    /// A call expected, any call.
    Relevance,
}

impl Category {
    /// The category of a BFCL category name (`simple_python`, `live_multiple`,
    /// `irrelevance`, ...), as BFCL's runner tells them apart (by substring).
    /// Java and JavaScript categories are not read: their values come as
    /// strings that BFCL's type converters turn into values first.
    pub fn from_name(name: &str) -> Result<Category, String> {
        if name.contains("java") {
            return Err(format!(
                "category {name:?}: Java and JavaScript answers are not checked yet (they need BFCL's type converters); the Python categories are"
            ));
        }
        Ok(if name.contains("irrelevance") {
            Category::Irrelevance
        } else if name.contains("relevance") {
            Category::Relevance
        } else if name.contains("parallel") && name.contains("multiple") {
            Category::ParallelMultiple
        } else if name.contains("parallel") {
            Category::Parallel
        } else if name.contains("multiple") {
            Category::Multiple
        } else if name.contains("simple") {
            Category::Simple
        } else {
            return Err(format!(
                "category {name:?} is not one of BFCL's: simple, multiple, parallel, parallel_multiple, irrelevance, relevance (live_ ones too)"
            ));
        })
    }

    /// The category's name as the reports write it (`simple`, `multiple`,
    /// `parallel`, `parallel_multiple`, `irrelevance`, `relevance`).
    pub fn name(self) -> &'static str {
        match self {
            Category::Simple => "simple",
            Category::Multiple => "multiple",
            Category::Parallel => "parallel",
            Category::ParallelMultiple => "parallel_multiple",
            Category::Irrelevance => "irrelevance",
            Category::Relevance => "relevance",
        }
    }

    /// Whether the verdict needs possible answers (every category but the two
    /// relevance ones).
    pub fn needs_answers(self) -> bool {
        !matches!(self, Category::Irrelevance | Category::Relevance)
    }
}

/// A failure's message, made only when it will be shown (`explain`): the
/// parallel checker tries every call against every possible answer and keeps
/// the messages of none but the last, failing, round.
macro_rules! say {
    ($explain:expr, $($t:tt)*) => {
        if $explain { format!($($t)*) } else { String::new() }
    };
}

/// One verdict.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Verdict {
    /// Whether the calls pass.
    pub valid: bool,
    /// BFCL's error type (`simple_function_checker:missing_required`, ...),
    /// or `parse_error` for arguments that are not a JSON object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<&'static str>,
    /// What failed, for people (empty while a parallel search tries pairs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl Verdict {
    fn pass() -> Verdict {
        Verdict {
            valid: true,
            ..Verdict::default()
        }
    }

    /// A failure; a message left unmade (`say!` without `explain`) is not kept.
    fn fail(error_type: &'static str, error: String) -> Verdict {
        Verdict {
            valid: false,
            error_type: Some(error_type),
            errors: if error.is_empty() {
                Vec::new()
            } else {
                vec![error]
            },
        }
    }
}

/// A call with its arguments read.
struct DecodedCall<'a> {
    name: &'a str,
    params: Vec<(String, Py)>,
}

/// An answer's calls with their arguments read as BFCL's runner decodes them
/// (each a JSON object), made once per answer by [`decode`].
pub struct Decoded<'a> {
    /// The answer holds no call list (text only).
    text_only: bool,
    /// The calls as made.
    raw: &'a [Call],
    /// The calls whose arguments are an object, read.
    calls: Vec<DecodedCall<'a>>,
    /// The first call whose arguments are not an object, said.
    parse_error: Option<String>,
}

impl Decoded<'_> {
    /// How many calls were read as objects.
    pub fn objects(&self) -> usize {
        self.calls.len()
    }
}

/// Reads each call's arguments as a JSON object (`None`: no call list).
pub fn decode(calls: Option<&[Call]>) -> Decoded<'_> {
    let text_only = calls.is_none();
    let raw = calls.unwrap_or_default();
    let mut decoded = Vec::with_capacity(raw.len());
    let mut parse_error = None;
    for (i, c) in raw.iter().enumerate() {
        match c.arguments_py() {
            Ok(Py::Dict(params)) => decoded.push(DecodedCall {
                name: &c.name,
                params,
            }),
            Ok(other) => {
                parse_error.get_or_insert_with(|| {
                    format!(
                        "call {} ({}): the arguments are a JSON {}, not an object",
                        i + 1,
                        c.name,
                        json_kind(&other)
                    )
                });
            }
            Err(e) => {
                parse_error.get_or_insert_with(|| {
                    format!(
                        "call {} ({}): the arguments are not JSON: {e}",
                        i + 1,
                        c.name
                    )
                });
            }
        }
    }
    Decoded {
        text_only,
        raw,
        calls: decoded,
        parse_error,
    }
}

/// What a declared parameter's schema type is, as the checker reads it.
enum ParamType {
    /// A Python type, and for an array (or tuple) its items' type.
    Known(PyType, Option<PyType>),
    /// A type BFCL does not check.
    Unknown,
    /// An array whose items have a type BFCL does not check (that type).
    UnknownItems(String),
}

/// A declared parameter, read once.
struct Param {
    name: String,
    type_name: String,
    ty: ParamType,
}

/// A function declaration, read once: its name, its parameters (none when
/// `parameters.properties` is not an object) and the required ones.
struct Function {
    name: Option<String>,
    params: Vec<Param>,
    required: Vec<String>,
}

impl Function {
    fn read(desc: &Py) -> Function {
        let parameters = desc.get("parameters");
        let params = match parameters.and_then(|p| p.get("properties")) {
            Some(Py::Dict(d)) => d
                .iter()
                .map(|(name, detail)| {
                    let type_name = detail.get("type").and_then(Py::as_str).unwrap_or("");
                    let ty = match python_type(type_name) {
                        None => ParamType::Unknown,
                        Some(t) if matches!(type_name, "array" | "tuple") => {
                            let item_type = detail
                                .get("items")
                                .and_then(|i| i.get("type"))
                                .and_then(Py::as_str)
                                .unwrap_or("");
                            match python_type(item_type) {
                                Some(inner) => ParamType::Known(t, Some(inner)),
                                None => ParamType::UnknownItems(item_type.to_string()),
                            }
                        }
                        Some(t) => ParamType::Known(t, None),
                    };
                    Param {
                        name: name.clone(),
                        type_name: type_name.to_string(),
                        ty,
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        let required = parameters
            .and_then(|p| p.get("required"))
            .map(|r| {
                r.items()
                    .iter()
                    .filter_map(|r| r.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Function {
            name: desc.get("name").and_then(Py::as_str).map(str::to_string),
            params,
            required,
        }
    }
}

/// A parameter's possible answers, read once, with their strings and lists
/// standardised for the string and list checkers.
struct Possible {
    name: String,
    values: Vec<Py>,
    /// The type of the first value that is not `""`.
    answer_type: Option<PyType>,
    /// Each value's standardised string (`None` for a value that is not one).
    strings: Vec<Option<String>>,
    /// Each value's items, their strings standardised.
    lists: Vec<Vec<Py>>,
    /// `""` is among them: the parameter may be left out.
    optional: bool,
}

/// One possible call (`{name: {param: [values]}}`), read once.
struct Expected {
    /// Its function's name (the dict's first key).
    name: Option<String>,
    /// The declaration of that name, by its index.
    function: Option<usize>,
    /// Its parameters (`None` when the first value is not a dict).
    params: Option<Vec<Possible>>,
}

impl Expected {
    fn read(answer: &Py, functions: &[Function]) -> Expected {
        let first = match answer {
            Py::Dict(d) => d.first(),
            _ => None,
        };
        let name = first.map(|(k, _)| k.clone());
        let function = name
            .as_deref()
            .and_then(|n| functions.iter().position(|f| f.name.as_deref() == Some(n)));
        let params = match first.map(|(_, v)| v) {
            Some(Py::Dict(d)) => Some(
                d.iter()
                    .map(|(name, possible)| {
                        let values = possible.items().into_owned();
                        Possible {
                            name: name.clone(),
                            answer_type: possible_type(&values),
                            strings: values.iter().map(|v| v.as_str().map(standardize)).collect(),
                            lists: values
                                .iter()
                                .map(|v| v.items().iter().map(standardized).collect())
                                .collect(),
                            optional: possible.holds_empty_string(),
                            values,
                        }
                    })
                    .collect(),
            ),
            _ => None,
        };
        Expected {
            name,
            function,
            params,
        }
    }
}

/// One BFCL entry read once for any number of verdicts: its category, its
/// declarations indexed by parameter, its possible answers with their
/// strings standardised. [`Checker::check`] gives the verdict of [`check`].
pub struct Checker {
    category: Category,
    functions: Vec<Function>,
    expected: Vec<Expected>,
}

impl Checker {
    /// Reads an entry: its function declarations (`function`, BFCL's or
    /// OpenAI's schema dialect) and its possible answers (`ground_truth`: a
    /// list of `{name: {param: [values]}}`; not read for the relevance
    /// categories).
    pub fn new(category: Category, functions: &[Py], possible: &Py) -> Checker {
        let functions: Vec<Function> = functions.iter().map(Function::read).collect();
        let expected = if category.needs_answers() {
            possible
                .items()
                .iter()
                .map(|a| Expected::read(a, &functions))
                .collect()
        } else {
            Vec::new()
        };
        Checker {
            category,
            functions,
            expected,
        }
    }

    /// The verdict on `calls`: `None` when the answer holds no call list at
    /// all (text only), `Some(&[])` for an empty one (BFCL tells them apart in
    /// the categories that expect calls: `ast_decoder:decoder_failed` against
    /// `wrong_count`).
    pub fn check(&self, calls: Option<&[Call]>) -> Verdict {
        self.check_decoded(&decode(calls))
    }

    /// The verdict on an answer already decoded (see [`decode`]).
    pub fn check_decoded(&self, answer: &Decoded<'_>) -> Verdict {
        let Decoded {
            text_only,
            raw: calls,
            calls: decoded,
            parse_error,
        } = answer;
        let parse_error = parse_error.clone();
        match self.category {
            Category::Irrelevance => {
                return if calls.is_empty() {
                    Verdict::pass()
                } else if let Some(e) = parse_error {
                    Verdict::fail("parse_error", e)
                } else {
                    Verdict::fail(
                        "irrelevance_error:decoder_success",
                        format!("a call was made ({}) where none should be", names(calls)),
                    )
                };
            }
            Category::Relevance => {
                return if let Some(e) = parse_error {
                    Verdict::fail("parse_error", e)
                } else if decoded.is_empty() {
                    Verdict::fail(
                        "relevance_error:decoder_failed",
                        "no call was made where one should be".to_string(),
                    )
                } else {
                    Verdict::pass()
                };
            }
            _ => {}
        }
        if let Some(e) = parse_error {
            return Verdict::fail("parse_error", e);
        }
        if *text_only {
            // BFCL's runner cannot decode a text answer as calls.
            return Verdict::fail(
                "ast_decoder:decoder_failed",
                "no function call: the model answered with text".to_string(),
            );
        }
        match self.category {
            Category::Parallel | Category::ParallelMultiple => self.parallel_no_order(decoded),
            Category::Multiple => {
                if decoded.len() != self.expected.len() {
                    return wrong_count("multiple_function_checker:wrong_count");
                }
                let Some(expected) = self.expected.first() else {
                    return bad_answer();
                };
                match self.function_of(expected) {
                    Ok(f) => simple(f, &decoded[0], expected, true),
                    Err(v) => v,
                }
            }
            _ => {
                if decoded.len() != 1 {
                    return wrong_count("simple_function_checker:wrong_count");
                }
                match (self.functions.first(), self.expected.first()) {
                    (Some(f), Some(expected)) => simple(f, &decoded[0], expected, true),
                    _ => bad_answer(),
                }
            }
        }
    }

    /// The declaration a possible call names, or the failure to find it.
    fn function_of(&self, expected: &Expected) -> Result<&Function, Verdict> {
        let Some(name) = &expected.name else {
            return Err(bad_answer());
        };
        match expected.function {
            Some(i) => Ok(&self.functions[i]),
            None => Err(missing_description(name)),
        }
    }

    /// BFCL's `parallel_function_checker_no_order`: each possible answer, in
    /// order, takes the first call not yet taken that passes it.
    fn parallel_no_order(&self, calls: &[DecodedCall]) -> Verdict {
        if calls.len() != self.expected.len() {
            return wrong_count("parallel_function_checker_no_order:wrong_count");
        }
        let mut taken = vec![false; calls.len()];
        for (i, answer) in self.expected.iter().enumerate() {
            let desc = match self.function_of(answer) {
                Ok(f) => f,
                Err(v) => return v,
            };
            let mut found = false;
            for (j, call) in calls.iter().enumerate() {
                if !taken[j] && simple(desc, call, answer, false).valid {
                    taken[j] = true;
                    found = true;
                    break;
                }
            }
            if !found {
                // Why each call left failed, said only now (the search above
                // makes no message).
                let mut errors: Vec<String> = calls
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| !taken[*j])
                    .map(|(j, call)| {
                        let v = simple(desc, call, answer, true);
                        format!(
                            "call {} against possible answer {}: {} ({})",
                            j + 1,
                            i + 1,
                            v.errors.join(" "),
                            v.error_type.unwrap_or_default()
                        )
                    })
                    .collect();
                let left: Vec<String> = (0..calls.len())
                    .filter(|j| !taken[*j])
                    .map(|j| (j + 1).to_string())
                    .collect();
                errors.insert(
                    0,
                    format!(
                        "Could not find a matching function among calls {} for possible answer {} ({}).",
                        left.join(", "),
                        i + 1,
                        answer.name.as_deref().unwrap_or_default()
                    ),
                );
                return Verdict {
                    valid: false,
                    error_type: Some("parallel_function_checker_no_order:cannot_find_match"),
                    errors,
                };
            }
        }
        Verdict::pass()
    }
}

/// The verdict on `calls` for one BFCL entry (see [`Checker::new`] and
/// [`Checker::check`]; a checker made once is faster for many answers).
pub fn check(
    category: Category,
    functions: &[Py],
    calls: Option<&[Call]>,
    possible: &Py,
) -> Verdict {
    Checker::new(category, functions, possible).check(calls)
}

fn json_kind(v: &Py) -> &'static str {
    match v.ty() {
        PyType::List => "array",
        PyType::Str => "string",
        PyType::Int | PyType::Float => "number",
        PyType::Bool => "boolean",
        PyType::None => "null",
        PyType::Dict => "object",
    }
}

fn wrong_count(error_type: &'static str) -> Verdict {
    Verdict::fail(error_type, "Wrong number of functions.".to_string())
}

fn bad_answer() -> Verdict {
    Verdict::fail(
        "possible_answer:malformed",
        "the possible answer is not a list of {function: {parameter: [values]}}".to_string(),
    )
}

fn missing_description(name: &str) -> Verdict {
    Verdict::fail(
        "possible_answer:unknown_function",
        format!("the possible answer names {name:?}, which no declared function is"),
    )
}

/// The Python type a schema type names (BFCL's `PYTHON_TYPE_MAPPING`, and
/// JSON Schema's `object` and `number`, which OpenAI declarations use).
fn python_type(schema_type: &str) -> Option<PyType> {
    Some(match schema_type {
        "string" | "any" => PyType::Str,
        "integer" => PyType::Int,
        "float" | "number" => PyType::Float,
        "boolean" => PyType::Bool,
        "array" | "tuple" => PyType::List,
        "dict" | "object" => PyType::Dict,
        _ => return None,
    })
}

/// BFCL's `simple_function_checker`.
fn simple(desc: &Function, call: &DecodedCall, expected: &Expected, explain: bool) -> Verdict {
    let Some(answer) = &expected.params else {
        return bad_answer();
    };
    let func_name = desc.name.as_deref().unwrap_or("");
    if !same_name(call.name, func_name) {
        return Verdict::fail(
            "simple_function_checker:wrong_func_name",
            say!(
                explain,
                "Function name {func_name:?} not found in model output (it called {:?}).",
                call.name
            ),
        );
    }
    let has = |p: &str| call.params.iter().any(|(k, _)| k == p);
    for r in &desc.required {
        if !has(r) {
            return Verdict::fail(
                "simple_function_checker:missing_required",
                say!(explain, "Missing required parameter: {r:?}."),
            );
        }
    }
    for (param, value) in &call.params {
        let (Some(decl), Some(possible)) = (
            desc.params.iter().find(|p| p.name == *param),
            answer.iter().find(|p| p.name == *param),
        ) else {
            return Verdict::fail(
                "simple_function_checker:unexpected_param",
                say!(explain, "Unexpected parameter: {param:?}."),
            );
        };
        let type_name = decl.type_name.as_str();
        let (expected, nested) = match &decl.ty {
            ParamType::Known(t, nested) => (*t, *nested),
            ParamType::Unknown => {
                return Verdict::fail(
                    "type_error:unknown_schema_type",
                    say!(explain, "Parameter {param:?} is declared with type {type_name:?}, which is not one of string, integer, float/number, boolean, array, tuple, dict/object, any."),
                )
            }
            ParamType::UnknownItems(item_type) => {
                return Verdict::fail(
                    "type_error:unknown_schema_type",
                    say!(explain, "Parameter {param:?} is an array whose items have type {item_type:?}, which is not one BFCL checks."),
                )
            }
        };
        // Python's auto conversion from int to float.
        let converted;
        let value = match (expected, value) {
            (PyType::Float, Py::Int(i)) => {
                converted = Py::Float(*i as f64);
                &converted
            }
            _ => value,
        };
        let t = type_check(
            param,
            value,
            &possible.values,
            possible.answer_type,
            type_name,
            expected,
            nested,
            explain,
        );
        if !t.valid {
            return Verdict {
                valid: false,
                error_type: Some(t.error_type),
                errors: t.errors,
            };
        }
        if !t.is_variable {
            let special = match (expected, nested) {
                (PyType::Dict, _) => Some(dict_check(param, value, &possible.values, explain)),
                (PyType::List, Some(PyType::Dict)) => {
                    Some(list_dict_check(value, &possible.values, explain))
                }
                (PyType::Str, _) => Some(string_check(param, value, possible, explain)),
                (PyType::List, _) => Some(list_check(param, value, possible, explain)),
                _ => None,
            };
            if let Some(v) = special {
                if !v.valid {
                    return v;
                }
                continue;
            }
        }
        if !value.is_in(&possible.values) {
            return Verdict::fail(
                "value_error:others",
                say!(
                    explain,
                    "Invalid value for parameter {param:?}: {value}. Expected one of {}.",
                    ShownList(&possible.values)
                ),
            );
        }
    }
    for possible in answer {
        if !possible.optional && !has(&possible.name) {
            return Verdict::fail(
                "simple_function_checker:missing_optional",
                say!(
                    explain,
                    "Optional parameter {:?} not provided and not marked as optional.",
                    possible.name
                ),
            );
        }
    }
    Verdict::pass()
}

struct TypeCheck {
    valid: bool,
    errors: Vec<String>,
    is_variable: bool,
    error_type: &'static str,
}

/// The type of the first possible answer that is not `""`.
fn possible_type(possible: &[Py]) -> Option<PyType> {
    possible.iter().find(|p| p.as_str() != Some("")).map(Py::ty)
}

/// BFCL's `type_checker`, including its fall-through: a failed nested check
/// of a value that has the possible answer's type comes back as a variable
/// that is not valid (`type_error:nested`). `answer_type` is
/// `possible_type(possible)`.
#[allow(clippy::too_many_arguments)]
fn type_check(
    param: &str,
    value: &Py,
    possible: &[Py],
    answer_type: Option<PyType>,
    type_name: &str,
    expected: PyType,
    nested: Option<PyType>,
    explain: bool,
) -> TypeCheck {
    let mut result = TypeCheck {
        valid: true,
        errors: Vec::new(),
        is_variable: false,
        error_type: "type_error:simple",
    };
    let is_variable = answer_type.is_some_and(|t| t != expected);
    if value.ty() == expected {
        let Some(inner) = nested else {
            result.is_variable = is_variable;
            return result;
        };
        for item in possible {
            let mut ok = true;
            if let Py::List(item) = item {
                for v in value.items().iter() {
                    if !type_check(
                        param,
                        v,
                        item,
                        possible_type(item),
                        inner.name(),
                        inner,
                        None,
                        explain,
                    )
                    .valid
                    {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                return TypeCheck {
                    valid: true,
                    errors: Vec::new(),
                    is_variable,
                    error_type: "type_error:simple",
                };
            }
        }
        result.valid = false;
        result.errors = vec![say!(
            explain,
            "Nested type checking failed for parameter {param:?}. Expected outer type {type_name} with inner type {}. Parameter value: {value}.",
            inner.name()
        )];
        result.error_type = "type_error:nested";
    }
    if answer_type.is_some_and(|t| value.ty() == t) {
        result.is_variable = true;
        return result;
    }
    result.valid = false;
    result.errors.push(say!(
        explain,
        "Incorrect type for parameter {param:?}. Expected type {type_name}, got {}. Parameter value: {value}.",
        value.ty().name()
    ));
    result.error_type = "type_error:simple";
    result
}

/// BFCL's `standardize_string`.
pub fn standardize(s: &str) -> String {
    if s.is_ascii() {
        // one pass, no second string (the common case)
        let mut out = String::with_capacity(s.len());
        for b in s.bytes() {
            match b {
                b' ' | b',' | b'.' | b'/' | b'-' | b'_' | b'*' | b'^' => {}
                b'\'' => out.push('"'),
                b => out.push(b.to_ascii_lowercase() as char),
            }
        }
        return out;
    }
    // Python's `lower()` of the whole string (a final sigma is lowered as one)
    s.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .collect::<String>()
        .to_lowercase()
        .replace('\'', "\"")
}

/// `standardize(raw) == std`, without making the standardised string when
/// `raw` is ASCII.
fn standardized_eq(std: &str, raw: &str) -> bool {
    if !raw.is_ascii() {
        return standardize(raw) == std;
    }
    let mut want = std.bytes();
    for b in raw.bytes() {
        let c = match b {
            b' ' | b',' | b'.' | b'/' | b'-' | b'_' | b'*' | b'^' => continue,
            b'\'' => b'"',
            b => b.to_ascii_lowercase(),
        };
        if want.next() != Some(c) {
            return false;
        }
    }
    want.next().is_none()
}

/// The called name is the declared one, or the declared one with each `.`
/// as `_` (no string made).
fn same_name(called: &str, declared: &str) -> bool {
    called.len() == declared.len()
        && called
            .bytes()
            .zip(declared.bytes())
            .all(|(c, d)| c == d || (d == b'.' && c == b'_'))
}

/// A value with its string standardised (anything else as it is).
fn standardized(v: &Py) -> Py {
    match v {
        Py::Str(s) => Py::Str(standardize(s)),
        other => other.clone(),
    }
}

/// BFCL's `string_checker`: the value standardised equals one of the
/// possible strings standardised (made once, in [`Possible`]).
fn string_check(param: &str, value: &Py, possible: &Possible, explain: bool) -> Verdict {
    // `value` is a string here (the type check passed); a value that is not
    // one equals no string, as in Python
    let ok = match value {
        Py::Str(v) => possible
            .strings
            .iter()
            .flatten()
            .any(|p| standardized_eq(p, v)),
        _ => false,
    };
    if ok {
        Verdict::pass()
    } else {
        Verdict::fail(
            "value_error:string",
            say!(explain, "Invalid value for parameter {param:?}: {value}. Expected one of {}. Case insensitive.", ShownList(&possible.values)),
        )
    }
}

/// BFCL's `list_checker`: the value's items, their strings standardised,
/// equal one possible list's items standardised (made once, in [`Possible`]).
fn list_check(param: &str, value: &Py, possible: &Possible, explain: bool) -> Verdict {
    let out = value.items();
    let ok = possible.lists.iter().any(|p| {
        p.len() == out.len()
            && p.iter().zip(out.iter()).all(|(p, v)| match (p, v) {
                (Py::Str(p), Py::Str(v)) => standardized_eq(p, v),
                // a string equals nothing but a string
                (_, Py::Str(_)) => false,
                (p, v) => p.py_eq(v),
            })
    });
    if ok {
        Verdict::pass()
    } else {
        Verdict::fail(
            "value_error:list/tuple",
            say!(
                explain,
                "Invalid value for parameter {param:?}: {value}. Expected one of {}.",
                ShownList(&possible.values)
            ),
        )
    }
}

/// BFCL's `dict_checker`: the first possible dict the value matches; else
/// the last one's failure (a missing key found after a wrong value sets the
/// type, as BFCL's second loop does).
fn dict_check(param: &str, value: &Py, possible: &[Py], explain: bool) -> Verdict {
    let _ = param;
    let mut result = Verdict::fail("dict_checker:unclear", String::new());
    let Py::Dict(out) = value else {
        return result;
    };
    for answer in possible {
        if answer.as_str() == Some("") {
            continue;
        }
        result = Verdict {
            valid: false,
            error_type: Some("dict_checker:unclear"),
            errors: Vec::new(),
        };
        let mut ok = true;
        for (key, v) in out {
            let Some(choices) = answer.get(key) else {
                result
                    .errors
                    .push(say!(explain, "Unexpected dict key parameter: {key:?}."));
                result.error_type = Some("value_error:dict_key");
                ok = false;
                break;
            };
            let v_std = standardized(v);
            let choices: Vec<Py> = choices.items().iter().map(standardized).collect();
            if !v_std.is_in(&choices) {
                result.errors.push(say!(
                    explain,
                    "Invalid value for parameter {key:?}: {v}. Expected one of {}.",
                    ShownList(&choices)
                ));
                result.error_type = Some("value_error:dict_value");
                ok = false;
                break;
            }
        }
        if let Py::Dict(answer) = answer {
            for (key, choices) in answer {
                if !out.iter().any(|(k, _)| k == key) && !choices.holds_empty_string() {
                    result
                        .errors
                        .push(say!(explain, "Missing dict key parameter: {key:?}."));
                    result.error_type = Some("value_error:dict_key");
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Verdict::pass();
        }
    }
    result
}

/// BFCL's `list_dict_checker`: the dicts in order, against each possible list.
fn list_dict_check(value: &Py, possible: &[Py], explain: bool) -> Verdict {
    let out = value.items();
    let mut result = Verdict {
        valid: false,
        error_type: Some("list_dict_checker:unclear"),
        errors: Vec::new(),
    };
    for answer in possible {
        if out.len() != answer.len() {
            result = Verdict::fail(
                "value_error:list_dict_count",
                "Wrong number of dictionaries in the list.".to_string(),
            );
            continue;
        }
        let answer = answer.items();
        let mut ok = true;
        for (o, a) in out.iter().zip(answer.iter()) {
            result = dict_check("", o, std::slice::from_ref(a), explain);
            if !result.valid {
                ok = false;
                break;
            }
        }
        if ok {
            return Verdict::pass();
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_without_possible_answers_is_a_verdict_not_a_crash() {
        // a `multiple` entry whose ground truth is empty, answered with an
        // empty call list: the counts agree (0 = 0) and there is no first
        // possible answer to check against
        let f = Py::from_json(&json!({"name": "f", "parameters": {"type": "dict",
            "properties": {"x": {"type": "string"}}}}));
        let none = Py::List(Vec::new());
        for category in [Category::Multiple, Category::Simple] {
            let v = check(category, std::slice::from_ref(&f), Some(&[]), &none);
            assert!(!v.valid, "{category:?}");
            let v = check(category, &[], Some(&[Call::new("f", "{}")]), &none);
            assert!(!v.valid, "{category:?}");
        }
        // no possible call and no call made: BFCL's parallel checker passes it
        assert!(check(Category::Parallel, &[], Some(&[]), &none).valid);
        let v = check(
            Category::Multiple,
            std::slice::from_ref(&f),
            Some(&[]),
            &none,
        );
        assert_eq!(v.error_type, Some("possible_answer:malformed"));
    }
}
