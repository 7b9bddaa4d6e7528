//! A userland network emulator for tests: a TCP proxy in front of the server whose two directions
//! each have their own one-way latency with jitter, and which can stall (hold everything for a
//! while, then deliver it), black-hole (swallow everything from then on, without a FIN: a link
//! that silently died), drop answers (carry requests on, and close both sides the moment the
//! server answers anything: the server acted, its caller never hears of it) or cut (close both
//! sides) a connection. One [`Link`] is one player's network, or the path to one cluster node
//! (listening on a fixed address, [`Link::start_at`], so the node can advertise it before it
//! starts): every connection opened through its address gets the link's current settings.
//!
//! Delivery keeps TCP's order: a chunk read at `t` leaves at `max(t + latency ± jitter, the
//! previous chunk's departure)`, so jitter never reorders bytes (as with a real link whose queue
//! is FIFO).

use std::net::SocketAddr;
use std::time::Duration;

use rand::Rng;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// One direction's delay: `latency` ± up to `jitter`, uniformly.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delay {
    pub latency: Duration,
    pub jitter: Duration,
}

impl Delay {
    /// `latency_ms` ± `jitter_ms`.
    pub fn ms(latency_ms: u64, jitter_ms: u64) -> Delay {
        Delay {
            latency: Duration::from_millis(latency_ms),
            jitter: Duration::from_millis(jitter_ms),
        }
    }

    fn sample(&self) -> Duration {
        let jitter = self.jitter.as_micros() as i64;
        let offset = if jitter == 0 {
            0
        } else {
            rand::rng().random_range(-jitter..=jitter)
        };
        let micros = (self.latency.as_micros() as i64 + offset).max(0);
        Duration::from_micros(micros as u64)
    }
}

/// What the link does to the bytes it carries now.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Delivered after their delay.
    Flowing,
    /// Held until then, then delivered.
    StalledUntil(Instant),
    /// Swallowed.
    BlackHole,
    /// Client to server delivered; anything from the server closes both sides, undelivered.
    DropAnswers,
    /// Both sides closed.
    Cut,
}

#[derive(Clone, Copy, Debug)]
struct Settings {
    /// Client to server.
    up: Delay,
    /// Server to client.
    down: Delay,
    mode: Mode,
}

/// A player's network link to `server`, listening on its own loopback port.
pub struct Link {
    pub addr: SocketAddr,
    settings: watch::Sender<Settings>,
    task: tokio::task::JoinHandle<()>,
}

impl Link {
    /// A link to `server` with `up` (client to server) and `down` delays.
    pub async fn start(server: SocketAddr, up: Delay, down: Delay) -> Link {
        Link::start_at(SocketAddr::from(([127, 0, 0, 1], 0)), server, up, down).await
    }

    /// A link to `server` listening on `listen` (a fixed address: what a cluster node advertises
    /// when a test breaks the path to it), with `up` (client to server) and `down` delays.
    pub async fn start_at(listen: SocketAddr, server: SocketAddr, up: Delay, down: Delay) -> Link {
        let listener = TcpListener::bind(listen).await.expect("bind netem");
        let addr = listener.local_addr().expect("netem address");
        let (settings, watcher) = watch::channel(Settings {
            up,
            down,
            mode: Mode::Flowing,
        });
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(upstream) = TcpStream::connect(server).await else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = upstream.set_nodelay(true);
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = upstream.into_split();
                tokio::spawn(carry(client_read, server_write, watcher.clone(), true));
                tokio::spawn(carry(server_read, client_write, watcher.clone(), false));
            }
        });
        Link {
            addr,
            settings,
            task,
        }
    }

    /// The same delay both ways.
    pub async fn symmetric(server: SocketAddr, delay: Delay) -> Link {
        Link::start(server, delay, delay).await
    }

    /// Holds everything, both ways, for `duration`; then delivers it (each chunk after its delay).
    pub fn stall(&self, duration: Duration) {
        let until = Instant::now() + duration;
        self.settings
            .send_modify(|s| s.mode = Mode::StalledUntil(until));
    }

    /// Swallows everything from now on, both ways, without closing anything.
    pub fn black_hole(&self) {
        self.settings.send_modify(|s| s.mode = Mode::BlackHole);
    }

    /// Carries what clients send on, and closes both sides of a connection, delivering nothing,
    /// the moment the server answers anything on it: the server acted on the request and its
    /// caller never hears the answer.
    pub fn drop_answers(&self) {
        self.settings.send_modify(|s| s.mode = Mode::DropAnswers);
    }

    /// Closes every connection of the link, both sides.
    pub fn cut(&self) {
        self.settings.send_modify(|s| s.mode = Mode::Cut);
    }

    /// Back to delivering, after a stall (what it held leaves at once), a black hole, dropped
    /// answers or a cut (for new connections after a cut).
    pub fn restore(&self) {
        self.settings.send_modify(|s| s.mode = Mode::Flowing);
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.task.abort();
        self.cut();
    }
}

/// One direction of one connection: reads chunks, stamps each with its departure time, and a
/// writer task sends them then.
async fn carry(
    mut from: OwnedReadHalf,
    to: OwnedWriteHalf,
    mut settings: watch::Receiver<Settings>,
    up: bool,
) {
    let (queue, chunks) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let writer = tokio::spawn(deliver(to, chunks, settings.clone()));
    let mut last_departure = Instant::now();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = tokio::select! {
            read = from.read(&mut buffer) => read,
            changed = settings.changed() => {
                if changed.is_err() || settings.borrow().mode == Mode::Cut {
                    break;
                }
                continue;
            }
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let now = Settings::clone(&settings.borrow());
        match now.mode {
            Mode::BlackHole => continue,
            Mode::Cut => break,
            Mode::DropAnswers if !up => break,
            Mode::Flowing | Mode::StalledUntil(_) | Mode::DropAnswers => {}
        }
        let delay = if up { now.up } else { now.down };
        let departure = (Instant::now() + delay.sample()).max(last_departure);
        last_departure = departure;
        if queue.send((departure, buffer[..n].to_vec())).is_err() {
            break;
        }
    }
    drop(queue);
    // A black hole never closes: the writer keeps its half open until the link is cut or dropped.
    let _ = writer.await;
}

/// Writes each chunk at its departure time, later while the link is stalled; nothing while it is
/// a black hole; closes on a cut.
async fn deliver(
    mut to: OwnedWriteHalf,
    mut chunks: mpsc::UnboundedReceiver<(Instant, Vec<u8>)>,
    mut settings: watch::Receiver<Settings>,
) {
    while let Some((departure, bytes)) = chunks.recv().await {
        tokio::time::sleep_until(departure).await;
        loop {
            let mode = settings.borrow().mode;
            match mode {
                Mode::Flowing | Mode::DropAnswers => break,
                Mode::StalledUntil(until) if until <= Instant::now() => break,
                Mode::StalledUntil(until) => {
                    // Until then, or until the link is restored (or cut) earlier.
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => {}
                        changed = settings.changed() => {
                            if changed.is_err() {
                                return;
                            }
                        }
                    }
                }
                Mode::BlackHole => {
                    if settings.changed().await.is_err() {
                        return;
                    }
                }
                Mode::Cut => return,
            }
        }
        if to.write_all(&bytes).await.is_err() {
            return;
        }
    }
    // The reading side ended (its peer closed, or the link was cut): pass the close on, unless
    // the link swallows everything.
    loop {
        match settings.borrow().mode {
            Mode::BlackHole => {}
            _ => break,
        }
        if settings.changed().await.is_err() {
            return;
        }
    }
    let _ = to.shutdown().await;
}
