//! Persistence: rooms, seats, the append-only event log, moves, counting state and finished games.
//!
//! One [`Store`] value fronts either backend (PostgreSQL for `postgres://` URLs, SQLite for `sqlite:`
//! URLs); both pass the same test suite. The room task is the only writer of its room, and it writes
//! everything one accepted command changed as one [`Commit`] in one transaction, so an `ack` sent
//! after `commit` returns is never lost. Queries are runtime queries (`sqlx::query`), so building
//! needs no database; migrations live in `migrations/postgres` and `migrations/sqlite`.

// SPEC FOR THE STORE HELPER — replace this comment block and the `todo!()`s with the implementation.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::rules::{GameKind, Seat};

/// Lifecycle of a room (PROTOCOL.md): `waiting` until every seat is taken, then `playing`, then
/// `finished`. Stored as that lowercase word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomStatus {
    Waiting,
    Playing,
    Finished,
}

/// Whether a waiting room is listed in the lobby. Stored as `public` / `private`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Public,
    Private,
}

/// A room's own row.
#[derive(Clone, Debug, PartialEq)]
pub struct RoomRow {
    pub id: Uuid,
    /// Short code people share (unique).
    pub invite_code: String,
    pub game: GameKind,
    /// Number of seats.
    pub seats: u8,
    pub visibility: Visibility,
    pub status: RoomStatus,
    /// The version of the last event (0 for a room with no events yet).
    pub version: i64,
    /// The start position in the game's position text.
    pub start_position: String,
    /// The room options as the creator gave them (JSON object).
    pub options: Value,
    pub created_at: DateTime<Utc>,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatRow {
    pub seat: Seat,
    pub name: Option<String>,
    /// SHA-256 of the seat token; the token itself is never stored.
    pub token_hash: [u8; 32],
    pub joined_at: DateTime<Utc>,
}

/// One versioned room event (PROTOCOL.md "Events"), exactly as broadcast (without per-recipient
/// fields such as `legal_moves`).
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    /// The room version this event made: 1, 2, 3, ... without holes.
    pub v: i64,
    /// The event type, e.g. `"moved"`.
    pub kind: String,
    /// The seat whose command made the event, if any.
    pub seat: Option<Seat>,
    /// The client id of the command that made the event, if any (for idempotent retries).
    pub cid: Option<String>,
    /// The event's `d` object.
    pub data: Value,
    pub created_at: DateTime<Utc>,
}

/// One accepted move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRow {
    /// 1 for the first move of the game.
    pub ply: i32,
    /// The version of the `moved` event.
    pub v: i64,
    pub seat: Seat,
    /// Canonical notation (Ouk Chatrang: UCI).
    pub notation: String,
    /// Display notation (Ouk Chatrang: SAN).
    pub display: String,
    /// Position text after the move.
    pub position: String,
    pub created_at: DateTime<Utc>,
}

/// The Ouk Chatrang counting state after a move, stored while a count runs (O-24).
#[derive(Clone, Debug, PartialEq)]
pub struct CountingRow {
    /// The ply of the move after which this was the state.
    pub ply: i32,
    /// `board` or `piece`.
    pub kind: String,
    /// The count as displayed (O-23).
    pub count: i32,
    /// The limit L in the escaping side's moves.
    pub limit: i32,
    /// `white` or `black`.
    pub escaping: String,
    /// The ply at which this count started.
    pub started_ply: i32,
}

/// A finished game (the `games` table and `GET /api/games/{room_id}`).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub room_id: Uuid,
    pub game: GameKind,
    /// `[{"seat", "color", "name"}]`.
    pub players: Value,
    pub winner: Option<Seat>,
    /// The reason word, e.g. `checkmate`.
    pub reason: String,
    pub start_position: String,
    pub final_position: String,
    /// Canonical notation, in order.
    pub moves: Vec<String>,
    /// Display notation (SAN), in order.
    pub display_moves: Vec<String>,
    /// The counting state at the end, if a count was running (same JSON as the protocol's).
    pub counting: Option<Value>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: DateTime<Utc>,
}

/// Everything one accepted command changed in one room, written atomically by [`Store::commit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Commit {
    pub room_id: Uuid,
    /// The room version before the command; the write fails with [`StoreError::Conflict`] when the
    /// stored version is not this (another process wrote the room).
    pub expected_version: i64,
    /// The room status after the command.
    pub status: RoomStatus,
    /// The new events, in order, their versions continuing from `expected_version`.
    pub events: Vec<EventRow>,
    /// A seat taken by this command.
    pub seat: Option<SeatRow>,
    /// The move this command played.
    pub mv: Option<MoveRow>,
    /// The counting state after that move, if a count runs.
    pub counting: Option<CountingRow>,
    /// The finished game, when this command ended it.
    pub game: Option<GameRecord>,
}

/// A room as stored: what the registry needs to rebuild its task after a restart.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRoom {
    pub room: RoomRow,
    pub seats: Vec<SeatRow>,
    /// Every event, in version order.
    pub events: Vec<EventRow>,
}

/// A waiting public room, for the lobby.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyRoom {
    pub room_id: Uuid,
    pub invite_code: String,
    pub game: GameKind,
    pub seats: u8,
    pub taken: u8,
    pub created_at: DateTime<Utc>,
}

/// Errors of the store. None of them means a half-written command: a commit is all or nothing.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names neither `postgres://` / `postgresql://` nor `sqlite:`.
    #[error("unsupported database URL {0:?}: use postgres://... or sqlite:...")]
    UnsupportedUrl(String),
    /// The stored room version is not the expected one: another writer got there first.
    #[error("room {room_id} is at version {found}, expected {expected}")]
    Conflict {
        room_id: Uuid,
        expected: i64,
        found: i64,
    },
    /// A stored value this code cannot read (a corrupt or foreign row).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// Which room to load: by id or by invite code.
#[derive(Clone, Copy, Debug)]
pub enum RoomRef<'a> {
    Id(Uuid),
    InviteCode(&'a str),
}
