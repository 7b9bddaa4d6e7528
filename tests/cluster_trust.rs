//! Peers that prove who they are (issue 24, `docs/deploy/cluster.md` "Trust between nodes"): a
//! node refuses to start with a short secret, with a secret that is not the cluster's, or with an
//! advertise URL a live node already has; a node believes peer headers only with the secret and,
//! given `--internal-bind`, only on that listener, counting every other attempt; the shipped
//! `nginx-cluster.conf` never passes a client's peer headers or an unknown host on. Real server
//! binaries, real PostgreSQL, real nginx.

mod support;

use std::net::SocketAddr;

use sqlx::Connection;
use support::cluster::{Lease, SECRET, SHORT_LEASE, node_args, refused};
use support::nginx::{Capture, Nginx};
use support::server::{Process, free_port, get_text};
use support::ws::Client;

fn localhost(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

fn start(url: &str, args: &[String]) -> Process {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Process::start_with(url, &args, &[])
}

#[test]
fn a_secret_under_32_bytes_is_refused_at_start_up_without_being_shown() {
    let short = "x".repeat(31);
    let stderr = refused(
        &[
            "--database-url",
            "postgres://nobody@127.0.0.1:1/none",
            "--advertise-url",
            "http://127.0.0.1:1",
        ],
        &[("KHANATE_CLUSTER_SECRET", &short)],
    );
    assert!(
        stderr.contains("is 31 bytes long: it needs at least 32"),
        "{stderr}"
    );
    assert!(!stderr.contains(&short), "{stderr}");
}

#[tokio::test]
async fn a_node_with_another_secret_or_a_live_node_s_advertise_url_refuses_to_start() {
    let db = support::db::fresh_postgres().await;
    let lease = SHORT_LEASE;
    let port = free_port();
    let first = start(
        &db.url,
        &node_args(localhost(port), &format!("http://{}", localhost(port)), lease),
    );
    let flags = |advertise: &str, secret: &str| {
        // `refused` binds 127.0.0.1:0 itself.
        let mut args = node_args(localhost(0), advertise, lease).split_off(2);
        let at = args.iter().position(|a| a == SECRET).unwrap();
        args[at] = secret.to_owned();
        args.extend(["--database-url".to_owned(), db.url.clone()]);
        args
    };
    let run_refused = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, &[])
    };

    let other = "another secret, also thirty-two bytes or more";
    let stderr = run_refused(flags("http://127.0.0.1:1", other));
    assert!(
        stderr.contains("--cluster-secret (KHANATE_CLUSTER_SECRET) is not the cluster's"),
        "{stderr}"
    );
    assert!(!stderr.contains(other) && !stderr.contains(SECRET), "{stderr}");

    let url = format!("http://{}", localhost(port));
    let stderr = run_refused(flags(&url, SECRET));
    assert!(
        stderr.contains(&format!("another running node advertises {url}")),
        "{stderr}"
    );
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM nodes WHERE advertise_url = $1")
        .bind(&url)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows, 1, "the refused node wrote nothing");
    let (status, _) = get_text(first.addr, "/healthz").await;
    assert_eq!(status, 200, "the first node goes on");

    // A crashed node's URL is free again once its lease ran out: its restart waits for that.
    first.kill();
    let again = start(&db.url, &node_args(localhost(port), &url, lease));
    let live: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM nodes WHERE advertise_url = $1 AND lease_expires_at > now()",
    )
    .bind(&url)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(live, 1);
    drop(again);
}

/// `GET /api/whoami` at `to` with `headers`: the address the node believes is the client's.
async fn whoami(to: SocketAddr, headers: &[(&str, &str)]) -> String {
    let mut request = reqwest::Client::new().get(format!("http://{to}/api/whoami"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body: serde_json::Value = request.send().await.unwrap().json().await.unwrap();
    body["ip"].as_str().expect("an ip").to_owned()
}

/// `khanate_peer_auth_failures_total{why="<why>"}` at `node`.
async fn failures(node: SocketAddr, why: &str) -> f64 {
    let (_, text) = get_text(node, "/metrics").await;
    let sample = format!("khanate_peer_auth_failures_total{{why=\"{why}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&sample))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no {sample} in\n{text}"))
}

#[tokio::test]
async fn peer_headers_are_believed_only_with_the_secret_on_the_internal_listener() {
    let db = support::db::fresh_postgres().await;
    let (public, internal) = (localhost(free_port()), localhost(free_port()));
    let mut args = node_args(public, &format!("http://{internal}"), SHORT_LEASE);
    args.extend(["--internal-bind".to_owned(), internal.to_string()]);
    let node = start(&db.url, &args);
    assert_eq!(node.addr, public);
    let claim = [
        ("x-khanate-cluster-secret", SECRET),
        ("x-khanate-client", "9.9.9.9"),
    ];
    let wrong = [
        ("x-khanate-cluster-secret", "wrong-secret-of-thirty-two-bytes-and-more"),
        ("x-khanate-client", "9.9.9.9"),
    ];
    let unsigned = [("x-khanate-client", "9.9.9.9")];

    assert_eq!(whoami(internal, &claim).await, "9.9.9.9", "a peer, believed");
    assert_eq!(whoami(internal, &wrong).await, "127.0.0.1");
    assert_eq!(whoami(internal, &unsigned).await, "127.0.0.1");
    assert_eq!(
        whoami(public, &claim).await,
        "127.0.0.1",
        "the right secret on the public listener is not believed"
    );
    assert_eq!(failures(public, "wrong_secret").await, 1.0);
    assert_eq!(failures(public, "no_secret").await, 1.0);
    assert_eq!(failures(public, "public_listener").await, 1.0);
}

#[tokio::test]
async fn the_shipped_cluster_config_never_passes_peer_headers_or_unknown_hosts() {
    let capture = Capture::start().await;
    let nginx = Nginx::start(support::cluster::SHIPPED, |shipped, addr, redirect_addr| {
        support::cluster::derive_config(shipped, addr, redirect_addr, &[capture.addr])
    })
    .await;
    support::nginx::assert_peer_headers_never_pass(&nginx, &capture).await;
}

/// The relays of a cluster whose nodes listen for each other on `--internal-bind` work as over
/// `--bind`: a client of one node plays in a room the other owns.
#[tokio::test]
async fn nodes_relay_to_each_other_over_their_internal_listeners() {
    let db = support::db::fresh_postgres().await;
    let node = |lease: Lease| {
        let (public, internal) = (localhost(free_port()), localhost(free_port()));
        let mut args = node_args(public, &format!("http://{internal}"), lease);
        args.extend(["--internal-bind".to_owned(), internal.to_string()]);
        start(&db.url, &args)
    };
    let (a, b) = (node(SHORT_LEASE), node(SHORT_LEASE));
    let (_room_id, code, white, black) =
        support::server::two_player_room(a.addr, serde_json::json!({})).await;
    // White on b, relayed over a's internal listener; black on a, the owner.
    let (mut w, welcome) = Client::hello(b.addr, &code, Some(&white), None).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    let (mut k, _) = Client::hello(a.addr, &code, Some(&black), None).await;
    let first = support::data::recorded_games().remove(0)["moves"][0]
        .as_str()
        .unwrap()
        .to_owned();
    w.send_move("m1", &first, 3).await;
    assert_eq!(
        w.answer("m1").await["d"],
        serde_json::json!({"cid": "m1", "v": 4})
    );
    assert_eq!(k.event("moved", 4).await["d"]["move"], first.as_str());
    let (_, metrics) = get_text(b.addr, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "khanate_relayed_connections_total 1"),
        "{metrics}"
    );
}
