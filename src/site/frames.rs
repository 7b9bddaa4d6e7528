//! The frames of the site channel (`GET /ws/site`, docs/protocol.md "Site channel"), in the
//! room protocol's envelope `{"t": ..., "d": ...}`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::protocol;
use crate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};
use crate::store::ChallengeRow;

/// A frame the server sends on the site channel.
#[derive(Clone, Debug, PartialEq)]
pub enum SiteFrame {
    /// First frame: who the page is logged in as, and the challenges open for them (made and
    /// received), read from the table.
    Welcome {
        /// The account's username.
        user: String,
        /// The open challenges, the oldest first.
        challenges: Vec<ChallengeView>,
    },
    /// A challenge was made to or by the user.
    Challenge(ChallengeView),
    /// A challenge is no longer open: `declined`, `cancelled` or `accepted` (its game begins:
    /// a `game_start` follows).
    ChallengeGone {
        /// The challenge.
        id: Uuid,
        /// Why.
        reason: &'static str,
    },
    /// A game of the user's began: a challenge was accepted, or the user was paired.
    GameStart(GameStart),
    /// A move put a seat of the user on move.
    YourTurn(YourTurn),
}

impl SiteFrame {
    /// The frame's JSON text.
    pub fn to_json(&self) -> String {
        match self {
            SiteFrame::Welcome { user, challenges } => protocol::frame(
                "welcome",
                None,
                &serde_json::json!({ "user": user, "challenges": challenges }),
            ),
            SiteFrame::Challenge(view) => protocol::frame("challenge", None, view),
            SiteFrame::ChallengeGone { id, reason } => protocol::frame(
                "challenge_gone",
                None,
                &serde_json::json!({ "id": id, "reason": reason }),
            ),
            SiteFrame::GameStart(start) => protocol::frame("game_start", None, start),
            SiteFrame::YourTurn(turn) => protocol::frame("your_turn", None, turn),
        }
    }
}

/// A challenge as its players see it (also the REST answers' shape).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChallengeView {
    /// Its id.
    pub id: Uuid,
    /// The challenger's username.
    pub from: String,
    /// The challenged player's username.
    pub to: String,
    /// The game.
    pub game: GameKind,
    /// Its number of players.
    pub seats: u8,
    /// The time control, `null` for none.
    pub clock: Option<Value>,
    /// Whether the game is rated.
    pub rated: bool,
    /// The challenger's colour, or `random`.
    pub color: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
}

/// The colour name of `seat` in `game` for `players`.
pub fn color_of(game: GameKind, players: u8, seat: Seat) -> String {
    let setup = GameOptions {
        players: Some(players),
        ..GameOptions::default()
    };
    AnyGame::new(game, &setup).map_or_else(|_| seat.to_string(), |g| g.color(seat).to_owned())
}

impl ChallengeView {
    /// The view of a stored challenge.
    pub fn of(row: &ChallengeRow) -> Self {
        ChallengeView {
            id: row.id,
            from: row.challenger_name.clone(),
            to: row.challenged_name.clone(),
            game: row.game,
            seats: row.seats,
            clock: row.clock.clone(),
            rated: row.rated,
            color: row
                .challenger_seat
                .map_or_else(|| "random".to_owned(), |s| color_of(row.game, row.seats, s)),
            created_at: row.created_at,
            expires_at: row.expires_at,
        }
    }
}

/// A game that began for the user: where to find it and their seat (which is their account's:
/// their page opens it with its session, without a seat token).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameStart {
    /// The room.
    pub room_id: Uuid,
    /// Its invite code (the room page is `/r/{invite_code}`).
    pub invite_code: String,
    /// The game.
    pub game: GameKind,
    /// The user's seat.
    pub seat: Seat,
    /// Its colour.
    pub color: String,
    /// `challenge` or `pairing`.
    pub via: &'static str,
    /// The challenge, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge_id: Option<Uuid>,
}

/// It is the user's turn in a room.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct YourTurn {
    /// The room.
    pub room_id: Uuid,
    /// Its invite code.
    pub invite_code: String,
    /// The game.
    pub game: GameKind,
    /// The user's seat on move.
    pub seat: Seat,
    /// The room's version after the move.
    pub v: i64,
}
