//! A client that fakes its lag, as a TCP proxy in front of the server: it carries a WebSocket
//! unchanged except that every pong the client sends (its answers to the server's heartbeat
//! probes) is held for `hold` before it goes on; every other frame passes at once (a pong is a
//! control frame, so the frames after it may overtake it: RFC 6455 section 5.4). To the server
//! this is exactly a client that delays its pongs; the client's own library answers the probes
//! at once, as any does, so the test's player needs no code of its own for it.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The opcode of a pong frame.
const PONG: u8 = 0xA;

/// A running proxy, stopped on drop.
pub struct PongHold {
    /// Where the client connects.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl PongHold {
    /// A proxy to `upstream` that holds the client's pongs for `hold`.
    pub async fn start(upstream: SocketAddr, hold: Duration) -> PongHold {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (mut client_read, mut client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(async move {
                    let mut server_read = server_read;
                    let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                    let _ = client_write.shutdown().await;
                });
                tokio::spawn(async move {
                    up(&mut client_read, server_write, hold).await;
                });
            }
        });
        PongHold { addr, task }
    }
}

impl Drop for PongHold {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Client to server: the upgrade request as it comes, then frame by frame, pongs held.
async fn up(
    from: &mut tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    hold: Duration,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if to.write_all(&bytes).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    });
    let mut pending = Vec::new();
    let mut upgraded = false;
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buffer[..n]);
        if !upgraded {
            // The client sends nothing after its request before the 101 comes back.
            let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            let request: Vec<u8> = pending.drain(..end + 4).collect();
            let _ = tx.send(request);
            upgraded = true;
        }
        while let Some(length) = frame_length(&pending) {
            let frame: Vec<u8> = pending.drain(..length).collect();
            if frame[0] & 0x0F == PONG {
                let tx = tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(hold).await;
                    let _ = tx.send(frame);
                });
            } else {
                let _ = tx.send(frame);
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}

/// The length in bytes of the whole WebSocket frame at the start of `bytes` (RFC 6455 section
/// 5.2), or `None` while it has not all arrived.
fn frame_length(bytes: &[u8]) -> Option<usize> {
    let second = *bytes.get(1)?;
    let masked = second & 0x80 != 0;
    let (payload, header) = match second & 0x7F {
        126 => (
            u16::from_be_bytes(bytes.get(2..4)?.try_into().ok()?) as usize,
            4,
        ),
        127 => (
            u64::from_be_bytes(bytes.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        short => (usize::from(short), 2),
    };
    let length = header + if masked { 4 } else { 0 } + payload;
    (bytes.len() >= length).then_some(length)
}
