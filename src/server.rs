//! Starting and stopping a whole server: listen, open the store (migrating it), restore unfinished
//! rooms, serve, and shut down gracefully on request.
//!
//! Shutdown follows mini-redis: every WebSocket task holds a clone of one `mpsc::Sender<()>`, and
//! shutting down waits until all clones are gone, so each client has been sent its 1012 close
//! before the process exits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::info;

use crate::accept::{self, Gate};
use crate::accounts::Accounts;
use crate::api::{AppState, Limiters, router};
use crate::cluster::{JoinError, Node};
use crate::config::Config;
use crate::pairing::Pairing;
use crate::room::RoomSettings;
use crate::room::registry::Registry;
use crate::site::Site;
use crate::store::{Store, StoreError};
use crate::telemetry;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("store: {0}")]
    /// The store could not be opened, migrated, or read to restore the unfinished rooms.
    Store(StoreError),
    #[error("{0}")]
    /// The cluster options are inconsistent, or given on a store other than PostgreSQL.
    Cluster(String),
    #[error("cannot listen on {addr}")]
    /// The listen address could not be bound (e.g. the port is taken) or read back.
    Bind {
        /// The configured address (`--bind`, `KHANATE_BIND`).
        addr: SocketAddr,
        #[source]
        /// The operating system's error.
        source: std::io::Error,
    },
}

// By hand rather than `#[from]`: the store error's text is already in the message (see
// `StoreError`'s `From` impls).
impl From<StoreError> for StartError {
    fn from(e: StoreError) -> Self {
        StartError::Store(e)
    }
}

/// A server that is listening.
pub struct Running {
    /// Where it listens (the real port when the configuration said `:0`).
    pub addr: SocketAddr,
    /// Where it listens for the other nodes (`--internal-bind`), if anywhere.
    pub internal_addr: Option<SocketAddr>,
    /// The store it writes to.
    pub store: Store,
    /// Cluster mode: this node, whose rooms shutdown releases.
    node: Option<Arc<Node>>,
    shutdown: watch::Sender<bool>,
    task: JoinHandle<std::io::Result<()>>,
    /// Serves the internal listener, if there is one.
    internal_task: Option<JoinHandle<std::io::Result<()>>>,
    /// Yields `None` once every WebSocket task has ended.
    connections_done: mpsc::Receiver<()>,
}

/// How long shutdown waits for WebSocket tasks to send their close frames.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Listens, opens the store, restores every unfinished room and starts serving.
pub async fn start(config: Config) -> Result<Running, StartError> {
    let cluster = config
        .cluster
        .mode(&config.database_url)
        .map_err(StartError::Cluster)?;
    // Bind first: a taken port should fail before any database work.
    let bind_error = |source| StartError::Bind {
        addr: config.bind,
        source,
    };
    let listener = TcpListener::bind(config.bind).await.map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    if let Some(warning) = config.origin_warning(addr) {
        tracing::warn!("{warning}");
    }
    let internal_listener = match cluster.as_ref().and_then(|mode| mode.internal_bind) {
        Some(internal) => {
            let bind_error = |source| StartError::Bind {
                addr: internal,
                source,
            };
            let listener = TcpListener::bind(internal).await.map_err(bind_error)?;
            let internal_addr = listener.local_addr().map_err(bind_error)?;
            Some((listener, internal_addr))
        }
        None => None,
    };
    let store = Store::connect(&config.database_url).await?;
    let site = Site::over(&store);
    let mut registry = Registry::new(
        store.clone(),
        RoomSettings {
            clock: config.clock.clone(),
            site: site.clone(),
            ..RoomSettings::from_limits(&config.limits)
        },
    );
    let node = match &cluster {
        Some(mode) => Some(Node::join(&store, mode).await.map_err(|e| match e {
            JoinError::Store(e) => StartError::Store(e),
            refused => StartError::Cluster(refused.to_string()),
        })?),
        None => None,
    };
    if let Some(node) = &node {
        registry = registry.in_cluster(node.clone());
    }
    let registry = Arc::new(registry);
    let restored = registry.restore_unfinished().await?;
    info!(restored, backend = store.backend_name(), "rooms restored");
    let (shutdown, shutdown_rx) = watch::channel(false);
    let pairing = Pairing::start(
        config.pairing_pools.clone(),
        config.pairing_hold(),
        registry.clone(),
        site.clone(),
        config.clock.clone(),
        shutdown_rx.clone(),
    )
    .await?;
    let retry = cluster
        .as_ref()
        .map_or(Duration::from_secs(1), |mode| mode.lease_renew);
    tokio::spawn(crate::site::listen(site.clone(), pairing.waker(), retry));
    tokio::spawn(crate::room::sweep::run(
        registry.clone(),
        config.clock.clone(),
        shutdown_rx.clone(),
    ));
    if let (Some(node), Some(mode)) = (&node, &cluster) {
        tokio::spawn(sweep(
            registry.clone(),
            node.clone(),
            mode.lease_renew,
            shutdown_rx.clone(),
        ));
    }
    let (connection_open, connections_done) = mpsc::channel(1);
    let cap = accept::connection_cap(&config.limits);
    info!(
        max_connections = cap,
        per_address = config.limits.http_connections_per_ip,
        "connection caps"
    );
    let gate = Gate::new(cap, &config.limits, config.trusted_proxies.clone());
    let header_timeout = config.limits.header_timeout();
    let state = AppState {
        registry,
        node: node.clone(),
        store: store.clone(),
        limiters: Limiters::new(&config.limits),
        accounts: Arc::new(Accounts::new(store.clone(), &config)),
        site,
        pairing,
        metrics: telemetry::install(),
        config: Arc::new(config),
        shutdown: shutdown_rx.clone(),
        connection_open,
        internal: false,
    };
    if node.is_some() {
        // After the recorder is installed (with the state above), or nothing would register.
        telemetry::cluster_joined();
    }
    let internal_addr = internal_listener.as_ref().map(|(_, addr)| *addr);
    let internal_task = internal_listener.map(|(listener, internal_addr)| {
        info!(%internal_addr, "listening for the other nodes");
        // Every peer carries many clients from one address: no cap per address here.
        let everyone = ["0.0.0.0/0", "::/0"]
            .iter()
            .map(|net| net.parse().expect("a CIDR range"))
            .collect();
        let gate = Gate::new(cap, &state.config.limits, everyone);
        let app = router(AppState {
            internal: true,
            ..state.clone()
        });
        tokio::spawn(accept::serve(
            listener,
            app,
            gate,
            header_timeout,
            shutdown_rx.clone(),
        ))
    });
    let app = router(state);
    let task = tokio::spawn(accept::serve(
        listener,
        app,
        gate,
        header_timeout,
        shutdown_rx,
    ));
    Ok(Running {
        addr,
        internal_addr,
        internal_task,
        store,
        node,
        shutdown,
        task,
        connections_done,
    })
}

/// Cluster mode: every `every`, claims the rooms nobody alive owns (see
/// [`Registry::adopt_orphans`]), and about once an hour forgets dead nodes' rows; stops at
/// shutdown, before this node releases its rooms (it must not claim them back).
async fn sweep(
    registry: Arc<Registry>,
    node: Arc<Node>,
    every: Duration,
    shutdown: watch::Receiver<bool>,
) {
    let mut state = crate::room::registry::Sweep::default();
    let mut ticker = tokio::time::interval(every);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let forget_every = (3600 / every.as_secs().max(1)).max(1);
    for tick in 1u64.. {
        ticker.tick().await;
        if *shutdown.borrow() {
            return;
        }
        match registry.adopt_orphans(&mut state).await {
            Ok(0) => {}
            Ok(rooms) => info!(rooms, "claimed rooms nobody alive owned"),
            Err(e) => tracing::warn!(error = %e, "could not claim orphaned rooms"),
        }
        if tick % forget_every == 0
            && let Err(e) = node.forget_dead_nodes().await
        {
            tracing::warn!(error = %e, "could not forget dead nodes");
        }
    }
}

impl Running {
    /// Stops accepting, closes every WebSocket with 1012 (clients reconnect with `last_v`), waits
    /// for in-flight requests to finish and for the close frames to be sent (at most 5 s), then
    /// (cluster mode) releases this node's rooms, then closes the store, which waits for commits
    /// under way. A command still queued in a room then
    /// fails to commit and is never acknowledged, so its client retries it after the restart.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        let served = match self.task.await {
            Ok(result) => result,
            Err(e) => Err(std::io::Error::other(e)),
        };
        if let Some(internal) = self.internal_task.take() {
            let _ = internal.await;
        }
        // The router (and its sender) is gone with the serve task; only live sockets hold one.
        let _ = tokio::time::timeout(CLOSE_GRACE, self.connections_done.recv()).await;
        // Another node may claim these rooms at once; a commit of ours still under way is then
        // fenced, never interleaved with theirs.
        if let Some(node) = &self.node {
            match node.release().await {
                Ok(rooms) => info!(rooms, "released this node's rooms"),
                Err(e) => {
                    tracing::warn!(error = %e, "could not release this node's rooms: they wait for the lease")
                }
            }
        }
        // Returns once commits under way are done; SQLite also checkpoints its write-ahead log.
        self.store.close().await;
        served
    }
}
