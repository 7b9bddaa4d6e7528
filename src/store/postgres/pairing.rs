//! The pairing queue in PostgreSQL (migration `0014_pairing`): the players waiting in the pools
//! of every node, and the one transaction that pairs a pool ([`PgStore::pair_pool`]).
//!
//! That transaction takes the pool's advisory lock for its own duration (a node that finds it
//! taken leaves this round to the node holding it, which sees the whole pool), locks the pool's
//! waiting rows `FOR UPDATE SKIP LOCKED` (a row being deleted by a client that went away is
//! skipped, not waited for), lets the caller decide the games, and writes each game's room and
//! the rows' `room_id` and `seat` before it commits: a row is paired once, however many nodes
//! run it at once. The holders of the paired rows are told by a notice on [`PAIRING_CHANNEL`]
//! (a hint: they also read their rows' state every round).

use chrono::{DateTime, Utc};
use sqlx::Row;
use uuid::Uuid;

use super::{PgStore, claim};
use crate::rules::Seat;
use crate::store::postgres::{Claim, Pg};
use crate::store::{Commit, RoomRow, StoreError, queries, truncate_to_micros};

/// The channel paired rows are announced on: the payload is their ids, separated by spaces.
pub const PAIRING_CHANNEL: &str = "khanate_pairing";

/// How many ids one notice names at most (36 bytes and a space each: well under the 8000-byte
/// limit of a payload).
const IDS_PER_NOTICE: usize = 100;

/// A player waiting in a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitingRow {
    /// The entry's id (its request's).
    pub id: Uuid,
    /// The player's account, if logged in.
    pub user_id: Option<Uuid>,
    /// The player's display name.
    pub name: Option<String>,
    /// The rating the pool pairs by.
    pub rating: i32,
    /// SHA-256 of the seat token the holder made for the player.
    pub token_hash: [u8; 32],
    /// The accounts of the player's last game's opponents.
    pub last_opponents: Vec<Uuid>,
    /// The player's seat in that game.
    pub last_seat: Option<Seat>,
    /// When the player began waiting.
    pub since: DateTime<Utc>,
}

/// A paired row, as its holder reads it to answer its player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairedRow {
    /// The entry's id.
    pub id: Uuid,
    /// The room made.
    pub room_id: Uuid,
    /// The room's invite code.
    pub invite_code: String,
    /// The player's seat.
    pub seat: Seat,
}

/// A game the pairing transaction stores: the room's row and first commit, and the waiting
/// entries it seats.
pub trait PairedRoom {
    /// The room's row.
    fn room(&self) -> &RoomRow;
    /// Its seats and first events.
    fn commit(&self) -> &Commit;
    /// The entries seated, with their seats.
    fn entries(&self) -> Vec<(Uuid, Seat)>;
}

impl PgStore {
    /// Adds a waiting player to `pool`, held by the node `holder` (`None` on a single node).
    /// `Ok(false)`, nothing written: the player's account already waits in a pool.
    pub async fn join_pool(
        &self,
        pool: &str,
        row: &WaitingRow,
        holder: Option<Uuid>,
    ) -> Result<bool, StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO pairing_waiting (id, pool, user_id, name, rating, token_hash, \
                                          last_opponents, last_seat, holder, since) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(row.id)
        .bind(pool)
        .bind(row.user_id)
        .bind(&row.name)
        .bind(row.rating)
        .bind(&row.token_hash[..])
        .bind(&row.last_opponents)
        .bind(row.last_seat.map(i16::from))
        .bind(holder)
        .bind(truncate_to_micros(row.since))
        .execute(&self.pool)
        .await;
        match inserted.map_err(StoreError::from) {
            Ok(_) => Ok(true),
            Err(e) if e.is_unique_violation() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Takes the entry `id` out of its pool unless it was paired; returns whether it was
    /// still waiting.
    pub async fn leave_pool(&self, id: Uuid) -> Result<bool, StoreError> {
        let deleted = sqlx::query("DELETE FROM pairing_waiting WHERE id = $1 AND room_id IS NULL")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(deleted.rows_affected() > 0)
    }

    /// Deletes the entries `ids`, paired or not (their players were answered).
    pub async fn forget_waiting(&self, ids: &[Uuid]) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM pairing_waiting WHERE id = ANY($1)")
            .bind(ids)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deletes the entries older than `before` (a crashed node's), and with `holderless` every
    /// entry no node holds (a single node's, at its start: their requests died with the
    /// process); returns how many.
    pub async fn forget_stale_waiting(
        &self,
        before: DateTime<Utc>,
        holderless: bool,
    ) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("DELETE FROM pairing_waiting WHERE since < $1 OR ($2 AND holder IS NULL)")
                .bind(before)
                .bind(holderless)
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )
    }

    /// How many players wait in each pool that has any, by pool key.
    pub async fn waiting_counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT pool, count(*) FROM pairing_waiting WHERE room_id IS NULL GROUP BY pool",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Those of the entries `ids` that have been paired.
    pub async fn paired_rows(&self, ids: &[Uuid]) -> Result<Vec<PairedRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT w.id, w.room_id, r.invite_code, w.seat FROM pairing_waiting w \
             JOIN rooms r ON r.id = w.room_id WHERE w.id = ANY($1)",
        )
        .bind(ids)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let seat: i16 = row.try_get("seat")?;
                Ok(PairedRow {
                    id: row.try_get("id")?,
                    room_id: row.try_get("room_id")?,
                    invite_code: row.try_get("invite_code")?,
                    seat: Seat::try_from(seat)
                        .map_err(|_| StoreError::Corrupt(format!("pairing seat {seat}")))?,
                })
            })
            .collect()
    }

    /// One pairing round of `pool` (see the module's doc): the waiting rows since `oldest`
    /// whose holder is alive are handed to `decide`, and the games it returns are stored with
    /// their rows paired, each room claimed by `node` in cluster mode, all in one transaction.
    /// Returns the games stored with their claims; none when another node is pairing the pool
    /// right now. Errors: [`StoreError::OwnedElsewhere`] when `node`'s lease is not alive
    /// (nothing written); the database failed.
    pub async fn pair_pool<T: PairedRoom>(
        &self,
        pool: &str,
        node: Option<Uuid>,
        oldest: DateTime<Utc>,
        decide: impl FnOnce(Vec<WaitingRow>) -> Vec<T>,
    ) -> Result<Vec<(T, Option<Claim>)>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let leader: bool = sqlx::query_scalar(
            "SELECT pg_try_advisory_xact_lock(hashtext('khanate pairing ' || $1))",
        )
        .bind(pool)
        .fetch_one(&mut *tx)
        .await?;
        if !leader {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(
            "SELECT w.id, w.user_id, w.name, w.rating, w.token_hash, w.last_opponents, \
                    w.last_seat, w.since \
             FROM pairing_waiting w \
             WHERE w.pool = $1 AND w.room_id IS NULL AND w.since > $2 \
               AND (w.holder IS NULL OR EXISTS ( \
                    SELECT 1 FROM nodes n WHERE n.id = w.holder AND n.lease_expires_at > now())) \
             ORDER BY w.since, w.id FOR UPDATE OF w SKIP LOCKED",
        )
        .bind(pool)
        .bind(oldest)
        .fetch_all(&mut *tx)
        .await?;
        let waiting = rows
            .iter()
            .map(waiting_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        let games = decide(waiting);
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let mut stored = Vec::with_capacity(games.len());
        let mut paired = Vec::new();
        for game in games {
            let room = game.room();
            queries::insert_room::<Pg>(&mut tx, room, game.commit().expected_version).await?;
            queries::apply::<Pg>(&mut tx, game.commit()).await?;
            let claimed = match node {
                Some(node) => Some(
                    claim(&mut tx, node, room.id, None)
                        .await?
                        .ok_or(StoreError::OwnedElsewhere { room_id: room.id })?,
                ),
                None => None,
            };
            for (entry, seat) in game.entries() {
                sqlx::query("UPDATE pairing_waiting SET room_id = $1, seat = $2 WHERE id = $3")
                    .bind(room.id)
                    .bind(i16::from(seat))
                    .bind(entry)
                    .execute(&mut *tx)
                    .await?;
                paired.push(entry.to_string());
            }
            stored.push((game, claimed));
        }
        for ids in paired.chunks(IDS_PER_NOTICE) {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(PAIRING_CHANNEL)
                .bind(ids.join(" "))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(stored)
    }
}

fn waiting_from_row(row: &sqlx::postgres::PgRow) -> Result<WaitingRow, StoreError> {
    let hash: Vec<u8> = row.try_get("token_hash")?;
    let seat: Option<i16> = row.try_get("last_seat")?;
    Ok(WaitingRow {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        name: row.try_get("name")?,
        rating: row.try_get("rating")?,
        token_hash: hash
            .try_into()
            .map_err(|_| StoreError::Corrupt("pairing token hash".into()))?,
        last_opponents: row.try_get("last_opponents")?,
        last_seat: seat.and_then(|s| Seat::try_from(s).ok()),
        since: row.try_get("since")?,
    })
}
