//! A whole game of Ouk Chatrang over the protocol, as a worked example: two players and a spectator
//! against a running server, every frame printed.
//!
//! ```text
//! cargo run --release                      # terminal 1: the server
//! cargo run --example play                 # terminal 2: this example
//! cargo run --example play -- http://host:port
//! ```
//!
//! White creates a room over REST, Black joins by invite code, both say hello over WebSockets, they
//! play a short opening, White offers a draw and Black accepts. Then the finished game is fetched
//! as JSON and PGN.

use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One player's (or the spectator's) socket and name.
struct Seat {
    name: &'static str,
    ws: Socket,
}

impl Seat {
    async fn hello(
        ws_url: &str,
        name: &'static str,
        room: &str,
        token: Option<&str>,
    ) -> anyhow::Result<Seat> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url)
            .await
            .context("WebSocket connect")?;
        let mut seat = Seat { name, ws };
        let mut d = json!({"protocol": 1, "room": room});
        if let Some(token) = token {
            d["token"] = json!(token);
        }
        seat.send(json!({"t": "hello", "d": d})).await?;
        Ok(seat)
    }

    async fn send(&mut self, frame: Value) -> anyhow::Result<()> {
        println!("{:>9} -> {frame}", self.name);
        self.ws
            .send(Message::Text(frame.to_string().into()))
            .await?;
        Ok(())
    }

    /// Prints frames until one of type `t` arrives, and returns it.
    async fn until(&mut self, t: &str) -> anyhow::Result<Value> {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), self.ws.next())
                .await
                .context("waiting for the server")?;
            match message {
                Some(Ok(Message::Text(text))) => {
                    let frame: Value = serde_json::from_str(&text)?;
                    let mut shown = frame.clone();
                    if let Some(moves) = shown["d"]["legal_moves"].as_array().map(Vec::len) {
                        shown["d"]["legal_moves"] = json!(format!("[{moves} moves]"));
                    }
                    println!("{:>9} <- {shown}", self.name);
                    if frame["t"] == t {
                        return Ok(frame);
                    }
                }
                Some(Ok(_)) => continue,
                other => bail!("socket ended: {other:?}"),
            }
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080".to_owned());
    if !base.starts_with("http://") {
        println!(
            "usage: cargo run --example play [-- http://HOST:PORT]  (default http://127.0.0.1:8080)"
        );
        return Ok(());
    }
    let ws_url = format!("{}/ws", base.replacen("http", "ws", 1));
    let http = reqwest::Client::new();

    let created: Value = http
        .post(format!("{base}/api/rooms"))
        .json(&json!({"game": "ouk-chatrang", "seat": "white", "name": "Dara"}))
        .send()
        .await
        .context("is the server running? start it with `cargo run --release`")?
        .json()
        .await?;
    println!("POST /api/rooms -> {created}");
    let code = created["invite_code"]
        .as_str()
        .with_context(|| format!("the server created no room: {}", created["error"]))?;
    let joined: Value = http
        .post(format!("{base}/api/rooms/{code}/join"))
        .json(&json!({"name": "Sok"}))
        .send()
        .await?
        .json()
        .await?;
    println!("POST /api/rooms/{code}/join -> {joined}");
    let room_id = created["room_id"].as_str().context("room id")?.to_owned();

    let mut white = Seat::hello(&ws_url, "white", code, created["seat_token"].as_str()).await?;
    let mut black = Seat::hello(&ws_url, "black", code, joined["seat_token"].as_str()).await?;
    let mut spectator = Seat::hello(&ws_url, "spectator", &room_id, None).await?;
    let mut v = white.until("snapshot").await?["v"]
        .as_i64()
        .context("version")?;
    black.until("snapshot").await?;
    spectator.until("snapshot").await?;

    let opening = ["e3e4", "d6d5", "e4d5", "e8c7", "d1b2", "b8d7"];
    for (i, mv) in opening.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        mover.send(json!({"t": "move", "cid": format!("{}-{i}", mover.name), "d": {"move": mv, "v": v}})).await?;
        v = mover.until("ack").await?["d"]["v"]
            .as_i64()
            .context("acked version")?;
        other.until("moved").await?;
        spectator.until("moved").await?;
    }

    white
        .send(json!({"t": "offer_draw", "cid": "white-draw", "d": {}}))
        .await?;
    white.until("ack").await?;
    let offer = black.until("offer").await?;
    black
        .send(json!({"t": "accept", "cid": "black-accept", "d": {"offer": offer["d"]["id"]}}))
        .await?;
    black.until("ack").await?;
    white.until("game_over").await?;
    spectator.until("game_over").await?;

    let record: Value = http
        .get(format!("{base}/api/games/{room_id}"))
        .send()
        .await?
        .json()
        .await?;
    println!("GET /api/games/{room_id} -> {record}");
    let pgn = http
        .get(format!("{base}/api/games/{room_id}/pgn"))
        .send()
        .await?
        .text()
        .await?;
    println!("GET /api/games/{room_id}/pgn ->\n{pgn}");
    Ok(())
}
