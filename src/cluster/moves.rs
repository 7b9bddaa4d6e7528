//! Which rooms moved to another owner, for the relays of this node: a relay linked to a room's
//! owner at some epoch must end as soon as the room is claimed again (its owner was paused past
//! its lease, say), or its clients would wait on a node that serves the room no more.
//!
//! Claims notify on [`OWNER_CHANNEL`](crate::store::postgres::OWNER_CHANNEL); one `LISTEN` connection per node ([`listen`]) feeds the
//! new epochs to the relays' watches. Notifications are not durable: when the listener loses its
//! connection, and once every `recheck` in any case, every watched room's epoch is read again
//! from the rooms table, the source of truth ([`repair`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;
use tracing::warn;
use uuid::Uuid;

use crate::store::postgres::PgStore;
use crate::telemetry;

/// The owner epochs of the rooms this node's relays are linked to.
#[derive(Debug, Default)]
pub struct Moves {
    watched: Mutex<HashMap<Uuid, Watched>>,
}

#[derive(Debug)]
struct Watched {
    /// The highest epoch known for the room.
    epoch: watch::Sender<i64>,
    /// The relays watching it; the entry goes with the last.
    relays: usize,
}

/// One relay's watch on its room (see [`Moves::watch`]).
#[derive(Debug)]
pub struct MoveWatch {
    moves: Arc<Moves>,
    room_id: Uuid,
    linked: i64,
    epoch: watch::Receiver<i64>,
}

impl Moves {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Watched>> {
        // Entries are inserted, counted and removed whole: a panic cannot leave one half-made.
        self.watched
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Watches `room_id` for a relay about to read the room's owner: from now on no claim this
    /// node hears of is missed, even one noted before the relay knows the epoch it links to
    /// ([`MoveWatch::link`]).
    pub fn watch(self: &Arc<Self>, room_id: Uuid) -> MoveWatch {
        let mut entries = self.entries();
        let entry = entries.entry(room_id).or_insert_with(|| Watched {
            epoch: watch::channel(0).0,
            relays: 0,
        });
        entry.relays += 1;
        MoveWatch {
            moves: self.clone(),
            room_id,
            linked: 0,
            epoch: entry.epoch.subscribe(),
        }
    }

    /// Records that `room_id` has owner epoch `epoch` (or a later one); returns whether that is
    /// news to this node's relays.
    pub fn saw(&self, room_id: Uuid, epoch: i64) -> bool {
        let entries = self.entries();
        let Some(entry) = entries.get(&room_id) else {
            return false;
        };
        entry.epoch.send_if_modified(|known| {
            let newer = epoch > *known;
            *known = (*known).max(epoch);
            newer
        })
    }

    /// The rooms watched now.
    pub fn rooms(&self) -> Vec<Uuid> {
        self.entries().keys().copied().collect()
    }
}

impl MoveWatch {
    /// The relay links to the owner of epoch `linked` (read after [`Moves::watch`]): a claim
    /// at a later epoch, noted since the watch began or from now on, ends it.
    pub fn link(&mut self, linked: i64) {
        self.linked = linked;
        if let Some(entry) = self.moves.entries().get(&self.room_id) {
            entry.epoch.send_if_modified(|epoch| {
                let newer = linked > *epoch;
                *epoch = (*epoch).max(linked);
                newer
            });
        }
    }

    /// Returns once the room has been claimed at an epoch other than the one linked to. Cancel-safe.
    pub async fn moved(&mut self) {
        let linked = self.linked;
        // The sender lives as long as this watch's entry does.
        let _ = self.epoch.wait_for(|epoch| *epoch != linked).await;
    }
}

impl Drop for MoveWatch {
    fn drop(&mut self) {
        let mut entries = self.moves.entries();
        if let Some(entry) = entries.get_mut(&self.room_id) {
            entry.relays -= 1;
            if entry.relays == 0 {
                entries.remove(&self.room_id);
            }
        }
    }
}

/// A notification's payload, `"{room_id} {epoch} {ms}"`: the room, its new epoch, and when the
/// claim ran (ms since 1970 on the database's clock). `None` for anything else.
pub fn parse_payload(payload: &str) -> Option<(Uuid, i64, i64)> {
    let mut parts = payload.split(' ');
    let room = Uuid::parse_str(parts.next()?).ok()?;
    let epoch = parts.next()?.parse().ok()?;
    let ms = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((room, epoch, ms))
}

/// Reads every watched room's epoch from the rooms table and ends the relays of those that
/// moved. Returns how many moved.
pub async fn repair(store: &PgStore, moves: &Moves) -> usize {
    let rooms = moves.rooms();
    if rooms.is_empty() {
        return 0;
    }
    match store.owner_epochs(&rooms).await {
        Ok(epochs) => {
            let moved = epochs
                .into_iter()
                .filter(|&(room, epoch)| moves.saw(room, epoch))
                .count();
            for _ in 0..moved {
                telemetry::move_repaired();
            }
            moved
        }
        Err(e) => {
            warn!(error = %e, "could not read the relayed rooms' owners");
            0
        }
    }
}

/// Listens on [`OWNER_CHANNEL`](crate::store::postgres::OWNER_CHANNEL) for as long as the process runs, feeding `moves`; after every
/// (re)connection, every watched room is repaired from the table, for whatever was missed.
pub async fn listen(store: PgStore, moves: Arc<Moves>, retry: Duration) {
    loop {
        let mut listener = match store.owner_listener().await {
            Ok(listener) => listener,
            Err(e) => {
                warn!(error = %e, "could not listen for room claims; retrying");
                tokio::time::sleep(retry).await;
                continue;
            }
        };
        repair(&store, &moves).await;
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => {
                    let Some((room, epoch, ms)) = parse_payload(notification.payload()) else {
                        warn!(
                            payload = notification.payload(),
                            "unreadable claim notification"
                        );
                        continue;
                    };
                    let now_ms = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis());
                    let lag = u64::try_from(now_ms.saturating_sub(ms.max(0) as u128));
                    telemetry::owner_notification_lag(Duration::from_millis(lag.unwrap_or(0)));
                    moves.saw(room, epoch);
                }
                // The connection was lost; the next call reconnects and listens again.
                Ok(None) => {
                    warn!("the claim listener lost its connection; repairing from the rooms table");
                    telemetry::listener_gap();
                    repair(&store, &moves).await;
                }
                Err(e) => {
                    warn!(error = %e, "the claim listener failed; reconnecting");
                    telemetry::listener_gap();
                    tokio::time::sleep(retry).await;
                    break;
                }
            }
        }
    }
}

/// Repairs every watched room from the rooms table every `every`: the backstop for a
/// notification lost some way the listener cannot see.
pub async fn recheck(store: PgStore, moves: Arc<Moves>, every: Duration) {
    let mut ticker = tokio::time::interval(every);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        repair(&store, &moves).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_is_a_room_an_epoch_and_a_time() {
        let room = Uuid::new_v4();
        assert_eq!(
            parse_payload(&format!("{room} 7 1764590000000")),
            Some((room, 7, 1_764_590_000_000))
        );
        assert_eq!(parse_payload(&format!("{room} 7")), None);
        assert_eq!(parse_payload(&format!("{room} 7 1 extra")), None);
        assert_eq!(parse_payload("nonsense 7 1"), None);
    }

    fn linked(moves: &Arc<Moves>, room: Uuid, epoch: i64) -> MoveWatch {
        let mut watch = moves.watch(room);
        watch.link(epoch);
        watch
    }

    #[tokio::test]
    async fn a_relay_learns_of_a_later_epoch_only_and_the_entry_goes_with_the_last_relay() {
        let moves = Arc::new(Moves::default());
        let room = Uuid::new_v4();
        let mut first = linked(&moves, room, 3);
        let second = linked(&moves, room, 3);
        assert!(!moves.saw(room, 2), "an older epoch is no news");
        assert!(!moves.saw(room, 3), "nor the linked one");
        assert!(!moves.saw(Uuid::new_v4(), 9), "nor a room nobody watches");
        let waiting = tokio::time::timeout(Duration::from_millis(20), first.moved()).await;
        assert!(waiting.is_err(), "not moved yet");
        assert!(moves.saw(room, 4));
        tokio::time::timeout(Duration::from_secs(1), first.moved())
            .await
            .expect("moved");
        drop(first);
        assert_eq!(moves.rooms(), [room]);
        drop(second);
        assert!(moves.rooms().is_empty());
    }

    #[tokio::test]
    async fn a_relay_linked_after_a_move_it_missed_is_told_at_once() {
        let moves = Arc::new(Moves::default());
        let room = Uuid::new_v4();
        let _old = linked(&moves, room, 3);
        assert!(moves.saw(room, 5));
        // Linked to the owner of epoch 4, already superseded by 5.
        let mut late = linked(&moves, room, 4);
        tokio::time::timeout(Duration::from_secs(1), late.moved())
            .await
            .expect("moved");
    }

    /// Issue 24's race: `relay::open` read the owner before it watched the room, so a claim
    /// noted in between found no watch and was lost until the next recheck (up to a TTL). Now
    /// the watch comes first and keeps what it hears until the relay links.
    #[tokio::test]
    async fn a_claim_noted_between_the_watch_and_the_owner_read_ends_the_relay_at_once() {
        let moves = Arc::new(Moves::default());
        let room = Uuid::new_v4();
        let mut watch = moves.watch(room);
        assert!(moves.saw(room, 5), "noted while the owner of epoch 4 was being read");
        watch.link(4);
        tokio::time::timeout(Duration::from_secs(1), watch.moved())
            .await
            .expect("moved");
    }
}
