//! The baseline: a bare WebSocket echo server (tokio-tungstenite, no rooms, no rules, no
//! database), and clients that load it the way players load Khanate, so that Khanate's figures
//! can be read as ratios to what this machine's sockets can do at all.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until};

use super::conn;
use super::stats::Recorder;

/// The first line the echo server prints, followed by its address.
pub const LISTENING: &str = "echo server listening on ";

/// Runs the echo server on a free loopback port until killed: every text frame is sent back.
pub async fn serve() -> anyhow::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    println!("{LISTENING}{}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            let Ok(socket) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            let (mut sink, mut stream) = socket.split();
            while let Some(Ok(message)) = stream.next().await {
                if message.is_text() && sink.send(message).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// One client of the baseline: a frame the size of a move, sent at the pace of one room's
/// moves, each timed to its echo. `ready` is told once it is connected.
pub async fn client(
    addr: SocketAddr,
    interval: Duration,
    seed: u64,
    recorder: Arc<Recorder>,
    mut stop: watch::Receiver<bool>,
    ready: mpsc::UnboundedSender<String>,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let Some(socket) = conn::open(addr, None, &recorder).await else {
        return;
    };
    let (to, mut frames) = mpsc::unbounded_channel();
    let mut sender = conn::split(socket, 0, to, recorder.clone());
    let _ = ready.send(String::new());
    let mut slot = Instant::now() + interval.mul_f64(rng.random::<f64>());
    let mut count = 0u64;
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = sleep_until(slot) => {}
        }
        count += 1;
        let frame =
            json!({"t": "move", "cid": format!("m{count}"), "d": {"move": "e3e4", "v": count}});
        let sent = Instant::now();
        if !sender.send(&frame).await {
            recorder.error("send failed");
            break;
        }
        tokio::select! {
            _ = stop.changed() => break,
            echo = frames.recv() => match echo {
                Some(echo) => recorder.ack(Instant::from_std(echo.at) - sent),
                None => break,
            }
        }
        slot = (slot + interval).max(sent - interval);
    }
    sender.close().await;
}
