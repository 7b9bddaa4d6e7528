//! Persistence: rooms, seats, the append-only event log, moves, counting state and finished games.
//!
//! One [`Store`] value fronts either backend (PostgreSQL for `postgres://` URLs, SQLite for `sqlite:`
//! URLs); both pass the same test suite (`tests/store.rs`). The room task is the only writer of its
//! room, and it writes everything one accepted command changed as one [`Commit`] in one transaction,
//! so an `ack` sent after `commit` returns is never lost. Queries are runtime queries
//! (`sqlx::query`), so building needs no database; migrations live in `migrations/postgres` and
//! `migrations/sqlite` and are applied by [`Store::connect`].
//!
//! [`Store`] is an enum over the two backends rather than a trait object: each backend is a concrete
//! type holding its pool (an `Arc` inside), so cloning a `Store` is cheap and every call is a plain
//! `match`. Shared validation and decoding of stored words lives in `codec`.
//!
//! Timestamps: both backends keep microseconds (PostgreSQL `timestamptz`; SQLite fixed-width RFC 3339
//! text such as `2026-11-29T16:44:00.123456Z`). Values are truncated to whole microseconds when
//! written, so a timestamp made with [`now`] (or [`truncate_to_micros`]) reads back equal.

#![warn(missing_docs)]

mod codec;
mod group_commit;
pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Timelike, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::rules::{GameKind, Seat};

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

/// A room's own row.
#[derive(Clone, Debug, PartialEq)]
pub struct RoomRow {
    /// The room id (the `room_id` of the protocol).
    pub id: Uuid,
    /// Short code people share (unique).
    pub invite_code: String,
    /// The game the room plays.
    pub game: GameKind,
    /// Number of seats.
    pub seats: u8,
    /// Whether the room is listed in the lobby while waiting.
    pub visibility: Visibility,
    /// Where the room is in its lifecycle.
    pub status: RoomStatus,
    /// The version of the last event (0 for a room with no events yet).
    pub version: i64,
    /// The start position in the game's position text.
    pub start_position: String,
    /// The room options as the creator gave them (JSON object).
    pub options: Value,
    /// When the room was created (stored to the microsecond).
    pub created_at: DateTime<Utc>,
}

/// A taken seat.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatRow {
    /// The seat number, from 0 in turn order.
    pub seat: Seat,
    /// The name the player gave, if any.
    pub name: Option<String>,
    /// SHA-256 of the seat token; the token itself is never stored.
    pub token_hash: [u8; 32],
    /// The level (1 to 5) of the computer opponent holding the seat (`bot_level`); `None` for a
    /// person.
    pub bot: Option<u8>,
    /// When the seat was taken (stored to the microsecond).
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
    /// When the event happened (stored to the microsecond).
    pub created_at: DateTime<Utc>,
}

/// One accepted move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRow {
    /// 1 for the first move of the game.
    pub ply: i32,
    /// The version of the `moved` event.
    pub v: i64,
    /// The seat that moved.
    pub seat: Seat,
    /// Canonical notation (Ouk Chatrang: UCI).
    pub notation: String,
    /// Display notation (Ouk Chatrang: SAN).
    pub display: String,
    /// Position text after the move.
    pub position: String,
    /// When the move was accepted (stored to the microsecond).
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
    /// The counting state at the end, if a count was running (same JSON as the protocol's).
    pub counting: Option<Value>,
    /// When the game started (every seat taken), if it did.
    pub started_at: Option<DateTime<Utc>>,
    /// When the game ended.
    pub finished_at: DateTime<Utc>,
}

/// Everything one accepted command changed in one room, written atomically by [`Store::commit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Commit {
    /// The room written.
    pub room_id: Uuid,
    /// The room version before the command; the write fails with [`StoreError::Conflict`] when the
    /// stored version is not this (another process wrote the room).
    pub expected_version: i64,
    /// The room status after the command.
    pub status: RoomStatus,
    /// The new events, in order, their versions continuing from `expected_version`.
    pub events: Vec<EventRow>,
    /// The seats taken by this command (one for a join; every seat of a room created already
    /// started, as a rematch is).
    pub seats: Vec<SeatRow>,
    /// The move this command played.
    pub mv: Option<MoveRow>,
    /// The counting state after that move, if a count runs.
    pub counting: Option<CountingRow>,
    /// The finished game, when this command ended it.
    pub game: Option<GameRecord>,
    /// A room this command created, written in the same transaction (a rematch's new room).
    pub new_room: Option<Box<CreatedRoom>>,
}

/// A room created by another room's commit (a rematch): its row and its first commit, as
/// [`Store::create_room`] takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatedRoom {
    /// The new room's row.
    pub room: RoomRow,
    /// Its seats and first events; must not itself carry a `new_room`.
    pub commit: Commit,
}

/// One chat message (the `chat_messages` table). Chat is not part of the game: it has no room
/// version.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRow {
    /// 1, 2, 3, ... per room, both channels together.
    pub seq: i64,
    /// `players` or `spectators`.
    pub channel: String,
    /// The writer's seat; `None` for a spectator.
    pub seat: Option<Seat>,
    /// The writer's display name, if any.
    pub name: Option<String>,
    /// The message.
    pub text: String,
    /// When it was accepted (stored to the microsecond).
    pub created_at: DateTime<Utc>,
}

/// A room as stored: what the registry needs to rebuild its task after a restart.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRoom {
    /// The room's row; its `version` is the `v` of the last event.
    pub room: RoomRow,
    /// The taken seats, by seat number.
    pub seats: Vec<SeatRow>,
    /// Every event, in version order.
    pub events: Vec<EventRow>,
}

/// A waiting public room, for the lobby.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyRoom {
    /// The room id.
    pub room_id: Uuid,
    /// The code to join with.
    pub invite_code: String,
    /// The game the room plays.
    pub game: GameKind,
    /// Number of seats.
    pub seats: u8,
    /// How many of them are taken.
    pub taken: u8,
    /// When the room was created.
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
        /// The room written.
        room_id: Uuid,
        /// The version the commit expected.
        expected: i64,
        /// The version stored.
        found: i64,
    },
    /// A stored value this code cannot read (a corrupt or foreign row), or a [`Commit`] the store
    /// refuses to write because it would corrupt the log (see [`Store::commit`]).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// The database failed or refused the statement: unreachable, a constraint violated (see
    /// [`StoreError::is_unique_violation`]), no such room for a commit (`sqlx::Error::RowNotFound`).
    #[error("database: {0}")]
    Database(sqlx::Error),
    /// Applying the migrations at connect failed.
    #[error("migration: {0}")]
    Migrate(sqlx::migrate::MigrateError),
}

// By hand rather than `#[from]`, which would also make the wrapped error the `source`: its text is
// already in this error's message, and error chains would print it twice.
impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e)
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migrate(e)
    }
}

/// Which room to load: by id or by invite code.
#[derive(Clone, Copy, Debug)]
pub enum RoomRef<'a> {
    /// By room id.
    Id(Uuid),
    /// By invite code (exact, case-sensitive match).
    InviteCode(&'a str),
}

impl StoreError {
    /// Whether this is a unique-constraint violation reported by the database: a seat already taken,
    /// an invite code already used (pick another and retry), an event version already written.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(e)) => e.is_unique_violation(),
            _ => false,
        }
    }
}

/// The current time, truncated to whole microseconds: the precision both backends store, so a row
/// built with it reads back equal.
pub fn now() -> DateTime<Utc> {
    truncate_to_micros(Utc::now())
}

/// `t` without its sub-microsecond part. The store applies this to every timestamp it writes.
pub fn truncate_to_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = t.nanosecond();
    // `nanosecond()` may exceed 999_999_999 during a leap second; keep that part intact.
    t.with_nanosecond(nanos - nanos % 1_000).unwrap_or(t)
}

/// The persistence layer: one connection pool to PostgreSQL or SQLite.
///
/// Cloning is cheap (the pool is shared); every clone talks to the same database. Every method
/// returns [`StoreError`]; none of them panics on what the database holds (an unreadable row is
/// [`StoreError::Corrupt`]).
#[derive(Clone, Debug)]
pub enum Store {
    /// A `postgres://` / `postgresql://` database.
    Postgres(postgres::PgStore),
    /// A `sqlite:` file (or `sqlite::memory:`).
    Sqlite(sqlite::SqliteStore),
}

impl Store {
    /// Opens a pool for `url` and applies the pending migrations of that backend.
    ///
    /// - `postgres://...` / `postgresql://...`: PostgreSQL (the database must exist).
    /// - `sqlite:PATH` (`sqlite://relative.db`, `sqlite:///abs/path.db`): SQLite; the file is created
    ///   if missing, in WAL mode with `synchronous=FULL` (a committed transaction survives a crash or
    ///   power loss), foreign keys on and a 5 s busy timeout.
    /// - `sqlite::memory:`: a private in-memory SQLite database on a single connection (gone when
    ///   the store is dropped).
    ///
    /// Errors: [`StoreError::UnsupportedUrl`] for any other URL; [`StoreError::Database`] when the
    /// database cannot be reached or opened; [`StoreError::Migrate`] when a migration fails.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Store::Postgres(postgres::PgStore::connect(url).await?)
        } else if url.starts_with("sqlite:") {
            Store::Sqlite(sqlite::SqliteStore::connect(url).await?)
        } else {
            return Err(StoreError::UnsupportedUrl(url.to_owned()));
        };
        tracing::info!(
            backend = store.backend_name(),
            "store connected and migrated"
        );
        Ok(store)
    }

    /// `"postgres"` or `"sqlite"`.
    pub fn backend_name(&self) -> &'static str {
        match self {
            Store::Postgres(_) => "postgres",
            Store::Sqlite(_) => "sqlite",
        }
    }

    /// Runs a trivial query: `Ok` when the database answers (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Store::Postgres(s) => s.ping().await,
            Store::Sqlite(s) => s.ping().await,
        }
    }

    /// Closes the pool, waiting for connections in use to be returned (for graceful shutdown).
    /// Calls made afterwards fail with [`StoreError::Database`].
    pub async fn close(&self) {
        match self {
            Store::Postgres(s) => s.close().await,
            Store::Sqlite(s) => s.close().await,
        }
    }

    /// Creates a room: inserts `room` (its `version` field is ignored; the row starts at
    /// `commit.expected_version`, normally 0) and then applies `commit` (the creator's seat and the
    /// first events) as [`Store::commit`] does, all in one transaction. The room ends with the
    /// status `commit.status` and the version of the commit's last event.
    ///
    /// Errors: a room with the same id or invite code exists ([`StoreError::Database`], see
    /// [`StoreError::is_unique_violation`]); `commit.room_id` is not `room.id` or the commit is
    /// malformed ([`StoreError::Corrupt`], nothing written); any error of [`Store::commit`].
    pub async fn create_room(&self, room: &RoomRow, commit: &Commit) -> Result<(), StoreError> {
        if commit.room_id != room.id {
            return Err(StoreError::Corrupt(format!(
                "refusing to write: commit for room {} given to create room {}",
                commit.room_id, room.id
            )));
        }
        match self {
            Store::Postgres(s) => s.create_room(room, commit).await,
            Store::Sqlite(s) => s.create_room(room, commit).await,
        }
    }

    /// Writes everything one accepted command changed, in one transaction: moves the room from
    /// `c.expected_version` to the version of the last event (unchanged when `c.events` is empty),
    /// sets its status and `updated_at`, and inserts the events, the seat, the move, the counting
    /// state and the game record that `c` carries.
    ///
    /// Errors (nothing is written in any of them):
    /// - [`StoreError::Conflict`] when the stored version is not `c.expected_version`;
    /// - [`StoreError::Database`] with [`sqlx::Error::RowNotFound`] when the room does not exist;
    /// - [`StoreError::Database`] on a constraint violation, e.g. a seat already taken or a second
    ///   game record ([`StoreError::is_unique_violation`]);
    /// - [`StoreError::Corrupt`] when `c` itself is malformed and would write a corrupt log: event
    ///   versions not exactly `expected_version + 1, + 2, ...`, a negative `expected_version`, or a
    ///   game record for another room.
    pub async fn commit(&self, c: &Commit) -> Result<(), StoreError> {
        match self {
            Store::Postgres(s) => s.commit(c).await,
            Store::Sqlite(s) => s.commit(c).await,
        }
    }

    /// Loads a room with its seats (by seat number) and its events (by version), or `None` when no
    /// room has that id / invite code. The three reads see one consistent snapshot.
    pub async fn load_room(&self, r: RoomRef<'_>) -> Result<Option<StoredRoom>, StoreError> {
        match self {
            Store::Postgres(s) => s.load_room(r).await,
            Store::Sqlite(s) => s.load_room(r).await,
        }
    }

    /// The ids of every room still `waiting` or `playing`, oldest (by `created_at`) first: what the
    /// registry restores after a restart.
    pub async fn unfinished_room_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        match self {
            Store::Postgres(s) => s.unfinished_room_ids().await,
            Store::Sqlite(s) => s.unfinished_room_ids().await,
        }
    }

    /// At most `limit` (negative counts as 0) public rooms with status `waiting`, newest first,
    /// each with how many of its seats are taken.
    pub async fn lobby(&self, limit: i64) -> Result<Vec<LobbyRoom>, StoreError> {
        let limit = limit.max(0);
        match self {
            Store::Postgres(s) => s.lobby(limit).await,
            Store::Sqlite(s) => s.lobby(limit).await,
        }
    }

    /// The finished game of a room, or `None` when the room has none (unknown or not finished).
    pub async fn game_record(&self, room_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        match self {
            Store::Postgres(s) => s.game_record(room_id).await,
            Store::Sqlite(s) => s.game_record(room_id).await,
        }
    }

    /// Every move of a room, by ply (empty for an unknown room).
    pub async fn moves(&self, room_id: Uuid) -> Result<Vec<MoveRow>, StoreError> {
        match self {
            Store::Postgres(s) => s.moves(room_id).await,
            Store::Sqlite(s) => s.moves(room_id).await,
        }
    }

    /// Stores one chat message of `room_id`. Errors: no such room, or its `seq` is taken
    /// ([`StoreError::is_unique_violation`]).
    pub async fn insert_chat(&self, room_id: Uuid, row: &ChatRow) -> Result<(), StoreError> {
        match self {
            Store::Postgres(s) => s.insert_chat(room_id, row).await,
            Store::Sqlite(s) => s.insert_chat(room_id, row).await,
        }
    }

    /// The latest `limit` messages of `channel` in `room_id`, oldest first (`limit` `None`: all
    /// of them).
    pub async fn chat(
        &self,
        room_id: Uuid,
        channel: &str,
        limit: Option<i64>,
    ) -> Result<Vec<ChatRow>, StoreError> {
        let limit = limit.unwrap_or(i64::MAX).max(0);
        match self {
            Store::Postgres(s) => s.chat(room_id, channel, limit).await,
            Store::Sqlite(s) => s.chat(room_id, channel, limit).await,
        }
    }

    /// The `seq` of the room's last chat message (0 when none).
    pub async fn last_chat_seq(&self, room_id: Uuid) -> Result<i64, StoreError> {
        match self {
            Store::Postgres(s) => s.last_chat_seq(room_id).await,
            Store::Sqlite(s) => s.last_chat_seq(room_id).await,
        }
    }

    /// Every stored counting state of a room, by ply (empty for an unknown room).
    pub async fn counting_states(&self, room_id: Uuid) -> Result<Vec<CountingRow>, StoreError> {
        match self {
            Store::Postgres(s) => s.counting_states(room_id).await,
            Store::Sqlite(s) => s.counting_states(room_id).await,
        }
    }
}
