//! A connection that falls behind is dropped before it can see a version hole: every connection
//! sees versions k, k+1, k+2, ... without a gap until its queue closes.
//!
//! The hole needed a race: a command that makes two events (a move that declines a draw offer makes
//! `moved` and `offer_declined`), a connection whose queue is full at the first event, and its
//! reader freeing a slot before the second. So this test races: a reader thread that reads a tiny
//! queue slowly and reconnects whenever it is dropped, while the players make many two-event
//! commands and 300 idle spectators widen the window between two sends. Before the fix it found a
//! hole within a few hundred commands on every run.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use khanate::protocol::Command;
use khanate::room::registry::Registry;
use khanate::room::{Outbound, RoomSettings};
use khanate::store::Store;
use serde_json::Value;
use tokio::sync::mpsc;

/// How many rounds (each: White moves, White offers a draw, Black moves and so declines it).
const ROUNDS: usize = 1500;

fn parse(out: &Outbound) -> Option<Value> {
    match out {
        Outbound::Text(text) => serde_json::from_str(text).ok(),
        Outbound::Close(..) => None,
    }
}

async fn ack(rx: &mut mpsc::Receiver<Outbound>) -> i64 {
    loop {
        let frame =
            parse(&rx.recv().await.expect("the player's queue stays open")).expect("a frame");
        if frame["t"] == "ack" {
            return frame["d"]["v"].as_i64().expect("a version");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_connection_never_sees_a_version_hole() {
    // In memory: the faster the commits, the more often the slow reader's queue is full.
    let settings = RoomSettings {
        max_connections: 1000,
        ..RoomSettings::default()
    };
    let registry = Registry::new(Store::connect("sqlite::memory:").await.unwrap(), settings);
    let (room, white_token, black_token) = support::rooms::two_player_room(&registry).await;
    let (white_tx, mut white_rx) = mpsc::channel(1_000_000);
    let white = room
        .connect(Some(white_token), None, white_tx)
        .await
        .unwrap();
    let (black_tx, mut black_rx) = mpsc::channel(1_000_000);
    let black = room
        .connect(Some(black_token), None, black_tx)
        .await
        .unwrap();
    let mut idle = Vec::new();
    for _ in 0..300 {
        let (tx, rx) = mpsc::channel(1_000_000);
        room.connect(None, None, tx).await.unwrap();
        idle.push(rx);
    }

    let holes: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (room, holes, stop) = (room.clone(), holes.clone(), stop.clone());
        let runtime = tokio::runtime::Handle::current();
        std::thread::spawn(move || {
            let mut frames = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let (tx, mut rx) = mpsc::channel(2);
                if runtime.block_on(room.connect(None, None, tx)).is_err() {
                    continue;
                }
                let mut last: Option<i64> = None;
                while let Some(out) = rx.blocking_recv() {
                    frames += 1;
                    if let Some(v) = parse(&out).and_then(|f| f["v"].as_i64()) {
                        if let Some(last) = last.filter(|last| v != last + 1) {
                            holes.lock().unwrap().push(format!("v{v} after v{last}"));
                        }
                        last = Some(v);
                    }
                    let spin = Instant::now();
                    while spin.elapsed() < Duration::from_micros((frames * 7919) % 2500) {}
                }
            }
        })
    };

    let mut v = 3;
    for round in 0..ROUNDS {
        let (white_move, black_move) = if round % 2 == 0 {
            ("b1d2", "b8d7")
        } else {
            ("d2b1", "d7b8")
        };
        room.command(
            white.conn,
            format!("w{round}"),
            Command::Move {
                mv: white_move.into(),
                v,
            },
        )
        .await;
        ack(&mut white_rx).await;
        room.command(white.conn, format!("o{round}"), Command::OfferDraw)
            .await;
        v = ack(&mut white_rx).await;
        room.command(
            black.conn,
            format!("b{round}"),
            Command::Move {
                mv: black_move.into(),
                v,
            },
        )
        .await;
        v = ack(&mut black_rx).await;
        while white_rx.try_recv().is_ok() {}
        for rx in &mut idle {
            while rx.try_recv().is_ok() {}
        }
        if !holes.lock().unwrap().is_empty() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    drop(room);
    let holes = holes.lock().unwrap().clone();
    assert!(
        holes.is_empty(),
        "a connection saw a version hole: {holes:?}"
    );
    assert_eq!(v, 3 + 4 * ROUNDS as i64, "every command was accepted");
    // The reader ends once its current queue closes; the registry holds the room, so stop waiting.
    drop(reader);
}
