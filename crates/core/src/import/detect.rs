//! Which tool wrote a file, known by its fields: the file's name where a
//! tool fixes it, else the top-level keys of its JSON (and the `object` of an
//! Evals API document and of its first item), parsed from the file's first
//! [`HEAD`] bytes. A head cut inside a value still gives every key before
//! the cut; layout, spacing and key order do not matter, and a key's name
//! written inside some value (a note that says `"evalId"`) is not a key.

use super::{zip, Part};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// How much of a file [`detect`] looks at.
const HEAD: usize = 64 * 1024;

/// The tool and part a file is, from its name and first bytes; `None` for a
/// file of evalpage's own or of no tool this reads.
pub fn detect(name: &str, bytes: &[u8]) -> Option<Part> {
    let base = crate::dataset::file_name(name);
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return base
            .ends_with(".eval")
            .then_some(Part::InspectEval)
            .or_else(|| zip::has_entry(bytes, "header.json").then_some(Part::InspectEval));
    }
    if base.ends_with(".eval") {
        return Some(Part::InspectEval);
    }
    if base.starts_with("samples_") && base.ends_with(".jsonl") {
        return Some(Part::LmEvalSamples);
    }
    let head = &bytes[..bytes.len().min(HEAD)];
    // One JSON value per line: oaieval's log, or output items one per line.
    let first_line = head
        .split(|b| *b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())
        .unwrap_or_default();
    if let Ok(Value::Object(v)) = serde_json::from_slice::<Value>(first_line) {
        if v.get("spec").is_some_and(Value::is_object) {
            return Some(Part::OaiEvalLog);
        }
        if v.get("object").and_then(Value::as_str) == Some("eval.run.output_item") {
            return Some(Part::EvalsItems);
        }
        if v.contains_key("doc_id") && v.contains_key("arguments") {
            return Some(Part::LmEvalSamples);
        }
    }
    let top = Fields::of(head)?;
    let has = |k: &str| top.keys.iter().any(|x| x == k);
    let object = top.object.as_deref();
    if object == Some("eval.run") {
        return Some(Part::EvalsRun);
    }
    if object == Some("eval.run.output_item")
        || (object == Some("list")
            && top.first_item_object.as_deref() == Some("eval.run.output_item"))
    {
        return Some(Part::EvalsItems);
    }
    if has("evalId") || has("shareableUrl") {
        return Some(Part::Promptfoo);
    }
    if has("eval") && (has("plan") || has("status") || has("samples")) {
        return Some(Part::InspectJson);
    }
    let lm_eval = [
        "configs",
        "versions",
        "n-samples",
        "lm_eval_version",
        "group_subtasks",
    ];
    if has("results")
        && (lm_eval.iter().any(|k| has(k))
            || (base.starts_with("results_") && base.ends_with(".json")))
    {
        return Some(Part::LmEvalResults);
    }
    None
}

/// What the head of a JSON document says at its top level.
#[derive(Debug, Default)]
struct Fields {
    /// Its keys, in order, up to where the head ends.
    keys: Vec<String>,
    /// Its `object`, when a string.
    object: Option<String>,
    /// The `object` of the first element of its `data` array.
    first_item_object: Option<String>,
}

impl Fields {
    /// The top level of the JSON object `head` starts; `None` when it does
    /// not start one.
    fn of(head: &[u8]) -> Option<Fields> {
        let text = head.trim_ascii_start();
        if !text.starts_with(b"{") {
            return None;
        }
        let mut fields = Fields::default();
        // a head cut inside the document ends in an error: what was read
        // before the cut is what detection has
        let _ = serde_json::Deserializer::from_slice(text).deserialize_map(Top(&mut fields));
        Some(fields)
    }
}

/// Reads the top-level object into [`Fields`], each key noted before its
/// value is read.
struct Top<'a>(&'a mut Fields);

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            self.0.keys.push(key.clone());
            match key.as_str() {
                "object" => {
                    if let Value::String(s) = map.next_value::<Value>()? {
                        self.0.object = Some(s);
                    }
                }
                "data" => map.next_value_seed(FirstItem(&mut self.0.first_item_object))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// Reads an array, keeping the `object` of its first element when it is an
/// object (any other value is passed over).
struct FirstItem<'a>(&'a mut Option<String>);

impl<'de> DeserializeSeed<'de> for FirstItem<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FirstItem<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some(Value::Object(first)) = seq.next_element::<Value>()? {
            *self.0 = first
                .get("object")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_spacing_and_key_order_do_not_matter() {
        for text in [
            r#"{"object":"eval.run","id":"r"}"#,
            "{\n  \"id\" : \"r\",\n  \"object\" :\t\"eval.run\"\n}",
            r#"  {"status": "completed", "object"  :  "eval.run"}"#,
        ] {
            assert_eq!(
                detect("run.json", text.as_bytes()),
                Some(Part::EvalsRun),
                "{text}"
            );
        }
        let items = "{\n \"object\": \"list\",\n \"data\": [ {\"id\": 1, \"object\" : \"eval.run.output_item\"} ], \"has_more\": false }";
        assert_eq!(
            detect("items.json", items.as_bytes()),
            Some(Part::EvalsItems)
        );
        let inspect = "{\"version\": 2,\n\"status\":\"success\",\n\"eval\": {\"task\": \"t\"}}";
        assert_eq!(
            detect("log.json", inspect.as_bytes()),
            Some(Part::InspectJson)
        );
    }

    #[test]
    fn a_key_named_inside_a_value_is_not_a_key() {
        // evalpage's own report, whose notes mention other tools' keys
        let own =
            r#"{"metrics": {}, "note": "\"evalId\" \"eval.run\" \"eval\" \"plan\"", "scores": []}"#;
        assert_eq!(detect("report.json", own.as_bytes()), None);
        let nested = r#"{"report": {"evalId": "x", "object": "eval.run"}, "scores": []}"#;
        assert_eq!(detect("report.json", nested.as_bytes()), None);
    }

    #[test]
    fn a_head_cut_inside_a_value_keeps_the_keys_before_the_cut() {
        // promptfoo's output: the key comes first, its results are long
        let mut long = String::from("{\"evalId\": \"e1\", \"results\": {\"results\": [");
        while long.len() < HEAD + 1000 {
            long.push_str("{\"success\": true, \"response\": {\"output\": \"some answer\"}},");
        }
        long.push_str("{}]}}");
        assert_eq!(detect("out.json", long.as_bytes()), Some(Part::Promptfoo));
        // lm-eval's results, renamed: its first keys say it
        let lm = "{\"results\": {\"arc\": {\"acc,none\": 0.5}}, \"group_subtasks\": {}, \"configs\": {\"arc\": {\"task\": \"ar";
        assert_eq!(
            detect("renamed.json", lm.as_bytes()),
            Some(Part::LmEvalResults)
        );
        assert_eq!(detect("notes.json", b"{\"hello\": 1}"), None);
        assert_eq!(detect("list.json", b"[1, 2]"), None);
        assert_eq!(detect("empty.json", b""), None);
    }
}
