//! WebSocket connections of the tool's clients: opened with small buffers (so ten thousand of
//! them fit), each read by its own task that hands frames to the client driving it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use futures_util::SinkExt;
use futures_util::stream::{SplitSink, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::stats::Recorder;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The sending half of a connection.
pub struct Sender(SplitSink<Socket, Message>);

impl Sender {
    pub async fn send(&mut self, frame: &Value) -> bool {
        self.0
            .send(Message::Text(frame.to_string().into()))
            .await
            .is_ok()
    }

    pub async fn close(mut self) {
        let _ = self.0.close().await;
    }
}

/// The close code that asks a client to reconnect with `last_v` (the room moved to another node,
/// or the server restarts).
const RESTART: u16 = 1012;

/// The `t` of the frame a connection's reading task hands on, in place of a server's frame, when
/// the server closed it with 1012: its client reconnects.
pub const CLOSED_RESTART: &str = "closed_1012";

/// The `t` of the frame a connection's reading task hands on last when the connection ended any
/// other way (the error, if any, is already counted).
pub const CLOSED: &str = "closed";

/// A frame read from connection number `from`, parsed, and when it arrived.
pub struct Incoming {
    pub from: usize,
    pub frame: Value,
    pub at: Instant,
}

/// Opens `ws://addr/ws`, with `?room=ROOM` when the connection is for a room, so that a proxy
/// hashing by room (`docs/deploy/nginx-cluster.conf`) sends a room's connections to one node.
/// Buffers are 4 KiB (tungstenite's default is 128 KiB each way), as the tool's frames are small.
pub async fn open(addr: SocketAddr, room: Option<&str>, recorder: &Recorder) -> Option<Socket> {
    let config = WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0);
    // Nagle off, as on the server: small frames must not wait for the peer's delayed ACKs.
    match tokio_tungstenite::connect_async_with_config(
        match room {
            Some(room) => format!("ws://{addr}/ws?room={room}"),
            None => format!("ws://{addr}/ws"),
        },
        Some(config),
        true,
    )
    .await
    {
        Ok((socket, _)) => Some(socket),
        Err(e) => {
            recorder.error(format!("connect: {}", short(&e.to_string())));
            None
        }
    }
}

/// Splits `socket`: frames it receives go to `to` as [`Incoming`] from connection `from` (the
/// reading task also answers the server's pings), and the sending half comes back.
pub fn split(
    socket: Socket,
    from: usize,
    to: mpsc::UnboundedSender<Incoming>,
    recorder: Arc<Recorder>,
) -> Sender {
    let (sink, mut stream) = socket.split();
    recorder.connection(true);
    tokio::spawn(async move {
        while let Some(message) = stream.next().await {
            match message {
                Ok(Message::Text(text)) => {
                    let at = Instant::now();
                    match serde_json::from_str(&text) {
                        Ok(frame) => {
                            if to.send(Incoming { from, frame, at }).is_err() {
                                break;
                            }
                        }
                        Err(_) => recorder.error("a frame that is not JSON"),
                    }
                }
                Ok(Message::Close(frame)) => {
                    match frame.map(|f| u16::from(f.code)) {
                        // Reconnect with `last_v` (docs/protocol.md): the client driving this
                        // connection is told, and opens another.
                        Some(RESTART) => {
                            let frame = serde_json::json!({"t": CLOSED_RESTART});
                            let _ = to.send(Incoming {
                                from,
                                frame,
                                at: Instant::now(),
                            });
                            recorder.connection(false);
                            return;
                        }
                        Some(code) if code != 1000 => {
                            recorder.error(format!("closed by the server with {code}"));
                        }
                        _ => {}
                    }
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    recorder.error(format!("read: {}", short(&e.to_string())));
                    break;
                }
            }
        }
        let frame = serde_json::json!({"t": CLOSED});
        let _ = to.send(Incoming {
            from,
            frame,
            at: Instant::now(),
        });
        recorder.connection(false);
    });
    Sender(sink)
}

/// The start of an error message, so that counts group alike errors.
pub fn short(error: &str) -> String {
    error.chars().take(80).collect()
}
