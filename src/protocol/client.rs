//! The frames a client sends: the envelope, `hello`, the commands, and their parsing into typed
//! values, with a typed [`BadFrame`] for anything else (in the two steps the `protocol` module
//! describes).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ChatChannel, MAX_CID_BYTES};
use crate::bot::Level;
use crate::rules::Seat;

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
    /// [`PROTOCOL_VERSION`](super::PROTOCOL_VERSION) is `bad_hello`, close 4000.
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
    /// A personal API token with the scope `play` (`khn_...`): the client is that account, and
    /// without a seat token gets the account's seat in the room, if it has one (a browser's
    /// session cookie on the upgrade does the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_token: Option<String>,
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
            .field("api_token", &self.api_token.as_ref().map(|_| "***"))
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
    /// `offer_takeback`: asks the other players to let the seat take back its last move (and the
    /// moves played after it); casual games only.
    OfferTakeback,
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
            Command::OfferTakeback => "offer_takeback",
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
        "resign" | "offer_draw" | "offer_rematch" | "offer_takeback" | "abort"
        | "claim_victory" => {
            data_of::<Empty>(&env.t, data).map_err(bad)?;
            match env.t.as_str() {
                "resign" => Command::Resign,
                "claim_victory" => Command::ClaimVictory,
                "offer_draw" => Command::OfferDraw,
                "offer_takeback" => Command::OfferTakeback,
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
