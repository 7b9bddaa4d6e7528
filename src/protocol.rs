//! The wire contract (protocol version 1, `docs/protocol.md`) as serde types: every frame a client may
//! send, every event and answer the server sends, and the stable error codes.
//!
//! This module is plain data shared by `api` (which parses and writes frames) and `room` (which
//! decides what happens). Every frame is one JSON object `{"t": type, "v"?: version, "cid"?: client id,
//! "d"?: data}`. Parsing is two-step on purpose: first the envelope, so that a frame with a known
//! `cid` but bad data can still be answered with a `reject` carrying that `cid`; then the `d` of the
//! named type.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::bot::Level;
use crate::rules::{EndReason, Extra, Material, Outcome, Seat};

mod server_frame;
pub use server_frame::ServerFrame;

/// The protocol version this server speaks (`hello.d.protocol`).
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest frame a client may send, in bytes; larger frames close the socket with 1009.
pub const MAX_CLIENT_FRAME_BYTES: usize = 8 * 1024;

/// The longest client id (`cid`) accepted, in bytes.
pub const MAX_CID_BYTES: usize = 64;

/// WebSocket close codes the server uses (PROTOCOL.md "Connect", docs/protocol.md).
pub mod close {
    /// The hello was not a valid hello.
    pub const BAD_HELLO: u16 = 4000;
    /// The hello named a room that does not exist.
    pub const UNKNOWN_ROOM: u16 = 4001;
    /// The hello's seat token does not belong to the room.
    pub const BAD_TOKEN: u16 = 4003;
    /// The client kept sending frames that are not protocol messages (policy violation).
    pub const POLICY: u16 = 1008;
    /// A frame over [`super::MAX_CLIENT_FRAME_BYTES`].
    pub const TOO_BIG: u16 = 1009;
    /// The peer broke the WebSocket protocol: a reserved opcode or bit, a control frame over
    /// 125 bytes (RFC 6455 section 7.4.1). Do not retry as is.
    pub const PROTOCOL_ERROR: u16 = 1002;
    /// A text frame that is not UTF-8. Do not retry as is.
    pub const INVALID_PAYLOAD: u16 = 1007;
    /// The server is restarting: reconnect with `last_v`.
    pub const RESTART: u16 = 1012;
    /// The client could not keep up (its outbound queue filled), or the room was reloaded:
    /// reconnect with `last_v` to resync.
    pub const TRY_AGAIN: u16 = 1013;
    /// The room's stored data cannot be read: reconnecting will not help until an operator acts.
    pub const INTERNAL: u16 = 1011;
    /// The peer did not answer pings for two intervals.
    pub const GOING_AWAY: u16 = 1001;
    /// The room holds its maximum of connections.
    pub const CROWDED: u16 = 4029;
}

/// Reject and error codes. Stable: clients switch on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// `stale_version`: a `move` whose `v` is older than the last position change, or newer than the room.
    StaleVersion,
    /// `not_your_turn`: a `move` by the seat not on move, or a game command (`move`, `resign`,
    /// `offer_draw`, `claim_draw`, `claim_victory`, `accept`/`decline` of a draw offer) before the
    /// game has started.
    NotYourTurn,
    /// `illegal_move`: a well-formed move the rules do not allow here (the message cites the rule).
    IllegalMove,
    /// `bad_notation`: a `move` whose text is not in the game's notation at all (Ouk Chatrang: UCI).
    BadNotation,
    /// `game_over`: a game command after the game ended (`chat`, `set_spectator_chat` and the
    /// rematch commands go on; `accept`/`decline` of an offer that is not open is then
    /// `no_such_offer`).
    GameOver,
    /// `not_a_player`: a command from a spectator (other than `chat` to the spectators' channel),
    /// a spectator's `chat` to the players' channel, or a game command from a player who has left
    /// a three-player game.
    NotAPlayer,
    /// `no_such_offer`: `accept`/`decline` of an offer that is not open, or accepting one's own.
    NoSuchOffer,
    /// `cannot_claim`: `claim_draw {reason: "repetition"}` when the position has not occurred three
    /// times (O-16) or by the seat not on move (always in Khan and Khan-Tsin, whose draws are
    /// automatic); `claim_victory` or `claim_draw {reason: "abandoned"}` unless the seat on move is
    /// another player's, away for its grace period in a timed game; `claim_draw {reason:
    /// "abandoned"}` with three players.
    CannotClaim,
    /// `rate_limited`: commands faster than the connection's limit, more than 5 `chat` messages in
    /// 10 s, a second draw offer by the same seat before any move was played (one per move), or a
    /// fourth rematch offer by the same seat.
    RateLimited,
    /// `bad_message`: a frame that is not JSON, not an object, of an unknown type, whose `d` does not
    /// fit (e.g. a `claim_draw` whose `reason` is neither `repetition` nor `abandoned`), or without
    /// a `cid`; also a second `hello`, and a `chat` whose text is empty or too long once trimmed, or
    /// a player's `chat` to the spectators' channel.
    BadMessage,
    /// `cannot_abort`: `abort` after every player still in the game has made a move.
    CannotAbort,
    /// `cannot_add_bot`: `add_bot` when the room is not waiting for players or the seat is taken
    /// or does not exist.
    CannotAddBot,
    /// `cannot_offer`: `offer_rematch` while the game is not over, after a game that never started,
    /// or once the rematch has been made.
    CannotOffer,
    /// `chat_disabled`: a spectator's `chat` while the room's creator has turned spectator chat off.
    ChatDisabled,
    /// `not_the_creator`: `set_spectator_chat` from a seat other than the room creator's.
    NotTheCreator,
    /// `unavailable`: as a reject, the command's commit failed and it may or may not be stored (the
    /// room reloads, the socket closes with 1013: retry the same cid); as a hello error, the room's
    /// stored data cannot be read (close 1011).
    Unavailable,
    /// Hello error `bad_hello` (hello errors go in an `error` frame, then the socket closes): the
    /// first frame was not a valid `hello`, none came within 10 s, or its `protocol` is not 1;
    /// close 4000 (1009 for a frame over 8 KiB).
    BadHello,
    /// Hello error `unknown_room`: the `hello` named no room (by id or invite code); close 4001.
    UnknownRoom,
    /// Hello error `bad_token`: the `hello`'s token belongs to no seat of the room; close 4003.
    BadToken,
    /// Hello error `room_crowded`: the room holds its maximum of connections
    /// (`--connections-per-room`); close 4029.
    RoomCrowded,
}

impl Code {
    /// The code as written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::StaleVersion => "stale_version",
            Code::NotYourTurn => "not_your_turn",
            Code::IllegalMove => "illegal_move",
            Code::BadNotation => "bad_notation",
            Code::GameOver => "game_over",
            Code::NotAPlayer => "not_a_player",
            Code::NoSuchOffer => "no_such_offer",
            Code::CannotClaim => "cannot_claim",
            Code::RateLimited => "rate_limited",
            Code::BadMessage => "bad_message",
            Code::CannotAbort => "cannot_abort",
            Code::CannotAddBot => "cannot_add_bot",
            Code::CannotOffer => "cannot_offer",
            Code::ChatDisabled => "chat_disabled",
            Code::NotTheCreator => "not_the_creator",
            Code::Unavailable => "unavailable",
            Code::BadHello => "bad_hello",
            Code::UnknownRoom => "unknown_room",
            Code::BadToken => "bad_token",
            Code::RoomCrowded => "room_crowded",
        }
    }
}

/// The outer shape of every frame a client sends (a top-level `v` is allowed and ignored: a move
/// carries its version in `d`).
#[derive(Debug, Deserialize)]
pub struct Envelope {
    /// The message type.
    pub t: String,
    /// The client id of a command.
    #[serde(default)]
    pub cid: Option<String>,
    #[serde(default)]
    /// The message's data (`d`); an absent `d` is read as `{}`.
    pub d: Option<Value>,
}

/// `hello`: binds the socket to a room, as a seat (with its token) or as a spectator. Fields this
/// server does not know are ignored, so newer clients can say more.
#[derive(Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Hello {
    /// The protocol version the client speaks (`hello.d.protocol`); anything but
    /// [`PROTOCOL_VERSION`] is `bad_hello`, close 4000.
    pub protocol: u32,
    /// A room id (UUID) or an invite code.
    pub room: String,
    /// The seat token from create/join; absent for a spectator.
    #[serde(default)]
    pub token: Option<String>,
    /// The last event version this client has; the server sends every later event, or a snapshot.
    #[serde(default)]
    pub last_v: Option<i64>,
    /// A spectator's display name for the spectators' chat (players' names come from their seats);
    /// trimmed, at most 32 characters, control characters removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl fmt::Debug for Hello {
    // By hand, so that no log line can ever show a seat token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hello")
            .field("protocol", &self.protocol)
            .field("room", &self.room)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("last_v", &self.last_v)
            .field("name", &self.name)
            .finish()
    }
}

/// A player's command (everything a client may send after `hello`, except `ping`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `move {move, v}`: play `mv` (game notation) in the position of version `v`.
    Move {
        /// The move in the game's notation (`move.d.move`; Ouk Chatrang: UCI, e.g. `e3e4`).
        mv: String,
        /// The room version the client saw (`move.d.v`); stale if the position changed after it.
        v: i64,
    },
    /// `resign`: the seat gives up; the opponent wins by `resignation`.
    Resign,
    /// `offer_draw`: offers a draw, or accepts the opponent's open one; once per move per seat.
    OfferDraw,
    /// `offer_rematch`: after the game is over, offers the same game again in a new room with the
    /// colours rotated one seat on; accepting a rematch offer the others made.
    OfferRematch,
    /// `abort`: ends the game without a result while some player still in it has not moved.
    Abort,
    /// `chat`: a message to a chat channel (players write to `players`, spectators to
    /// `spectators`). Not part of the game: it makes no event and leaves the version alone.
    Chat {
        /// The channel written to.
        channel: ChatChannel,
        /// The message as sent (the room trims it and removes control characters).
        text: String,
    },
    /// `set_spectator_chat`: the room's creator turns the spectators' chat on or off.
    SetSpectatorChat {
        /// Whether spectators may chat.
        enabled: bool,
    },
    /// `accept`: accepts the opponent's open offer; an accepted draw ends the game by `agreement`.
    Accept {
        /// The offer's id (`accept.d.offer`, as in the `offer` event).
        offer: u64,
    },
    /// `decline`: declines the opponent's open offer, or withdraws one's own.
    Decline {
        /// The offer's id (`decline.d.offer`, as in the `offer` event).
        offer: u64,
    },
    /// `claim_draw {reason}`: the seat on move claims a draw (`repetition`; Ouk Chatrang:
    /// threefold repetition, O-16), or the opponent of an absent seat on move claims one
    /// (`abandoned`, after the grace period of a timed room, two players only).
    ClaimDraw {
        /// The claimed reason (`claim_draw.d.reason`); any other is a `bad_message`.
        reason: ClaimReason,
    },
    /// `claim_victory`: the seat on move has had no connection for the grace period of a timed
    /// room; its opponent wins by `abandoned` (two players), or votes that it leave the game
    /// (Khan-Tsin: it leaves, as `abandoned`, once every other player still in the game voted).
    ClaimVictory,
    /// `add_bot {seat, level}`: a player of a waiting room asks for a computer opponent at
    /// `level` (1 to 5) to take the free `seat`; the room answers with `seat_taken` (with `bot`)
    /// and, when it was the last free seat, `game_started`.
    AddBot {
        /// The free seat the bot takes (`add_bot.d.seat`).
        seat: Seat,
        /// The bot's strength (`add_bot.d.level`).
        level: Level,
    },
}

impl Command {
    /// The command's type word, as in `t`.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Move { .. } => "move",
            Command::Resign => "resign",
            Command::OfferDraw => "offer_draw",
            Command::OfferRematch => "offer_rematch",
            Command::Abort => "abort",
            Command::Chat { .. } => "chat",
            Command::SetSpectatorChat { .. } => "set_spectator_chat",
            Command::Accept { .. } => "accept",
            Command::Decline { .. } => "decline",
            Command::ClaimDraw { .. } => "claim_draw",
            Command::ClaimVictory => "claim_victory",
            Command::AddBot { .. } => "add_bot",
        }
    }
}

/// Why a draw is claimed (`claim_draw.d.reason`, in snake case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimReason {
    /// `repetition`: the position has occurred three times (Ouk Chatrang, O-16); the game ends
    /// drawn by `repetition`.
    Repetition,
    /// `abandoned`: the seat on move has been away for its grace period in a timed game; the game
    /// ends drawn by `abandoned`.
    Abandoned,
}

/// What a client frame turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A `hello`; valid only as the first frame of a connection.
    Hello(Hello),
    /// A `ping` (no `cid` needed), answered by `pong`.
    Ping,
    /// A player's command with its client id.
    Command {
        /// The frame's `cid` (1 to 64 bytes, unique per seat): a repeat gets the same answer.
        cid: String,
        /// The command, read from `t` and `d`.
        command: Command,
    },
}

/// Why a client frame was refused (always `bad_message`): a sentence, and the `cid` when the
/// envelope had one.
#[derive(Debug, PartialEq, Eq)]
pub struct BadFrame {
    /// The frame's `cid`, when it could be read.
    pub cid: Option<String>,
    /// What is wrong, for people.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveData {
    #[serde(rename = "move")]
    mv: String,
    v: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferRef {
    offer: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimData {
    reason: ClaimReason,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddBotData {
    seat: Seat,
    level: Level,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatData {
    channel: ChatChannel,
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpectatorChatData {
    enabled: bool,
}

/// Parses one text frame from a client. Never panics; every failure says what is wrong.
pub fn parse_incoming(text: &str) -> Result<Incoming, BadFrame> {
    let value = crate::json::from_str(text).map_err(|e| BadFrame {
        cid: None,
        message: format!("not JSON: {e}"),
    })?;
    if !value.is_object() {
        return Err(BadFrame {
            cid: None,
            message: "a frame must be a JSON object".into(),
        });
    }
    let env: Envelope = serde_json::from_value(value).map_err(|e| BadFrame {
        cid: None,
        message: format!("bad frame: {e}"),
    })?;
    let cid = env.cid.clone();
    let bad = |message: String| BadFrame {
        cid: cid.clone(),
        message,
    };
    let data = env.d.unwrap_or_else(|| Value::Object(Map::new()));
    fn data_of<T: for<'de> Deserialize<'de>>(t: &str, data: Value) -> Result<T, String> {
        serde_json::from_value(data).map_err(|e| format!("bad {t} data: {e}"))
    }
    let command = match env.t.as_str() {
        "hello" => {
            return data_of::<Hello>("hello", data)
                .map(Incoming::Hello)
                .map_err(bad);
        }
        "ping" => return Ok(Incoming::Ping),
        "move" => {
            let d: MoveData = data_of("move", data).map_err(bad)?;
            Command::Move { mv: d.mv, v: d.v }
        }
        "resign" | "offer_draw" | "offer_rematch" | "abort" | "claim_victory" => {
            data_of::<Empty>(&env.t, data).map_err(bad)?;
            match env.t.as_str() {
                "resign" => Command::Resign,
                "claim_victory" => Command::ClaimVictory,
                "offer_draw" => Command::OfferDraw,
                "abort" => Command::Abort,
                _ => Command::OfferRematch,
            }
        }
        "chat" => {
            let d: ChatData = data_of("chat", data).map_err(bad)?;
            Command::Chat {
                channel: d.channel,
                text: d.text,
            }
        }
        "set_spectator_chat" => Command::SetSpectatorChat {
            enabled: data_of::<SpectatorChatData>("set_spectator_chat", data)
                .map_err(bad)?
                .enabled,
        },
        "add_bot" => {
            let d: AddBotData = data_of("add_bot", data).map_err(bad)?;
            Command::AddBot {
                seat: d.seat,
                level: d.level,
            }
        }
        "accept" => Command::Accept {
            offer: data_of::<OfferRef>("accept", data).map_err(bad)?.offer,
        },
        "decline" => Command::Decline {
            offer: data_of::<OfferRef>("decline", data).map_err(bad)?.offer,
        },
        "claim_draw" => Command::ClaimDraw {
            reason: data_of::<ClaimData>("claim_draw", data)
                .map_err(bad)?
                .reason,
        },
        other => return Err(bad(format!("unknown message type {other:?}"))),
    };
    match env.cid {
        Some(cid) if !cid.is_empty() && cid.len() <= MAX_CID_BYTES => {
            Ok(Incoming::Command { cid, command })
        }
        Some(_) => Err(bad(format!("cid must be 1 to {MAX_CID_BYTES} bytes"))),
        None => Err(bad(format!("{} needs a cid", command.name()))),
    }
}

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
}

/// A game result on the wire: `{"winner": seat | null, "reason"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultInfo {
    /// The winning seat, or `null` for a draw.
    pub winner: Option<Seat>,
    /// Why the game ended, as the protocol's reason word (`checkmate`, `resignation`, ...).
    pub reason: EndReason,
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

/// The clocks of a timed room at one instant, in `game_started`, `moved`, `left` and `game_over`:
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
    /// `offer`: a seat offered a draw; open until accepted, declined or answered by a move.
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
    },
    /// `rematch`: every seat agreed to a rematch; the new room exists, already started, and each
    /// player's seat token of this room is also their token there.
    Rematch(RematchInfo),
    /// `spectator_chat`: the room's creator turned the spectators' chat on or off.
    SpectatorChat {
        /// Whether spectators may chat now.
        enabled: bool,
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
    /// The message: trimmed, without control characters, at most 300 characters.
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

/// Writes a server frame `{"t", "v"?, "d"}` as JSON text.
pub fn frame(t: &str, v: Option<i64>, d: &impl Serialize) -> String {
    /// Serialized straight to text: going through a `Value` first would copy every frame.
    #[derive(Serialize)]
    struct Frame<'a, D> {
        t: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        v: Option<i64>,
        d: &'a D,
    }
    serde_json::to_string(&Frame { t, v, d })
        .or_else(|_| {
            serde_json::to_string(&Frame {
                t,
                v,
                d: &Value::Null,
            })
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str) -> Result<Incoming, BadFrame> {
        parse_incoming(text)
    }

    #[test]
    fn move_command_parses_with_cid_and_version() {
        assert_eq!(
            cmd(r#"{"t":"move","cid":"c1","d":{"move":"e3e4","v":7}}"#),
            Ok(Incoming::Command {
                cid: "c1".into(),
                command: Command::Move {
                    mv: "e3e4".into(),
                    v: 7
                }
            })
        );
    }

    #[test]
    fn not_json_is_a_bad_frame_without_cid() {
        let err = cmd("{nope").unwrap_err();
        assert_eq!(err.cid, None);
        assert!(err.message.starts_with("not JSON"), "{}", err.message);
    }

    #[test]
    fn json_array_is_not_a_frame() {
        let err = cmd("[1,2]").unwrap_err();
        assert_eq!(err.message, "a frame must be a JSON object");
    }

    #[test]
    fn unknown_type_keeps_the_cid() {
        let err = cmd(r#"{"t":"castle","cid":"x"}"#).unwrap_err();
        assert_eq!(err.cid.as_deref(), Some("x"));
        assert_eq!(err.message, "unknown message type \"castle\"");
    }

    #[test]
    fn command_without_cid_is_refused() {
        let err = cmd(r#"{"t":"resign","d":{}}"#).unwrap_err();
        assert_eq!(err.message, "resign needs a cid");
    }

    #[test]
    fn move_without_version_is_refused() {
        let err = cmd(r#"{"t":"move","cid":"a","d":{"move":"e3e4"}}"#).unwrap_err();
        assert!(err.message.contains("missing field `v`"), "{}", err.message);
    }

    #[test]
    fn ping_needs_no_cid() {
        assert_eq!(cmd(r#"{"t":"ping","d":{}}"#), Ok(Incoming::Ping));
    }

    #[test]
    fn event_round_trips_through_stored_parts() {
        let event = Event::Offer(OfferInfo {
            id: 3,
            kind: OfferKind::Draw,
            by: 1,
            accepted: vec![],
        });
        assert_eq!(
            event.data(),
            serde_json::json!({"id": 3, "kind": "draw", "by": 1, "accepted": []})
        );
        assert_eq!(
            Event::from_parts(event.kind(), event.data()).unwrap(),
            event
        );
    }
}
