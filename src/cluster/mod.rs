//! Several nodes on one PostgreSQL database: this node's identity and lease, its claims on
//! rooms, and serving clients of rooms other nodes own (see `docs/deploy/cluster.md`).
//!
//! A node has a fresh id at every start and a lease row renewed on the database clock
//! ([`lease`]). A room task runs on a node only after the node has claimed the room in one
//! statement that bumps the room's owner epoch ([`Node::claim`]); the task carries that epoch in
//! every commit, so a node that lost the room (another node took it over after its lease ran out)
//! can never write to it: the commit fails with [`StoreError::Fenced`](crate::store::StoreError)
//! and the task stops. A node that cannot renew its lease in time stops every room task before
//! the lease can expire ([`Ownership::lost`]).
//!
//! Any node serves any client: a client of a room another node owns is relayed to the owner
//! ([`relay`] for WebSockets, [`forward`] for REST), and [`moves`] ends those relays when the
//! room moves. A room task whose people all come through one other node releases the room to
//! it ([`Ownership::hand_off`]: the next epoch, that node named owner, fenced like a claim), and
//! that node claims it at the first hello it serves. Every node also claims, once a renewal interval, the rooms nobody alive owns
//! ([`Node::orphaned_rooms`], run by the registry), so that their clocks and bots go on.

pub mod finished;
pub mod forward;
pub mod lease;
pub mod moves;
pub mod relay;
pub mod route;

use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;
use hmac::{KeyInit, Mac};
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

use crate::config::ClusterMode;
use crate::store::postgres::{Claim, HandOff, Owner, PgStore};
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

/// The header a node's calls to another node carry the cluster secret in.
pub const PEER_SECRET_HEADER: &str = "x-khanate-cluster-secret";

/// The header a node's calls to another node name their client's address in (believed only
/// with the right secret).
pub const PEER_CLIENT_HEADER: &str = "x-khanate-client";

/// The header a node's relayed WebSockets name the relaying node's id in (believed only with the
/// right secret): the owner hands a room off to the node all its clients come through.
pub const PEER_NODE_HEADER: &str = "x-khanate-node";

/// Every header a node's calls to another node carry: a proxy in front of the nodes removes them
/// from clients' requests (the shipped nginx files do), and a node drops them from any request
/// whose secret is wrong.
pub const PEER_HEADERS: [&str; 3] = [PEER_SECRET_HEADER, PEER_CLIENT_HEADER, PEER_NODE_HEADER];

/// The text whose HMAC-SHA256 under the cluster secret the database keeps as the secret's
/// verifier (see [`Node::join`]).
const VERIFIER_TEXT: &[u8] = b"khanate cluster secret verifier, version 1";

/// Why a node could not join the cluster.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The cluster's database keeps the verifier of another secret.
    #[error(
        "this node's --cluster-secret (KHANATE_CLUSTER_SECRET) is not the cluster's: the \
         database keeps the verifier of another secret. Give every node the same secret (to \
         change it: stop every node, DELETE FROM cluster_trust, start them with the new one)"
    )]
    WrongSecret,
    /// A node with a live lease advertises the same URL.
    #[error(
        "another running node advertises {url} (its lease stayed alive for {waited_ms} ms): \
         each node needs an --advertise-url (KHANATE_ADVERTISE_URL) of its own, naming where it \
         listens"
    )]
    DuplicateUrl {
        /// The advertise URL.
        url: String,
        /// How long this node waited for the other lease to run out (a crashed node's does).
        waited_ms: u128,
    },
}

/// The secret's verifier: HMAC-SHA256 keyed by the secret over [`VERIFIER_TEXT`].
fn verifier_mac(secret: &[u8]) -> hmac::Hmac<Sha256> {
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(VERIFIER_TEXT);
    mac
}

/// This node of the cluster. Shared (`Arc`) by the registry and the server.
pub struct Node {
    id: Uuid,
    store: PgStore,
    lease: watch::Receiver<Lease>,
    /// When this node must have stopped serving, read by room tasks before they serve.
    fence: Arc<lease::FenceClock>,
    secret: String,
    /// SHA-256 of the secret: a peer's header is compared digest to digest, so the comparison's
    /// time says nothing about the secret.
    secret_digest: [u8; 32],
    lease_ttl: Duration,
    moves: Arc<moves::Moves>,
    http: reqwest::Client,
    /// The lease renewal and the claim listener, ended when the node leaves the cluster.
    background: Vec<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for Node {
    // By hand, so that no log line can ever show the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

fn digest(secret: &[u8]) -> [u8; 32] {
    Sha256::digest(secret).into()
}

/// Why a room stops being served here (see [`Ownership::lost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lost {
    /// The node could not renew its lease in time.
    Fenced,
    /// The node is leaving the cluster (shutting down).
    Left,
}

/// A room this node owns: the epoch of its claim, and the lease it holds the room under.
#[derive(Clone, Debug)]
pub struct Ownership {
    epoch: i64,
    generation: u64,
    lease: watch::Receiver<Lease>,
    fence: Arc<lease::FenceClock>,
    /// This node and its store, to give the room up (a hand-off).
    node: Uuid,
    store: PgStore,
}

impl Node {
    /// Registers a new node (a fresh id, a lease from the database's `now()`) and starts renewing
    /// its lease. First the secret is checked against the cluster's verifier (the first node
    /// stores it), and a node that finds a live one advertising its URL waits one lease for it to
    /// run out (a crashed predecessor's does). Errors: [`JoinError::WrongSecret`],
    /// [`JoinError::DuplicateUrl`]; [`JoinError::Store`]: the store is not PostgreSQL (refused
    /// earlier by [`ClusterConfig::mode`](crate::config::ClusterConfig::mode)), or the
    /// database failed.
    pub async fn join(store: &Store, mode: &ClusterMode) -> Result<Arc<Node>, JoinError> {
        let Store::Postgres(pg) = store else {
            return Err(StoreError::UnsupportedUrl(
                "cluster mode on a store other than PostgreSQL".into(),
            )
            .into());
        };
        let mac = verifier_mac(mode.secret.as_bytes());
        let stored = pg
            .secret_verifier(&mac.clone().finalize().into_bytes())
            .await?;
        // Constant time: the comparison says nothing about how much of the verifier matched.
        if mac.verify_slice(&stored).is_err() {
            return Err(JoinError::WrongSecret);
        }
        let id = Uuid::new_v4();
        let started = Instant::now();
        let patience = mode.lease_ttl + mode.lease_renew;
        let sent = loop {
            let sent = Instant::now();
            if pg
                .register_node(id, &mode.advertise_url, mode.lease_ttl)
                .await?
            {
                break sent;
            }
            if started.elapsed() > patience {
                return Err(JoinError::DuplicateUrl {
                    url: mode.advertise_url.clone(),
                    waited_ms: started.elapsed().as_millis(),
                });
            }
            tokio::time::sleep(mode.lease_renew).await;
        };
        let (publish, lease) = watch::channel(Lease {
            generation: 0,
            serving: true,
        });
        let fence = Arc::new(lease::FenceClock::new(lease::fence_at(
            sent,
            mode.lease_ttl,
            mode.lease_renew,
        )));
        let renewing = tokio::spawn(lease::renew(
            pg.clone(),
            id,
            mode.lease_ttl,
            mode.lease_renew,
            sent,
            publish,
            fence.clone(),
        ));
        let moves = Arc::new(moves::Moves::default());
        let listening = tokio::spawn(moves::listen(pg.clone(), moves.clone(), mode.lease_renew));
        let rechecking = tokio::spawn(moves::recheck(pg.clone(), moves.clone(), mode.lease_ttl));
        tracing::info!(node = %id, advertise_url = %mode.advertise_url, "joined the cluster");
        let http = reqwest::Client::builder()
            .connect_timeout(forward::CONNECT_TIMEOUT)
            .timeout(forward::REQUEST_TIMEOUT)
            .build()
            .map_err(|e| StoreError::UnsupportedUrl(format!("HTTP client for peers: {e}")))?;
        Ok(Arc::new(Node {
            id,
            store: pg.clone(),
            lease,
            fence,
            secret_digest: digest(mode.secret.as_bytes()),
            secret: mode.secret.clone(),
            lease_ttl: mode.lease_ttl,
            moves,
            http,
            background: [renewing, listening, rechecking]
                .iter()
                .map(tokio::task::JoinHandle::abort_handle)
                .collect(),
        }))
    }

    /// This node's id (fresh at every start).
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Whether a request comes from another node of this cluster: it carries the cluster secret.
    pub fn is_peer(&self, headers: &HeaderMap) -> bool {
        headers
            .get(PEER_SECRET_HEADER)
            .is_some_and(|given| digest(given.as_bytes()) == self.secret_digest)
    }

    /// The lease's time to live: how long a dead owner's rooms can wait for a takeover.
    pub fn lease_ttl(&self) -> Duration {
        self.lease_ttl
    }

    /// The node serving `room_id` with a live lease, if any (see [`PgStore::owner_of`]).
    pub async fn owner_of(&self, room_id: Uuid) -> Result<Option<Owner>, StoreError> {
        self.store.owner_of(room_id).await
    }

    /// Unfinished rooms nobody alive owns (at most `limit`; see [`PgStore::orphaned_rooms`]),
    /// for this node to claim. Empty while this node is fenced (its claims would fail).
    pub async fn orphaned_rooms(&self, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        if !self.lease.borrow().serving {
            return Ok(Vec::new());
        }
        self.store.orphaned_rooms(limit).await
    }

    /// Whether `room_id`, orphaned, is this node's to claim first: the live node its id hashes
    /// to among `live` (the live nodes' ids in order, see [`PgStore::live_nodes`]), so that the
    /// rooms of a dead node spread over the live ones instead of all going to the first whose
    /// sweep runs. A room its node leaves unclaimed for two sweeps is anyone's (see
    /// [`Registry::adopt_orphans`](crate::room::registry::Registry::adopt_orphans)).
    pub fn first_to_claim(&self, room_id: Uuid, live: &[Uuid]) -> bool {
        let Ok(count) = u128::try_from(live.len()) else {
            return true;
        };
        if count == 0 {
            return true;
        }
        let index = usize::try_from(room_id.as_u128() % count).unwrap_or(0);
        live[index] == self.id
    }

    /// The ids of the nodes whose lease is alive, in order.
    pub async fn live_nodes(&self) -> Result<Vec<Uuid>, StoreError> {
        self.store.live_nodes().await
    }

    /// Deletes the rows of nodes whose lease expired over an hour ago (a killed node leaves
    /// its row). Returns how many.
    pub async fn forget_dead_nodes(&self) -> Result<u64, StoreError> {
        self.store
            .forget_dead_nodes(Duration::from_secs(3600))
            .await
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
        tracing::debug!(%room_id, epoch = claim.epoch, "claimed the room");
        if claim.took_over {
            telemetry::takeover();
            tracing::info!(%room_id, epoch = claim.epoch, "took the room over from a node whose lease expired");
        }
        Ok(self.ownership(claim.epoch, lease.generation))
    }

    /// The ownership of a room this node claimed at `epoch` under the lease of `generation`.
    fn ownership(&self, epoch: i64, generation: u64) -> Ownership {
        Ownership {
            epoch,
            generation,
            lease: self.lease.clone(),
            fence: self.fence.clone(),
            node: self.id,
            store: self.store.clone(),
        }
    }

    /// Which node relayed a WebSocket to this one: the id it names in [`PEER_NODE_HEADER`], when
    /// the request carries the cluster secret.
    pub fn relaying_node(&self, headers: &HeaderMap) -> Option<Uuid> {
        if !self.is_peer(headers) {
            return None;
        }
        let named = headers.get(PEER_NODE_HEADER)?.to_str().ok()?;
        Uuid::parse_str(named).ok()
    }

    /// Creates a room owned by this node from the start (see [`PgStore::create_owned_room`])
    /// and returns the ownership its task must carry. Errors: [`StoreError::OwnedElsewhere`]
    /// when this node is fenced (nothing written); those of
    /// [`Store::create_room`](crate::store::Store::create_room).
    pub async fn create_room(
        &self,
        room: &crate::store::RoomRow,
        commit: &crate::store::Commit,
    ) -> Result<Ownership, StoreError> {
        let fenced = || StoreError::OwnedElsewhere { room_id: room.id };
        let lease = self.serving_lease().ok_or_else(fenced)?;
        let claim = self
            .store
            .create_owned_room(self.id, room, commit)
            .await?
            .ok_or_else(fenced)?;
        Ok(self.ownership(claim.epoch, lease.generation))
    }

    /// The lease as it stands before this node creates rooms in a transaction of its own
    /// (a pairing, an accepted challenge), claiming them there: `None` while it is fenced.
    pub fn serving_lease(&self) -> Option<Lease> {
        let lease = *self.lease.borrow();
        lease.serving.then_some(lease)
    }

    /// The ownership of a room this node created and claimed (`claim`) under `lease` (read by
    /// [`Node::serving_lease`] before the transaction), which its task must carry.
    pub fn owned(&self, lease: Lease, claim: Claim) -> Ownership {
        self.ownership(claim.epoch, lease.generation)
    }

    /// Gives up every room of this node at once, so another node claims them without waiting
    /// for the lease, and leaves the cluster (for a graceful shutdown): its lease is no longer
    /// renewed and its listener stops. Returns how many rooms.
    pub async fn release(&self) -> Result<u64, StoreError> {
        // Renewing a lease whose row is being deleted, or listening on a pool about to close,
        // would only fail.
        for task in &self.background {
            task.abort();
        }
        self.store.release_node(self.id).await
    }
}

impl Ownership {
    /// The owner epoch every commit of the room carries.
    pub fn epoch(&self) -> i64 {
        self.epoch
    }

    /// Whether the room must stop being served here now, the lease task's word or not: the
    /// node's last renewal is too old (a process resumed after a pause runs its room tasks
    /// before its lease task can self-fence), or the node has fenced since the claim. A room
    /// task asks before it serves anything.
    pub fn expired(&self) -> bool {
        self.fence.passed() || {
            let lease = *self.lease.borrow();
            lease.generation != self.generation || !lease.serving
        }
    }

    /// Hands `room_id` to the live node `to` (see [`PgStore::hand_off_room`]); the room's task
    /// is serving nothing meanwhile, and stops once it is done.
    pub async fn hand_off(&self, room_id: Uuid, to: Uuid) -> Result<HandOff, StoreError> {
        self.store
            .hand_off_room(self.node, room_id, self.epoch, to)
            .await
    }

    /// Returns once the room must stop being served here, and why: the node self-fenced since
    /// the claim, or it is leaving the cluster (its lease watcher ended). Cancel-safe.
    pub async fn lost(&mut self) -> Lost {
        let generation = self.generation;
        match self
            .lease
            .wait_for(|lease| lease.generation != generation || !lease.serving)
            .await
        {
            Ok(_) => Lost::Fenced,
            Err(_) => Lost::Left,
        }
    }
}
