//! The store's row types: what the room task writes in one [`Commit`] and what the queries read
//! back. Plain data. The domain types the rooms share ([`RoomStatus`], [`Visibility`],
//! [`GameRecord`]) live in [`crate::domain`] and are re-exported here.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

pub use crate::domain::{GameRecord, RoomStatus, UnknownWord, Visibility};
use crate::ratings::{RatingPool, SeatRating};
use crate::rules::{Extra, GameKind, Seat};

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
    /// The account the seat belongs to (a player who created or joined the room logged in);
    /// `None` for an anonymous seat or a bot's.
    pub user_id: Option<Uuid>,
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
    /// The mover's remaining time after the move, in milliseconds (its increment included), as
    /// its `moved` event's `clock` says; `None` in an untimed room.
    pub clock_ms: Option<i64>,
}

/// A game's own state after a move (see [`Extra`]), stored for every move after which it has
/// some (Ouk Chatrang: while a count runs, O-24).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraRow {
    /// The ply of the move after which this was the state.
    pub ply: i32,
    /// The state, never empty (Ouk Chatrang: `{"counting": {...}}`).
    pub extra: Extra,
}

/// Everything one accepted command changed in one room, written atomically by [`Store::commit`](super::Store::commit).
#[derive(Clone, Debug, PartialEq)]
pub struct Commit {
    /// The room written.
    pub room_id: Uuid,
    /// The room version before the command; the write fails with [`StoreError::Conflict`](super::StoreError::Conflict) when the
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
    /// The game's own state after that move, if it has some (see [`ExtraRow`]).
    pub extra: Option<ExtraRow>,
    /// A takeback: the line of play now ends at this ply (0: no move is left), and the move rows
    /// and game states after it are deleted (their events stay in the log), so the moves table
    /// is always the line of play, each ply once.
    pub taken_back_to: Option<i32>,
    /// The finished game, when this command ended it.
    pub game: Option<GameRecord>,
    /// A room this command created, written in the same transaction (a rematch's new room).
    pub new_room: Option<Box<CreatedRoom>>,
    /// Cluster mode: the owner epoch this node claimed the room at. The write fails with
    /// [`StoreError::Fenced`](super::StoreError::Fenced) when the room's stored epoch is another (another node claimed it
    /// since). `None` on a single node: no epoch is checked. PostgreSQL only.
    pub epoch: Option<i64>,
    /// A correspondence game in play: when its seat on move runs out of time (UTC), kept in
    /// `rooms.flag_at` so that a sweep finds the room while it is out of memory. `None` for every
    /// other room, and once no clock runs; every commit writes it.
    pub flag_at: Option<DateTime<Utc>>,
    /// The rating changes of a rated game this command ended (with `game`), written in the
    /// same transaction.
    pub ratings: Option<RatedGame>,
}

/// A rated game's rating changes, as its end's [`Commit`] writes them: each player's new rating
/// in the pool (the `ratings` table) and each seat's change (`rating_changes`).
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// The pool the game is rated in.
    pub pool: RatingPool,
    /// When the game ended.
    pub at: DateTime<Utc>,
    /// Every seat, in seat order.
    pub seats: Vec<RatedSeat>,
}

/// One seat of a [`RatedGame`].
#[derive(Clone, Debug, PartialEq)]
pub struct RatedSeat {
    /// The account whose rating changes.
    pub user_id: Uuid,
    /// The seat's rating before and after the game. The write fails with
    /// [`StoreError::RatingChanged`](super::StoreError::RatingChanged) unless the stored rating
    /// still has `before.games` games (none stored: 0), so a rating is never changed from a
    /// stale read.
    pub rating: SeatRating,
}

/// A room created by another room's commit (a rematch): its row and its first commit, as
/// [`Store::create_room`](super::Store::create_room) takes them.
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
    /// A player's message: the cid it was sent with and the room version its ack carried, so a
    /// retried cid gets the same answer after a restart. `None` for a spectator's message (their
    /// cids are not remembered) and for messages stored before cids were.
    pub answer: Option<ChatAnswer>,
}

/// The answer a player's chat message was given: one per `(room, seat, cid)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatAnswer {
    /// The client id the message was sent with.
    pub cid: String,
    /// The room version its `ack` carried (chat leaves the version alone).
    pub v: i64,
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
    /// The name of the player who created the room (the first seat taken), if they gave one.
    pub creator_name: Option<String>,
    /// The room's clock settings `{"initial_s", "increment_s"}`; `None` for an untimed room.
    pub clock: Option<Value>,
}

/// A room as one of its seats sees it, for that seat's "My games" (see
/// [`Store::held_seat`](super::Store::held_seat)).
#[derive(Clone, Debug, PartialEq)]
pub struct HeldSeat {
    /// The room id.
    pub room_id: Uuid,
    /// The room's invite code.
    pub invite_code: String,
    /// The game the room plays.
    pub game: GameKind,
    /// `waiting`, `playing` or `finished`.
    pub status: RoomStatus,
    /// The seat held.
    pub seat: Seat,
    /// Every taken seat's name, in seat order (`None`: the player gave none).
    pub names: Vec<(Seat, Option<String>)>,
    /// The seats that belong to an account.
    pub accounts: Vec<super::SeatAccount>,
    /// The seat on move as of the last event that passed the turn; `None` before the game
    /// started and once it is over.
    pub to_move: Option<Seat>,
    /// The result (`{"winner", "reason"}`, as `game_over` gave it), once the room is finished.
    pub result: Option<Value>,
    /// The room's clock settings as created (`{"initial_s", "increment_s"}` or
    /// `{"days_per_move"}`); `None` untimed.
    pub clock: Option<Value>,
    /// A correspondence game in play: when the seat on move runs out of time.
    pub flag_at: Option<DateTime<Utc>>,
    /// When the room last changed.
    pub updated_at: DateTime<Utc>,
}

/// Which room to load: by id or by invite code.
#[derive(Clone, Copy, Debug)]
pub enum RoomRef<'a> {
    /// By room id.
    Id(Uuid),
    /// By invite code (exact, case-sensitive match).
    InviteCode(&'a str),
}
