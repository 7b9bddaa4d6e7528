//! The facts a game screen shows, as the real server sends them (docs/protocol.md "Material,
//! captures and check"): a Khan capture's squares and the pieces left, an Ouk Chatrang capture
//! and check, the snapshot's history and creator, who declined an offer, and the spectator count.

mod support;

use serde_json::{Value, json};
use support::server::{TestServer, post, room_with_every_seat};
use support::ws::Client;

/// The two players of a new room of `game` from `start`, connected: (invite code, [White, Black],
/// the version after the start).
async fn seated(server: &TestServer, game: &str, start: &str) -> (String, [Client; 2], i64) {
    let options = json!({"options": {"start_position": start}});
    let (_, code, tokens) = room_with_every_seat(server.addr, game, options).await;
    let (white, welcome) = Client::hello(server.addr, &code, Some(&tokens[0]), None).await;
    let (black, _) = Client::hello(server.addr, &code, Some(&tokens[1]), None).await;
    let v = welcome["d"]["version"].as_i64().unwrap();
    (code, [white, black], v)
}

/// Plays `mv` as `mover` at version `v`; returns the `moved` event as `watcher` got it.
async fn play(mover: &mut Client, watcher: &mut Client, mv: &str, v: i64) -> Value {
    mover.send_move(mv, mv, v).await;
    assert_eq!(mover.answer(mv).await["t"], "ack");
    let mut moved = watcher.event("moved", v + 1).await;
    moved["d"].as_object_mut().unwrap().remove("legal_moves");
    moved
}

fn ouk_captured(white: &str, black: &str) -> Value {
    json!({"0": {"captured": white}, "1": {"captured": black}})
}

async fn start_server() -> (support::db::PgDatabase, TestServer) {
    let database = support::db::fresh_postgres().await;
    let server = TestServer::start(&database.url).await;
    (database, server)
}

#[tokio::test]
async fn a_khan_custodian_capture_names_its_square_and_the_pieces_left() {
    let (_db, server) = start_server().await;
    let start = "10/s9/9k/10/10/10/10/3sK5/2K7/S9 w";
    let (code, [mut white, mut black], v) = seated(&server, "khan", start).await;
    let (mut spectator, _) = Client::hello(server.addr, &code, None, None).await;
    let moved = play(&mut white, &mut black, "c2-c3", v).await;
    // The docs/protocol.md example, exactly.
    let expected = json!({"seat": 0, "move": "c2-c3", "display": "c2-c3",
        "position": "10/s9/9k/10/10/10/10/2K1K5/10/S9 b", "to_move": 1, "captured": ["d3"],
        "material": {"0": {"soldiers": 1, "khans": 2}, "1": {"soldiers": 1, "khans": 1}}});
    assert_eq!(moved["d"], expected);
    assert_eq!(spectator.event("moved", v + 1).await["d"], expected);
    let quiet = play(&mut black, &mut white, "j8-j7", v + 1).await;
    assert_eq!(quiet["d"]["captured"], json!([]));
    assert_eq!(quiet["d"].get("check"), None, "Khan has no check");
    server.shutdown().await;
}

#[tokio::test]
async fn an_ouk_chatrang_capture_and_check_are_named_and_the_snapshot_keeps_the_history() {
    let (_db, server) = start_server().await;
    let start = "4k3/r7/8/8/8/8/8/R2K4 w - - 0 1";
    let (code, [mut white, mut black], v) = seated(&server, "ouk-chatrang", start).await;
    let took = play(&mut white, &mut black, "a1a7", v).await;
    assert_eq!(took["d"]["captured"], json!(["a7"]));
    assert_eq!(took["d"]["material"], ouk_captured("r", ""));
    assert_eq!(took["d"].get("check"), None);
    play(&mut black, &mut white, "e8f8", v + 1).await;
    let checked = play(&mut white, &mut black, "a7a8", v + 2).await;
    // The docs/protocol.md example, exactly.
    let expected = json!({"seat": 0, "move": "a7a8", "display": "Ra8+",
        "position": "R4k2/8/8/8/8/8/8/3K4 b - 30 8 2", "to_move": 1, "captured": [],
        "material": {"0": {"captured": "r"}, "1": {"captured": ""}}, "check": 1,
        "counting": {"kind": "piece", "count": 4, "limit": 16, "escaping": "black", "started_ply": 1}});
    assert_eq!(checked["d"], expected);

    let (mut late, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = late.next_of("snapshot").await["d"].clone();
    assert_eq!(snapshot["check"], 1);
    assert_eq!(snapshot["material"], ouk_captured("r", ""));
    assert_eq!(snapshot["created_by"], 0);
    let history: Vec<(Value, Value)> = snapshot["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| (entry["seat"].clone(), entry["captured"].clone()))
        .collect();
    assert_eq!(
        history,
        [
            (json!(0), json!(["a7"])),
            (json!(1), json!([])),
            (json!(0), json!([]))
        ]
    );
    assert_eq!(snapshot["history"][2]["position"], snapshot["position"]);
    assert_eq!(snapshot["history"][0]["position"], took["d"]["position"]);
    server.shutdown().await;
}

#[tokio::test]
async fn offer_declined_names_the_seat_that_declined() {
    let (_db, server) = start_server().await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": 0}),
    )
    .await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap();
    let (_, joined) = post(server.addr, &format!("/api/rooms/{code}/join"), &json!({})).await;
    let (mut white, _) =
        Client::hello(server.addr, code, created["seat_token"].as_str(), None).await;
    let (mut black, _) =
        Client::hello(server.addr, code, joined["seat_token"].as_str(), None).await;
    let v = white.next_of("snapshot").await["v"].as_i64().unwrap();

    // Declined by the seat it was made to.
    white.command("offer_draw", "o1", json!({})).await;
    let offer = black.event("offer", v + 1).await;
    black
        .command("decline", "d1", json!({"offer": offer["d"]["id"]}))
        .await;
    assert_eq!(white.event("offer_declined", v + 2).await["d"]["by"], 1);

    // Answered by a move of the seat it was made to: declined by the mover.
    white.send_move("w1", "e3e4", v + 2).await;
    white.answer("w1").await;
    white.command("offer_draw", "o2", json!({})).await;
    black.event("offer", v + 4).await;
    black.send_move("b1", "d6d5", v + 4).await;
    let declined = white.event("offer_declined", v + 6).await;
    assert_eq!(declined["d"]["by"], 1);

    // Withdrawn by the offerer.
    white.command("offer_draw", "o3", json!({})).await;
    let offer = black.event("offer", v + 7).await;
    white
        .command("decline", "d3", json!({"offer": offer["d"]["id"]}))
        .await;
    assert_eq!(black.event("offer_declined", v + 8).await["d"]["by"], 0);
    server.shutdown().await;
}

#[tokio::test]
async fn every_connection_is_told_how_many_spectators_watch() {
    let (_db, server) = start_server().await;
    let (_, code, tokens) = room_with_every_seat(server.addr, "khan", json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&tokens[0]), None).await;
    assert_eq!(white.next_of("snapshot").await["d"]["spectators"], 0);

    let (mut first, _) = Client::hello(server.addr, &code, None, None).await;
    assert_eq!(first.next_of("snapshot").await["d"]["spectators"], 1);
    assert_eq!(white.next_of("spectators").await["d"], json!({"count": 1}));
    // The newcomer is told too: a newcomer replayed from `last_v` gets no snapshot.
    assert_eq!(first.next_of("spectators").await["d"], json!({"count": 1}));
    let (mut second, _) = Client::hello(server.addr, &code, None, None).await;
    assert_eq!(second.next_of("snapshot").await["d"]["spectators"], 2);
    assert_eq!(white.next_of("spectators").await["d"], json!({"count": 2}));
    assert_eq!(first.next_of("spectators").await["d"], json!({"count": 2}));
    assert_eq!(second.next_of("spectators").await["d"], json!({"count": 2}));

    first.close().await;
    assert_eq!(white.next_of("spectators").await["d"], json!({"count": 1}));
    assert_eq!(second.next_of("spectators").await["d"], json!({"count": 1}));
    // A player's connection is no spectator: Black arriving changes nothing.
    let (mut black, welcome) = Client::hello(server.addr, &code, Some(&tokens[1]), None).await;
    assert_eq!(black.next_of("snapshot").await["d"]["spectators"], 1);
    // A connection replayed from its last version gets no snapshot: the count comes after.
    let v = welcome["d"]["version"].as_i64().unwrap();
    black.close().await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&tokens[1]), Some(v)).await;
    assert_eq!(
        black.recv().await,
        json!({"t": "spectators", "d": {"count": 1}})
    );
    server.shutdown().await;
}
