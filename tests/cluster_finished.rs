//! Finished rooms in a cluster (issue 24): a look-up of a finished room claims nothing (its
//! record is in the store), and the chat after the end still has one decider. Real nodes on one
//! real PostgreSQL; the test listens on the claims' channel itself.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::postgres::PgListener;
use sqlx::{Connection, PgConnection};
use support::cluster::{SHORT_LEASE, node_args};
use support::server::{Process, free_port, get, two_player_room};
use support::ws::Client;
use uuid::Uuid;

/// A cluster node on a port of its own; a room nobody is connected to leaves its memory after a
/// second (a finished one after a second too, not five).
fn node(url: &str) -> Process {
    let bind = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let mut args = node_args(bind, &format!("http://{bind}"), SHORT_LEASE);
    args.extend(["--room-idle-s".to_owned(), "1".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Process::start_with(url, &args, &[])
}

/// SIGTERM, and whether the node exited cleanly (it released its rooms).
fn terminate(node: Process) -> bool {
    node.signal("TERM");
    node.wait()
}

/// The room's owner epoch and owner node.
async fn owner(url: &str, room_id: &str) -> (i64, Option<Uuid>) {
    let mut conn = PgConnection::connect(url).await.unwrap();
    let row = sqlx::query_as("SELECT owner_epoch, owner_node FROM rooms WHERE id = $1")
        .bind(Uuid::parse_str(room_id).unwrap())
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let _ = conn.close().await;
    row
}

/// The claims notified since the last call, after waiting `quiet` for late ones.
async fn claims(listener: &mut PgListener, quiet: Duration) -> Vec<String> {
    let mut heard = Vec::new();
    while let Ok(notification) = tokio::time::timeout(quiet, listener.recv()).await {
        heard.push(notification.unwrap().payload().to_owned());
    }
    heard
}

/// A spectator's hello on `at`: its snapshot.
async fn spectate(at: SocketAddr, room_id: &str) -> (Client, Value) {
    let (mut client, welcome) = Client::hello(at, room_id, None, None).await;
    assert_eq!(welcome["d"]["role"], "spectator", "{welcome}");
    let snapshot = client.next_of("snapshot").await;
    (client, snapshot)
}

/// The stored chat of the room: (seq, text).
async fn stored_chat(url: &str, room_id: &str) -> Vec<(i64, String)> {
    let mut conn = PgConnection::connect(url).await.unwrap();
    let rows =
        sqlx::query_as("SELECT seq, text FROM chat_messages WHERE room_id = $1 ORDER BY seq")
            .bind(Uuid::parse_str(room_id).unwrap())
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let _ = conn.close().await;
    rows
}

/// Issue 24: a look-up of a finished room claimed it (its epoch bumped, every node notified),
/// by its owner reloading it and, once nobody alive owned it, by any node. Now a finished room
/// is served from the store unclaimed, whoever looks it up, summary and hello alike. Failed
/// before the fix (the epoch went up at the first look-up through the other node).
#[tokio::test]
async fn looking_up_a_finished_room_claims_nothing_and_notifies_nobody() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url);
    let b = node(&db.url);
    let (room_id, _code, white_token, black_token) = two_player_room(a.addr, json!({})).await;
    let (mut white, _) = Client::hello(a.addr, &room_id, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(a.addr, &room_id, Some(&black_token), None).await;
    white.command("resign", "w1", json!({})).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    black.event("game_over", 4).await;
    white.close().await;
    black.close().await;

    let mut listener = PgListener::connect(&db.url).await.unwrap();
    listener.listen("khanate_owner").await.unwrap();
    // The finished room leaves the owner's memory a second after its last client.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (epoch, owned_by) = owner(&db.url, &room_id).await;
    assert!(
        owned_by.is_some(),
        "the node that ran the game still owns it"
    );

    for at in [b.addr, a.addr] {
        let (status, summary) = get(at, &format!("/api/rooms/{room_id}")).await;
        assert_eq!(status, 200, "{summary}");
        assert_eq!(summary["status"], "finished", "{summary}");
        let (spectator, snapshot) = spectate(at, &room_id).await;
        assert_eq!(snapshot["d"]["status"], "finished", "{snapshot}");
        spectator.close().await;
    }
    assert_eq!(owner(&db.url, &room_id).await, (epoch, owned_by));
    assert_eq!(
        claims(&mut listener, Duration::from_millis(500)).await,
        Vec::<String>::new()
    );

    // Its node gone (its rooms released), the other node serves it unclaimed too.
    assert!(terminate(a), "node a exits cleanly");
    let (status, _) = get(b.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(status, 200);
    let (spectator, _) = spectate(b.addr, &room_id).await;
    spectator.close().await;
    assert_eq!(owner(&db.url, &room_id).await, (epoch, None));
    assert_eq!(
        claims(&mut listener, Duration::from_millis(500)).await,
        Vec::<String>::new()
    );
}

/// Issue 24: chat after the end, with the players on different nodes that both serve the
/// finished room unclaimed. The first message claims the room (once: one notification), the
/// other node's copy closes its client (1012) and the reconnect is relayed to the new owner, so
/// both players see both messages and the store has them in order: one decider, no split chat.
#[tokio::test]
async fn chat_after_the_end_has_one_decider_across_nodes() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url);
    let b = node(&db.url);
    let (room_id, _code, white_token, black_token) = two_player_room(a.addr, json!({})).await;
    let (mut white, _) = Client::hello(a.addr, &room_id, Some(&white_token), None).await;
    white.command("resign", "w1", json!({})).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    white.close().await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Nobody alive owns it: the owner leaves (releasing it) and a new node takes its place.
    assert!(terminate(a), "node a exits cleanly");
    let c = node(&db.url);
    let (epoch, _) = owner(&db.url, &room_id).await;
    let mut listener = PgListener::connect(&db.url).await.unwrap();
    listener.listen("khanate_owner").await.unwrap();

    let (mut white, _) = Client::hello(b.addr, &room_id, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(c.addr, &room_id, Some(&black_token), None).await;
    white.next_of("snapshot").await;
    black.next_of("snapshot").await;
    assert_eq!(
        owner(&db.url, &room_id).await,
        (epoch, None),
        "served unclaimed"
    );

    let said = json!({"channel": "players", "text": "good game"});
    white.command("chat", "w2", said).await;
    assert_eq!(white.answer("w2").await["t"], "ack");
    assert_eq!(
        black.closed().await,
        Some(1012),
        "the other node's copy ends: the room has an owner now"
    );
    let heard = claims(&mut listener, Duration::from_millis(500)).await;
    assert_eq!(heard.len(), 1, "one claim: {heard:?}");
    assert!(
        heard[0].starts_with(&format!("{room_id} {} ", epoch + 1)),
        "{heard:?}"
    );

    let (mut black, _) = Client::hello(c.addr, &room_id, Some(&black_token), None).await;
    let snapshot = black.next_of("snapshot").await;
    let texts: Vec<&str> = snapshot["d"]["chat"]
        .as_array()
        .expect("the chat in the snapshot")
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["good game"], "{snapshot}");
    black
        .command(
            "chat",
            "b1",
            json!({"channel": "players", "text": "thanks"}),
        )
        .await;
    assert_eq!(black.answer("b1").await["t"], "ack");
    assert_eq!(
        white.next_of("chat").await["d"]["text"],
        "good game",
        "its own"
    );
    assert_eq!(white.next_of("chat").await["d"]["text"], "thanks");
    assert_eq!(
        stored_chat(&db.url, &room_id).await,
        [(1, "good game".to_owned()), (2, "thanks".to_owned())]
    );
    let (epoch_now, owned_by) = owner(&db.url, &room_id).await;
    assert_eq!(epoch_now, epoch + 1, "claimed once");
    assert!(owned_by.is_some());
    assert_eq!(
        claims(&mut listener, Duration::from_millis(300)).await,
        Vec::<String>::new()
    );
}
