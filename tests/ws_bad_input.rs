//! Bad input over the WebSocket gets its documented answer and changes nothing: not JSON, an
//! unknown type, a frame over 8 KiB, an illegal move, a move out of turn, a stale version, a bad
//! notation, a claim for an unknown reason, a wrong token, an unknown room, a spectator's command,
//! and a flood of garbage.

mod support;

use serde_json::json;
use support::server::{TestServer, get, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// The room's version, and its rows, are what they were after the game started.
async fn assert_unchanged(server: &TestServer, room_id: &str) {
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["version"], 3, "no event was added");
    let id = Uuid::parse_str(room_id).unwrap();
    assert!(
        server.store.moves(id).await.unwrap().is_empty(),
        "no move row was written"
    );
    let stored = server
        .store
        .load_room(khanate::store::RoomRef::Id(id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.events.len(), 3);
    assert_eq!(stored.room.version, 3);
}

#[tokio::test]
async fn bad_input_is_refused_with_its_code_and_changes_nothing() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    white.next_of("snapshot").await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    black.next_of("snapshot").await;

    // Not JSON: reject without cid; the socket stays open.
    white.send_text("{this is not json").await;
    let reject = white.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "bad_message");
    assert_eq!(reject["d"]["cid"], serde_json::Value::Null);
    assert_eq!(reject["d"]["v"], 3);
    white.send(&json!({"t": "ping"})).await;
    assert_eq!(white.next_of("pong").await["t"], "pong");

    // JSON but not an object.
    white.send_text("[1, 2, 3]").await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "bad_message");

    // Unknown type: reject with the cid.
    white
        .send(&json!({"t": "castle", "cid": "c1", "d": {}}))
        .await;
    let reject = white.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "bad_message");
    assert_eq!(reject["d"]["cid"], "c1");

    // Illegal move, bad notation, stale version, out of turn.
    white.send_move("c2", "e3e5", 3).await;
    let reject = white.next_of("reject").await;
    assert_eq!(
        (reject["d"]["code"].as_str(), reject["d"]["cid"].as_str()),
        (Some("illegal_move"), Some("c2"))
    );
    white.send_move("c3", "hello", 3).await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "bad_notation");
    white.send_move("c4", "e3e4", 2).await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "stale_version");
    white.send_move("c5", "e3e4", 99).await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "stale_version");
    black.send_move("c6", "e6e5", 3).await;
    let reject = black.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "not_your_turn");
    assert_eq!(reject["d"]["v"], 3);

    // A repeated cid gets the first answer again, even with other content.
    white.send_move("c2", "e3e4", 3).await;
    let reject = white.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "illegal_move", "same cid, same answer");

    // Offers and claims that do not exist.
    white.command("accept", "c7", json!({"offer": 42})).await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "no_such_offer");
    white
        .command("claim_draw", "c8", json!({"reason": "repetition"}))
        .await;
    assert_eq!(white.next_of("reject").await["d"]["code"], "cannot_claim");
    // A claim for a reason the protocol does not name is refused as it is read.
    white
        .command("claim_draw", "c9", json!({"reason": "nonsense"}))
        .await;
    let reject = white.next_of("reject").await;
    assert_eq!(
        (reject["d"]["code"].as_str(), reject["d"]["cid"].as_str()),
        (Some("bad_message"), Some("c9"))
    );

    // A spectator cannot play.
    let (mut spectator, _) = Client::hello(server.addr, &code, None, None).await;
    spectator.send_move("s1", "e3e4", 3).await;
    assert_eq!(
        spectator.next_of("reject").await["d"]["code"],
        "not_a_player"
    );

    // A frame over 8 KiB closes the socket with 1009.
    let big = format!(
        r#"{{"t":"move","cid":"big","d":{{"move":"{}","v":3}}}}"#,
        "x".repeat(9000)
    );
    spectator.send_text(&big).await;
    assert_eq!(spectator.closed().await, Some(1009));

    // Hello errors: wrong token 4003, unknown room 4001, not a hello 4000, unknown protocol 4000.
    let mut wrong = Client::open(server.addr).await;
    wrong.send(&json!({"t": "hello", "d": {"protocol": 1, "room": code, "token": "00112233445566778899aabbccddeeff"}})).await;
    let error = wrong.recv().await;
    assert_eq!(
        (error["t"].as_str(), error["d"]["code"].as_str()),
        (Some("error"), Some("bad_token"))
    );
    assert_eq!(wrong.closed().await, Some(4003));
    let mut unknown = Client::open(server.addr).await;
    unknown
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": Uuid::new_v4().to_string()}}))
        .await;
    assert_eq!(unknown.recv().await["d"]["code"], "unknown_room");
    assert_eq!(unknown.closed().await, Some(4001));
    let mut rude = Client::open(server.addr).await;
    rude.send_move("x", "e3e4", 3).await;
    assert_eq!(rude.recv().await["d"]["code"], "bad_hello");
    assert_eq!(rude.closed().await, Some(4000));
    let mut future = Client::open(server.addr).await;
    future
        .send(&json!({"t": "hello", "d": {"protocol": 2, "room": code}}))
        .await;
    assert_eq!(future.recv().await["d"]["code"], "bad_hello");
    assert_eq!(future.closed().await, Some(4000));

    // A client that keeps sending garbage is closed with 1008.
    let (mut flood, _) = Client::hello(server.addr, &code, None, None).await;
    for _ in 0..11 {
        flood.send_text("garbage").await;
    }
    assert_eq!(flood.closed().await, Some(1008));

    assert_unchanged(&server, &room_id).await;
    // And the players can still play.
    white.send_move("ok", "e3e4", 3).await;
    assert_eq!(
        white.next_of("ack").await["d"],
        json!({"cid": "ok", "v": 4})
    );
    server.shutdown().await;
}
