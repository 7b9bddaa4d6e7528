//! PGN of timed games on the embedded default (SQLite) and on PostgreSQL (whose moves are written
//! by the group commit's batch statement), with a manual clock the test moves: the
//! `[TimeControl]` tag and each move's `{[%clk H:MM:SS]}` (the mover's time after the move, as
//! stored in the move's row) equal a text checked by hand; an untimed game has
//! `[TimeControl "-"]` and no clock comments.

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use serde_json::json;
use support::server::{get, get_text, room_with_every_seat, server_with_clock};
use support::ws::Client;
use uuid::Uuid;

/// Plays `moves` (UCI) alternately from White, `thinking[i]` ms before each, then Black resigns:
/// the room's id.
async fn play_and_resign(
    clock: &Clock,
    server: &support::server::TestServer,
    body: serde_json::Value,
    moves: &[(&str, u64)],
) -> String {
    let (room_id, code, tokens) = room_with_every_seat(server.addr, "ouk-chatrang", body).await;
    let mut players = Vec::new();
    for token in &tokens {
        let (mut client, _) = Client::hello(server.addr, &code, Some(token), None).await;
        client.next_of("snapshot").await;
        players.push(client);
    }
    let mut v = 3;
    for (i, (mv, thinking)) in moves.iter().enumerate() {
        clock.advance(Duration::from_millis(*thinking));
        let cid = format!("m{i}");
        players[i % 2].send_move(&cid, mv, v).await;
        v += 1;
        assert_eq!(players[i % 2].answer(&cid).await["d"]["v"], v);
    }
    players[1].command("resign", "r", json!({})).await;
    assert_eq!(players[1].answer("r").await["t"], "ack");
    room_id
}

/// The `[Date]` the PGN gives a game: the day it started.
async fn date_of(server: &support::server::TestServer, room_id: &str) -> String {
    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200, "{record}");
    let started = record["started_at"].as_str().unwrap();
    chrono::DateTime::parse_from_rfc3339(started)
        .unwrap()
        .format("%Y.%m.%d")
        .to_string()
}

#[tokio::test]
async fn a_timed_games_pgn_has_its_time_control_and_every_moves_clock() {
    let (_file, url) = support::db::fresh_sqlite_url();
    timed_pgn(&url).await;
}

#[tokio::test]
async fn a_timed_games_pgn_has_its_time_control_and_every_moves_clock_on_postgres() {
    let db = support::db::fresh_postgres().await;
    timed_pgn(&db.url).await;
}

async fn timed_pgn(url: &str) {
    let clock = Clock::manual();
    let server = server_with_clock(url, &clock).await;
    let body = json!({"clock": {"initial_s": 180, "increment_s": 2}});
    // 180 000 - 1 488 + 2 000 = 180 512 (0:03:00); 180 000 - 3 001 + 2 000 = 178 999 (0:02:58);
    // 180 512 - 10 000 + 2 000 = 172 512 (0:02:52); 178 999 - 65 000 + 2 000 = 115 999 (0:01:55).
    let moves = [
        ("e3e4", 1_488),
        ("d6d5", 3_001),
        ("e4d5", 10_000),
        ("e8c7", 65_000),
    ];
    let room_id = play_and_resign(&clock, &server, body, &moves).await;
    let rows = server
        .store
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap();
    let stored: Vec<_> = rows.iter().map(|row| row.clock_ms).collect();
    assert_eq!(
        stored,
        [Some(180_512), Some(178_999), Some(172_512), Some(115_999)]
    );
    let (status, pgn) = get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert_eq!(status, 200);
    let date = date_of(&server, &room_id).await;
    assert_eq!(
        pgn,
        format!(
            "[Event \"Khanate game\"]\n[Site \"Khanate\"]\n[Date \"{date}\"]\n[Round \"-\"]\n\
             [White \"?\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[Variant \"Cambodian\"]\n\
             [SetUp \"1\"]\n[FEN \"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1\"]\n\
             [TimeControl \"180+2\"]\n[Termination \"normal\"]\n\n\
             1. e4 {{[%clk 0:03:00]}} 1... d5 {{[%clk 0:02:58]}} 2. exd5 {{[%clk 0:02:52]}} 2...\n\
             Kc7 {{[%clk 0:01:55]}} {{resignation}} 1-0\n"
        )
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_untimed_games_pgn_says_no_time_control_and_has_no_clocks() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let clock = Clock::manual();
    let server = server_with_clock(&url, &clock).await;
    let room_id = play_and_resign(&clock, &server, json!({}), &[("e3e4", 1_000)]).await;
    let (status, pgn) = get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("\n[TimeControl \"-\"]\n"), "{pgn}");
    assert!(pgn.ends_with("\n\n1. e4 {resignation} 1-0\n"), "{pgn}");
    server.shutdown().await;
}
