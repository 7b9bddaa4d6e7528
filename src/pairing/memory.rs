//! The pairing queue of a single node on SQLite: the pools in the process, under one lock.
//!
//! A request adds its entry and waits on a oneshot; the rounds ([`run`]: at every new entry, and
//! every [`ROUND`]) take the games the policy finds out of the pools under the lock, skipping
//! any whose player has gone away (their entries are theirs to remove), then make each game's
//! room and answer its players.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::Rng;
use tokio::sync::{Notify, oneshot, watch};
use tracing::warn;
use uuid::Uuid;

use super::policy::{self, Waiting};
use super::{Entry, Maker, Member, PairingError, Placed, Pool, ROUND, Seated, color};
use crate::room::token::new_seat_token;

/// One waiting request.
struct Held {
    pool: Pool,
    rated: bool,
    waiting: Waiting,
    name: Option<String>,
    token_hash: [u8; 32],
    reply: oneshot::Sender<Result<Placed, String>>,
}

/// The pools of this process, by pool key.
#[derive(Default)]
pub struct Memory {
    pools: Mutex<HashMap<String, Vec<Held>>>,
}

impl Memory {
    fn pools(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Held>>> {
        // Entries are pushed and removed whole: a panic cannot leave one half-made.
        self.pools
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many players wait in each pool that has any, by pool key.
    pub fn waiting_counts(&self) -> HashMap<String, usize> {
        self.pools()
            .iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(key, list)| (key.clone(), list.len()))
            .collect()
    }
}

/// Takes the entry out of its pool when its request ends unanswered.
struct Leave<'a> {
    memory: &'a Memory,
    key: String,
    id: Uuid,
}

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        if let Some(list) = self.memory.pools().get_mut(&self.key) {
            list.retain(|held| held.waiting.id != self.id);
        }
    }
}

/// See [`Pairing::wait`](super::Pairing::wait).
pub(super) async fn wait(
    memory: &Memory,
    entry: Entry,
    (since_ms, hold): (i64, Duration),
    wake: &Notify,
) -> Result<Option<Seated>, PairingError> {
    let (seat_token, token_hash) = new_seat_token();
    let (reply, answer) = oneshot::channel();
    let key = entry.pool.key(entry.rated);
    let id = Uuid::new_v4();
    {
        let mut pools = memory.pools();
        if entry.user.is_some()
            && pools
                .values()
                .flatten()
                .any(|held| held.waiting.user == entry.user)
        {
            return Err(PairingError::AlreadyWaiting);
        }
        pools.entry(key.clone()).or_default().push(Held {
            pool: entry.pool,
            rated: entry.rated,
            waiting: Waiting {
                id,
                user: entry.user,
                rating: entry.rating,
                since_ms,
                last_opponents: entry.last.opponents,
                last_seat: entry.last.seat,
            },
            name: entry.name,
            token_hash,
            reply,
        });
    }
    let _leave = Leave { memory, key, id };
    wake.notify_one();
    let placed = tokio::select! {
        placed = answer => placed,
        () = tokio::time::sleep(hold) => return Ok(None),
    };
    match placed {
        Ok(Ok(placed)) => Ok(Some(Seated {
            color: color(&entry.pool, placed.seat),
            room_id: placed.room_id,
            invite_code: placed.invite_code,
            seat: placed.seat,
            seat_token,
        })),
        Ok(Err(why)) => Err(PairingError::Unavailable(why)),
        Err(_) => Err(PairingError::Unavailable("the pairing stopped".into())),
    }
}

/// The rounds of `memory`'s pools until `shutdown` turns true.
pub(super) async fn run(
    memory: Arc<Memory>,
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
        for game in take_games(&memory, &maker) {
            make(game, &maker).await;
        }
    }
}

/// The games the policy finds now, taken out of the pools (with their members in seat order).
fn take_games(memory: &Memory, maker: &Maker) -> Vec<Vec<Held>> {
    let now = maker.now_ms();
    let mut pools = memory.pools();
    let mut games = Vec::new();
    for list in pools.values_mut() {
        let Some(pool) = list.first().map(|held| held.pool) else {
            continue;
        };
        let waiting: Vec<Waiting> = list
            .iter()
            .filter(|held| !held.reply.is_closed())
            .map(|held| held.waiting.clone())
            .collect();
        let coin = rand::rng().random();
        for pairing in policy::pair(&waiting, now, usize::from(pool.players), coin) {
            let mut members = Vec::with_capacity(pairing.seats.len());
            for id in pairing.seats {
                if let Some(at) = list.iter().position(|h| h.waiting.id == id) {
                    members.push(list.swap_remove(at));
                }
            }
            games.push(members);
        }
    }
    games
}

/// Makes the room of `members` (in seat order) and answers them.
async fn make(members: Vec<Held>, maker: &Maker) {
    let Some((pool, rated)) = members.first().map(|held| (held.pool, held.rated)) else {
        return;
    };
    let staged = members
        .iter()
        .map(|held| Member {
            entry: held.waiting.id,
            name: held.name.clone(),
            user: held.waiting.user,
            token_hash: held.token_hash,
        })
        .collect();
    let made = match maker.stage(pool, rated, staged) {
        Ok(game) => {
            let room_id = game.prepared.room_id();
            let invite_code = game.prepared.room.invite_code.clone();
            match maker.registry.create_prepared(game.prepared).await {
                Ok(_) => {
                    maker.announce(room_id, &invite_code, pool, &game.seats);
                    Ok((room_id, invite_code))
                }
                Err(e) => Err(e.to_string()),
            }
        }
        Err(e) => Err(e.to_string()),
    };
    if let Err(why) = &made {
        warn!(%why, "a pairing's room could not be made");
    }
    for (seat, held) in (0..).zip(members) {
        let answer = made.clone().map(|(room_id, invite_code)| Placed {
            room_id,
            invite_code,
            seat,
        });
        let _ = held.reply.send(answer);
    }
}
