//! A connection that falls behind is dropped before it can see a version hole, and catches up
//! without one when it reconnects with `last_v`: every connection sees versions k, k+1, k+2, ...
//! without a gap until its queue closes, and the versions of one reader across its connections go
//! on without a gap too (a snapshot may skip ahead: it replaces everything before it).
//!
//! The hole needed a race: a command that makes two events (a move that declines a draw offer makes
//! `moved` and `offer_declined`), a connection whose queue is full at the first event, and its
//! reader freeing a slot before the second. So this test races: a reader thread that reads a tiny
//! queue slowly and reconnects whenever it is dropped, while the players make many two-event
//! commands and 300 idle spectators widen the window between two sends. Before the fix it found a
//! hole within a few hundred commands on every run. The test also checks that the race happened:
//! the room dropped the reader many times (its queue closed while the room went on, and the
//! server's `khanate_slow_drops_total` moved) and replayed it the events it missed
//! (`khanate_resyncs_total{kind="replay"}`).

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use khanate::protocol::Command;
use khanate::room::registry::Registry;
use khanate::room::{OUTBOUND_CAPACITY, Outbound, RoomHandle, RoomSettings};
use khanate::store::Store;
use serde_json::Value;
use tokio::sync::mpsc;

/// How many rounds (each: White moves, White offers a draw, Black moves and so declines it).
const ROUNDS: usize = 1500;

/// The fewest times the room must drop the slow reader for the race to count as run (a run drops
/// it hundreds of times).
const MIN_DROPS: u64 = 20;

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

/// What the slow reader saw, over all its connections.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// The newest version it saw.
    last: Option<i64>,
    /// How often the room closed its queue while the room went on.
    drops: u64,
    /// Reconnections with `last_v` whose first versioned frame was a missed event (a replay).
    replays: u64,
    /// Connections whose first versioned frame was a snapshot.
    snapshots: u64,
    /// Every version hole, as "v9 after v7".
    holes: Vec<String>,
}

impl Seen {
    /// Takes the version `v` of `frame`: an event must follow the last version seen, a snapshot
    /// may skip ahead. `welcome_v` is the room's version in the welcome when this is its
    /// connection's first versioned frame, which tells a replay from a live event.
    fn version(&mut self, frame: &Value, v: i64, welcome_v: Option<i64>) {
        let snapshot = frame["t"] == "snapshot";
        if let Some(welcome_v) = welcome_v {
            if snapshot {
                self.snapshots += 1;
            } else if self.last.is_some_and(|last| last < welcome_v) {
                self.replays += 1;
            }
        }
        if let Some(last) = self.last {
            let follows = if snapshot { v >= last } else { v == last + 1 };
            if !follows {
                let t = frame["t"].as_str().unwrap_or("?");
                self.holes.push(format!("{t} v{v} after v{last}"));
            }
        }
        self.last = Some(v);
    }
}

/// Reads one connection of the slow reader into `seen`: slowly and until the room closes the
/// queue (`slow`, counted as a drop), or only what is queued already.
fn read(rx: &mut mpsc::Receiver<Outbound>, seen: &Mutex<Seen>, frames: &mut u64, slow: bool) {
    let mut welcome_v = None;
    loop {
        let out = if slow {
            match rx.blocking_recv() {
                Some(out) => out,
                None => {
                    seen.lock().unwrap().drops += 1;
                    return;
                }
            }
        } else {
            match rx.try_recv() {
                Ok(out) => out,
                Err(_) => return,
            }
        };
        *frames += 1;
        let frame = parse(&out).unwrap_or_default();
        if frame["t"] == "welcome" {
            welcome_v = frame["d"]["version"].as_i64();
        } else if let Some(v) = frame["v"].as_i64() {
            seen.lock().unwrap().version(&frame, v, welcome_v.take());
        }
        if slow {
            let spin = Instant::now();
            while spin.elapsed() < Duration::from_micros((*frames * 7919) % 2500) {}
        }
    }
}

/// The slow reader: connects with a queue of two frames and reads it slowly until the room drops
/// it, then catches up with `last_v` on a queue as large as a socket's (so that the replay fits)
/// and takes what is queued, and again, until `stop`.
fn slow_reader(room: RoomHandle, seen: Arc<Mutex<Seen>>, stop: Arc<AtomicBool>) {
    let runtime = tokio::runtime::Handle::current();
    std::thread::spawn(move || {
        let mut frames = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let last = seen.lock().unwrap().last;
            let (tx, mut rx) = mpsc::channel(OUTBOUND_CAPACITY);
            if runtime.block_on(room.connect(None, last, tx)).is_ok() {
                read(&mut rx, &seen, &mut frames, false);
            }
            drop(rx);
            let last = seen.lock().unwrap().last;
            let (tx, mut rx) = mpsc::channel(2);
            // Refused when more than one event came meanwhile (the replay does not fit).
            if runtime.block_on(room.connect(None, last, tx)).is_ok() {
                read(&mut rx, &seen, &mut frames, true);
            }
        }
    });
}

/// The value of the counter `name` (with its labels, e.g. `x_total{kind="replay"}`) in the
/// Prometheus text `metrics`, 0 when absent.
fn counter(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_connection_never_sees_a_version_hole() {
    let metrics = khanate::telemetry::install().expect("this test installs the only recorder");
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

    let seen: Arc<Mutex<Seen>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    slow_reader(room.clone(), seen.clone(), stop.clone());

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
        if !seen.lock().unwrap().holes.is_empty() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    // The reader ends once its current queue closes; the registry holds the room, so it is left
    // behind and what it saw so far is read here.
    let seen = seen.lock().unwrap().clone();
    let rendered = metrics.render();
    assert!(
        seen.holes.is_empty(),
        "a connection saw a version hole: {:?}",
        seen.holes
    );
    assert_eq!(v, 3 + 4 * ROUNDS as i64, "every command was accepted");
    assert!(
        seen.drops >= MIN_DROPS && seen.replays >= MIN_DROPS,
        "the room dropped the slow reader and replayed it what it missed: {seen:?}"
    );
    let slow_drops = counter(&rendered, "khanate_slow_drops_total");
    let replays = counter(&rendered, "khanate_resyncs_total{kind=\"replay\"}");
    assert!(
        slow_drops >= seen.drops && replays >= seen.replays,
        "the server counted {slow_drops} slow drops and {replays} replays: {seen:?}"
    );
}
