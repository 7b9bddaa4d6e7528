//! Rooms by id and invite code: creating them, finding them, and restoring them from the store.
//!
//! The registry is the only place that starts room tasks, and it starts one only while holding its
//! map's lock after checking that no live task runs the room, so one room never has two tasks.
//! Loading from the store happens outside that lock (a slow database or a flood of unknown codes
//! must not hold up every other lookup); a load that lost the race is dropped unstarted. At start-up
//! every unfinished room is restored; any other room is loaded when somebody asks for it. Room tasks
//! leave memory when idle, and their entries are swept from the map as it grows.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tracing::{error, info};
use uuid::Uuid;

use super::answers::Answers;
use super::authority::Authority;
use super::chat::{CHAT_HISTORY, RecentChat};
use super::commit::{Author, NewSeat, room_row, stage};
use super::fanout::Logged;
use super::state::{JoinRefusal, RoomState, SeatChoice, taken_by_account};
use super::token::{new_invite_code, new_seat_token, normalize_invite_code};
use super::{Joined, RoomHandle, RoomSettings};
use crate::bot::Level;
use crate::cluster::finished::{Standing, Unclaimed};
use crate::cluster::{Node, Ownership};
use crate::protocol::Event;
use crate::rules::{AnyGame, GameKind, GameOptions, RuleError, Rules, Seat};
use crate::store::{
    ChatAnswer, Commit, RoomRef, RoomRow, SeatAccount, Store, StoreError, StoredRoom, Visibility,
};
use rand::seq::IteratorRandom;

/// What a person asks for when creating a room.
#[derive(Clone, Debug)]
pub struct NewRoom {
    /// The game.
    pub kind: GameKind,
    /// How the game is set up (start position, players, ...), read from `options`.
    pub setup: GameOptions,
    /// The options as given, stored with the room.
    pub options: Value,
    /// Whether the lobby lists the room while it waits.
    pub visibility: Visibility,
    /// The creator's seat.
    pub seat: SeatChoice,
    /// The creator's display name (a logged-in creator's: the username).
    pub name: Option<String>,
    /// The creator's account, when logged in: the seat belongs to it.
    pub user: Option<Uuid>,
    /// Seats given to computer opponents, with their levels (`"bots"` of the create request).
    pub bots: Vec<(Seat, Level)>,
}

/// A player of a room made with every seat taken (see [`Registry::prepare_seated`]).
#[derive(Clone, Debug)]
pub struct SeatedPlayer {
    /// The seat the player takes.
    pub seat: Seat,
    /// The player's display name (an account's: its username).
    pub name: Option<String>,
    /// The player's account, if any: the seat belongs to it.
    pub user: Option<Uuid>,
    /// SHA-256 of the seat token, made by whoever gives it to the player.
    pub token_hash: [u8; 32],
}

/// A private room made with every seat taken at once: a pairing, an accepted challenge.
#[derive(Clone, Debug)]
pub struct SeatedRoom {
    /// The game.
    pub kind: GameKind,
    /// Its set-up (the number of players).
    pub setup: GameOptions,
    /// The options kept with the room (its `clock`).
    pub options: Value,
    /// Every seat's player, in the order they are seated.
    pub players: Vec<SeatedPlayer>,
}

/// A room staged with its first seats, not yet stored: its row and first commit, for the
/// store, and the state its task starts from.
#[derive(Debug)]
pub struct Prepared {
    /// The room's row.
    pub room: RoomRow,
    /// Its seats and first events.
    pub commit: Commit,
    next: RoomState,
    events: Vec<Event>,
}

impl Prepared {
    /// The room `state` with `seat` taken by `events` (a creator's join), its token hash and
    /// account.
    fn first_seat(
        state: RoomState,
        events: Vec<Event>,
        seat: Seat,
        token_hash: [u8; 32],
        user_id: Option<Uuid>,
    ) -> Result<Prepared, CreateError> {
        let room = room_row(&state);
        let mut next = state;
        let created_at = next.created_at;
        let author = Some(Author { seat, cid: None });
        let new_seat = Some(NewSeat {
            seat,
            token_hash,
            user_id,
        });
        let commit = stage(&mut next, &events, author, new_seat, created_at)
            .map_err(|e| CreateError::Store(StoreError::Corrupt(e)))?;
        Ok(Prepared {
            room,
            commit,
            next,
            events,
        })
    }

    /// One more seat taken by `events` (a join, a bot's), in the same first commit; the last
    /// seat starts the game, and a timed game's first clock with it.
    fn seat(
        &mut self,
        seat: Seat,
        mut events: Vec<Event>,
        token_hash: [u8; 32],
        user_id: Option<Uuid>,
    ) -> Result<(), CreateError> {
        let created_at = self.next.created_at;
        self.next.stamp_clocks(&mut events, 0, 0, created_at);
        let author = Some(Author { seat, cid: None });
        let new_seat = Some(NewSeat {
            seat,
            token_hash,
            user_id,
        });
        let more = stage(&mut self.next, &events, author, new_seat, created_at)
            .map_err(|e| CreateError::Store(StoreError::Corrupt(e)))?;
        self.commit.status = more.status;
        self.commit.flag_at = more.flag_at;
        self.commit.events.extend(more.events);
        self.commit.seats.extend(more.seats);
        self.events.extend(events);
        Ok(())
    }

    /// The room's id.
    pub fn room_id(&self) -> Uuid {
        self.room.id
    }

    /// The colour name of `seat` in this room's game.
    pub fn color(&self, seat: Seat) -> String {
        self.next.game.color(seat).to_owned()
    }
}

/// A created room and the creator's seat.
#[derive(Debug)]
pub struct Created {
    /// The new room's task.
    pub room: RoomHandle,
    /// The creator's seat and token.
    pub joined: Joined,
}

/// Why a room could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The start position cannot be read.
    #[error("{0}")]
    Position(RuleError),
    /// The start position is already won or drawn.
    #[error("the start position is already decided ({0}); there is nothing to play")]
    AlreadyOver(String),
    /// The creator asked for a seat the game does not have.
    #[error("the creator's seat: {0:?}")]
    Seat(JoinRefusal),
    /// The bots asked for cannot take their seats (a seat twice, one that does not exist, the
    /// creator's, or every seat).
    #[error("{0}")]
    Bots(String),
    /// The room could not be stored.
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Default)]
struct Rooms {
    by_id: HashMap<Uuid, RoomHandle>,
    by_code: HashMap<String, Uuid>,
    /// Sweep stopped tasks' entries when the map grows past this.
    sweep_at: usize,
}

/// The creator's seat: as asked, except that `random` leaves out the seats given to bots. Errors
/// when the bots take the creator's seat or every seat.
fn creator_choice(request: &NewRoom, seats: usize) -> Result<SeatChoice, CreateError> {
    if request.bots.is_empty() {
        return Ok(request.seat.clone());
    }
    let is_bot = |seat: Seat| request.bots.iter().any(|(bot, _)| *bot == seat);
    if let Some((twice, _)) = request
        .bots
        .iter()
        .enumerate()
        .find_map(|(i, (seat, _))| request.bots[..i].iter().find(|(other, _)| other == seat))
    {
        return Err(CreateError::Bots(format!(
            "seat {twice} is given to two bots; one bot a seat"
        )));
    }
    match &request.seat {
        SeatChoice::Number(n) if is_bot(*n) => Err(CreateError::Bots(format!(
            "seat {n} is the creator's; a bot cannot take it too"
        ))),
        SeatChoice::Random => (0..seats)
            .filter_map(|seat| Seat::try_from(seat).ok())
            .filter(|seat| !is_bot(*seat))
            .choose(&mut rand::rng())
            .map(SeatChoice::Number)
            .ok_or_else(|| {
                CreateError::Bots("the bots take every seat; the creator needs one".into())
            }),
        other => Ok(other.clone()),
    }
}

/// Entries kept before the first sweep of stopped rooms.
const FIRST_SWEEP: usize = 64;

/// The rooms this process runs.
pub struct Registry {
    store: Store,
    settings: RoomSettings,
    rooms: Mutex<Rooms>,
    /// Cluster mode: this node, which claims every room before its task starts here (a finished
    /// room only before its first write: see [`crate::cluster::finished`]).
    node: Option<Arc<Node>>,
    /// Cluster mode: a lock per room, held from a claim to the start of the claimed room's task,
    /// so that two loads of one room on this node cannot claim it twice (the second claim would
    /// fence the first task's commits), while loads of different rooms run side by side.
    claiming: Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<()>>>>,
}

/// How a cluster node holds a room it loads.
enum Hold {
    /// Claimed: this node is the room's owner.
    Owned(Ownership),
    /// A finished room, served without a claim until its first write.
    Unclaimed(Unclaimed),
}

/// What the orphan sweep of a node remembers between two calls of [`Registry::adopt_orphans`].
#[derive(Debug, Default)]
pub struct Sweep {
    /// Rooms whose rows do not replay: never adopted.
    unreadable: std::collections::HashSet<Uuid>,
    /// Orphans another node is first to claim, with how many calls in a row saw them still
    /// orphaned: anyone's once [`GRACE_SWEEPS`] did (their node did not claim them in time).
    waiting: HashMap<Uuid, u32>,
}

/// How many sweeps in a row an orphan is left to the node it hashes to before any node claims
/// it: two, so its node has had at least one whole sweep interval.
pub const GRACE_SWEEPS: u32 = 2;

/// How many orphaned rooms one sweep claims at most.
pub const ORPHANS_PER_SWEEP: i64 = 200;

/// How many due correspondence rooms one sweep loads at most.
pub const DUE_PER_SWEEP: i64 = 200;

/// How many times creation tries a fresh invite code after a collision.
const INVITE_CODE_TRIES: usize = 5;

impl Registry {
    /// A registry over `store` whose rooms follow `settings`, running no room yet.
    pub fn new(store: Store, settings: RoomSettings) -> Self {
        Registry {
            store,
            settings,
            rooms: Mutex::new(Rooms::default()),
            node: None,
            claiming: Mutex::new(HashMap::new()),
        }
    }

    /// The same registry on a cluster node: every room is claimed before its task starts.
    pub fn in_cluster(mut self, node: Arc<Node>) -> Self {
        self.node = Some(node);
        self
    }

    /// Claims `room_id` for this node in cluster mode (`None` on a single node). Errors:
    /// [`StoreError::OwnedElsewhere`], or the database failed.
    async fn claim(&self, room_id: Uuid) -> Result<Option<Ownership>, StoreError> {
        match &self.node {
            Some(node) => node.claim(room_id).await.map(Some),
            None => Ok(None),
        }
    }

    /// How this node may serve `room_id` (cluster mode): a finished room no other live node owns
    /// is served unclaimed (see [`crate::cluster::finished`]), any other is claimed. `Ok(None)`:
    /// no such room. Errors: [`StoreError::OwnedElsewhere`] when another live node owns it (or
    /// this node is fenced), or the database failed.
    async fn hold(&self, node: &Arc<Node>, room_id: Uuid) -> Result<Option<Hold>, StoreError> {
        match node.look_up(room_id).await? {
            Standing::Finished(unclaimed) => Ok(Some(Hold::Unclaimed(unclaimed))),
            Standing::OwnedElsewhere => Err(StoreError::OwnedElsewhere { room_id }),
            Standing::Missing => Ok(None),
            Standing::Unfinished => node.claim(room_id).await.map(|o| Some(Hold::Owned(o))),
        }
    }

    /// Takes `room_id`'s claim lock (the `claiming` field's), forgetting the locks
    /// nobody holds or waits for.
    async fn claiming(&self, room_id: Uuid) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self
                .claiming
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            locks.retain(|_, lock| Arc::strong_count(lock) > 1);
            locks.entry(room_id).or_default().clone()
        };
        lock.lock_owned().await
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, Rooms> {
        // A panic while holding this lock cannot leave the maps half-updated in a way that matters:
        // entries are only inserted or swept whole.
        self.rooms
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn cached(&self, reference: RoomRef<'_>) -> Option<RoomHandle> {
        let rooms = self.rooms();
        let id = match reference {
            RoomRef::Id(id) => id,
            RoomRef::InviteCode(code) => *rooms.by_code.get(code)?,
        };
        rooms
            .by_id
            .get(&id)
            .filter(|handle| !handle.is_closed())
            .cloned()
    }

    /// The task of `room_id` if this process runs it now; never loads the room.
    pub fn running(&self, room_id: Uuid) -> Option<RoomHandle> {
        self.cached(RoomRef::Id(room_id))
    }

    /// Starts `task` unless a live task already runs its room, and returns the running one.
    fn start_unless_running(&self, task: Authority) -> RoomHandle {
        let mut rooms = self.rooms();
        if let Some(running) = rooms.by_id.get(&task.room_id()).filter(|h| !h.is_closed()) {
            return running.clone();
        }
        if rooms.by_id.len() >= rooms.sweep_at {
            rooms.by_id.retain(|_, handle| !handle.is_closed());
            let Rooms { by_id, by_code, .. } = &mut *rooms;
            by_code.retain(|_, id| by_id.contains_key(id));
            rooms.sweep_at = FIRST_SWEEP.max(2 * rooms.by_id.len());
        }
        let handle = task.spawn();
        rooms.by_code.insert(handle.invite_code.clone(), handle.id);
        rooms.by_id.insert(handle.id, handle.clone());
        handle
    }

    /// Creates a room, stores it with the creator's seat, and starts its task.
    pub async fn create(&self, request: NewRoom) -> Result<Created, CreateError> {
        let game = AnyGame::new(request.kind, &request.setup).map_err(CreateError::Position)?;
        if let Some(outcome) = game.outcome() {
            return Err(CreateError::AlreadyOver(outcome.reason.as_str().to_owned()));
        }
        let start_position = request
            .setup
            .start_position
            .clone()
            .unwrap_or_else(|| game.position());
        let mut tries = 0;
        loop {
            tries += 1;
            let state = RoomState::new(
                Uuid::new_v4(),
                new_invite_code(),
                request.visibility,
                request.options.clone(),
                game.clone(),
                start_position.clone(),
                self.settings.clock.now_utc(),
            );
            let choice = creator_choice(&request, state.seats.len())?;
            let (seat, mut events) = state
                .decide_join_as(&choice, request.name.clone(), None, request.user)
                .map_err(CreateError::Seat)?;
            if request.user.is_some() {
                taken_by_account(&mut events);
            }
            let (seat_token, token_hash) = new_seat_token();
            let mut prepared = Prepared::first_seat(state, events, seat, token_hash, request.user)?;
            for &(bot, level) in &request.bots {
                let bot_events = prepared
                    .next
                    .decide_bot_join(bot, level)
                    .map_err(|refusal| CreateError::Bots(refusal.message))?;
                prepared.seat(bot, bot_events, new_seat_token().1, None)?;
            }
            let ownership = match self.store_prepared(&prepared).await {
                Ok(ownership) => ownership,
                Err(e) if tries < INVITE_CODE_TRIES && e.is_unique_violation() => continue,
                Err(e) => return Err(e.into()),
            };
            let joined = Joined {
                room_id: prepared.next.id,
                seat,
                color: prepared.next.game.color(seat).to_owned(),
                seat_token,
            };
            let handle = self.start_prepared(prepared, ownership);
            return Ok(Created {
                room: handle,
                joined,
            });
        }
    }

    /// Stages a room whose every seat is taken at once (a pairing, an accepted challenge),
    /// through the same steps as a creation and its joins, for the caller to store (with
    /// whatever else its transaction writes) and then start with [`Registry::start_prepared`].
    /// Each player's seat gets the token hash the caller gives: only whoever made the token
    /// knows it. Errors: [`CreateError::Position`] for options the game refuses,
    /// [`CreateError::Seat`] for a seat the game does not have or one given twice.
    pub fn prepare_seated(&self, request: &SeatedRoom) -> Result<Prepared, CreateError> {
        let game = AnyGame::new(request.kind, &request.setup).map_err(CreateError::Position)?;
        let start_position = game.position();
        let state = RoomState::new(
            Uuid::new_v4(),
            new_invite_code(),
            Visibility::Private,
            request.options.clone(),
            game,
            start_position,
            self.settings.clock.now_utc(),
        );
        let mut players = request.players.iter();
        let first = players
            .next()
            .ok_or(CreateError::Seat(JoinRefusal::RoomFull))?;
        let (seat, mut events) = state
            .decide_join_as(
                &SeatChoice::Number(first.seat),
                first.name.clone(),
                None,
                first.user,
            )
            .map_err(CreateError::Seat)?;
        if first.user.is_some() {
            taken_by_account(&mut events);
        }
        let mut prepared = Prepared::first_seat(state, events, seat, first.token_hash, first.user)?;
        for player in players {
            let (seat, mut events) = prepared
                .next
                .decide_join_as(
                    &SeatChoice::Number(player.seat),
                    player.name.clone(),
                    None,
                    player.user,
                )
                .map_err(CreateError::Seat)?;
            if player.user.is_some() {
                taken_by_account(&mut events);
            }
            prepared.seat(seat, events, player.token_hash, player.user)?;
        }
        Ok(prepared)
    }

    /// Stores a staged room (owned by this node in cluster mode): the ownership its task must
    /// carry. Errors: those of [`Node::create_room`] and
    /// [`Store::create_room`](crate::store::Store::create_room).
    async fn store_prepared(&self, prepared: &Prepared) -> Result<Option<Ownership>, StoreError> {
        match &self.node {
            Some(node) => node
                .create_room(&prepared.room, &prepared.commit)
                .await
                .map(Some),
            None => self
                .store
                .create_room(&prepared.room, &prepared.commit)
                .await
                .map(|()| None),
        }
    }

    /// Stores a room [`Registry::prepare_seated`] staged and starts its task. Errors: as
    /// [`Registry::store_prepared`]'s.
    pub async fn create_prepared(&self, prepared: Prepared) -> Result<RoomHandle, CreateError> {
        let ownership = self.store_prepared(&prepared).await?;
        Ok(self.start_prepared(prepared, ownership))
    }

    /// Starts the task of a room [`Registry::prepare_seated`] (or a creation) staged, once it
    /// is stored; `ownership`: the claim it was stored with, in cluster mode.
    pub fn start_prepared(&self, prepared: Prepared, ownership: Option<Ownership>) -> RoomHandle {
        let log = (1..)
            .zip(prepared.events)
            .map(|(v, event)| Logged::new(v, event))
            .collect();
        let mut task = Authority::new(
            prepared.next,
            log,
            Answers::default(),
            self.store.clone(),
            self.settings.clone(),
        );
        if let Some(ownership) = ownership {
            task = task.with_ownership(ownership);
        }
        let handle = self.start_unless_running(task);
        info!(room_id = %handle.id, game = %handle.kind, "room created");
        handle
    }

    /// The store the rooms are written to.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Cluster mode: this node.
    pub fn node(&self) -> Option<&Arc<Node>> {
        self.node.as_ref()
    }

    /// Finds a room by id (UUID) or invite code, loading it from the store when this process does
    /// not run it; in cluster mode a room is claimed before it is loaded, unless it is finished
    /// (see [`crate::cluster::finished`]). `Ok(None)`: no such room. Errors: the store is
    /// unreachable, the room's stored rows do not replay (`StoreError::Corrupt`), or (cluster
    /// mode) `StoreError::OwnedElsewhere`: another live node serves it.
    pub async fn find(&self, reference: &str) -> Result<Option<RoomHandle>, StoreError> {
        let code;
        let reference = match Uuid::try_parse(reference.trim()) {
            Ok(id) => RoomRef::Id(id),
            Err(_) => match normalize_invite_code(reference) {
                Some(normalized) => {
                    code = normalized;
                    RoomRef::InviteCode(&code)
                }
                None => return Ok(None),
            },
        };
        if let Some(handle) = self.cached(reference) {
            return Ok(Some(handle));
        }
        let (hold, _claiming) = match (&self.node, reference) {
            (None, _) => (None, None),
            (Some(node), RoomRef::Id(id)) => {
                let claiming = self.claiming(id).await;
                if let Some(handle) = self.cached(reference) {
                    return Ok(Some(handle));
                }
                match self.hold(node, id).await? {
                    Some(hold) => (Some(hold), Some(claiming)),
                    None => return Ok(None),
                }
            }
            // The code's room id, read before the claim; its rows are read again after it.
            (Some(node), RoomRef::InviteCode(_)) => match self.store.load_room(reference).await? {
                Some(stored) => {
                    let id = stored.room.id;
                    let claiming = self.claiming(id).await;
                    if let Some(handle) = self.cached(RoomRef::Id(id)) {
                        return Ok(Some(handle));
                    }
                    match self.hold(node, id).await? {
                        Some(hold) => (Some(hold), Some(claiming)),
                        None => return Ok(None),
                    }
                }
                None => return Ok(None),
            },
        };
        // Loaded after the claim: the previous owner can write nothing more.
        let Some(stored) = self.store.load_room(reference).await? else {
            return Ok(None);
        };
        let (chat, answered) = self.stored_chat(stored.room.id).await?;
        let accounts = self.store.seat_accounts(stored.room.id).await?;
        let mut task = restore(stored, &accounts, self.store.clone(), self.settings.clone())
            .map_err(StoreError::Corrupt)?
            .with_chat(chat, answered);
        match hold {
            Some(Hold::Owned(ownership)) => task = task.with_ownership(ownership),
            Some(Hold::Unclaimed(unclaimed)) => task = task.unclaimed(unclaimed),
            None => {}
        }
        Ok(Some(self.start_unless_running(task)))
    }

    /// Cluster mode: claims and starts the unfinished rooms nobody alive owns (released by a
    /// node that shut down, or whose owner's lease expired), at most [`ORPHANS_PER_SWEEP`] a
    /// call: those that hash to this node among the live ones ([`Node::first_to_claim`]), and
    /// those `sweep` saw orphaned at the [`GRACE_SWEEPS`] previous calls (their node did not
    /// claim them);
    /// rooms whose rows do not replay are skipped for good. Returns how many it started; another
    /// node claiming a room first is no error. Errors: the database failed.
    pub async fn adopt_orphans(&self, sweep: &mut Sweep) -> Result<usize, StoreError> {
        let Some(node) = &self.node else {
            return Ok(0);
        };
        let orphans = node.orphaned_rooms(ORPHANS_PER_SWEEP).await?;
        let live = if orphans.is_empty() {
            Vec::new()
        } else {
            node.live_nodes().await?
        };
        let seen_before = std::mem::take(&mut sweep.waiting);
        let mut ids = Vec::new();
        for id in orphans {
            if sweep.unreadable.contains(&id) {
                continue;
            }
            let seen = seen_before.get(&id).copied().unwrap_or(0);
            if node.first_to_claim(id, &live) || seen >= GRACE_SWEEPS {
                ids.push(id);
            } else {
                sweep.waiting.insert(id, seen + 1);
            }
        }
        self.load_listed(ids, &mut sweep.unreadable).await
    }

    /// Loads each room of `ids` that is not in `unreadable` (adding those whose rows do not
    /// replay); another node owning one is no error. Returns how many it found.
    async fn load_listed(
        &self,
        ids: Vec<Uuid>,
        unreadable: &mut std::collections::HashSet<Uuid>,
    ) -> Result<usize, StoreError> {
        let mut loaded = 0;
        for id in ids {
            if unreadable.contains(&id) {
                continue;
            }
            match self.find(&id.to_string()).await {
                Ok(_) => loaded += 1,
                Err(StoreError::OwnedElsewhere { .. }) => {}
                Err(StoreError::Corrupt(e)) => {
                    error!(room_id = %id, error = %e, "room not loaded: its rows do not replay");
                    unreadable.insert(id);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(loaded)
    }

    /// Loads the correspondence games in play whose seat on move ran out of time by now (on the
    /// rooms' clock) and that this process does not run, at most [`DUE_PER_SWEEP`] a call,
    /// skipping the ids in `unreadable` (rooms whose rows do not replay, which it adds to): each
    /// room's task finds its deadline passed as it starts, and flags. In cluster mode only a
    /// room this node owns or may claim (its owner's lease ran out) is loaded here; another
    /// node's rooms are its own sweep's. Returns how many rooms it loaded. Errors: the database
    /// failed.
    pub async fn load_due_correspondence(
        &self,
        unreadable: &mut std::collections::HashSet<Uuid>,
    ) -> Result<usize, StoreError> {
        let now = self.settings.clock.now_utc();
        let mut ids = self
            .store
            .due_correspondence_rooms(now, DUE_PER_SWEEP)
            .await?;
        // A room in memory flags by its own deadline.
        ids.retain(|id| self.cached(RoomRef::Id(*id)).is_none());
        self.load_listed(ids, unreadable).await
    }

    /// The room's recent chat from the store, and the answers of its players' chat cids.
    async fn stored_chat(
        &self,
        room_id: Uuid,
    ) -> Result<(RecentChat, Vec<(Seat, ChatAnswer)>), StoreError> {
        let limit = Some(CHAT_HISTORY as i64);
        let mut rows = self.store.chat(room_id, "players", limit).await?;
        rows.extend(self.store.chat(room_id, "spectators", limit).await?);
        let last_seq = self.store.last_chat_seq(room_id).await?;
        let answered = self.store.chat_answers(room_id).await?;
        Ok((RecentChat::from_rows(rows, last_seq), answered))
    }

    /// Restores every unfinished room from the store and starts its task. A room whose rows cannot
    /// be read or do not replay is reported and left out, so one corrupt room cannot keep the
    /// server down; only an unreachable store is an error. Returns how many rooms run.
    pub async fn restore_unfinished(&self) -> Result<usize, StoreError> {
        let mut restored = 0;
        for id in self.store.unfinished_room_ids().await? {
            if self.cached(RoomRef::Id(id)).is_some() {
                continue;
            }
            let ownership = match self.claim(id).await {
                Ok(ownership) => ownership,
                Err(StoreError::OwnedElsewhere { .. }) => continue,
                Err(e) => return Err(e),
            };
            let stored = match self.store.load_room(RoomRef::Id(id)).await {
                Ok(Some(stored)) => stored,
                Ok(None) => continue,
                Err(StoreError::Corrupt(e)) => {
                    error!(room_id = %id, error = %e, "room not restored: a stored row cannot be read");
                    continue;
                }
                Err(e) => return Err(e),
            };
            let (chat, answered) = self.stored_chat(id).await?;
            let accounts = self.store.seat_accounts(id).await?;
            match restore(stored, &accounts, self.store.clone(), self.settings.clone()) {
                Ok(mut task) => {
                    if let Some(ownership) = ownership.clone() {
                        task = task.with_ownership(ownership);
                    }
                    self.start_unless_running(task.with_chat(chat, answered));
                    restored += 1;
                }
                Err(e) => {
                    error!(room_id = %id, error = %e, "room not restored: its events do not replay")
                }
            }
        }
        Ok(restored)
    }
}

/// Rebuilds a room task's state by applying its stored events in order; the seats' tokens and
/// accounts are the store's (`accounts`: an account attached or deleted while the room was out
/// of memory made no event).
fn restore(
    stored: StoredRoom,
    accounts: &[SeatAccount],
    store: Store,
    settings: RoomSettings,
) -> Result<Authority, String> {
    let room = stored.room;
    // The start position text holds everything a game is set up with (players, layout, ...).
    let setup = GameOptions {
        start_position: Some(room.start_position.clone()),
        ..GameOptions::default()
    };
    let game = AnyGame::new(room.game, &setup)
        .map_err(|e| format!("room {}: stored start position: {e}", room.id))?;
    let mut state = RoomState::new(
        room.id,
        room.invite_code,
        room.visibility,
        room.options,
        game,
        room.start_position,
        room.created_at,
    );
    let mut log = Vec::with_capacity(stored.events.len());
    let mut answers = Answers::default();
    for row in stored.events {
        let event = Event::from_parts(&row.kind, row.data)
            .map_err(|e| format!("room {}: event {}: {e}", room.id, row.v))?;
        state
            .apply(row.v, &event, row.created_at)
            .map_err(|e| format!("room {}: {e}", room.id))?;
        if let (Some(seat), Some(cid)) = (row.seat, row.cid) {
            answers.remember_stored(seat, cid, row.v);
        }
        log.push(Logged::new(row.v, event));
    }
    for seat in stored.seats {
        let slot = state
            .seats
            .get_mut(usize::from(seat.seat))
            .ok_or_else(|| format!("room {}: seat {} does not exist", room.id, seat.seat))?;
        slot.token_hash = Some(seat.token_hash);
        slot.user_id = seat.user_id;
        if let Some(account) = accounts.iter().find(|a| a.seat == seat.seat) {
            slot.user = Some(account.name.clone());
            slot.deleted = account.deleted;
        }
    }
    if state.version != room.version {
        return Err(format!(
            "room {}: events end at version {}, the room row says {}",
            room.id, state.version, room.version
        ));
    }
    Ok(Authority::new(state, log, answers, store, settings))
}
