//! The room task: inbox -> decide -> store -> apply -> broadcast -> answer.
//!
//! One task per room is the only writer of its game, so commands need no locks and are totally
//! ordered. The task awaits only the database: it sends to connections with `try_send` and drops a
//! connection whose queue is full rather than wait for it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, error, info, info_span, warn};

use super::state::{RoomState, SeatChoice};
use super::token::{hash_token, new_seat_token};
use super::{
    ConnectError, Connected, INBOX_CAPACITY, JoinError, Joined, Outbound, Request, RoomHandle,
    RoomSummary,
};
use crate::protocol::{self, Ack, Code, Command, Event, Presence, Reject, Role, Welcome, close};
use crate::rules::{Rules, Seat};
use crate::store::{Commit, SeatRow, Store, StoreError, now};

/// At most this many missed events are replayed to a reconnecting client; beyond, it gets a
/// snapshot (which also keeps the replay inside the connection's outbound queue).
const MAX_REPLAY: i64 = (super::OUTBOUND_CAPACITY as i64) - 16;

/// How many answers that changed nothing (rejects, no-op acks) a room remembers for idempotent
/// retries. Accepted commands that made events are all remembered: they are in the event log.
const REMEMBERED_UNSTORED: usize = 256;

/// One event of the log, with its public frame serialized once.
pub(super) struct Logged {
    pub v: i64,
    pub event: Event,
    pub frame: Arc<str>,
}

impl Logged {
    pub fn new(v: i64, event: Event) -> Self {
        let frame = protocol::frame(event.kind(), Some(v), &event.data()).into();
        Logged { v, event, frame }
    }
}

/// The first answer given to a `(seat, cid)`, returned again on a retry.
#[derive(Clone, Debug)]
enum Answer {
    Ack(i64),
    Reject(Code, String),
}

/// The answers a room gives again to a repeated `(seat, cid)`.
#[derive(Default)]
pub(super) struct Answers {
    /// Commands that made events, with the version of their last event: as lasting as the events
    /// themselves (rebuilt from them after a restart).
    stored: HashMap<(Seat, String), i64>,
    /// Answers that changed nothing (rejects, and acks of commands without effect): only the latest
    /// [`REMEMBERED_UNSTORED`], oldest first in `order`, so a client cannot grow them without bound.
    unstored: HashMap<(Seat, String), Answer>,
    order: VecDeque<(Seat, String)>,
}

impl Answers {
    /// Remembers that the command `(seat, cid)` was accepted and its last event is version `v`.
    pub fn remember_stored(&mut self, seat: Seat, cid: String, v: i64) {
        self.stored.insert((seat, cid), v);
    }

    fn remember_unstored(&mut self, seat: Seat, cid: String, answer: Answer) {
        if self.order.len() == REMEMBERED_UNSTORED
            && let Some(old) = self.order.pop_front()
        {
            self.unstored.remove(&old);
        }
        self.order.push_back((seat, cid.clone()));
        self.unstored.insert((seat, cid), answer);
    }

    fn get(&self, seat: Seat, cid: &str) -> Option<Answer> {
        let key = (seat, cid.to_owned());
        match self.stored.get(&key) {
            Some(v) => Some(Answer::Ack(*v)),
            None => self.unstored.get(&key).cloned(),
        }
    }
}

struct Conn {
    seat: Option<Seat>,
    out: mpsc::Sender<Outbound>,
}

/// A staged change was not stored (the database is unreachable, or another writer changed the
/// room, which also marks the task stale); nothing changed.
struct NotStored;

/// A command's effect computed but not yet stored: the state after it and the rows to write.
pub(super) struct Staged {
    pub next: RoomState,
    pub commit: Commit,
}

/// Applies `events` to a copy of `state` and gathers the rows they add. `author` is the seat whose
/// request made them and the command's cid; `new_token` the token hash of a seat being taken.
pub(super) fn stage(
    state: &RoomState,
    events: &[Event],
    author: Option<(Seat, Option<&str>)>,
    new_token: Option<[u8; 32]>,
    at: DateTime<Utc>,
) -> Result<Staged, String> {
    let mut next = state.clone();
    for (event, v) in events.iter().zip(state.version + 1..) {
        next.apply(v, event, at)?;
    }
    let seat = author.map(|(seat, _)| seat);
    let seat_row = match (seat, new_token) {
        (Some(seat), Some(token_hash)) => {
            let slot = next
                .seats
                .get_mut(usize::from(seat))
                .ok_or_else(|| format!("seat {seat} does not exist"))?;
            slot.token_hash = Some(token_hash);
            Some(SeatRow {
                seat,
                name: slot.name.clone(),
                token_hash,
                joined_at: at,
            })
        }
        _ => None,
    };
    let cid = author.and_then(|(_, cid)| cid);
    let (rows, mv, counting, game) = state.rows_for(&next, events, seat, cid, at);
    let commit = Commit {
        room_id: state.id,
        expected_version: state.version,
        status: next.status,
        events: rows,
        seat: seat_row,
        mv,
        counting,
        game,
    };
    Ok(Staged { next, commit })
}

/// The room task's state.
pub(super) struct Actor {
    pub state: RoomState,
    pub log: Vec<Logged>,
    pub answers: Answers,
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    store: Store,
    /// Set when the database holds a newer version of the room than this task (another process
    /// wrote it): the task stops and the registry loads the room afresh.
    stale: bool,
    /// `state.version`, readable by connections without asking the task.
    published_version: Arc<AtomicI64>,
}

impl Actor {
    pub fn new(state: RoomState, log: Vec<Logged>, answers: Answers, store: Store) -> Self {
        let published_version = Arc::new(AtomicI64::new(state.version));
        Actor {
            state,
            log,
            answers,
            conns: HashMap::new(),
            next_conn: 1,
            store,
            stale: false,
            published_version,
        }
    }

    /// Starts the task and returns its handle.
    pub fn spawn(self) -> RoomHandle {
        let (tx, rx) = mpsc::channel(INBOX_CAPACITY);
        let handle = RoomHandle {
            id: self.state.id,
            invite_code: self.state.invite_code.clone(),
            kind: self.state.kind(),
            tx,
            version: self.published_version.clone(),
        };
        let span = info_span!("room", room_id = %self.state.id, game = %self.state.kind());
        tokio::spawn(self.run(rx).instrument(span));
        handle
    }

    async fn run(mut self, mut inbox: mpsc::Receiver<Request>) {
        debug!(version = self.state.version, "room task started");
        while let Some(request) = inbox.recv().await {
            match request {
                Request::Join {
                    choice,
                    name,
                    reply,
                } => {
                    let _ = reply.send(self.join(choice, name).await);
                }
                Request::Connect {
                    token,
                    last_v,
                    out,
                    reply,
                } => {
                    let _ = reply.send(self.connect(token, last_v, out));
                }
                Request::Disconnect { conn } => self.disconnect(conn),
                Request::Command { conn, cid, command } => self.command(conn, cid, command).await,
                Request::Summary { reply } => {
                    let _ = reply.send(self.summary());
                }
            }
            if self.stale {
                break;
            }
        }
        // Stopping with live connections: tell them to reconnect (the registry will reload us).
        for conn in self.conns.values() {
            let _ = conn
                .out
                .try_send(Outbound::Close(close::TRY_AGAIN, "room reloaded".into()));
        }
        debug!("room task stopped");
    }

    fn connected(&self) -> Vec<bool> {
        (0..self.state.seats.len())
            .map(|i| {
                self.conns
                    .values()
                    .any(|c| c.seat.map(usize::from) == Some(i))
            })
            .collect()
    }

    fn summary(&self) -> RoomSummary {
        let s = &self.state;
        RoomSummary {
            room_id: s.id,
            game: s.kind(),
            status: s.status.as_str().to_owned(),
            visibility: s.visibility.as_str().to_owned(),
            seats: s.seat_infos(&self.connected()),
            version: s.version,
            invite_code: s.invite_code.clone(),
            created_at: s.created_at,
        }
    }

    async fn join(
        &mut self,
        choice: SeatChoice,
        name: Option<String>,
    ) -> Result<Joined, JoinError> {
        let (seat, events) = self
            .state
            .decide_join(&choice, name)
            .map_err(JoinError::Refused)?;
        let (seat_token, token_hash) = new_seat_token();
        self.persist(&events, Some((seat, None)), Some(token_hash))
            .await
            .map_err(|NotStored| JoinError::Unavailable)?;
        info!(seat, "seat taken");
        Ok(Joined {
            room_id: self.state.id,
            seat,
            color: self.state.game.color(seat).to_owned(),
            seat_token,
        })
    }

    /// Stores `events`, then applies and broadcasts them. Returns the new version.
    async fn persist(
        &mut self,
        events: &[Event],
        author: Option<(Seat, Option<&str>)>,
        new_token: Option<[u8; 32]>,
    ) -> Result<i64, NotStored> {
        let Staged { next, commit } = stage(&self.state, events, author, new_token, now())
            .map_err(|e| {
                error!(error = %e, "a decided event does not apply: this is a bug");
                NotStored
            })?;
        if let Err(e) = self.store.commit(&commit).await {
            if let StoreError::Conflict { .. } = e {
                error!(error = %e, "room changed in the database by another writer; stopping");
                self.stale = true;
            } else {
                warn!(error = %e, "could not store a command");
            }
            return Err(NotStored);
        }
        let first_new = self.log.len();
        self.state = next;
        self.published_version
            .store(self.state.version, Ordering::Relaxed);
        for (event, v) in events.iter().zip(commit.expected_version + 1..) {
            self.log.push(Logged::new(v, event.clone()));
        }
        self.broadcast_from(first_new);
        Ok(self.state.version)
    }

    /// The frame of a logged event for a connection of `seat`: the seat on move gets the legal moves
    /// with the event that made the current position.
    fn frame_for(
        &self,
        logged: &Logged,
        seat: Option<Seat>,
        legal: &mut Option<Vec<String>>,
    ) -> Arc<str> {
        let personal = seat.is_some()
            && seat == self.state.seat_on_move()
            && logged.v == self.state.position_version
            && matches!(
                logged.event,
                Event::Moved { .. } | Event::GameStarted { .. }
            );
        if !personal {
            return logged.frame.clone();
        }
        let moves = legal.get_or_insert_with(|| self.state.game.legal_moves());
        let mut data = logged.event.data();
        if let Value::Object(map) = &mut data {
            map.insert("legal_moves".into(), Value::from(moves.clone()));
        }
        protocol::frame(logged.event.kind(), Some(logged.v), &data).into()
    }

    /// Sends every logged event from index `first` to every connection.
    fn broadcast_from(&mut self, first: usize) {
        let mut legal = None;
        let mut dead = Vec::new();
        for logged in &self.log[first..] {
            for (id, conn) in &self.conns {
                let frame = self.frame_for(logged, conn.seat, &mut legal);
                if conn.out.try_send(Outbound::Text(frame)).is_err() {
                    dead.push(*id);
                }
            }
        }
        self.drop_conns(dead);
    }

    /// Sends a frame to every connection (presence).
    fn broadcast_text(&mut self, text: Arc<str>) {
        let dead: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, conn)| conn.out.try_send(Outbound::Text(text.clone())).is_err())
            .map(|(id, _)| *id)
            .collect();
        self.drop_conns(dead);
    }

    /// Forgets connections that could not keep up: dropping their sender ends their writer, which
    /// closes the socket with 1013 so the client resyncs.
    fn drop_conns(&mut self, ids: Vec<u64>) {
        for id in ids {
            if let Some(conn) = self.conns.remove(&id) {
                info!(conn = id, "connection dropped: its outbound queue is full");
                self.presence_left(conn.seat);
            }
        }
    }

    fn presence_left(&mut self, seat: Option<Seat>) {
        if let Some(seat) = seat
            && !self.conns.values().any(|c| c.seat == Some(seat))
        {
            let text = protocol::frame(
                "presence",
                None,
                &Presence {
                    seat,
                    connected: false,
                },
            );
            self.broadcast_text(text.into());
        }
    }

    fn connect(
        &mut self,
        token: Option<String>,
        last_v: Option<i64>,
        out: mpsc::Sender<Outbound>,
    ) -> Result<Connected, ConnectError> {
        let seat = match token {
            None => None,
            Some(token) => Some(
                self.state
                    .seat_of_token(&hash_token(&token))
                    .ok_or(ConnectError::BadToken)?,
            ),
        };
        let conn = self.next_conn;
        self.next_conn += 1;
        let welcome = Welcome {
            room_id: self.state.id,
            seat,
            role: if seat.is_some() {
                Role::Player
            } else {
                Role::Spectator
            },
            game: self.state.kind().as_str().to_owned(),
            version: self.state.version,
        };
        let mut frames: Vec<Arc<str>> = vec![protocol::frame("welcome", None, &welcome).into()];
        let version = self.state.version;
        match last_v {
            Some(last) if (0..=version).contains(&last) && version - last <= MAX_REPLAY => {
                let mut legal = None;
                let first = usize::try_from(last).unwrap_or(0);
                // The log holds version i + 1 at index i.
                for logged in &self.log[first.min(self.log.len())..] {
                    frames.push(self.frame_for(logged, seat, &mut legal));
                }
            }
            _ => {
                let mut connected = self.connected();
                if let Some(seat) = seat {
                    connected[usize::from(seat)] = true;
                }
                let snapshot = self.state.snapshot(&connected, seat);
                frames.push(protocol::frame("snapshot", Some(version), &snapshot).into());
            }
        }
        for frame in frames {
            // A fresh queue holds all of these: the replay is bounded by MAX_REPLAY.
            if out.try_send(Outbound::Text(frame)).is_err() {
                return Err(ConnectError::Gone);
            }
        }
        let first_of_seat = seat.is_some_and(|s| !self.conns.values().any(|c| c.seat == Some(s)));
        self.conns.insert(conn, Conn { seat, out });
        debug!(conn, ?seat, ?last_v, "connected");
        if let (true, Some(seat)) = (first_of_seat, seat) {
            let text = protocol::frame(
                "presence",
                None,
                &Presence {
                    seat,
                    connected: true,
                },
            );
            self.broadcast_text(text.into());
        }
        Ok(Connected { conn, seat })
    }

    fn disconnect(&mut self, conn: u64) {
        if let Some(gone) = self.conns.remove(&conn) {
            debug!(conn, "disconnected");
            self.presence_left(gone.seat);
        }
    }

    fn send(&mut self, conn: u64, text: String) {
        let full = self
            .conns
            .get(&conn)
            .is_some_and(|c| c.out.try_send(Outbound::Text(text.into())).is_err());
        if full {
            self.drop_conns(vec![conn]);
        }
    }

    fn reject(&mut self, conn: u64, cid: &str, code: Code, message: String) {
        let reject = Reject {
            cid: Some(cid.to_owned()),
            code,
            message,
            v: self.state.version,
        };
        self.send(conn, protocol::frame("reject", None, &reject));
    }

    fn ack(&mut self, conn: u64, cid: &str, v: i64) {
        self.send(
            conn,
            protocol::frame(
                "ack",
                None,
                &Ack {
                    cid: cid.to_owned(),
                    v,
                },
            ),
        );
    }

    async fn command(&mut self, conn: u64, cid: String, command: Command) {
        let Some(seat) = self.conns.get(&conn).map(|c| c.seat) else {
            return;
        };
        let Some(seat) = seat else {
            self.reject(
                conn,
                &cid,
                Code::NotAPlayer,
                "spectators cannot send commands".into(),
            );
            return;
        };
        if let Some(answer) = self.answers.get(seat, &cid) {
            debug!(cid, "repeated cid: same answer");
            match answer {
                Answer::Ack(v) => self.ack(conn, &cid, v),
                Answer::Reject(code, message) => self.reject(conn, &cid, code, message),
            }
            return;
        }
        let events = match self.state.decide(seat, &command) {
            Ok(events) => events,
            Err(refusal) => {
                debug!(cid, code = refusal.code.as_str(), "command refused");
                let answer = Answer::Reject(refusal.code, refusal.message.clone());
                self.answers.remember_unstored(seat, cid.clone(), answer);
                self.reject(conn, &cid, refusal.code, refusal.message);
                return;
            }
        };
        if events.is_empty() {
            let v = self.state.version;
            self.answers
                .remember_unstored(seat, cid.clone(), Answer::Ack(v));
            self.ack(conn, &cid, v);
            return;
        }
        match self.persist(&events, Some((seat, Some(&cid))), None).await {
            Ok(v) => {
                self.answers.remember_stored(seat, cid.clone(), v);
                self.ack(conn, &cid, v);
            }
            Err(NotStored) => {
                // Not remembered: a retry of this cid must try again.
                let message = "could not store the command; retry it".to_owned();
                self.reject(conn, &cid, Code::Unavailable, message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstored_answers_are_bounded_and_stored_acks_are_kept() {
        let mut answers = Answers::default();
        answers.remember_stored(0, "move-1".into(), 4);
        for i in 0..=REMEMBERED_UNSTORED {
            answers.remember_unstored(1, format!("offer-{i}"), Answer::Ack(4));
        }
        assert!(
            answers.get(1, "offer-0").is_none(),
            "the oldest unstored answer is forgotten"
        );
        assert!(matches!(
            answers.get(1, &format!("offer-{REMEMBERED_UNSTORED}")),
            Some(Answer::Ack(4))
        ));
        assert_eq!(answers.unstored.len(), REMEMBERED_UNSTORED);
        assert!(matches!(answers.get(0, "move-1"), Some(Answer::Ack(4))));
        assert!(answers.get(1, "move-1").is_none(), "cids are per seat");
    }
}
