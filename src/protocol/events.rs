//! The frames the server sends: events (each stored with its version), snapshots, answers and
//! the pieces they are made of (seats, clocks, offers, chat, presence).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::Code;
use crate::bot::Level;
use crate::rules::{EndReason, Extra, Material, Outcome, Seat};

/// A seat as shown in snapshots and room summaries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The seat number (0 = White, 1 = Black in Ouk Chatrang).
    pub seat: Seat,
    /// The seat's colour name (`"white"`, `"black"`).
    pub color: String,
    /// The player's name (at most 32 characters); `null` when none was given or the seat is free.
    pub name: Option<String>,
    /// Whether a player holds this seat.
    pub taken: bool,
    /// Whether the seat has at least one live WebSocket connection.
    pub connected: bool,
    /// Whether the seat's player has left a game that goes on without it (three-player games).
    #[serde(default)]
    pub left: bool,
    /// The level (1 to 5) of the computer opponent holding the seat; absent for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<Level>,
    /// The username (as registered) of the account the seat belongs to; absent for an
    /// anonymous seat, a bot's or a free one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Whether that account was deleted (shown as a deleted player); absent when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

/// A game result on the wire: `{"winner": seat | null, "reason"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultInfo {
    /// The winning seat, or `null` for a draw.
    pub winner: Option<Seat>,
    /// Why the game ended, as the protocol's reason word (`checkmate`, `resignation`, ...).
    pub reason: EndReason,
}

/// One seat's rating change in a rated game (`game_over.d.ratings`, the snapshot's `ratings`,
/// `GET /api/games/{room_id}`): its player's rating before and after the game on the
/// 1500-centred display scale, each rounded to a whole point, and `diff` = `after − before`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The seat.
    pub seat: Seat,
    /// The rating before the game.
    pub before: i64,
    /// The rating after it.
    pub after: i64,
    /// `after − before`, e.g. `8` (shown "+8") or `-8`.
    pub diff: i64,
}

impl From<Outcome> for ResultInfo {
    fn from(o: Outcome) -> Self {
        ResultInfo {
            winner: o.winner,
            reason: o.reason,
        }
    }
}

impl From<ResultInfo> for Outcome {
    fn from(r: ResultInfo) -> Self {
        Outcome {
            winner: r.winner,
            reason: r.reason,
        }
    }
}

/// The clocks of a timed room at one instant, in `game_started`, `moved`, `left`, `taken_back` and
/// `game_over`:
/// `{"remaining_ms": [..per seat], "running": seat | null, "at": RFC 3339}`. `remaining_ms[s]` is
/// seat `s`'s time left at `at` (server time); the `running` seat's clock counts down from there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Each seat's remaining time in milliseconds at `at`, in seat order.
    pub remaining_ms: Vec<u64>,
    /// The seat whose clock runs (the seat on move), or `null` when none does.
    pub running: Option<Seat>,
    /// When these times were read (UTC, RFC 3339).
    pub at: DateTime<Utc>,
}

/// A timed room's clocks in a `snapshot`: its settings and each seat's time at `at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// Each seat's starting time, in seconds.
    pub initial_s: u32,
    /// The time added after each of a seat's moves (Fischer), in seconds.
    pub increment_s: u32,
    /// Each seat's remaining time in milliseconds at `at`, in seat order.
    pub remaining_ms: Vec<u64>,
    /// The seat whose clock runs, or `null` when none does.
    pub running: Option<Seat>,
    /// When these times were read (UTC, RFC 3339).
    pub at: DateTime<Utc>,
    /// A correspondence room: the days each move may take (`initial_s` is then those days in
    /// seconds, `increment_s` 0); absent for a Fischer clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_move: Option<u32>,
}

/// The kind of an offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    /// `draw`: a draw offer; accepting it ends the game by `agreement`.
    Draw,
    /// `rematch`: after the game, the same game again in a new room; accepted by every other
    /// seat, it makes a `rematch` event.
    Rematch,
    /// `takeback`: the offerer asks to take back its last move (and the moves played after it);
    /// accepted by every other player still in the game, it makes a `taken_back` event.
    Takeback,
}

/// An open offer: `{"id", "kind", "by", "accepted"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferInfo {
    /// The offer's id, from 1 upwards within the room; `accept` and `decline` name it.
    pub id: u64,
    /// What is offered: `"draw"` or `"rematch"`.
    pub kind: OfferKind,
    /// The seat that made the offer.
    pub by: Seat,
    /// The seats that have accepted so far (three-player games, where every remaining player must
    /// accept); empty when the offer is made.
    #[serde(default)]
    pub accepted: Vec<Seat>,
    /// A takeback offer: how many plies it takes back (the offerer's last move and every move
    /// played after it); absent for the other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
}

/// Every versioned room event (PROTOCOL.md "Events"). Serialized as `{"t": <variant>, "d": {...}}`;
/// the room adds `v` (and, for the seat on move, `legal_moves`) when it sends one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum Event {
    /// `seat_taken`: a player took a seat (the creator's seat is version 1).
    SeatTaken {
        /// The seat now taken (0 = White in Ouk Chatrang).
        seat: Seat,
        /// Its colour name (`"white"`, `"black"`).
        color: String,
        /// The player's name, or `null` when none was given.
        name: Option<String>,
        /// The level (1 to 5) when a computer opponent took the seat; absent for people.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bot: Option<Level>,
        /// The seat whose holder took this one too (a pass-and-play table: the join named that
        /// seat's token as `same_player`); absent when another person took it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        same_player_as: Option<Seat>,
        /// The username of the account that took the seat (its player was logged in); absent
        /// for an anonymous player or a bot.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<String>,
    },
    /// `seat_account`: the store now says a taken seat belongs to an account (its player gave
    /// the account the seat's token, `POST /api/account/attach`), or that account was deleted.
    SeatAccount {
        /// The seat.
        seat: Seat,
        /// The account's username as registered.
        user: String,
        /// Whether the account was deleted; absent when not.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        deleted: bool,
    },
    /// `game_started`: the last free seat was taken and play begins; a position change.
    GameStarted {
        /// The start position (Ouk Chatrang: FEN).
        position: String,
        /// The seat on move (`null` when nobody is).
        to_move: Option<Seat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A timed room's clocks as play begins (the first seat's clock runs); absent untimed.
        clock: Option<ClockInfo>,
    },
    /// `moved`: a seat played a move; the room adds `legal_moves` for the seat now on move.
    Moved {
        /// The seat that made the move (0 = White in Ouk Chatrang).
        seat: Seat,
        #[serde(rename = "move")]
        /// The move in canonical notation (`moved.d.move`; Ouk Chatrang: UCI, e.g. `g5g6m`).
        mv: String,
        /// The move for people (Ouk Chatrang: SAN).
        display: String,
        /// The position after the move (Ouk Chatrang: FEN, with the count in fields 4–5, O-5).
        position: String,
        /// The seat now on move; `null` when this move ended the game.
        to_move: Option<Seat>,
        /// The squares whose enemy piece the move captured, in the game's square names (Khan:
        /// custodian captures and the piece a push took; Ouk Chatrang: the captured piece's
        /// square); `[]` when none, and always in Khan-Tsin. Events stored before this field
        /// existed read as `[]`.
        #[serde(default)]
        captured: Vec<String>,
        /// Each seat's material after the move, by seat number (Khan `{"soldiers", "khans"}` on
        /// the board, Ouk Chatrang `{"captured": "rnp"}` taken so far); absent in Khan-Tsin.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        material: Option<Material>,
        /// The seat whose King the move put in check (Ouk Chatrang only); absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        check: Option<Seat>,
        #[serde(flatten)]
        /// The game's own state after the move, its keys side by side with the others (Ouk
        /// Chatrang: `counting` while a count runs, O-18..O-24); no key when it has none.
        extra: Extra,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A timed room's clocks after the move (the mover's increment added); absent untimed.
        clock: Option<ClockInfo>,
    },
    /// `offer`: a seat offered a draw, a rematch or a takeback; open until accepted, declined or
    /// answered by a move.
    Offer(OfferInfo),
    /// `offer_declined`: an open offer was declined, withdrawn, or answered by the other seat's move.
    OfferDeclined {
        /// The id of the offer that is no longer open.
        id: u64,
        /// The seat that declined it: the one it was offered to (by `decline`, or by moving), or
        /// the offerer withdrawing it; absent when no seat did (a player left a three-player
        /// game, which withdraws every offer), and in events stored before this field existed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Seat>,
    },
    /// `offer_accepted`: one of several players who must accept an offer did (three-player
    /// games); the offer stays open until the last one accepts, which ends the game.
    OfferAccepted {
        /// The offer's id.
        id: u64,
        /// The seat that accepted.
        by: Seat,
    },
    /// `skipped`: the seat had no legal move and its turn passed (Khan-Tsin T-12); follows the
    /// event that left it stuck.
    Skipped {
        /// The seat whose turn was skipped.
        seat: Seat,
    },
    /// `left`: a seat left a three-player game that goes on without it (its pieces stay; its turns
    /// are skipped from now on).
    Left {
        /// The seat that left.
        seat: Seat,
        /// Why: `resignation`, or `timeout` when its clock ran out.
        reason: EndReason,
        /// The position afterwards (the colours still playing change, and maybe the player to
        /// move).
        position: String,
        /// The seat now on move; `null` when this ended the game.
        to_move: Option<Seat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A timed room's clocks afterwards; absent untimed.
        clock: Option<ClockInfo>,
    },
    /// `game_over`: the game ended; a position change, and every open offer closes.
    GameOver {
        /// The winner (or `null` for a draw) and the reason word.
        result: ResultInfo,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A timed game's final clocks (none runs any more); absent untimed.
        clock: Option<ClockInfo>,
        /// A rated game's rating changes, one per seat in seat order; absent in a game that is
        /// not rated (and in an aborted one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<Vec<RatingChange>>,
    },
    /// `rematch`: every seat agreed to a rematch; the new room exists, already started, and each
    /// player's seat token of this room is also their token there.
    Rematch(RematchInfo),
    /// `spectator_chat`: the room's creator turned the spectators' chat on or off.
    SpectatorChat {
        /// Whether spectators may chat now.
        enabled: bool,
    },
    /// `taken_back`: every other player still in the game accepted a takeback offer: the last
    /// `plies` moves are taken back (the room replays the game from its start without them), the
    /// takeback offer closes, and the clocks are as they were before the first of them. A position
    /// change; the room adds `legal_moves` for the seat now on move.
    TakenBack {
        /// How many plies were taken back (1 or more: the offerer's last move and the moves after
        /// it).
        plies: u32,
        /// The position now (Ouk Chatrang: FEN), as it was before the first move taken back.
        position: String,
        /// The seat now on move: the one whose move was taken back.
        to_move: Option<Seat>,
        /// Each seat's material now, as in `moved`; absent in Khan-Tsin.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        material: Option<Material>,
        /// The seat in check now (Ouk Chatrang only); absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        check: Option<Seat>,
        #[serde(flatten)]
        /// The game's own state now, as in `moved` (Ouk Chatrang: `counting` while a count runs).
        extra: Extra,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A timed room's clocks now: each seat's time as before the first move taken back, the
        /// seat on move's clock running; absent untimed.
        clock: Option<ClockInfo>,
    },
}

/// The `d` of a `rematch` event: the new room, and where each player of this room sits there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchInfo {
    /// The new room's id.
    pub room_id: Uuid,
    /// The new room's invite code.
    pub invite_code: String,
    /// One entry per seat of this room, in seat order.
    pub seats: Vec<RematchSeat>,
}

/// Where the player of one seat of the finished room sits in the rematch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchSeat {
    /// The seat in this (the finished) room.
    pub seat: Seat,
    /// The player's seat in the new room (the next seat on: colours rotate).
    pub new_seat: Seat,
    /// The colour of that seat in the new room.
    pub new_color: String,
}

/// A chat channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    /// `players`: written by the players, read by everyone in the room.
    Players,
    /// `spectators`: written and read by the spectators only.
    Spectators,
}

impl ChatChannel {
    /// The channel's name on the wire and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            ChatChannel::Players => "players",
            ChatChannel::Spectators => "spectators",
        }
    }
}

/// A `chat` frame's `d` (unversioned): one message as its readers get it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// The channel it was written to.
    pub channel: ChatChannel,
    /// The writer's seat, `null` for a spectator.
    pub seat: Option<Seat>,
    /// The writer's name: a player's seat name, or the name a spectator gave in its `hello`.
    pub name: Option<String>,
    /// The message as cleaned (see docs/protocol.md "Chat"): trimmed, without control characters
    /// or bidirectional ones, at least one visible character, at most 300 characters.
    pub text: String,
    /// When the server accepted it (UTC, RFC 3339).
    pub at: DateTime<Utc>,
}

/// `chat_history`: the recent messages of the channels a connection may read, oldest first, sent
/// after the `welcome` (and replayed events) of a reconnect that gets no snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatHistory {
    /// At most 50 per readable channel, oldest first.
    pub messages: Vec<ChatMessage>,
}

impl Event {
    /// The event type word (`t`).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::SeatTaken { .. } => "seat_taken",
            Event::SeatAccount { .. } => "seat_account",
            Event::GameStarted { .. } => "game_started",
            Event::Moved { .. } => "moved",
            Event::Offer(_) => "offer",
            Event::OfferDeclined { .. } => "offer_declined",
            Event::OfferAccepted { .. } => "offer_accepted",
            Event::Skipped { .. } => "skipped",
            Event::Left { .. } => "left",
            Event::GameOver { .. } => "game_over",
            Event::Rematch(_) => "rematch",
            Event::SpectatorChat { .. } => "spectator_chat",
            Event::TakenBack { .. } => "taken_back",
        }
    }

    /// The event's `d` object.
    pub fn data(&self) -> Value {
        match serde_json::to_value(self) {
            Ok(Value::Object(mut map)) => map.remove("d").unwrap_or(Value::Null),
            _ => Value::Null,
        }
    }

    /// Rebuilds an event from its stored type word and `d` object.
    pub fn from_parts(kind: &str, data: Value) -> Result<Event, serde_json::Error> {
        serde_json::from_value(serde_json::json!({"t": kind, "d": data}))
    }
}

/// `welcome`: the answer to a good hello.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    /// The room's id (a UUID), also when the hello named it by invite code.
    pub room_id: Uuid,
    /// The connection's seat, or `null` for a spectator.
    pub seat: Option<Seat>,
    /// `player` when the hello carried a seat token, else `spectator`.
    pub role: Role,
    /// The game id, e.g. `ouk-chatrang`.
    pub game: String,
    /// The room's current version.
    pub version: i64,
}

/// Whether a connection plays or watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// `player`: the hello carried a seat's token; may send commands.
    Player,
    /// `spectator`: no token; gets events, and its commands are rejected `not_a_player`.
    Spectator,
}

/// `snapshot`: the whole room state at version `v`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The room's id (a UUID).
    pub room_id: Uuid,
    /// The game id, e.g. `ouk-chatrang`.
    pub game: String,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// Whether the game is rated (created with `"rated": true`).
    #[serde(default)]
    pub rated: bool,
    /// Every seat, in seat order.
    pub seats: Vec<SeatInfo>,
    /// The start position as given at creation (Ouk Chatrang: FEN); `moves` replay from it.
    pub start_position: String,
    /// The current position (Ouk Chatrang: FEN).
    pub position: String,
    /// The seat on move, or `null` while waiting and after the game ended.
    pub to_move: Option<Seat>,
    /// Every move played, in canonical notation (Ouk Chatrang: UCI).
    pub moves: Vec<String>,
    /// The same moves for people (Ouk Chatrang: SAN), one per entry of `moves`.
    pub display_moves: Vec<String>,
    /// One entry per entry of `moves`: who played it, what it captured and the position after it.
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
    /// Each seat's material now (see `moved.d.material`); absent in Khan-Tsin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Material>,
    /// The seat in check now (Ouk Chatrang only); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Seat>,
    /// The seat of the room's creator (the `seat_taken` of version 1); `null` before it.
    pub created_by: Option<Seat>,
    /// How many spectator connections the room has (the recipient included, if it is one).
    #[serde(default)]
    pub spectators: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Every legal move, only in the snapshot sent to the seat on move; absent otherwise.
    pub legal_moves: Option<Value>,
    /// `false` when `legal_moves` leaves some legal moves out (a Khan position with more than
    /// 10 000 move strings: only shorter jump chains are listed); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_moves_complete: Option<bool>,
    #[serde(flatten)]
    /// The game's own state, its keys side by side with the others (Ouk Chatrang: `counting`
    /// while a count runs, O-24); no key when it has none.
    pub extra: Extra,
    /// The open offers (none once the game is over).
    pub offers: Vec<OfferInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The result once the game is over; absent before.
    pub result: Option<ResultInfo>,
    /// A rated game's rating changes once it is over (as its `game_over` gave them); absent
    /// before, and in a game that is not rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Vec<RatingChange>>,
    /// Whether spectators may chat (the creator may turn it off).
    pub spectator_chat: bool,
    /// The rematch made after this game, once every seat agreed to one; absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<RematchInfo>,
    /// The recent chat the recipient may read (at most 50 per channel), oldest first; absent when
    /// there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatMessage>,
    /// A timed room's clocks (settings and each seat's time now); absent for an untimed room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
}

/// One move of a room's history as the snapshot gives it (the game record's entries add `material`
/// and `check`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// The seat that played it.
    pub seat: Seat,
    /// The squares it captured on (as `moved.d.captured`).
    pub captured: Vec<String>,
    /// The position after it (as `moved.d.position`).
    pub position: String,
}

/// `spectators`: the number of spectator connections changed (no `v`; sent to every connection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpectatorCount {
    /// How many spectator connections the room has now.
    pub count: u32,
}

/// `lag`: a seat's connection round trip as the server estimates it (no `v`; sent to every
/// connection when it first measured it and whenever it moved by 50 ms or more since).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatLag {
    /// The seat.
    pub seat: Seat,
    /// Its connection's estimated round trip, in ms (docs/protocol.md "Clocks").
    pub lag_ms: u64,
}

/// `ack`: the command was accepted and durably stored; `v` is the room version it made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    /// The command's client id.
    pub cid: String,
    /// The version of the last event the command made (the current version if it changed nothing).
    pub v: i64,
}

/// `reject`: nothing changed; `v` is the current room version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reject {
    /// The command's client id; `null` when the frame had none.
    pub cid: Option<String>,
    /// The reject code (the table in docs/protocol.md).
    pub code: Code,
    /// What is wrong, for people (an `illegal_move` cites the rule).
    pub message: String,
    /// The room's current version.
    pub v: i64,
}

/// `error`: a hello failed; the socket closes after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// `bad_hello`, `unknown_room`, `bad_token` or `unavailable`.
    pub code: Code,
    /// What is wrong, for people.
    pub message: String,
}

/// `presence`: a seat's first connection arrived or its last one left (no `v`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    /// The seat whose connection state changed.
    pub seat: Seat,
    /// `true`: its first connection arrived; `false`: its last one left.
    pub connected: bool,
    /// Only with `connected: false` in a timed game in play: from when (RFC 3339) the other
    /// players may claim against this seat (`claim_victory`, `claim_draw {reason: "abandoned"}`)
    /// if it is then on move and still away. Omitted otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimable_at: Option<DateTime<Utc>>,
}
