//! Several nodes on one PostgreSQL database: this node's identity and lease, and its claims on
//! rooms (see `docs/deploy/cluster.md`; this is the first slice: ownership and fencing).
//!
//! A node has a fresh id at every start and a lease row renewed on the database clock
//! ([`lease`]). A room task runs on a node only after the node has claimed the room in one
//! statement that bumps the room's owner epoch ([`Node::claim`]); the task carries that epoch in
//! every commit, so a node that lost the room (another node took it over after its lease ran out)
//! can never write to it: the commit fails with [`StoreError::Fenced`](crate::store::StoreError)
//! and the task stops. A node that cannot renew its lease in time stops every room task before
//! the lease can expire ([`Ownership::lost`]).

pub mod lease;

use std::sync::Arc;

use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

use crate::config::ClusterMode;
use crate::store::postgres::PgStore;
use crate::store::{Store, StoreError};
use crate::telemetry;

/// What the lease watcher publishes to the room tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    /// Grows at every self-fence: a room task claimed in an older generation stops.
    pub generation: u64,
    /// Whether the lease is known alive: rooms are claimed only then.
    pub serving: bool,
}

/// This node of the cluster. Shared (`Arc`) by the registry and the server.
#[derive(Debug)]
pub struct Node {
    id: Uuid,
    store: PgStore,
    lease: watch::Receiver<Lease>,
}

/// A room this node owns: the epoch of its claim, and the lease it holds the room under.
#[derive(Clone, Debug)]
pub struct Ownership {
    epoch: i64,
    generation: u64,
    lease: watch::Receiver<Lease>,
}

impl Node {
    /// Registers a new node (a fresh id, a lease from the database's `now()`) and starts renewing
    /// its lease. Errors: the store is not PostgreSQL (refused earlier by
    /// [`ClusterConfig::mode`](crate::config::ClusterConfig::mode)), or the database failed.
    pub async fn join(store: &Store, mode: &ClusterMode) -> Result<Arc<Node>, StoreError> {
        let Store::Postgres(pg) = store else {
            return Err(StoreError::UnsupportedUrl(
                "cluster mode on a store other than PostgreSQL".into(),
            ));
        };
        let id = Uuid::new_v4();
        let sent = Instant::now();
        pg.register_node(id, &mode.advertise_url, mode.lease_ttl)
            .await?;
        let (publish, lease) = watch::channel(Lease {
            generation: 0,
            serving: true,
        });
        tokio::spawn(lease::renew(
            pg.clone(),
            id,
            mode.lease_ttl,
            mode.lease_renew,
            sent,
            publish,
        ));
        tracing::info!(node = %id, advertise_url = %mode.advertise_url, "joined the cluster");
        Ok(Arc::new(Node {
            id,
            store: pg.clone(),
            lease,
        }))
    }

    /// This node's id (fresh at every start).
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Claims `room_id` for this node (see [`PgStore::claim_room`]) and returns the ownership its
    /// task must carry. Errors: [`StoreError::OwnedElsewhere`] when another node with a live
    /// lease owns the room, the room does not exist, or this node is fenced; the database failed.
    pub async fn claim(&self, room_id: Uuid) -> Result<Ownership, StoreError> {
        let lease = *self.lease.borrow();
        if !lease.serving {
            return Err(StoreError::OwnedElsewhere { room_id });
        }
        let claim = self
            .store
            .claim_room(self.id, room_id)
            .await?
            .ok_or(StoreError::OwnedElsewhere { room_id })?;
        if claim.took_over {
            telemetry::takeover();
            tracing::info!(%room_id, epoch = claim.epoch, "took the room over from a node whose lease expired");
        }
        Ok(Ownership {
            epoch: claim.epoch,
            generation: lease.generation,
            lease: self.lease.clone(),
        })
    }

    /// Gives up every room of this node at once, so another node claims them without waiting
    /// for the lease, and leaves the cluster (for a graceful shutdown). Returns how many rooms.
    pub async fn release(&self) -> Result<u64, StoreError> {
        self.store.release_node(self.id).await
    }
}

impl Ownership {
    /// The owner epoch every commit of the room carries.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// Returns once the room must stop being served here: the node self-fenced since the claim
    /// (or the lease watcher ended). Cancel-safe.
    pub async fn lost(&mut self) {
        let generation = self.generation;
        let _ = self
            .lease
            .wait_for(|lease| lease.generation != generation || !lease.serving)
            .await;
    }
}
