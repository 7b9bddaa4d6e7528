//! Accepting HTTP connections so that one client cannot lock the others out.
//!
//! `axum::serve` accepts every connection and keeps it as long as the peer likes; a client that
//! opens thousands of sockets and sends half a request line on each exhausts the process's file
//! descriptors, and then nobody gets in. Here, as in axum's `serve-with-hyper` example, each
//! accepted socket is served by hyper's HTTP/1 connection with its header-read timeout (hyper
//! restarts it whenever it waits for a request, so it is also the idle timeout of a kept-alive
//! connection), and before that it must pass a [`Gate`]: a cap on the connections of the whole
//! server, below the descriptor limit so that a reserve stays for the database and for refusing,
//! and a cap per client address. A refused connection gets a typed 503 or 429 and is closed at
//! once, so the server keeps accepting and the socket is free again.
//!
//! Only HTTP/1.1 is spoken: browsers speak HTTP/2 only over TLS, which the proxy in front ends.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use ipnet::IpNet;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tower::ServiceExt;
use tracing::{debug, warn};

use crate::api::{AddressCounter, AddressSlot, is_trusted_proxy};
use crate::config::Limits;
use crate::telemetry;

/// Descriptors kept free under `RLIMIT_NOFILE` when the connection cap is derived from it: the
/// database pool, SQLite's files, the listener, logs, and refusing connections at the cap.
pub const FD_RESERVE: u64 = 128;

/// How long shutdown waits for connections to finish their requests before dropping them.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// After a failed `accept` (the process ran out of descriptors after all), wait this long
/// before trying again rather than spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The most connections to hold at once: `limits.max_connections`, or when that is 0 the soft
/// `RLIMIT_NOFILE` (raised to the hard limit first) minus [`FD_RESERVE`], at least 16.
pub fn connection_cap(limits: &Limits) -> usize {
    if limits.max_connections > 0 {
        return limits.max_connections;
    }
    let soft = raise_fd_limit();
    usize::try_from(cap_under(soft)).unwrap_or(usize::MAX)
}

fn cap_under(fd_limit: u64) -> u64 {
    fd_limit.saturating_sub(FD_RESERVE).max(16)
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit (what a server is allowed and is expected
/// to use) and returns the soft limit now in force.
fn raise_fd_limit() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.maximum != limit.current {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if let Err(e) = setrlimit(Resource::Nofile, raised) {
            debug!(error = %e, "could not raise RLIMIT_NOFILE");
        }
    }
    // No limit at all reads as `None`: the kernel's own maximum then applies.
    getrlimit(Resource::Nofile).current.unwrap_or(1 << 20)
}

/// Who may hold a connection: a server-wide cap and a cap per client address.
pub struct Gate {
    total: Arc<Semaphore>,
    per_ip: Arc<AddressCounter>,
    trusted_proxies: Vec<IpNet>,
}

impl Gate {
    /// At most `cap` connections in all, and `limits.http_connections_per_ip` from one address
    /// that is not one of `trusted_proxies` (a proxy carries many clients).
    pub fn new(cap: usize, limits: &Limits, trusted_proxies: Vec<IpNet>) -> Self {
        Gate {
            total: Arc::new(Semaphore::new(cap.min(Semaphore::MAX_PERMITS))),
            per_ip: AddressCounter::new(limits.http_connections_per_ip),
            trusted_proxies,
        }
    }

    /// `tcp` with its slots, or `None` when it was refused (it has been answered and closed).
    fn admit(&self, tcp: TcpStream, peer: SocketAddr) -> Option<Counted> {
        let Ok(total) = self.total.clone().try_acquire_owned() else {
            refuse(
                tcp,
                "503 Service Unavailable",
                "unavailable",
                "the server is full",
            );
            telemetry::connection_refused("server_full");
            return None;
        };
        let per_ip = if is_trusted_proxy(peer.ip(), &self.trusted_proxies) {
            None
        } else {
            let Some(slot) = self.per_ip.open(peer.ip()) else {
                let message = "too many connections from one address";
                refuse(tcp, "429 Too Many Requests", "rate_limited", message);
                telemetry::connection_refused("per_address");
                return None;
            };
            Some(slot)
        };
        Some(Counted {
            tcp,
            _total: total,
            _per_ip: per_ip,
        })
    }
}

/// Answers a refused connection with a typed error and closes it, without waiting: a fresh
/// socket's send buffer takes the few bytes at once, and a peer that reads nothing loses nothing.
fn refuse(tcp: TcpStream, status: &str, code: &str, message: &str) {
    let body = serde_json::json!({"error": {"code": code, "message": message}}).to_string();
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\nretry-after: 1\r\n\r\n{body}",
        body.len()
    );
    // What the client sent already is read first: closing a socket with unread bytes resets
    // it, and the peer could lose the answer.
    let mut sink = [0u8; 4096];
    for _ in 0..4 {
        match tcp.try_read(&mut sink) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
    let _ = tcp.try_write(answer.as_bytes());
}

/// A socket holding its slots for as long as it is open, a WebSocket's too (the upgraded
/// connection owns it).
struct Counted {
    tcp: TcpStream,
    _total: OwnedSemaphorePermit,
    _per_ip: Option<AddressSlot>,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// Accepts connections on `listener` and serves `app` on each until `stop` becomes true; then
/// stops accepting, lets every connection finish its request (at most 5 s) and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    gate: Gate,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) -> io::Result<()> {
    let mut connections = JoinSet::new();
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    warn!(error = %e, "accept failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            () = stopped(&mut stop) => break,
        };
        set_nodelay(&tcp);
        let Some(io) = gate.admit(tcp, peer) else {
            continue;
        };
        let app = app.clone();
        connections.spawn(connection(io, peer, app, header_timeout, stop.clone()));
    }
    drop(listener);
    let finished = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(CLOSE_GRACE, finished).await;
    connections.shutdown().await;
    Ok(())
}

/// Nagle's algorithm off (`TCP_NODELAY`): frames are small and sent one at a time, and with it
/// a frame written before the peer acknowledged the previous one waits up to 40 ms.
fn set_nodelay(tcp: &TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        debug!(error = %e, "could not set TCP_NODELAY");
    }
}

/// Returns once the server is stopping (or the sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopping| *stopping).await;
}

/// Serves one connection; on shutdown it finishes the request under way, then closes.
async fn connection(
    io: Counted,
    peer: SocketAddr,
    app: Router,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        app.clone().oneshot(request)
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let served = http
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    let mut served = std::pin::pin!(served);
    let result = tokio::select! {
        result = served.as_mut() => result,
        () = stopped(&mut stop) => {
            served.as_mut().graceful_shutdown();
            served.await
        }
    };
    if let Err(e) = result {
        debug!(error = %e, %peer, "connection ended");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_cap_keeps_a_reserve_under_the_descriptor_limit() {
        assert_eq!(cap_under(1024), 1024 - FD_RESERVE);
        assert_eq!(cap_under(20_000), 20_000 - FD_RESERVE);
        assert_eq!(cap_under(100), 16, "a tiny limit still serves a few");
        let limits = Limits {
            max_connections: 300,
            ..Limits::default()
        };
        assert_eq!(connection_cap(&limits), 300, "a configured cap is kept");
    }

    #[tokio::test]
    async fn accepted_connections_send_without_nagle() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let _client = TcpStream::connect(addr).await.expect("connect");
        let (accepted, _) = listener.accept().await.expect("accept");
        set_nodelay(&accepted);
        assert!(accepted.nodelay().expect("TCP_NODELAY readable"));
    }
}
