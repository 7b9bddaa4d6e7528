//! A room's life over WebSockets on PostgreSQL: reconnecting with `last_v`, retrying a `cid` after a
//! dropped connection, presence, draw offers (accept, decline, declined by moving), resignation,
//! and a repetition claim.

mod support;

use khanate::rules::Rules;
use khanate::rules::ouk_chatrang::Game;
use serde_json::json;
use support::server::{TestServer, get, two_player_room};
use support::ws::Client;
use uuid::Uuid;

#[tokio::test]
async fn a_retried_cid_after_a_dropped_connection_gets_the_same_ack_and_is_stored_once() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("first", "e3e4", 3).await;
    assert_eq!(
        white.next_of("ack").await["d"],
        json!({"cid": "first", "v": 4})
    );
    // The connection drops; the client is not sure the move went through and sends it again.
    white.close().await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), Some(3)).await;
    let replayed = white.next_of("moved").await;
    assert_eq!(
        replayed["v"], 4,
        "the missed event is replayed, not a snapshot"
    );
    white.send_move("first", "e3e4", 3).await;
    assert_eq!(
        white.next_of("ack").await["d"],
        json!({"cid": "first", "v": 4})
    );
    let moves = server
        .store
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap();
    assert_eq!(moves.len(), 1, "the move is stored once");
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["version"], 4);
    // Black saw the move once.
    assert_eq!(black.next_of("moved").await["v"], 4);
    black.send_move("reply", "d6d5", 4).await;
    assert_eq!(black.next_of("ack").await["d"]["v"], 5);
    server.shutdown().await;
}

#[tokio::test]
async fn reconnecting_seat_on_move_gets_missed_events_with_its_legal_moves() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("a", "e3e4", 3).await;
    white.next_of("ack").await;
    // Black was away for version 4 and returns knowing version 3.
    let (mut black, welcome) = Client::hello(server.addr, &code, Some(&black_token), Some(3)).await;
    assert_eq!(welcome["d"]["version"], 4);
    let moved = black.recv().await;
    assert_eq!(moved["t"], "moved");
    assert_eq!(moved["v"], 4);
    let mut local = Game::new();
    local.play("e3e4").unwrap();
    assert_eq!(moved["d"]["legal_moves"], json!(local.legal_moves()));
    // A client with no state gets a snapshot.
    let (mut fresh, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let snapshot = fresh.recv().await;
    assert_eq!(snapshot["t"], "snapshot");
    assert_eq!(snapshot["v"], 4);
    assert_eq!(snapshot["d"]["moves"], json!(["e3e4"]));
    assert_eq!(snapshot["d"]["display_moves"], json!(["e4"]));
    assert_eq!(snapshot["d"]["to_move"], 1);
    assert_eq!(snapshot["d"]["legal_moves"], json!(local.legal_moves()));
    assert_eq!(snapshot["d"]["seats"][0]["connected"], true);
    assert_eq!(snapshot["d"]["seats"][1]["connected"], true);
    server.shutdown().await;
}

#[tokio::test]
async fn presence_follows_a_seats_first_and_last_connection() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    // Each connection sees its own seat arrive, then the other.
    assert_eq!(
        white.next_of("presence").await["d"],
        json!({"seat": 0, "connected": true})
    );
    let presence = white.next_of("presence").await;
    assert_eq!(presence["d"], json!({"seat": 1, "connected": true}));
    assert!(
        presence.get("v").is_none(),
        "presence is not a versioned event"
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["seats"][1]["connected"], true);
    black.close().await;
    assert_eq!(
        white.next_of("presence").await["d"],
        json!({"seat": 1, "connected": false})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn draw_offers_are_declined_by_moving_and_accepted_into_a_draw() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;

    white.command("offer_draw", "o1", json!({})).await;
    assert_eq!(white.answer("o1").await["d"]["v"], 4);
    assert_eq!(
        white.next_of("offer").await["v"],
        4,
        "the offerer sees its offer too"
    );
    let offer = black.next_of("offer").await;
    assert_eq!(
        offer["d"],
        json!({"id": 1, "kind": "draw", "by": 0, "accepted": []})
    );
    // Offering again changes nothing.
    white.command("offer_draw", "o2", json!({})).await;
    assert_eq!(white.answer("o2").await["d"]["v"], 4);
    // White may still move on its own offer's version: the position has not changed since 3.
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 5);
    // Black moves instead of answering: the offer is declined with the move.
    black.send_move("m2", "d6d5", 5).await;
    assert_eq!(black.answer("m2").await["d"]["v"], 7);
    assert_eq!(
        white.event("offer_declined", 7).await["d"],
        json!({"id": 1, "by": 1})
    );
    black.command("accept", "a1", json!({"offer": 1})).await;
    assert_eq!(black.answer("a1").await["d"]["code"], "no_such_offer");

    // A declined offer.
    black.command("offer_draw", "o3", json!({})).await;
    let offer = white.event("offer", 8).await;
    assert_eq!(offer["d"]["id"], 2);
    white.command("decline", "d1", json!({"offer": 2})).await;
    assert_eq!(white.answer("d1").await["d"]["v"], 9);
    assert_eq!(
        black.event("offer_declined", 9).await["d"],
        json!({"id": 2, "by": 0})
    );

    // An accepted offer ends the game as a draw by agreement.
    white.command("offer_draw", "o4", json!({})).await;
    let offer = black.event("offer", 10).await;
    black
        .command("accept", "a2", json!({"offer": offer["d"]["id"]}))
        .await;
    assert_eq!(black.answer("a2").await["d"]["v"], 11);
    let over = white.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "agreement"})
    );
    white.send_move("late", "a3a4", 11).await;
    assert_eq!(white.answer("late").await["d"]["code"], "game_over");

    let game = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((game.winner, game.reason.as_str()), (None, "agreement"));
    assert_eq!(game.moves, vec!["e3e4", "d6d5"]);
    server.shutdown().await;
}

#[tokio::test]
async fn resignation_gives_the_game_to_the_opponent_and_pgn_records_it() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.send_move("m", "d1b2", 3).await;
    white.next_of("ack").await;
    white.command("resign", "r", json!({})).await;
    assert_eq!(white.next_of("ack").await["d"]["v"], 5);
    let over = white.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 1, "reason": "resignation"})
    );
    let (status, pgn) =
        support::server::get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert_eq!(status, 200);
    assert!(pgn.contains("[Variant \"Cambodian\"]"), "{pgn}");
    assert!(
        pgn.contains("[White \"white\"]\n[Black \"black\"]\n[Result \"0-1\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[FEN \"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1\"]"),
        "{pgn}"
    );
    assert!(
        pgn.trim_end().ends_with("1. Kb2 {resignation} 0-1"),
        "{pgn}"
    );
    let (status, text) =
        support::server::get_text(server.addr, &format!("/api/games/{room_id}/record")).await;
    assert_eq!(status, 200);
    assert!(text.starts_with("Game: ouk-chatrang\n"), "{text}");
    assert!(
        text.contains("\nPlayers: white white; black black\n"),
        "{text}"
    );
    assert!(
        text.contains("\nResult: black wins by resignation\n"),
        "{text}"
    );
    assert!(text.ends_with("\n\n1 white d1b2\n"), "{text}");
    server.shutdown().await;
}

#[tokio::test]
async fn threefold_repetition_can_be_claimed_by_the_player_to_move() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    // Knights out and back twice: the start position (with all rights) occurs a third time.
    let shuffle = [
        "b1d2", "b8d7", "d2b1", "d7b8", "b1d2", "b8d7", "d2b1", "d7b8",
    ];
    let mut v = 3;
    for (i, mv) in shuffle.iter().enumerate() {
        let client = if i % 2 == 0 { &mut white } else { &mut black };
        if i == 4 {
            // Only twice so far: not yet claimable.
            client
                .command("claim_draw", "early", json!({"reason": "repetition"}))
                .await;
            assert_eq!(client.next_of("reject").await["d"]["code"], "cannot_claim");
        }
        client.send_move(&format!("m{i}"), mv, v).await;
        v = client.next_of("ack").await["d"]["v"].as_i64().unwrap();
    }
    black
        .command("claim_draw", "not-mine", json!({"reason": "repetition"}))
        .await;
    assert_eq!(
        black.next_of("reject").await["d"]["code"],
        "cannot_claim",
        "only the player to move claims"
    );
    white
        .command("claim_draw", "c", json!({"reason": "repetition"}))
        .await;
    assert_eq!(white.next_of("ack").await["d"]["v"], v + 1);
    let over = black.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "repetition"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn draw_offers_are_limited_to_one_per_move() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    white.command("offer_draw", "o1", json!({})).await;
    assert_eq!(white.answer("o1").await["d"]["v"], 4);
    // Withdrawing and offering again at once would let a player flood the opponent.
    white.command("decline", "w1", json!({"offer": 1})).await;
    assert_eq!(white.answer("w1").await["d"]["v"], 5);
    white.command("offer_draw", "o2", json!({})).await;
    let reject = white.answer("o2").await;
    assert_eq!(reject["d"]["code"], "rate_limited");
    assert_eq!(reject["d"]["v"], 5);
    white.send_move("m1", "e3e4", 5).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 6);
    black.command("offer_draw", "o3", json!({})).await;
    assert_eq!(
        black.answer("o3").await["d"]["v"],
        7,
        "a new move, a new offer"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn reconnect_replays_recent_events_and_snapshots_otherwise() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    // 244 knight moves: more than the 240 events a reconnect replays.
    let shuffle = ["b1d2", "b8d7", "d2b1", "d7b8"];
    let mut v = 3;
    for i in 0..244 {
        let client = if i % 2 == 0 { &mut white } else { &mut black };
        client.send_move(&format!("m{i}"), shuffle[i % 4], v).await;
        v = client.answer(&format!("m{i}")).await["d"]["v"]
            .as_i64()
            .unwrap();
    }
    assert_eq!(v, 247);
    let (mut far_behind, _) = Client::hello(server.addr, &code, None, Some(3)).await;
    let frame = far_behind.recv().await;
    assert_eq!(
        (frame["t"].as_str(), frame["v"].as_i64()),
        (Some("snapshot"), Some(247))
    );
    assert_eq!(frame["d"]["moves"].as_array().unwrap().len(), 244);
    for bad in [-1, 248, i64::MAX] {
        let (mut odd, _) = Client::hello(server.addr, &code, None, Some(bad)).await;
        assert_eq!(odd.recv().await["t"], "snapshot", "last_v {bad}");
    }
    let (mut near, _) = Client::hello(server.addr, &code, None, Some(240)).await;
    for expected in 241..=247 {
        let frame = near.recv().await;
        assert_eq!(
            (frame["t"].as_str(), frame["v"].as_i64()),
            (Some("moved"), Some(expected))
        );
    }
    let (mut current, _) = Client::hello(server.addr, &code, None, Some(247)).await;
    current.send(&json!({"t": "ping"})).await;
    // Nothing to replay when up to date: only the spectator count its arrival changed.
    assert_eq!(current.recv().await["t"], "spectators");
    assert_eq!(current.recv().await["t"], "pong");
    server.shutdown().await;
}

#[tokio::test]
async fn a_failed_commit_is_rejected_unavailable_and_the_retry_lands_once() {
    use sqlx::{Connection, PgConnection};
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let mut admin = PgConnection::connect(&db.url).await.unwrap();
    sqlx::query("ALTER TABLE moves RENAME TO moves_away")
        .execute(&mut admin)
        .await
        .unwrap();

    white.send_move("m1", "e3e4", 3).await;
    let reject = white.answer("m1").await;
    assert_eq!(
        (reject["d"]["code"].as_str(), reject["d"]["v"].as_i64()),
        (Some("unavailable"), Some(3))
    );
    assert_eq!(
        white.closed().await,
        Some(1013),
        "the room reloads from the database"
    );

    sqlx::query("ALTER TABLE moves_away RENAME TO moves")
        .execute(&mut admin)
        .await
        .unwrap();
    let (mut white, welcome) = Client::hello(server.addr, &code, Some(&white_token), Some(3)).await;
    assert_eq!(
        welcome["d"]["version"], 3,
        "nothing of the failed commit was kept"
    );
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"], json!({"cid": "m1", "v": 4}));
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"], json!({"cid": "m1", "v": 4}));
    let moves = server
        .store
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap();
    assert_eq!(moves.len(), 1);
    admin.close().await.unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn a_graceful_restart_loses_no_acknowledged_move_and_players_continue() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let shuffle = ["b1d2", "b8d7", "d2b1", "d7b8"];
    let mut v = 3;
    for i in 0..6 {
        let client = if i % 2 == 0 { &mut white } else { &mut black };
        client.send_move(&format!("m{i}"), shuffle[i % 4], v).await;
        v = client.answer(&format!("m{i}")).await["d"]["v"]
            .as_i64()
            .unwrap();
    }
    // A move is on its way when the server is asked to stop.
    white.send_move("m6", shuffle[2], v).await;
    server.shutdown().await;
    let mut acked = false;
    let close = loop {
        match white.next().await {
            Ok(frame) => acked |= frame["t"] == "ack" && frame["d"]["cid"] == "m6",
            Err(support::ws::End::Closed(code)) => break code,
        }
    };
    assert_eq!(close, Some(1012), "told to reconnect");
    assert_eq!(black.closed().await, Some(1012));

    let server = TestServer::start(&db.url).await;
    let stored = server
        .store
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .len();
    assert!(
        stored == 6 || stored == 7,
        "every acknowledged move is there ({stored})"
    );
    assert!(
        !acked || stored == 7,
        "a move the client saw accepted was stored"
    );
    let (mut white, welcome) = Client::hello(server.addr, &code, Some(&white_token), Some(v)).await;
    assert_eq!(
        welcome["d"]["version"],
        3 + stored as i64,
        "versions continue"
    );
    // The move in flight is retried with its cid: stored once either way.
    white.send_move("m6", shuffle[2], v).await;
    assert_eq!(
        white.answer("m6").await["d"],
        json!({"cid": "m6", "v": v + 1})
    );
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), Some(v + 1)).await;
    black.send_move("m7", shuffle[3], v + 1).await;
    assert_eq!(black.answer("m7").await["d"]["v"], v + 2);
    assert_eq!(
        server
            .store
            .moves(Uuid::parse_str(&room_id).unwrap())
            .await
            .unwrap()
            .len(),
        8
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_client_that_closes_gets_the_closing_handshake_back() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    // Both seats close one after the other, as a client leaving a finished room does; a race in
    // the server once dropped the socket without answering the close (1006 at the client).
    for round in 0..20 {
        let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
        let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
        white.send_close(1000).await;
        black.send_close(1000).await;
        assert_eq!(white.closed().await, Some(1000), "round {round}");
        assert_eq!(black.closed().await, Some(1000), "round {round}");
    }
}
