//! The REST API on the embedded SQLite store (the default a single machine runs): creating rooms
//! with every seat choice, joining, summaries, the lobby, finished games, and typed errors. Ends with
//! a restart on the same SQLite file in the middle of a game.

mod support;

use serde_json::{Value, json};
use support::server::{TestServer, get, post, two_player_room};
use support::ws::Client;

async fn sqlite_server() -> ((support::db::SqliteFile, String), TestServer) {
    let (file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    ((file, url), server)
}

#[tokio::test]
async fn created_room_answers_with_invite_and_a_token_for_the_chosen_seat() {
    let (_file, server) = sqlite_server().await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": "black", "name": " Sok "}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(created["seat"], 1);
    assert_eq!(created["color"], "black");
    let code = created["invite_code"].as_str().unwrap();
    assert_eq!(code.len(), 8);
    assert_eq!(
        created["invite_url"],
        format!("http://{}/r/{code}", server.addr)
    );
    assert_eq!(created["seat_token"].as_str().unwrap().len(), 32);

    let (status, summary) = get(server.addr, &format!("/api/rooms/{}", code.to_uppercase())).await;
    assert_eq!(status, 200, "invite codes are case-insensitive");
    assert_eq!(summary["room_id"], created["room_id"]);
    assert_eq!(summary["game"], "ouk-chatrang");
    assert_eq!(summary["status"], "waiting");
    assert_eq!(summary["version"], 1);
    assert_eq!(
        summary["seats"],
        json!([
            {"seat": 0, "color": "white", "name": null, "taken": false, "connected": false, "left": false},
            {"seat": 1, "color": "black", "name": "Sok", "taken": true, "connected": false, "left": false}
        ])
    );

    let (status, page) = support::server::get_text(server.addr, &format!("/r/{code}")).await;
    assert_eq!(status, 200, "the invite link opens the room page");
    assert!(page.contains("assets/js/room.js"), "{page}");
    let (status, _) = support::server::get_text(server.addr, "/r/zzzzzzzz").await;
    assert_eq!(status, 404);

    let (status, joined) = post(server.addr, &format!("/api/rooms/{code}/join"), &json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(
        (joined["seat"].as_u64(), joined["color"].as_str()),
        (Some(0), Some("white"))
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(summary["status"], "playing");
    assert_eq!(summary["version"], 3);

    let (status, full) = post(server.addr, &format!("/api/rooms/{code}/join"), &json!({})).await;
    assert_eq!(status, 409);
    assert_eq!(full["error"]["code"], "room_full");
    server.shutdown().await;
}

#[tokio::test]
async fn requests_with_bad_input_get_typed_errors() {
    let (_file, server) = sqlite_server().await;
    let cases: Vec<(Value, u16, &str)> = vec![
        (json!({"game": "chess"}), 400, "unknown_game"),
        (
            json!({"game": "ouk-chatrang", "seats": 3}),
            400,
            "bad_request",
        ),
        (
            json!({"game": "ouk-chatrang", "seat": 2}),
            400,
            "bad_request",
        ),
        (
            json!({"game": "ouk-chatrang", "seat": "green"}),
            400,
            "bad_request",
        ),
        (
            json!({"game": "ouk-chatrang", "visibility": "secret"}),
            400,
            "bad_request",
        ),
        (
            json!({"game": "ouk-chatrang", "options": {"layout": "231"}}),
            400,
            "bad_request",
        ),
        (
            json!({"game": "ouk-chatrang", "options": {"start_position": "not a fen"}}),
            400,
            "bad_position",
        ),
        (
            json!({"game": "ouk-chatrang", "options": {"start_position": "8/8/8/8/8/8/8/K6k w - - 0 1"}}),
            400,
            "bad_position",
        ),
        (
            json!({"game": "ouk-chatrang", "name": "x".repeat(33)}),
            400,
            "bad_name",
        ),
        (
            json!({"game": "ouk-chatrang", "clock": {"initial_s": 300, "increment_s": 181}}),
            400,
            "bad_clock",
        ),
        (
            json!({"game": "ouk-chatrang", "colour": "white"}),
            400,
            "bad_request",
        ),
        (json!([1, 2]), 400, "bad_request"),
    ];
    for (body, status, code) in cases {
        let (got, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(
            (got, answer["error"]["code"].as_str()),
            (status, Some(code)),
            "{body}: {answer}"
        );
        assert!(!answer["error"]["message"].as_str().unwrap().is_empty());
    }
    let (status, answer) = get(server.addr, "/api/rooms/zzzzzzzz").await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, _) = get(server.addr, "/api/games/not-a-uuid").await;
    assert_eq!(status, 404);
    let (status, answer) = get(server.addr, "/api/nothing-here").await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let response = reqwest::Client::new()
        .post(format!("http://{}/api/rooms", server.addr))
        .header("content-type", "application/json")
        .body("x".repeat(20_000))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status().as_u16(),
        413,
        "bodies over 16 KiB are refused"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn lobby_lists_public_rooms_waiting_for_players() {
    let (_file, server) = sqlite_server().await;
    let (_, public) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "visibility": "public"}),
    )
    .await;
    let (_, private) = post(server.addr, "/api/rooms", &json!({"game": "ouk-chatrang"})).await;
    let (_, full) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "visibility": "public"}),
    )
    .await;
    post(
        server.addr,
        &format!("/api/rooms/{}/join", full["invite_code"].as_str().unwrap()),
        &json!({}),
    )
    .await;
    let (status, lobby) = get(server.addr, "/api/rooms").await;
    assert_eq!(status, 200);
    let rooms = lobby["rooms"].as_array().unwrap();
    assert_eq!(rooms.len(), 1, "{lobby}");
    assert_eq!(rooms[0]["room_id"], public["room_id"]);
    assert_eq!(
        (rooms[0]["seats"].as_u64(), rooms[0]["taken"].as_u64()),
        (Some(2), Some(1))
    );
    assert_ne!(rooms[0]["room_id"], private["room_id"]);
    server.shutdown().await;
}

#[tokio::test]
async fn analysis_room_starts_from_the_given_fen_and_counting_shows() {
    let (_file, server) = sqlite_server().await;
    let fen = "8/8/4k3/8/8/2R1K3/8/8 w - - 0 1";
    let (room_id, code, white_token, black_token) =
        two_player_room(server.addr, json!({"start_position": fen})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let snapshot = white.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["start_position"], fen);
    assert_eq!(snapshot["d"]["position"], fen);
    let (mut black, _) = Client::hello(server.addr, &room_id, Some(&black_token), None).await;
    white.send_move("c", "c3c4", 3).await;
    let moved = black.next_of("moved").await;
    // K+R v K: piece's honour, L 16, counting from N = 3 (rules file counting vector).
    assert_eq!(moved["d"]["position"], "8/8/4k3/8/2R5/4K3/8/8 b - 30 6 1");
    assert_eq!(
        moved["d"]["counting"],
        json!({"kind": "piece", "count": 3, "limit": 16, "escaping": "black", "started_ply": 1})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn sqlite_room_survives_a_restart_on_the_same_file() {
    let (file, server) = sqlite_server().await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.next_of("ack").await["d"]["v"], 4);
    server.shutdown().await;
    assert_eq!(
        white.closed().await,
        Some(1012),
        "clients are told the server restarts"
    );

    let server = TestServer::start(&file.1).await;
    let (mut black, welcome) = Client::hello(server.addr, &code, Some(&black_token), Some(3)).await;
    assert_eq!(welcome["d"]["version"], 4);
    assert_eq!(black.next_of("moved").await["d"]["move"], "e3e4");
    black.send_move("m2", "d6d5", 4).await;
    assert_eq!(
        black.next_of("ack").await["d"],
        json!({"cid": "m2", "v": 5})
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["version"], 5);
    server.shutdown().await;
}
