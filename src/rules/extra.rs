//! Game-specific state beside the position: what one game shows, stores and records that the
//! others have not (Ouk Chatrang: its running count, O-24; Khan and Khan-Tsin: nothing).
//!
//! Each game produces its [`Extra`] ([`Rules::extra`](super::Rules::extra)) as a JSON object whose
//! keys it defines and `docs/protocol.md` documents; everything outside `rules` carries it without
//! reading it: its keys are flattened into the `moved` event and the snapshot (so Ouk Chatrang's
//! `counting` key is where it always was), the store keeps it as JSON after every move that has
//! one, and the game record returns that history. A new game with state of its own implements
//! `extra` and lists its keys in [`KEYS`]; no wire or store type changes.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Every key a game's [`Extra`] may hold, all games together. Reading an [`Extra`] keeps only these,
/// so a frame's other fields (or a renamed one) are never taken for game state.
pub const KEYS: &[&str] = &[super::ouk_chatrang::COUNTING_KEY];

/// A game's own state after a move: a JSON object of [`KEYS`], empty when the game has none now.
/// Serialized as that object (flattened into the frames that carry it).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Extra(Map<String, Value>);

impl Extra {
    /// An extra holding `value` under `key` (one of [`KEYS`]).
    pub fn with(key: &'static str, value: Value) -> Extra {
        let mut map = Map::new();
        map.insert(key.to_owned(), value);
        Extra(map)
    }

    /// Whether the game has no state of its own now.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value under `key`, if the game has one now.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// The keys and values, in key order.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The keys and values, owned.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
    }

    /// Reads a stored or received object, keeping only [`KEYS`]; `None` when `value` is not an
    /// object.
    pub fn from_value(value: Value) -> Option<Extra> {
        match value {
            Value::Object(map) => Some(Extra::known(map)),
            _ => None,
        }
    }

    fn known(mut map: Map<String, Value>) -> Extra {
        map.retain(|key, _| KEYS.contains(&key.as_str()));
        Extra(map)
    }
}

impl From<Extra> for Value {
    fn from(extra: Extra) -> Value {
        Value::Object(extra.0)
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Extra, D::Error> {
        Map::deserialize(deserializer).map(Extra::known)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reading_keeps_only_the_games_keys() {
        let read: Extra =
            serde_json::from_value(json!({"counting": {"count": 3}, "clock": 1})).unwrap();
        assert_eq!(read, Extra::with("counting", json!({"count": 3})));
        assert_eq!(Extra::from_value(json!([1])), None);
        assert!(
            Extra::from_value(json!({"legal_moves": []}))
                .unwrap()
                .is_empty()
        );
    }
}
