//! Authoritative rooms: one tokio task per room owns the game, its seats and its offers.
//!
//! Everything that touches a room goes through its [`RoomHandle`] as a message to the room task's
//! inbox (join, connect, a player's command, ...). The task decides with the rules module, stores the
//! resulting events in one transaction, applies them, and only then broadcasts and acknowledges. It
//! never waits on a connection: each connection has a bounded outbound queue that the room fills
//! with `try_send`, and a connection whose queue is full is dropped (it reconnects with `last_v` and
//! resyncs). See `state` for the decide/apply state machine, `authority` for the task, `fanout`
//! for its connections and what each is sent, `presence` and `chat` for those two concerns of a
//! room, `registry` for finding, creating and restoring rooms, `sweep` for loading the
//! correspondence games whose time ran out while they were out of memory.

pub mod answers;
mod authority;
pub mod bot;
mod chat;
mod commit;
mod fanout;
mod presence;
mod rated;
pub mod registry;
pub mod state;
pub mod sweep;
pub mod token;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::clock::Clock;
use crate::protocol::Command;
use crate::protocol::SeatInfo;
use crate::rules::{GameKind, Seat};
use crate::store::SeatAccount;
use state::{JoinRefusal, SeatChoice};

/// How many requests may wait in a room's inbox before senders wait.
const INBOX_CAPACITY: usize = 256;

/// How long a finished room with nobody connected stays in memory (at most
/// [`RoomSettings::idle`]): its record is in the store, and a late visitor loads it again.
pub const FINISHED_IDLE: Duration = Duration::from_secs(5);

/// How many frames may wait for one connection before it is dropped as too slow.
pub const OUTBOUND_CAPACITY: usize = 256;

/// How rooms behave, from the server's configuration (`config::Limits`).
#[derive(Clone, Debug)]
pub struct RoomSettings {
    /// Connections one room may hold, players and spectators together.
    pub max_connections: usize,
    /// How long a room with nobody connected stays in memory after its last request (a finished
    /// one: [`FINISHED_IDLE`] if shorter).
    pub idle: Duration,
    /// How long a room waits for its players before it expires (ends as `aborted`).
    pub waiting_ttl: Duration,
    /// The base grace period of an absent player on move in a timed game (see
    /// [`RoomSettings::grace`]).
    pub abandon_grace: Duration,
    /// How long a waiting room whose only player has no connection waits before it expires.
    pub abandoned_waiting_room: Duration,
    /// The time source of game clocks (the system's; a manual one in tests).
    pub clock: Clock,
    /// Where bots search for their moves.
    pub bots: bot::BotPool,
    /// Where a seat's account is told it is its turn (the site channel).
    pub site: crate::site::Site,
}

impl RoomSettings {
    /// The settings of `limits`.
    pub fn from_limits(limits: &crate::config::Limits) -> Self {
        RoomSettings {
            max_connections: limits.connections_per_room.max(1),
            idle: limits.room_idle(),
            waiting_ttl: limits.waiting_room_ttl(),
            abandon_grace: limits.abandon_grace(),
            abandoned_waiting_room: limits.abandoned_waiting_room(),
            clock: Clock::system(),
            bots: bot::BotPool::new(limits.bot_threads),
            site: crate::site::Site::local(),
        }
    }
}

impl RoomSettings {
    /// The grace period of an absent player on move in a game of `initial_s` seconds per player:
    /// max(base, min(initial_s / 10, 120 s)), so longer games wait longer.
    pub fn grace(&self, initial_s: u64) -> Duration {
        let scaled = Duration::from_secs((initial_s / 10).min(120));
        self.abandon_grace.max(scaled)
    }
}

impl Default for RoomSettings {
    fn default() -> Self {
        RoomSettings::from_limits(&crate::config::Limits::default())
    }
}

/// A frame on its way to one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outbound {
    /// A JSON text frame, shared between all recipients of the same frame.
    Text(Arc<str>),
    /// Close the socket with this code and reason.
    Close(u16, String),
}

/// A new seat holder's credentials (shown once).
#[derive(Clone)]
pub struct Joined {
    /// The room.
    pub room_id: Uuid,
    /// The seat taken.
    pub seat: Seat,
    /// The seat's colour name.
    pub color: String,
    /// The seat token (32 hex digits); only its hash is kept.
    pub seat_token: String,
}

impl std::fmt::Debug for Joined {
    // By hand, so that no log line can ever show a seat token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Joined")
            .field("room_id", &self.room_id)
            .field("seat", &self.seat)
            .field("color", &self.color)
            .field("seat_token", &"***")
            .finish()
    }
}

/// Why a join failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinError {
    /// The room refused the seat (full, taken, or no such seat): HTTP 409 or 400.
    Refused(JoinRefusal),
    /// The room could not store the seat (database unreachable) or is shutting down.
    Unavailable,
}

/// A connection accepted by a room.
#[derive(Clone, Copy, Debug)]
pub struct Connected {
    /// The connection's id within the room, for its later commands.
    pub conn: u64,
    /// The connection's seat, or `None` for a spectator.
    pub seat: Option<Seat>,
}

/// A bot connection accepted by its room, with the game as the room holds it then: the bot's
/// copy starts from it (a Khan-Tsin position text alone would renumber the seats once a player
/// has left) and follows the events after `position_version`.
#[derive(Clone, Debug)]
pub(crate) struct BotConnected {
    /// The connection's id within the room.
    pub conn: u64,
    /// The game, with the history its rules keep.
    pub game: crate::rules::AnyGame,
    /// The version of the last event that changed the position.
    pub position_version: i64,
    /// Whether the game is being played.
    pub playing: bool,
}

/// Why a room refused a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectError {
    /// The seat token belongs to no seat of this room.
    BadToken,
    /// The room task has stopped (it is being reloaded); reconnect.
    Gone,
    /// The room holds this maximum of connections already.
    Crowded(usize),
}

/// The room summary of `GET /api/rooms/{id}`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RoomSummary {
    /// The room's id (a UUID).
    pub room_id: Uuid,
    /// The game id, e.g. `ouk-chatrang`.
    pub game: GameKind,
    /// `waiting`, `playing` or `finished`.
    pub status: String,
    /// `public` (listed in the lobby) or `private`.
    pub visibility: String,
    /// Whether the game is rated (created with `"rated": true`).
    pub rated: bool,
    /// Every seat, in seat order, with its name and whether it is connected.
    pub seats: Vec<SeatInfo>,
    /// The room's current version.
    pub version: i64,
    /// The room's invite code.
    pub invite_code: String,
    /// When the room was created (UTC, RFC 3339 on the wire).
    pub created_at: DateTime<Utc>,
}

/// A request to a room task.
enum Request {
    Join {
        choice: SeatChoice,
        name: Option<String>,
        user: Option<Uuid>,
        same_player: Option<[u8; 32]>,
        reply: oneshot::Sender<Result<Joined, JoinError>>,
    },
    Connect {
        token: Option<String>,
        user: Option<Uuid>,
        last_v: Option<i64>,
        name: Option<String>,
        out: mpsc::Sender<Outbound>,
        /// Cluster mode: the node relaying this connection here, if one does.
        via: Option<Uuid>,
        reply: oneshot::Sender<Result<Connected, ConnectError>>,
    },
    /// The room's own bot connection of `seat` (its driver), which has no token.
    ConnectBot {
        seat: Seat,
        out: mpsc::Sender<Outbound>,
        reply: oneshot::Sender<Result<BotConnected, ConnectError>>,
    },
    Disconnect {
        conn: u64,
    },
    /// A connection's estimated round trip changed (ms): shown to everyone for a seat's.
    Lag {
        conn: u64,
        lag_ms: u64,
    },
    Command {
        conn: u64,
        cid: String,
        command: Command,
        /// When the frame arrived, for the move latency metrics.
        received: tokio::time::Instant,
        /// The connection's estimated round trip (ms), for a move's lag compensation.
        lag_ms: Option<u64>,
    },
    Summary {
        reply: oneshot::Sender<RoomSummary>,
    },
    /// The store now says these seats belong to these accounts (an attach, a deletion).
    Accounts {
        accounts: Vec<SeatAccount>,
    },
}

/// The way to a room task. Cheap to clone; every clone talks to the same task.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    /// The room's id.
    pub id: Uuid,
    /// The room's invite code (lowercase).
    pub invite_code: String,
    /// The game the room plays.
    pub kind: GameKind,
    tx: mpsc::Sender<Request>,
    /// The room's current version, published by the task for answers given outside it.
    version: Arc<AtomicI64>,
}

impl RoomHandle {
    /// The room's current version (for rejects of frames that never reach the room).
    pub fn version(&self) -> i64 {
        self.version.load(Ordering::Relaxed)
    }

    /// Whether the room task has stopped (the registry then loads the room again).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Takes a seat for `name`: `choice` picks which. With `user` the seat belongs to that
    /// account (`name` is then its username), whose player resumes it by logging in.
    /// `same_player`: the SHA-256 of the seat token of a seat of this room the joiner holds
    /// already (a pass-and-play table), or `JoinRefusal::BadToken`.
    pub async fn join(
        &self,
        choice: SeatChoice,
        name: Option<String>,
        user: Option<Uuid>,
        same_player: Option<[u8; 32]>,
    ) -> Result<Joined, JoinError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request::Join {
                choice,
                name,
                user,
                same_player,
                reply,
            })
            .await
            .map_err(|_| JoinError::Unavailable)?;
        answer.await.map_err(|_| JoinError::Unavailable)?
    }

    /// Registers a connection whose frames go to `out`. With a `token` it is that seat's; without,
    /// a spectator's. The room sends `welcome` and then the events after `last_v` (and a
    /// `chat_history` when there is chat), or a `snapshot`, all at once: `out` must have room for
    /// them, as a queue of [`OUTBOUND_CAPACITY`] always has. Errors: `BadToken` for a token of no
    /// seat here, `Crowded` when the room holds its most connections, `Gone` when the room task
    /// has stopped or `out` could not take those frames.
    pub async fn connect(
        &self,
        token: Option<String>,
        last_v: Option<i64>,
        out: mpsc::Sender<Outbound>,
    ) -> Result<Connected, ConnectError> {
        self.connect_named(token, None, last_v, None, out).await
    }

    /// As [`RoomHandle::connect`], with the account of a logged-in client (`user`: without a
    /// token, the seat of that account if it has one here, else a spectator's) and the name a
    /// spectator gave in its hello (for its chat messages; a player's name is its seat's).
    pub async fn connect_named(
        &self,
        token: Option<String>,
        user: Option<Uuid>,
        last_v: Option<i64>,
        name: Option<String>,
        out: mpsc::Sender<Outbound>,
    ) -> Result<Connected, ConnectError> {
        self.connect_via(token, user, last_v, name, out, None).await
    }

    /// As [`RoomHandle::connect_named`], for a client that another node of the cluster relays
    /// here (`via`: that node's id; `None` for a client connected here): the room is handed to
    /// that node once every person connected to it comes through there.
    pub async fn connect_via(
        &self,
        token: Option<String>,
        user: Option<Uuid>,
        last_v: Option<i64>,
        name: Option<String>,
        out: mpsc::Sender<Outbound>,
        via: Option<Uuid>,
    ) -> Result<Connected, ConnectError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request::Connect {
                token,
                user,
                last_v,
                name,
                out,
                via,
                reply,
            })
            .await
            .map_err(|_| ConnectError::Gone)?;
        answer.await.map_err(|_| ConnectError::Gone)?
    }

    /// Connects the room's bot in `seat` (its driver): as a seat's connection, without a token,
    /// answered with the room's game as the frames that follow start from. Errors with
    /// `BadToken` when no bot holds `seat`.
    pub(crate) async fn connect_bot(
        &self,
        seat: Seat,
        out: mpsc::Sender<Outbound>,
    ) -> Result<BotConnected, ConnectError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request::ConnectBot { seat, out, reply })
            .await
            .map_err(|_| ConnectError::Gone)?;
        answer.await.map_err(|_| ConnectError::Gone)?
    }

    /// Tells the room connection `conn`'s estimated round trip, `lag_ms` (the room tells every
    /// connection, for a seat's).
    pub async fn report_lag(&self, conn: u64, lag_ms: u64) {
        // A stopped room has no one to tell.
        let _ = self.tx.send(Request::Lag { conn, lag_ms }).await;
    }

    /// Forgets a connection.
    pub async fn disconnect(&self, conn: u64) {
        // A stopped room has already forgotten every connection.
        let _ = self.tx.send(Request::Disconnect { conn }).await;
    }

    /// Queues a player's command; the answer (`ack` or `reject`) goes to the connection's queue.
    /// Returns false when the room task has stopped.
    pub async fn command(&self, conn: u64, cid: String, command: Command) -> bool {
        self.command_with_lag(conn, cid, command, None).await
    }

    /// As [`RoomHandle::command`], with the connection's estimated round trip `lag_ms` (a
    /// move's lag compensation), if any.
    pub async fn command_with_lag(
        &self,
        conn: u64,
        cid: String,
        command: Command,
        lag_ms: Option<u64>,
    ) -> bool {
        let received = tokio::time::Instant::now();
        self.tx
            .send(Request::Command {
                conn,
                cid,
                command,
                received,
                lag_ms,
            })
            .await
            .is_ok()
    }

    /// The room summary, or `None` when the room task has stopped.
    pub async fn summary(&self) -> Option<RoomSummary> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(Request::Summary { reply }).await.ok()?;
        answer.await.ok()
    }

    /// Tells the room what the store now says of its seats' accounts (`Store::seat_accounts`,
    /// read after an attach or a deletion): the player of a seat given to an account resumes it
    /// by logging in, and a seat whose account is new to the room, or was deleted, is announced
    /// to everyone (`seat_account`). Returns false when the room task has stopped (it reads the
    /// accounts from the store when it loads again).
    pub async fn accounts_changed(&self, accounts: Vec<SeatAccount>) -> bool {
        self.tx.send(Request::Accounts { accounts }).await.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grace_period_grows_with_the_time_control_up_to_two_minutes() {
        let settings = RoomSettings::default();
        let grace = |initial_s| settings.grace(initial_s).as_secs();
        assert_eq!(
            [
                grace(60),
                grace(300),
                grace(600),
                grace(1200),
                grace(10_800)
            ],
            [30, 30, 60, 120, 120]
        );
    }
}
