//! The cluster's statements (PostgreSQL only): node leases and room ownership, every time taken
//! from the database's clock (`now()`), so the nodes' own clocks never have to agree.

use std::time::Duration;

use uuid::Uuid;

use super::PgStore;
use crate::store::StoreError;

/// A successful claim of a room (see [`PgStore::claim_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The room's new owner epoch: every commit of this node for the room carries it.
    pub epoch: i64,
    /// Whether another node owned the room before (its lease had expired): a takeover.
    pub took_over: bool,
}

/// A lease length as PostgreSQL `interval` text (milliseconds).
fn interval(ttl: Duration) -> String {
    format!("{} milliseconds", ttl.as_millis())
}

impl PgStore {
    /// Adds this node's row with a lease of `ttl` from the database's `now()`.
    pub async fn register_node(
        &self,
        node: Uuid,
        advertise_url: &str,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO nodes (id, advertise_url, lease_expires_at) \
             VALUES ($1, $2, now() + $3::interval)",
        )
        .bind(node)
        .bind(advertise_url)
        .bind(interval(ttl))
        .execute(&self.pool)
        .await?;
        Ok(())
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
    pub async fn claim_room(&self, node: Uuid, room_id: Uuid) -> Result<Option<Claim>, StoreError> {
        let claimed: Option<(i64, Option<Uuid>)> = sqlx::query_as(
            // `previous` is read from the statement's snapshot, before the update: only the
            // takeover count depends on it, never who owns the room.
            "UPDATE rooms SET owner_node = $1, owner_epoch = rooms.owner_epoch + 1 \
             FROM (SELECT owner_node AS previous FROM rooms WHERE id = $2) AS before \
             WHERE rooms.id = $2 \
               AND EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND lease_expires_at > now()) \
               AND (rooms.owner_node IS NULL OR rooms.owner_node = $1 OR NOT EXISTS ( \
                    SELECT 1 FROM nodes \
                    WHERE nodes.id = rooms.owner_node AND nodes.lease_expires_at > now())) \
             RETURNING rooms.owner_epoch, before.previous",
        )
        .bind(node)
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(claimed.map(|(epoch, before)| Claim {
            epoch,
            took_over: before.is_some_and(|owner| owner != node),
        }))
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
}
