//! Several nodes on one PostgreSQL database, first slice: leases, owner epochs and fencing (see
//! `docs/deploy/cluster.md`). Real server binaries on one real PostgreSQL; short leases by flags.

mod support;

use std::time::{Duration, Instant};

use chrono::Utc;
use khanate::rules::Rules;
use khanate::rules::ouk_chatrang::Game;
use khanate::store::postgres::Claim;
use khanate::store::{
    ChatAnswer, ChatRow, Commit, EventRow, RoomRef, RoomRow, RoomStatus, Store, StoreError,
    Visibility,
};
use serde_json::json;
use sqlx::Connection;
use support::cluster::{Lease, node_args, refused};
use support::server::{Process, get_text, two_player_room};
use support::ws::{Client, End, try_hello};
use uuid::Uuid;

/// The lease of the tests' nodes: short, so a takeover is quick; renewals well inside it.
const TTL_MS: u64 = 1500;

/// A cluster node's flags, advertising `port` (where it listens).
fn cluster_args(port: u16, ttl_ms: u64, renew_ms: u64) -> Vec<String> {
    let bind = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    node_args(bind, &format!("http://{bind}"), Lease { ttl_ms, renew_ms })
}

fn node(url: &str, ttl_ms: u64, renew_ms: u64) -> Process {
    let args = cluster_args(support::server::free_port(), ttl_ms, renew_ms);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Process::start_with(url, &args, &[])
}

#[test]
fn inconsistent_cluster_options_are_refused_at_start_up() {
    let pg = "postgres://nobody@127.0.0.1:1/none";
    let only_url = refused(
        &["--database-url", pg, "--advertise-url", "http://a:1"],
        &[],
    );
    assert!(
        only_url.contains("needs both --advertise-url"),
        "{only_url}"
    );
    let only_secret = refused(
        &["--database-url", pg],
        &[("KHANATE_CLUSTER_SECRET", "s3cret")],
    );
    assert!(
        only_secret.contains("needs both --advertise-url"),
        "{only_secret}"
    );
    assert!(!only_secret.contains("s3cret"), "{only_secret}");
    let sqlite = refused(
        &[
            "--database-url",
            "sqlite::memory:",
            "--advertise-url",
            "http://a:1",
            "--cluster-secret",
            "s3cret",
        ],
        &[],
    );
    assert!(sqlite.contains("need a postgres:// database"), "{sqlite}");
    assert!(!sqlite.contains("s3cret"), "{sqlite}");
}

fn event(v: i64) -> EventRow {
    EventRow {
        v,
        kind: "chatted".to_owned(),
        seat: None,
        cid: None,
        data: json!({}),
        created_at: Utc::now(),
    }
}

fn commit(room_id: Uuid, expected_version: i64, events: Vec<EventRow>, epoch: i64) -> Commit {
    Commit {
        room_id,
        expected_version,
        status: RoomStatus::Waiting,
        events,
        seats: Vec::new(),
        mv: None,
        extra: None,
        taken_back_to: None,
        game: None,
        new_room: None,
        epoch: Some(epoch),
        flag_at: None,
        ratings: None,
    }
}

/// A waiting room of Ouk Chatrang with one event, written straight to `store`: its id.
async fn stored_room(store: &Store, invite_code: &str) -> Uuid {
    let room_id = Uuid::new_v4();
    let room = RoomRow {
        id: room_id,
        invite_code: invite_code.to_owned(),
        game: khanate::rules::GameKind::OukChatrang,
        seats: 2,
        visibility: Visibility::Private,
        status: RoomStatus::Waiting,
        version: 0,
        start_position: "start".to_owned(),
        options: json!({}),
        created_at: Utc::now(),
    };
    let mut first = commit(room_id, 0, vec![event(1)], 0);
    first.epoch = None;
    store
        .create_room(&room, &first)
        .await
        .expect("room created");
    room_id
}

/// A chat message of seat 0 with `seq`, answering `cid` if given.
fn chat_row(seq: i64, cid: Option<&str>) -> ChatRow {
    ChatRow {
        seq,
        channel: "players".to_owned(),
        seat: Some(0),
        name: None,
        text: format!("message {seq}"),
        created_at: Utc::now(),
        answer: cid.map(|cid| ChatAnswer {
            cid: cid.to_owned(),
            v: 2,
        }),
    }
}

/// The backends of the test's database waiting for a lock, running a statement that starts
/// with `prefix`.
async fn lock_waiters(conn: &mut sqlx::PgConnection, prefix: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND wait_event_type = 'Lock' AND query LIKE $1 || '%'",
    )
    .bind(prefix)
    .fetch_one(conn)
    .await
    .unwrap()
}

/// The seqs of the chat messages stored for `room_id`, in order.
async fn chat_seqs(conn: &mut sqlx::PgConnection, room_id: Uuid) -> Vec<i64> {
    sqlx::query_scalar("SELECT seq FROM chat_messages WHERE room_id = $1 ORDER BY seq")
        .bind(room_id)
        .fetch_all(conn)
        .await
        .unwrap()
}

/// Issue 24's race: an old owner's chat insert whose epoch check ran before a new owner's claim
/// committed must not commit after the new owner loaded the room (its message would never reach
/// the new owner, whose next message then collides on its seq). The old owner's insert is held
/// between its epoch check and its write (an uncommitted row with the same seq blocks it there);
/// the claim runs and loads the chat as a new owner does; then the insert goes on. Failed before
/// the check locked the room row: the claim loaded no message, and the old one landed after it.
#[tokio::test]
async fn an_old_owner_s_chat_message_never_lands_after_the_new_owner_loaded_the_room() {
    let db = support::db::fresh_postgres().await;
    let store = Store::connect(&db.url).await.expect("connect");
    let Store::Postgres(pg) = &store else {
        panic!("a PostgreSQL store")
    };
    let room_id = stored_room(&store, "CHAT01").await;
    let node = Uuid::new_v4();
    pg.register_node(node, "http://a", Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(
        pg.claim_room(node, room_id).await.unwrap().unwrap().epoch,
        1
    );

    let mut blocker = sqlx::PgConnection::connect(&db.url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut blocker).await.unwrap();
    sqlx::query(
        "INSERT INTO chat_messages (room_id, seq, channel, text, created_at) \
         VALUES ($1, 1, 'players', 'blocker', now())",
    )
    .bind(room_id)
    .execute(&mut blocker)
    .await
    .unwrap();
    let old_owner = {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .insert_chat(room_id, &chat_row(1, None), Some(1))
                .await
        })
    };
    let mut watcher = sqlx::PgConnection::connect(&db.url).await.unwrap();
    while lock_waiters(&mut watcher, "INSERT INTO chat_messages").await == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let url = db.url.clone();
    let new_owner = tokio::spawn(async move {
        let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
        sqlx::query("UPDATE rooms SET owner_epoch = owner_epoch + 1 WHERE id = $1")
            .bind(room_id)
            .execute(&mut conn)
            .await
            .unwrap();
        chat_seqs(&mut conn, room_id).await
    });
    // The claim either committed or waits for the old owner's insert.
    while !new_owner.is_finished() && lock_waiters(&mut watcher, "UPDATE rooms").await == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    sqlx::query("ROLLBACK").execute(&mut blocker).await.unwrap();
    let inserted = old_owner.await.unwrap();
    let loaded = new_owner.await.unwrap();
    let stored = chat_seqs(&mut watcher, room_id).await;
    assert_eq!(
        loaded, stored,
        "nothing landed after the new owner loaded the room (the old owner's insert: {inserted:?})"
    );
    match inserted {
        Ok(true) => assert_eq!(stored, [1]),
        Err(StoreError::Fenced { .. }) => assert!(stored.is_empty()),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_commit_at_a_stale_epoch_is_refused_on_the_batch_and_the_single_path() {
    let db = support::db::fresh_postgres().await;
    let store = Store::connect(&db.url).await.expect("connect");
    let Store::Postgres(pg) = &store else {
        panic!("a PostgreSQL store")
    };
    let room_id = stored_room(&store, "FENCE1").await;

    let ttl = Duration::from_secs(60);
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    pg.register_node(a, "http://a", ttl).await.unwrap();
    pg.register_node(b, "http://b", ttl).await.unwrap();
    let claimed = pg.claim_room(a, room_id).await.unwrap();
    assert_eq!(
        claimed,
        Some(Claim {
            epoch: 1,
            took_over: false
        })
    );
    assert_eq!(
        pg.claim_room(b, room_id).await.unwrap(),
        None,
        "a's lease is alive"
    );

    // a's lease runs out; b takes the room over.
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    sqlx::query("UPDATE nodes SET lease_expires_at = now() - interval '1 second' WHERE id = $1")
        .bind(a)
        .execute(&mut conn)
        .await
        .unwrap();
    let claimed = pg.claim_room(b, room_id).await.unwrap();
    assert_eq!(
        claimed,
        Some(Claim {
            epoch: 2,
            took_over: true
        })
    );

    let fenced = |result: Result<(), StoreError>| match result {
        Err(StoreError::Fenced {
            epoch: 1, found: 2, ..
        }) => {}
        other => panic!("expected a fencing refusal, got {other:?}"),
    };
    // Events only: the group commit's batch statement.
    fenced(store.commit(&commit(room_id, 1, vec![event(2)], 1)).await);
    // No event: a commit written alone.
    fenced(store.commit(&commit(room_id, 1, Vec::new(), 1)).await);
    store
        .commit(&commit(room_id, 1, vec![event(2)], 2))
        .await
        .expect("the owner's commit lands");
    let stored = store
        .load_room(RoomRef::Id(room_id))
        .await
        .unwrap()
        .unwrap();
    let versions: Vec<i64> = stored.events.iter().map(|e| e.v).collect();
    assert_eq!(versions, [1, 2]);

    // Chat too: a fenced owner stores no message (it would take a seq the new owner will use).
    let chat = chat_row;
    for row in [chat(1, None), chat(1, Some("c1"))] {
        match store.insert_chat(room_id, &row, Some(1)).await {
            Err(StoreError::Fenced {
                epoch: 1, found: 2, ..
            }) => {}
            other => panic!("expected a fencing refusal, got {other:?}"),
        }
    }
    assert!(
        store
            .insert_chat(room_id, &chat(1, Some("c1")), Some(2))
            .await
            .unwrap()
    );
    assert!(
        !store
            .insert_chat(room_id, &chat(2, Some("c1")), Some(2))
            .await
            .unwrap(),
        "a cid stored once, at the right epoch too"
    );
    assert!(
        store
            .insert_chat(room_id, &chat(3, None), Some(2))
            .await
            .unwrap()
    );
    let seqs: Vec<i64> = store
        .chat(room_id, "players", None)
        .await
        .unwrap()
        .iter()
        .map(|row| row.seq)
        .collect();
    assert_eq!(seqs, [1, 3]);
}

/// Retries a hello on `addr` until the node serves the room (at most 10 s).
async fn hello_until_served(
    addr: std::net::SocketAddr,
    room: &str,
    token: &str,
    last_v: i64,
) -> Client {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match try_hello(addr, room, token, last_v).await {
            Ok((client, _)) => return client,
            Err(code) => {
                assert_eq!(code, Some(1013), "a refused hello says: try again");
                assert!(Instant::now() < deadline, "the room was never served");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Plays `mv` for the side to move and waits for its ack and the other's event; the new version.
async fn play(white: &mut Client, black: &mut Client, local: &mut Game, mv: &str, v: i64) -> i64 {
    let seat = local.to_move().expect("on");
    local.play(mv).expect("legal");
    let (mover, other) = if seat == 0 {
        (white, black)
    } else {
        (black, white)
    };
    let cid = format!("c{v}");
    mover.send_move(&cid, mv, v).await;
    let ack = mover.next_of("ack").await;
    assert_eq!(ack["d"], json!({"cid": cid, "v": v + 1}));
    assert_eq!(other.event("moved", v + 1).await["d"]["move"], mv);
    v + 1
}

fn moves() -> Vec<String> {
    support::data::recorded_games().remove(0)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// The room's stored event versions and owner epoch.
async fn stored(url: &str, room_id: &str) -> (Vec<i64>, i64) {
    let store = Store::connect(url).await.unwrap();
    let id = Uuid::parse_str(room_id).unwrap();
    let room = store.load_room(RoomRef::Id(id)).await.unwrap().unwrap();
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    let epoch: i64 = sqlx::query_scalar("SELECT owner_epoch FROM rooms WHERE id = $1")
        .bind(id)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    (room.events.iter().map(|e| e.v).collect(), epoch)
}

/// A game of Ouk Chatrang on `addr` with both players connected there, `plies` moves of the
/// recorded game played: (room id, white's token, black's token, white, black, local game, version).
async fn game_on(
    addr: std::net::SocketAddr,
    plies: usize,
) -> (String, String, String, Client, Client, Game, i64) {
    let (room_id, code, white_token, black_token) = two_player_room(addr, json!({})).await;
    let (mut white, _) = Client::hello(addr, &code, Some(&white_token), None).await;
    let (mut black, _) = Client::hello(addr, &code, Some(&black_token), None).await;
    let mut local = Game::new();
    let mut v = 3;
    for mv in &moves()[..plies] {
        v = play(&mut white, &mut black, &mut local, mv, v).await;
    }
    (room_id, white_token, black_token, white, black, local, v)
}

#[tokio::test]
async fn a_killed_owners_room_is_taken_over_within_a_second_of_its_lease_expiry() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url, TTL_MS, 300);
    let b = node(&db.url, TTL_MS, 300);
    let (room_id, white_token, black_token, _white, _black, mut local, mut v) =
        game_on(a.addr, 4).await;
    let moves = moves();
    // While a lives, b does not take its room: it relays the client to a, which welcomes it.
    let (mut relayed, welcome) = try_hello(b.addr, &room_id, &white_token, v)
        .await
        .expect("relayed to the owner");
    assert_eq!(welcome["d"]["version"], v);
    let (_, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(epoch, 1, "the relay claimed nothing");

    a.kill();
    assert_eq!(
        relayed.closed().await,
        Some(1012),
        "the relayed client reconnects"
    );
    let killed = Instant::now();
    let mut white = hello_until_served(b.addr, &room_id, &white_token, v).await;
    let took = killed.elapsed();
    assert!(
        took < Duration::from_millis(TTL_MS + 2000),
        "taken over {took:?} after the kill (lease {TTL_MS} ms)"
    );
    let (mut black, _) = try_hello(b.addr, &room_id, &black_token, v)
        .await
        .expect("served");
    let (_, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(epoch, 2, "created and claimed on a, then taken over by b");
    for mv in &moves[4..8] {
        v = play(&mut white, &mut black, &mut local, mv, v).await;
    }
    let (versions, _) = stored(&db.url, &room_id).await;
    assert_eq!(
        versions,
        (1..=v).collect::<Vec<_>>(),
        "every acked move, no hole, no fork"
    );
}

#[tokio::test]
async fn a_paused_owner_self_fences_on_resume_before_serving_anything() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url, TTL_MS, 300);
    let b = node(&db.url, TTL_MS, 300);
    let (room_id, white_token, black_token, mut white_a, _black_a, mut local, mut v) =
        game_on(a.addr, 2).await;
    let moves = moves();
    // A second room on a where nothing is sent: only the self-fence can stop it.
    let (.., mut idle_white, _idle_black, _, _) = game_on(a.addr, 0).await;
    a.signal("STOP");
    // Sent to a while it is paused: a reads it only once it runs again, after b took over.
    white_a.send_move("late", &moves[2], v).await;
    tokio::time::sleep(Duration::from_millis(TTL_MS + 300)).await;
    let mut white = hello_until_served(b.addr, &room_id, &white_token, v).await;
    let (mut black, _) = try_hello(b.addr, &room_id, &black_token, v)
        .await
        .expect("served");
    for mv in &moves[2..4] {
        v = play(&mut white, &mut black, &mut local, mv, v).await;
    }
    a.signal("CONT");
    // a's clients are told to reconnect; the late move is never acknowledged.
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match white_a.next().await {
                Ok(frame) => assert_ne!(frame["t"], "ack", "a acked a move after losing the room"),
                Err(End::Closed(code)) => return code,
            }
        }
    })
    .await
    .expect("a closes its clients");
    assert_eq!(ended, Some(1012), "the room moved: reconnect");
    // Resumed past its lease, a stopped serving before anything else: it self-fenced, and no
    // room of it tried to commit (issue 24: the late move was tried and refused by fencing).
    let idle_closed = tokio::time::timeout(Duration::from_secs(5), idle_white.closed()).await;
    assert_eq!(idle_closed, Ok(Some(1012)), "the idle room stops too");
    let (_, metrics) = get_text(a.addr, "/metrics").await;
    assert!(
        metrics.lines().any(|l| l == "khanate_self_fences_total 1"),
        "{metrics}"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l == "khanate_fencing_refusals_total 0"),
        "nothing was tried: {metrics}"
    );
    let (versions, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(versions, (1..=v).collect::<Vec<_>>(), "no fork");
    assert_eq!(epoch, 2);
    let moved = Store::connect(&db.url)
        .await
        .unwrap()
        .moves(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap();
    let played: Vec<&str> = moved.iter().map(|m| m.notation.as_str()).collect();
    assert_eq!(
        played,
        moves[..4].iter().map(String::as_str).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_terminated_node_releases_its_rooms_at_once() {
    let db = support::db::fresh_postgres().await;
    // A long lease: a takeover that waited for it would show.
    let a = node(&db.url, 20_000, 1000);
    let b = node(&db.url, 20_000, 1000);
    let (room_id, white_token, black_token, mut white, _black, mut local, v) =
        game_on(a.addr, 1).await;
    let moves = moves();
    a.signal("TERM");
    assert_eq!(white.closed().await, Some(1012));
    assert!(a.wait(), "a clean exit");
    let exited = Instant::now();
    let (mut white, _) = try_hello(b.addr, &room_id, &white_token, v)
        .await
        .expect("b claims a released room at the first hello");
    let (mut black, _) = try_hello(b.addr, &room_id, &black_token, v)
        .await
        .expect("served");
    assert!(exited.elapsed() < Duration::from_secs(5));
    let v = play(&mut white, &mut black, &mut local, &moves[1], v).await;
    let (versions, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(versions, (1..=v).collect::<Vec<_>>());
    assert_eq!(epoch, 2);
}

/// Reads `client` until its socket closes, as a busy client does (a phone whose page is busy):
/// for 300 ms at a time it only sends (a `ping` every 2 ms), then reads what came (answering
/// the pings among it); the close code it read.
async fn closed_while_busy(client: &mut Client) -> Option<u16> {
    let ping = json!({"t": "ping"});
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(Instant::now() < deadline, "never closed");
        let busy = Instant::now() + Duration::from_millis(300);
        while Instant::now() < busy {
            // A failed send (the socket is closing) still leaves the close frame to read.
            client.try_send(&ping).await;
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        while let Some(read) = client.next_within(Duration::from_millis(1)).await {
            if let Err(End::Closed(code)) = read {
                return code;
            }
        }
    }
}

/// A relay that closes its client (here: the owner shut down, 1012) waits for the client's
/// answering close before it drops the socket, as a local connection does: dropped at once, with
/// the client's latest frames unread, the relay's kernel answered them with a reset that could
/// destroy the close frame before the client read it (the client saw no code, not 1012).
#[tokio::test]
async fn a_relayed_client_closed_by_its_relay_while_busy_reads_the_close_code() {
    let db = support::db::fresh_postgres().await;
    for round in 1..=3 {
        let a = node(&db.url, 20_000, 1000);
        // The relay pings its client often: a busy client then always has a pong to send when
        // it reads again, the moment the relay's reset would break its connection.
        let mut args = cluster_args(support::server::free_port(), 20_000, 1000);
        args.extend(["--heartbeat-ms".to_owned(), "50".to_owned()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let b = Process::start_with(&db.url, &args, &[]);
        let (room_id, white_token, _, _white, _black, _, v) = game_on(a.addr, 1).await;
        let (mut relayed, _) = try_hello(b.addr, &room_id, &white_token, v)
            .await
            .expect("relayed to the owner");
        // A second of play: the relay's pings come and are answered.
        while let Some(frame) = relayed.next_within(Duration::from_secs(1)).await {
            frame.expect("relayed");
        }
        // The owner stops while the client is busy, with a ping of the relay's unanswered.
        let stop = async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            a.signal("TERM");
        };
        let ((), code) = tokio::join!(stop, closed_while_busy(&mut relayed));
        assert_eq!(
            code,
            Some(1012),
            "round {round}: the relayed client reads the owner's restart"
        );
        assert!(a.wait(), "a clean exit");
        drop(b);
    }
}

/// The counter `name`'s value (summed over its labels) in a node's `/metrics`; 0 when absent.
async fn counter(addr: std::net::SocketAddr, name: &str) -> f64 {
    let (_, metrics) = get_text(addr, "/metrics").await;
    metrics
        .lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_node_that_does_not_own_a_room_relays_its_clients_to_the_owner() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url, TTL_MS, 300);
    let b = node(&db.url, TTL_MS, 300);
    let (status, created) = support::server::post(
        a.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": "white", "name": "white"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let room_id = created["room_id"].as_str().unwrap().to_owned();
    let code = created["invite_code"].as_str().unwrap().to_owned();
    // The join is decided by the owner, a, though asked of b.
    let (status, joined) = support::server::post(
        b.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "black"}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["seat"], 1);
    let black_token = joined["seat_token"].as_str().unwrap().to_owned();
    let white_token = created["seat_token"].as_str().unwrap().to_owned();
    let (mut white, _) = Client::hello(a.addr, &code, Some(&white_token), None).await;
    let (mut black, welcome) = Client::hello(b.addr, &code, Some(&black_token), None).await;
    assert_eq!(welcome["d"]["seat"], 1, "{welcome}");
    let (mut spectator, _) = Client::hello(b.addr, &room_id, None, Some(0)).await;
    let mut local = Game::new();
    let mut v = 3;
    for mv in &moves()[..6] {
        v = play(&mut white, &mut black, &mut local, mv, v).await;
    }
    // A second try of an acked command (the same cid) through the relay gets the first answer.
    black.send_move("c4", &moves()[1], 4).await;
    assert_eq!(black.answer("c4").await["d"], json!({"cid": "c4", "v": 5}));
    // The spectator on b saw every event of the log, in order, once.
    let mut seen = Vec::new();
    while seen.last() != Some(&v) {
        let frame = spectator.recv().await;
        if let Some(event_v) = frame["v"].as_i64() {
            seen.push(event_v);
        }
    }
    let (versions, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(
        seen, versions,
        "the relayed spectator's stream is the stored log"
    );
    assert_eq!(
        epoch, 1,
        "a owns the room all along: nothing was claimed by b"
    );
    let (status, summary) = support::server::get(b.addr, &format!("/api/rooms/{code}")).await;
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["version"], v);
    assert_eq!(summary["seats"][1]["connected"], true, "{summary}");
    assert_eq!(
        counter(b.addr, "khanate_relayed_connections_total").await,
        2.0
    );
    // 6 moves' worth of black's commands (3) and the retried one, plus the two REST requests.
    assert_eq!(
        counter(b.addr, "khanate_forwarded_commands_total").await,
        6.0
    );
    assert_eq!(
        counter(a.addr, "khanate_relayed_connections_total").await,
        0.0
    );
    // Every cluster metric has a series from the start, at zero until its first event.
    let (_, metrics) = get_text(a.addr, "/metrics").await;
    for zero in [
        "khanate_self_fences_total 0",
        "khanate_fencing_refusals_total 0",
        "khanate_takeovers_total 0",
        "khanate_listener_gaps_total 0",
        "khanate_moves_repaired_total 0",
    ] {
        assert!(metrics.lines().any(|l| l == zero), "{zero} in {metrics}");
    }
}

/// The backend pids of every node's `LISTEN` connections.
async fn listeners(url: &str) -> Vec<i32> {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_relayed_client_is_told_at_once_when_its_room_moves_even_after_the_listener_was_cut() {
    let db = support::db::fresh_postgres().await;
    // Rechecks from the table come once a TTL (20 s): only the notification can be this quick.
    let a = node(&db.url, 20_000, 300);
    let b = node(&db.url, 20_000, 300);
    let (room_id, white_token, _black_token, _white, _black, _local, v) = game_on(a.addr, 2).await;
    let (mut relayed, _) = try_hello(b.addr, &room_id, &white_token, v)
        .await
        .expect("relayed to the owner");
    // Both nodes' listeners lose their connections; they reconnect and listen again.
    // Two per node: the rooms' and the site channel's (users' events, pairing wake-ups).
    let cut = listeners(&db.url).await;
    assert_eq!(cut.len(), 4, "two LISTEN connections per node");
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    for pid in &cut {
        sqlx::query("SELECT pg_terminate_backend($1)")
            .bind(pid)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while listeners(&db.url)
        .await
        .iter()
        .filter(|p| !cut.contains(p))
        .count()
        < 4
    {
        assert!(Instant::now() < deadline, "the listeners never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The room moves to b: a's lease is released as at a shutdown, without closing a's sockets.
    sqlx::query("UPDATE rooms SET owner_node = NULL WHERE id = $1")
        .bind(Uuid::parse_str(&room_id).unwrap())
        .execute(&mut conn)
        .await
        .unwrap();
    let moved = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(5), relayed.closed()).await;
    assert_eq!(closed, Ok(Some(1012)), "the relay ends when the room moves");
    println!(
        "relay ended {:?} after the room was released",
        moved.elapsed()
    );
    let (_, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(epoch, 2, "b's sweep claimed it");
    assert!(counter(b.addr, "khanate_listener_gaps_total").await >= 1.0);
    assert!(counter(b.addr, "khanate_owner_notification_lag_seconds_count").await >= 1.0);
    // Reconnecting, the client is served by b itself, from the log.
    let (mut white, welcome) = try_hello(b.addr, &room_id, &white_token, v)
        .await
        .expect("served");
    assert_eq!(welcome["d"]["version"], v);
    white.clear_pending();
}

#[tokio::test]
async fn concurrent_hellos_for_a_released_room_claim_it_once() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url, 20_000, 1000);
    // b sweeps once every 9 s: the hellos, not the sweep, find the released room.
    let b = node(&db.url, 20_000, 9000);
    let (room_id, white_token, black_token, _white, _black, mut local, v) =
        game_on(a.addr, 1).await;
    a.signal("TERM");
    assert!(a.wait(), "a clean exit");
    // Twenty hellos at once race for the released room: one claim wins, the
    // others find the room it started.
    let hellos = (0..20).map(|i| {
        let token = if i % 2 == 0 {
            &white_token
        } else {
            &black_token
        };
        try_hello(b.addr, &room_id, token, v)
    });
    let mut clients: Vec<Client> = futures_util::future::join_all(hellos)
        .await
        .into_iter()
        .map(|hello| hello.expect("served").0)
        .collect();
    let (_, epoch) = stored(&db.url, &room_id).await;
    assert_eq!(epoch, 2, "claimed once on a, once on b");
    let (mut black, mut white) = (clients.pop().unwrap(), clients.pop().unwrap());
    let v = play(&mut white, &mut black, &mut local, &moves()[1], v).await;
    let (versions, _) = stored(&db.url, &room_id).await;
    assert_eq!(versions, (1..=v).collect::<Vec<_>>());
}

/// Issue 24: after a takeover the orphan sweep gave 44 of 45 rooms to the first node to tick, so
/// the next failure takes almost everything at once. A dead node's rooms now spread over the
/// live nodes: each claims first those that hash to it. The nodes' lease is the default's (3 s,
/// renewed every second, so one sweep a second: the first has time to take everything before
/// the second ticks). 60 rooms, two survivors: each room is claimed by the survivor it hashes
/// to, but for a few its node did not claim in time (at most 6 here). Failed before the fix
/// (about half of them, by whichever node ticked first).
#[tokio::test]
async fn a_dead_node_s_rooms_spread_over_the_live_nodes() {
    let db = support::db::fresh_postgres().await;
    let a = node(&db.url, 3000, 1000);
    let b = node(&db.url, 3000, 1000);
    let c = node(&db.url, 3000, 1000);
    for _ in 0..60 {
        let (status, created) = support::server::post(
            a.addr,
            "/api/rooms",
            &json!({"game": "ouk-chatrang", "seat": "white", "name": "w"}),
        )
        .await;
        assert_eq!(status, 201, "{created}");
    }
    let killed = format!("http://{}", a.addr);
    a.kill();
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let owners: Vec<(String, i64)> = loop {
        let owners: Vec<(String, i64)> = sqlx::query_as(
            "SELECT n.advertise_url, count(*) FROM rooms r JOIN nodes n ON n.id = r.owner_node \
             WHERE n.lease_expires_at > now() AND n.advertise_url <> $1 \
             GROUP BY n.advertise_url ORDER BY 1",
        )
        .bind(&killed)
        .fetch_all(&mut conn)
        .await
        .unwrap();
        if owners.iter().map(|(_, rooms)| rooms).sum::<i64>() == 60 {
            break owners;
        }
        assert!(Instant::now() < deadline, "not all taken over: {owners:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Each room with the survivor it hashes to (its id modulo the live nodes, in id order).
    let rooms: Vec<(Uuid, Uuid)> = sqlx::query_as("SELECT id, owner_node FROM rooms")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let live: Vec<Uuid> =
        sqlx::query_scalar("SELECT id FROM nodes WHERE lease_expires_at > now() ORDER BY id")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(live.len(), 2);
    let elsewhere = rooms
        .iter()
        .filter(|(room, owner)| live[(room.as_u128() % 2) as usize] != *owner)
        .count();
    println!(
        "60 rooms of a killed node, taken over: {owners:?}; {elsewhere} by another than the one it hashes to"
    );
    let urls = [format!("http://{}", b.addr), format!("http://{}", c.addr)];
    for (url, _) in &owners {
        assert!(urls.contains(url), "{url} is not a survivor");
    }
    assert!(
        elsewhere <= 6,
        "{elsewhere} of 60 rooms not claimed by their node"
    );
}
