//! Starting and stopping a whole server: open the store (migrating it), restore unfinished rooms,
//! listen, and shut down gracefully on request.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::info;

use crate::api::{AppState, router};
use crate::config::Config;
use crate::room::registry::Registry;
use crate::store::{Store, StoreError};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A server that is listening.
pub struct Running {
    /// Where it listens (the real port when the configuration said `:0`).
    pub addr: SocketAddr,
    /// The store it writes to.
    pub store: Store,
    shutdown: watch::Sender<bool>,
    task: JoinHandle<std::io::Result<()>>,
}

/// Opens the store, restores every unfinished room and starts listening.
pub async fn start(config: Config) -> Result<Running, StartError> {
    let store = Store::connect(&config.database_url).await?;
    let registry = Arc::new(Registry::new(store.clone()));
    let restored = registry.restore_unfinished().await?;
    info!(restored, backend = store.backend_name(), "rooms restored");
    let listener = TcpListener::bind(config.bind)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.bind,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.bind,
        source,
    })?;
    let (shutdown, shutdown_rx) = watch::channel(false);
    let state = AppState {
        registry,
        store: store.clone(),
        config: Arc::new(config),
        shutdown: shutdown_rx.clone(),
    };
    let app = router(state);
    let mut stop = shutdown_rx;
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stop.wait_for(|stopping| *stopping).await;
            })
            .await
    });
    Ok(Running {
        addr,
        store,
        shutdown,
        task,
    })
}

impl Running {
    /// Stops accepting, closes every WebSocket with 1012 (clients reconnect), and waits for
    /// in-flight requests to finish. Commits already started complete: room tasks are not
    /// cancelled, only their connections are.
    pub async fn shutdown(self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        match self.task.await {
            Ok(result) => result,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}
