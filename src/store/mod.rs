//! Persistence: rooms, seats, the append-only event log, moves, each game's own state after its
//! moves (Ouk Chatrang: counting), finished games, and accounts (users, sessions, API tokens:
//! `accounts`).
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
//! `match`. The queries are written once, in `queries`, over the small `dialect` each backend
//! implements (how a value is bound and a column read); the backends keep only what really differs:
//! connecting, transactions, and PostgreSQL's group commit. The row types live in `rows`; shared
//! validation and decoding of stored words in `codec`.
//!
//! Timestamps: both backends keep microseconds (PostgreSQL `timestamptz`; SQLite fixed-width RFC 3339
//! text such as `2026-11-29T16:44:00.123456Z`). Values are truncated to whole microseconds when
//! written, so a timestamp made with [`now`] (or [`truncate_to_micros`]) reads back equal.

#![warn(missing_docs)]

mod accounts;
mod challenges;
mod codec;
mod dialect;
mod pairing;
pub mod postgres;
mod profiles;
mod queries;
mod ratings;
mod rows;
mod seat_accounts;
pub mod sqlite;

use chrono::{DateTime, Timelike, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::rules::Seat;

pub use self::accounts::{ApiTokenRow, SessionRow, UserRow};
pub use self::challenges::{ChallengeRow, ChallengeSide, ChallengeStatus};
pub use self::pairing::LastGame;
use self::postgres::Pg;
pub use self::profiles::{GameTally, PlayedGame, PlayedQuery};
pub use self::ratings::{Leader, RatingChangeRow};
pub use self::rows::{
    ChatAnswer, ChatRow, Commit, CreatedRoom, EventRow, ExtraRow, GameRecord, HeldSeat, LobbyRoom,
    MoveRow, RatedGame, RatedSeat, RoomRef, RoomRow, RoomStatus, SeatRow, StoredRoom, UnknownWord,
    Visibility,
};
pub use self::seat_accounts::{SeatAccount, mark_players};
use self::sqlite::Lite;

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
    /// Cluster mode: the room's owner epoch is not the one the commit carries: another node
    /// claimed the room since this node did, so this node must stop serving it.
    #[error("room {room_id} is fenced: claimed at epoch {epoch}, its owner epoch is now {found}")]
    Fenced {
        /// The room written.
        room_id: Uuid,
        /// The epoch the commit carried.
        epoch: i64,
        /// The epoch stored.
        found: i64,
    },
    /// Cluster mode: the room cannot be claimed by this node: another node with a live lease owns
    /// it, the room does not exist, or this node's own lease is not known alive. Retry later
    /// (a client's hello or request is then relayed to the owner, see
    /// `docs/deploy/cluster.md`).
    #[error("room {room_id} is served by another node (or this node's lease is not alive)")]
    OwnedElsewhere {
        /// The room asked for.
        room_id: Uuid,
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
    /// No connection to PostgreSQL could be opened at connect within the pool's acquire timeout,
    /// and no server answered: nothing listening, or a server that never answers. `at` is the
    /// host and port the URL names, `cause` what one more direct attempt met ("Connection
    /// refused", or "no answer within 2500 ms"), since the pool itself says only that it timed
    /// out. (The pool also retries a server starting up or with too many connections until its
    /// timeout: those answered, and are [`StoreError::Refused`].)
    #[error("cannot reach the database at {at}: {cause}")]
    Unreachable {
        /// `host:port` from the URL (a socket directory for a Unix socket).
        at: String,
        /// What the connection attempt answered.
        cause: String,
    },
    /// PostgreSQL could not be connected to at connect for a reason other than
    /// [`StoreError::Unreachable`]'s: the server refused (no such database, a role or password
    /// refused, TLS required, still starting up, too many connections), the host could not be
    /// resolved or routed to. `at` is the host and port the URL names, `cause` the server's own
    /// message (`database "x" does not exist`) or the connection's error.
    #[error("cannot connect to the database at {at}: {cause}")]
    Refused {
        /// `host:port` from the URL (a socket directory for a Unix socket).
        at: String,
        /// The server's message, or the error of the connection.
        cause: String,
    },
    /// A rated game's commit found a player's stored rating changed since it was read (another
    /// rated game of theirs in the pool ended in between): nothing was written; the room reloads
    /// and the game's end is decided again from the new rating.
    #[error("the rating of account {user_id} changed while the game's end was being stored")]
    RatingChanged {
        /// The account whose rating moved.
        user_id: Uuid,
    },
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

    /// The file of a `sqlite:` `url` when that file does not exist yet (`None` for PostgreSQL, an
    /// in-memory database or an existing file): [`Store::connect`] would create an empty
    /// database there, which an operator's command on a mistyped path must not do.
    pub fn absent_sqlite_file(url: &str) -> Option<std::path::PathBuf> {
        url.starts_with("sqlite:")
            .then(|| sqlite::absent_file(url))
            .flatten()
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
            Store::Postgres(s) => queries::ping::<Pg>(&mut *s.conn().await?).await,
            Store::Sqlite(s) => queries::ping::<Lite>(&mut *s.conn().await?).await,
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
    /// sets its status and `updated_at`, deletes the moves and game states a takeback took back
    /// (`c.taken_back_to`), and inserts the events, the seat, the move, the game's own state and
    /// the game record that `c` carries.
    ///
    /// Errors (nothing is written in any of them):
    /// - [`StoreError::Fenced`] when `c.epoch` is set and the room's owner epoch is another
    ///   (checked before the version);
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
            Store::Postgres(s) => queries::unfinished_room_ids::<Pg>(&mut *s.conn().await?).await,
            Store::Sqlite(s) => queries::unfinished_room_ids::<Lite>(&mut *s.conn().await?).await,
        }
    }

    /// The room `room_id` as its seat whose token hashes to `token_hash` sees it; `None` when no
    /// seat of that room has that token (an unknown room or a wrong token look the same).
    pub async fn held_seat(
        &self,
        room_id: Uuid,
        token_hash: &[u8; 32],
    ) -> Result<Option<HeldSeat>, StoreError> {
        match self {
            Store::Postgres(s) => {
                queries::held_seat::<Pg>(&mut *s.conn().await?, room_id, token_hash).await
            }
            Store::Sqlite(s) => {
                queries::held_seat::<Lite>(&mut *s.conn().await?, room_id, token_hash).await
            }
        }
    }

    /// At most `limit` (negative counts as 0) correspondence games in play whose seat on move has
    /// run out of time by `now` (`rooms.flag_at`, see [`Commit::flag_at`]), the most overdue
    /// first: the rooms a sweep loads so that their flags fall with nobody connected.
    pub async fn due_correspondence_rooms(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        let limit = limit.max(0);
        match self {
            Store::Postgres(s) => {
                queries::due_correspondence_rooms::<Pg>(&mut *s.conn().await?, now, limit).await
            }
            Store::Sqlite(s) => {
                queries::due_correspondence_rooms::<Lite>(&mut *s.conn().await?, now, limit).await
            }
        }
    }

    /// At most `limit` (negative counts as 0) public rooms with status `waiting`, newest first,
    /// each with how many of its seats are taken.
    pub async fn lobby(&self, limit: i64) -> Result<Vec<LobbyRoom>, StoreError> {
        let limit = limit.max(0);
        match self {
            Store::Postgres(s) => queries::lobby::<Pg>(&mut *s.conn().await?, limit).await,
            Store::Sqlite(s) => queries::lobby::<Lite>(&mut *s.conn().await?, limit).await,
        }
    }

    /// At most `limit` (negative counts as 0) finished games of public rooms, aborted ones left
    /// out, the latest finished first.
    pub async fn finished_public_games(&self, limit: i64) -> Result<Vec<GameRecord>, StoreError> {
        let limit = limit.max(0);
        match self {
            Store::Postgres(s) => {
                queries::finished_public_games::<Pg>(&mut *s.conn().await?, limit).await
            }
            Store::Sqlite(s) => {
                queries::finished_public_games::<Lite>(&mut *s.conn().await?, limit).await
            }
        }
    }

    /// A timed room's clock as its game ended: the settings `{initial_s, increment_s}` with the
    /// final `{remaining_ms, running, at}` of its `game_over` event (the snapshot's `clock`
    /// shape; settings only when the game ended before it started). `None` for an untimed or
    /// unknown room.
    pub async fn final_clock(&self, room_id: Uuid) -> Result<Option<Value>, StoreError> {
        match self {
            Store::Postgres(s) => queries::final_clock::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => queries::final_clock::<Lite>(&mut *s.conn().await?, room_id).await,
        }
    }

    /// The finished game of a room, or `None` when the room has none (unknown or not finished).
    pub async fn game_record(&self, room_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        match self {
            Store::Postgres(s) => queries::game_record::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => queries::game_record::<Lite>(&mut *s.conn().await?, room_id).await,
        }
    }

    /// Every move of a room's line of play, by ply (empty for an unknown room): after a
    /// takeback, without the moves it took back.
    pub async fn moves(&self, room_id: Uuid) -> Result<Vec<MoveRow>, StoreError> {
        match self {
            Store::Postgres(s) => queries::moves::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => queries::moves::<Lite>(&mut *s.conn().await?, room_id).await,
        }
    }

    /// Stores one chat message of `room_id`. Returns `false`, storing nothing, when the row
    /// carries an [`answer`](ChatRow::answer) and a message of the same seat and cid is already
    /// stored (an earlier try whose outcome its writer did not learn): see
    /// [`Store::chat_by_cid`]. In cluster mode `epoch` is the owner epoch this node claimed
    /// the room at, as in [`Commit::epoch`]. Errors: no such room, its `seq` is taken
    /// ([`StoreError::is_unique_violation`]), or [`StoreError::Fenced`] (nothing stored).
    pub async fn insert_chat(
        &self,
        room_id: Uuid,
        row: &ChatRow,
        epoch: Option<i64>,
    ) -> Result<bool, StoreError> {
        match self {
            Store::Postgres(s) => {
                queries::insert_chat::<Pg>(&mut *s.conn().await?, room_id, row, epoch).await
            }
            Store::Sqlite(s) => {
                queries::insert_chat::<Lite>(&mut *s.conn().await?, room_id, row, epoch).await
            }
        }
    }

    /// The message `seat` of `room_id` sent with `cid`, if one is stored.
    pub async fn chat_by_cid(
        &self,
        room_id: Uuid,
        seat: Seat,
        cid: &str,
    ) -> Result<Option<ChatRow>, StoreError> {
        match self {
            Store::Postgres(s) => {
                queries::chat_by_cid::<Pg>(&mut *s.conn().await?, room_id, seat, cid).await
            }
            Store::Sqlite(s) => {
                queries::chat_by_cid::<Lite>(&mut *s.conn().await?, room_id, seat, cid).await
            }
        }
    }

    /// The answer of every player's chat message of `room_id` that has a cid, by `seq`: what a
    /// restored room answers a retried chat cid with.
    pub async fn chat_answers(&self, room_id: Uuid) -> Result<Vec<(Seat, ChatAnswer)>, StoreError> {
        match self {
            Store::Postgres(s) => queries::chat_answers::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => queries::chat_answers::<Lite>(&mut *s.conn().await?, room_id).await,
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
            Store::Postgres(s) => {
                queries::chat::<Pg>(&mut *s.conn().await?, room_id, channel, limit).await
            }
            Store::Sqlite(s) => {
                queries::chat::<Lite>(&mut *s.conn().await?, room_id, channel, limit).await
            }
        }
    }

    /// The `seq` of the room's last chat message (0 when none).
    pub async fn last_chat_seq(&self, room_id: Uuid) -> Result<i64, StoreError> {
        match self {
            Store::Postgres(s) => {
                queries::last_chat_seq::<Pg>(&mut *s.conn().await?, room_id).await
            }
            Store::Sqlite(s) => {
                queries::last_chat_seq::<Lite>(&mut *s.conn().await?, room_id).await
            }
        }
    }

    /// Every stored game-specific state of a room ([`ExtraRow`]: Ouk Chatrang's counts), by ply
    /// (empty for an unknown room or a game that has none).
    pub async fn extra_history(&self, room_id: Uuid) -> Result<Vec<ExtraRow>, StoreError> {
        match self {
            Store::Postgres(s) => {
                queries::extra_history::<Pg>(&mut *s.conn().await?, room_id).await
            }
            Store::Sqlite(s) => {
                queries::extra_history::<Lite>(&mut *s.conn().await?, room_id).await
            }
        }
    }
}
