//! The room task: inbox -> decide -> store -> apply -> broadcast -> answer.
//!
//! One task per room is the only writer of its game, so commands need no locks and are totally
//! ordered. The task awaits only the database: it sends to connections with `try_send` and drops a
//! connection whose queue is full rather than wait for it. It stops (and the registry loads the room
//! afresh when it is next needed) when it has been idle with nobody connected for a while
//! (`RoomSettings::idle`), or when a commit's outcome is unknown. A room still waiting for players
//! when its `RoomSettings::waiting_ttl` runs out ends as `aborted`.
//!
//! Abandonment (docs/protocol.md, "Abandonment"): the task notes on its game clock when each seat's
//! last connection left; once the seat on move of a timed game has been away for its grace period,
//! `claim_victory` / `claim_draw {"reason": "abandoned"}` end the game (or, with three players, are
//! votes that the seat leave); a waiting room whose only player is away expires after
//! `RoomSettings::abandoned_waiting_room`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tracing::{Instrument, debug, error, info, info_span, warn};

use super::answers::{Answer, Answers};
use super::bot;
use super::commit::{Author, NewSeat, stage};
use super::state::{Absence, Decision, LegalMoves, RoomState, SeatChoice, lag_compensation_ms};
use super::token::{hash_token, new_seat_token};
use super::{
    BotConnected, ConnectError, Connected, INBOX_CAPACITY, JoinError, Joined, Outbound, Request,
    RoomHandle, RoomSettings, RoomSummary,
};
use crate::bot::Level;
use crate::protocol::{
    self, Ack, ChatChannel, ChatHistory, ChatMessage, Code, Command, Event, Presence, Reject,
    ResultInfo, Role, Welcome, close,
};
use crate::rules::{EndReason, Rules, Seat};
use crate::store::{ChatRow, RoomStatus, Store, now};
use crate::telemetry;

/// At most this many missed events are replayed to a reconnecting client; beyond, it gets a
/// snapshot (which also keeps the replay inside the connection's outbound queue).
const MAX_REPLAY: i64 = (super::OUTBOUND_CAPACITY as i64) - 16;

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

/// [`MAX_REPLAY`] as a count.
const MAX_REPLAY_EVENTS: usize = MAX_REPLAY as usize;

struct Conn {
    seat: Option<Seat>,
    /// Whether this is the room's own bot connection (which does not keep the room in memory).
    bot: bool,
    /// The name a spectator gave in its hello, for its chat messages.
    name: Option<String>,
    out: mpsc::Sender<Outbound>,
}

/// How many recent messages per channel a room keeps for `snapshot` and `chat_history`.
pub(super) const CHAT_HISTORY: usize = 50;

/// The longest spectator name, in characters (as for seat names).
const MAX_NAME_CHARS: usize = 32;

/// The recent chat of one room: per channel, the latest [`CHAT_HISTORY`] messages with their
/// `seq`, oldest first.
#[derive(Default)]
pub(super) struct RecentChat {
    players: VecDeque<(i64, ChatMessage)>,
    spectators: VecDeque<(i64, ChatMessage)>,
    /// The `seq` of the last message stored.
    last_seq: i64,
}

impl RecentChat {
    /// The history read back from the store: both channels' latest rows, and the last `seq`.
    pub fn from_rows(rows: Vec<ChatRow>, last_seq: i64) -> Self {
        let mut chat = RecentChat {
            last_seq,
            ..RecentChat::default()
        };
        for row in rows {
            let channel = match row.channel.as_str() {
                "players" => ChatChannel::Players,
                "spectators" => ChatChannel::Spectators,
                _ => continue,
            };
            let message = ChatMessage {
                channel,
                seat: row.seat,
                name: row.name,
                text: row.text,
                at: row.created_at,
            };
            chat.push(row.seq, message);
        }
        chat
    }

    fn push(&mut self, seq: i64, message: ChatMessage) {
        let queue = match message.channel {
            ChatChannel::Players => &mut self.players,
            ChatChannel::Spectators => &mut self.spectators,
        };
        queue.push_back((seq, message));
        while queue.len() > CHAT_HISTORY {
            queue.pop_front();
        }
    }

    /// The messages a connection of `seat` may read, oldest first.
    fn readable(&self, seat: Option<Seat>) -> Vec<ChatMessage> {
        let mut all: Vec<&(i64, ChatMessage)> = self.players.iter().collect();
        if RoomState::may_read_chat(seat, ChatChannel::Spectators) {
            all.extend(self.spectators.iter());
        }
        all.sort_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, m)| m.clone()).collect()
    }
}

/// A spectator's name from its hello: control characters removed, trimmed, at most
/// [`MAX_NAME_CHARS`] characters; `None` when nothing is left.
fn spectator_name(name: Option<String>) -> Option<String> {
    let name: String = name?.chars().filter(|c| !c.is_control()).collect();
    let name: String = name.trim().chars().take(MAX_NAME_CHARS).collect();
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// A staged change was not stored, or whether it was is unknown; the task is then marked stale.
struct NotStored;

/// The room task's state.
pub(super) struct Actor {
    state: RoomState,
    log: RecentEvents,
    answers: Answers,
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    store: Store,
    /// Set when this task's state may differ from the database (a commit failed, so it may or may
    /// not have been written): the task stops and the registry loads the room afresh.
    stale: bool,
    /// `state.version`, readable by connections without asking the task.
    published_version: Arc<AtomicI64>,
    /// The legal moves of the seat on move at a position version (see [`Actor::legal_moves`]).
    legal_cache: Option<(i64, Arc<LegalMoves>)>,
    settings: RoomSettings,
    chat: RecentChat,
    /// The game clock's reading (`settings.clock`, ms) at the last event that set the clocks, or
    /// when this task started: the running seat's time counts from here. A restored room starts
    /// counting afresh, so the time the server was down is charged to nobody.
    clock_mark: u64,
    /// Per seat: the game clock's reading (ms) when its last connection left, or when this task
    /// started if it has had none since; `None` while it is connected. For abandonment claims and
    /// the expiry of a waiting room whose creator left.
    away_since: Vec<Option<u64>>,
    /// The seat the Khan-Tsin votes of `claim_victory` are against, and who voted (in memory
    /// only: a reload, the seat's return or a change of the seat on move starts afresh).
    votes_against: Option<Seat>,
    votes: Vec<Seat>,
    /// This task's own handle, set by [`Actor::spawn`]: the bots it starts talk to it.
    handle: Option<RoomHandle>,
}

/// What woke the room task.
enum Wake {
    Request(Option<Request>),
    Waited,
    Flag,
}

/// Whether an event sets the clocks (a timed room's running seat changes with it).
fn sets_clock(event: &Event) -> bool {
    matches!(
        event,
        Event::GameStarted { clock: Some(_), .. }
            | Event::Moved { clock: Some(_), .. }
            | Event::Left { clock: Some(_), .. }
            | Event::GameOver { clock: Some(_), .. }
    )
}

impl Actor {
    pub fn new(
        state: RoomState,
        log: Vec<Logged>,
        answers: Answers,
        store: Store,
        settings: RoomSettings,
    ) -> Self {
        let published_version = Arc::new(AtomicI64::new(state.version));
        let clock_mark = settings.clock.now_ms();
        let away_since = vec![Some(clock_mark); state.seats.len()];
        Actor {
            clock_mark,
            away_since,
            votes_against: None,
            votes: Vec::new(),
            handle: None,
            state,
            log: RecentEvents::new(log),
            answers,
            conns: HashMap::new(),
            next_conn: 1,
            store,
            stale: false,
            published_version,
            legal_cache: None,
            settings,
            chat: RecentChat::default(),
        }
    }

    /// The same task with the room's recent chat (read from the store at a restore).
    pub fn with_chat(mut self, chat: RecentChat) -> Self {
        self.chat = chat;
        self
    }

    /// The room this task would run.
    pub fn room_id(&self) -> uuid::Uuid {
        self.state.id
    }

    /// Starts the task, and the drivers of its bots, and returns its handle.
    pub fn spawn(mut self) -> RoomHandle {
        let (tx, rx) = mpsc::channel(INBOX_CAPACITY);
        let handle = RoomHandle {
            id: self.state.id,
            invite_code: self.state.invite_code.clone(),
            kind: self.state.kind(),
            tx,
            version: self.published_version.clone(),
        };
        self.handle = Some(handle.clone());
        for (seat, slot) in self.state.seats.iter().enumerate() {
            if let (Some(level), Ok(seat)) = (slot.bot, Seat::try_from(seat)) {
                self.start_bot(seat, level);
            }
        }
        let span = info_span!("room", room_id = %self.state.id, game = %self.state.kind());
        tokio::spawn(self.run(rx).instrument(span));
        handle
    }

    /// Starts the driver of the bot at `level` in `seat`.
    fn start_bot(&self, seat: Seat, level: Level) {
        if let Some(handle) = &self.handle {
            bot::driver::spawn(handle.clone(), seat, level, self.settings.bots.clone());
        }
    }

    /// Whether the room may leave memory when its wait runs out: nobody but its bots is
    /// connected, and no bot is about to move (a game between bots plays on while nobody
    /// watches).
    fn may_idle(&self) -> bool {
        let bot_on_move = self
            .state
            .seat_on_move()
            .and_then(|seat| self.state.seats.get(usize::from(seat)))
            .is_some_and(|slot| slot.bot.is_some());
        !bot_on_move && self.conns.values().all(|conn| conn.bot)
    }

    async fn run(mut self, mut inbox: mpsc::Receiver<Request>) {
        debug!(version = self.state.version, "room task started");
        let game = self.state.kind().as_str();
        telemetry::room(game, self.state.status.as_str(), 1.0);
        let clock = self.settings.clock.clone();
        loop {
            // A room whose clock runs stays in memory: its deadline must fire.
            let deadline = match (
                self.state.clock_deadline(self.clock_mark),
                self.abandoned_waiting_deadline(),
            ) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let idle = (self.may_idle() && deadline.is_none()).then_some(self.settings.idle);
            let expiry = self.waiting_time_left();
            let wait = match (idle, expiry) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let flag = async {
                match deadline {
                    Some(deadline) => clock.sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            let next = async {
                match wait {
                    Some(wait) => tokio::time::timeout(wait, inbox.recv())
                        .await
                        .map_or(Wake::Waited, Wake::Request),
                    None => Wake::Request(inbox.recv().await),
                }
            };
            let wake = tokio::select! {
                () = flag => Wake::Flag,
                wake = next => wake,
            };
            let request = match wake {
                Wake::Flag => {
                    if self
                        .abandoned_waiting_deadline()
                        .is_some_and(|at| clock.now_ms() >= at)
                    {
                        info!("the creator of a waiting room left and did not come back");
                        self.expire().await;
                    } else {
                        self.flag().await;
                    }
                    if self.stale {
                        telemetry::eviction("reload");
                        break;
                    }
                    continue;
                }
                Wake::Request(request) => request,
                Wake::Waited if self.waiting_time_left() == Some(Duration::ZERO) => {
                    self.expire().await;
                    continue;
                }
                Wake::Waited => {
                    debug!("idle with nobody connected: leaving memory");
                    telemetry::eviction("idle");
                    break;
                }
            };
            let Some(request) = request else { break };
            self.handle(request).await;
            if self.stale {
                telemetry::eviction("reload");
                break;
            }
        }
        telemetry::room(game, self.state.status.as_str(), -1.0);
        // From here on the handle reads as closed, so the registry loads the room afresh; what is
        // already queued is answered "gone".
        inbox.close();
        while let Ok(request) = inbox.try_recv() {
            match request {
                Request::Join { reply, .. } => {
                    let _ = reply.send(Err(JoinError::Unavailable));
                }
                Request::Connect { reply, .. } => {
                    let _ = reply.send(Err(ConnectError::Gone));
                }
                Request::ConnectBot { reply, .. } => {
                    let _ = reply.send(Err(ConnectError::Gone));
                }
                Request::Command { conn, cid, .. } => {
                    let message = "the room is reloading; retry the same cid".to_owned();
                    self.reject(conn, &cid, Code::Unavailable, message);
                }
                Request::Disconnect { .. } | Request::Summary { .. } => {}
            }
        }
        for conn in self.conns.values() {
            let _ = conn
                .out
                .try_send(Outbound::Close(close::TRY_AGAIN, "room reloading".into()));
        }
        debug!("room task stopped");
    }

    /// How long a waiting room may still wait for its players; `None` once it is not waiting.
    fn waiting_time_left(&self) -> Option<Duration> {
        if self.state.status != RoomStatus::Waiting {
            return None;
        }
        let waited = (now() - self.state.created_at).to_std().unwrap_or_default();
        Some(self.settings.waiting_ttl.saturating_sub(waited))
    }

    /// When (game clock ms) a waiting room whose only player has no connection expires; `None`
    /// unless the room is waiting with one seat taken and that seat away.
    fn abandoned_waiting_deadline(&self) -> Option<u64> {
        if self.state.status != RoomStatus::Waiting {
            return None;
        }
        // Bots wait forever: only the people who took a seat count.
        let mut taken = self
            .state
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.taken && s.bot.is_none());
        let (creator, _) = taken.next()?;
        if taken.next().is_some() {
            return None;
        }
        let since = (*self.away_since.get(creator)?)?;
        let ttl =
            u64::try_from(self.settings.abandoned_waiting_room.as_millis()).unwrap_or(u64::MAX);
        Some(since.saturating_add(ttl))
    }

    /// The grace period of this room's absent player on move; `None` in an untimed room.
    fn grace_ms(&self) -> Option<u64> {
        let clocks = self.state.clock.as_ref()?;
        let grace = self.settings.grace(u64::from(clocks.settings.initial_s));
        Some(u64::try_from(grace.as_millis()).unwrap_or(u64::MAX))
    }

    /// The seat on move when it has had no connection for the grace period of a timed game in
    /// play: the others may then claim against it.
    fn claimable(&self) -> Option<Seat> {
        let grace = self.grace_ms()?;
        let seat = self.state.seat_on_move()?;
        let since = (*self.away_since.get(usize::from(seat))?)?;
        (self.settings.clock.now_ms().saturating_sub(since) >= grace).then_some(seat)
    }

    /// What the claims against an absent seat need to know: the claimable seat, and the votes
    /// against it (votes against another seat, or from before it was claimable, do not count).
    fn absence(&self) -> Absence<'_> {
        let claimable = self.claimable();
        let votes = match claimable {
            Some(_) if claimable == self.votes_against => self.votes.as_slice(),
            _ => &[],
        };
        Absence { claimable, votes }
    }

    /// The game clock's reading now, and the time since the last clock event.
    fn clock_now(&self) -> (u64, u64) {
        let now_ms = self.settings.clock.now_ms();
        (now_ms, now_ms.saturating_sub(self.clock_mark))
    }

    /// Ends the game on time if the running seat's time is used up (the deadline fired, or a
    /// command came in after it): the flag is stored and broadcast like any event.
    async fn flag(&mut self) {
        let (now_ms, elapsed) = self.clock_now();
        let Some(events) = self.state.decide_flag(elapsed, now()) else {
            return;
        };
        let flagged = self.state.clock.as_ref().and_then(|c| c.running);
        if self.persist(&events, None, None, None).await.is_ok() {
            self.clock_mark = now_ms;
            info!(seat = ?flagged, "flag: time ran out");
        }
    }

    /// Ends a room nobody joined in time, as `aborted`.
    async fn expire(&mut self) {
        let event = Event::GameOver {
            result: ResultInfo {
                winner: None,
                reason: EndReason::Aborted,
            },
            clock: None,
        };
        if self.persist(&[event], None, None, None).await.is_ok() {
            info!("waiting room expired");
        }
    }

    async fn handle(&mut self, request: Request) {
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
                name,
                out,
                reply,
            } => {
                let _ = reply.send(self.connect(None, token, last_v, name, out));
            }
            Request::ConnectBot { seat, out, reply } => {
                let connected = self.connect(Some(seat), None, None, None, out);
                let _ = reply.send(connected.map(|connected| BotConnected {
                    conn: connected.conn,
                    game: self.state.game.clone(),
                    position_version: self.state.position_version,
                    playing: self.state.status == RoomStatus::Playing,
                }));
            }
            Request::Disconnect { conn } => self.disconnect(conn),
            Request::Command {
                conn,
                cid,
                command,
                received,
                rtt_ms,
            } => self.command(conn, cid, command, received, rtt_ms).await,
            Request::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
        }
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
        let (seat, mut events) = self
            .state
            .decide_join(&choice, name)
            .map_err(JoinError::Refused)?;
        let (now_ms, _) = self.clock_now();
        self.state.stamp_clocks(&mut events, 0, 0, now());
        let (seat_token, token_hash) = new_seat_token();
        let author = Author { seat, cid: None };
        let new_seat = NewSeat { seat, token_hash };
        self.persist(&events, Some(author), Some(new_seat), None)
            .await
            .map_err(|NotStored| JoinError::Unavailable)?;
        if events.iter().any(sets_clock) {
            self.clock_mark = now_ms;
        }
        info!(seat, "seat taken");
        Ok(Joined {
            room_id: self.state.id,
            seat,
            color: self.state.game.color(seat).to_owned(),
            seat_token,
        })
    }

    /// Stores `events`, then applies and broadcasts them. Returns the new version. `received` is
    /// when a move's frame arrived, for the move latency metrics.
    async fn persist(
        &mut self,
        events: &[Event],
        author: Option<Author<'_>>,
        new_seat: Option<NewSeat>,
        received: Option<tokio::time::Instant>,
    ) -> Result<i64, NotStored> {
        let (version_before, status_before) = (self.state.version, self.state.status);
        let commit = match stage(&mut self.state, events, author, new_seat, now()) {
            Ok(commit) => commit,
            Err(e) => {
                error!(error = %e, "a decided event does not apply: this is a bug");
                self.discard_staged(version_before, status_before);
                return Err(NotStored);
            }
        };
        let writing = tokio::time::Instant::now();
        let written = self.store.commit(&commit).await;
        telemetry::db_write(writing.elapsed());
        if let Err(e) = written {
            // The transaction may have been committed before the error reached us (a connection
            // lost during COMMIT): only the database knows, so reload from it.
            warn!(error = %e, "a commit failed; the room reloads from the database");
            self.discard_staged(version_before, status_before);
            return Err(NotStored);
        }
        if let Some(received) = received {
            telemetry::move_stage("committed", received.elapsed());
        }
        if self.state.status != status_before {
            let game = self.state.kind().as_str();
            telemetry::room(game, status_before.as_str(), -1.0);
            telemetry::room(game, self.state.status.as_str(), 1.0);
        }
        self.published_version
            .store(self.state.version, Ordering::Relaxed);
        for (v, event) in (commit.expected_version + 1..).zip(events) {
            self.log.push(Logged::new(v, event.clone()));
        }
        self.broadcast_from(commit.expected_version);
        if let Some(received) = received {
            telemetry::move_stage("broadcast", received.elapsed());
        }
        Ok(self.state.version)
    }

    /// After a staging or commit that failed: the state is ahead of the database (staging
    /// changes it in place), so the room is marked stale and reloads from the database before
    /// anything else is decided. Until then only the version (in the `unavailable` reject) and
    /// the status (in the rooms gauge) are read: they go back to what is stored.
    fn discard_staged(&mut self, version: i64, status: RoomStatus) {
        self.state.version = version;
        self.state.status = status;
        self.stale = true;
    }

    /// The frame of a logged event for a connection of `seat`: the seat on move gets the legal moves
    /// with the event that made the current position (`game_started`, `moved`, or `left` when a
    /// resignation passed the turn).
    fn frame_for(
        &self,
        logged: &Logged,
        seat: Option<Seat>,
        legal: Option<&LegalMoves>,
    ) -> Arc<str> {
        let personal = seat.is_some()
            && seat == self.state.seat_on_move()
            && logged.v == self.state.position_version
            && matches!(
                logged.event,
                Event::Moved { .. } | Event::GameStarted { .. } | Event::Left { .. }
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

    /// The legal moves of the seat on move. Computed once per position, since listing them can be
    /// the costliest thing a room does (long Khan jump chains).
    fn legal_moves(&mut self) -> Option<Arc<LegalMoves>> {
        self.state.seat_on_move()?;
        let key = self.state.position_version;
        if !matches!(&self.legal_cache, Some((at, _)) if *at == key) {
            self.legal_cache = Some((key, Arc::new(LegalMoves::of(&self.state.game))));
        }
        self.legal_cache.as_ref().map(|(_, legal)| legal.clone())
    }

    /// Sends every logged event after version `after` to every connection. A connection gets all of
    /// them in order or, from the first that does not fit its queue, none: it is dropped there, so
    /// it can never see a later version without the earlier ones.
    fn broadcast_from(&mut self, after: i64) {
        let legal = self.legal_moves();
        let mut dead = Vec::new();
        for (id, conn) in &self.conns {
            for logged in self.log.after(after) {
                let frame = self.frame_for(logged, conn.seat, legal.as_deref());
                if conn.out.try_send(Outbound::Text(frame)).is_err() {
                    dead.push(*id);
                    break;
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

    /// Forgets connections a frame could not be sent to. One whose queue is full could not keep
    /// up: dropping its sender ends its writer, which closes the socket with 1013 so the client
    /// resyncs. One whose queue is closed has already gone (the client left, or the server is
    /// shutting down), which is no slowness of the client.
    fn drop_conns(&mut self, ids: Vec<u64>) {
        for id in ids {
            if let Some(conn) = self.conns.remove(&id) {
                if conn.out.is_closed() {
                    debug!(conn = id, "disconnected");
                } else {
                    info!(conn = id, "connection dropped: its outbound queue is full");
                    telemetry::slow_drop();
                }
                // A bot's driver ends with its connection; the room still needs its moves.
                let bot = conn
                    .seat
                    .filter(|_| conn.bot)
                    .and_then(|seat| Some((seat, self.state.seats.get(usize::from(seat))?.bot?)));
                if let Some((seat, level)) = bot {
                    self.start_bot(seat, level);
                }
                self.presence_left(conn.seat);
            }
        }
    }

    fn presence_left(&mut self, seat: Option<Seat>) {
        if let Some(seat) = seat
            && !self.conns.values().any(|c| c.seat == Some(seat))
        {
            if let Some(slot) = self.away_since.get_mut(usize::from(seat)) {
                *slot = Some(self.settings.clock.now_ms());
            }
            let claimable_at = self
                .grace_ms()
                .filter(|_| self.state.status == RoomStatus::Playing)
                .and_then(|ms| i64::try_from(ms).ok())
                .map(|ms| now() + chrono::Duration::milliseconds(ms));
            let text = protocol::frame(
                "presence",
                None,
                &Presence {
                    seat,
                    connected: false,
                    claimable_at,
                },
            );
            self.broadcast_text(text.into());
        }
    }

    fn connect(
        &mut self,
        bot: Option<Seat>,
        token: Option<String>,
        last_v: Option<i64>,
        name: Option<String>,
        out: mpsc::Sender<Outbound>,
    ) -> Result<Connected, ConnectError> {
        // A room's own bots always get in: without them its game could not go on.
        if bot.is_none() && self.conns.len() >= self.settings.max_connections {
            return Err(ConnectError::Crowded(self.settings.max_connections));
        }
        let seat = match (bot, token) {
            (Some(seat), _) => {
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
            (None, None) => None,
            (None, Some(token)) => Some(
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
            Some(last) if 0 <= last && last <= version && version - last <= MAX_REPLAY => {
                let legal = self.legal_moves();
                for logged in self.log.after(last) {
                    frames.push(self.frame_for(logged, seat, legal.as_deref()));
                }
                if last < version {
                    telemetry::resync("replay");
                }
                let messages = self.chat.readable(seat);
                if !messages.is_empty() {
                    let history = ChatHistory { messages };
                    frames.push(protocol::frame("chat_history", None, &history).into());
                }
            }
            _ => {
                let mut connected = self.connected();
                if let Some(slot) = seat.and_then(|s| connected.get_mut(usize::from(s))) {
                    *slot = true;
                }
                let legal = self.legal_moves();
                let mut snapshot = self.state.snapshot(&connected, seat, legal.as_deref());
                snapshot.chat = self.chat.readable(seat);
                snapshot.clock = self.state.clock_view(self.clock_now().1, now());
                frames.push(protocol::frame("snapshot", Some(version), &snapshot).into());
                telemetry::resync("snapshot");
            }
        }
        for frame in frames {
            // A fresh queue holds all of these: the replay is bounded by MAX_REPLAY.
            if out.try_send(Outbound::Text(frame)).is_err() {
                return Err(ConnectError::Gone);
            }
        }
        let first_of_seat = seat.is_some_and(|s| !self.conns.values().any(|c| c.seat == Some(s)));
        let name = if seat.is_some() {
            None
        } else {
            spectator_name(name)
        };
        self.conns.insert(
            conn,
            Conn {
                seat,
                bot: bot.is_some(),
                name,
                out,
            },
        );
        debug!(conn, ?seat, ?last_v, "connected");
        if let (true, Some(seat)) = (first_of_seat, seat) {
            if let Some(slot) = self.away_since.get_mut(usize::from(seat)) {
                *slot = None;
            }
            if self.votes_against == Some(seat) {
                self.votes.clear();
                self.votes_against = None;
            }
            let text = protocol::frame(
                "presence",
                None,
                &Presence {
                    seat,
                    connected: true,
                    claimable_at: None,
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

    fn answer(&mut self, conn: u64, cid: &str, answer: Answer) {
        match answer {
            Answer::Ack(v) => self.ack(conn, cid, v),
            Answer::Reject(code, message) => self.reject(conn, cid, code, message),
        }
    }

    /// A chat message from connection `conn` (of `seat`, or a spectator's), checked and cleaned by
    /// [`RoomState::decide`]: stored, sent to every connection that reads its channel (the
    /// writer's included), acknowledged with the room's current version (chat makes no event). A
    /// player's cid is remembered, so that a repeat gets the same answer and the message is not
    /// repeated; spectators' cids are not remembered.
    async fn chat(
        &mut self,
        conn: u64,
        seat: Option<Seat>,
        cid: String,
        channel: ChatChannel,
        text: String,
    ) {
        let name = match seat {
            Some(seat) => self
                .state
                .seats
                .get(usize::from(seat))
                .and_then(|slot| slot.name.clone()),
            None => self.conns.get(&conn).and_then(|c| c.name.clone()),
        };
        // A failed insert may still have been stored: never reuse its seq.
        self.chat.last_seq += 1;
        let row = ChatRow {
            seq: self.chat.last_seq,
            channel: channel.as_str().to_owned(),
            seat,
            name: name.clone(),
            text: text.clone(),
            created_at: now(),
        };
        if let Err(e) = self.store.insert_chat(self.state.id, &row).await {
            warn!(error = %e, "a chat message could not be stored");
            telemetry::command("chat", Some(Code::Unavailable.as_str()));
            let message = "could not store the message; send it again".to_owned();
            self.reject(conn, &cid, Code::Unavailable, message);
            return;
        }
        let message = ChatMessage {
            channel,
            seat,
            name,
            text,
            at: row.created_at,
        };
        let frame: Arc<str> = protocol::frame("chat", None, &message).into();
        let dead: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| RoomState::may_read_chat(c.seat, channel))
            .filter(|(_, c)| c.out.try_send(Outbound::Text(frame.clone())).is_err())
            .map(|(id, _)| *id)
            .collect();
        self.drop_conns(dead);
        self.chat.push(row.seq, message);
        telemetry::command("chat", None);
        let answer = Answer::Ack(self.state.version);
        if let Some(seat) = seat {
            self.answers
                .remember_unstored(seat, cid.clone(), answer.clone());
        }
        self.answer(conn, &cid, answer);
    }

    async fn command(
        &mut self,
        conn: u64,
        cid: String,
        command: Command,
        received: tokio::time::Instant,
        rtt_ms: Option<u64>,
    ) {
        let Some(viewer) = self.conns.get(&conn).map(|c| c.seat) else {
            return;
        };
        if let Some(answer) = viewer.and_then(|seat| self.answers.get(seat, &cid)) {
            debug!(cid, "repeated cid: same answer");
            self.answer(conn, &cid, answer);
            return;
        }
        // A command after the running seat's deadline comes too late: the flag goes first.
        self.flag().await;
        if self.stale {
            let message = "could not store the command; retry the same cid".to_owned();
            self.reject(conn, &cid, Code::Unavailable, message);
            return;
        }
        let (now_ms, elapsed) = self.clock_now();
        let answer = match self.state.decide(viewer, &command, self.absence()) {
            Err(refusal) => {
                debug!(cid, code = refusal.code.as_str(), "command refused");
                Answer::Reject(refusal.code, refusal.message)
            }
            Ok(Decision::Chat { channel, text }) => {
                return self.chat(conn, viewer, cid, channel, text).await;
            }
            Ok(Decision::Vote { against, voters }) => {
                debug!(?viewer, against, "abandonment vote");
                self.votes_against = Some(against);
                self.votes = voters;
                Answer::Ack(self.state.version)
            }
            Ok(Decision::Events { events, .. }) if events.is_empty() => {
                Answer::Ack(self.state.version)
            }
            Ok(Decision::Events {
                by: seat,
                mut events,
            }) => {
                let compensation = match command {
                    Command::Move { .. } => rtt_ms.map_or(0, lag_compensation_ms),
                    _ => 0,
                };
                self.state
                    .stamp_clocks(&mut events, elapsed, compensation, now());
                let author = Author {
                    seat,
                    cid: Some(&cid),
                };
                let received = matches!(command, Command::Move { .. }).then_some(received);
                let new_bot = match command {
                    Command::AddBot { seat, level } => Some((seat, level)),
                    _ => None,
                };
                let new_seat = new_bot.map(|(seat, _)| NewSeat {
                    seat,
                    token_hash: new_seat_token().1,
                });
                let stored = self
                    .persist(&events, Some(author), new_seat, received)
                    .await;
                telemetry::command(
                    command.name(),
                    stored.is_err().then_some(Code::Unavailable.as_str()),
                );
                match stored {
                    Ok(v) => {
                        if events.iter().any(sets_clock) {
                            self.clock_mark = now_ms;
                        }
                        self.answers.remember_stored(seat, cid.clone(), v);
                        self.ack(conn, &cid, v);
                        if let Some((seat, level)) = new_bot {
                            info!(seat, level = level.get(), "a bot took a seat");
                            self.start_bot(seat, level);
                        }
                    }
                    Err(NotStored) => {
                        // Not remembered: the room reloads, and a retry of this cid then gets the
                        // ack if the commit did reach the database, or is played now if it did not.
                        let message = "could not store the command; retry the same cid".to_owned();
                        self.reject(conn, &cid, Code::Unavailable, message);
                    }
                }
                return;
            }
        };
        let code = match &answer {
            Answer::Reject(code, _) => Some(code.as_str()),
            Answer::Ack(_) => None,
        };
        telemetry::command(command.name(), code);
        if let Some(seat) = viewer {
            self.answers
                .remember_unstored(seat, cid.clone(), answer.clone());
        }
        self.answer(conn, &cid, answer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
