//! Khan through the real server on PostgreSQL with two WebSocket clients and a spectator: whole
//! games from scripted positions ending by a goal-row win and by capture of the last Soldier, the
//! E5 support chain sent as one move, and the E6 jump chain accepted and broadcast as one event.

mod support;

use khanate::rules::{AnyGame, GameKind, GameOptions, Rules};
use serde_json::{Value, json};
use support::server::{TestServer, get, get_text, post};
use support::ws::Client;
use uuid::Uuid;

/// A Khan room from `start` with White (seat 0) and Black (seat 1) seated and connected, and a
/// spectator. Returns (room id, [white, black], spectator).
async fn khan_room(server: &TestServer, start: &str) -> (String, [Client; 2], Client) {
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "seat": "white", "name": "Ana", "options": {"start_position": start}}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["color"], "white");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let (status, joined) = post(
        server.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "Bo"}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["color"], "black");
    let (white, _) = Client::hello(server.addr, &code, created["seat_token"].as_str(), None).await;
    let (black, _) = Client::hello(server.addr, &code, joined["seat_token"].as_str(), None).await;
    let (spectator, _) = Client::hello(server.addr, &code, None, None).await;
    (
        created["room_id"].as_str().unwrap().to_owned(),
        [white, black],
        spectator,
    )
}

fn local(start: &str) -> AnyGame {
    let setup = GameOptions {
        start_position: Some(start.into()),
        ..GameOptions::default()
    };
    AnyGame::new(GameKind::Khan, &setup).unwrap()
}

/// Flattens a Khan legal-move tree (docs/protocol.md) into move strings.
fn flatten(tree: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(map) = tree {
        for (square, children) in map {
            let path = if prefix.is_empty() {
                square.clone()
            } else {
                format!("{prefix}-{square}")
            };
            if !prefix.is_empty() {
                out.push(path.clone());
            }
            flatten(children, &path, out);
        }
    }
}

/// Plays `moves` through the server, checking every ack, every broadcast (to both players and the
/// spectator) against the rules module, and the legal-move tree sent to the seat on move. Returns
/// the last version.
async fn play_through(
    clients: &mut [Client; 2],
    spectator: &mut Client,
    game: &mut AnyGame,
    moves: &[String],
    mut v: i64,
) -> i64 {
    for (i, mv) in moves.iter().enumerate() {
        let seat = game.to_move().expect("the game is on");
        let applied = game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
        let cid = format!("k{v}");
        clients[usize::from(seat)].send_move(&cid, mv, v).await;
        let ack = clients[usize::from(seat)].answer(&cid).await;
        assert_eq!(ack["t"], "ack", "{mv}: {ack}");
        let made = if applied.outcome.is_some() { 2 } else { 1 };
        assert_eq!(ack["d"]["v"], v + made);
        for (who, client) in clients
            .iter_mut()
            .enumerate()
            .map(|(i, c)| (Some(i), c))
            .chain([(None, &mut *spectator)])
        {
            let moved = client.event("moved", v + 1).await;
            assert_eq!(moved["d"]["move"], applied.notation, "move {i}");
            assert_eq!(moved["d"]["position"], game.position(), "move {i}");
            assert_eq!(moved["d"]["to_move"], json!(game.to_move()));
            let on_move = who.is_some() && who.map(|w| w as u8) == game.to_move();
            if on_move {
                let mut listed = Vec::new();
                flatten(&moved["d"]["legal_moves"], "", &mut listed);
                listed.sort();
                assert_eq!(
                    listed,
                    game.legal_moves(),
                    "the tree holds exactly the legal moves"
                );
            } else {
                assert!(moved["d"].get("legal_moves").is_none());
            }
        }
        v += made;
    }
    v
}

/// The moves of a game from `start` where White plays `white` in turn and Black plays its first
/// legal move each time.
fn scripted(start: &str, white: &[&str]) -> Vec<String> {
    let mut game = local(start);
    let mut moves = Vec::new();
    for mv in white {
        game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
        moves.push((*mv).to_owned());
        if game.outcome().is_some() {
            break;
        }
        let reply = game.legal_moves()[0].clone();
        game.play(&reply).unwrap();
        moves.push(reply);
    }
    moves
}

#[tokio::test]
async fn a_khan_game_ends_with_a_soldier_on_the_goal_row() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    // White: a Soldier on e6 and two Khans; Black: two Soldiers on its back row and a Khan.
    let start = "s8s/10/10/10/4S5/10/10/10/K8k/K9 w";
    let moves = scripted(start, &["e6-e7", "e7-e8", "e8-e9", "e9-e10"]);
    assert_eq!(moves.len(), 7, "{moves:?}");
    let mut game = local(start);
    let (room_id, mut clients, mut spectator) = khan_room(&server, start).await;
    let v = play_through(&mut clients, &mut spectator, &mut game, &moves, 3).await;
    let over = spectator.event("game_over", v).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 0, "reason": "goal_row"})
    );
    let record = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(record.moves, moves);
    assert_eq!(
        (record.winner, record.reason.as_str()),
        (Some(0), "goal_row")
    );
    let (status, text) = get_text(server.addr, &format!("/api/games/{room_id}/record")).await;
    assert_eq!(status, 200);
    assert!(text.contains(&format!("\nStart: {start}\n")), "{text}");
    assert!(
        text.contains("\nResult: white wins by goal_row\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n1 white {}\n", moves[0])),
        "{text}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_khan_game_ends_when_the_last_soldier_is_captured() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    // Black's last Soldier stands on e6 between White's Khan e7 and the square e5, which White's
    // Khan on e4 steps onto: custodian capture (K-13), and Black has no Soldier left (K-15).
    let start = "9k/10/10/4K5/4s5/10/4K5/10/10/S9 w";
    let mut game = local(start);
    let (room_id, mut clients, mut spectator) = khan_room(&server, start).await;
    let v = play_through(
        &mut clients,
        &mut spectator,
        &mut game,
        &["e4-e5".to_owned()],
        3,
    )
    .await;
    assert_eq!(v, 5);
    let over = clients[1].event("game_over", v).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 0, "reason": "no_soldiers"})
    );
    assert_eq!(game.position(), "9k/10/10/4K5/10/4K5/10/10/10/S9 b");
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["status"], "finished");
    server.shutdown().await;
}

/// Neto's diagram 2 (docs/rules/khan.md, E5–E7), with `side` to move.
fn diagram_2(side: char) -> String {
    format!("10/2s7/3K6/1K2s2s2/S5k3/10/6k3/5K4/7k2/10 {side}")
}

#[tokio::test]
async fn the_e5_support_chain_sent_as_one_move_wins_at_once() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let start = diagram_2('b');
    let (_, mut clients, mut spectator) = khan_room(&server, &start).await;
    clients[1].send_move("e5", "h7-h5-g3-i1", 3).await;
    assert_eq!(
        clients[1].answer("e5").await["d"],
        json!({"cid": "e5", "v": 5})
    );
    let moved = spectator.event("moved", 4).await;
    assert_eq!(moved["d"]["move"], "h7-i1", "recorded as (from, to), K-9");
    let over = spectator.event("game_over", 5).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 1, "reason": "goal_row"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_e6_jump_chain_is_accepted_and_broadcast_as_one_event() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let start = diagram_2('w');
    let mut game = local(&start);
    let (_, mut clients, mut spectator) = khan_room(&server, &start).await;
    let chain = "f3-h5-f7-d7-d9".to_owned();
    let v = play_through(
        &mut clients,
        &mut spectator,
        &mut game,
        std::slice::from_ref(&chain),
        3,
    )
    .await;
    assert_eq!(v, 4, "one event for the whole chain");
    // Nothing was captured (E6): every piece but the Khan is where it was.
    assert_eq!(
        game.position(),
        "10/2sK6/3K6/1K2s2s2/S5k3/10/6k3/10/7k2/10 b"
    );
    // Nothing else came after the chain's one event: the next frame is the answer to a ping.
    spectator.clear_pending();
    spectator.send(&json!({"t": "ping"})).await;
    assert_eq!(spectator.recv().await["t"], "pong");
    server.shutdown().await;
}

#[tokio::test]
async fn a_khan_room_refuses_bad_moves_and_survives_a_restart() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan", "seat": "white"}),
    )
    .await;
    assert_eq!(status, 201);
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let white_token = created["seat_token"].as_str().unwrap().to_owned();
    let (_, joined) = post(server.addr, &format!("/api/rooms/{code}/join"), &json!({})).await;
    let black_token = joined["seat_token"].as_str().unwrap().to_owned();
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let snapshot = white.next_of("snapshot").await;
    assert_eq!(
        snapshot["d"]["position"],
        "ssssssssss/k1k1kk1k1k/ssssssssss/10/10/10/10/SSSSSSSSSS/K1K1KK1K1K/SSSSSSSSSS w"
    );
    let mut listed = Vec::new();
    flatten(&snapshot["d"]["legal_moves"], "", &mut listed);
    assert_eq!(
        listed.len(),
        204,
        "the start position's 204 move strings, as a tree"
    );
    for (cid, mv, code) in [
        ("x1", "e2-e5", "illegal_move"),
        ("x2", "z9-e3", "bad_notation"),
        ("x3", "c3-c5", "illegal_move"),
    ] {
        white.send_move(cid, mv, 3).await;
        assert_eq!(white.answer(cid).await["d"]["code"], code, "{mv}");
    }
    white.send_move("m1", "c3-c4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    server.shutdown().await;

    let server = TestServer::start(&db.url).await;
    let (mut black, welcome) = Client::hello(server.addr, &code, Some(&black_token), Some(3)).await;
    assert_eq!(welcome["d"]["version"], 4);
    let moved = black.next_of("moved").await;
    assert_eq!(moved["d"]["move"], "c3-c4");
    assert!(
        moved["d"]["legal_moves"].is_object(),
        "Black, on move, gets its tree"
    );
    black.command("resign", "r", json!({})).await;
    assert_eq!(black.answer("r").await["d"]["v"], 5);
    let over = black.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 0, "reason": "resignation"})
    );
    server.shutdown().await;
}
