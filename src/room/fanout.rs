//! Fan-out: whoever is connected to a room, and what each of them is sent.
//!
//! The fan-out holds the room's connections (players, spectators, its bots), the window of recent
//! events a reconnecting client is replayed from, and the legal moves of the seat on move, which
//! only that seat's connections get. It decides nothing about the game: committed events come in
//! through [`Fanout::publish`], together with the room state they led to, and go out as frames,
//! each connection's own. Only the room task feeds it, on the one node that owns the room: in a
//! cluster, a client of another node is relayed to the owner (`cluster::relay`) and is one more
//! connection here, so every promise below holds for it unchanged (docs/deploy/cluster.md, "Any
//! node serves any client"). A relayed connection carries the node it comes through: when every
//! person's does, and it is one other node, the room task hands the room to that node
//! (`authority::handoff`, docs/deploy/cluster.md, "The proxy").
//!
//! It never waits on a connection: frames go into each connection's bounded queue with
//! `try_send`, and a connection whose queue is full is dropped (the client reconnects with
//! `last_v` and resyncs). Every method that sends returns the connections it dropped, so that the
//! room can tell the others who left.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::{debug, info};
use uuid::Uuid;

use super::state::{LegalMoves, RoomState};
use super::{ConnectError, OUTBOUND_CAPACITY, Outbound};
use crate::protocol::{
    self, ChatHistory, ChatMessage, ClockView, Event, Role, SpectatorCount, Welcome,
};
use crate::rules::Seat;
use crate::telemetry;

/// At most this many missed events are replayed to a reconnecting client; beyond, it gets a
/// snapshot (which also keeps the replay inside the connection's outbound queue).
const MAX_REPLAY: i64 = (OUTBOUND_CAPACITY as i64) - 16;

/// [`MAX_REPLAY`] as a count.
const MAX_REPLAY_EVENTS: usize = MAX_REPLAY as usize;

/// One committed event of the room's log at version `v`, with its public frame serialized once.
pub(super) struct Logged {
    pub v: i64,
    pub event: Event,
    pub frame: Arc<str>,
}

impl Logged {
    /// The event at version `v`.
    pub fn new(v: i64, event: Event) -> Self {
        let frame = protocol::frame(event.kind(), Some(v), &event.data()).into();
        Logged { v, event, frame }
    }
}

/// The room's latest [`MAX_REPLAY`] events, which are all a reconnecting client can be replayed
/// (older ones are only in the database): a long game's whole log with its frames, kept in
/// memory, cost about 1 KiB per move.
struct RecentEvents(VecDeque<Logged>);

impl RecentEvents {
    /// The latest of `log` (in version order).
    fn new(log: Vec<Logged>) -> Self {
        let mut recent = RecentEvents(VecDeque::with_capacity(log.len().min(MAX_REPLAY_EVENTS)));
        log.into_iter().for_each(|logged| recent.push(logged));
        recent
    }

    fn push(&mut self, logged: Logged) {
        if self.0.len() == MAX_REPLAY_EVENTS {
            self.0.pop_front();
        }
        self.0.push_back(logged);
    }

    /// The events after version `v`, in order (found from the end: versions have no holes).
    fn after(&self, v: i64) -> impl Iterator<Item = &Logged> {
        let newest = self.0.back().map_or(v, |logged| logged.v);
        let count = usize::try_from(newest - v).unwrap_or(0).min(self.0.len());
        self.0.range(self.0.len() - count..)
    }
}

/// A connection about to be added: who it is, and where its frames go.
pub(super) struct Newcomer {
    /// Its seat, or `None` for a spectator.
    pub seat: Option<Seat>,
    /// Whether this is the room's own bot connection (which does not keep the room in memory).
    pub bot: bool,
    /// The name a spectator gave in its hello, for its chat messages (cleaned).
    pub name: Option<String>,
    /// Its outbound queue, fresh (empty).
    pub out: mpsc::Sender<Outbound>,
    /// Cluster mode: the node that relays it here (`None`: its client is connected here).
    pub via: Option<Uuid>,
}

/// What a newcomer's snapshot or replay needs besides the room state, from the room task.
pub(super) struct Catchup<'a> {
    /// Per seat, whether it is connected (the newcomer not counted yet).
    pub connected: &'a [bool],
    /// The chat the newcomer may read, oldest first.
    pub chat: Vec<ChatMessage>,
    /// A timed room's clocks now.
    pub clock: Option<ClockView>,
}

/// A connection the fan-out no longer holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Gone {
    /// Its seat, or `None` for a spectator.
    pub seat: Option<Seat>,
    /// Whether it was the room's bot connection.
    pub bot: bool,
}

struct Conn {
    seat: Option<Seat>,
    bot: bool,
    name: Option<String>,
    out: mpsc::Sender<Outbound>,
    via: Option<Uuid>,
}

/// The connections of one room and the frames they are sent.
pub(super) struct Fanout {
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    log: RecentEvents,
    /// The legal moves of the seat on move at a position version (see [`Fanout::legal_moves`]).
    legal_cache: Option<(i64, Arc<LegalMoves>)>,
    /// The spectator count the connections were last told (see [`Fanout::spectators_changed`]).
    told_spectators: u32,
}

impl Fanout {
    /// No connections yet; `log` is the room's committed events so far, in version order (only the
    /// latest are kept).
    pub fn new(log: Vec<Logged>) -> Self {
        Fanout {
            conns: HashMap::new(),
            next_conn: 1,
            log: RecentEvents::new(log),
            legal_cache: None,
            told_spectators: 0,
        }
    }

    /// How many spectator connections the room has (bots hold seats: they are not counted).
    pub fn spectators(&self) -> u32 {
        let count = self.conns.values().filter(|c| c.seat.is_none()).count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// The spectator count when it differs from the one last returned here (the connections
    /// are to be told it, in a `spectators` frame), noted as told; `None` when it has not changed.
    pub fn spectators_changed(&mut self) -> Option<u32> {
        let now = self.spectators();
        (now != self.told_spectators).then(|| {
            self.told_spectators = now;
            now
        })
    }

    /// How many connections the room has.
    pub fn len(&self) -> usize {
        self.conns.len()
    }

    /// Whether every connection (if any) is one of the room's bots.
    pub fn only_bots(&self) -> bool {
        self.conns.values().all(|conn| conn.bot)
    }

    /// Cluster mode: the node every person's connection of the room comes through, when none is
    /// connected here and at least one is connected at all (bots, which run where the room
    /// does, do not count): the node to hand the room to.
    pub fn relayed_from_one_node(&self) -> Option<Uuid> {
        let mut people = self.conns.values().filter(|conn| !conn.bot);
        let first = people.next()?.via?;
        people.all(|conn| conn.via == Some(first)).then_some(first)
    }

    /// The seat of connection `conn` (`Some(None)`: a spectator); `None` when it is not here.
    pub fn seat_of(&self, conn: u64) -> Option<Option<Seat>> {
        self.conns.get(&conn).map(|c| c.seat)
    }

    /// The name a spectator connection gave in its hello.
    pub fn name_of(&self, conn: u64) -> Option<String> {
        self.conns.get(&conn).and_then(|c| c.name.clone())
    }

    /// Adds `newcomer` to a room at `view` and sends it `welcome`, then the events after `last_v`
    /// (and the readable chat) when the window still holds them all, or else a snapshot. Returns
    /// its connection id. Errors with `Gone` when its queue is already closed.
    pub fn connect(
        &mut self,
        newcomer: Newcomer,
        last_v: Option<i64>,
        view: &RoomState,
        catchup: Catchup<'_>,
    ) -> Result<u64, ConnectError> {
        let Newcomer { seat, .. } = newcomer;
        let welcome = Welcome {
            room_id: view.id,
            seat,
            role: if seat.is_some() {
                Role::Player
            } else {
                Role::Spectator
            },
            game: view.kind().as_str().to_owned(),
            version: view.version,
        };
        let mut frames: Vec<Arc<str>> = vec![protocol::frame("welcome", None, &welcome).into()];
        let version = view.version;
        let legal = self.legal_moves(view);
        match last_v {
            Some(last) if 0 <= last && last <= version && version - last <= MAX_REPLAY => {
                for logged in self.log.after(last) {
                    frames.push(frame_for(logged, seat, view, legal.as_deref()));
                }
                if last < version {
                    telemetry::resync("replay");
                }
                if !catchup.chat.is_empty() {
                    let history = ChatHistory {
                        messages: catchup.chat,
                    };
                    frames.push(protocol::frame("chat_history", None, &history).into());
                }
                // No snapshot says how many watch. A spectator's arrival changes the count, which
                // every connection is then told; a player's does not, so it is told here.
                let count = self.spectators();
                if seat.is_some() && count > 0 {
                    let spectators = SpectatorCount { count };
                    frames.push(protocol::frame("spectators", None, &spectators).into());
                }
            }
            _ => {
                let mut connected = catchup.connected.to_vec();
                if let Some(slot) = seat.and_then(|s| connected.get_mut(usize::from(s))) {
                    *slot = true;
                }
                let mut snapshot = view.snapshot(&connected, seat, legal.as_deref());
                snapshot.spectators = self.spectators() + u32::from(seat.is_none());
                snapshot.chat = catchup.chat;
                snapshot.clock = catchup.clock;
                frames.push(protocol::frame("snapshot", Some(version), &snapshot).into());
                telemetry::resync("snapshot");
            }
        }
        for frame in frames {
            // A fresh queue of OUTBOUND_CAPACITY holds all of these (the replay is bounded by
            // MAX_REPLAY); a smaller one is refused as Gone, like a stopped room.
            if newcomer.out.try_send(Outbound::Text(frame)).is_err() {
                return Err(ConnectError::Gone);
            }
        }
        let conn = self.next_conn;
        self.next_conn += 1;
        let Newcomer {
            bot,
            name,
            out,
            via,
            ..
        } = newcomer;
        self.conns.insert(
            conn,
            Conn {
                seat,
                bot,
                name,
                out,
                via,
            },
        );
        debug!(conn, ?seat, ?last_v, "connected");
        Ok(conn)
    }

    /// Forgets connection `conn` (it left).
    pub fn remove(&mut self, conn: u64) -> Option<Gone> {
        let gone = self.conns.remove(&conn)?;
        debug!(conn, "disconnected");
        Some(Gone {
            seat: gone.seat,
            bot: gone.bot,
        })
    }

    /// Sends the room's newly committed events to every connection, each connection's own frames
    /// (the seat on move gets the legal moves with the event that made the position), and keeps
    /// them for replays. Returns the connections dropped because their queue was full.
    ///
    /// What a feeder must guarantee: `committed` holds events exactly as stored, each version
    /// once, in order and contiguous, the first one right after the last version published before
    /// (or given to [`Fanout::new`]); and `view` is the room state after the last of them (it
    /// decides who is on move and the legal moves). The room task publishes after each commit.
    ///
    /// What each connection then gets: every version after the one it was welcomed at, once and
    /// in order, with no hole; or, from the first frame that does not fit its queue, nothing more
    /// (it is dropped there and resyncs from its `last_v`), so it never sees a later version
    /// without the earlier ones.
    pub fn publish(&mut self, committed: Vec<Logged>, view: &RoomState) -> Vec<Gone> {
        let Some(after) = committed.first().map(|logged| logged.v - 1) else {
            return Vec::new();
        };
        committed
            .into_iter()
            .for_each(|logged| self.log.push(logged));
        let legal = self.legal_moves(view);
        let mut dead = Vec::new();
        for (id, conn) in &self.conns {
            for logged in self.log.after(after) {
                let frame = frame_for(logged, conn.seat, view, legal.as_deref());
                if conn.out.try_send(Outbound::Text(frame)).is_err() {
                    dead.push(*id);
                    break;
                }
            }
        }
        self.drop_conns(dead)
    }

    /// Sends an unversioned frame (`presence`) to every connection; returns those dropped.
    pub fn broadcast(&mut self, frame: &Arc<str>) -> Vec<Gone> {
        self.send_where(|_| true, frame)
    }

    /// Sends an unversioned frame to the connections whose seat passes `to` (a chat channel's
    /// readers); returns those dropped.
    pub fn send_where(&mut self, to: impl Fn(Option<Seat>) -> bool, frame: &Arc<str>) -> Vec<Gone> {
        let dead: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, conn)| to(conn.seat))
            .filter(|(_, conn)| conn.out.try_send(Outbound::Text(frame.clone())).is_err())
            .map(|(id, _)| *id)
            .collect();
        self.drop_conns(dead)
    }

    /// Sends a frame (an answer) to connection `conn` alone; returns it if it was dropped.
    pub fn send(&mut self, conn: u64, frame: String) -> Vec<Gone> {
        let full = self
            .conns
            .get(&conn)
            .is_some_and(|c| c.out.try_send(Outbound::Text(frame.into())).is_err());
        if full {
            self.drop_conns(vec![conn])
        } else {
            Vec::new()
        }
    }

    /// Asks every connection's writer to close its socket with `code` and `reason` (the room
    /// task is stopping).
    pub fn close_all(&self, code: u16, reason: &str) {
        for conn in self.conns.values() {
            let _ = conn.out.try_send(Outbound::Close(code, reason.into()));
        }
    }

    /// Forgets connections a frame could not be sent to. One whose queue is full could not keep
    /// up: dropping its sender ends its writer, which closes the socket with 1013 so the client
    /// resyncs. One whose queue is closed has already gone (the client left, or the server is
    /// shutting down), which is no slowness of the client.
    fn drop_conns(&mut self, ids: Vec<u64>) -> Vec<Gone> {
        let mut gone = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(conn) = self.conns.remove(&id) {
                if conn.out.is_closed() {
                    debug!(conn = id, "disconnected");
                } else {
                    info!(conn = id, "connection dropped: its outbound queue is full");
                    telemetry::slow_drop();
                }
                gone.push(Gone {
                    seat: conn.seat,
                    bot: conn.bot,
                });
            }
        }
        gone
    }

    /// The legal moves of the seat on move at `view`. Computed once per position, since listing
    /// them can be the costliest thing a room does (long Khan jump chains).
    fn legal_moves(&mut self, view: &RoomState) -> Option<Arc<LegalMoves>> {
        view.seat_on_move()?;
        let key = view.position_version;
        if !matches!(&self.legal_cache, Some((at, _)) if *at == key) {
            self.legal_cache = Some((key, Arc::new(LegalMoves::of(&view.game))));
        }
        self.legal_cache.as_ref().map(|(_, legal)| legal.clone())
    }
}

/// The frame of a logged event for a connection of `seat`: the seat on move gets the legal moves
/// with the event that made the current position (`game_started`, `moved`, `taken_back`, or
/// `left` when a resignation passed the turn).
fn frame_for(
    logged: &Logged,
    seat: Option<Seat>,
    view: &RoomState,
    legal: Option<&LegalMoves>,
) -> Arc<str> {
    let personal = seat.is_some()
        && seat == view.seat_on_move()
        && logged.v == view.position_version
        && matches!(
            logged.event,
            Event::Moved { .. }
                | Event::GameStarted { .. }
                | Event::Left { .. }
                | Event::TakenBack { .. }
        );
    let Some(legal) = legal.filter(|_| personal) else {
        return logged.frame.clone();
    };
    /// The event's data with the legal moves added, written without copying them.
    #[derive(serde::Serialize)]
    struct WithLegalMoves<'a> {
        #[serde(flatten)]
        event: &'a Value,
        legal_moves: &'a RawValue,
        #[serde(skip_serializing_if = "Option::is_none")]
        legal_moves_complete: Option<bool>,
    }
    let data = logged.event.data();
    let with_legal = WithLegalMoves {
        event: &data,
        legal_moves: &legal.json,
        legal_moves_complete: (!legal.complete).then_some(false),
    };
    protocol::frame(logged.event.kind(), Some(logged.v), &with_legal).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Visibility;
    use crate::room::state::SeatChoice;
    use crate::rules::{AnyGame, GameKind, GameOptions, Rules};

    /// A two-player Ouk Chatrang room before anyone joined.
    fn empty_room() -> RoomState {
        let game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
        let start = game.position();
        let (id, code, options) = (uuid::Uuid::nil(), "abcdefgh".into(), serde_json::json!({}));
        RoomState::new(
            id,
            code,
            Visibility::Private,
            options,
            game,
            start,
            chrono::Utc::now(),
        )
    }

    /// `seat` joins `room`: its events, applied and logged at their versions.
    fn join(room: &mut RoomState, seat: u8) -> Vec<Logged> {
        let (_, events) = room.decide_join(&SeatChoice::Number(seat), None).unwrap();
        let mut logged = Vec::new();
        for event in events {
            let v = room.version + 1;
            room.apply(v, &event, chrono::Utc::now()).unwrap();
            logged.push(Logged::new(v, event));
        }
        logged
    }

    /// A connection of `seat` with room for `capacity` frames, and its queue.
    fn newcomer(seat: Option<Seat>, capacity: usize) -> (Newcomer, mpsc::Receiver<Outbound>) {
        let (out, frames) = mpsc::channel(capacity);
        let newcomer = Newcomer {
            seat,
            bot: false,
            name: None,
            out,
            via: None,
        };
        (newcomer, frames)
    }

    fn nothing_to_catch_up() -> Catchup<'static> {
        Catchup {
            connected: &[false, false],
            chat: Vec::new(),
            clock: None,
        }
    }

    /// The frames waiting in `frames`, as (t, v, whether they carry legal moves).
    fn received(frames: &mut mpsc::Receiver<Outbound>) -> Vec<(String, Option<i64>, bool)> {
        let mut seen = Vec::new();
        while let Ok(Outbound::Text(text)) = frames.try_recv() {
            let frame: Value = serde_json::from_str(&text).unwrap();
            let legal = frame["d"].get("legal_moves").is_some();
            let t = frame["t"].as_str().unwrap().to_owned();
            seen.push((t, frame["v"].as_i64(), legal));
        }
        seen
    }

    fn event(t: &str, v: i64, legal: bool) -> (String, Option<i64>, bool) {
        (t.to_owned(), Some(v), legal)
    }

    #[test]
    fn published_events_reach_each_connection_in_order_or_it_is_dropped() {
        let mut room = empty_room();
        let mut fanout = Fanout::new(join(&mut room, 0));
        let (watcher, mut watcher_frames) = newcomer(None, 64);
        let (white, mut white_frames) = newcomer(Some(0), 64);
        // Black's queue holds its welcome, its snapshot and one event more.
        let (black, mut black_frames) = newcomer(Some(1), 3);
        for conn in [watcher, white, black] {
            let catchup = nothing_to_catch_up();
            fanout.connect(conn, None, &room, catchup).unwrap();
        }
        let committed = join(&mut room, 1);
        assert_eq!(committed.len(), 2, "seat_taken, then game_started");
        let dropped = fanout.publish(committed, &room);

        let welcome = ("welcome".to_owned(), None, false);
        let snapshot = ("snapshot".to_owned(), Some(1), false);
        let seat_taken = event("seat_taken", 2, false);
        assert_eq!(
            received(&mut watcher_frames),
            [
                welcome.clone(),
                snapshot.clone(),
                seat_taken.clone(),
                event("game_started", 3, false)
            ]
        );
        assert_eq!(
            received(&mut white_frames)[2..],
            [seat_taken.clone(), event("game_started", 3, true)],
            "only the seat on move gets the legal moves"
        );
        assert_eq!(received(&mut black_frames), [welcome, snapshot, seat_taken]);
        assert_eq!(dropped.len(), 1, "Black could not take version 3");
        assert_eq!(dropped[0].seat, Some(1));
        assert_eq!(fanout.len(), 2);

        // Reconnecting after version 1, White is replayed versions 2 and 3, legal moves included,
        // then told that one spectator watches.
        let (white, mut white_frames) = newcomer(Some(0), 64);
        fanout
            .connect(white, Some(1), &room, nothing_to_catch_up())
            .unwrap();
        assert_eq!(
            received(&mut white_frames)[1..],
            [
                event("seat_taken", 2, false),
                event("game_started", 3, true),
                ("spectators".to_owned(), None, false)
            ]
        );
    }

    fn skipped(v: i64) -> Logged {
        Logged::new(v, Event::Skipped { seat: 0 })
    }

    #[test]
    fn only_the_events_a_reconnect_can_replay_are_kept() {
        let mut recent = RecentEvents::new((1..=300).map(skipped).collect());
        assert_eq!(recent.0.len(), MAX_REPLAY_EVENTS);
        assert_eq!(recent.0.front().map(|l| l.v), Some(300 - MAX_REPLAY + 1));
        recent.push(skipped(301));
        assert_eq!(recent.0.len(), MAX_REPLAY_EVENTS);
        // A client that saw version 301 - MAX_REPLAY (the oldest one replayed to) gets every
        // later version, in order.
        let replayed: Vec<i64> = recent.after(301 - MAX_REPLAY).map(|l| l.v).collect();
        assert_eq!(replayed, (302 - MAX_REPLAY..=301).collect::<Vec<_>>());
        assert_eq!(recent.after(301).count(), 0);
    }
}
