//! A TCP proxy between two nodes of a test cluster, whose link a test can stall or cut: what a
//! node's `--advertise-url` names when a test needs to break the path between nodes (the other
//! nodes' relays and forwarded requests go through it; its clients still reach it directly).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What the proxy does with the bytes of its connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mode {
    /// Copies both ways.
    Pass = 0,
    /// Copies nothing either way, keeping every connection open (a frozen path: the kernel
    /// still accepts new connections).
    Stall = 1,
    /// Copies requests on, and closes both sides the moment the upstream answers anything:
    /// the upstream has acted on the request, and its caller never hears the answer.
    DropAnswers = 2,
    /// Closes every connection, old and new, at once (a cut link).
    Cut = 3,
}

/// A running proxy, stopped on drop.
pub struct TcpProxy {
    /// Where it listens.
    pub addr: SocketAddr,
    mode: Arc<AtomicU8>,
    changed: watch::Sender<u8>,
    task: tokio::task::JoinHandle<()>,
}

fn mode_of(value: u8) -> Mode {
    match value {
        1 => Mode::Stall,
        2 => Mode::DropAnswers,
        3 => Mode::Cut,
        _ => Mode::Pass,
    }
}

impl TcpProxy {
    /// Listens on `listen` (a fixed address, so a node can advertise it before it starts) and
    /// proxies to `upstream`.
    pub async fn start(listen: SocketAddr, upstream: SocketAddr) -> TcpProxy {
        let listener = TcpListener::bind(listen).await.expect("the proxy binds");
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(AtomicU8::new(Mode::Pass as u8));
        let (changed, watching) = watch::channel(Mode::Pass as u8);
        let shared = mode.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (mode, watching) = (shared.clone(), watching.clone());
                tokio::spawn(async move {
                    if mode_of(mode.load(Ordering::SeqCst)) == Mode::Cut {
                        return;
                    }
                    let Ok(server) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    pipe(client, server, mode, watching).await;
                });
            }
        });
        TcpProxy {
            addr,
            mode,
            changed,
            task,
        }
    }

    /// Switches every connection, old and new, to `mode`.
    pub fn set(&self, mode: Mode) {
        self.mode.store(mode as u8, Ordering::SeqCst);
        let _ = self.changed.send(mode as u8);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies between `client` and `server` as the mode says, until either side ends or the mode
/// says cut.
async fn pipe(client: TcpStream, server: TcpStream, mode: Arc<AtomicU8>, mut changed: watch::Receiver<u8>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let (mut up, mut down) = ([0u8; 8192], [0u8; 8192]);
    loop {
        let current = mode_of(mode.load(Ordering::SeqCst));
        match current {
            Mode::Cut => return,
            Mode::Stall => {
                // Nothing moves until the mode changes.
                if changed.changed().await.is_err() {
                    return;
                }
                continue;
            }
            Mode::Pass | Mode::DropAnswers => {}
        }
        tokio::select! {
            read = client_read.read(&mut up) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if server_write.write_all(&up[..n]).await.is_err() {
                        return;
                    }
                }
            },
            read = server_read.read(&mut down) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if mode_of(mode.load(Ordering::SeqCst)) == Mode::DropAnswers {
                        return;
                    }
                    if client_write.write_all(&down[..n]).await.is_err() {
                        return;
                    }
                }
            },
            _ = changed.changed() => {}
            () = tokio::time::sleep(Duration::from_secs(3600)) => {}
        }
    }
}
