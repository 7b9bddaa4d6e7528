//! WebSocket protocol violations after the hello (RFC 6455 section 7.4.1) close the connection with
//! their own code, 1002 (protocol error) or 1007 (a text frame that is not UTF-8), not 1013,
//! which tells a client to reconnect and try again; the hello itself too, and through a relay
//! of another cluster node the same. The frames are written by hand on a raw
//! socket: a WebSocket library will not send them.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use support::server::{sqlite_server_with, two_player_room};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const WAIT: Duration = Duration::from_secs(20);
const TEXT: u8 = 0x1;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;

/// A WebSocket client that writes frames byte by byte.
struct Raw {
    tcp: TcpStream,
}

impl Raw {
    /// Opens `/ws` (the handshake by hand), saying nothing yet.
    async fn open(addr: SocketAddr) -> Raw {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        let request = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        tcp.write_all(request.as_bytes()).await.expect("write");
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0];
            tcp.read_exact(&mut byte).await.expect("handshake answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        Raw { tcp }
    }

    /// Opens `/ws` and says hello to `room` as a spectator.
    async fn hello(addr: SocketAddr, room: &str) -> Raw {
        let mut raw = Raw::open(addr).await;
        let hello = json!({"t": "hello", "d": {"protocol": 1, "room": room}}).to_string();
        raw.frame(0x80 | TEXT, hello.as_bytes()).await;
        let (opcode, payload) = raw.read_frame().await;
        assert_eq!(opcode, TEXT);
        let welcome: Value = serde_json::from_slice(&payload).expect("JSON");
        assert_eq!(welcome["t"], "welcome", "{welcome}");
        raw
    }

    /// Sends one frame: `first` is the FIN, RSV and opcode byte, the payload is masked as a
    /// client's must be.
    async fn frame(&mut self, first: u8, payload: &[u8]) {
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        let mut bytes = vec![first];
        match payload.len() {
            n @ 0..=125 => bytes.push(0x80 | n as u8),
            n => {
                bytes.push(0x80 | 126);
                bytes.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        bytes.extend_from_slice(&mask);
        bytes.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.tcp.write_all(&bytes).await.expect("write a frame");
    }

    /// Reads one server frame (unmasked): (opcode, payload).
    async fn read_frame(&mut self) -> (u8, Vec<u8>) {
        let mut head = [0u8; 2];
        self.tcp.read_exact(&mut head).await.expect("a frame");
        let len = match head[1] & 0x7f {
            126 => u64::from(self.tcp.read_u16().await.expect("length")),
            127 => self.tcp.read_u64().await.expect("length"),
            n => u64::from(n),
        };
        let mut payload = vec![0; usize::try_from(len).expect("length")];
        self.tcp.read_exact(&mut payload).await.expect("payload");
        (head[0] & 0x0f, payload)
    }

    /// The code of the server's close frame, skipping the frames before it.
    async fn close_code(&mut self) -> u16 {
        tokio::time::timeout(WAIT, async {
            loop {
                let (opcode, payload) = self.read_frame().await;
                if opcode == CLOSE {
                    return u16::from_be_bytes([payload[0], payload[1]]);
                }
            }
        })
        .await
        .expect("a close frame in time")
    }
}

/// Each violation after the hello: what it is, its first byte and payload, and its close code.
fn violations() -> [(&'static str, u8, Vec<u8>, u16); 5] {
    [
        (
            "a text frame that is not UTF-8",
            0x80 | TEXT,
            vec![0xff, 0xfe, b'{'],
            1007,
        ),
        ("a reserved data opcode", 0x80 | 0x3, b"{}".to_vec(), 1002),
        ("a reserved control opcode", 0x80 | 0xb, Vec::new(), 1002),
        ("a ping over 125 bytes", 0x80 | PING, vec![b'p'; 126], 1002),
        (
            "a reserved bit set",
            0x80 | 0x40 | TEXT,
            b"{}".to_vec(),
            1002,
        ),
    ]
}

#[tokio::test]
async fn protocol_violations_after_hello_close_with_their_rfc_6455_code() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let (_, code, _, _) = two_player_room(server.addr, json!({})).await;
    for (what, first, payload, expected) in violations() {
        let mut raw = Raw::hello(server.addr, &code).await;
        raw.frame(first, &payload).await;
        assert_eq!(raw.close_code().await, expected, "{what}");
    }
    server.shutdown().await;
}

/// Issue 24: a hello that is not UTF-8 closed with 4000 (bad hello) where RFC 6455 says 1007.
#[tokio::test]
async fn a_hello_that_is_not_utf8_closes_with_1007() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let mut raw = Raw::open(server.addr).await;
    raw.frame(0x80 | TEXT, &[0xff, 0xfe, b'{']).await;
    assert_eq!(raw.close_code().await, 1007);
    server.shutdown().await;
}

/// Issue 24: through a relay (a client of a node that does not own the room) each violation
/// closes with the code it gets at the owner; the relay closed them all without a close frame.
#[tokio::test]
async fn protocol_violations_through_a_relay_close_with_the_same_codes() {
    let db = support::db::fresh_postgres().await;
    let lease = support::cluster::SHORT_LEASE;
    let node = || {
        let bind = SocketAddr::from(([127, 0, 0, 1], support::server::free_port()));
        let args = support::cluster::node_args(bind, &format!("http://{bind}"), lease);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::server::Process::start_with(&db.url, &args, &[])
    };
    let (owner, relay) = (node(), node());
    let (_, code, _, _) = two_player_room(owner.addr, json!({})).await;
    for (what, first, payload, expected) in violations() {
        let mut raw = Raw::hello(relay.addr, &code).await;
        raw.frame(first, &payload).await;
        assert_eq!(raw.close_code().await, expected, "{what}, relayed");
    }
    let (_, metrics) = support::server::get_text(relay.addr, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "khanate_relayed_connections_total 5"),
        "every one was relayed: {metrics}"
    );
}
