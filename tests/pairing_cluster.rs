//! Quick pairing and challenges on three nodes behind a real nginx running the shipped
//! `docs/deploy/nginx-cluster.conf`, on one real PostgreSQL (issue 23, "What must show"): forty
//! pairing clients with spread ratings, their requests spread over the nodes by nginx, are each
//! paired once, inside the widened window; a challenge made on one node reaches the challenged
//! player's page on another, and its acceptance there starts the game for both.
//!
//! The times an event took to cross nodes are printed (`--nocapture`), never asserted; each event
//! is awaited at most 20 s (`support::ws::within`), so one that never crosses fails the test
//! rather than hanging it (the site channel's pings keep a page's socket alive meanwhile).
//!
//! Also: the node's site listener (LISTEN on the users' and pairing channels) ends with the store
//! at shutdown.

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use khanate::site::{self, Site};
use khanate::store::Store;
use serde_json::json;
use sqlx::{Connection, PgConnection};
use support::account::{Auth, hello_as, post_as};
use support::cluster::{Cluster, SHORT_LEASE};
use support::pairing::{Player, body_for, pair_within, players, seated, site, waiting};
use support::ws::within;
use tokio::sync::Notify;
use uuid::Uuid;

/// The rating of the forty players' `i`th (as in `tests/pairing.rs`): twenty pairs 320 points
/// apart, each pair's two players 0 to 150 apart.
fn forty_ratings(i: usize) -> f64 {
    let (pair, second) = (i / 2, i % 2 == 1);
    let gap = [0.0, 30.0, 60.0, 90.0, 100.0, 120.0, 150.0][pair % 7];
    1000.0 + 320.0 * pair as f64 + if second { gap } else { 0.0 }
}

/// The nodes holding the requests that wait now, by node id: how many each holds.
async fn holders(url: &str) -> HashMap<Option<Uuid>, i64> {
    let mut conn = PgConnection::connect(url).await.expect("connects");
    let rows: Vec<(Option<Uuid>, i64)> = sqlx::query_as(
        "SELECT holder, count(*) FROM pairing_waiting WHERE room_id IS NULL GROUP BY holder",
    )
    .fetch_all(&mut conn)
    .await
    .expect("reads the queue");
    let _ = conn.close().await;
    rows.into_iter().collect()
}

#[tokio::test]
async fn forty_clients_through_nginx_on_three_nodes_are_each_paired_once() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let url = cluster.db.url.clone();
    let store = Store::connect(&url).await.expect("connects");
    let nginx = cluster.nginx.addr;
    let players = players(&store, "forty", 40).await;
    for (i, p) in players.iter().enumerate() {
        support::pairing::set_rating(&url, p.id, "khan", "blitz", forty_ratings(i)).await;
    }
    // One player of each pair first (none within another's window in the first 10 s), then
    // their partners; every request goes through nginx, which sends each to a node by its
    // request id.
    let started = Instant::now();
    let body = body_for("khan@3+2", true);
    let ask = |p: &Player| {
        let (cookie, body, name) = (p.cookie.clone(), body.clone(), p.name.clone());
        tokio::spawn(async move {
            let answer = pair_within(nginx, Some(&cookie), &body, Duration::from_secs(10))
                .await
                .unwrap_or_else(|| panic!("{name} not paired in 10 s"));
            (answer, started.elapsed())
        })
    };
    let firsts: Vec<_> = players.iter().step_by(2).map(ask).collect();
    support::server::eventually(|| async {
        (waiting(nginx, "khan@3+2", "rated").await == 20).then_some(())
    })
    .await;
    let held = holders(&url).await;
    println!("the twenty first requests, by the node holding them: {held:?}");
    assert!(!held.contains_key(&None), "each held by a node: {held:?}");
    assert_eq!(held.len(), 3, "spread over the three nodes: {held:?}");
    let seconds: Vec<_> = players.iter().skip(1).step_by(2).map(ask).collect();
    let mut answers = Vec::new();
    let mut waited = HashMap::new();
    let asks = firsts.into_iter().zip(seconds).flat_map(|(a, b)| [a, b]);
    for (ask, p) in asks.zip(&players) {
        let ((status, answer), elapsed) = ask.await.unwrap();
        assert_eq!(
            status,
            200,
            "{}: {answer}\n{}",
            p.name,
            cluster.nginx.logs()
        );
        waited.insert(p.id, elapsed);
        answers.push(answer);
    }
    let slowest = waited.values().max().unwrap();
    println!(
        "forty players paired through nginx on three nodes; the last answered after {slowest:?}"
    );

    // Every player in one room, with the seat its answer names, by account; two to a room.
    let tokens: HashSet<&str> = answers
        .iter()
        .map(|a| a["seat_token"].as_str().expect("a seat token"))
        .collect();
    assert_eq!(tokens.len(), 40, "one token each");
    let mut rooms: HashMap<&str, Vec<(u64, Uuid)>> = HashMap::new();
    for (answer, p) in answers.iter().zip(&players) {
        let room = answer["room_id"].as_str().expect("a room");
        let seat = answer["seat"].as_u64().expect("a seat");
        rooms.entry(room).or_default().push((seat, p.id));
    }
    assert_eq!(rooms.len(), 20, "{rooms:?}");
    let mut everyone = HashSet::new();
    let rating = |id: &Uuid| forty_ratings(players.iter().position(|p| p.id == *id).unwrap());
    for (room, mut members) in rooms {
        members.sort();
        let by_seat: Vec<Option<Uuid>> = members.iter().map(|m| Some(m.1)).collect();
        assert_eq!(members.iter().map(|m| m.0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(seated(&store, room).await, by_seat, "room {room}");
        everyone.extend(members.iter().map(|m| m.1));
        let (a, b) = (members[0].1, members[1].1);
        let diff = (rating(&a) - rating(&b)).abs();
        let longest = waited[&a].max(waited[&b]);
        let window = khanate::pairing::policy::window(longest.as_millis() as i64);
        assert!(
            diff <= f64::from(window),
            "{diff} apart, paired within ±{window}"
        );
        assert!(diff <= 150.0, "{diff}: each meets its pair's other player");
    }
    assert_eq!(everyone.len(), 40, "nobody in two rooms");
    assert_eq!(waiting(nginx, "khan@3+2", "rated").await, 0);
    // In the database too: forty account seats in twenty rooms, each account once.
    let mut conn = PgConnection::connect(&url).await.expect("connects");
    let (seats, accounts, in_rooms): (i64, i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT user_id), count(DISTINCT room_id) FROM seats \
         WHERE user_id = ANY($1)",
    )
    .bind(players.iter().map(|p| p.id).collect::<Vec<_>>())
    .fetch_one(&mut conn)
    .await
    .expect("reads the seats");
    assert_eq!((seats, accounts, in_rooms), (40, 40, 20));
    let _ = conn.close().await;
}

#[tokio::test]
async fn a_challenge_accepted_through_another_node_starts_the_game_for_both() {
    let cluster = Cluster::start(3, SHORT_LEASE).await;
    let store = Store::connect(&cluster.db.url).await.expect("connects");
    let (a, b) = (cluster.nodes[0].addr, cluster.nodes[1].addr);
    let dara = support::pairing::player(&store, "Dara").await;
    let sok = support::pairing::player(&store, "Sok").await;
    // Dara's page is on node A, Sok's on node B.
    let (mut dara_page, _) = site(a, &dara.cookie).await;
    let (mut sok_page, welcome) = site(b, &sok.cookie).await;
    assert_eq!(welcome["d"], json!({"user": "Sok", "challenges": []}));

    let body = json!({"to": "sok", "game": "ouk-chatrang", "color": "white",
                      "clock": {"initial_s": 300, "increment_s": 3}});
    let sent = Instant::now();
    let made = post_as(a, "/api/challenges", Auth::Cookie(&dara.cookie), &body).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let told = within(sok_page.next_of("challenge")).await;
    println!(
        "node A's challenge reached the page on node B after {:?}",
        sent.elapsed()
    );
    assert_eq!(told["d"], made.body, "{told}");
    let id = made.body["id"].as_str().unwrap();

    let sent = Instant::now();
    let path = format!("/api/challenges/{id}/accept");
    let accepted = post_as(b, &path, Auth::Cookie(&sok.cookie), &json!({})).await;
    let sok_answered = sent.elapsed();
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(accepted.body["seat"], 1, "{}", accepted.body);
    let start = within(dara_page.next_of("game_start")).await;
    let dara_told = sent.elapsed();
    println!(
        "accepted through node B: Sok answered after {sok_answered:?}, Dara's page on node A \
         told after {dara_told:?}"
    );
    let room = accepted.body["room_id"].as_str().unwrap();
    assert_eq!(
        start["d"],
        json!({"room_id": room, "invite_code": accepted.body["invite_code"],
               "game": "ouk-chatrang", "seat": 0, "color": "white", "via": "challenge",
               "challenge_id": id})
    );
    assert_eq!(seated(&store, room).await, [Some(dara.id), Some(sok.id)]);

    // Each opens the game where their page is: Dara by the account's seat on A, Sok by the
    // token on B. White's move tells Sok's page on B that it is Sok's turn.
    let code = accepted.body["invite_code"].clone();
    let (mut white, welcome) = hello_as(a, Some(&dara.cookie), json!({"room": code})).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    let token = accepted.body["seat_token"].clone();
    let (_black, black_welcome) = hello_as(b, None, json!({"room": code, "token": token})).await;
    assert_eq!(black_welcome["d"]["seat"], 1, "{black_welcome}");
    let v = welcome["d"]["version"].as_i64().unwrap();
    white.send_move("w1", "e3e4", v).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    let turn = within(sok_page.next_of("your_turn")).await;
    assert_eq!(
        (&turn["d"]["room_id"], &turn["d"]["seat"]),
        (&json!(room), &json!(1))
    );
}

/// How long the stand-in node of the next test holds each request: past the shipped
/// `proxy_read_timeout 8s` of `location /`, within quick pairing's 75 s.
const HELD: Duration = Duration::from_secs(10);

/// A stand-in node that answers every request `204` after [`HELD`], as a node does to a
/// pairing request nobody came for.
async fn holding_node() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tcp.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                tokio::time::sleep(HELD).await;
                let _ = tcp
                    .write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    (addr, task)
}

/// The shipped `nginx-cluster.conf` cut every request its node had not answered within 8 s
/// (504), so a pairing request held longer was never answered: `/api/pairing` has its own read
/// timeout, past the hold, and everything else keeps the 8 s.
#[tokio::test]
async fn nginx_waits_out_a_held_pairing_request() {
    let (node, task) = holding_node().await;
    let nginx =
        support::nginx::Nginx::start(support::cluster::SHIPPED, |shipped, addr, redirect| {
            support::cluster::derive_config(shipped, addr, redirect, &[node])
        })
        .await;
    let client = reqwest::Client::new();
    let held = client
        .post(format!("http://{}/api/pairing", nginx.addr))
        .json(&body_for("khan@3+2", false))
        .send();
    let other = client
        .get(format!("http://{}/api/rooms/ABCDEFGH", nginx.addr))
        .send();
    let (held, other) = tokio::join!(held, other);
    let status = |answer: reqwest::Result<reqwest::Response>| answer.expect("answered").status();
    assert_eq!(status(held).as_u16(), 204, "{}", nginx.logs());
    assert_eq!(status(other).as_u16(), 504, "{}", nginx.logs());
    task.abort();
}

/// `site::listen` once retried a closed pool every second at shutdown, logging a warning each
/// time until the process exited: it ends once the store is closed.
#[tokio::test]
async fn the_site_listener_ends_when_the_store_closes() {
    let db = support::db::fresh_postgres().await;
    let store = Store::connect(&db.url).await.expect("connects");
    let listening = tokio::spawn(site::listen(
        Site::over(&store),
        Arc::new(Notify::new()),
        Duration::from_millis(50),
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !listening.is_finished(),
        "it listens while the store is open"
    );
    store.close().await;
    tokio::time::timeout(Duration::from_secs(5), listening)
        .await
        .expect("the listener ended within 5 s of the store's close")
        .expect("the listener's task did not panic");
}
