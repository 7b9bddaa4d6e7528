//! Quick pairing: a player asks for a game in a pool ([`pools`]) and is answered once paired,
//! with a seat in a room made for the players paired together.
//!
//! - [`pools`]: the pools a server has (`--pairing-pools`);
//! - [`policy`]: who meets whom and who takes which seat, a pure function of the waiting
//!   players and the time;
//! - [`memory`]: the queue of a single SQLite node, in the process;
//! - [`shared`]: the queue in PostgreSQL, shared by every node: one pairing transaction over a
//!   pool's waiting rows (`FOR UPDATE SKIP LOCKED`), so a player is paired once however many
//!   nodes there are.
//!
//! Either way the room is made as a creation and its joins make one
//! ([`Registry::prepare_seated`]), every seat with the hash of a seat token that the node
//! holding that player's request made and alone knows: the answer to each request carries a
//! token only its player receives, whichever node made the room. A player whose request ends
//! (answered, timed out, or the client went away: the handler's future is dropped) leaves the
//! pool through a guard; only one who goes away in the instant between being paired and being
//! answered leaves an empty seat behind (the game then ends as an abandoned one would).

pub mod memory;
pub mod policy;
pub mod pools;
pub mod shared;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::{Notify, watch};
use uuid::Uuid;

pub use pools::{DEFAULT_POOLS, Pool, Pools};

use crate::clock::Clock;
use crate::room::registry::{CreateError, Prepared, Registry, SeatedPlayer, SeatedRoom};
use crate::rules::{GameOptions, Seat};
use crate::site::{GameStart, Site, SiteFrame};
use crate::store::{LastGame, Store, StoreError};

/// The rating of a player the pool knows nothing of (1500-scale).
pub const DEFAULT_RATING: i32 = 1500;

/// How often a queue pairs its pools when nothing wakes it (the windows widen every 2 s).
pub const ROUND: Duration = Duration::from_millis(500);

/// A player asking for a game.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The pool.
    pub pool: Pool,
    /// Its rated side (an account only) or casual side.
    pub rated: bool,
    /// The player's account, if logged in.
    pub user: Option<Uuid>,
    /// The player's display name (an account's: its username).
    pub name: Option<String>,
    /// The rating the pool pairs by.
    pub rating: i32,
    /// The player's last game of the pool's game (an account's; anonymous players have none).
    pub last: LastGame,
}

/// Where a paired player plays: the body of the answer, as a creation's or a join's.
#[derive(Clone)]
pub struct Seated {
    /// The room.
    pub room_id: Uuid,
    /// Its invite code.
    pub invite_code: String,
    /// The player's seat.
    pub seat: Seat,
    /// Its colour.
    pub color: String,
    /// The seat token (32 hex digits), known only to this answer.
    pub seat_token: String,
}

impl std::fmt::Debug for Seated {
    // By hand, so that no log line can ever show a seat token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seated")
            .field("room_id", &self.room_id)
            .field("seat", &self.seat)
            .finish_non_exhaustive()
    }
}

/// A seat a queue found for one of its entries (the token is the entry's own).
#[derive(Clone, Debug)]
struct Placed {
    room_id: Uuid,
    invite_code: String,
    seat: Seat,
}

/// Why a player could not wait for a game.
#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    /// The account waits in a pool already (one pool at a time).
    #[error("this account is already waiting in a pool")]
    AlreadyWaiting,
    /// The database failed, or the room could not be made; nothing is left waiting.
    #[error("the game could not be made: {0}")]
    Unavailable(String),
}

impl From<StoreError> for PairingError {
    fn from(e: StoreError) -> Self {
        PairingError::Unavailable(e.to_string())
    }
}

enum Queue {
    Memory(Arc<memory::Memory>),
    Shared(Arc<shared::Shared>),
}

/// The pairing of one server: its pools and its queue.
pub struct Pairing {
    pools: Pools,
    hold: Duration,
    clock: Clock,
    queue: Queue,
    wake: Arc<Notify>,
}

/// What a queue needs to make the rooms of its pairings.
#[derive(Clone)]
struct Maker {
    registry: Arc<Registry>,
    site: Site,
    clock: Clock,
}

impl Pairing {
    /// Pairing in `pools` over `registry`'s store (see the module's doc), holding each request
    /// at most `hold`; its queue's rounds run until `shutdown` turns true.
    pub async fn start(
        pools: Pools,
        hold: Duration,
        registry: Arc<Registry>,
        site: Site,
        clock: Clock,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Arc<Pairing>, StoreError> {
        let wake = Arc::new(Notify::new());
        let maker = Maker {
            registry: registry.clone(),
            site,
            clock: clock.clone(),
        };
        let queue = match registry.store() {
            Store::Sqlite(_) => {
                let memory = Arc::new(memory::Memory::default());
                tokio::spawn(memory::run(memory.clone(), maker, wake.clone(), shutdown));
                Queue::Memory(memory)
            }
            Store::Postgres(pg) => {
                let shared = Arc::new(
                    shared::Shared::start(pg.clone(), registry.node().cloned(), hold, &maker)
                        .await?,
                );
                tokio::spawn(shared::run(shared.clone(), maker, wake.clone(), shutdown));
                Queue::Shared(shared)
            }
        };
        Ok(Arc::new(Pairing {
            pools,
            hold,
            clock,
            queue,
            wake,
        }))
    }

    /// The pools.
    pub fn pools(&self) -> &Pools {
        &self.pools
    }

    /// How long a request is held at most.
    pub fn hold(&self) -> Duration {
        self.hold
    }

    /// What wakes the queue (a pairing notice from another node).
    pub fn waker(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// How many players wait in each pool that has any (on every node), by pool key (see
    /// [`Pool::key`]).
    pub async fn waiting_counts(
        &self,
    ) -> Result<std::collections::HashMap<String, usize>, StoreError> {
        match &self.queue {
            Queue::Memory(memory) => Ok(memory.waiting_counts()),
            Queue::Shared(shared) => shared.waiting_counts().await,
        }
    }

    /// Waits in `entry`'s pool for a game: `Ok(Some(seat))` once paired, `Ok(None)` when
    /// nobody came within the hold. Dropping the future leaves the pool. Errors:
    /// [`PairingError::AlreadyWaiting`]; [`PairingError::Unavailable`].
    pub async fn wait(&self, entry: Entry) -> Result<Option<Seated>, PairingError> {
        let timing = (self.clock.now_utc(), self.hold);
        match &self.queue {
            Queue::Memory(memory) => {
                let since_ms = timing.0.timestamp_millis();
                memory::wait(memory, entry, (since_ms, self.hold), &self.wake).await
            }
            Queue::Shared(shared) => shared::wait(shared, entry, timing, &self.wake).await,
        }
    }
}

/// One player of a pairing, as a queue holds them.
struct Member {
    entry: Uuid,
    name: Option<String>,
    user: Option<Uuid>,
    token_hash: [u8; 32],
}

/// A pairing's room, staged: the entries seated and the room to store.
struct Game {
    prepared: Prepared,
    /// Entry, account and seat of every player.
    seats: Vec<(Uuid, Option<Uuid>, Seat)>,
}

impl Maker {
    /// Stages the room of `members` (in seat order) in `pool` (its rated side when `rated`: a
    /// rated room, as `"rated": true` makes one): the same steps as a creation and its joins.
    fn stage(&self, pool: Pool, rated: bool, members: Vec<Member>) -> Result<Game, CreateError> {
        let players: Vec<SeatedPlayer> = (0..)
            .zip(&members)
            .map(|(seat, m)| SeatedPlayer {
                seat,
                name: m.name.clone(),
                user: m.user,
                token_hash: m.token_hash,
            })
            .collect();
        let request = SeatedRoom {
            kind: pool.game,
            setup: GameOptions {
                players: Some(pool.players),
                ..GameOptions::default()
            },
            options: if rated {
                json!({ "clock": pool.clock_json(), "rated": true })
            } else {
                json!({ "clock": pool.clock_json() })
            },
            players,
        };
        let prepared = self.registry.prepare_seated(&request)?;
        let seats = (0..)
            .zip(&members)
            .map(|(seat, m)| (m.entry, m.user, seat))
            .collect();
        Ok(Game { prepared, seats })
    }

    /// The time on the server's clock, ms since 1970 (windows widen by it).
    fn now_ms(&self) -> i64 {
        self.clock.now_utc().timestamp_millis()
    }

    /// Tells the paired accounts' pages that the room `room_id` of `pool` began for the
    /// players of `seats` (entry, account, seat): their other pages, and any page of theirs
    /// elsewhere, open it by the account's seat.
    fn announce(
        &self,
        room_id: Uuid,
        invite_code: &str,
        pool: Pool,
        seats: &[(Uuid, Option<Uuid>, Seat)],
    ) {
        for &(_, user, seat) in seats {
            let Some(user) = user else { continue };
            let start = GameStart {
                room_id,
                invite_code: invite_code.to_owned(),
                game: pool.game,
                seat,
                color: color(&pool, seat),
                via: "pairing",
                challenge_id: None,
            };
            self.site.tell(user, &SiteFrame::GameStart(start));
        }
    }
}

/// The colour of `seat` in `pool`'s game.
fn color(pool: &Pool, seat: Seat) -> String {
    crate::site::color_of(pool.game, pool.players, seat)
}
