//! Khanate behind a real nginx running the shipped `docs/deploy/nginx.conf`: a whole game over
//! WebSockets through the proxy, an idle WebSocket outliving nginx's read timeout thanks to the
//! server's pings, the client address the server sees, forged `X-Forwarded-*` headers, the
//! HTTP→HTTPS redirect and the body limit, the WebSocket `Origin` check, and the cluster's peer
//! headers and unknown hosts stopped at nginx.
//!
//! nginx must be installed (Debian/Ubuntu: `apt-get install nginx`; `.ci/run` does it). Without it
//! these tests fail saying so; they are never skipped. Each test starts its own nginx as a child
//! process (master and one worker, in the foreground), with the shipped file changed only where a
//! test has to (see [`derive_config`]): plain HTTP on free loopback ports instead of 443 with TLS
//! and 80, the test server as upstream, `proxy_bind`, and a 3 s `proxy_read_timeout`. Every other
//! line — the `location` block, its headers, the upgrade `map`, the body limit, the redirect — runs
//! as shipped.
//!
//! Each hop has an address of its own on loopback, so that the address the server reports is
//! meaningful:
//!
//! ```text
//! client 127.0.0.4 ──> nginx 127.0.0.2:<port> ──(proxy_bind 127.0.0.3)──> Khanate 127.0.0.1:<port>
//! ```
//!
//! and Khanate trusts only 127.0.0.3, the proxy.

mod support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use khanate::config::Config;
use khanate::rules::ouk_chatrang::Game;
use khanate::rules::{Rules, Seat};
use serde_json::{Value, json};
use support::db::PgDatabase;
use support::nginx::{Capture, Change, Nginx, PROXY_IP};
use support::server::{TestServer, two_player_room};
use support::ws::Client;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The file under test.
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/deploy/nginx.conf");

/// Where the tests' own HTTP and WebSocket clients connect from, where it matters.
const CLIENT_IP: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 4);
/// The shipped configuration's placeholder host name, sent as `Host` by the clients.
const HOST: &str = "games.example.org";
/// The `proxy_read_timeout` the tests give nginx instead of the shipped 8 s.
const READ_TIMEOUT_S: u64 = 3;

// ---------------------------------------------------------------------------------------------
// nginx as a child process

/// `docs/deploy/nginx.conf` made runnable by a test, line by line, with exactly these changes:
///
/// - plain HTTP on `addr` and `redirect_addr` ([`support::nginx::plain_http`]);
/// - each `proxy_pass http://127.0.0.1:8080;` (`location /` and quick pairing's) →
///   `proxy_pass http://<upstream>;` followed by `proxy_bind 127.0.0.3;` (nginx connects to
///   Khanate from the proxy's own address);
/// - `proxy_read_timeout 8s;` → `proxy_read_timeout 3s;` (to see it pass within a test).
///
/// Every other line is kept as shipped (see [`support::nginx::derive`]).
fn derive_config(
    shipped: &str,
    addr: SocketAddr,
    redirect_addr: SocketAddr,
    upstream: SocketAddr,
) -> String {
    let mut changes = support::nginx::plain_http(addr, redirect_addr);
    changes.extend([
        // `location /` and its nested `location = /api/pairing`.
        Change {
            line: "proxy_pass http://127.0.0.1:8080;".to_owned(),
            prefix: false,
            to: vec![
                format!("proxy_pass http://{upstream};"),
                format!("proxy_bind {PROXY_IP};"),
            ],
            at_least: 2,
            at_most: 2,
        },
        Change::once(
            "proxy_read_timeout 8s;",
            &[format!("proxy_read_timeout {READ_TIMEOUT_S}s;")],
        ),
    ]);
    support::nginx::derive(SHIPPED, shipped, &changes, "tests/nginx.rs")
}

/// nginx running the derived file in front of `upstream`.
async fn start_nginx(upstream: SocketAddr) -> Nginx {
    Nginx::start(SHIPPED, |shipped, addr, redirect_addr| {
        derive_config(shipped, addr, redirect_addr, upstream)
    })
    .await
}

// ---------------------------------------------------------------------------------------------
// Khanate behind it

/// A fresh PostgreSQL database, a Khanate server on it trusting only [`PROXY_IP`], and nginx in
/// front of it.
struct Setup {
    nginx: Nginx,
    server: TestServer,
    db: PgDatabase,
}

impl Setup {
    async fn start(change: impl FnOnce(&mut Config)) -> Setup {
        let db = support::db::fresh_postgres().await;
        let mut config = Config::for_tests(&db.url);
        config.trusted_proxies = vec![format!("{PROXY_IP}/32").parse().unwrap()];
        change(&mut config);
        let server = TestServer::start_with(config).await;
        let nginx = start_nginx(server.addr).await;
        Setup { nginx, server, db }
    }

    async fn stop(self) {
        let Setup { nginx, server, db } = self;
        drop(nginx);
        server.shutdown().await;
        drop(db);
    }
}

/// An HTTP client connecting from `from`, not following redirects.
fn http_from(from: Ipv4Addr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(IpAddr::V4(from))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// `GET /api/whoami` at `to` from `from`, with an `X-Forwarded-For` of the client's own if given.
async fn whoami(from: Ipv4Addr, to: SocketAddr, forged: Option<&str>) -> String {
    let mut request = http_from(from)
        .get(format!("http://{to}/api/whoami"))
        .header("host", HOST);
    if let Some(forged) = forged {
        request = request.header("x-forwarded-for", forged);
    }
    let response = request.send().await.expect("whoami answers");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    body["ip"].as_str().expect("an ip").to_owned()
}

/// A POST through nginx with the public `Host` and extra headers: (status, JSON).
async fn post_via(
    nginx: &Nginx,
    path: &str,
    body: &Value,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let mut request = http_from(CLIENT_IP)
        .post(format!("http://{}{path}", nginx.addr))
        .header("host", HOST)
        .json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request through nginx");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens `/ws` at `to` from `from` with the public `Host` and extra headers: the socket and 101,
/// or the HTTP status of the refusal.
async fn upgrade(
    from: Ipv4Addr,
    to: SocketAddr,
    headers: &[(&'static str, &str)],
) -> Result<Ws, u16> {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(IpAddr::V4(from), 0))
        .unwrap_or_else(|e| panic!("cannot bind {from}: {e}"));
    let stream = socket.connect(to).await.expect("connects");
    let mut request = format!("ws://{to}/ws").into_client_request().unwrap();
    request.headers_mut().insert("host", HOST.parse().unwrap());
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    match tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream)).await {
        Ok((ws, response)) => {
            assert_eq!(response.status().as_u16(), 101);
            Ok(ws)
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("upgrade through {to}: {e}"),
    }
}

async fn send(ws: &mut Ws, frame: Value) {
    ws.send(Message::Text(frame.to_string().into()))
        .await
        .expect("send");
}

/// The next text frame as JSON (pings are answered by the library while reading).
async fn next_text(ws: &mut Ws) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a frame within 10 s");
        match message {
            Some(Ok(Message::Text(text))) => return serde_json::from_str(&text).unwrap(),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => panic!("the socket ended: {other:?}"),
        }
    }
}

/// The next text frame of type `t`, skipping others.
async fn next_of(ws: &mut Ws, t: &str) -> Value {
    loop {
        let frame = next_text(ws).await;
        if frame["t"] == t {
            return frame;
        }
    }
}

/// What reading an idle socket for `period` showed: the server's pings, text frames and, if it
/// ended, when and how.
struct Idle {
    pings: usize,
    ended: Option<(Duration, String)>,
}

/// Reads `ws` for `period` without sending anything of our own, as an idle client does (its
/// WebSocket library still answers the server's pings while it reads).
async fn stay_idle(ws: &mut Ws, period: Duration) -> Idle {
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + period;
    let mut pings = 0;
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Err(_) => return Idle { pings, ended: None },
            Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
            Ok(Some(Ok(Message::Text(_) | Message::Pong(_)))) => {}
            Ok(end) => {
                return Idle {
                    pings,
                    ended: Some((start.elapsed(), format!("{end:?}"))),
                };
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The tests

/// (a) The first recorded Ouk Chatrang game, created and joined over REST and played to its end
/// over WebSockets, everything through nginx: two players and a spectator get every move, the
/// mover its ack, all three the result; the invite link is built from what nginx forwarded.
#[tokio::test]
async fn a_whole_game_is_played_through_nginx() {
    let setup = Setup::start(|_| {}).await;
    let nginx = &setup.nginx;
    let record = support::data::recorded_games().remove(0);
    let id = record["id"].as_str().unwrap();
    let moves = support::data::moves(&record);

    // The client's own X-Forwarded-Proto and X-Forwarded-Host do not reach Khanate: nginx replaces
    // them with its scheme and host (were they passed on, the trusted proxy's word would make the
    // link https://evil.example/...).
    let (status, created) = post_via(
        nginx,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": "white", "name": "white"}),
        &[
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "evil.example"),
        ],
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    assert_eq!(
        created["invite_url"],
        format!("http://{HOST}/r/{code}"),
        "the link from nginx's X-Forwarded-Proto ($scheme) and X-Forwarded-Host ($host)"
    );
    let room_id = created["room_id"].as_str().unwrap().to_owned();
    let white_token = created["seat_token"].as_str().unwrap().to_owned();
    let (status, joined) = post_via(
        nginx,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "black"}),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let black_token = joined["seat_token"].as_str().unwrap().to_owned();

    let (mut white, welcome) = Client::hello(nginx.addr, &code, Some(&white_token), None).await;
    assert_eq!(welcome["d"]["seat"], 0);
    let (mut black, welcome) = Client::hello(nginx.addr, &code, Some(&black_token), None).await;
    assert_eq!(welcome["d"]["seat"], 1);
    let (mut spectator, welcome) = Client::hello(nginx.addr, &code, None, None).await;
    assert_eq!(welcome["d"]["role"], "spectator");
    for client in [&mut white, &mut black, &mut spectator] {
        assert_eq!(client.next_of("snapshot").await["v"], 3);
    }

    let mut local = Game::new();
    let mut v = 3;
    for (ply, mv) in moves.iter().enumerate() {
        let seat = local.to_move().expect("the game is still on") as Seat;
        let applied = local.play(mv).unwrap();
        let cid = format!("{id}-{ply}");
        let mover = if seat == 0 { &mut white } else { &mut black };
        mover.send_move(&cid, mv, v).await;
        for (who, client) in [
            ("white", &mut white),
            ("black", &mut black),
            ("spectator", &mut spectator),
        ] {
            let moved = client.event("moved", v + 1).await;
            assert_eq!(
                moved["d"]["move"],
                applied.notation,
                "ply {} to {who}",
                ply + 1
            );
            assert_eq!(moved["d"]["position"], local.position());
        }
        let last_v = if applied.outcome.is_some() {
            v + 2
        } else {
            v + 1
        };
        let mover = if seat == 0 { &mut white } else { &mut black };
        let answer = mover.answer(&cid).await;
        assert_eq!(answer["t"], "ack", "ply {}: {answer}", ply + 1);
        assert_eq!(answer["d"], json!({"cid": cid, "v": last_v}));
        v = last_v;
    }
    for client in [&mut white, &mut black, &mut spectator] {
        let over = client.next_of("game_over").await;
        assert_eq!(over["v"], v);
        assert_eq!(
            over["d"]["result"]["winner"],
            support::data::expected_winner(&record)
        );
        assert_eq!(over["d"]["result"]["reason"], record["reason"]);
    }
    assert_eq!(local.position(), record["final_fen"].as_str().unwrap());

    // The finished game, read back through nginx.
    let response = http_from(CLIENT_IP)
        .get(format!("http://{}/api/games/{room_id}", nginx.addr))
        .header("host", HOST)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let game: Value = response.json().await.unwrap();
    assert_eq!(game["display_moves"], record["san"]);

    white.close().await;
    black.close().await;
    spectator.close().await;
    setup.stop().await;
}

/// The seconds of `directive` (`proxy_read_timeout`, ...) in the shipped file at `path`: its
/// first, `location /`'s. Only quick pairing's location may set it again (its held request
/// outlasts the general timeout; tests/pairing_cluster.rs runs it).
fn shipped_seconds(path: &str, directive: &str) -> u64 {
    let text = std::fs::read_to_string(path).expect("the shipped file");
    let values: Vec<u64> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix(directive))
        .map(|value| {
            let value = value.trim().trim_end_matches(';');
            value
                .strip_suffix('s')
                .unwrap_or(value)
                .parse()
                .expect("seconds")
        })
        .collect();
    let pairing = text.matches("location = /api/pairing").count();
    assert!(
        values.len() == 1 || values.len() == 1 + pairing,
        "{path}: one {directive}, and one more at most in quick pairing's location: {values:?}"
    );
    values[0]
}

/// Issue 24: the single-node file kept nginx's 60 s read and send timeouts, so a frozen server
/// held every request and WebSocket for a minute. Both shipped files now give 8 s, which the
/// server's heartbeat (a probe on every WebSocket every 2 s by default) keeps an idle socket
/// well within: test (b) shows the probes keeping a socket open past a 3 s timeout.
#[test]
fn both_shipped_files_time_out_a_silent_upstream_after_8_s_which_the_heartbeat_never_reaches() {
    let cluster = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/deploy/nginx-cluster.conf"
    );
    for directive in ["proxy_read_timeout", "proxy_send_timeout"] {
        let single = shipped_seconds(SHIPPED, directive);
        assert_eq!(single, 8, "{directive}");
        assert_eq!(single, shipped_seconds(cluster, directive), "{directive}");
        assert!(
            single * 1000 >= 3 * khanate::config::DEFAULT_HEARTBEAT_MS,
            "{directive}: at least three heartbeat probes within the timeout"
        );
    }
}

/// (b) A WebSocket on which nobody plays for longer than nginx's `proxy_read_timeout` stays open
/// because the server pings it (every second here, against nginx's 3 s), and then works: a
/// protocol ping and a move are answered. Without the pings (a server pinging hourly, as a
/// control) nginx cuts the same idle socket after its timeout.
#[tokio::test]
async fn an_idle_websocket_outlives_the_proxy_read_timeout_thanks_to_server_pings() {
    const IDLE: Duration = Duration::from_secs(5);

    async fn idle_game(heartbeat_s: u64) -> (Setup, Ws, Idle) {
        let setup = Setup::start(|c| c.heartbeat_ms = heartbeat_s * 1000).await;
        let (_, code, white_token, _) = two_player_room(setup.server.addr, json!({})).await;
        let mut white = upgrade(CLIENT_IP, setup.nginx.addr, &[])
            .await
            .expect("101 through nginx");
        send(
            &mut white,
            json!({"t": "hello", "d": {"protocol": 1, "room": code, "token": white_token}}),
        )
        .await;
        assert_eq!(next_text(&mut white).await["t"], "welcome");
        assert_eq!(next_of(&mut white, "snapshot").await["v"], 3);
        let idle = stay_idle(&mut white, IDLE).await;
        (setup, white, idle)
    }

    let ((pinged, mut white, idle), (control, _cut, silent)) =
        tokio::join!(idle_game(1), idle_game(3600));

    assert!(
        idle.ended.is_none(),
        "the pinged socket was closed while idle: {:?}",
        idle.ended
    );
    assert!(
        idle.pings >= 3,
        "{} server pings in {IDLE:?} at one a second",
        idle.pings
    );
    send(&mut white, json!({"t": "ping"})).await;
    assert_eq!(next_of(&mut white, "pong").await["t"], "pong");
    send(
        &mut white,
        json!({"t": "move", "cid": "after-idle", "d": {"move": "e3e4", "v": 3}}),
    )
    .await;
    let ack = next_of(&mut white, "ack").await;
    assert_eq!(ack["d"], json!({"cid": "after-idle", "v": 4}));

    let (after, how) = silent
        .ended
        .expect("without server pings nginx closes the idle socket after proxy_read_timeout");
    // The heartbeat's first probes (six, from 100 ms after the hello, 300 ms apart: round trips
    // from the first second, docs/protocol.md "Heartbeat") come whatever the interval; after
    // them, nothing until the hour-long interval.
    assert!(
        silent.pings <= 6,
        "{} pings: at most the heartbeat's six first probes",
        silent.pings
    );
    assert!(
        after >= Duration::from_secs(READ_TIMEOUT_S - 1),
        "closed after {after:?} ({how}), before nginx's {READ_TIMEOUT_S} s"
    );

    let _ = white.close(None).await;
    tokio::join!(pinged.stop(), control.stop());
}

/// (c) The client address Khanate sees through nginx is the one nginx forwarded — the address the
/// client connected from — even when the client sends an `X-Forwarded-For` of its own; (d) the
/// same forged header sent straight to Khanate from an untrusted peer is ignored, and only the
/// proxy's own address is believed.
#[tokio::test]
async fn the_server_sees_the_client_address_nginx_forwarded_and_no_forged_one() {
    let setup = Setup::start(|_| {}).await;
    let (nginx, server) = (setup.nginx.addr, setup.server.addr);
    let client = CLIENT_IP.to_string();

    // Through nginx: Khanate's peer is 127.0.0.3 (trusted), X-Forwarded-For ends with 127.0.0.4.
    assert_eq!(whoami(CLIENT_IP, nginx, None).await, client);
    assert_eq!(
        whoami(CLIENT_IP, nginx, Some("1.2.3.4")).await,
        client,
        "nginx appends the real peer to the client's claim; the rightmost untrusted entry counts"
    );
    assert_eq!(
        whoami(CLIENT_IP, nginx, Some(&format!("1.2.3.4, {PROXY_IP}"))).await,
        client,
        "claiming to have come through the proxy does not help either"
    );

    // Straight to Khanate: the header is ignored from untrusted peers.
    assert_eq!(whoami(CLIENT_IP, server, Some("1.2.3.4")).await, client);
    assert_eq!(
        whoami(Ipv4Addr::LOCALHOST, server, Some("1.2.3.4")).await,
        "127.0.0.1"
    );
    // ... and believed from the proxy's address only: so what nginx appended is what counted above.
    assert_eq!(whoami(PROXY_IP, server, Some("1.2.3.4")).await, "1.2.3.4");

    setup.stop().await;
}

/// The shipped redirect sends plain HTTP to HTTPS, and nginx refuses a REST body over 16 KiB itself
/// (its own 413 page, not Khanate's JSON error), while a normal one passes.
#[tokio::test]
async fn http_redirects_to_https_and_large_bodies_stop_at_nginx() {
    let setup = Setup::start(|_| {}).await;
    let response = http_from(CLIENT_IP)
        .get(format!(
            "http://{}/api/rooms?x=1",
            setup.nginx.redirect_addr
        ))
        .header("host", HOST)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 301);
    assert_eq!(
        response.headers()["location"],
        format!("https://{HOST}/api/rooms?x=1").as_str()
    );

    let big = json!({"game": "ouk-chatrang", "name": "x".repeat(17 * 1024)});
    let response = http_from(CLIENT_IP)
        .post(format!("http://{}/api/rooms", setup.nginx.addr))
        .header("host", HOST)
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let text = response.text().await.unwrap();
    assert!(text.contains("nginx"), "refused by nginx: {text}");
    let (status, _) = post_via(&setup.nginx, "/api/rooms", &json!({"game": "khan"}), &[]).await;
    assert_eq!(status, 201);

    setup.stop().await;
}

/// (e) A WebSocket upgrade through nginx with a foreign `Origin` gets 403; with the public origin
/// the server derives from nginx's `X-Forwarded-Proto` and `X-Forwarded-Host` it gets 101, and a
/// client cannot widen that by sending those headers itself.
#[tokio::test]
async fn websocket_upgrades_through_nginx_are_checked_against_the_public_origin() {
    let setup = Setup::start(|_| {}).await;
    let nginx = setup.nginx.addr;
    let public = format!("http://{HOST}");

    assert!(
        upgrade(CLIENT_IP, nginx, &[("origin", &public)])
            .await
            .is_ok(),
        "the public origin gets 101"
    );
    assert!(
        upgrade(CLIENT_IP, nginx, &[]).await.is_ok(),
        "no Origin (not a browser): 101"
    );
    assert_eq!(
        upgrade(CLIENT_IP, nginx, &[("origin", "https://evil.example")])
            .await
            .err(),
        Some(403)
    );
    // The scheme is nginx's ($scheme: http here), not one the client claims.
    assert_eq!(
        upgrade(
            CLIENT_IP,
            nginx,
            &[
                ("origin", &format!("https://{HOST}")),
                ("x-forwarded-proto", "https")
            ]
        )
        .await
        .err(),
        Some(403)
    );
    assert_eq!(
        upgrade(
            CLIENT_IP,
            nginx,
            &[
                ("origin", "http://evil.example"),
                ("x-forwarded-host", "evil.example")
            ]
        )
        .await
        .err(),
        Some(403)
    );

    setup.stop().await;
}

/// (f) The cluster's peer headers a client sends (the secret, a relayed client's address) never
/// reach the upstream through the shipped file, whatever their case, and a request naming another
/// host (a DNS-rebinding page names its own) is refused by the default server, reaching nothing.
#[tokio::test]
async fn peer_headers_and_unknown_hosts_never_reach_the_upstream() {
    let capture = Capture::start().await;
    let nginx = start_nginx(capture.addr).await;
    support::nginx::assert_peer_headers_never_pass(&nginx, &capture).await;
}
