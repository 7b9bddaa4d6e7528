//! The cluster's statements (PostgreSQL only): node leases and room ownership, every time taken
//! from the database's clock (`now()`), so the nodes' own clocks never have to agree.

use std::time::Duration;

use uuid::Uuid;

use sqlx::PgConnection;

use super::{Pg, PgStore};
use crate::store::{Commit, RoomRow, StoreError, queries};

/// A successful claim of a room (see [`PgStore::claim_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The room's new owner epoch: every commit of this node for the room carries it.
    pub epoch: i64,
    /// Whether another node owned the room before (its lease had expired): a takeover.
    pub took_over: bool,
}

/// The channel claims notify on. A payload is `"{room_id} {epoch} {ms}"`: the room, its new owner
/// epoch, and when the claim ran (milliseconds since 1970 on the database's clock, for the lag).
pub const OWNER_CHANNEL: &str = "khanate_owner";

/// Where a room is served: its owner node with a live lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// The owner's node id.
    pub node: Uuid,
    /// The owner's `--advertise-url`.
    pub url: String,
    /// The room's owner epoch.
    pub epoch: i64,
}

/// See [`PgStore::claim_room`]; on `conn`, so that a creation can claim in its transaction. With
/// `expected`, only while the room's owner epoch is still that one (see
/// [`PgStore::claim_unchanged`]).
pub(in crate::store) async fn claim(
    conn: &mut PgConnection,
    node: Uuid,
    room_id: Uuid,
    expected: Option<i64>,
) -> Result<Option<Claim>, StoreError> {
    let claimed: Option<(i64, Option<Uuid>)> = sqlx::query_as(
        // `previous` is read from the statement's snapshot, before the update: only the
        // takeover count depends on it, never who owns the room.
        "WITH claimed AS ( \
           UPDATE rooms SET owner_node = $1, owner_epoch = rooms.owner_epoch + 1 \
           FROM (SELECT owner_node AS previous FROM rooms WHERE id = $2) AS before \
           WHERE rooms.id = $2 \
             AND ($4::bigint IS NULL OR rooms.owner_epoch = $4) \
             AND EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND lease_expires_at > now()) \
             AND (rooms.owner_node IS NULL OR rooms.owner_node = $1 OR NOT EXISTS ( \
                  SELECT 1 FROM nodes \
                  WHERE nodes.id = rooms.owner_node AND nodes.lease_expires_at > now())) \
           RETURNING rooms.id, rooms.owner_epoch, before.previous) \
         SELECT claimed.owner_epoch, claimed.previous FROM claimed, LATERAL ( \
           SELECT pg_notify($3, claimed.id::text || ' ' || claimed.owner_epoch || ' ' || \
             (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) AS notified",
    )
    .bind(node)
    .bind(room_id)
    .bind(OWNER_CHANNEL)
    .bind(expected)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(claimed.map(|(epoch, before)| Claim {
        epoch,
        took_over: before.is_some_and(|owner| owner != node),
    }))
}

/// What became of a hand-off (see [`PgStore::hand_off_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandOff {
    /// The other node owns the room now.
    Done,
    /// The other node's lease is not alive: the room stays.
    TargetGone,
    /// This node no longer owns the room at its epoch: another node claimed it.
    NotOurs,
}

/// What a look-up of a room in cluster mode needs before it claims anything (see
/// [`PgStore::room_standing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The game is over.
    pub finished: bool,
    /// The room's owner epoch.
    pub epoch: i64,
    /// Another node with a live lease owns the room.
    pub owned_elsewhere: bool,
}

/// A lease length as PostgreSQL `interval` text (milliseconds).
fn interval(ttl: Duration) -> String {
    format!("{} milliseconds", ttl.as_millis())
}

impl PgStore {
    /// Adds this node's row with a lease of `ttl` from the database's `now()`, unless another
    /// node with a live lease advertises the same URL: then `Ok(false)` and nothing is written.
    /// Two nodes joining with one URL at once are serialized by an advisory lock on the URL, so
    /// at most one of them gets in.
    pub async fn register_node(
        &self,
        node: Uuid,
        advertise_url: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtext('khanate node ' || $1))")
            .bind(advertise_url)
            .execute(&mut *tx)
            .await?;
        // A statement of its own after the lock: its snapshot sees a rival's committed row.
        let taken: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM nodes \
             WHERE advertise_url = $1 AND lease_expires_at > now())",
        )
        .bind(advertise_url)
        .fetch_one(&mut *tx)
        .await?;
        if taken {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO nodes (id, advertise_url, lease_expires_at) \
             VALUES ($1, $2, now() + $3::interval)",
        )
        .bind(node)
        .bind(advertise_url)
        .bind(interval(ttl))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The cluster's secret verifier (see migration `0011_cluster_trust.sql`): the stored one,
    /// or `verifier` itself when none was stored yet (it is stored then, by this call).
    pub async fn secret_verifier(&self, verifier: &[u8]) -> Result<Vec<u8>, StoreError> {
        sqlx::query(
            "INSERT INTO cluster_trust (secret_verifier) VALUES ($1) ON CONFLICT DO NOTHING",
        )
        .bind(verifier)
        .execute(&self.pool)
        .await?;
        // A second statement: it sees a row a rival inserted since the first one's snapshot.
        Ok(
            sqlx::query_scalar("SELECT secret_verifier FROM cluster_trust")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Extends this node's lease to `ttl` from the database's `now()`. Errors: the database
    /// failed, or the node's row is gone (`RowNotFound`).
    pub async fn renew_lease(&self, node: Uuid, ttl: Duration) -> Result<(), StoreError> {
        let renewed =
            sqlx::query("UPDATE nodes SET lease_expires_at = now() + $2::interval WHERE id = $1")
                .bind(node)
                .bind(interval(ttl))
                .execute(&self.pool)
                .await?;
        if renewed.rows_affected() == 0 {
            return Err(StoreError::Database(sqlx::Error::RowNotFound));
        }
        Ok(())
    }

    /// Makes `node` the owner of `room_id` in one statement, bumping its owner epoch, when the
    /// room has no owner, its owner is `node`, or its owner's lease has expired, and `node`'s own
    /// lease is alive. `Ok(None)`: no such room, or another node with a live lease owns it.
    /// A claim also sends a notification on [`OWNER_CHANNEL`] (delivered when it commits), so
    /// that every node relaying clients to the room's old owner learns at once that it moved.
    pub async fn claim_room(&self, node: Uuid, room_id: Uuid) -> Result<Option<Claim>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        claim(&mut conn, node, room_id, None).await
    }

    /// [`PgStore::claim_room`], only while the room's owner epoch is still `epoch` (nobody claimed
    /// it since it was read), and then the room's stored version and last chat `seq`, read after
    /// the claim (no other node can write them any more): what a node serving a finished room
    /// without a claim checks its copy against before its first write. `Ok(None)`: the room was
    /// claimed since, or another node with a live lease owns it, or this node's lease is not
    /// alive.
    pub async fn claim_unchanged(
        &self,
        node: Uuid,
        room_id: Uuid,
        epoch: i64,
    ) -> Result<Option<(Claim, i64, i64)>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let Some(claimed) = claim(&mut conn, node, room_id, Some(epoch)).await? else {
            return Ok(None);
        };
        let (version, seq): (i64, Option<i64>) = sqlx::query_as(
            "SELECT version, (SELECT max(seq) FROM chat_messages WHERE room_id = $1) \
             FROM rooms WHERE id = $1",
        )
        .bind(room_id)
        .fetch_one(&mut *conn)
        .await?;
        Ok(Some((claimed, version, seq.unwrap_or(0))))
    }

    /// Whether `room_id` is finished, its owner epoch, and whether another node than `node` with
    /// a live lease owns it, read in one statement. `Ok(None)`: no such room.
    pub async fn room_standing(
        &self,
        node: Uuid,
        room_id: Uuid,
    ) -> Result<Option<Standing>, StoreError> {
        let standing: Option<(bool, i64, bool)> = sqlx::query_as(
            "SELECT r.status = 'finished', r.owner_epoch, EXISTS ( \
               SELECT 1 FROM nodes n WHERE n.id = r.owner_node AND n.id <> $2 \
                 AND n.lease_expires_at > now()) \
             FROM rooms r WHERE r.id = $1",
        )
        .bind(room_id)
        .bind(node)
        .fetch_optional(&self.pool)
        .await?;
        Ok(standing.map(|(finished, epoch, owned_elsewhere)| Standing {
            finished,
            epoch,
            owned_elsewhere,
        }))
    }

    /// Creates a room as [`Store::create_room`](crate::store::Store::create_room) does, owned
    /// by `node` from the start (claimed in the same transaction, so no other node's sweep can
    /// take a room that is being created). `Ok(None)`, with nothing written: `node`'s lease is
    /// not alive. Errors: those of `create_room`.
    pub async fn create_owned_room(
        &self,
        node: Uuid,
        room: &RoomRow,
        commit: &Commit,
    ) -> Result<Option<Claim>, StoreError> {
        if commit.room_id != room.id {
            return Err(StoreError::Corrupt(format!(
                "refusing to write: commit for room {} given to create room {}",
                commit.room_id, room.id
            )));
        }
        let mut tx = self.pool.begin().await?;
        queries::insert_room::<Pg>(&mut tx, room, commit.expected_version).await?;
        queries::apply::<Pg>(&mut tx, commit).await?;
        let claimed = claim(&mut tx, node, room.id, None).await?;
        if claimed.is_some() {
            tx.commit().await?;
        }
        Ok(claimed)
    }

    /// Gives up every room `node` owns (their epochs stay, so a late commit of this node is still
    /// fenced once another node claims the room) and removes its row. Returns how many rooms.
    pub async fn release_node(&self, node: Uuid) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let released = sqlx::query("UPDATE rooms SET owner_node = NULL WHERE owner_node = $1")
            .bind(node)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        sqlx::query("DELETE FROM nodes WHERE id = $1")
            .bind(node)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(released)
    }

    /// Hands `room_id`, owned by `node` at `epoch`, to the live node `to` (the node its clients
    /// come through; see `docs/deploy/cluster.md`, "The proxy"): `to` becomes its owner at the
    /// next epoch, notified on [`OWNER_CHANNEL`] like a claim, and starts its task at its own
    /// claim when a client reaches it. Nothing is written when `node` no longer owns the room at
    /// `epoch` ([`HandOff::NotOurs`]) or `to`'s lease is not alive ([`HandOff::TargetGone`]).
    pub async fn hand_off_room(
        &self,
        node: Uuid,
        room_id: Uuid,
        epoch: i64,
        to: Uuid,
    ) -> Result<HandOff, StoreError> {
        let moved: Option<i64> = sqlx::query_scalar(
            "WITH moved AS ( \
               UPDATE rooms SET owner_node = $4, owner_epoch = owner_epoch + 1 \
               WHERE id = $1 AND owner_node = $2 AND owner_epoch = $3 \
                 AND EXISTS (SELECT 1 FROM nodes WHERE id = $4 AND lease_expires_at > now()) \
               RETURNING id, owner_epoch) \
             SELECT moved.owner_epoch FROM moved, LATERAL ( \
               SELECT pg_notify($5, moved.id::text || ' ' || moved.owner_epoch || ' ' || \
                 (extract(epoch FROM clock_timestamp()) * 1000)::bigint)) AS notified",
        )
        .bind(room_id)
        .bind(node)
        .bind(epoch)
        .bind(to)
        .bind(OWNER_CHANNEL)
        .fetch_optional(&self.pool)
        .await?;
        if moved.is_some() {
            return Ok(HandOff::Done);
        }
        let ours: Option<bool> = sqlx::query_scalar(
            "SELECT owner_node = $2 AND owner_epoch = $3 FROM rooms WHERE id = $1",
        )
        .bind(room_id)
        .bind(node)
        .bind(epoch)
        .fetch_optional(&self.pool)
        .await?;
        Ok(if ours == Some(true) {
            HandOff::TargetGone
        } else {
            HandOff::NotOurs
        })
    }

    /// The node serving `room_id`: its owner, if that owner's lease is alive on the database
    /// clock. `None`: no such room, or nobody alive owns it (it may be claimed).
    pub async fn owner_of(&self, room_id: Uuid) -> Result<Option<Owner>, StoreError> {
        let owner: Option<(Uuid, String, i64)> = sqlx::query_as(
            "SELECT nodes.id, nodes.advertise_url, rooms.owner_epoch \
             FROM rooms JOIN nodes ON nodes.id = rooms.owner_node \
             WHERE rooms.id = $1 AND nodes.lease_expires_at > now()",
        )
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(owner.map(|(node, url, epoch)| Owner { node, url, epoch }))
    }

    /// The owner epochs of those of `rooms` that exist, as `(room id, epoch)`.
    pub async fn owner_epochs(&self, rooms: &[Uuid]) -> Result<Vec<(Uuid, i64)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT id, owner_epoch FROM rooms WHERE id = ANY($1)")
                .bind(rooms)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// At most `limit` unfinished rooms that nobody alive owns: released by a node that shut
    /// down, or owned by a node whose lease expired (or whose row is gone), oldest first.
    pub async fn orphaned_rooms(&self, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM rooms \
             WHERE status <> 'finished' AND NOT EXISTS ( \
               SELECT 1 FROM nodes \
               WHERE nodes.id = rooms.owner_node AND nodes.lease_expires_at > now()) \
             ORDER BY created_at, id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The ids of the nodes whose lease is alive, in order.
    pub async fn live_nodes(&self) -> Result<Vec<Uuid>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT id FROM nodes WHERE lease_expires_at > now() ORDER BY id")
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// Deletes the rows of nodes whose lease expired more than `after` ago (killed nodes
    /// leave theirs). Returns how many.
    pub async fn forget_dead_nodes(&self, after: Duration) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("DELETE FROM nodes WHERE lease_expires_at < now() - $1::interval")
                .bind(interval(after))
                .execute(&self.pool)
                .await?
                .rows_affected(),
        )
    }

    /// A listener of [`OWNER_CHANNEL`] on its own connection of this store's pool settings.
    pub async fn owner_listener(&self) -> Result<sqlx::postgres::PgListener, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen(OWNER_CHANNEL).await?;
        Ok(listener)
    }
}
