//! The final report read back for the invariants.

/// A report's JSON read as a `serde_json::Value` without its `detail`
/// members (each score's details for people: its answer, the keypoints it
/// matched), which no invariant reads: parsed (the text must be whole JSON),
/// not kept. `None` when the text is not JSON.
pub(crate) fn read_report(text: &str) -> Option<serde_json::Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = serde::de::DeserializeSeed::deserialize(Lean, &mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// Builds a JSON value as `serde_json::Value`'s own reader does, leaving
/// out every object member named `detail`.
struct Lean;

impl<'de> serde::de::DeserializeSeed<'de> for Lean {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Lean {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(b.into())
    }
    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(n.into())
    }
    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(n.into())
    }
    fn visit_f64<E>(self, n: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(s.into())
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(s.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Lean)? {
            out.push(v);
        }
        Ok(out.into())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "detail" {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                let v = map.next_value_seed(Lean)?;
                out.insert(key, v);
            }
        }
        Ok(out.into())
    }
}

#[cfg(test)]
mod tests {
    use super::read_report;
    use serde_json::json;

    #[test]
    fn a_report_is_read_whole_but_its_details() {
        let report = json!({"metrics": {"cases": 2, "pass_rate": 0.5, "x": null, "neg": -3},
            "scores": [{"sample_id": "a", "value": 1.0, "detail": {"answer": "long"}}],
            "list": [true, "s", 1.5e300]});
        let mut want = report.clone();
        want["scores"][0]
            .as_object_mut()
            .map(|o| o.remove("detail"));
        assert_eq!(read_report(&report.to_string()), Some(want.clone()));
        assert_eq!(
            read_report(&serde_json::to_string_pretty(&report).unwrap_or_default()),
            Some(want)
        );
        assert_eq!(read_report("{\"cut\": "), None);
        assert_eq!(read_report("{} {}"), None);
    }
}
