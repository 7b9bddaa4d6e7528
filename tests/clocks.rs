//! Game clocks over WebSockets on PostgreSQL, with a manual clock the test moves (no sleeps): a
//! flag loses on time and is stored, the increment is added after each move to the millisecond, a
//! flag against a side that cannot mate is a draw, a flagged Khan-Tsin player leaves a 3-player
//! game that goes on, and a restart charges the time the server was down to nobody.

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use serde_json::{Value, json};
use support::server::{TestServer, get, post, room_with_every_seat, server_with_clock};
use support::ws::Client;

/// Every seat connected, past its snapshot (returned too).
async fn connect_all(
    server: &TestServer,
    code: &str,
    tokens: &[String],
) -> (Vec<Client>, Vec<Value>) {
    let mut clients = Vec::new();
    let mut snapshots = Vec::new();
    for token in tokens {
        let (mut client, _) = Client::hello(server.addr, code, Some(token), None).await;
        snapshots.push(client.next_of("snapshot").await);
        clients.push(client);
    }
    (clients, snapshots)
}

/// The clock of a frame without its server timestamp (checked to be RFC 3339).
fn clock_of(frame: &Value) -> Value {
    let mut clock = frame["d"]["clock"].clone();
    let at = clock["at"]
        .as_str()
        .unwrap_or_else(|| panic!("no clock.at in {frame}"));
    assert!(chrono::DateTime::parse_from_rfc3339(at).is_ok(), "{at}");
    clock.as_object_mut().unwrap().remove("at");
    clock
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[tokio::test]
async fn a_flag_loses_on_time_at_the_exact_deadline_and_is_stored() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let (room_id, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 60, "increment_s": 0}}),
    )
    .await;
    let (mut clients, snapshots) = connect_all(&server, &code, &tokens).await;
    let clock_view = &snapshots[0]["d"]["clock"];
    assert_eq!(clock_view["initial_s"], 60);
    assert_eq!(clock_view["increment_s"], 0);
    assert_eq!(clock_view["remaining_ms"], json!([60_000, 60_000]));
    assert_eq!(clock_view["running"], 0);

    // White moves with one millisecond to spare.
    clock.advance(ms(59_999));
    clients[0].send_move("w1", "e3e4", 3).await;
    assert_eq!(clients[0].answer("w1").await["t"], "ack");
    let moved = clients[1].event("moved", 4).await;
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [1, 60_000], "running": 1})
    );

    // Black's minute runs out: the deadline timer ends the game, nothing has to be sent.
    clock.advance(ms(59_999));
    clients[0].command("offer_draw", "o1", json!({})).await;
    assert_eq!(
        clients[0].answer("o1").await["t"],
        "ack",
        "black still has 1 ms"
    );
    clock.advance(ms(1));
    for client in &mut clients {
        let over = client.event("game_over", 6).await;
        assert_eq!(
            over["d"]["result"],
            json!({"winner": 0, "reason": "timeout"})
        );
        assert_eq!(
            clock_of(&over),
            json!({"remaining_ms": [1, 0], "running": null})
        );
    }
    clients[1].send_move("b1", "d6d5", 6).await;
    assert_eq!(clients[1].answer("b1").await["d"]["code"], "game_over");

    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(record["result"], json!({"winner": 0, "reason": "timeout"}));
    let (mut late, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["clock"]["remaining_ms"], json!([1, 0]));
    assert_eq!(snapshot["d"]["clock"]["running"], Value::Null);

    // The rematch is timed the same way, with fresh clocks.
    clients[0].command("offer_rematch", "r1", json!({})).await;
    assert_eq!(clients[0].answer("r1").await["t"], "ack");
    let offer = clients[1].event("offer", 7).await;
    clients[1]
        .command("accept", "r2", json!({"offer": offer["d"]["id"]}))
        .await;
    assert_eq!(clients[1].answer("r2").await["t"], "ack");
    let rematch = clients[0].event("rematch", 8).await;
    let new_code = rematch["d"]["invite_code"].as_str().unwrap();
    let (mut again, _) = Client::hello(server.addr, new_code, Some(&tokens[1]), None).await;
    let snapshot = again.next_of("snapshot").await;
    assert_eq!(
        clock_of(&snapshot),
        json!({"initial_s": 60, "increment_s": 0, "remaining_ms": [60_000, 60_000], "running": 0})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_increment_is_added_after_each_move_to_the_millisecond() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let (_, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 10, "increment_s": 2}}),
    )
    .await;
    let (mut clients, _) = connect_all(&server, &code, &tokens).await;
    clock.advance(ms(3_456));
    clients[0].send_move("w1", "e3e4", 3).await;
    assert_eq!(clients[0].answer("w1").await["t"], "ack");
    let moved = clients[1].event("moved", 4).await;
    // 10 000 - 3 456 + 2 000.
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [8_544, 10_000], "running": 1})
    );
    clock.advance(ms(1_000));
    clients[1].send_move("b1", "d6d5", 4).await;
    assert_eq!(clients[1].answer("b1").await["t"], "ack");
    let moved = clients[0].event("moved", 5).await;
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [8_544, 11_000], "running": 0})
    );
    // A late spectator sees White's clock as it runs now.
    clock.advance(ms(500));
    let (mut watcher, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = watcher.next_of("snapshot").await;
    assert_eq!(
        clock_of(&snapshot),
        json!({"initial_s": 10, "increment_s": 2, "remaining_ms": [8_044, 11_000], "running": 0})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_flag_against_a_bare_king_in_ouk_chatrang_is_a_draw() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    // White (a Rook more) flags; Black has only its King and could never mate (O-17).
    let (room_id, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({
            "clock": {"initial_s": 5, "increment_s": 0},
            "options": {"start_position": "4k3/8/8/8/8/8/8/R2K4 w - - 0 1"}
        }),
    )
    .await;
    let (mut clients, _) = connect_all(&server, &code, &tokens).await;
    clock.advance(ms(5_000));
    let over = clients[1].event("game_over", 4).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "timeout"})
    );
    assert_eq!(
        clock_of(&over),
        json!({"remaining_ms": [0, 5_000], "running": null})
    );
    let (_, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(
        record["result"],
        json!({"winner": null, "reason": "timeout"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_flagged_khan_tsin_player_leaves_and_the_three_player_game_goes_on() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let (_, code, tokens) = room_with_every_seat(
        server.addr,
        "khan-tsin",
        json!({"seats": 3, "clock": {"initial_s": 30, "increment_s": 1}}),
    )
    .await;
    let (mut clients, snapshots) = connect_all(&server, &code, &tokens).await;
    assert_eq!(snapshots[0]["d"]["to_move"], 0);
    // Version 4 is game_started; seat 0 lets its 30 s run out.
    clock.advance(ms(30_000));
    let left = clients[1].event("left", 5).await;
    assert_eq!(left["d"]["seat"], 0);
    assert_eq!(left["d"]["reason"], "timeout");
    assert_eq!(left["d"]["to_move"], 1);
    assert_eq!(
        clock_of(&left),
        json!({"remaining_ms": [0, 30_000, 30_000], "running": 1})
    );
    // Seat 1 plays on, and gets its increment.
    let mv = left["d"]["legal_moves"][0].as_str().unwrap().to_owned();
    clock.advance(ms(4_000));
    clients[1].send_move("p1", &mv, 5).await;
    assert_eq!(clients[1].answer("p1").await["t"], "ack");
    let moved = clients[2].event("moved", 6).await;
    assert_eq!(moved["d"]["to_move"], 2);
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [0, 27_000, 30_000], "running": 2})
    );
    clients[0].send_move("p0", &mv, 6).await;
    assert_eq!(clients[0].answer("p0").await["d"]["code"], "not_a_player");
    let (mut watcher, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = watcher.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["status"], "playing");
    assert_eq!(snapshot["d"]["seats"][0]["left"], true);
    server.shutdown().await;
}

#[tokio::test]
async fn a_restart_charges_the_time_the_server_was_down_to_nobody() {
    let db = support::db::fresh_postgres().await;
    restart_charges_nobody(&db.url).await;
}

#[tokio::test]
async fn a_restart_charges_the_time_the_server_was_down_to_nobody_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    restart_charges_nobody(&url).await;
}

async fn restart_charges_nobody(url: &str) {
    let clock = Clock::manual();
    let server = server_with_clock(url, &clock).await;
    let (_, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 60, "increment_s": 0}}),
    )
    .await;
    let (mut clients, _) = connect_all(&server, &code, &tokens).await;
    clock.advance(ms(5_000));
    clients[0].send_move("w1", "e3e4", 3).await;
    assert_eq!(clients[0].answer("w1").await["t"], "ack");
    // Black thinks for 2 s, then the server goes down for an hour.
    clock.advance(ms(2_000));
    drop(clients);
    server.shutdown().await;
    clock.advance(Duration::from_secs(3_600));

    let server = server_with_clock(url, &clock).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&tokens[1]), None).await;
    let snapshot = black.next_of("snapshot").await;
    // Black's turn restarts with the time it had at the last stored event.
    assert_eq!(
        clock_of(&snapshot),
        json!({"initial_s": 60, "increment_s": 0, "remaining_ms": [55_000, 60_000], "running": 1})
    );
    clock.advance(ms(59_999));
    black.send_move("b1", "d6d5", 4).await;
    assert_eq!(black.answer("b1").await["t"], "ack");
    let moved = black.event("moved", 5).await;
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [55_000, 1], "running": 0})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn clock_settings_out_of_bounds_are_bad_clock() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    for clock in [
        json!({"initial_s": 0, "increment_s": 0}),
        json!({"initial_s": 10_801, "increment_s": 0}),
        json!({"initial_s": 60, "increment_s": 181}),
        json!({"initial_s": 60}),
        json!({"initial_s": 60, "increment_s": 0, "delay_s": 1}),
        json!(true),
    ] {
        let body = json!({"game": "khan", "clock": clock});
        let (status, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(status, 400, "{clock}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_clock");
    }
    for clock in [
        Value::Null,
        json!({"initial_s": 10_800, "increment_s": 180}),
    ] {
        let body = json!({"game": "khan", "clock": clock});
        let (status, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(status, 201, "{answer}");
    }
    server.shutdown().await;
}
