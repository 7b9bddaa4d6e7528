//! What both backends share: checking a [`Commit`] before writing it, and turning stored words,
//! numbers, bytes, JSON and (for SQLite) text back into the store's types.
//!
//! Reading never panics: anything a row holds that these types cannot represent becomes
//! [`StoreError::Corrupt`] naming the column.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Row, Type};
use uuid::Uuid;

use super::{Commit, RoomStatus, StoreError, Visibility, truncate_to_micros};
use crate::rules::{GameKind, Seat};

/// Checks that `c` continues the log without a hole and returns the room version after it.
pub(super) fn check_commit(c: &Commit) -> Result<i64, StoreError> {
    let invalid = |what: String| {
        Err(StoreError::Corrupt(format!(
            "refusing to write commit for room {}: {what}",
            c.room_id
        )))
    };
    if c.expected_version < 0 {
        return invalid(format!("negative expected version {}", c.expected_version));
    }
    let mut version = c.expected_version;
    for event in &c.events {
        if event.v != version + 1 {
            return invalid(format!(
                "event {:?} has version {}, expected {}",
                event.kind,
                event.v,
                version + 1
            ));
        }
        version = event.v;
    }
    if let Some(game) = &c.game
        && game.room_id != c.room_id
    {
        return invalid(format!("game record is for room {}", game.room_id));
    }
    if c.ratings.is_some() && c.game.is_none() {
        return invalid("rating changes without the game record they belong to".into());
    }
    if let Some(created) = &c.new_room {
        if created.commit.room_id != created.room.id || created.commit.new_room.is_some() {
            return invalid(format!(
                "the room it creates, {}, has a commit for room {} or creates one itself",
                created.room.id, created.commit.room_id
            ));
        }
        check_commit(&created.commit)?;
    }
    Ok(version)
}

/// One column of `row`, with any decoding failure (wrong type, unexpected NULL) as `Corrupt`.
pub(super) fn get<'r, R, T>(row: &'r R, column: &'static str) -> Result<T, StoreError>
where
    R: Row,
    T: Decode<'r, R::Database> + Type<R::Database>,
    &'static str: ColumnIndex<R>,
{
    row.try_get(column)
        .map_err(|e| StoreError::Corrupt(format!("column {column}: {e}")))
}

/// `Corrupt` for a value of `column` that decoded but means nothing here.
fn corrupt(column: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("column {column}: {detail}"))
}

pub(super) fn game(column: &str, word: &str) -> Result<GameKind, StoreError> {
    word.parse().map_err(|e| corrupt(column, e))
}

pub(super) fn status(column: &str, word: &str) -> Result<RoomStatus, StoreError> {
    word.parse().map_err(|e| corrupt(column, e))
}

pub(super) fn visibility(column: &str, word: &str) -> Result<Visibility, StoreError> {
    word.parse().map_err(|e| corrupt(column, e))
}

/// A seat number or a seat count: 0 ..= 255.
pub(super) fn small(column: &str, value: i64) -> Result<Seat, StoreError> {
    Seat::try_from(value).map_err(|_| corrupt(column, format!("{value} is not in 0..=255")))
}

pub(super) fn token_hash(column: &str, bytes: Vec<u8>) -> Result<[u8; 32], StoreError> {
    let len = bytes.len();
    <[u8; 32]>::try_from(bytes).map_err(|_| corrupt(column, format!("{len} bytes, expected 32")))
}

/// A JSON array of strings (the move lists of a game record).
pub(super) fn string_list(column: &str, value: Value) -> Result<Vec<String>, StoreError> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s),
                other => Err(corrupt(column, format!("{other} is not a string"))),
            })
            .collect(),
        other => Err(corrupt(column, format!("{other} is not an array"))),
    }
}

/// A move list as the JSON array both backends store.
pub(super) fn list_json(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

/// SQLite keeps timestamps as fixed-width RFC 3339 UTC text with six fractional digits
/// (`2026-11-29T16:44:00.123456Z`), so text order is time order.
pub(super) fn time_text(t: DateTime<Utc>) -> String {
    truncate_to_micros(t).to_rfc3339_opts(SecondsFormat::Micros, true)
}

pub(super) fn time_from_text(column: &str, text: &str) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| corrupt(column, format!("{text:?}: {e}")))
}

/// SQLite keeps UUIDs as hyphenated lowercase text.
pub(super) fn uuid_text(id: Uuid) -> String {
    id.hyphenated().to_string()
}

pub(super) fn uuid_from_text(column: &str, text: &str) -> Result<Uuid, StoreError> {
    Uuid::parse_str(text).map_err(|e| corrupt(column, format!("{text:?}: {e}")))
}

/// SQLite keeps JSON as text.
pub(super) fn json_text(value: &Value) -> String {
    value.to_string()
}

pub(super) fn json_from_text(column: &str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| corrupt(column, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::EventRow;
    use chrono::{TimeZone, Timelike};

    fn event(v: i64) -> EventRow {
        EventRow {
            v,
            kind: "moved".into(),
            seat: Some(0),
            cid: None,
            data: Value::Null,
            created_at: Utc::now(),
        }
    }

    fn commit(expected_version: i64, versions: &[i64]) -> Commit {
        Commit {
            room_id: Uuid::nil(),
            expected_version,
            status: RoomStatus::Playing,
            events: versions.iter().map(|&v| event(v)).collect(),
            seats: Vec::new(),
            mv: None,
            extra: None,
            taken_back_to: None,
            game: None,
            new_room: None,
            epoch: None,
            flag_at: None,
            ratings: None,
        }
    }

    #[test]
    fn commit_versions_must_continue_without_holes() {
        assert_eq!(check_commit(&commit(3, &[4, 5])).ok(), Some(5));
        assert_eq!(check_commit(&commit(3, &[])).ok(), Some(3));
        assert!(matches!(
            check_commit(&commit(3, &[5])),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            check_commit(&commit(3, &[4, 4])),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            check_commit(&commit(-1, &[0])),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn sqlite_time_text_is_fixed_width_micros_and_round_trips() {
        let t = Utc.with_ymd_and_hms(2026, 11, 29, 16, 44, 0).single();
        let t = t.and_then(|t| t.with_nanosecond(123_456_789));
        let Some(t) = t else {
            panic!("valid test time")
        };
        let text = time_text(t);
        assert_eq!(text, "2026-11-29T16:44:00.123456Z");
        assert_eq!(time_from_text("t", &text).ok(), Some(truncate_to_micros(t)));
        assert!(matches!(
            time_from_text("t", "yesterday"),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn unreadable_values_are_corrupt_not_panics() {
        assert!(matches!(small("seat", 256), Err(StoreError::Corrupt(_))));
        assert!(matches!(small("seat", -1), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            token_hash("h", vec![0; 31]),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            status("s", "Waiting"),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(game("g", "chess"), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            string_list("m", serde_json::json!(["a2a3", 1])),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            uuid_from_text("id", "not-a-uuid"),
            Err(StoreError::Corrupt(_))
        ));
    }
}
