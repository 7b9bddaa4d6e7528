//! Correspondence games (`clock {"days_per_move": N}`) over WebSockets, on SQLite and
//! PostgreSQL, on a manual clock the test moves (days pass without sleeping): a move two hours
//! after the last keeps the room and charges the clock; the room leaves memory between moves and
//! comes back as it was; nobody is claimable for being away, and an invite waits while its
//! creator is away; running out of days loses on time with nobody connected (found by the sweep
//! once the room left memory), also across a restart, whose downtime is charged (days are days),
//! and in a cluster by the room's owner; days other than 1, 2, 3, 5, 7, 14 are `bad_clock`.

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use khanate::config::{ClusterConfig, Config};
use serde_json::{Value, json};
use sqlx::Connection;
use support::server::{
    TestServer, eventually, free_port, get, get_text, post, room_with_every_seat,
};
use support::ws::Client;

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;

fn hours(n: u64) -> Duration {
    Duration::from_millis(n * HOUR_MS)
}

/// The configuration of a server over `url` whose rooms read `clock` and leave memory after a
/// minute idle.
fn config(url: &str, clock: &Clock) -> Config {
    let mut config = Config::for_tests(url);
    config.clock = clock.clone();
    config.limits.room_idle_s = 60;
    config
}

async fn server(url: &str, clock: &Clock) -> TestServer {
    TestServer::start_with(config(url, clock)).await
}

/// A cluster node over PostgreSQL `url` (see `server`), with short leases; and its URL.
async fn node(url: &str, clock: &Clock) -> (TestServer, String) {
    let port = free_port();
    let advertised = format!("http://127.0.0.1:{port}");
    let mut config = config(url, clock);
    config.bind = ([127, 0, 0, 1], port).into();
    config.cluster = ClusterConfig {
        advertise_url: Some(advertised.clone()),
        cluster_secret: Some("correspondence-test-secret-of-32-bytes-or-more".into()),
        lease_ttl_ms: 1500,
        lease_renew_ms: 300,
        ..ClusterConfig::default()
    };
    (TestServer::start_with(config).await, advertised)
}

/// Connects `token`: the client and its snapshot.
async fn connect(server: &TestServer, code: &str, token: &str) -> (Client, Value) {
    let (mut client, _) = Client::hello(server.addr, code, Some(token), None).await;
    let snapshot = client.next_of("snapshot").await;
    (client, snapshot)
}

/// The clock of a frame without its server timestamp.
fn clock_of(frame: &Value) -> Value {
    let mut clock = frame["d"]["clock"].clone();
    assert!(clock["at"].is_string(), "no clock.at in {frame}");
    clock.as_object_mut().unwrap().remove("at");
    clock
}

/// How many rooms have left memory for being idle (`khanate_evictions_total{why="idle"}`).
async fn idle_evictions(server: &TestServer) -> f64 {
    get_text(server.addr, "/metrics")
        .await
        .1
        .lines()
        .filter(|l| l.starts_with("khanate_evictions_total{why=\"idle\"}"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Waits until the room has seen every seat's connection leave.
async fn until_nobody_is_connected(server: &TestServer, code: &str) {
    eventually(|| async {
        let (_, room) = get(server.addr, &format!("/api/rooms/{code}")).await;
        let seats = room["seats"].as_array()?.clone();
        seats.iter().all(|s| s["connected"] == false).then_some(())
    })
    .await;
}

/// Once the room has seen every seat leave, advances the clock past the rooms' idle time and
/// waits until one more room has left memory.
async fn let_the_room_leave_memory(server: &TestServer, clock: &Clock, code: &str) {
    until_nobody_is_connected(server, code).await;
    let before = idle_evictions(server).await;
    clock.advance(Duration::from_secs(61));
    eventually(|| async { (idle_evictions(server).await > before).then_some(()) }).await;
}

/// The finished game's record, once there is one.
async fn finished(server: &TestServer, room_id: &str) -> Value {
    eventually(|| async {
        let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
        (status == 200).then_some(record)
    })
    .await
}

/// A two-day correspondence game of Ouk Chatrang, both seats taken: (room id, code, tokens).
async fn two_day_game(server: &TestServer) -> (String, String, Vec<String>) {
    let clock = json!({"clock": {"days_per_move": 2}});
    room_with_every_seat(server.addr, "ouk-chatrang", clock).await
}

async fn days_pass_with_nobody_connected(url: &str) {
    let clock = Clock::manual();
    let server = server(url, &clock).await;
    let (room_id, code, tokens) = two_day_game(&server).await;
    let (mut white, snapshot) = connect(&server, &code, &tokens[0]).await;
    assert_eq!(
        clock_of(&snapshot),
        json!({"initial_s": 2 * 86_400, "increment_s": 0, "days_per_move": 2,
               "remaining_ms": [2 * DAY_MS, 2 * DAY_MS], "running": 0})
    );
    clock.advance(hours(5));
    white.send_move("w1", "e3e4", 3).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    let moved = white.event("moved", 4).await;
    // The mover's days are full again; Black's two days run.
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [2 * DAY_MS, 2 * DAY_MS], "running": 1})
    );
    let deadline = clock.now_utc() + chrono::Duration::days(2);
    let due = |at| server.store.due_correspondence_rooms(at, 10);
    assert!(
        due(deadline - chrono::Duration::milliseconds(1))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        due(deadline).await.unwrap(),
        [uuid::Uuid::parse_str(&room_id).unwrap()],
        "the deadline is in the database"
    );

    // Black is away for an hour: being away is normal here, nobody may claim the game.
    clock.advance(hours(1));
    white.command("claim_victory", "c1", json!({})).await;
    assert_eq!(white.answer("c1").await["d"]["code"], "cannot_claim");
    white.close().await;
    let_the_room_leave_memory(&server, &clock, &code).await;

    // Black comes back two hours after White's move: the room loads as it was, Black's clock
    // charged those two hours; its move keeps the game on.
    clock.advance(hours(1) - Duration::from_secs(61));
    let (mut black, snapshot) = connect(&server, &code, &tokens[1]).await;
    assert_eq!(
        clock_of(&snapshot)["remaining_ms"],
        json!([2 * DAY_MS, 2 * DAY_MS - 2 * HOUR_MS])
    );
    assert_eq!(snapshot["d"]["clock"]["running"], 1);
    black.send_move("b1", "d6d5", 4).await;
    assert_eq!(black.answer("b1").await["t"], "ack");
    let moved = black.event("moved", 5).await;
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [2 * DAY_MS, 2 * DAY_MS], "running": 0})
    );
    let (_, room) = get(server.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(room["status"], "playing");
    black.close().await;
    let_the_room_leave_memory(&server, &clock, &code).await;

    // White never moves again. A second before its deadline the sweep finds nothing due; at its
    // next look, two days after Black's move, it loads the room, which flags with nobody
    // connected.
    clock.advance(Duration::from_millis(2 * DAY_MS) - Duration::from_secs(62));
    assert!(due(clock.now_utc()).await.unwrap().is_empty());
    clock.advance(khanate::room::sweep::EVERY);
    let record = finished(&server, &room_id).await;
    assert_eq!(record["result"], json!({"winner": 1, "reason": "timeout"}));
    assert_eq!(record["clock"]["remaining_ms"], json!([0, 2 * DAY_MS]));
    assert_eq!(record["clock"]["days_per_move"], 2);
    // PGN has no tag for days per move: `-`, as lichess writes a correspondence game.
    let (_, pgn) = get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert!(
        pgn.contains("[TimeControl \"-\"]") && !pgn.contains("%clk"),
        "{pgn}"
    );
    assert!(due(clock.now_utc()).await.unwrap().is_empty());
    server.shutdown().await;
}

async fn days_go_on_while_the_server_is_down(url: &str) {
    let clock = Clock::manual();
    let first = server(url, &clock).await;
    let (room_id, code, tokens) = two_day_game(&first).await;
    let (mut white, _) = connect(&first, &code, &tokens[0]).await;
    white.send_move("w1", "e3e4", 3).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    white.close().await;
    first.shutdown().await;

    // A day passes while the server is down: it is charged to Black.
    clock.advance(hours(24));
    let second = server(url, &clock).await;
    let (black, snapshot) = connect(&second, &code, &tokens[1]).await;
    assert_eq!(
        clock_of(&snapshot)["remaining_ms"],
        json!([2 * DAY_MS, DAY_MS])
    );
    black.close().await;
    second.shutdown().await;

    // The rest of Black's time runs out while the server is down: the next start flags it.
    clock.advance(hours(24));
    let third = server(url, &clock).await;
    let record = finished(&third, &room_id).await;
    assert_eq!(record["result"], json!({"winner": 0, "reason": "timeout"}));
    assert_eq!(record["clock"]["remaining_ms"], json!([2 * DAY_MS, 0]));
    third.shutdown().await;
}

async fn an_invite_waits_while_its_creator_is_away(url: &str) {
    let clock = Clock::manual();
    let server = server(url, &clock).await;
    let body = json!({"game": "khan", "seat": 0, "clock": {"days_per_move": 1}});
    let (status, created) = post(server.addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap();
    let (creator, _) = connect(&server, code, created["seat_token"].as_str().unwrap()).await;
    creator.close().await;
    until_nobody_is_connected(&server, code).await;
    // Far past the ten minutes a live room's invite waits for a creator who left.
    clock.advance(hours(20));
    let (status, joined) = post(server.addr, &format!("/api/rooms/{code}/join"), &json!({})).await;
    assert_eq!(status, 200, "{joined}");
    let (_, room) = get(server.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(room["status"], "playing");
    server.shutdown().await;
}

async fn only_the_listed_days_make_a_room(url: &str) {
    let server = TestServer::start(url).await;
    for clock in [
        json!({"days_per_move": 4}),
        json!({"days_per_move": 0}),
        json!({"days_per_move": 30}),
        json!({"days_per_move": "3"}),
        json!({"days_per_move": 3, "increment_s": 0}),
        json!({"initial_s": 300, "increment_s": 181}),
    ] {
        let body = json!({"game": "khan", "clock": clock});
        let (status, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some("bad_clock")),
            "{clock}: {answer}"
        );
    }
    assert!(server.store.unfinished_room_ids().await.unwrap().is_empty());
    for days in [1, 2, 3, 5, 7, 14] {
        let body = json!({"game": "khan", "clock": {"days_per_move": days}});
        let (status, created) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(status, 201, "{created}");
    }
    server.shutdown().await;
}

/// The room's owner node (its advertised URL) and owner epoch.
async fn owner(url: &str, room_id: &str) -> (String, i64) {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query_as(
        "SELECT n.advertise_url, r.owner_epoch FROM rooms r JOIN nodes n ON n.id = r.owner_node \
         WHERE r.id = $1::uuid",
    )
    .bind(room_id)
    .fetch_one(&mut conn)
    .await
    .unwrap()
}

#[tokio::test]
async fn in_a_cluster_the_owner_flags_a_room_out_of_memory() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let (a, a_url) = node(&db.url, &clock).await;
    let (b, _) = node(&db.url, &clock).await;
    let (room_id, code, tokens) = two_day_game(&a).await;
    let (mut white, _) = connect(&a, &code, &tokens[0]).await;
    white.send_move("w1", "e3e4", 3).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    white.close().await;
    let_the_room_leave_memory(&a, &clock, &code).await;
    let (owner_before, epoch_before) = owner(&db.url, &room_id).await;
    assert_eq!(owner_before, a_url);

    // Both nodes' sweeps see the room due; only its owner, alive, may claim and flag it.
    clock.advance(Duration::from_millis(2 * DAY_MS) + khanate::room::sweep::EVERY);
    let record = finished(&b, &room_id).await;
    assert_eq!(record["result"], json!({"winner": 0, "reason": "timeout"}));
    let (owner_after, epoch_after) = owner(&db.url, &room_id).await;
    assert_eq!(
        owner_after, a_url,
        "the owner flagged it, nobody took it over"
    );
    assert_eq!(
        epoch_after,
        epoch_before + 1,
        "claimed again once, by its owner"
    );
    b.shutdown().await;
    a.shutdown().await;
}

#[tokio::test]
async fn days_pass_with_nobody_connected_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    days_pass_with_nobody_connected(&url).await;
}

#[tokio::test]
async fn days_pass_with_nobody_connected_on_postgres() {
    let db = support::db::fresh_postgres().await;
    days_pass_with_nobody_connected(&db.url).await;
}

#[tokio::test]
async fn days_go_on_while_the_server_is_down_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    days_go_on_while_the_server_is_down(&url).await;
}

#[tokio::test]
async fn days_go_on_while_the_server_is_down_on_postgres() {
    let db = support::db::fresh_postgres().await;
    days_go_on_while_the_server_is_down(&db.url).await;
}

#[tokio::test]
async fn an_invite_waits_while_its_creator_is_away_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    an_invite_waits_while_its_creator_is_away(&url).await;
}

#[tokio::test]
async fn an_invite_waits_while_its_creator_is_away_on_postgres() {
    let db = support::db::fresh_postgres().await;
    an_invite_waits_while_its_creator_is_away(&db.url).await;
}

#[tokio::test]
async fn only_the_listed_days_make_a_room_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    only_the_listed_days_make_a_room(&url).await;
}

#[tokio::test]
async fn only_the_listed_days_make_a_room_on_postgres() {
    let db = support::db::fresh_postgres().await;
    only_the_listed_days_make_a_room(&db.url).await;
}
