//! The pairing queue in PostgreSQL, shared by every node (see `store/postgres/pairing.rs` for
//! the transaction): a request writes its row and waits on a oneshot; each node's rounds
//! ([`run`]: when a request comes, at a pairing notice from another node, and every
//! [`ROUND`]) pair the pools its own requests wait in, start the rooms they made (claimed by
//! this node), then read which of its own rows were paired, by it or another node, and answer
//! them. The notice only hastens that read: a lost one costs a round at most.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::Rng;
use tokio::sync::{Notify, oneshot, watch};
use tracing::{info, warn};
use uuid::Uuid;

use super::policy::{self, Waiting};
use super::{Entry, Game, Maker, Member, PairingError, Placed, Pool, ROUND, Seated, color};
use crate::cluster::Node;
use crate::room::token::new_seat_token;
use crate::rules::Seat;
use crate::store::postgres::{PairedRoom, PgStore, WaitingRow};
use crate::store::{Commit, RoomRow, StoreError};

/// How much older than the hold a row may be and still be paired (the clocks of two nodes
/// may differ a little).
const SLACK: Duration = Duration::from_secs(5);

/// A request of this node waiting in the database.
struct Local {
    pool: Pool,
    rated: bool,
    key: String,
    reply: oneshot::Sender<Placed>,
}

/// This node's side of the shared queue.
pub struct Shared {
    pg: PgStore,
    node: Option<Arc<Node>>,
    hold: Duration,
    local: Mutex<HashMap<Uuid, Local>>,
}

impl Shared {
    /// The queue over `pg` for this `node` (none on a single node). Forgets the rows no live
    /// request can answer any more: a single node's from before its start, and any older than
    /// ten minutes (a crashed node's).
    pub(super) async fn start(
        pg: PgStore,
        node: Option<Arc<Node>>,
        hold: Duration,
        maker: &Maker,
    ) -> Result<Shared, StoreError> {
        let stale = maker.clock.now_utc() - chrono::Duration::minutes(10);
        let forgotten = pg.forget_stale_waiting(stale, node.is_none()).await?;
        if forgotten > 0 {
            info!(forgotten, "forgot pairing rows nobody waits for");
        }
        Ok(Shared {
            pg,
            node,
            hold,
            local: Mutex::new(HashMap::new()),
        })
    }

    /// How many players wait in each pool that has any (on every node), by pool key.
    pub async fn waiting_counts(&self) -> Result<HashMap<String, usize>, StoreError> {
        Ok(self
            .pg
            .waiting_counts()
            .await?
            .into_iter()
            .map(|(key, n)| (key, usize::try_from(n).unwrap_or(0)))
            .collect())
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Local>> {
        // Entries are inserted and removed whole: a panic cannot leave one half-made.
        self.local
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Takes the entry out of the pool when its request ends: deletes its row (answered or not:
/// unanswered, only if it was not paired meanwhile).
struct Leave {
    shared: Arc<Shared>,
    id: Uuid,
    answered: bool,
}

impl Drop for Leave {
    fn drop(&mut self) {
        self.shared.local().remove(&self.id);
        let (pg, id, answered) = (self.shared.pg.clone(), self.id, self.answered);
        tokio::spawn(async move {
            let left = if answered {
                pg.forget_waiting(&[id]).await.map(|()| true)
            } else {
                pg.leave_pool(id).await
            };
            match left {
                Ok(true) => {}
                Ok(false) => {
                    info!(entry = %id, "a player went away as they were paired: their seat is empty");
                    let _ = pg.forget_waiting(&[id]).await;
                }
                Err(e) => warn!(error = %e, entry = %id, "a pairing row was not deleted"),
            }
        });
    }
}

/// See [`Pairing::wait`](super::Pairing::wait).
pub(super) async fn wait(
    shared: &Arc<Shared>,
    entry: Entry,
    (since, hold): (DateTime<Utc>, Duration),
    wake: &Notify,
) -> Result<Option<Seated>, PairingError> {
    let (seat_token, token_hash) = new_seat_token();
    let (reply, answer) = oneshot::channel();
    let id = Uuid::new_v4();
    let key = entry.pool.key(entry.rated);
    let row = WaitingRow {
        id,
        user_id: entry.user,
        name: entry.name,
        rating: entry.rating,
        token_hash,
        last_opponents: entry.last.opponents,
        last_seat: entry.last.seat,
        since,
    };
    let holder = shared.node.as_ref().map(|node| node.id());
    // Registered before the row exists, so no round can pair it unseen.
    shared.local().insert(
        id,
        Local {
            pool: entry.pool,
            rated: entry.rated,
            key: key.clone(),
            reply,
        },
    );
    let mut leave = Leave {
        shared: shared.clone(),
        id,
        answered: false,
    };
    if !shared.pg.join_pool(&key, &row, holder).await? {
        leave.answered = true;
        return Err(PairingError::AlreadyWaiting);
    }
    wake.notify_one();
    let placed = tokio::select! {
        placed = answer => placed,
        () = tokio::time::sleep(hold) => return Ok(None),
    };
    leave.answered = true;
    let placed = placed.map_err(|_| PairingError::Unavailable("the pairing stopped".into()))?;
    Ok(Some(Seated {
        color: color(&entry.pool, placed.seat),
        room_id: placed.room_id,
        invite_code: placed.invite_code,
        seat: placed.seat,
        seat_token,
    }))
}

/// The rounds of this node until `shutdown` turns true.
pub(super) async fn run(
    shared: Arc<Shared>,
    maker: Maker,
    wake: Arc<Notify>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            () = wake.notified() => {}
            () = tokio::time::sleep(ROUND) => {}
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
        if let Err(e) = round(&shared, &maker).await {
            warn!(error = %e, "a pairing round failed");
        }
    }
}

/// A game staged inside the pairing transaction.
struct Staged(Game);

impl PairedRoom for Staged {
    fn room(&self) -> &RoomRow {
        &self.0.prepared.room
    }

    fn commit(&self) -> &Commit {
        &self.0.prepared.commit
    }

    fn entries(&self) -> Vec<(Uuid, Seat)> {
        self.0
            .seats
            .iter()
            .map(|&(entry, _, seat)| (entry, seat))
            .collect()
    }
}

/// One round: pairs every pool this node's requests wait in, then answers those of its
/// requests that were paired.
async fn round(shared: &Shared, maker: &Maker) -> Result<(), StoreError> {
    let pools: HashMap<String, (Pool, bool)> = shared
        .local()
        .values()
        .map(|local| (local.key.clone(), (local.pool, local.rated)))
        .collect();
    if pools.is_empty() {
        return Ok(());
    }
    let oldest = maker.clock.now_utc()
        - chrono::Duration::from_std(shared.hold + SLACK).unwrap_or(chrono::Duration::MAX);
    for (key, (pool, rated)) in pools {
        let lease = match &shared.node {
            Some(node) => match node.serving_lease() {
                Some(lease) => Some(lease),
                None => return Ok(()),
            },
            None => None,
        };
        let node_id = shared.node.as_ref().map(|node| node.id());
        let stored = shared
            .pg
            .pair_pool(&key, node_id, oldest, |rows| {
                decide(rows, pool, rated, maker)
            })
            .await?;
        for (Staged(game), claim) in stored {
            let ownership = match (&shared.node, lease, claim) {
                (Some(node), Some(lease), Some(claim)) => Some(node.owned(lease, claim)),
                _ => None,
            };
            let room_id = game.prepared.room_id();
            let invite_code = game.prepared.room.invite_code.clone();
            maker.registry.start_prepared(game.prepared, ownership);
            maker.announce(room_id, &invite_code, pool, &game.seats);
        }
    }
    answer_paired(shared).await
}

/// The games the policy finds among `rows` of `pool` (its rated side when `rated`), staged.
fn decide(rows: Vec<WaitingRow>, pool: Pool, rated: bool, maker: &Maker) -> Vec<Staged> {
    let waiting: Vec<Waiting> = rows
        .iter()
        .map(|row| Waiting {
            id: row.id,
            user: row.user_id,
            rating: row.rating,
            since_ms: row.since.timestamp_millis(),
            last_opponents: row.last_opponents.clone(),
            last_seat: row.last_seat,
        })
        .collect();
    let coin = rand::rng().random();
    let pairings = policy::pair(&waiting, maker.now_ms(), usize::from(pool.players), coin);
    let mut games = Vec::with_capacity(pairings.len());
    for pairing in pairings {
        let members = pairing
            .seats
            .iter()
            .filter_map(|id| rows.iter().find(|row| row.id == *id))
            .map(|row| Member {
                entry: row.id,
                name: row.name.clone(),
                user: row.user_id,
                token_hash: row.token_hash,
            })
            .collect();
        match maker.stage(pool, rated, members) {
            Ok(game) => games.push(Staged(game)),
            Err(e) => warn!(error = %e, "a pairing's room could not be staged"),
        }
    }
    games
}

/// Answers this node's requests whose rows were paired.
async fn answer_paired(shared: &Shared) -> Result<(), StoreError> {
    let ids: Vec<Uuid> = shared.local().keys().copied().collect();
    if ids.is_empty() {
        return Ok(());
    }
    for row in shared.pg.paired_rows(&ids).await? {
        if let Some(local) = shared.local().remove(&row.id) {
            let _ = local.reply.send(Placed {
                room_id: row.room_id,
                invite_code: row.invite_code,
                seat: row.seat,
            });
        }
    }
    Ok(())
}
