//! Rooms by id and invite code: creating them, finding them, and restoring them from the store.
//!
//! The registry is the only place that starts room tasks, so one room never has two tasks: a room
//! missing from memory is loaded from the store under a lock. At start-up every unfinished room is
//! restored; a finished one is loaded when somebody asks for it.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;
use tracing::{error, info};
use uuid::Uuid;

use super::actor::{Actor, Answers, Logged, Staged, stage};
use super::state::{JoinRefusal, RoomState, SeatChoice};
use super::token::{new_invite_code, new_seat_token, normalize_invite_code};
use super::{Joined, RoomHandle};
use crate::protocol::Event;
use crate::rules::{AnyGame, GameKind, RuleError, Rules};
use crate::store::{RoomRef, RoomRow, RoomStatus, Store, StoreError, StoredRoom, Visibility, now};

/// What a person asks for when creating a room.
#[derive(Clone, Debug)]
pub struct NewRoom {
    pub kind: GameKind,
    /// A start position in the game's position text (analysis rooms); the standard start otherwise.
    pub start_position: Option<String>,
    /// The options as given, stored with the room.
    pub options: Value,
    pub visibility: Visibility,
    /// The creator's seat.
    pub seat: SeatChoice,
    /// The creator's display name.
    pub name: Option<String>,
}

/// A created room and the creator's seat.
#[derive(Debug)]
pub struct Created {
    pub room: RoomHandle,
    pub joined: Joined,
}

/// Why a room could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("{0}")]
    Position(RuleError),
    #[error("the start position is already decided ({0}); there is nothing to play")]
    AlreadyOver(String),
    #[error("the creator's seat: {0:?}")]
    Seat(JoinRefusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Default)]
struct Rooms {
    by_id: HashMap<Uuid, RoomHandle>,
    by_code: HashMap<String, Uuid>,
}

/// The rooms this process runs.
pub struct Registry {
    store: Store,
    rooms: Mutex<Rooms>,
    /// Held while a room is loaded from the store, so two requests never start two tasks for it.
    loading: tokio::sync::Mutex<()>,
}

/// How many times creation tries a fresh invite code after a collision.
const INVITE_CODE_TRIES: usize = 5;

impl Registry {
    pub fn new(store: Store) -> Self {
        Registry {
            store,
            rooms: Mutex::new(Rooms::default()),
            loading: tokio::sync::Mutex::new(()),
        }
    }

    fn insert(&self, handle: RoomHandle) {
        let mut rooms = self
            .rooms
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        rooms.by_code.insert(handle.invite_code.clone(), handle.id);
        rooms.by_id.insert(handle.id, handle);
    }

    fn cached(&self, reference: RoomRef<'_>) -> Option<RoomHandle> {
        let rooms = self
            .rooms
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
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

    /// Creates a room, stores it with the creator's seat, and starts its task.
    pub async fn create(&self, request: NewRoom) -> Result<Created, CreateError> {
        let game = AnyGame::new(request.kind, request.start_position.as_deref())
            .map_err(CreateError::Position)?;
        if let Some(outcome) = game.outcome() {
            return Err(CreateError::AlreadyOver(outcome.reason.as_str().to_owned()));
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let state = RoomState::new(
                Uuid::new_v4(),
                new_invite_code(),
                request.visibility,
                request.options.clone(),
                game.clone(),
                now(),
            );
            let (seat, events) = state
                .decide_join(&request.seat, request.name.clone())
                .map_err(CreateError::Seat)?;
            let (seat_token, token_hash) = new_seat_token();
            let Staged { next, commit } = stage(
                &state,
                &events,
                Some((seat, None)),
                Some(token_hash),
                state.created_at,
            )
            .map_err(|e| CreateError::Store(StoreError::Corrupt(e)))?;
            match self.store.create_room(&room_row(&state), &commit).await {
                Ok(()) => {}
                Err(StoreError::Database(e))
                    if tries < INVITE_CODE_TRIES && is_unique_violation(&e) =>
                {
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
            let log = events
                .into_iter()
                .zip(1..)
                .map(|(event, v)| Logged::new(v, event))
                .collect();
            let joined = Joined {
                room_id: next.id,
                seat,
                color: next.game.color(seat).to_owned(),
                seat_token,
            };
            let handle = Actor::new(next, log, Answers::default(), self.store.clone()).spawn();
            info!(room_id = %handle.id, game = %handle.kind, "room created");
            self.insert(handle.clone());
            return Ok(Created {
                room: handle,
                joined,
            });
        }
    }

    /// Finds a room by id (UUID) or invite code, loading it from the store when this process does
    /// not run it. `Ok(None)`: no such room.
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
        let _loading = self.loading.lock().await;
        if let Some(handle) = self.cached(reference) {
            return Ok(Some(handle));
        }
        let Some(stored) = self.store.load_room(reference).await? else {
            return Ok(None);
        };
        let handle = self.start(stored)?;
        Ok(Some(handle))
    }

    /// Restores every unfinished room from the store and starts its task. A room whose stored
    /// events do not replay is reported and left out, so one corrupt room cannot keep the server
    /// down. Returns how many rooms run.
    pub async fn restore_unfinished(&self) -> Result<usize, StoreError> {
        let ids = self.store.unfinished_room_ids().await?;
        let mut restored = 0;
        for id in ids {
            let _loading = self.loading.lock().await;
            if self.cached(RoomRef::Id(id)).is_some() {
                continue;
            }
            let Some(stored) = self.store.load_room(RoomRef::Id(id)).await? else {
                continue;
            };
            match self.start(stored) {
                Ok(_) => restored += 1,
                Err(e) => error!(room_id = %id, error = %e, "room not restored"),
            }
        }
        Ok(restored)
    }

    fn start(&self, stored: StoredRoom) -> Result<RoomHandle, StoreError> {
        let actor = restore(stored, self.store.clone()).map_err(StoreError::Corrupt)?;
        let handle = actor.spawn();
        self.insert(handle.clone());
        Ok(handle)
    }
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|db| db.is_unique_violation())
}

/// The room's own row for a room that has just been created.
fn room_row(state: &RoomState) -> RoomRow {
    RoomRow {
        id: state.id,
        invite_code: state.invite_code.clone(),
        game: state.kind(),
        seats: state.game.seats(),
        visibility: state.visibility,
        status: RoomStatus::Waiting,
        version: state.version,
        start_position: state.start_position.clone(),
        options: state.options.clone(),
        created_at: state.created_at,
    }
}

/// Rebuilds a room task's state by applying its stored events in order.
fn restore(stored: StoredRoom, store: Store) -> Result<Actor, String> {
    let room = stored.room;
    let game = AnyGame::new(room.game, Some(&room.start_position))
        .map_err(|e| format!("room {}: stored start position: {e}", room.id))?;
    let mut state = RoomState::new(
        room.id,
        room.invite_code,
        room.visibility,
        room.options,
        game,
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
    }
    if state.version != room.version {
        return Err(format!(
            "room {}: events end at version {}, the room row says {}",
            room.id, state.version, room.version
        ));
    }
    Ok(Actor::new(state, log, answers, store))
}
