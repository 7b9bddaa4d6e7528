//! JSON read strictly: an object that names a key twice is refused.
//!
//! serde_json keeps the last of duplicate keys, while other parsers keep the first or refuse; a
//! filtering proxy in front of the server could then read a different request than the server
//! acts on (`{"t": "chat", "t": "resign"}`). Every client text (REST bodies, WebSocket frames) is
//! read through [`from_slice`] first, a `Deserialize` of `serde_json::Value` that checks each
//! object's keys as it builds them; serde_json's own depth limit still applies.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `bytes` as a JSON value; an error says where the text is not JSON or which key came twice.
pub fn from_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<Unique>(bytes).map(|unique| unique.0)
}

/// `text` as a JSON value, refusing duplicate keys (see [`from_slice`]).
pub fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    from_slice(text.as_bytes())
}

/// `bytes` read as `T`, refusing duplicate keys at any depth (see [`from_slice`]).
pub fn from_slice_as<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    serde_json::from_value(from_slice(bytes)?)
}

/// A JSON value whose objects had no key twice.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Unique::deserialize(d).map(|unique| unique.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(Unique(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("the key {key:?} is given twice")));
            }
            let Unique(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            from_str(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(from_str("[]").unwrap(), json!([]));
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        let e = from_str(r#"{"t": "chat", "t": "resign"}"#).unwrap_err();
        assert!(e.to_string().contains("\"t\" is given twice"), "{e}");
        assert!(from_str(r#"{"d": [{"x": 1, "y": 2, "x": 3}]}"#).is_err());
        assert!(
            from_str(r#"{"x": 1, "y": {"x": 2}}"#).is_ok(),
            "same key, other objects"
        );
    }

    #[test]
    fn nesting_past_serde_json_s_limit_is_refused_not_overflowed() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(from_str(&deep).is_err());
    }
}
