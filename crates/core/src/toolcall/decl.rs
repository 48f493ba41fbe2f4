//! Function declarations as a request's `tools`: OpenAI's form
//! (`{type: "function", function: {name, description, parameters}}`) or a
//! bare declaration (`{name, description, parameters}`, BFCL's), each checked
//! (a name, parameters that are an object schema) and sent in OpenAI's form.
//! BFCL's schema dialect is read too: `dict` is sent as `object`, `float` as
//! `number`, `tuple` as `array`, and `any` as no type at all; a name with `.`
//! is sent with `_` (OpenAI's names cannot hold a dot; the `tool_call` checker
//! accepts either).

use serde_json::{json, Map, Value};

/// The `tools` of a request for these declarations (`at` names where they
/// came from in errors, e.g. `tools` or `field function`).
pub fn openai_tools(decls: &[Value], at: &str) -> Result<Value, String> {
    decls
        .iter()
        .enumerate()
        .map(|(i, d)| openai_tool(d, &format!("{at}[{i}]")))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn openai_tool(d: &Value, at: &str) -> Result<Value, String> {
    let Value::Object(o) = d else {
        return Err(format!(
            "{at}: expected a function declaration {{name, description, parameters}}"
        ));
    };
    let f = match (o.get("type").and_then(Value::as_str), o.get("function")) {
        (Some("function"), Some(Value::Object(f))) => f,
        (Some("function"), _) => {
            return Err(format!(
                "{at}.function: expected {{name, description, parameters}}"
            ))
        }
        _ => o,
    };
    let name = match f.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.replace('.', "_"),
        _ => return Err(format!("{at}.name: missing (expected the function's name)")),
    };
    let parameters = match f.get("parameters") {
        None => json!({"type": "object", "properties": {}}),
        Some(p @ Value::Object(po)) => {
            let t = po.get("type").and_then(Value::as_str);
            if !matches!(t, Some("object" | "dict")) {
                return Err(format!(
                    "{at}.parameters.type: expected \"object\" (or BFCL's \"dict\"), found {}",
                    po.get("type").map_or("none".to_string(), Value::to_string)
                ));
            }
            if po.get("properties").is_some_and(|p| !p.is_object()) {
                return Err(format!(
                    "{at}.parameters.properties: expected an object of parameter schemas"
                ));
            }
            openai_schema(p)
        }
        Some(_) => {
            return Err(format!(
                "{at}.parameters: expected a JSON Schema object ({{\"type\": \"object\", \"properties\": ...}})"
            ))
        }
    };
    let mut function = Map::new();
    function.insert("name".into(), Value::String(name));
    if let Some(desc) = f.get("description").and_then(Value::as_str) {
        function.insert("description".into(), Value::String(desc.to_string()));
    }
    function.insert("parameters".into(), parameters);
    Ok(json!({"type": "function", "function": function}))
}

/// A schema in BFCL's dialect as JSON Schema.
fn openai_schema(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, x) in o {
                match (k.as_str(), x) {
                    ("type", Value::String(t)) => match t.as_str() {
                        "dict" => {
                            out.insert(k.clone(), json!("object"));
                        }
                        "float" => {
                            out.insert(k.clone(), json!("number"));
                        }
                        "tuple" => {
                            out.insert(k.clone(), json!("array"));
                        }
                        "any" => {}
                        _ => {
                            out.insert(k.clone(), x.clone());
                        }
                    },
                    ("properties", Value::Object(props)) => {
                        let props: Map<String, Value> = props
                            .iter()
                            .map(|(p, s)| (p.clone(), openai_schema(s)))
                            .collect();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    ("items" | "additionalProperties", s @ Value::Object(_)) => {
                        out.insert(k.clone(), openai_schema(s));
                    }
                    _ => {
                        out.insert(k.clone(), x.clone());
                    }
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfcl_declarations_are_sent_as_openai_tools() {
        let d = json!([{
            "name": "math.hypot",
            "description": "d",
            "parameters": {"type": "dict", "properties": {
                "x": {"type": "float"},
                "pts": {"type": "tuple", "items": {"type": "dict", "properties": {"k": {"type": "any"}}}}
            }, "required": ["x"]}
        }, {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]);
        let tools = openai_tools(d.as_array().expect("list"), "tools").expect("tools");
        assert_eq!(tools[0]["function"]["name"], "math_hypot");
        let p = &tools[0]["function"]["parameters"];
        assert_eq!(p["type"], "object");
        assert_eq!(p["properties"]["x"]["type"], "number");
        assert_eq!(p["properties"]["pts"]["type"], "array");
        assert_eq!(p["properties"]["pts"]["items"]["type"], "object");
        assert!(p["properties"]["pts"]["items"]["properties"]["k"]
            .get("type")
            .is_none());
        assert_eq!(p["required"], json!(["x"]));
        assert_eq!(tools[1]["function"]["name"], "f");
    }

    #[test]
    fn a_declaration_that_is_not_a_schema_is_located() {
        let bad = |d: Value| openai_tools(&[json!({"name": "ok"}), d], "tools").unwrap_err();
        assert_eq!(
            bad(json!({"description": "x"})),
            "tools[1].name: missing (expected the function's name)"
        );
        assert!(bad(json!({"name": "f", "parameters": "x"}))
            .starts_with("tools[1].parameters: expected a JSON Schema object"));
        assert!(bad(json!({"name": "f", "parameters": {"type": "string"}}))
            .starts_with("tools[1].parameters.type: expected \"object\""));
        assert!(bad(json!(3)).starts_with("tools[1]: expected a function declaration"));
    }
}
