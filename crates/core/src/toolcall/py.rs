//! JSON read as Python's `json.loads` reads it, for a checker that must give
//! the verdicts of BFCL's (a Python program): an integer and a float are
//! different types, `True == 1 == 1.0`, and an object keeps the order of its
//! keys (the first failing argument decides the error type, so order matters).

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// A JSON value with Python's types.
#[derive(Clone, Debug, PartialEq)]
pub enum Py {
    /// `None`.
    None,
    /// `bool`.
    Bool(bool),
    /// `int` (JSON numbers without a fraction or exponent).
    Int(i128),
    /// `float`.
    Float(f64),
    /// `str`.
    Str(String),
    /// `list`.
    List(Vec<Py>),
    /// `dict`, in the order its keys came (a repeated key keeps its first place
    /// and its last value, as `json.loads` does).
    Dict(Vec<(String, Py)>),
}

/// Python's type of a value, as `type(x)` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PyType {
    /// `NoneType`.
    None,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `str`.
    Str,
    /// `list`.
    List,
    /// `dict`.
    Dict,
}

impl PyType {
    /// Python's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            PyType::None => "NoneType",
            PyType::Bool => "bool",
            PyType::Int => "int",
            PyType::Float => "float",
            PyType::Str => "str",
            PyType::List => "list",
            PyType::Dict => "dict",
        }
    }
}

impl Py {
    /// `type(self)`.
    pub fn ty(&self) -> PyType {
        match self {
            Py::None => PyType::None,
            Py::Bool(_) => PyType::Bool,
            Py::Int(_) => PyType::Int,
            Py::Float(_) => PyType::Float,
            Py::Str(_) => PyType::Str,
            Py::List(_) => PyType::List,
            Py::Dict(_) => PyType::Dict,
        }
    }

    /// The value of a number (a bool counts, as in Python).
    fn number(&self) -> Option<f64> {
        match self {
            Py::Bool(b) => Some(f64::from(u8::from(*b))),
            Py::Int(i) => Some(*i as f64),
            Py::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Python's `==`.
    pub fn py_eq(&self, other: &Py) -> bool {
        match (self, other) {
            (Py::Int(a), Py::Int(b)) => a == b,
            (Py::Bool(a), Py::Bool(b)) => a == b,
            (Py::Str(a), Py::Str(b)) => a == b,
            (Py::None, Py::None) => true,
            (Py::List(a), Py::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
            }
            (Py::Dict(a), Py::Dict(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v.py_eq(v2)))
            }
            _ => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }

    /// Python's `x in list`.
    pub fn is_in(&self, list: &[Py]) -> bool {
        list.iter().any(|x| self.py_eq(x))
    }

    /// A key of a dict.
    pub fn get(&self, key: &str) -> Option<&Py> {
        match self {
            Py::Dict(d) => d.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Py::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The items of a list; a string's characters (what Python iterates);
    /// nothing for anything else.
    pub fn items(&self) -> std::borrow::Cow<'_, [Py]> {
        match self {
            Py::List(l) => std::borrow::Cow::Borrowed(l),
            Py::Str(s) => s.chars().map(|c| Py::Str(c.to_string())).collect(),
            _ => std::borrow::Cow::Borrowed(&[]),
        }
    }

    /// `len(x)` of a list, a string or a dict.
    pub fn len(&self) -> usize {
        match self {
            Py::List(l) => l.len(),
            Py::Str(s) => s.chars().count(),
            Py::Dict(d) => d.len(),
            _ => 0,
        }
    }

    /// Whether `len(x)` is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Python's `"" in x`: a list holding `""`, or any string (the empty
    /// string is in every string).
    pub fn holds_empty_string(&self) -> bool {
        match self {
            Py::List(l) => l.iter().any(|x| x.as_str() == Some("")),
            Py::Str(_) => true,
            Py::Dict(d) => d.iter().any(|(k, _)| k.is_empty()),
            _ => false,
        }
    }

    /// The value as JSON (for messages and reports).
    pub fn to_json(&self) -> Value {
        match self {
            Py::None => Value::Null,
            Py::Bool(b) => Value::Bool(*b),
            Py::Int(i) => i64::try_from(*i)
                .map(Value::from)
                .unwrap_or_else(|_| Value::from(*i as f64)),
            Py::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            Py::Str(s) => Value::String(s.clone()),
            Py::List(l) => Value::Array(l.iter().map(Py::to_json).collect()),
            Py::Dict(d) => Value::Object(d.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }

    /// A value from already parsed JSON (key order is then serde_json's).
    pub fn from_json(v: &Value) -> Py {
        match v {
            Value::Null => Py::None,
            Value::Bool(b) => Py::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Py::Int(i128::from(i)),
                (_, Some(u)) => Py::Int(i128::from(u)),
                _ => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Py::Str(s.clone()),
            Value::Array(a) => Py::List(a.iter().map(Py::from_json).collect()),
            Value::Object(o) => Py::Dict(
                o.iter()
                    .map(|(k, v)| (k.clone(), Py::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// Parses JSON text as `json.loads` does (key order kept).
    pub fn parse(text: &str) -> Result<Py, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// A short text of the value for messages (JSON, cut at 200 characters).
impl serde::Serialize for Py {
    /// As JSON, keys in the order they came (as Python prints a dict).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Py::None => s.serialize_unit(),
            Py::Bool(b) => s.serialize_bool(*b),
            Py::Int(i) => match i64::try_from(*i) {
                Ok(i) => s.serialize_i64(i),
                Err(_) => s.serialize_f64(*i as f64),
            },
            Py::Float(f) if f.is_finite() => s.serialize_f64(*f),
            Py::Float(_) => s.serialize_unit(),
            Py::Str(x) => s.serialize_str(x),
            Py::List(l) => {
                let mut seq = s.serialize_seq(Some(l.len()))?;
                for v in l {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Py::Dict(d) => {
                let mut map = s.serialize_map(Some(d.len()))?;
                for (k, v) in d {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl fmt::Display for Py {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, self)
    }
}

/// A list of values shown as a list value is (without making one).
pub struct ShownList<'a>(pub &'a [Py]);

impl fmt::Display for ShownList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, self.0)
    }
}

/// A value as JSON, cut at 200 characters (for messages).
fn show<T: serde::Serialize + ?Sized>(f: &mut fmt::Formatter<'_>, v: &T) -> fmt::Result {
    let s = serde_json::to_string(v).unwrap_or_default();
    match s.char_indices().nth(200) {
        Some((cut, _)) => write!(f, "{}…", &s[..cut]),
        None => f.write_str(&s),
    }
}

impl<'de> Deserialize<'de> for Py {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Py, D::Error> {
        d.deserialize_any(PyVisitor)
    }
}

struct PyVisitor;

impl<'de> Visitor<'de> for PyVisitor {
    type Value = Py;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Py, E> {
        Ok(Py::None)
    }
    fn visit_none<E>(self) -> Result<Py, E> {
        Ok(Py::None)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Py, E> {
        Ok(Py::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Py, E> {
        Ok(Py::Int(i128::from(i)))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Py, E> {
        Ok(Py::Int(i128::from(u)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Py, E> {
        Ok(Py::Float(f))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Py, E> {
        Ok(Py::Str(s.to_string()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Py, E> {
        Ok(Py::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Py, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Py::List(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Py, A::Error> {
        let mut out: Vec<(String, Py)> = Vec::with_capacity(4);
        while let Some((k, v)) = map.next_entry::<String, Py>()? {
            match out.iter_mut().find(|(k2, _)| *k2 == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        Ok(Py::Dict(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_as_python_does() {
        let v = Py::parse(r#"{"b": 1, "a": 1.0, "b": 2, "c": [true, null, "x"]}"#).unwrap();
        let Py::Dict(d) = &v else { panic!() };
        assert_eq!(
            d.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            ["b", "a", "c"]
        );
        assert_eq!(v.get("b"), Some(&Py::Int(2)));
        assert_eq!(v.get("a").map(Py::ty), Some(PyType::Float));
    }

    #[test]
    fn equality_is_pythons() {
        assert!(Py::Bool(true).py_eq(&Py::Int(1)));
        assert!(Py::Int(1).py_eq(&Py::Float(1.0)));
        assert!(!Py::Str("1".into()).py_eq(&Py::Int(1)));
        assert!(Py::List(vec![Py::Int(1), Py::Float(2.0)])
            .py_eq(&Py::List(vec![Py::Float(1.0), Py::Int(2)])));
        let a = Py::parse(r#"{"x": 1, "y": 2}"#).unwrap();
        let b = Py::parse(r#"{"y": 2.0, "x": true}"#).unwrap();
        assert!(a.py_eq(&b));
        assert!(Py::Str("abc".into()).holds_empty_string());
        assert!(!Py::List(vec![Py::Int(0)]).holds_empty_string());
    }
}
