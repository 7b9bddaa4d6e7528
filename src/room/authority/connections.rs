//! Who connects to the room task, and what it answers them: a connection's seat is checked here
//! (the fan-out takes only connections the authority let in), presence frames follow a seat's
//! first arrival and last departure, and acks and rejects go to the connection that sent the
//! command.

use std::sync::Arc;

use tokio::sync::mpsc;
use uuid::Uuid;

use super::Authority;
use crate::domain::RoomStatus;
use crate::protocol::{
    self, Ack, Code, Presence as PresenceFrame, Reject, SeatLag, SpectatorCount,
};
use crate::room::answers::Answer;
use crate::room::chat::spectator_name;
use crate::room::fanout::{Catchup, Gone, Newcomer};
use crate::room::token::hash_token;
use crate::room::{ConnectError, Connected, Outbound};
use crate::rules::Seat;

/// How a connection asks to be let in.
pub(super) enum Way {
    /// The room's own bot connection of this seat.
    Bot(Seat),
    /// A player with its seat token.
    Token(String),
    /// A logged-in client: its account's seat here, if it has one, else a spectator.
    User(Uuid),
    /// A spectator.
    Spectator,
}

impl Authority {
    /// Lets in a connection (see [`Way`]), whose frames go to `out` (a spectator named `name`); it
    /// is sent `welcome` and a replay after `last_v` or a snapshot. Errors: the room is full, the
    /// token (or bot seat) is no seat's, or `out` is closed.
    pub(super) fn connect(
        &mut self,
        way: Way,
        last_v: Option<i64>,
        name: Option<String>,
        out: mpsc::Sender<Outbound>,
    ) -> Result<Connected, ConnectError> {
        // A room's own bots always get in: without them its game could not go on.
        let bot = matches!(way, Way::Bot(_));
        if !bot && self.fanout.len() >= self.settings.max_connections {
            return Err(ConnectError::Crowded(self.settings.max_connections));
        }
        let seat = match way {
            Way::Bot(seat) => {
                let is_bot = self
                    .state
                    .seats
                    .get(usize::from(seat))
                    .is_some_and(|slot| slot.bot.is_some());
                Some(
                    Some(seat)
                        .filter(|_| is_bot)
                        .ok_or(ConnectError::BadToken)?,
                )
            }
            Way::Spectator => None,
            Way::User(user) => self.state.seat_of_user(user),
            Way::Token(token) => Some(
                self.state
                    .seat_of_token(&hash_token(&token))
                    .ok_or(ConnectError::BadToken)?,
            ),
        };
        let newcomer = Newcomer {
            seat,
            bot,
            name: seat.map_or_else(|| spectator_name(name), |_| None),
            out,
        };
        let catchup = Catchup {
            connected: &self.presence.connected(),
            chat: self.chat.readable(seat),
            clock: self
                .state
                .clock_view(self.clock_now().1, self.settings.clock.now_utc()),
        };
        let conn = self
            .fanout
            .connect(newcomer, last_v, &self.state, catchup)?;
        // The seats' round trips as last announced: the `lag` frames it missed.
        for (seat, lag_ms) in self.presence.lags() {
            self.send(conn, lag_frame(seat, lag_ms));
        }
        self.announce_spectators();
        if let Some(seat) = seat
            && self.presence.arrive(seat)
        {
            self.announce(PresenceFrame {
                seat,
                connected: true,
                claimable_at: None,
            });
        }
        Ok(Connected { conn, seat })
    }

    /// Connection `conn` left.
    pub(super) fn disconnect(&mut self, conn: u64) {
        if let Some(gone) = self.fanout.remove(conn) {
            self.seat_left(gone.seat);
        }
        self.announce_spectators();
    }

    /// After the fan-out dropped connections: a bot's driver ends with its connection, and the
    /// room still needs its moves, so it starts again; the others are told of seats now away.
    pub(super) fn forget(&mut self, dropped: Vec<Gone>) {
        for gone in dropped {
            let bot = gone
                .seat
                .filter(|_| gone.bot)
                .and_then(|seat| Some((seat, self.state.seats.get(usize::from(seat))?.bot?)));
            if let Some((seat, level)) = bot {
                self.start_bot(seat, level);
            }
            self.seat_left(gone.seat);
        }
        self.announce_spectators();
    }

    /// Tells every connection the number of spectators when it changed (`spectators`); a
    /// connection dropped meanwhile makes the count change again, and it is told again.
    fn announce_spectators(&mut self) {
        if let Some(count) = self.fanout.spectators_changed() {
            let frame = protocol::frame("spectators", None, &SpectatorCount { count });
            let dropped = self.fanout.broadcast(&frame.into());
            self.forget(dropped);
        }
    }

    /// A connection of `seat` (none: a spectator's) went; if it was the seat's last, everyone is
    /// told, with when the others may claim against it in a timed game in play.
    fn seat_left(&mut self, seat: Option<Seat>) {
        let Some(seat) = seat else { return };
        if !self.presence.leave(seat, self.settings.clock.now_ms()) {
            return;
        }
        let claimable_at = self
            .grace_ms()
            .filter(|_| self.state.status == RoomStatus::Playing)
            .and_then(|ms| i64::try_from(ms).ok())
            .map(|ms| self.settings.clock.now_utc() + chrono::Duration::milliseconds(ms));
        self.announce(PresenceFrame {
            seat,
            connected: false,
            claimable_at,
        });
    }

    /// Tells every connection a seat's connection's estimated round trip (`lag`), and keeps it for
    /// those that come later; nothing for a spectator's or a connection the room has forgotten.
    pub(super) fn announce_lag(&mut self, conn: u64, lag_ms: u64) {
        let Some(Some(seat)) = self.fanout.seat_of(conn) else {
            return;
        };
        self.presence.note_lag(seat, lag_ms);
        let frame: Arc<str> = lag_frame(seat, lag_ms).into();
        let dropped = self.fanout.broadcast(&frame);
        self.forget(dropped);
    }

    /// Sends a `presence` frame to every connection.
    fn announce(&mut self, presence: PresenceFrame) {
        let frame: Arc<str> = protocol::frame("presence", None, &presence).into();
        let dropped = self.fanout.broadcast(&frame);
        self.forget(dropped);
    }

    fn send(&mut self, conn: u64, text: String) {
        let dropped = self.fanout.send(conn, text);
        self.forget(dropped);
    }

    /// Rejects command `cid` of connection `conn`, with the room's current version.
    pub(super) fn reject(&mut self, conn: u64, cid: &str, code: Code, message: String) {
        let reject = Reject {
            cid: Some(cid.to_owned()),
            code,
            message,
            v: self.state.version,
        };
        self.send(conn, protocol::frame("reject", None, &reject));
    }

    /// Acknowledges command `cid` of connection `conn` at version `v`.
    pub(super) fn ack(&mut self, conn: u64, cid: &str, v: i64) {
        let ack = Ack {
            cid: cid.to_owned(),
            v,
        };
        self.send(conn, protocol::frame("ack", None, &ack));
    }

    /// Sends `answer` to command `cid` of connection `conn`.
    pub(super) fn answer(&mut self, conn: u64, cid: &str, answer: Answer) {
        match answer {
            Answer::Ack(v) => self.ack(conn, cid, v),
            Answer::Reject(code, message) => self.reject(conn, cid, code, message),
        }
    }
}

/// A `lag` frame: `seat`'s round trip, `lag_ms`.
fn lag_frame(seat: Seat, lag_ms: u64) -> String {
    protocol::frame("lag", None, &SeatLag { seat, lag_ms })
}
