//! A rated game's end across a kill -9 of the real server process, on PostgreSQL and SQLite: its
//! rating changes are stored exactly once. Killed after the end was committed (the resignation's
//! ack unread), the restarted server has both players rated once, and the same resignation sent
//! again is acknowledged without rating anyone again. Killed (while stopped) before the
//! resignation was read, the restarted server has rated nobody; the resignation sent then rates
//! both once.

mod support;

use std::time::Duration;

use khanate::ratings::{RatingPool, Speed};
use khanate::rules::GameKind;
use khanate::store::Store;
use serde_json::{Value, json};
use support::account::{Auth, hello_as, post_as, register};
use support::server::{Process, get};
use uuid::Uuid;

const POOL: RatingPool = RatingPool {
    game: GameKind::OukChatrang,
    players: 2,
    speed: Speed::Rapid,
};

/// A rated Ouk Chatrang room of Dara (White) and Sok (Black) where White has played e3e4 and
/// Black d6d5 (a game ended before every player moved is unrated); its id and invite code.
async fn rated_game_begun(addr: std::net::SocketAddr, dara: &str, sok: &str) -> (Uuid, String) {
    let body = json!({"game": "ouk-chatrang", "seat": 0, "rated": true,
                      "clock": {"initial_s": 600, "increment_s": 5}});
    let created = post_as(addr, "/api/rooms", Auth::Cookie(dara), &body).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let code = created.body["invite_code"].as_str().unwrap().to_owned();
    let joined = post_as(
        addr,
        &format!("/api/rooms/{code}/join"),
        Auth::Cookie(sok),
        &json!({}),
    )
    .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let (mut white, welcome) = hello_as(addr, Some(dara), json!({"room": code})).await;
    let v = welcome["d"]["version"].as_i64().unwrap();
    white.send_move("m1", "e3e4", v).await;
    assert_eq!(white.answer("m1").await["t"], "ack");
    let (mut black, welcome) = hello_as(addr, Some(sok), json!({"room": code})).await;
    let v = welcome["d"]["version"].as_i64().unwrap();
    black.send_move("m1", "d6d5", v).await;
    assert_eq!(black.answer("m1").await["t"], "ack");
    let id = Uuid::parse_str(created.body["room_id"].as_str().unwrap()).unwrap();
    (id, code)
}

/// Each player's number of rated games, and the number of rating changes stored for `room`.
async fn rated(store: &Store, users: &[Uuid], room: Uuid) -> (Vec<i64>, usize) {
    let ratings = store.ratings_of(users, POOL).await.unwrap();
    let games = users.iter().map(|u| ratings[u].games).collect();
    (games, store.rating_changes(room).await.unwrap().len())
}

async fn scenario(url: &str) {
    let store = Store::connect(url).await.unwrap();
    let server = Process::start(url);
    let addr = server.addr;
    let dara = register(addr, "Dara").await;
    let sok = register(addr, "Sok").await;
    let mut users = Vec::new();
    for name in ["dara", "sok"] {
        users.push(store.user_by_name(name).await.unwrap().unwrap().id);
    }

    // Killed after the end is committed, before its ack is read.
    let (room, code) = rated_game_begun(addr, &dara, &sok).await;
    let (mut black, _) = hello_as(addr, Some(&sok), json!({"room": code})).await;
    black.command("resign", "r1", json!({})).await;
    let stored = async {
        while store.game_record(room).await.unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), stored)
        .await
        .expect("the resignation is stored");
    server.kill();
    drop(black);
    assert_eq!(rated(&store, &users, room).await, (vec![1, 1], 2));

    let server = Process::start(url);
    let addr = server.addr;
    let (status, summary) = get(addr, &format!("/api/rooms/{room}")).await;
    assert_eq!((status, &summary["status"]), (200, &json!("finished")));
    let version = summary["version"].as_i64().unwrap();
    // The resignation sent again is the one stored: acknowledged, nobody rated again.
    let (mut black, _) = hello_as(addr, Some(&sok), json!({"room": code})).await;
    let snapshot = black.next_of("snapshot").await;
    black.command("resign", "r1", json!({})).await;
    let ack = black.answer("r1").await;
    assert_eq!(ack, json!({"t": "ack", "d": {"cid": "r1", "v": version}}));
    assert_eq!(rated(&store, &users, room).await, (vec![1, 1], 2));
    let (_, record) = get(addr, &format!("/api/games/{room}")).await;
    assert_eq!(record["ratings"], snapshot["d"]["ratings"]);
    assert_eq!(record["ratings"][0]["diff"], 162, "{record}");
    let after_first: Vec<Value> = record["ratings"].as_array().unwrap().clone();

    // Killed before the resignation is read: nothing is rated until it is sent again.
    let (room, code) = rated_game_begun(addr, &dara, &sok).await;
    let (mut black, _) = hello_as(addr, Some(&sok), json!({"room": code})).await;
    server.signal("STOP");
    black.command("resign", "r1", json!({})).await;
    server.kill();
    drop(black);
    assert_eq!(rated(&store, &users, room).await, (vec![1, 1], 0));
    let server = Process::start(url);
    let addr = server.addr;
    let (_, summary) = get(addr, &format!("/api/rooms/{room}")).await;
    assert_eq!(summary["status"], "playing");
    let (mut black, _) = hello_as(addr, Some(&sok), json!({"room": code})).await;
    black.command("resign", "r1", json!({})).await;
    assert_eq!(black.answer("r1").await["t"], "ack");
    let over = black.next_of("game_over").await;
    assert_eq!(rated(&store, &users, room).await, (vec![2, 2], 2));
    // Rated from the first game's ratings: Dara 1662 wins again, Sok 1338 loses again.
    assert_eq!(over["d"]["ratings"][0]["before"], after_first[0]["after"]);
    assert_eq!(over["d"]["ratings"][1]["before"], after_first[1]["after"]);
    server.kill();
}

#[tokio::test]
async fn a_rated_end_is_stored_once_across_kill_9_on_postgres() {
    let database = support::db::fresh_postgres().await;
    scenario(&database.url).await;
}

#[tokio::test]
async fn a_rated_end_is_stored_once_across_kill_9_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    scenario(&url).await;
}
