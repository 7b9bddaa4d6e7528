//! Three nodes behind a real nginx running the shipped `docs/deploy/nginx-cluster.conf`, on one
//! real PostgreSQL (issue 16, "What must show"): players and spectators on different nodes, a
//! node killed, paused past its lease, terminated in turn, its `LISTEN` connection cut, and a
//! command retried after a failover. Every client records what it was sent and reconnects with
//! `last_v` when its socket closes (`support::stream`); each test then compares every client's
//! stream with the stored log, and the moves acknowledged with the stored moves.
//!
//! Leases are short (1.5 s, renewed every 300 ms). The times from a kill to each room's next
//! acknowledged move are printed (`--nocapture`), never asserted: `docs/deploy/cluster.md`
//! records them.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use khanate::rules::{AnyGame, GameKind, GameOptions, Rules};
use khanate::store::{RoomRef, Store};
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use support::cluster::{Cluster, SHORT_LEASE};
use support::server::room_with_every_seat;
use support::stream::{Entrance, Follower, Seen};
use support::ws::{Client, End};
use tokio::sync::watch;
use uuid::Uuid;

/// Time between two moves of a room playing in the background.
const PAUSE: Duration = Duration::from_millis(100);

/// A small deterministic generator, so that every run plays the same games.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One room being played by the test: its players (seat order) and spectators, the game as the
/// rules module plays it beside the server, and every move acknowledged.
struct Table {
    id: String,
    local: AnyGame,
    players: Vec<Follower>,
    /// The seat tokens, in seat order.
    tokens: Vec<String>,
    rng: Xorshift,
    /// Every acknowledged move: (cid, the version its ack named, the move).
    acked: Vec<(String, i64, String)>,
    /// When each ack arrived.
    ack_times: Vec<Instant>,
}

/// `game` (`ouk-chatrang`, `khan`, `khan-tsin`) with `seats` players.
fn game_of(game: &str, seats: u8) -> (GameKind, GameOptions) {
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
    async fn open(rest: std::net::SocketAddr, game: &str, seats: &[Vec<Entrance>]) -> Table {
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
    async fn spectator(&self, entrances: &[Entrance]) -> Follower {
        Follower::join(&self.id, None, entrances).await
    }

    /// The version of the newest acknowledged move (or of the start).
    fn v(&self) -> i64 {
        self.players.iter().map(|p| p.v).max().unwrap()
    }

    /// The next move: a random legal one that does not end the game, if there is one.
    fn pick(&mut self) -> Option<(usize, String)> {
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
    async fn play_one(&mut self) -> bool {
        let Some((seat, mv)) = self.pick() else {
            return false;
        };
        let cid = format!("m{}", self.acked.len());
        let answer = self.players[seat].play(&cid, &mv).await;
        self.record_ack(seat, &cid, &mv, &answer).await;
        true
    }

    /// Records `answer` to `seat`'s move `mv` as its ack and brings every player to its version.
    async fn record_ack(&mut self, seat: usize, cid: &str, mv: &str, answer: &Value) {
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

    async fn play(&mut self, plies: usize) {
        for _ in 0..plies {
            assert!(self.play_one().await, "room {} ended early", self.id);
        }
    }

    /// Plays a move every [`PAUSE`] until `done` says so (or the game ends); returns itself.
    async fn run(mut self, done: impl Fn(&Table) -> bool + Send) -> Table {
        while !done(&self) && self.play_one().await {
            tokio::time::sleep(PAUSE).await;
        }
        self
    }

    /// Checks the stored room against what the test saw: the moves acknowledged are the stored
    /// moves, in order (nothing lost, nothing else: no fork), versions run 1, 2, 3, ... with no
    /// hole, and each of `followers` (and every player) received exactly the stored events after
    /// its first snapshot, in order, each once, with no resync. Returns the stored events.
    async fn check(&mut self, url: &str, spectators: &mut [Follower]) -> Vec<Seen> {
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
fn follow_all(
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

async fn stop_following(
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

fn node(cluster: &Cluster, i: usize) -> Entrance {
    Entrance::Node(cluster.nodes[i].addr)
}

fn proxy(cluster: &Cluster) -> Entrance {
    Entrance::Proxy(cluster.nginx.addr)
}

/// Terminates every node's `LISTEN` connection: how many there were.
async fn terminate_listeners(url: &str) -> i64 {
    let mut conn = PgConnection::connect(url).await.unwrap();
    let count: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    let _ = conn.close().await;
    count
}

/// The stored events of `room_id` with cid `cid`.
async fn events_with_cid(url: &str, room_id: &str, cid: &str) -> Vec<i64> {
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

// ---------------------------------------------------------------------------------------------
// The tests

/// (a) One game of each of the three games, created and joined through nginx, each seat on
/// another node (relayed to the room's owner where it is not that node), spectators on every node
/// and through nginx: every client's stream is the stored log, in order, no hole, no duplicate.
#[tokio::test]
async fn players_and_spectators_on_different_nodes_all_see_the_stored_log() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let games = [("ouk-chatrang", 2), ("khan", 2), ("khan-tsin", 3)];
    let mut tables = Vec::new();
    for (g, (game, seats)) in games.into_iter().enumerate() {
        let entrances: Vec<Vec<Entrance>> = (0..seats)
            .map(|s| vec![node(&cluster, (g + s) % 3)])
            .collect();
        let table = Table::open(cluster.nginx.addr, game, &entrances).await;
        let mut spectators = vec![table.spectator(&[proxy(&cluster)]).await];
        for i in 0..3 {
            spectators.push(table.spectator(&[node(&cluster, i)]).await);
        }
        tables.push((table, spectators));
    }
    for (table, _) in &mut tables {
        table.play(12).await;
    }
    for (table, spectators) in &mut tables {
        let log = table.check(&cluster.db.url, spectators).await;
        assert_eq!(log.iter().filter(|e| e.t == "moved").count(), 12);
        for follower in table.players.iter().chain(spectators.iter()) {
            assert!(follower.reconnects.is_empty(), "{:?}", follower.reconnects);
        }
    }
}

/// (b) kill -9 of the node owning the most rooms while six rooms play: every acked move is
/// stored, versions run without a hole, nothing else was stored, every room goes on (on another
/// node). Prints the time from the kill to each room's next acked move.
#[tokio::test]
async fn killing_the_busiest_owner_loses_no_acked_move_and_every_room_goes_on() {
    let mut cluster = Cluster::start(3, SHORT_LEASE).await;
    let games = ["ouk-chatrang", "khan", "khan-tsin"];
    let mut tables = Vec::new();
    let mut spectators = Vec::new();
    for r in 0..6 {
        // Seat 0 on a node (the proxy when that one goes), seat 1 through the proxy.
        let seats = vec![
            vec![node(&cluster, r % 3), proxy(&cluster)],
            vec![proxy(&cluster)],
        ];
        let table = Table::open(cluster.nginx.addr, games[r % 3], &seats).await;
        spectators.push(
            table
                .spectator(&[node(&cluster, (r + 1) % 3), proxy(&cluster)])
                .await,
        );
        spectators.push(table.spectator(&[proxy(&cluster)]).await);
        tables.push(table);
    }
    let mut owners = Vec::new();
    for table in &tables {
        owners.push(cluster.owner(&table.id).await.expect("an owner"));
    }
    let busiest = (0..3)
        .max_by_key(|i| owners.iter().filter(|o| *o == i).count())
        .unwrap();

    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);
    let killed_at: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let running: Vec<_> = tables
        .into_iter()
        .map(|table| {
            let killed_at = killed_at.clone();
            tokio::spawn(table.run(move |t| {
                killed_at
                    .get()
                    .is_some_and(|k| t.ack_times.iter().filter(|a| **a > *k).count() >= 3)
            }))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(2)).await;
    cluster.nodes[busiest].kill();
    let kill = Instant::now();
    killed_at.set(kill).unwrap();

    let mut tables = Vec::new();
    for task in running {
        tables.push(task.await.expect("a room task"));
    }
    let mut spectators = stop_following(&stop, following).await;
    for (r, table) in tables.iter_mut().enumerate() {
        let next = table
            .ack_times
            .iter()
            .find(|a| **a > kill)
            .expect("goes on");
        println!(
            "room {r} ({}, owner node {}{}): kill -> next acked move {:?}",
            table.id,
            owners[r],
            if owners[r] == busiest { ", killed" } else { "" },
            *next - kill
        );
        let mut mine: Vec<Follower> = spectators.drain(..2).collect();
        table.check(&cluster.db.url, &mut mine).await;
        let owner = cluster.owner(&table.id).await;
        assert!(
            owner.is_some_and(|o| o != busiest),
            "room {r} owner {owner:?}"
        );
    }
}

/// (c) The owner paused (SIGSTOP) past its lease and its room taken over, then resumed (SIGCONT)
/// with a move at the room's version waiting: that move is never acknowledged nor stored (the
/// node fenced itself on resume; the epoch would refuse it too), its clients are told to
/// reconnect, and the room goes on through the other nodes with no fork.
#[tokio::test]
async fn a_paused_owner_resumed_after_a_takeover_commits_nothing() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let owner = cluster.nodes[0].addr;
    let seats = vec![
        vec![node(&cluster, 1), node(&cluster, 2)],
        vec![node(&cluster, 2), node(&cluster, 1)],
    ];
    let mut table = Table::open(owner, "ouk-chatrang", &seats).await;
    assert_eq!(cluster.owner(&table.id).await, Some(0));
    let spectators = vec![
        table.spectator(&[proxy(&cluster)]).await,
        table
            .spectator(&[node(&cluster, 0), node(&cluster, 1)])
            .await,
        table.spectator(&[node(&cluster, 1)]).await,
        table.spectator(&[node(&cluster, 2)]).await,
    ];
    table.play(4).await;
    // White's second connection, on the owner itself: what it sends the owner reads on resume.
    let (mut late, _) = Client::hello(owner, &table.id, Some(&table.tokens[0]), None).await;
    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);

    cluster.nodes[0].signal("STOP");
    let (seat, late_move) = table.pick().unwrap();
    assert_eq!(seat, 0, "White on move");
    late.send(&json!({"t": "move", "cid": "late", "d": {"move": late_move, "v": table.v()}}))
        .await;
    // Taken over with nothing played since: the late move is at the room's version, so only the
    // epoch (or the self-fence before it) can keep it out.
    cluster
        .new_owner(&table.id, 0, Duration::from_secs(10))
        .await;
    cluster.nodes[0].signal("CONT");
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match late.next().await {
                Ok(frame) => assert_ne!(frame["t"], "ack", "the paused owner acked {frame}"),
                Err(End::Closed(code)) => return code,
            }
        }
    })
    .await
    .expect("the resumed owner closes its clients");
    assert!(matches!(ended, Some(1012 | 1013)), "closed with {ended:?}");
    table.play(4).await;

    let mut spectators = stop_following(&stop, following).await;
    table.check(&cluster.db.url, &mut spectators).await;
    assert_eq!(
        events_with_cid(&cluster.db.url, &table.id, "late").await,
        Vec::<i64>::new()
    );
    assert_eq!(
        cluster.nodes[0].metric("khanate_self_fences_total").await,
        Some(1.0)
    );
}

/// (d) Each node in turn terminated (SIGTERM) and started again while three rooms play: no
/// acked move lost, and no client reconnects more than once per terminated node.
#[tokio::test]
async fn rolling_termination_loses_no_acked_move_and_reconnects_each_client_once_per_node() {
    let mut cluster = Cluster::start(3, SHORT_LEASE).await;
    let games = [("ouk-chatrang", 2), ("khan", 2), ("khan-tsin", 3)];
    let mut tables = Vec::new();
    let mut spectators = Vec::new();
    for (g, (game, seats)) in games.into_iter().enumerate() {
        let entrances: Vec<Vec<Entrance>> = (0..seats)
            .map(|s| match s {
                0 => vec![proxy(&cluster)],
                s => vec![node(&cluster, (g + s) % 3), node(&cluster, (g + s + 1) % 3)],
            })
            .collect();
        let table = Table::open(cluster.nginx.addr, game, &entrances).await;
        spectators.push(table.spectator(&[proxy(&cluster)]).await);
        spectators.push(
            table
                .spectator(&[node(&cluster, g), node(&cluster, (g + 1) % 3)])
                .await,
        );
        tables.push(table);
    }
    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);
    let done = Arc::new(AtomicBool::new(false));
    let running: Vec<_> = tables
        .into_iter()
        .map(|table| {
            let done = done.clone();
            tokio::spawn(table.run(move |_| done.load(Ordering::Relaxed)))
        })
        .collect();
    let mut terminations = Vec::new();
    for i in 0..3 {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        terminations.push(Instant::now());
        assert!(cluster.nodes[i].terminate(), "node {i} exits cleanly");
        cluster.nodes[i].restart();
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    done.store(true, Ordering::Relaxed);
    let mut tables = Vec::new();
    for task in running {
        tables.push(task.await.expect("a room task"));
    }
    let mut spectators = stop_following(&stop, following).await;
    for (g, table) in tables.iter_mut().enumerate() {
        let mut mine: Vec<Follower> = spectators.drain(..2).collect();
        table.check(&cluster.db.url, &mut mine).await;
        for follower in table.players.iter().chain(mine.iter()) {
            for (k, from) in terminations.iter().enumerate() {
                let until = terminations.get(k + 1);
                let count = follower
                    .reconnects
                    .iter()
                    .filter(|r| r.at >= *from && until.is_none_or(|u| r.at < *u))
                    .count();
                assert!(
                    count <= 1,
                    "room {g}: {count} reconnects after termination {k}: {:?}",
                    follower.reconnects
                );
            }
            assert!(follower.reconnects.iter().all(|r| r.at >= terminations[0]));
        }
    }
}

/// (e) Every node's `LISTEN` connection terminated (again and again while the room moves: its
/// owner paused past its lease and taken over): no spectator misses an event, each node counts
/// the gap it repaired.
#[tokio::test]
async fn a_lost_listen_connection_loses_no_event() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let seats = vec![
        vec![node(&cluster, 0), node(&cluster, 2)],
        vec![node(&cluster, 2), node(&cluster, 0)],
    ];
    let mut table = Table::open(cluster.nodes[1].addr, "khan", &seats).await;
    let spectators = vec![
        table.spectator(&[node(&cluster, 0)]).await,
        table.spectator(&[node(&cluster, 2)]).await,
        table.spectator(&[proxy(&cluster)]).await,
    ];
    table.play(3).await;
    // Two per node: the rooms' (owners' notices) and the site channel's (users' events and
    // the pairing queue's wake-ups).
    assert_eq!(
        terminate_listeners(&cluster.db.url).await,
        6,
        "two LISTEN connections per node"
    );

    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);
    cluster.nodes[1].signal("STOP");
    let cutting = Arc::new(AtomicBool::new(true));
    let cutter = {
        let (url, cutting) = (cluster.db.url.clone(), cutting.clone());
        tokio::spawn(async move {
            while cutting.load(Ordering::Relaxed) {
                terminate_listeners(&url).await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    table.play(3).await;
    cluster
        .new_owner(&table.id, 1, Duration::from_secs(10))
        .await;
    cutting.store(false, Ordering::Relaxed);
    cutter.await.unwrap();
    cluster.nodes[1].signal("CONT");
    table.play(3).await;

    let mut spectators = stop_following(&stop, following).await;
    table.check(&cluster.db.url, &mut spectators).await;
    for i in [0, 2] {
        let gaps = cluster.nodes[i].metric("khanate_listener_gaps_total").await;
        assert!(gaps.is_some_and(|g| g >= 1.0), "node {i}: {gaps:?}");
    }
}

/// (f) A move acked by the owner, then the owner killed: the same frame again (same cid, same
/// version) on another node gets the first answer, and nothing is played twice; a move in flight
/// at the kill, retried, is stored exactly once.
#[tokio::test]
async fn a_retried_cid_after_a_failover_gets_its_first_answer() {
    let mut cluster = Cluster::start(3, SHORT_LEASE).await;
    let seats = vec![
        vec![node(&cluster, 1), node(&cluster, 0)],
        vec![node(&cluster, 1), node(&cluster, 2)],
    ];
    let mut table = Table::open(cluster.nodes[1].addr, "ouk-chatrang", &seats).await;
    table.play(2).await;

    let (seat, mv) = table.pick().unwrap();
    let first = json!({"t": "move", "cid": "retried", "d": {"move": mv, "v": table.v()}});
    let answer = table.players[seat].request(&first).await;
    table.record_ack(seat, "retried", &mv, &answer).await;
    let (other, in_flight_move) = table.pick().unwrap();
    let in_flight =
        json!({"t": "move", "cid": "in-flight", "d": {"move": in_flight_move, "v": table.v()}});
    table.players[other].send_only(&in_flight).await;
    cluster.nodes[1].kill();

    let again = table.players[seat].request(&first).await;
    assert_eq!(again, answer, "the first answer, again");
    let answer = table.players[other].request(&in_flight).await;
    table
        .record_ack(other, "in-flight", &in_flight_move, &answer)
        .await;
    table.play(2).await;
    table.check(&cluster.db.url, &mut []).await;
    let retried_v = again["d"]["v"].as_i64().unwrap();
    let stored = |cid| events_with_cid(&cluster.db.url, &table.id, cid);
    assert_eq!(stored("retried").await, vec![retried_v], "played once");
    assert_eq!(
        stored("in-flight").await,
        vec![retried_v + 1],
        "played once"
    );
}
