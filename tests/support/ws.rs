//! A protocol client for tests: a real WebSocket (tokio-tungstenite) speaking PROTOCOL.md.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for a frame before failing.
const WAIT: Duration = Duration::from_secs(20);

pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Frames read but not yet asked for (kept by `next_of`).
    pending: Vec<Value>,
}

/// What arrived instead of a text frame.
#[derive(Debug, PartialEq)]
pub enum End {
    Closed(Option<u16>),
}

impl Client {
    /// Opens `/ws` without saying hello.
    pub async fn open(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("ws connects");
        Client {
            ws,
            pending: Vec::new(),
        }
    }

    /// Opens `/ws` with these upgrade headers (a session `Cookie`, an `Origin`), without saying
    /// hello.
    pub async fn open_with(addr: SocketAddr, headers: &[(&str, &str)]) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
        for (name, value) in headers {
            let name: tokio_tungstenite::tungstenite::http::HeaderName = name.parse().unwrap();
            request.headers_mut().insert(name, value.parse().unwrap());
        }
        let (ws, _) = tokio_tungstenite::connect_async(request)
            .await
            .expect("ws connects");
        Client {
            ws,
            pending: Vec::new(),
        }
    }

    /// Opens the WebSocket at `url` (`ws://HOST:PORT/ws/site`) with these upgrade headers; or
    /// why the handshake failed (the HTTP status of a refusal among it).
    pub async fn connect_with(url: &str, headers: &[(&str, &str)]) -> Result<Client, String> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = url.into_client_request().map_err(|e| e.to_string())?;
        for (name, value) in headers {
            let name: tokio_tungstenite::tungstenite::http::HeaderName = name.parse().unwrap();
            request.headers_mut().insert(name, value.parse().unwrap());
        }
        let (ws, _) = tokio_tungstenite::connect_async(request)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        Ok(Client {
            ws,
            pending: Vec::new(),
        })
    }

    /// Opens the WebSocket at `url` (`ws://HOST:PORT/ws?room=ID` through a proxy), without saying
    /// hello; or why the handshake failed (connection refused, an HTTP error from a proxy).
    pub async fn connect(url: &str) -> Result<Client, String> {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        Ok(Client {
            ws,
            pending: Vec::new(),
        })
    }

    /// Opens `/ws` and says hello; returns the client and the welcome.
    pub async fn hello(
        addr: SocketAddr,
        room: &str,
        token: Option<&str>,
        last_v: Option<i64>,
    ) -> (Client, Value) {
        let mut client = Client::open(addr).await;
        let mut d = json!({"protocol": 1, "room": room});
        if let Some(token) = token {
            d["token"] = json!(token);
        }
        if let Some(last_v) = last_v {
            d["last_v"] = json!(last_v);
        }
        client.send(&json!({"t": "hello", "d": d})).await;
        let welcome = client.recv().await;
        assert_eq!(welcome["t"], "welcome", "{welcome}");
        (client, welcome)
    }

    pub async fn send(&mut self, frame: &Value) {
        self.send_text(&frame.to_string()).await;
    }

    /// Sends `frame`; whether it was written (not when the connection already broke).
    pub async fn try_send(&mut self, frame: &Value) -> bool {
        self.ws
            .send(Message::Text(frame.to_string().into()))
            .await
            .is_ok()
    }

    pub async fn send_text(&mut self, text: &str) {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
    }

    /// Sends a move command.
    pub async fn send_move(&mut self, cid: &str, mv: &str, v: i64) {
        self.send(&json!({"t": "move", "cid": cid, "d": {"move": mv, "v": v}}))
            .await;
    }

    /// Sends any command with empty or given data.
    pub async fn command(&mut self, t: &str, cid: &str, d: Value) {
        self.send(&json!({"t": t, "cid": cid, "d": d})).await;
    }

    /// The next text frame as JSON, or what ended the stream; `lag` frames are skipped (see
    /// [`is_lag`]).
    pub async fn next(&mut self) -> Result<Value, End> {
        if !self.pending.is_empty() {
            return Ok(self.pending.remove(0));
        }
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within the wait");
            match message {
                Some(Ok(Message::Text(text))) => {
                    let frame: Value = serde_json::from_str(&text).expect("server frames are JSON");
                    if is_lag(&frame) {
                        continue;
                    }
                    return Ok(frame);
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(End::Closed(frame.map(|f: CloseFrame| f.code.into())));
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Err(End::Closed(None)),
            }
        }
    }

    /// The next text frame as JSON, what ended the stream, or `None` when nothing came within
    /// `wait` (frames kept by `next_of` come first).
    pub async fn next_within(&mut self, wait: Duration) -> Option<Result<Value, End>> {
        if !self.pending.is_empty() {
            return Some(Ok(self.pending.remove(0)));
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let message = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .ok()?;
            return Some(match message {
                Some(Ok(Message::Text(text))) => {
                    let frame: Value = serde_json::from_str(&text).expect("server frames are JSON");
                    if is_lag(&frame) {
                        continue;
                    }
                    Ok(frame)
                }
                Some(Ok(Message::Close(frame))) => {
                    Err(End::Closed(frame.map(|f: CloseFrame| f.code.into())))
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => Err(End::Closed(None)),
            });
        }
    }

    /// The next text frame; panics if the socket closed.
    pub async fn recv(&mut self) -> Value {
        self.next().await.expect("a text frame")
    }

    /// The next frame of type `t`, keeping the others (e.g. presence) for later reads.
    pub async fn next_of(&mut self, t: &str) -> Value {
        if let Some(i) = self.pending.iter().position(|f| f["t"] == t) {
            return self.pending.remove(i);
        }
        loop {
            let frame = self.next_raw().await;
            if frame["t"] == t {
                return frame;
            }
            if !is_lag(&frame) {
                self.pending.push(frame);
            }
        }
    }

    /// The `ack` or `reject` answering `cid`; other frames are kept for later reads.
    pub async fn answer(&mut self, cid: &str) -> Value {
        let is_answer = |f: &Value| (f["t"] == "ack" || f["t"] == "reject") && f["d"]["cid"] == cid;
        if let Some(i) = self.pending.iter().position(is_answer) {
            return self.pending.remove(i);
        }
        loop {
            let frame = self.next_raw().await;
            if is_answer(&frame) {
                return frame;
            }
            if !is_lag(&frame) {
                self.pending.push(frame);
            }
        }
    }

    /// The event of type `t` at version `v`; older events of that type still waiting are dropped,
    /// other frames are kept for later reads.
    pub async fn event(&mut self, t: &str, v: i64) -> Value {
        self.pending
            .retain(|f| !(f["t"] == t && f["v"].as_i64().is_some_and(|fv| fv < v)));
        loop {
            let frame = self.next_of(t).await;
            if frame["v"] == v {
                return frame;
            }
            assert!(
                frame["v"].as_i64().is_some_and(|fv| fv < v),
                "expected {t} v{v}, got {frame}"
            );
        }
    }

    async fn next_raw(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within the wait");
            match message {
                Some(Ok(Message::Text(text))) => return serde_json::from_str(&text).expect("JSON"),
                Some(Ok(Message::Close(frame))) => panic!("socket closed: {frame:?}"),
                Some(Ok(_)) => continue,
                other => panic!("socket ended: {other:?}"),
            }
        }
    }

    /// Drops every frame already read but not asked for, and any presence frames.
    pub fn clear_pending(&mut self) {
        self.pending.clear();
    }

    /// Reads until the socket closes and returns the close code.
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            match self.next().await {
                Ok(_) => continue,
                Err(End::Closed(code)) => return code,
            }
        }
    }

    /// Sends a close frame with `code` and keeps the socket, to read the server's answer.
    pub async fn send_close(&mut self, code: u16) {
        let frame = CloseFrame {
            code: code.into(),
            reason: "".into(),
        };
        self.ws
            .send(Message::Close(Some(frame)))
            .await
            .expect("close sent");
    }

    /// Sends a close and drops the socket.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// Says hello on `addr`: the client and its welcome, or the close code when the node refuses.
pub async fn try_hello(
    addr: std::net::SocketAddr,
    room: &str,
    token: &str,
    last_v: i64,
) -> Result<(Client, serde_json::Value), Option<u16>> {
    let mut client = Client::open(addr).await;
    let d = json!({"protocol": 1, "room": room, "token": token, "last_v": last_v});
    client.send(&json!({"t": "hello", "d": d})).await;
    match client.next().await {
        Ok(welcome) if welcome["t"] == "welcome" => Ok((client, welcome)),
        Ok(other) => panic!("unexpected first frame {other}"),
        Err(End::Closed(code)) => Err(code),
    }
}

/// Whether `frame` is a `lag` (a seat's round trip): sent whenever an estimate moves, and to each
/// new connection after its snapshot, so it can come between any two frames. The plain reads
/// ([`Client::next`], [`Client::next_within`], [`Client::recv`]) skip it; a test that wants it
/// asks for it ([`Client::next_of`]).
fn is_lag(frame: &Value) -> bool {
    frame["t"] == "lag"
}

/// The output of `waiting` (a read such as `next_of`, which other frames such as `lag` keep
/// alive), or a panic once [`WAIT`] has passed without it.
pub async fn within<T>(waiting: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, waiting)
        .await
        .expect("the awaited frame within the wait")
}
