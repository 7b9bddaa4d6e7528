//! The wire contract (protocol version 1, `docs/protocol.md`) as serde types: every frame a client may
//! send, every event and answer the server sends, and the stable error codes.
//!
//! This module is plain data shared by `api` (which parses and writes frames) and `room` (which
//! decides what happens). Every frame is one JSON object `{"t": type, "v"?: version, "cid"?: client id,
//! "d"?: data}`. Parsing is two-step on purpose: first the envelope, so that a frame with a known
//! `cid` but bad data can still be answered with a `reject` carrying that `cid`; then the `d` of the
//! named type.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod client;
mod events;
mod server_frame;
pub use client::{BadFrame, ClaimReason, Command, Envelope, Hello, Incoming, parse_incoming};
pub use events::{
    Ack, ChatChannel, ChatHistory, ChatMessage, ClockInfo, ClockView, ErrorInfo, Event,
    HistoryEntry, OfferInfo, OfferKind, Presence, RatingChange, Reject, RematchInfo, RematchSeat,
    ResultInfo, Role, SeatInfo, SeatLag, Snapshot, SpectatorCount, Welcome,
};
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
    /// The peer sent nothing (no frame, no pong) for the silence limit.
    pub const GOING_AWAY: u16 = 1001;
    /// The room holds its maximum of connections.
    pub const CROWDED: u16 = 4029;

    /// How long a side that sent a close frame waits for the peer's answering close.
    pub const REPLY_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

    /// After sending a close frame: reads (and discards, as RFC 6455 section 5.5.1 allows) what
    /// the peer still sends on `stream` until its answering close ends the stream, at most
    /// [`REPLY_WITHIN`]. Dropping the socket at once would make our kernel answer a frame the
    /// peer still sends (a pong, a move), or one it sent and we never read, with a reset, and a
    /// reset can destroy the unread close frame at the peer: it would see 1006 instead of the
    /// code it must act on.
    pub async fn await_reply<S, T, E>(stream: &mut S)
    where
        S: futures_util::Stream<Item = Result<T, E>> + Unpin,
    {
        use futures_util::StreamExt;
        let deadline = tokio::time::Instant::now() + REPLY_WITHIN;
        while let Ok(Some(Ok(_))) = tokio::time::timeout_at(deadline, stream.next()).await {}
    }

    /// The tungstenite error under a WebSocket read error (axum's wraps one), if any.
    pub fn tungstenite_error<'a>(
        e: &'a (dyn std::error::Error + 'static),
    ) -> Option<&'a tungstenite::Error> {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = source {
            if let Some(found) = err.downcast_ref::<tungstenite::Error>() {
                return Some(found);
            }
            source = err.source();
        }
        None
    }

    /// The close a read error calls for when the peer broke the WebSocket protocol (RFC 6455
    /// section 7.4.1): [`TOO_BIG`] for a frame over the limit, [`INVALID_PAYLOAD`] for a text
    /// frame that is not UTF-8, [`PROTOCOL_ERROR`] for any other violation (a reserved opcode or
    /// bit, a control frame over 125 bytes, an unmasked frame). `None` for a connection that
    /// simply failed: there is nobody to tell.
    pub fn for_violation(e: &(dyn std::error::Error + 'static)) -> Option<(u16, &'static str)> {
        match tungstenite_error(e)? {
            tungstenite::Error::Capacity(_) => Some((TOO_BIG, "frame larger than 8 KiB")),
            tungstenite::Error::Utf8(_) => Some((INVALID_PAYLOAD, "text frame not UTF-8")),
            tungstenite::Error::Protocol(_) => Some((PROTOCOL_ERROR, "protocol error")),
            _ => None,
        }
    }
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
    /// 10 s, a second draw offer by the same seat before any move was played (one per move), a
    /// fourth rematch offer by the same seat, or a takeback offer again in the same position or
    /// within its cooldown after a decline.
    RateLimited,
    /// `bad_message`: a frame that is not JSON, not an object, of an unknown type, whose `d` does not
    /// fit (e.g. a `claim_draw` whose `reason` is neither `repetition` nor `abandoned`), or without
    /// a `cid`; also a second `hello`, and a `chat` with nothing visible once cleaned or too long, or
    /// a player's `chat` to the spectators' channel.
    BadMessage,
    /// `cannot_abort`: `abort` after every player still in the game has made a move.
    CannotAbort,
    /// `cannot_add_bot`: `add_bot` when the room is not waiting for players or the seat is taken
    /// or does not exist.
    CannotAddBot,
    /// `cannot_offer`: `offer_rematch` while the game is not over, after a game that never started,
    /// or once the rematch has been made; `offer_takeback` with no move of one's own to take back
    /// (or one too far back, or before a player left), and an offer while another kind of offer is
    /// open (one open at a time).
    CannotOffer,
    /// `rated_game`: `offer_takeback` in a rated game, where moves are never taken back.
    RatedGame,
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
            Code::RatedGame => "rated_game",
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
            plies: None,
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
