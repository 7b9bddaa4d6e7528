//! The first five recorded games of `tests/data/ouk-chatrang/games.jsonl`, played to their end
//! through the real server on PostgreSQL by two WebSocket clients while a spectator watches: every
//! ack, every broadcast position and counting state, the legal moves sent to the seat on move, the
//! result, and the rows in the database.

mod support;

use khanate::rules::ouk_chatrang::Game;
use khanate::rules::{Rules, Seat};
use serde_json::{Value, json};
use support::server::{TestServer, get, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// Plays `record` in a new room and checks everything the issue asks for.
async fn play_through_server(server: &TestServer, record: &Value) {
    let id = record["id"].as_str().unwrap();
    let moves = support::data::moves(record);
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;

    let (mut white, welcome) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    assert_eq!(welcome["d"]["seat"], 0);
    assert_eq!(welcome["d"]["role"], "player");
    let (mut black, _) = Client::hello(server.addr, &room_id, Some(&black_token), None).await;
    let (mut spectator, welcome) = Client::hello(server.addr, &code, None, None).await;
    assert_eq!(welcome["d"]["role"], "spectator");
    assert_eq!(welcome["d"]["seat"], Value::Null);

    let snapshot = white.next_of("snapshot").await;
    assert_eq!(snapshot["v"], 3, "seat_taken, seat_taken, game_started");
    assert_eq!(snapshot["d"]["status"], "playing");
    assert_eq!(snapshot["d"]["to_move"], 0);
    let mut local = Game::new();
    assert_eq!(snapshot["d"]["position"], local.position());
    assert_eq!(snapshot["d"]["legal_moves"], json!(local.legal_moves()));
    let black_snapshot = black.next_of("snapshot").await;
    assert!(
        black_snapshot["d"].get("legal_moves").is_none(),
        "legal moves go to the seat on move only"
    );
    spectator.next_of("snapshot").await;

    let mut v = 3;
    for (ply, mv) in moves.iter().enumerate() {
        let seat = local.to_move().expect("the game is still on") as Seat;
        let applied = local
            .play(mv)
            .unwrap_or_else(|e| panic!("{id} ply {}: {mv}: {e}", ply + 1));
        let cid = format!("{id}-{ply}");
        {
            let mover = if seat == 0 { &mut white } else { &mut black };
            mover.send_move(&cid, mv, v).await;
        }
        let counting = local.counting();
        let ends = applied.outcome.is_some();
        for (who, client) in [
            ("white", &mut white),
            ("black", &mut black),
            ("spectator", &mut spectator),
        ] {
            let moved = client.next_of("moved").await;
            assert_eq!(moved["v"], v + 1, "{id} ply {} to {who}", ply + 1);
            let d = &moved["d"];
            assert_eq!(d["seat"], seat);
            assert_eq!(d["move"], applied.notation);
            assert_eq!(d["display"], applied.display);
            assert_eq!(
                d["position"],
                local.position(),
                "{id} ply {} to {who}",
                ply + 1
            );
            assert_eq!(d["to_move"], json!(local.to_move()));
            assert_eq!(
                d["counting"],
                serde_json::to_value(counting).unwrap(),
                "{id} ply {}",
                ply + 1
            );
            let on_move = local.to_move().is_some()
                && who != "spectator"
                && local.to_move() == Some(u8::from(who == "black"));
            if on_move {
                assert_eq!(
                    d["legal_moves"],
                    json!(local.legal_moves()),
                    "{id} ply {}",
                    ply + 1
                );
            } else {
                assert!(
                    d.get("legal_moves").is_none(),
                    "{id} ply {}: {who} must not get legal moves",
                    ply + 1
                );
            }
        }
        let last_v = if ends { v + 2 } else { v + 1 };
        let mover = if seat == 0 { &mut white } else { &mut black };
        let ack = mover.next_of("ack").await;
        assert_eq!(
            ack["d"],
            json!({"cid": cid, "v": last_v}),
            "{id} ply {}",
            ply + 1
        );
        v = last_v;
    }

    if record["reason"] == "repetition" {
        let seat = local.to_move().expect("the claimant is on move");
        let claimant = if seat == 0 { &mut white } else { &mut black };
        claimant
            .command("claim_draw", "claim", json!({"reason": "repetition"}))
            .await;
        let ack = claimant.next_of("ack").await;
        v += 1;
        assert_eq!(ack["d"], json!({"cid": "claim", "v": v}));
    }
    for client in [&mut white, &mut black, &mut spectator] {
        let over = client.next_of("game_over").await;
        assert_eq!(over["v"], v);
        assert_eq!(
            over["d"]["result"]["winner"],
            support::data::expected_winner(record),
            "{id}"
        );
        assert_eq!(over["d"]["result"]["reason"], record["reason"], "{id}");
    }
    assert_eq!(
        local.position(),
        record["final_fen"].as_str().unwrap(),
        "{id}: the data's final FEN"
    );

    // The rows in the database.
    let room = Uuid::parse_str(&room_id).unwrap();
    let rows = server.store.moves(room).await.unwrap();
    assert_eq!(rows.len(), moves.len(), "{id}: one row per move");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.ply, i as i32 + 1);
        assert_eq!(row.notation, moves[i]);
        assert_eq!(row.seat, (i % 2) as u8);
    }
    assert_eq!(rows.last().unwrap().position, local.position());
    let extra_rows = server.store.extra_history(room).await.unwrap();
    let mut replay = Game::new();
    let mut expected_counting = Vec::new();
    for (i, mv) in moves.iter().enumerate() {
        replay.play(mv).unwrap();
        if let Some(c) = replay.counting() {
            expected_counting.push((i as i32 + 1, json!({"counting": c})));
        }
    }
    let stored: Vec<(i32, Value)> = extra_rows
        .into_iter()
        .map(|row| (row.ply, row.extra.into()))
        .collect();
    assert_eq!(
        stored, expected_counting,
        "{id}: one counting row per counted move"
    );
    let game = server
        .store
        .game_record(room)
        .await
        .unwrap()
        .expect("a finished game row");
    assert_eq!(game.reason, record["reason"].as_str().unwrap());
    assert_eq!(json!(game.winner), support::data::expected_winner(record));
    assert_eq!(game.moves, moves);
    assert_eq!(game.final_position, record["final_fen"].as_str().unwrap());
    let (status, body) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["reason"], record["reason"]);
    assert_eq!(body["moves"].as_array().unwrap().len(), moves.len());
    assert_eq!(
        body["display_moves"], record["san"],
        "{id}: SAN as Fairy-Stockfish writes it"
    );

    white.close().await;
    black.close().await;
    spectator.close().await;
}

#[tokio::test]
async fn first_five_recorded_games_play_to_their_end_over_websockets_on_postgres() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let games = support::data::recorded_games();
    for record in games.iter().take(5) {
        play_through_server(&server, record).await;
    }
    server.shutdown().await;
}
