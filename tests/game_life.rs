//! The whole life of a game over WebSockets on PostgreSQL (and the chat migration on SQLite):
//! aborting before everyone has moved, rematches offered, accepted (two players swap colours, three
//! rotate) and declined, and chat — who gets what, its limits, spectator chat turned off, its
//! history after a reconnect and a restart, and in the game record.

mod support;

use serde_json::{Value, json};
use sqlx::{Connection, PgConnection, Row};
use support::server::{TestServer, get, post, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// White and Black of a fresh two-player room, both connected and past their snapshots.
async fn seated(
    server: &TestServer,
    options: Value,
) -> (String, String, Client, Client, [String; 2]) {
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, options).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    white.next_of("snapshot").await;
    black.next_of("snapshot").await;
    (room_id, code, white, black, [white_token, black_token])
}

/// A spectator of `code` with `name`, past its snapshot.
async fn spectator(server: &TestServer, code: &str, name: &str) -> Client {
    let mut client = Client::open(server.addr).await;
    client
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": code, "name": name}}))
        .await;
    assert_eq!(client.recv().await["d"]["role"], "spectator");
    client.next_of("snapshot").await;
    client
}

async fn chat(client: &mut Client, cid: &str, channel: &str, text: &str) -> Value {
    client
        .command("chat", cid, json!({"channel": channel, "text": text}))
        .await;
    client.answer(cid).await
}

#[tokio::test]
async fn abort_before_both_moved_ends_the_game_stored_as_aborted() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, mut white, mut black, _) = seated(&server, json!({})).await;
    let mut watcher = spectator(&server, &code, "Vanna").await;
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    watcher.command("abort", "s1", json!({})).await;
    assert_eq!(watcher.answer("s1").await["d"]["code"], "not_a_player");
    // Black has not moved yet: either player may still abort.
    black.command("abort", "a1", json!({})).await;
    assert_eq!(black.answer("a1").await["d"], json!({"cid": "a1", "v": 5}));
    let over = json!({"result": {"winner": null, "reason": "aborted"}});
    for client in [&mut white, &mut black, &mut watcher] {
        let frame = client.event("game_over", 5).await;
        assert_eq!(frame["d"], over);
    }
    white.command("abort", "a2", json!({})).await;
    assert_eq!(white.answer("a2").await["d"]["code"], "game_over");

    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(
        record["result"],
        json!({"winner": null, "reason": "aborted"})
    );
    assert_eq!(record["moves"], json!(["e3e4"]));
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let id = Uuid::parse_str(&room_id).unwrap();
    let row = sqlx::query("SELECT winner, reason FROM games WHERE room_id = $1")
        .bind(id)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(row.get::<Option<i16>, _>("winner"), None);
    assert_eq!(row.get::<String, _>("reason"), "aborted");
    let status: String = sqlx::query_scalar("SELECT status FROM rooms WHERE id = $1")
        .bind(id)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(status, "finished");
    server.shutdown().await;
}

#[tokio::test]
async fn abort_once_both_have_moved_is_refused_with_cannot_abort() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, _, mut white, mut black, _) = seated(&server, json!({})).await;
    white.send_move("m1", "e3e4", 3).await;
    white.answer("m1").await;
    black.send_move("m2", "d6d5", 4).await;
    black.answer("m2").await;
    white.command("abort", "a1", json!({})).await;
    let reject = white.answer("a1").await;
    assert_eq!(reject["t"], "reject");
    assert_eq!(reject["d"]["code"], "cannot_abort");
    assert_eq!(reject["d"]["v"], 5);
    // The game goes on.
    white.send_move("m3", "e4d5", 5).await;
    assert_eq!(white.answer("m3").await["d"]["v"], 6);
    server.shutdown().await;
}

#[tokio::test]
async fn an_accepted_rematch_seats_both_players_in_a_new_room_with_colours_swapped() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, mut white, mut black, [white_token, black_token]) =
        seated(&server, json!({})).await;
    let mut watcher = spectator(&server, &code, "Vanna").await;
    white.command("offer_rematch", "r0", json!({})).await;
    assert_eq!(white.answer("r0").await["d"]["code"], "cannot_offer");
    white.command("resign", "g1", json!({})).await;
    assert_eq!(white.answer("g1").await["d"]["v"], 4);

    black.command("offer_rematch", "r1", json!({})).await;
    assert_eq!(black.answer("r1").await["d"]["v"], 5);
    let offer = white.event("offer", 5).await;
    assert_eq!(
        offer["d"],
        json!({"id": 1, "kind": "rematch", "by": 1, "accepted": []})
    );
    white.command("accept", "r2", json!({"offer": 1})).await;
    assert_eq!(white.answer("r2").await["d"], json!({"cid": "r2", "v": 6}));
    let mut rematch = Value::Null;
    for client in [&mut white, &mut black, &mut watcher] {
        let frame = client.event("rematch", 6).await;
        assert_eq!(
            frame["d"]["seats"],
            json!([{"seat": 0, "new_seat": 1, "new_color": "black"},
                   {"seat": 1, "new_seat": 0, "new_color": "white"}])
        );
        rematch = frame["d"].clone();
    }
    let new_id = rematch["room_id"].as_str().unwrap().to_owned();
    let new_code = rematch["invite_code"].as_str().unwrap().to_owned();
    assert_ne!(new_id, room_id);
    // No token in the stored events of either room.
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let stored: Vec<(String, String)> = sqlx::query_as("SELECT kind, data::text FROM room_events")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let seats_taken = stored
        .iter()
        .filter(|(kind, _)| kind == "seat_taken")
        .count();
    assert_eq!(seats_taken, 4, "both rooms' seats are stored: {stored:?}");
    for token in [&white_token, &black_token] {
        assert!(
            stored
                .iter()
                .all(|(_, data)| !data.contains(token.as_str()))
        );
    }
    white.command("offer_rematch", "r3", json!({})).await;
    assert_eq!(white.answer("r3").await["d"]["code"], "cannot_offer");
    let (mut old_view, _) = Client::hello(server.addr, &code, None, None).await;
    assert_eq!(old_view.next_of("snapshot").await["d"]["rematch"], rematch);

    // Both connect to the new room with the tokens they hold: colours swapped, game started.
    let (mut new_black, welcome) =
        Client::hello(server.addr, &new_code, Some(&white_token), None).await;
    assert_eq!(welcome["d"]["seat"], 1);
    assert_eq!(welcome["d"]["room_id"], new_id.as_str());
    let (mut new_white, welcome) =
        Client::hello(server.addr, &new_code, Some(&black_token), None).await;
    assert_eq!(welcome["d"]["seat"], 0);
    let snapshot = new_white.next_of("snapshot").await;
    assert_eq!(snapshot["v"], 3);
    assert_eq!(snapshot["d"]["status"], "playing");
    assert_eq!(snapshot["d"]["to_move"], 0);
    assert_eq!(snapshot["d"]["seats"][0]["name"], "black");
    assert_eq!(snapshot["d"]["seats"][1]["name"], "white");
    assert!(snapshot["d"]["legal_moves"].is_array());
    new_white.send_move("n1", "e3e4", 3).await;
    assert_eq!(new_white.answer("n1").await["d"]["v"], 4);
    assert_eq!(new_black.event("moved", 4).await["d"]["seat"], 0);
    new_black.send_move("n2", "d6d5", 4).await;
    assert_eq!(new_black.answer("n2").await["d"]["v"], 5);
    // The new room is created by the old room's creator (White, now Black): its seat may turn
    // spectator chat off.
    new_black
        .command("set_spectator_chat", "c1", json!({"enabled": false}))
        .await;
    assert_eq!(new_black.answer("c1").await["t"], "ack");

    // Both rooms are stored; the new one comes back after a restart.
    for client in [white, black, watcher, old_view, new_white, new_black] {
        client.close().await;
    }
    server.shutdown().await;
    let server = TestServer::start(&db.url).await;
    let (mut back, _) = Client::hello(server.addr, &new_code, Some(&black_token), None).await;
    let snapshot = back.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["moves"], json!(["e3e4", "d6d5"]));
    assert_eq!(snapshot["d"]["spectator_chat"], false);
    back.send_move("n3", "e4d5", 6).await;
    assert_eq!(back.answer("n3").await["d"]["v"], 7);
    let (_, old) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(old["status"], "finished");
    assert_eq!(old["version"], 6);
    server.shutdown().await;
}

#[tokio::test]
async fn a_declined_rematch_makes_no_room() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, _, mut white, mut black, _) = seated(&server, json!({})).await;
    black.command("resign", "g1", json!({})).await;
    black.answer("g1").await;
    white.command("offer_rematch", "r1", json!({})).await;
    assert_eq!(white.answer("r1").await["d"]["v"], 5);
    black.command("decline", "r2", json!({"offer": 1})).await;
    assert_eq!(black.answer("r2").await["d"]["v"], 6);
    assert_eq!(
        white.event("offer_declined", 6).await["d"],
        json!({"id": 1, "by": 1})
    );
    black.command("accept", "r3", json!({"offer": 1})).await;
    assert_eq!(black.answer("r3").await["d"]["code"], "no_such_offer");
    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let rooms: i64 = sqlx::query_scalar("SELECT count(*) FROM rooms")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(rooms, 1);
    // The offerer may offer again.
    white.command("offer_rematch", "r4", json!({})).await;
    assert_eq!(white.answer("r4").await["d"]["v"], 7);
    server.shutdown().await;
}

#[tokio::test]
async fn a_three_player_khan_tsin_rematch_rotates_the_colours_one_seat_on() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan-tsin", "seats": 3, "seat": 0, "name": "p0"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let mut tokens = vec![created["seat_token"].as_str().unwrap().to_owned()];
    for seat in 1..3 {
        let (status, joined) = post(
            server.addr,
            &format!("/api/rooms/{code}/join"),
            &json!({"seat": seat, "name": format!("p{seat}")}),
        )
        .await;
        assert_eq!(status, 200, "{joined}");
        tokens.push(joined["seat_token"].as_str().unwrap().to_owned());
    }
    let mut clients = Vec::new();
    for token in &tokens {
        let (mut client, _) = Client::hello(server.addr, &code, Some(token), None).await;
        client.next_of("snapshot").await;
        clients.push(client);
    }
    // Green and Blue resign: White wins. Green, who left, still sits in the rematch.
    clients[1].command("resign", "g1", json!({})).await;
    assert_eq!(clients[1].answer("g1").await["t"], "ack");
    clients[2].command("resign", "g2", json!({})).await;
    let v = clients[2].answer("g2").await["d"]["v"].as_i64().unwrap();
    clients[1].command("offer_rematch", "r1", json!({})).await;
    assert_eq!(clients[1].answer("r1").await["d"]["v"], v + 1);
    clients[0]
        .command("accept", "r2", json!({"offer": 1}))
        .await;
    assert_eq!(clients[0].answer("r2").await["d"]["v"], v + 2);
    assert_eq!(
        clients[2].event("offer_accepted", v + 2).await["d"],
        json!({"id": 1, "by": 0})
    );
    clients[2]
        .command("accept", "r3", json!({"offer": 1}))
        .await;
    assert_eq!(clients[2].answer("r3").await["d"]["v"], v + 3);
    let rematch = clients[0].event("rematch", v + 3).await["d"].clone();
    assert_eq!(
        rematch["seats"],
        json!([{"seat": 0, "new_seat": 1, "new_color": "green"},
               {"seat": 1, "new_seat": 2, "new_color": "blue"},
               {"seat": 2, "new_seat": 0, "new_color": "white"}])
    );
    let new_code = rematch["invite_code"].as_str().unwrap();
    let mut new_clients = Vec::new();
    for (old_seat, token) in tokens.iter().enumerate() {
        let (mut client, welcome) = Client::hello(server.addr, new_code, Some(token), None).await;
        let new_seat = (old_seat + 1) % 3;
        assert_eq!(welcome["d"]["seat"], new_seat);
        let snapshot = client.next_of("snapshot").await;
        assert_eq!(snapshot["d"]["status"], "playing");
        assert_eq!(
            snapshot["d"]["seats"][new_seat]["name"],
            format!("p{old_seat}")
        );
        new_clients.push((new_seat, client, snapshot));
    }
    // The former Blue, now White (seat 0), places first.
    let (_, client, snapshot) = new_clients
        .iter_mut()
        .find(|(seat, _, _)| *seat == 0)
        .unwrap();
    let first = snapshot["d"]["legal_moves"][0].as_str().unwrap().to_owned();
    client.send_move("n1", &first, 4).await;
    assert_eq!(client.answer("n1").await["d"]["v"], 5);
    server.shutdown().await;
}

#[tokio::test]
async fn chat_goes_to_the_connections_that_read_its_channel_and_leaves_the_version_alone() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, mut white, mut black, _) = seated(&server, json!({})).await;
    let mut vanna = spectator(&server, &code, "Vanna").await;
    let mut anon = {
        let (mut client, _) = Client::hello(server.addr, &code, None, None).await;
        client.next_of("snapshot").await;
        client
    };
    let ack = chat(&mut white, "c1", "players", "  good luck\n ").await;
    assert_eq!(ack["d"], json!({"cid": "c1", "v": 3}));
    for client in [&mut white, &mut black, &mut vanna, &mut anon] {
        let frame = client.next_of("chat").await;
        assert!(frame.get("v").is_none(), "chat is not versioned");
        assert_eq!(frame["d"]["channel"], "players");
        assert_eq!(frame["d"]["seat"], 0);
        assert_eq!(frame["d"]["name"], "white");
        assert_eq!(frame["d"]["text"], "good luck");
        assert!(frame["d"]["at"].as_str().unwrap().ends_with('Z'));
    }
    // Spectators talk among themselves.
    assert_eq!(
        chat(&mut vanna, "s1", "spectators", "nice opening").await["t"],
        "ack"
    );
    for client in [&mut vanna, &mut anon] {
        let frame = client.next_of("chat").await;
        assert_eq!(frame["d"]["channel"], "spectators");
        assert_eq!(frame["d"]["seat"], Value::Null);
        assert_eq!(frame["d"]["name"], "Vanna");
    }
    assert_eq!(chat(&mut anon, "s2", "spectators", "hi").await["t"], "ack");
    assert_eq!(vanna.next_of("chat").await["d"]["name"], Value::Null);
    anon.next_of("chat").await;
    // ... and the players never see it: their next chat frame is Black's.
    assert_eq!(
        chat(&mut black, "c2", "players", "thanks").await["t"],
        "ack"
    );
    for client in [&mut white, &mut black] {
        assert_eq!(client.next_of("chat").await["d"]["text"], "thanks");
    }
    // Each writes only to its own channel; a spectator's other commands stay refused.
    assert_eq!(
        chat(&mut vanna, "s3", "players", "psst").await["d"]["code"],
        "not_a_player"
    );
    assert_eq!(
        chat(&mut white, "c3", "spectators", "hello?").await["d"]["code"],
        "bad_message"
    );
    vanna.command("resign", "s4", json!({})).await;
    assert_eq!(vanna.answer("s4").await["d"]["code"], "not_a_player");
    // A repeated cid is answered again and not sent twice.
    assert_eq!(
        chat(&mut white, "c1", "players", "good luck").await["d"]["v"],
        3
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["version"], 3, "chat makes no event");
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    let rows = server
        .store
        .chat(Uuid::parse_str(&room_id).unwrap(), "players", None)
        .await
        .unwrap();
    assert_eq!(rows.len(), 2, "stored once each");
    server.shutdown().await;
}

#[tokio::test]
async fn chat_length_and_rate_limits_refuse_one_connection_while_others_are_served() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, _, mut white, mut black, _) = seated(&server, json!({})).await;
    let reject = chat(&mut black, "e1", "players", " \t\n ").await;
    assert_eq!(reject["d"]["code"], "bad_message");
    let reject = chat(&mut black, "e2", "players", &"x".repeat(301)).await;
    assert_eq!(reject["d"]["code"], "bad_message");
    // Invisible characters only: refused, neither sent nor stored (White's next chat frame is its
    // own message below).
    let reject = chat(&mut black, "e3", "players", "\u{202E}\u{200F}").await;
    assert_eq!(
        reject["d"],
        json!({"cid": "e3", "code": "bad_message", "v": 3,
               "message": "a chat message needs at least one visible character"})
    );
    // Every default-ignorable character goes, wherever it is: the bidirectional marks, a joiner,
    // a tag.
    assert_eq!(
        chat(
            &mut black,
            "b0",
            "players",
            "\u{200F}gg\u{200E} 👩\u{200D}👧\u{E0041}"
        )
        .await["t"],
        "ack"
    );
    assert_eq!(white.next_of("chat").await["d"]["text"], "gg 👩👧");
    // The limit counts characters, not bytes, after trimming and cleaning.
    let long = format!("  {}\u{7}  ", "ក".repeat(300));
    assert_eq!(chat(&mut white, "ok1", "players", &long).await["t"], "ack");
    assert_eq!(white.next_of("chat").await["d"]["text"], "ក".repeat(300));
    assert_eq!(
        chat(&mut white, "ok2", "players", "a\u{7}b\r\nc\u{202e}d").await["t"],
        "ack"
    );
    assert_eq!(white.next_of("chat").await["d"]["text"], "ab  cd");
    for i in 3..=5 {
        assert_eq!(
            chat(&mut white, &format!("ok{i}"), "players", "hi").await["t"],
            "ack"
        );
    }
    let reject = chat(&mut white, "ok6", "players", "one too many").await;
    assert_eq!(reject["d"]["code"], "rate_limited");
    // Black is served, and White may still play.
    assert_eq!(
        chat(&mut black, "b1", "players", "calm down").await["t"],
        "ack"
    );
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    server.shutdown().await;
}

#[tokio::test]
async fn the_creator_turns_spectator_chat_off_and_on() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (_, code, mut white, mut black, _) =
        seated(&server, json!({"spectator_chat": false})).await;
    let mut client = Client::open(server.addr).await;
    client
        .send(&json!({"t": "hello", "d": {"protocol": 1, "room": code}}))
        .await;
    client.recv().await;
    assert_eq!(
        client.next_of("snapshot").await["d"]["spectator_chat"],
        false
    );
    let mut vanna = client;
    assert_eq!(
        chat(&mut vanna, "s1", "spectators", "hello").await["d"]["code"],
        "chat_disabled"
    );
    // Players still chat.
    assert_eq!(chat(&mut black, "c1", "players", "hi").await["t"], "ack");
    black
        .command("set_spectator_chat", "t1", json!({"enabled": true}))
        .await;
    assert_eq!(black.answer("t1").await["d"]["code"], "not_the_creator");
    white
        .command("set_spectator_chat", "t2", json!({"enabled": true}))
        .await;
    assert_eq!(white.answer("t2").await["d"]["v"], 4);
    assert_eq!(
        vanna.event("spectator_chat", 4).await["d"],
        json!({"enabled": true})
    );
    assert_eq!(
        chat(&mut vanna, "s2", "spectators", "hello").await["t"],
        "ack"
    );
    // Turning it off does not make a move stale: White moves on the version it saw before.
    white
        .command("set_spectator_chat", "t3", json!({"enabled": false}))
        .await;
    assert_eq!(white.answer("t3").await["d"]["v"], 5);
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 6);
    assert_eq!(
        chat(&mut vanna, "s3", "spectators", "again").await["d"]["code"],
        "chat_disabled"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn chat_history_comes_after_a_reconnect_and_a_restart_and_with_the_game() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, code, mut white, mut black, [_, black_token]) = seated(&server, json!({})).await;
    let mut vanna = spectator(&server, &code, "Vanna").await;
    chat(&mut white, "c1", "players", "good luck").await;
    chat(&mut black, "c2", "players", "you too").await;
    chat(&mut vanna, "s1", "spectators", "popcorn").await;
    white.send_move("m1", "e3e4", 3).await;
    white.answer("m1").await;
    black.close().await;

    // A reconnect with last_v gets the missed events, then the history it may read.
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), Some(3)).await;
    assert_eq!(black.recv().await["t"], "moved");
    let history = black.recv().await;
    assert_eq!(history["t"], "chat_history");
    let texts = |messages: &Value| -> Vec<String> {
        messages
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(texts(&history["d"]["messages"]), ["good luck", "you too"]);
    assert_eq!(history["d"]["messages"][1]["name"], "black");
    // A spectator's snapshot carries both channels.
    let (mut late, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(
        texts(&snapshot["d"]["chat"]),
        ["good luck", "you too", "popcorn"]
    );

    for client in [white, black, vanna, late] {
        client.close().await;
    }
    server.shutdown().await;
    let server = TestServer::start(&db.url).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), Some(4)).await;
    let history = black.recv().await;
    assert_eq!(history["t"], "chat_history");
    assert_eq!(texts(&history["d"]["messages"]), ["good luck", "you too"]);
    // New messages continue the stored numbering.
    assert_eq!(
        chat(&mut black, "c3", "players", "resigning").await["t"],
        "ack"
    );
    black.command("resign", "g1", json!({})).await;
    black.answer("g1").await;
    assert_eq!(chat(&mut black, "c4", "players", "gg").await["t"], "ack");
    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(
        texts(&record["chat"]),
        ["good luck", "you too", "resigning", "gg"]
    );
    assert_eq!(record["chat"][0]["seat"], 0);
    assert_eq!(record["chat"][0]["channel"], "players");
    server.shutdown().await;
}

#[tokio::test]
async fn the_chat_migration_applies_on_sqlite_and_chat_is_stored_there() {
    let ((_file, url), server) = support::server::sqlite_server_with(|_| {}).await;
    let (room_id, code, white_token, _) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    assert_eq!(chat(&mut white, "c1", "players", "hello").await["t"], "ack");
    let rows = server
        .store
        .chat(Uuid::parse_str(&room_id).unwrap(), "players", None)
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].seq, rows[0].text.as_str()), (1, "hello"));
    assert_eq!(rows[0].name.as_deref(), Some("white"));
    white.close().await;
    server.shutdown().await;
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let versions: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    // Every migration applied: the chat's (2), the bots' seats (3), the games' own state (4),
    // the chat cids (5), the moves' clocks (9), the accounts (10), the correspondence
    // deadline (12), the ratings (13) and the challenges (14) after the first.
    assert_eq!(versions, [1, 2, 3, 4, 5, 9, 10, 12, 13, 14]);
}
