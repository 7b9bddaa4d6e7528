//! The domain types that both the rooms and the store speak of: where a room is in its life
//! ([`RoomStatus`]), whether it is listed ([`Visibility`]), a finished game ([`GameRecord`]),
//! and a room's time control ([`TimeControl`]), which the ratings read its speed from. They sit
//! on a floor below all three, so room state never imports the store and ratings never import
//! rooms; the store and room state re-export them under their old paths.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::rules::{Extra, GameKind, Seat};

/// Lifecycle of a room (PROTOCOL.md): `waiting` until every seat is taken, then `playing`, then
/// `finished`. Stored as that lowercase word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoomStatus {
    /// Some seat is still free.
    Waiting,
    /// Every seat is taken and the game runs.
    Playing,
    /// The game is over (a [`GameRecord`] exists).
    Finished,
}

impl RoomStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [RoomStatus; 3] = [
        RoomStatus::Waiting,
        RoomStatus::Playing,
        RoomStatus::Finished,
    ];

    /// The word used on the wire and in the database: `waiting`, `playing` or `finished`.
    pub fn as_str(self) -> &'static str {
        match self {
            RoomStatus::Waiting => "waiting",
            RoomStatus::Playing => "playing",
            RoomStatus::Finished => "finished",
        }
    }
}

impl fmt::Display for RoomStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RoomStatus {
    type Err = UnknownWord;

    /// Parses the exact lowercase word of [`RoomStatus::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RoomStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownWord::new("room status", s))
    }
}

/// Whether a waiting room is listed in the lobby. Stored as `public` / `private`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed in the lobby while waiting.
    Public,
    /// Reachable only by its link or invite code (the default).
    Private,
}

impl Visibility {
    /// Both visibilities.
    pub const ALL: [Visibility; 2] = [Visibility::Public, Visibility::Private];

    /// The word used on the wire and in the database: `public` or `private`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
        }
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Visibility {
    type Err = UnknownWord;

    /// Parses the exact lowercase word of [`Visibility::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Visibility::ALL
            .into_iter()
            .find(|visibility| visibility.as_str() == s)
            .ok_or_else(|| UnknownWord::new("visibility", s))
    }
}

/// A word that names none of an enum's values (returned by the `FromStr` impls of this module).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {word:?}")]
pub struct UnknownWord {
    /// What was being parsed, e.g. `"room status"`.
    pub what: &'static str,
    /// The word that was given.
    pub word: String,
}

impl UnknownWord {
    fn new(what: &'static str, word: &str) -> Self {
        UnknownWord {
            what,
            word: word.to_owned(),
        }
    }
}

/// Whether a room's `options` (as stored with it) make it rated: `"rated": true`, which a rated
/// create request puts there beside its `clock`, so a restart and a rematch find it as they find
/// the clock. The store writes it to `rooms.rated` too, for queries.
pub fn is_rated(options: &Value) -> bool {
    options.get("rated") == Some(&Value::Bool(true))
}

/// A finished game (the `games` table and `GET /api/games/{room_id}`).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The room the game was played in.
    pub room_id: Uuid,
    /// The game played.
    pub game: GameKind,
    /// `[{"seat", "color", "name"}]`.
    pub players: Value,
    /// The winning seat, `None` for a draw or an aborted game.
    pub winner: Option<Seat>,
    /// The reason word, e.g. `checkmate`.
    pub reason: String,
    /// The position the game started from (position text).
    pub start_position: String,
    /// The position the game ended in (position text).
    pub final_position: String,
    /// Canonical notation, in order.
    pub moves: Vec<String>,
    /// Display notation (SAN), in order.
    pub display_moves: Vec<String>,
    /// The game's own state at the end (Ouk Chatrang: `counting` if a count was running; same
    /// JSON as the protocol's); empty when it has none.
    pub extra: Extra,
    /// When the game started (every seat taken), if it did.
    pub started_at: Option<DateTime<Utc>>,
    /// When the game ended.
    pub finished_at: DateTime<Utc>,
}

/// A timed room's clock settings (`clock` of the create request, kept in the room's `options`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSettings {
    /// Each seat's starting time, in seconds (1..=10800).
    pub initial_s: u32,
    /// Added to a seat's time after each of its moves (Fischer), in seconds (0..=180).
    pub increment_s: u32,
}

impl ClockSettings {
    /// The longest starting time: three hours.
    pub const MAX_INITIAL_S: u32 = 10_800;
    /// The largest increment: three minutes.
    pub const MAX_INCREMENT_S: u32 = 180;

    /// Checks the bounds; the error is a sentence for people.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=Self::MAX_INITIAL_S).contains(&self.initial_s) {
            return Err(format!(
                "clock.initial_s is 1 to {} seconds",
                Self::MAX_INITIAL_S
            ));
        }
        if self.increment_s > Self::MAX_INCREMENT_S {
            return Err(format!(
                "clock.increment_s is 0 to {} seconds",
                Self::MAX_INCREMENT_S
            ));
        }
        Ok(())
    }

    /// The starting time in milliseconds.
    pub(crate) fn initial_ms(&self) -> u64 {
        u64::from(self.initial_s) * 1000
    }

    /// The increment in milliseconds.
    pub(crate) fn increment_ms(&self) -> u64 {
        u64::from(self.increment_s) * 1000
    }
}

/// The days a correspondence room may give per move.
pub const DAYS_PER_MOVE: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// Milliseconds in a day.
pub(crate) const DAY_MS: u64 = 86_400_000;

/// A correspondence room's setting (`clock` of the create request, kept in the room's `options`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorrespondenceSettings {
    /// The days each move may take: one of [`DAYS_PER_MOVE`].
    pub days_per_move: u32,
}

impl CorrespondenceSettings {
    /// The time each move may take, in milliseconds.
    pub fn move_ms(&self) -> u64 {
        u64::from(self.days_per_move) * DAY_MS
    }
}

/// A room's time control, as the create request's `clock` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum TimeControl {
    /// `{"initial_s", "increment_s"}`: a Fischer clock.
    Fischer(ClockSettings),
    /// `{"days_per_move"}`: a correspondence game.
    Correspondence(CorrespondenceSettings),
}

impl TimeControl {
    /// Reads and checks a `clock` object: `{"initial_s", "increment_s"}` in their bounds, or
    /// `{"days_per_move"}` with one of [`DAYS_PER_MOVE`]. The error is a sentence for people.
    pub fn parse(clock: &serde_json::Value) -> Result<Self, String> {
        if clock.get("days_per_move").is_some() {
            let settings: CorrespondenceSettings = serde_json::from_value(clock.clone())
                .map_err(|e| format!("clock is {{\"days_per_move\"}} alone: {e}"))?;
            if !DAYS_PER_MOVE.contains(&settings.days_per_move) {
                return Err(format!(
                    "clock.days_per_move is one of {DAYS_PER_MOVE:?}, not {}",
                    settings.days_per_move
                ));
            }
            return Ok(TimeControl::Correspondence(settings));
        }
        let settings: ClockSettings = serde_json::from_value(clock.clone()).map_err(|e| {
            format!(
                "clock is null, {{\"initial_s\", \"increment_s\"}} or {{\"days_per_move\"}}: {e}"
            )
        })?;
        settings.validate()?;
        Ok(TimeControl::Fischer(settings))
    }
}
