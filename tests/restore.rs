//! Restoring rooms at start-up, on the embedded SQLite store: an analysis room started from a FEN
//! continues exactly as it was going (counting included), and one room with an unreadable row is
//! left out without keeping the server, or the other rooms, down.

mod support;

use khanate::rules::Rules;
use khanate::rules::ouk_chatrang::Game;
use serde_json::json;
use sqlx::{Connection, SqliteConnection};
use support::server::{TestServer, get, two_player_room};
use support::ws::Client;

#[tokio::test]
async fn an_analysis_room_counts_the_same_after_a_restart() {
    let (_file, url) = support::db::fresh_sqlite_url();
    // White (King and knight) is the escaping side at once: board's honour from ply 0.
    let fen = "7k/8/6m1/2m5/3N4/8/8/K7 w - - 0 1";
    let moves = [
        "a1b1", "h8g8", "b1a1", "g8h8", "a1b1", "h8g8", "b1a1", "g8h8", "a1b1", "h8g8", "b1a1",
        "c5d4",
    ];
    let server = TestServer::start(&url).await;
    let (_, code, white_token, black_token) =
        two_player_room(server.addr, json!({"start_position": fen})).await;
    let mut local = Game::from_fen(fen).unwrap();
    let mut v = 3;
    {
        let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
        let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
        for (i, mv) in moves.iter().enumerate().take(6) {
            local.play(mv).unwrap();
            let client = if i % 2 == 0 { &mut white } else { &mut black };
            client.send_move(&format!("m{i}"), mv, v).await;
            v = client.answer(&format!("m{i}")).await["d"]["v"]
                .as_i64()
                .unwrap();
        }
    }
    server.shutdown().await;

    let server = TestServer::start(&url).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let snapshot = white.next_of("snapshot").await;
    assert_eq!(
        snapshot["d"]["start_position"], fen,
        "the room keeps the FEN it was created from"
    );
    assert_eq!(snapshot["d"]["counting"], json!(local.counting()));
    for (i, mv) in moves.iter().enumerate().skip(6) {
        local.play(mv).unwrap();
        let client = if i % 2 == 0 { &mut white } else { &mut black };
        client.send_move(&format!("m{i}"), mv, v).await;
        v = client.answer(&format!("m{i}")).await["d"]["v"]
            .as_i64()
            .unwrap();
        let moved = client.event("moved", v).await;
        assert_eq!(moved["d"]["position"], local.position(), "after {mv}");
        assert_eq!(
            moved["d"]["counting"],
            json!(local.counting()),
            "after {mv}"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_room_with_an_unreadable_row_is_left_out_and_the_others_are_restored() {
    let (file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    let (good, good_code, good_white, _) = two_player_room(server.addr, json!({})).await;
    let (bad, bad_code, _, _) = two_player_room(server.addr, json!({})).await;
    server.shutdown().await;

    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    let changed = sqlx::query("UPDATE seats SET joined_at = 'yesterday' WHERE room_id = ?")
        .bind(&bad)
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(changed.rows_affected(), 2);
    conn.close().await.unwrap();

    let server = TestServer::start(&url).await;
    let (status, summary) = get(server.addr, &format!("/api/rooms/{good}")).await;
    assert_eq!((status, summary["status"].as_str()), (200, Some("playing")));
    let (mut white, welcome) =
        Client::hello(server.addr, &good_code, Some(&good_white), None).await;
    assert_eq!(welcome["d"]["version"], 3);
    white.send_move("m", "e3e4", 3).await;
    assert_eq!(white.answer("m").await["d"]["v"], 4);

    let mut spectator = Client::open(server.addr).await;
    spectator
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": bad_code}}))
        .await;
    let error = spectator.recv().await;
    assert_eq!(
        (error["t"].as_str(), error["d"]["code"].as_str()),
        (Some("error"), Some("unavailable"))
    );
    assert_eq!(spectator.closed().await, Some(1011));
    let (status, _) = get(server.addr, &format!("/api/rooms/{bad}")).await;
    assert_eq!(status, 503);
    server.shutdown().await;
    drop(file);
}
