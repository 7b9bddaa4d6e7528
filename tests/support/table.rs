//! A room played by a cluster test: its players and spectators ([`Follower`]s, which reconnect
//! with `last_v`), the game played beside the server by the rules module, every acknowledged
//! move, and the check of all of it against the stored room (every client's stream is the stored
//! log, each acked move a stored move).

#![allow(dead_code)]

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use khanate::rules::{AnyGame, GameKind, GameOptions, Rules};
use khanate::store::{RoomRef, Store};
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use tokio::sync::watch;
use uuid::Uuid;

use super::cluster::Cluster;
use super::server::room_with_every_seat;
use super::stream::{Entrance, Follower, Seen};

/// Time between two moves of a room playing in the background.
pub const PAUSE: Duration = Duration::from_millis(100);

/// A small deterministic generator, so that every run plays the same games.
pub struct Xorshift(pub u64);

impl Xorshift {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One room being played by the test: its players (seat order) and spectators, the game as the
/// rules module plays it beside the server, and every move acknowledged.
pub struct Table {
    pub id: String,
    pub local: AnyGame,
    pub players: Vec<Follower>,
    /// The seat tokens, in seat order.
    pub tokens: Vec<String>,
    pub rng: Xorshift,
    /// Every acknowledged move: (cid, the version its ack named, the move).
    pub acked: Vec<(String, i64, String)>,
    /// When each ack arrived.
    pub ack_times: Vec<Instant>,
}

/// `game` (`ouk-chatrang`, `khan`, `khan-tsin`) with `seats` players.
pub fn game_of(game: &str, seats: u8) -> (GameKind, GameOptions) {
    let kind = match game {
        "ouk-chatrang" => GameKind::OukChatrang,
        "khan" => GameKind::Khan,
        "khan-tsin" => GameKind::KhanTsin,
        other => panic!("no game {other}"),
    };
    let players = (kind == GameKind::KhanTsin).then_some(seats);
    (
        kind,
        GameOptions {
            players,
            ..GameOptions::default()
        },
    )
}

impl Table {
    /// A room of `game` created (and every seat joined) over REST at `rest`, seat `i` connected
    /// through `seats[i]` (its entrances in order of preference).
    pub async fn open(rest: std::net::SocketAddr, game: &str, seats: &[Vec<Entrance>]) -> Table {
        let count = u8::try_from(seats.len()).unwrap();
        let (kind, options) = game_of(game, count);
        let (id, _code, tokens) =
            room_with_every_seat(rest, game, json!({"seats": count, "name": "p"})).await;
        let mut players = Vec::new();
        for (token, entrances) in tokens.iter().zip(seats) {
            players.push(Follower::join(&id, Some(token), entrances).await);
        }
        let seed = u64::from_str_radix(&id[..8], 16).unwrap() | 1;
        Table {
            local: AnyGame::new(kind, &options).unwrap(),
            players,
            rng: Xorshift(seed),
            tokens,
            acked: Vec::new(),
            ack_times: Vec::new(),
            id,
        }
    }

    /// A spectator of this room through `entrances`.
    pub async fn spectator(&self, entrances: &[Entrance]) -> Follower {
        Follower::join(&self.id, None, entrances).await
    }

    /// The version of the newest acknowledged move (or of the start).
    pub fn v(&self) -> i64 {
        self.players.iter().map(|p| p.v).max().unwrap()
    }

    /// The next move: a random legal one that does not end the game, if there is one.
    pub fn pick(&mut self) -> Option<(usize, String)> {
        let seat = usize::from(self.local.to_move()?);
        let legal = self.local.legal_moves();
        let going_on: Vec<&String> = legal
            .iter()
            .filter(|mv| {
                let mut probe = self.local.clone();
                probe
                    .play(mv)
                    .is_ok_and(|applied| applied.outcome.is_none())
            })
            .collect();
        let pool: Vec<&String> = if going_on.is_empty() {
            legal.iter().collect()
        } else {
            going_on
        };
        Some((seat, pool[self.rng.below(pool.len())].clone()))
    }

    /// Plays the next move with `cid` (retrying it over reconnections) and waits until every player
    /// saw it. `false` when the game is over.
    pub async fn play_one(&mut self) -> bool {
        let Some((seat, mv)) = self.pick() else {
            return false;
        };
        let cid = format!("m{}", self.acked.len());
        let answer = self.players[seat].play(&cid, &mv).await;
        self.record_ack(seat, &cid, &mv, &answer).await;
        true
    }

    /// Records `answer` to `seat`'s move `mv` as its ack and brings every player to its version.
    pub async fn record_ack(&mut self, seat: usize, cid: &str, mv: &str, answer: &Value) {
        assert_eq!(
            answer["t"], "ack",
            "seat {seat} {mv} in {}: {answer}",
            self.id
        );
        let v = answer["d"]["v"].as_i64().unwrap();
        self.ack_times.push(Instant::now());
        self.local.play(mv).expect("the server acked a legal move");
        self.acked.push((cid.to_owned(), v, mv.to_owned()));
        for player in &mut self.players {
            player.until_version(v).await;
        }
    }

    pub async fn play(&mut self, plies: usize) {
        for _ in 0..plies {
            assert!(self.play_one().await, "room {} ended early", self.id);
        }
    }

    /// Plays a move every [`PAUSE`] until `done` says so (or the game ends); returns itself.
    pub async fn run(mut self, done: impl Fn(&Table) -> bool + Send) -> Table {
        while !done(&self) && self.play_one().await {
            tokio::time::sleep(PAUSE).await;
        }
        self
    }

    /// Checks the stored room against what the test saw: the moves acknowledged are the stored
    /// moves, in order (nothing lost, nothing else: no fork), versions run 1, 2, 3, ... with no
    /// hole, and each of `followers` (and every player) received exactly the stored events after
    /// its first snapshot, in order, each once, with no resync. Returns the stored events.
    pub async fn check(&mut self, url: &str, spectators: &mut [Follower]) -> Vec<Seen> {
        let store = Store::connect(url).await.unwrap();
        let uuid = Uuid::parse_str(&self.id).unwrap();
        let room = store.load_room(RoomRef::Id(uuid)).await.unwrap().unwrap();
        let log: Vec<Seen> = room
            .events
            .iter()
            .map(|e| Seen {
                v: e.v,
                t: e.kind.clone(),
                d: e.data.clone(),
            })
            .collect();
        let versions: Vec<i64> = log.iter().map(|e| e.v).collect();
        let last = *versions.last().unwrap();
        assert_eq!(versions, (1..=last).collect::<Vec<_>>(), "room {}", self.id);
        assert_eq!(last, self.v(), "the newest ack is the stored version");
        let stored: Vec<String> = store
            .moves(uuid)
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.notation)
            .collect();
        let acked: Vec<String> = self.acked.iter().map(|(_, _, mv)| mv.clone()).collect();
        assert_eq!(stored, acked, "room {}: the stored moves", self.id);
        for (i, follower) in self.players.iter_mut().chain(spectators).enumerate() {
            follower.until_version(last).await;
            let expected: Vec<Seen> = log
                .iter()
                .filter(|e| e.v > follower.start_v)
                .cloned()
                .collect();
            assert_eq!(
                follower.events,
                expected,
                "room {}: client {i}'s stream (through {:?})",
                self.id,
                follower.entrance()
            );
            assert_eq!(follower.resyncs, 0, "client {i} got a snapshot again");
        }
        log
    }
}

/// Spectators following in the background until `stop`; joined back by [`stop_following`].
pub fn follow_all(
    spectators: Vec<Follower>,
    stop: &watch::Sender<bool>,
) -> Vec<tokio::task::JoinHandle<Follower>> {
    spectators
        .into_iter()
        .map(|mut spectator| {
            let stop = stop.subscribe();
            tokio::spawn(async move {
                spectator.follow(stop).await;
                spectator
            })
        })
        .collect()
}

pub async fn stop_following(
    stop: &watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<Follower>>,
) -> Vec<Follower> {
    stop.send_replace(true);
    let mut spectators = Vec::new();
    for task in tasks {
        spectators.push(task.await.expect("a spectator task"));
    }
    spectators
}

pub fn node(cluster: &Cluster, i: usize) -> Entrance {
    Entrance::Node(cluster.nodes[i].addr)
}

pub fn proxy(cluster: &Cluster) -> Entrance {
    Entrance::Proxy(cluster.nginx.addr)
}

/// Plays every table in the background, each until `after` is set and it has had `acks` more
/// acknowledged moves since: set `after` at the fault's end, then [`finish`] them.
pub fn run_until_acks_after(
    tables: Vec<Table>,
    after: &Arc<OnceLock<Instant>>,
    acks: usize,
) -> Vec<tokio::task::JoinHandle<Table>> {
    tables
        .into_iter()
        .map(|table| {
            let after = after.clone();
            tokio::spawn(table.run(move |t| {
                after
                    .get()
                    .is_some_and(|at| t.ack_times.iter().filter(|a| **a > *at).count() >= acks)
            }))
        })
        .collect()
}

/// The tables of [`run_until_acks_after`], once each is done.
pub async fn finish(running: Vec<tokio::task::JoinHandle<Table>>) -> Vec<Table> {
    let mut tables = Vec::new();
    for task in running {
        tables.push(task.await.expect("a room task"));
    }
    tables
}

impl Table {
    /// How long after `at` the room's next move was acknowledged (panics if none was).
    pub fn next_ack_after(&self, at: Instant) -> Duration {
        let next = self.ack_times.iter().find(|a| **a > at);
        *next.unwrap_or_else(|| panic!("room {} did not go on", self.id)) - at
    }

    /// The longest the room went without an acknowledged move from `at` on (from `at` to the
    /// first ack after it, or between two acks after it), and when that began (after `at`).
    /// Unlike [`Table::next_ack_after`], an ack that was on its way when a node froze at `at`
    /// does not hide the stall after it. Panics if no move was acknowledged after `at`.
    pub fn longest_without_ack_after(&self, at: Instant) -> (Duration, Duration) {
        let after: Vec<Instant> = std::iter::once(at)
            .chain(self.ack_times.iter().copied().filter(|a| *a > at))
            .collect();
        assert!(after.len() > 1, "room {} did not go on", self.id);
        after
            .windows(2)
            .map(|w| (w[1] - w[0], w[0] - at))
            .max()
            .unwrap()
    }
}

/// The node owning the most of `owners` (indices of nodes, one a room).
pub fn busiest(owners: &[usize]) -> usize {
    (0..3)
        .max_by_key(|i| owners.iter().filter(|o| *o == i).count())
        .unwrap()
}

/// The stored events of `room_id` with cid `cid`.
pub async fn events_with_cid(url: &str, room_id: &str, cid: &str) -> Vec<i64> {
    let mut conn = PgConnection::connect(url).await.unwrap();
    let versions = sqlx::query_scalar("SELECT v FROM room_events WHERE room_id = $1 AND cid = $2")
        .bind(Uuid::parse_str(room_id).unwrap())
        .bind(cid)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let _ = conn.close().await;
    versions
}
