//! A client's request for a room another node owns, by the cluster's one routing policy
//! (`src/cluster/route.rs`, issue 24): a forwarded join whose answer was lost is never sent again
//! (it could take a second seat), and a peer's request for a room that moved on is answered
//! "room moving", not "the database is unavailable". Real nodes, real PostgreSQL, and a TCP proxy
//! in front of the owner that the test can break.

mod support;

use std::net::SocketAddr;

use serde_json::{Value, json};
use support::cluster::{SECRET, SHORT_LEASE, node_args};
use support::server::{Process, free_port, get, post};
use support::tcp_proxy::{Mode, TcpProxy};

fn localhost(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// A node on `bind` advertising `advertise` (its own address, or a proxy in front of it).
fn node(url: &str, bind: SocketAddr, advertise: SocketAddr) -> Process {
    let args = node_args(bind, &format!("http://{advertise}"), SHORT_LEASE);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Process::start_with(url, &args, &[])
}

/// How many seats of the room `code` are taken, asked of `at`.
async fn seats_taken(at: SocketAddr, code: &str) -> usize {
    let (status, summary) = get(at, &format!("/api/rooms/{code}")).await;
    assert_eq!(status, 200, "{summary}");
    summary["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .filter(|seat| seat["taken"] == true)
        .count()
}

/// Issue 24: a join forwarded to the owner was sent again after a transport error, although the
/// owner had applied it: in a three-player Khan-Tsin room the retries took the other seats. Failed
/// before the fix (three seats taken, and 503).
#[tokio::test]
async fn a_forwarded_join_whose_answer_was_lost_is_not_sent_again() {
    let db = support::db::fresh_postgres().await;
    let owner_bind = localhost(free_port());
    let proxy = TcpProxy::start(localhost(free_port()), owner_bind).await;
    let owner = node(&db.url, owner_bind, proxy.addr);
    let entry_bind = localhost(free_port());
    let entry = node(&db.url, entry_bind, entry_bind);
    let (status, created) = post(
        owner.addr,
        "/api/rooms",
        &json!({"game": "khan-tsin", "seats": 3, "seat": 0, "name": "p0"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    assert_eq!(seats_taken(owner.addr, &code).await, 1);

    proxy.set(Mode::DropAnswers);
    let (status, answer) = post(
        entry.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "p1"}),
    )
    .await;
    assert_eq!(status, 502, "{answer}");
    assert_eq!(answer["error"]["code"], "unknown_outcome", "{answer}");
    assert_eq!(
        seats_taken(owner.addr, &code).await,
        2,
        "the join reached the owner once"
    );

    // With the path back, a join through the entry node is answered by the owner.
    proxy.set(Mode::Pass);
    let (status, joined) = post(
        entry.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "p2"}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(seats_taken(owner.addr, &code).await, 3);
}

/// Issue 24: a peer's request for a room the node does not own (it moved on) was answered 503
/// "the database is unavailable"; it says what happened, so the sender tries the new owner.
#[tokio::test]
async fn a_peer_request_for_a_room_owned_elsewhere_is_answered_room_moving() {
    let db = support::db::fresh_postgres().await;
    let (a_bind, b_bind) = (localhost(free_port()), localhost(free_port()));
    let a = node(&db.url, a_bind, a_bind);
    let b = node(&db.url, b_bind, b_bind);
    let (status, created) = post(
        a.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": "white", "name": "w"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let room_id = created["room_id"].as_str().unwrap();
    let answer = reqwest::Client::new()
        .get(format!("http://{}/api/rooms/{room_id}", b.addr))
        .header("x-khanate-cluster-secret", SECRET)
        .header("x-khanate-client", "203.0.113.9")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "room_moving", "{body}");
}
