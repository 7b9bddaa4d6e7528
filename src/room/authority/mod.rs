//! The room task, the authority of its room: inbox -> decide -> commit -> apply -> publish ->
//! answer.
//!
//! One task per room is the only writer of its game, so commands need no locks and are totally
//! ordered. The task awaits only the database: what it commits it hands to its [`Fanout`], which
//! sends to connections with `try_send` and drops a connection whose queue is full rather than
//! wait for it. It stops (and the registry loads the room afresh when it is next needed) when it
//! has been idle with nobody connected for a while (`RoomSettings::idle`), or when a commit's
//! outcome is unknown. A room still waiting for players when its `RoomSettings::waiting_ttl` runs
//! out ends as `aborted`. Every deadline (a flag, an expiry, idling) is read from and waited on
//! the room's [`Clock`], never from a tokio timer, so a test moves them with a manual clock.
//!
//! Abandonment (docs/protocol.md, "Abandonment"): [`Presence`] notes on the clock when each seat's
//! last connection left; once the seat on move of a timed game has been away for its grace period,
//! `claim_victory` / `claim_draw {"reason": "abandoned"}` end the game (or, with three players, are
//! votes that the seat leave); a waiting room whose only player is away expires after
//! `RoomSettings::abandoned_waiting_room`.
//!
//! `commands` holds what changes the room (commands, joins, flags, the commit); `connections`
//! holds who connects and the answers and presence frames they are sent.

mod commands;
mod connections;
mod handoff;

use self::connections::Way;

use std::sync::Arc;
use std::sync::atomic::AtomicI64;

use tokio::sync::mpsc;
use tracing::{Instrument, debug, info, info_span};

use super::answers::Answers;
use super::bot;
use super::chat::RecentChat;
use super::fanout::{Fanout, Logged};
use super::presence::Presence;
use super::state::RoomState;
use super::{
    BotConnected, ConnectError, INBOX_CAPACITY, JoinError, Request, RoomHandle, RoomSettings,
    RoomSummary,
};
use crate::bot::Level;
use crate::clock::{Clock, millis};
use crate::cluster::finished::Unclaimed;
use crate::cluster::{Lost, Ownership};
use crate::protocol::{Code, close};
use crate::rules::Seat;
use crate::store::{ChatAnswer, RoomStatus, Store};
use crate::telemetry;

/// The room task's state.
pub(super) struct Authority {
    state: RoomState,
    answers: Answers,
    fanout: Fanout,
    presence: Presence,
    store: Store,
    /// Set when this task's state may differ from the database (a commit failed, so it may or may
    /// not have been written): the task stops and the registry loads the room afresh.
    stale: bool,
    /// `state.version`, readable by connections without asking the task.
    published_version: Arc<AtomicI64>,
    settings: RoomSettings,
    chat: RecentChat,
    /// The clock's reading (`settings.clock`, ms) when the last event that set the game clocks
    /// had been stored and handed to the connections (the frame that put the running seat on
    /// move left), or when this task started: the running seat's time counts from here, so the
    /// commit of the previous move is charged to nobody. A restored room starts counting afresh,
    /// so the time the server was down is charged to nobody (but see `carried_ms`).
    clock_mark: u64,
    /// A correspondence room: the time its seat on move had already spent when this task loaded
    /// it (since its clocks were last set, in wall-clock time), charged on top of the time since
    /// `clock_mark`; 0 once an event sets the clocks, and for every other room.
    carried_ms: u64,
    /// This task's own handle, set by [`Authority::spawn`]: the bots it starts talk to it.
    handle: Option<RoomHandle>,
    /// Cluster mode: this node's claim on the room. Every commit carries its epoch, and the task
    /// stops when the node self-fences. `None` on a single node, and while `unclaimed`.
    ownership: Option<Ownership>,
    /// Cluster mode: a finished room served without a claim; claimed before its first write
    /// (then `ownership`), and stopped when another node claims it.
    unclaimed: Option<Unclaimed>,
    /// Cluster mode: when, and to which node, the room is to be handed off (see `handoff`).
    handoff: Option<(tokio::time::Instant, uuid::Uuid)>,
    /// When this task began serving the room: a room that just arrived here is not handed on
    /// before [`handoff::STAY`] has passed (see `handoff`).
    began: tokio::time::Instant,
}

/// What woke the room task.
enum Wake {
    Request(Option<Request>),
    Waited,
    Flag,
    Lost(Lost),
    /// Another node claimed the finished room this task served unclaimed.
    Moved,
    /// The planned hand-off is due.
    HandOff,
}

/// Returns once this node must stop serving the room, and why; never on a single node.
async fn lost(ownership: &mut Option<Ownership>) -> Lost {
    match ownership {
        Some(ownership) => ownership.lost().await,
        None => std::future::pending().await,
    }
}

/// Returns once another node claimed the finished room served unclaimed; never otherwise.
async fn moved(unclaimed: &mut Option<Unclaimed>) {
    match unclaimed {
        Some(unclaimed) => unclaimed.moved().await,
        None => std::future::pending().await,
    }
}

/// The earlier of two optional deadlines.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Waits on `clock` until `deadline` (ms), or forever without one.
async fn sleep_until(clock: &Clock, deadline: Option<u64>) {
    match deadline {
        Some(deadline) => clock.sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl Authority {
    /// The task of a room at `state`, whose committed events so far are `log` (in version order).
    pub fn new(
        state: RoomState,
        log: Vec<Logged>,
        answers: Answers,
        store: Store,
        settings: RoomSettings,
    ) -> Self {
        let published_version = Arc::new(AtomicI64::new(state.version));
        let clock_mark = settings.clock.now_ms();
        // A correspondence game's days go on while the room is out of memory or the server down.
        let carried_ms = state.elapsed_since_clock_set(settings.clock.now_utc());
        Authority {
            clock_mark,
            carried_ms,
            presence: Presence::new(state.seats.len(), clock_mark),
            handle: None,
            ownership: None,
            unclaimed: None,
            handoff: None,
            began: tokio::time::Instant::now(),
            state,
            fanout: Fanout::new(log),
            answers,
            store,
            stale: false,
            published_version,
            settings,
            chat: RecentChat::default(),
        }
    }

    /// The same task with the room's recent chat and the answers of its players' stored chat
    /// cids (both read from the store at a restore).
    pub fn with_chat(mut self, chat: RecentChat, answered: Vec<(Seat, ChatAnswer)>) -> Self {
        self.chat = chat;
        for (seat, answer) in answered {
            self.answers.remember_stored(seat, answer.cid, answer.v);
        }
        self
    }

    /// The same task holding this node's claim on the room (cluster mode).
    pub fn with_ownership(mut self, ownership: Ownership) -> Self {
        self.ownership = Some(ownership);
        self
    }

    /// The same task serving a finished room unclaimed (cluster mode; see
    /// [`crate::cluster::finished`]).
    pub fn unclaimed(mut self, unclaimed: Unclaimed) -> Self {
        self.unclaimed = Some(unclaimed);
        self
    }

    /// Before a write: claims the finished room this task serves unclaimed, if it does (its copy
    /// must still be the stored room). `false` when it could not: the task is then stale, and
    /// stops once the current request is answered; its clients reconnect to whoever serves the
    /// room.
    async fn claimed_to_write(&mut self) -> bool {
        let Some(unclaimed) = self.unclaimed.take() else {
            return true;
        };
        match unclaimed
            .claim(self.state.version, self.chat.last_seq())
            .await
        {
            Ok(ownership) => {
                self.ownership = Some(ownership);
                telemetry::room_owned(1.0);
                true
            }
            Err(e) => {
                info!(error = %e, "a finished room could not be claimed for a write: it reloads");
                self.stale = true;
                false
            }
        }
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
        !bot_on_move && self.fanout.only_bots()
    }

    async fn run(mut self, mut inbox: mpsc::Receiver<Request>) {
        debug!(version = self.state.version, "room task started");
        let game = self.state.kind().as_str();
        telemetry::room(game, self.state.status.as_str(), 1.0);
        if self.ownership.is_some() {
            telemetry::room_owned(1.0);
        }
        let clock = self.settings.clock.clone();
        let mut close = (close::TRY_AGAIN, "room reloading");
        loop {
            // A room whose clock runs stays in memory, so its deadline fires; but a correspondence
            // room may leave: the database keeps its deadline, and the sweep loads it then.
            let deadline = earliest(
                self.state
                    .clock_deadline(self.clock_mark)
                    .map(|at| at.saturating_sub(self.carried_ms)),
                self.abandoned_waiting_deadline(),
            );
            // A finished room leaves soon: under churn, thousands of them would otherwise stay
            // the whole idle time (issue 24: 264 to 573 MiB in 25 s).
            let idle = if self.state.status == RoomStatus::Finished {
                self.settings.idle.min(super::FINISHED_IDLE)
            } else {
                self.settings.idle
            };
            let may_leave = deadline.is_none() || self.state.is_correspondence();
            let idle_at =
                (self.may_idle() && may_leave).then(|| clock.now_ms().saturating_add(millis(idle)));
            let wait = earliest(idle_at, self.waiting_deadline());
            let wake = tokio::select! {
                // First: a room of a node that fenced serves nothing more, however much waits.
                biased;
                why = lost(&mut self.ownership) => Wake::Lost(why),
                () = moved(&mut self.unclaimed) => Wake::Moved,
                () = handoff::due(self.handoff) => Wake::HandOff,
                () = sleep_until(&clock, deadline) => Wake::Flag,
                () = sleep_until(&clock, wait) => Wake::Waited,
                request = inbox.recv() => Wake::Request(request),
            };
            // A process resumed after a pause may run this task before its lease task fences:
            // the lease's own deadline decides, whatever woke the room.
            let wake = match wake {
                Wake::Lost(why) => Wake::Lost(why),
                Wake::Moved => Wake::Moved,
                _ if self.ownership.as_ref().is_some_and(Ownership::expired) => {
                    if let Wake::Request(Some(request)) = wake {
                        self.refuse(request);
                    }
                    Wake::Lost(Lost::Fenced)
                }
                wake => wake,
            };
            match wake {
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
                }
                Wake::Waited
                    if self
                        .waiting_deadline()
                        .is_some_and(|at| clock.now_ms() >= at) =>
                {
                    self.expire().await;
                }
                Wake::Waited => {
                    debug!("idle with nobody connected: leaving memory");
                    telemetry::eviction("idle");
                    break;
                }
                Wake::Lost(Lost::Fenced) => {
                    info!("this node self-fenced: the room stops here; its clients reconnect");
                    close = (close::RESTART, "this node lost the room; reconnect");
                    telemetry::eviction("fenced");
                    break;
                }
                Wake::Moved => {
                    debug!("another node claimed the finished room: its clients reconnect there");
                    close = (close::RESTART, "room moved; reconnect");
                    telemetry::eviction("moved");
                    break;
                }
                Wake::Lost(Lost::Left) => {
                    debug!("this node is leaving the cluster: the room stops here");
                    telemetry::eviction("shutdown");
                    break;
                }
                Wake::HandOff => {
                    if self.hand_off().await {
                        close = (
                            close::RESTART,
                            "room moved to the node you come through; reconnect",
                        );
                        telemetry::eviction("handoff");
                        break;
                    }
                }
                Wake::Request(None) => break,
                Wake::Request(Some(request)) => {
                    let members = matches!(
                        request,
                        Request::Connect { .. } | Request::Disconnect { .. }
                    );
                    self.handle(request).await;
                    if members {
                        self.plan_handoff();
                    }
                }
            }
            if self.stale {
                telemetry::eviction("reload");
                break;
            }
        }
        telemetry::room(game, self.state.status.as_str(), -1.0);
        if self.ownership.is_some() {
            telemetry::room_owned(-1.0);
        }
        self.stop(inbox, close);
    }

    /// Answers "gone" to what is already queued and closes every connection with `close`: 1012
    /// (reconnect: the room is served elsewhere now) when this node fenced, handed the room off
    /// or saw another node claim it, else 1013 (reloading). From here on the handle reads as
    /// closed, so the registry loads the room afresh.
    fn stop(mut self, mut inbox: mpsc::Receiver<Request>, (code, reason): (u16, &str)) {
        inbox.close();
        while let Ok(request) = inbox.try_recv() {
            self.refuse(request);
        }
        self.fanout.close_all(code, reason);
        debug!("room task stopped");
    }

    /// Answers "gone" to a request the stopping room will not serve.
    fn refuse(&mut self, request: Request) {
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
            Request::Disconnect { .. }
            | Request::Lag { .. }
            | Request::Summary { .. }
            | Request::Accounts { .. } => {}
        }
    }

    /// When (clock ms) a waiting room runs out of time to wait for its players
    /// (`RoomSettings::waiting_ttl` after its creation); `None` once it is not waiting.
    fn waiting_deadline(&self) -> Option<u64> {
        if self.state.status != RoomStatus::Waiting {
            return None;
        }
        let clock = &self.settings.clock;
        let waited = (clock.now_utc() - self.state.created_at)
            .to_std()
            .unwrap_or_default();
        let left = self.settings.waiting_ttl.saturating_sub(waited);
        Some(clock.now_ms().saturating_add(millis(left)))
    }

    /// When (clock ms) a waiting room whose only player has no connection expires; `None`
    /// unless the room is waiting with one seat taken and that seat away, and never for a
    /// correspondence room.
    fn abandoned_waiting_deadline(&self) -> Option<u64> {
        // A correspondence invite is answered in hours, not minutes: its creator may go away.
        if self.state.status != RoomStatus::Waiting || self.state.is_correspondence() {
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
        let ttl = millis(self.settings.abandoned_waiting_room);
        self.presence
            .lone_player_deadline(Seat::try_from(creator).ok()?, ttl)
    }

    /// The grace period of this room's absent player on move; `None` in an untimed room and in
    /// a correspondence game (being away is normal there: nobody is ever claimable).
    fn grace_ms(&self) -> Option<u64> {
        if self.state.is_correspondence() {
            return None;
        }
        let clocks = self.state.clock.as_ref()?;
        Some(millis(
            self.settings.grace(u64::from(clocks.settings.initial_s)),
        ))
    }

    /// The clock's reading now, and the time since the last event that set the game clocks.
    fn clock_now(&self) -> (u64, u64) {
        let now_ms = self.settings.clock.now_ms();
        let elapsed = now_ms.saturating_sub(self.clock_mark);
        (now_ms, elapsed.saturating_add(self.carried_ms))
    }

    /// Notes that an event set the game clocks at `now_ms`: their time counts from there.
    fn mark_clocks(&mut self, now_ms: u64) {
        self.clock_mark = now_ms;
        self.carried_ms = 0;
    }

    async fn handle(&mut self, request: Request) {
        match request {
            Request::Join {
                choice,
                name,
                user,
                same_player,
                reply,
            } => {
                let _ = reply.send(self.join(choice, name, user, same_player).await);
            }
            Request::Connect {
                token,
                user,
                last_v,
                name,
                out,
                via,
                reply,
            } => {
                let way = match (token, user) {
                    (Some(token), _) => Way::Token(token),
                    (None, Some(user)) => Way::User(user),
                    (None, None) => Way::Spectator,
                };
                let _ = reply.send(self.connect(way, last_v, name, out, via));
            }
            Request::ConnectBot { seat, out, reply } => {
                let connected = self.connect(Way::Bot(seat), None, None, out, None);
                let _ = reply.send(connected.map(|connected| BotConnected {
                    conn: connected.conn,
                    game: self.state.game.clone(),
                    position_version: self.state.position_version,
                    playing: self.state.status == RoomStatus::Playing,
                }));
            }
            Request::Disconnect { conn } => self.disconnect(conn),
            Request::Lag { conn, lag_ms } => self.announce_lag(conn, lag_ms),
            Request::Command {
                conn,
                cid,
                command,
                received,
                lag_ms,
            } => self.command(conn, cid, command, received, lag_ms).await,
            Request::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
            Request::Accounts { accounts } => self.accounts_changed(accounts).await,
        }
    }

    fn summary(&self) -> RoomSummary {
        let s = &self.state;
        RoomSummary {
            room_id: s.id,
            game: s.kind(),
            status: s.status.as_str().to_owned(),
            visibility: s.visibility.as_str().to_owned(),
            rated: s.rated,
            seats: s.seat_infos(&self.presence.connected()),
            version: s.version,
            invite_code: s.invite_code.clone(),
            created_at: s.created_at,
        }
    }
}
