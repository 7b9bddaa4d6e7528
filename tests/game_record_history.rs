//! The game record (`GET /api/games/{room_id}`) returns each game's own state after every move
//! that had some — Ouk Chatrang's counting history — read back from the store, on both backends:
//! an analysis room from K+R v K plays four moves into a piece's-honour count, then Black resigns.

mod support;

use serde_json::{Value, json};
use support::server::{TestServer, get, get_text, two_player_room};
use support::ws::Client;

/// K+R v K with White to move: the first rook move starts piece's honour (L 16, from N = 3).
const FEN: &str = "8/8/4k3/8/8/2R1K3/8/8 w - - 0 1";
/// White, Black, White, Black; nobody is in check and the kings never touch.
const MOVES: [&str; 4] = ["c3c4", "e6d6", "e3e4", "d6e6"];

fn piece_count(count: u32) -> Value {
    json!({"kind": "piece", "count": count, "limit": 16, "escaping": "black", "started_ply": 1})
}

/// Plays [`MOVES`] and Black's resignation on `server`; returns the room id.
async fn play_into_a_count_and_resign(server: &TestServer) -> String {
    let (room_id, code, white_token, black_token) =
        two_player_room(server.addr, json!({"start_position": FEN})).await;
    let (mut white, welcome) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let mut v = welcome["d"]["version"].as_i64().expect("a version");
    for (i, mv) in MOVES.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut white } else { &mut black };
        let cid = format!("m{i}");
        mover.send_move(&cid, mv, v).await;
        v = mover.answer(&cid).await["d"]["v"].as_i64().expect("acked");
    }
    black.command("resign", "r", json!({})).await;
    black.answer("r").await;
    black.next_of("game_over").await;
    room_id
}

async fn record_has_the_counting_history(database_url: &str) {
    let server = TestServer::start(database_url).await;
    let room_id = play_into_a_count_and_resign(&server).await;
    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(
        record["result"],
        json!({"winner": 0, "reason": "resignation"})
    );
    assert_eq!(record["moves"], json!(MOVES));
    assert_eq!(record["final_position"], "8/8/4k3/8/2R1K3/8/8/8 w - 30 9 3");
    assert_eq!(record["counting"], piece_count(5), "the count at the end");
    assert_eq!(
        record["extra_history"],
        json!([
            {"ply": 1, "counting": piece_count(3)},
            {"ply": 2, "counting": piece_count(4)},
            {"ply": 3, "counting": piece_count(4)},
            {"ply": 4, "counting": piece_count(5)},
        ]),
        "every stored count, with its ply"
    );
    let (status, pgn) = get_text(server.addr, &format!("/api/games/{room_id}/pgn")).await;
    assert_eq!(status, 200);
    assert!(
        pgn.ends_with("\n1. Rc4 Kd6 2. Ke4 Ke6 {resignation} 1-0\n"),
        "{pgn}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn record_returns_the_counting_history_on_postgres() {
    let database = support::db::fresh_postgres().await;
    record_has_the_counting_history(&database.url).await;
}

#[tokio::test]
async fn record_returns_the_counting_history_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    record_has_the_counting_history(&url).await;
}
