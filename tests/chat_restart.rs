//! Exactly-once chat: a player's chat `cid` keeps its first answer across a crash. The real server
//! binary is killed (SIGKILL) after a message was acked, a new process restores the room from the
//! same database (PostgreSQL and the SQLite default), and the writer, reconnecting with its seat
//! token, sends the same cid again: the `ack` is the first one (with the version it had then), the
//! database still holds one row for the cid, and the other player gets no second `chat` frame. A
//! try whose insert was stored although its writer never learned it (a lost commit answer) is
//! answered, and sent, once too. (`tests/migrations.rs` upgrades chat stored before cids were.)

mod support;

use chrono::Utc;
use khanate::store::{ChatAnswer, ChatRow, Store, truncate_to_micros};
use serde_json::{Value, json};
use support::server::{Process, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// Sends a `chat` with `cid` to the players' channel and returns its answer.
async fn chat(client: &mut Client, cid: &str, text: &str) -> Value {
    let d = json!({"channel": "players", "text": text});
    client.command("chat", cid, d).await;
    client.answer(cid).await
}

/// The stored players' chat rows of `room` sent with `cid`.
async fn rows_with_cid(store: &Store, room: Uuid, cid: &str) -> Vec<ChatRow> {
    let rows = store.chat(room, "players", None).await.unwrap();
    rows.into_iter()
        .filter(|row| row.answer.as_ref().is_some_and(|a| a.cid == cid))
        .collect()
}

/// The next `chat` frame `client` gets is `text`'s: any frame sent before it would be a repeat.
async fn next_chat_is(client: &mut Client, text: &str) {
    let frame = client.next_of("chat").await;
    assert_eq!(frame["d"]["text"], text, "no other chat frame came first");
}

async fn retried_after_a_kill_gets_the_first_answer_and_is_stored_once(url: &str) {
    let server = Process::start(url);
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let room = Uuid::parse_str(&room_id).unwrap();
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let first = chat(&mut white, "c1", "good luck").await;
    assert_eq!(first, json!({"t": "ack", "d": {"cid": "c1", "v": 3}}));
    next_chat_is(&mut black, "good luck").await;
    // A move after the message: the room is at version 4, but the chat's answer stays 3.
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    server.kill();
    drop((white, black));

    let server = Process::start(url);
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    let retried = chat(&mut white, "c1", "good luck").await;
    assert_eq!(retried, first, "the retry gets the first answer");
    assert_eq!(chat(&mut white, "c2", "have fun").await["d"]["v"], 4);
    next_chat_is(&mut black, "have fun").await;
    let store = Store::connect(url).await.unwrap();
    assert_eq!(
        rows_with_cid(&store, room, "c1").await.len(),
        1,
        "stored once"
    );
    assert_eq!(rows_with_cid(&store, room, "c2").await.len(), 1);
    server.kill();
}

async fn a_stored_try_whose_answer_was_lost_is_answered_and_sent_once(url: &str) {
    let server = Process::start(url);
    let (room_id, code, white_token, black_token) = two_player_room(server.addr, json!({})).await;
    let room = Uuid::parse_str(&room_id).unwrap();
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black_token), None).await;
    // What an insert that committed while its connection broke leaves behind: the row is stored
    // (under a seq the room will not use again), the room neither sent nor remembered it.
    let store = Store::connect(url).await.unwrap();
    let lost = ChatRow {
        seq: 9,
        channel: "players".into(),
        seat: Some(0),
        name: None,
        text: "sent before the cut".into(),
        created_at: truncate_to_micros(Utc::now()),
        answer: Some(ChatAnswer {
            cid: "lost".into(),
            v: 3,
        }),
    };
    assert!(store.insert_chat(room, &lost, None).await.unwrap());
    white.send_move("m1", "e3e4", 3).await;
    assert_eq!(white.answer("m1").await["d"]["v"], 4);
    let answer = chat(&mut white, "lost", "sent before the cut").await;
    assert_eq!(answer, json!({"t": "ack", "d": {"cid": "lost", "v": 3}}));
    next_chat_is(&mut black, "sent before the cut").await;
    assert_eq!(chat(&mut white, "lost", "again").await, answer);
    assert_eq!(chat(&mut white, "next", "and then").await["t"], "ack");
    next_chat_is(&mut black, "and then").await;
    assert_eq!(rows_with_cid(&store, room, "lost").await, vec![lost]);
    server.kill();
}

#[tokio::test]
async fn postgres_chat_cid_retried_after_a_kill_gets_the_first_answer_and_is_stored_once() {
    let db = support::db::fresh_postgres().await;
    retried_after_a_kill_gets_the_first_answer_and_is_stored_once(&db.url).await;
}

#[tokio::test]
async fn sqlite_chat_cid_retried_after_a_kill_gets_the_first_answer_and_is_stored_once() {
    let (_file, url) = support::db::fresh_sqlite_url();
    retried_after_a_kill_gets_the_first_answer_and_is_stored_once(&url).await;
}

#[tokio::test]
async fn postgres_chat_stored_by_a_try_whose_answer_was_lost_is_answered_and_sent_once() {
    let db = support::db::fresh_postgres().await;
    a_stored_try_whose_answer_was_lost_is_answered_and_sent_once(&db.url).await;
}

#[tokio::test]
async fn sqlite_chat_stored_by_a_try_whose_answer_was_lost_is_answered_and_sent_once() {
    let (_file, url) = support::db::fresh_sqlite_url();
    a_stored_try_whose_answer_was_lost_is_answered_and_sent_once(&url).await;
}
