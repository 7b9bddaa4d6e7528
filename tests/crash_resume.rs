//! Crash and resume: the server process is killed (SIGKILL, no graceful shutdown) in the middle of a
//! game; a new process on the same PostgreSQL database restores the room, both players reconnect
//! with their tokens and finish. No acknowledged move is lost, versions continue, and a move whose
//! ack never arrived is retried with the same cid and stored exactly once.

mod support;

use khanate::rules::Rules;
use khanate::rules::ouk_chatrang::Game;
use serde_json::json;
use support::server::{Process, get, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// Sends `mv` for the side to move and waits for its ack; returns the new version.
async fn play(
    white: &mut Client,
    black: &mut Client,
    local: &mut Game,
    mv: &str,
    cid: &str,
    v: i64,
) -> i64 {
    let seat = local.to_move().expect("on");
    let outcome = local.play(mv).expect("legal").outcome;
    let (mover, other) = if seat == 0 {
        (white, black)
    } else {
        (black, white)
    };
    mover.send_move(cid, mv, v).await;
    let ack = mover.next_of("ack").await;
    let expected = if outcome.is_some() { v + 2 } else { v + 1 };
    assert_eq!(ack["d"], json!({"cid": cid, "v": expected}));
    assert_eq!(other.event("moved", v + 1).await["d"]["move"], mv);
    expected
}

#[tokio::test]
async fn killed_server_loses_no_acknowledged_move_and_players_finish_after_restart() {
    let db = support::db::fresh_postgres().await;
    let url = db.url.clone();
    let record = support::data::recorded_games().remove(0);
    let moves: Vec<String> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();

    let server = Process::start(&url);
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let mut local = Game::new();
    let mut v = 3;
    for (i, mv) in moves.iter().take(30).enumerate() {
        v = play(&mut white, &mut black, &mut local, mv, &format!("m{i}"), v).await;
    }
    assert_eq!(v, 33);
    // Move 31 is sent and stored, and the server dies before anyone reads its ack: the client
    // cannot know the move was kept.
    white.send_move("m30", &moves[30], v).await;
    let store = khanate::store::Store::connect(&url).await.unwrap();
    let room = Uuid::parse_str(&room_id).unwrap();
    let stored = async {
        while store.moves(room).await.unwrap().len() < 31 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), stored)
        .await
        .expect("move 31 is stored");
    server.kill();
    drop(white);
    drop(black);

    let server = Process::start(&url);
    let (status, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(summary["status"], "playing");
    let restored_v = summary["version"].as_i64().unwrap();
    assert_eq!(
        restored_v, 34,
        "every stored move survives, acknowledged or not"
    );

    // Both players come back with their tokens and the last version they saw.
    let (mut white, welcome) =
        Client::hello(server.addr, &code, Some(&white_token), Some(33)).await;
    assert_eq!(welcome["d"]["seat"], 0);
    assert_eq!(welcome["d"]["version"], restored_v);
    let (mut black, _) = Client::hello(server.addr, &room_id, Some(&black_token), Some(33)).await;

    // The move whose ack was lost is retried with the same cid: the ack is rebuilt from the stored
    // events, and the move is not played twice.
    white.send_move("m30", &moves[30], 33).await;
    let ack = white.next_of("ack").await;
    assert_eq!(ack["d"], json!({"cid": "m30", "v": 34}));
    local.play(&moves[30]).unwrap();
    let moved = black.next_of("moved").await;
    assert_eq!(
        moved["v"], 34,
        "black sees move 31 exactly once, as version 34"
    );
    assert_eq!(moved["d"]["position"], local.position());
    v = 34;

    for (i, mv) in moves.iter().enumerate().skip(31) {
        v = play(&mut white, &mut black, &mut local, mv, &format!("m{i}"), v).await;
    }
    let over = black.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 1, "reason": "checkmate"})
    );
    assert_eq!(over["v"], v);
    assert_eq!(v, 3 + moves.len() as i64 + 1);
    server.kill();

    // Everything is in the database, each move once.
    let rows = store
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap();
    assert_eq!(
        rows.iter().map(|r| r.notation.clone()).collect::<Vec<_>>(),
        moves
    );
    let game = store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(game.final_position, record["final_fen"].as_str().unwrap());
}
