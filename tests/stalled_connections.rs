//! One client cannot lock the others out: the real server binary holds thousands of stalled
//! connections (half a request line, then silence or a byte now and then) while a normal client
//! creates a room and plays a move within a second, and closes them after the header timeout; at
//! its connection cap (the descriptor limit minus a reserve) and at the cap per address it goes on
//! accepting and answers the extra connections with a typed 503 or 429 at once.
//!
//! Stalled connections come from other loopback addresses (127.0.0.2 and up) than the normal
//! client (127.0.0.1), as they would from other machines.

mod support;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::server::{Process, two_player_room};
use support::ws::Client;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The header timeout the servers under test are started with, in seconds.
const HEADER_TIMEOUT_S: u64 = 4;

/// How long any single step may take before the test fails rather than hangs.
const WAIT: Duration = Duration::from_secs(20);

/// A connection from `127.0.0.{host}` that sent half a request line.
async fn stalled(addr: SocketAddr, host: u8) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::from((Ipv4Addr::new(127, 0, 0, host), 0)))
        .expect("bind a loopback source address");
    let mut tcp = tokio::time::timeout(WAIT, socket.connect(addr))
        .await
        .expect("the server accepts (or refuses) in time")
        .expect("connect");
    tcp.write_all(b"GET /api/rooms HTTP/1.1\r\nHo")
        .await
        .expect("write");
    tcp
}

/// `count` stalled connections spread over `hosts` source addresses.
async fn stalled_many(addr: SocketAddr, count: usize, hosts: u8) -> Vec<TcpStream> {
    let mut all = Vec::with_capacity(count);
    for i in 0..count {
        let host = 2 + u8::try_from(i % usize::from(hosts)).unwrap();
        all.push(stalled(addr, host).await);
    }
    all
}

/// Whether the server still holds `tcp` open: nothing to read, no end of stream.
fn still_open(tcp: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(tcp.try_read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

/// Reads `tcp` to its end, within `wait`: what the server sent before closing, or `None` if it
/// kept the connection open that long.
async fn until_closed(mut tcp: TcpStream, wait: Duration) -> Option<String> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(wait, async {
        let mut buf = [0u8; 4096];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&got).into_owned())
}

/// The error code of a typed error answer written before a close (`None` when none came).
fn refusal_code(answer: &str) -> Option<(u16, String)> {
    let status = answer.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let body: Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1)?).ok()?;
    Some((status, body["error"]["code"].as_str()?.to_owned()))
}

/// Creates a room, joins it, connects both players and plays a move: how long it took.
async fn play_a_move(addr: SocketAddr) -> Duration {
    tokio::time::timeout(WAIT, play(addr))
        .await
        .expect("a room and a move within the wait")
}

async fn play(addr: SocketAddr) -> Duration {
    let started = Instant::now();
    let (_, code, white, black) = two_player_room(addr, json!({})).await;
    let (mut white, _) = Client::hello(addr, &code, Some(&white), None).await;
    let (mut black, _) = Client::hello(addr, &code, Some(&black), None).await;
    white.next_of("snapshot").await;
    black.next_of("snapshot").await;
    white.send_move("m1", "e3e4", 3).await;
    let answer = white.answer("m1").await;
    assert_eq!(answer["t"], "ack", "{answer}");
    started.elapsed()
}

/// The server binary with a header timeout of `header_timeout_s` and at most `per_address`
/// connections from one address, started under `wrapper` (see [`Process::start_with`]).
fn server(url: &str, header_timeout_s: u64, per_address: usize, wrapper: &[&str]) -> Process {
    let timeout = header_timeout_s.to_string();
    let per_address = per_address.to_string();
    let flags = [
        "--header-timeout-s",
        &timeout,
        "--http-connections-per-ip",
        &per_address,
    ];
    Process::start_with(url, &flags, wrapper)
}

#[tokio::test]
async fn thousands_of_stalled_connections_neither_lock_out_a_player_nor_stay_open() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = server(&url, HEADER_TIMEOUT_S, 1000, &[]);
    let opened = Instant::now();
    let mut stalled = stalled_many(server.addr, 4_000, 8).await;
    // A few send a byte every half second: a timeout on silence alone would keep them.
    let trickling: Vec<_> = stalled.drain(..20).collect();
    let trickle = tokio::spawn(async move {
        let mut closed = 0;
        let mut sockets = trickling;
        for _ in 0..(4 * HEADER_TIMEOUT_S) {
            tokio::time::sleep(Duration::from_millis(500)).await;
            for tcp in &mut sockets {
                if tcp.write_all(b"x").await.is_err() {
                    closed += 1;
                }
            }
        }
        let open = sockets.iter().filter(|tcp| still_open(tcp)).count();
        (closed, open)
    });
    let took = play_a_move(server.addr).await;
    let held = stalled.iter().filter(|tcp| still_open(tcp)).count();
    let since_opened = opened.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "a room and a move took {took:?} beside {held} stalled connections"
    );
    assert!(
        held >= 3_000 || since_opened > Duration::from_secs(HEADER_TIMEOUT_S),
        "the server held only {held} of 3980 stalled connections {since_opened:?} after they opened"
    );
    let wait = Duration::from_secs(HEADER_TIMEOUT_S + 10);
    let closings: Vec<_> = stalled
        .into_iter()
        .map(|tcp| tokio::spawn(until_closed(tcp, wait)))
        .collect();
    let mut kept = 0;
    for closing in closings {
        if closing.await.expect("a reader").is_none() {
            kept += 1;
        }
    }
    assert_eq!(kept, 0, "stalled connections still open {wait:?} later");
    let elapsed = opened.elapsed();
    assert!(
        elapsed >= Duration::from_secs(HEADER_TIMEOUT_S) - Duration::from_millis(500),
        "closed after {elapsed:?}, before the {HEADER_TIMEOUT_S} s timeout"
    );
    let (_, open) = trickle.await.expect("the trickle");
    assert_eq!(open, 0, "a connection sending a byte now and then was kept");
}

#[tokio::test]
async fn at_its_cap_under_the_descriptor_limit_the_server_refuses_politely_and_recovers() {
    let (_file, url) = support::db::fresh_sqlite_url();
    // 700 descriptors: a cap of 700 - 128 connections, so 800 stalled ones reach it; a header
    // timeout long enough that none of them times out before the cap is checked.
    let server = server(
        &url,
        2 * HEADER_TIMEOUT_S,
        1000,
        &["prlimit", "--nofile=700"],
    );
    let stalled = stalled_many(server.addr, 800, 8).await;
    let wait = Duration::from_secs(2 * HEADER_TIMEOUT_S + 10);
    // A new client at the cap is refused with a typed 503, not left hanging. It only listens: the
    // refusal is written at accept, before any request is read, so a client that is still writing
    // its request may see the connection reset instead (documented in the README).
    let newcomer = TcpStream::connect(server.addr).await.expect("connect");
    let answer = until_closed(newcomer, WAIT).await.expect("closed in time");
    assert_eq!(
        refusal_code(&answer),
        Some((503, "unavailable".to_owned())),
        "{answer}"
    );
    let mut refused = 0;
    let mut answered = 0;
    for tcp in stalled {
        let answer = until_closed(tcp, wait).await.expect("closed in time");
        if let Some((status, code)) = refusal_code(&answer) {
            assert_eq!((status, code.as_str()), (503, "unavailable"), "{answer}");
            refused += 1;
        } else if answer.is_empty() {
            answered += 1;
        }
    }
    assert!(
        refused >= 100,
        "only {refused} of 800 refused with a 503 ({answered} closed silently)"
    );
    // The stalled ones are gone: the server serves again.
    assert!(play_a_move(server.addr).await < Duration::from_secs(5));
}

#[tokio::test]
async fn connections_are_capped_per_client_address() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = server(&url, HEADER_TIMEOUT_S, 50, &[]);
    let stalled = stalled_many(server.addr, 80, 1).await;
    // Another address is not affected.
    assert!(play_a_move(server.addr).await < Duration::from_secs(5));
    let mut limited = 0;
    for tcp in stalled {
        let answer = until_closed(tcp, Duration::from_secs(HEADER_TIMEOUT_S + 10))
            .await
            .expect("closed in time");
        if let Some(refusal) = refusal_code(&answer) {
            assert_eq!(refusal, (429, "rate_limited".to_owned()), "{answer}");
            limited += 1;
        }
    }
    assert!(limited >= 20, "{limited} of 30 over the cap answered 429");
}

#[tokio::test]
async fn a_request_whose_body_never_comes_is_answered_408() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = Process::start_with(&url, &["--request-timeout-s", "2"], &[]);
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    tcp.write_all(
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"game\"",
    )
    .await
    .expect("write");
    let started = Instant::now();
    let answer = until_closed(tcp, Duration::from_secs(15))
        .await
        .expect("closed");
    assert_eq!(
        refusal_code(&answer),
        Some((408, "timeout".to_owned())),
        "{answer}"
    );
    assert!(started.elapsed() >= Duration::from_millis(1_500));
}
