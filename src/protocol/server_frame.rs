//! Every frame the server sends, as a client reads it back: one sealed enum, so that code which
//! reads frames (the bots' driver) matches them exhaustively and a new frame or event is a
//! compile error there rather than a frame silently ignored.

use serde::Deserialize;
use serde::de::Error as _;
use serde_json::Value;

use super::{
    Ack, ChatHistory, ChatMessage, ErrorInfo, Event, Presence, Reject, SeatLag, Snapshot,
    SpectatorCount, Welcome,
};

/// A server frame `{"t", "v"?, "d"}` (docs/protocol.md), parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerFrame {
    /// `welcome`: the answer to a good hello.
    Welcome(Welcome),
    /// `snapshot`: the whole room at version `v`.
    Snapshot {
        /// The room's version.
        v: i64,
        /// The room.
        snapshot: Box<Snapshot>,
    },
    /// A versioned room event (`moved`, `game_over`, ...).
    Event {
        /// The event's version.
        v: i64,
        /// The event, as stored.
        event: Event,
        /// The legal moves sent with it to the seat on move (the game's own JSON shape).
        legal_moves: Option<Value>,
    },
    /// `ack`: a command was stored.
    Ack(Ack),
    /// `reject`: a command changed nothing.
    Reject(Reject),
    /// `error`: a hello failed.
    Error(ErrorInfo),
    /// `presence`: a seat's first connection arrived or its last one left.
    Presence(Presence),
    /// `spectators`: the room's number of spectator connections changed.
    Spectators(SpectatorCount),
    /// `lag`: a seat's estimated round trip.
    Lag(SeatLag),
    /// `chat`: one chat message.
    Chat(ChatMessage),
    /// `chat_history`: the recent readable chat, after a replay.
    ChatHistory(ChatHistory),
    /// `pong`: the answer to a `ping`.
    Pong,
}

/// A frame before its `d` is read by its type.
#[derive(Deserialize)]
struct Raw {
    t: String,
    #[serde(default)]
    v: Option<i64>,
    #[serde(default)]
    d: Value,
}

impl ServerFrame {
    /// Parses one text frame. Errors: not JSON, an unknown `t`, a `d` that is not that frame's
    /// shape, or a versioned frame without its `v`.
    pub fn parse(text: &str) -> Result<ServerFrame, serde_json::Error> {
        let Raw { t, v, mut d } = serde_json::from_str(text)?;
        let version = || v.ok_or_else(|| serde_json::Error::custom(format!("{t} without v")));
        Ok(match t.as_str() {
            "welcome" => ServerFrame::Welcome(serde_json::from_value(d)?),
            "snapshot" => ServerFrame::Snapshot {
                v: version()?,
                snapshot: Box::new(serde_json::from_value(d)?),
            },
            "ack" => ServerFrame::Ack(serde_json::from_value(d)?),
            "reject" => ServerFrame::Reject(serde_json::from_value(d)?),
            "error" => ServerFrame::Error(serde_json::from_value(d)?),
            "presence" => ServerFrame::Presence(serde_json::from_value(d)?),
            "spectators" => ServerFrame::Spectators(serde_json::from_value(d)?),
            "lag" => ServerFrame::Lag(serde_json::from_value(d)?),
            "chat" => ServerFrame::Chat(serde_json::from_value(d)?),
            "chat_history" => ServerFrame::ChatHistory(serde_json::from_value(d)?),
            "pong" => ServerFrame::Pong,
            _ => {
                let legal_moves = d.as_object_mut().and_then(|d| {
                    d.remove("legal_moves_complete");
                    d.remove("legal_moves")
                });
                ServerFrame::Event {
                    v: version()?,
                    event: Event::from_parts(&t, d)?,
                    legal_moves,
                }
            }
        })
    }

    /// The frame's type word (`t`).
    pub fn kind(&self) -> &'static str {
        match self {
            ServerFrame::Welcome(_) => "welcome",
            ServerFrame::Snapshot { .. } => "snapshot",
            ServerFrame::Event { event, .. } => event.kind(),
            ServerFrame::Ack(_) => "ack",
            ServerFrame::Reject(_) => "reject",
            ServerFrame::Error(_) => "error",
            ServerFrame::Presence(_) => "presence",
            ServerFrame::Spectators(_) => "spectators",
            ServerFrame::Lag(_) => "lag",
            ServerFrame::Chat(_) => "chat",
            ServerFrame::ChatHistory(_) => "chat_history",
            ServerFrame::Pong => "pong",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const AT: &str = "2026-12-01T10:00:00Z";

    /// One frame of every kind the server sends, as (t, v, d).
    fn one_of_each() -> Vec<(&'static str, Option<i64>, Value)> {
        let clock = json!({"remaining_ms": [1000, 2000], "running": 1, "at": AT});
        let message = json!({"channel": "players", "seat": 0, "name": "A", "text": "hi", "at": AT});
        let room = "6f1c2b8e-4b1a-4f7e-9a55-0c2b1e5d9f10";
        vec![
            (
                "welcome",
                None,
                json!({"room_id": room, "seat": 0, "role": "player",
                                      "game": "khan", "version": 3}),
            ),
            (
                "snapshot",
                Some(3),
                json!({"room_id": room, "game": "khan", "status": "waiting",
                "seats": [], "start_position": "p", "position": "p", "to_move": null, "moves": [],
                "display_moves": [], "offers": [], "spectator_chat": true, "created_by": null,
                "spectators": 0}),
            ),
            ("ack", None, json!({"cid": "c", "v": 4})),
            (
                "reject",
                None,
                json!({"cid": "c", "code": "not_your_turn", "message": "m", "v": 4}),
            ),
            ("error", None, json!({"code": "bad_hello", "message": "m"})),
            ("presence", None, json!({"seat": 1, "connected": false})),
            ("spectators", None, json!({"count": 2})),
            ("chat", None, message.clone()),
            ("chat_history", None, json!({"messages": [message]})),
            ("pong", None, json!({})),
            (
                "seat_taken",
                Some(1),
                json!({"seat": 0, "color": "white", "name": null}),
            ),
            (
                "game_started",
                Some(2),
                json!({"position": "p", "to_move": 0,
                                              "legal_moves": ["e3e4"]}),
            ),
            (
                "moved",
                Some(3),
                json!({"seat": 0, "move": "e3e4", "display": "e4", "position": "p",
                                       "to_move": 1, "clock": clock}),
            ),
            (
                "offer",
                Some(4),
                json!({"id": 1, "kind": "draw", "by": 1, "accepted": []}),
            ),
            ("offer_declined", Some(5), json!({"id": 1})),
            ("offer_accepted", Some(6), json!({"id": 2, "by": 0})),
            ("skipped", Some(7), json!({"seat": 2})),
            (
                "left",
                Some(8),
                json!({"seat": 2, "reason": "resignation", "position": "p",
                                      "to_move": 0}),
            ),
            (
                "game_over",
                Some(9),
                json!({"result": {"winner": null, "reason": "aborted"}}),
            ),
            (
                "rematch",
                Some(10),
                json!({"room_id": room, "invite_code": "abc", "seats": []}),
            ),
            ("spectator_chat", Some(11), json!({"enabled": false})),
        ]
    }

    #[test]
    fn a_frame_of_every_kind_parses_as_its_kind() {
        for (t, v, d) in one_of_each() {
            let text = super::super::frame(t, v, &d);
            let frame = ServerFrame::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(frame.kind(), t, "{text}");
        }
        let kinds: std::collections::HashSet<&str> =
            one_of_each().into_iter().map(|(t, _, _)| t).collect();
        assert_eq!(
            kinds.len(),
            10 + 11,
            "ten unversioned-or-snapshot types and eleven events"
        );
    }

    #[test]
    fn legal_moves_come_apart_from_the_event_and_a_versioned_frame_needs_its_v() {
        let text = r#"{"t":"game_started","v":2,"d":{"position":"p","to_move":0,"legal_moves":["a"],"legal_moves_complete":false}}"#;
        let ServerFrame::Event { v, legal_moves, .. } = ServerFrame::parse(text).unwrap() else {
            panic!("an event");
        };
        assert_eq!((v, legal_moves), (2, Some(json!(["a"]))));
        assert!(ServerFrame::parse(r#"{"t":"skipped","d":{"seat":1}}"#).is_err());
        assert!(ServerFrame::parse(r#"{"t":"castle","v":1,"d":{}}"#).is_err());
    }
}
