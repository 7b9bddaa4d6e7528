//! Serving a client whose room another node owns: its WebSocket is relayed, frame for frame, to
//! the owner over a WebSocket of our own to the owner's `--advertise-url`, authenticated with the
//! cluster secret ([`super::PEER_SECRET_HEADER`]).
//!
//! The owner sees an ordinary connection of that client (its address comes in
//! [`super::PEER_CLIENT_HEADER`]), so every promise of one node holds unchanged: the owner alone
//! decides, acks only what is durable, sends the room's events in version order from its
//! fan-out (a reconnect with `last_v` is replayed from the log), and counts the seat's presence,
//! chat and budgets. This node adds no state: when the link breaks or the room moves, the client
//! is closed with 1012 and reconnects with its `last_v`, to whichever node then serves the room.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::ws::{self, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tracing::debug;
use uuid::Uuid;

use super::moves::MoveWatch;
use super::{Node, PEER_CLIENT_HEADER, PEER_SECRET_HEADER};
use crate::protocol::{self, Hello, close};
use crate::store::StoreError;
use crate::telemetry;

/// How long connecting to the owner and its first answer may take.
const LINK_TIMEOUT: Duration = Duration::from_secs(2);

/// The chunk a link reads its socket in.
const READ_BUFFER_BYTES: usize = 4096;

/// How often a relay pings the room's owner over its link.
pub const LINK_PING: Duration = Duration::from_secs(1);

/// How long the owner may be silent on a link (no frame, no pong) before the relay gives up on
/// it: its client is closed with 1012 and reconnects, to whichever node can serve it then.
pub const LINK_SILENCE: Duration = Duration::from_millis(2500);

/// A client's hello, linked to the room's owner, with the owner's first answer.
pub struct Link {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    watch: MoveWatch,
    first: String,
}

/// Why a link could not be made; every one of them may pass once the room has settled on an
/// owner (the caller retries until a deadline).
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// No node with a live lease owns the room: it may be claimed here.
    #[error("no live node owns the room")]
    NoOwner,
    /// The owner is this node (it claimed the room meanwhile).
    #[error("this node owns the room")]
    Mine,
    /// The owner did not answer in time, or its address does not work.
    #[error("the owner cannot be reached: {0}")]
    Unreachable(String),
    /// The owner closed the link before answering (it is restarting, or lost the room).
    #[error("the owner closed the link at once (close {0:?})")]
    Refused(Option<u16>),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The owner's WebSocket URL from its advertised base URL (`http://host:port[/prefix]`; links
/// between nodes are plain WebSockets, for a private network).
fn ws_url(base: &str) -> Result<String, LinkError> {
    let base = base.trim_end_matches('/');
    base.strip_prefix("http://")
        .map(|rest| format!("ws://{rest}/ws"))
        .ok_or_else(|| LinkError::Unreachable(format!("advertised URL {base:?} is not http://")))
}

/// Links `hello` of the client at `client` to the owner of `room_id`: connects (sending the
/// client's own session `cookie`, if it had one, so the owner checks it against the shared
/// database itself: no node vouches for a user), says the hello (with the room's id) and waits
/// for the owner's first frame. Errors: see [`LinkError`].
pub async fn open(
    node: &Node,
    room_id: Uuid,
    hello: &Hello,
    client: IpAddr,
    cookie: Option<&str>,
) -> Result<Link, LinkError> {
    // Watched before the owner is read, so a claim from then on (while reading, while
    // connecting) is not missed.
    let mut watch = node.moves.watch(room_id);
    let owner = node
        .store
        .owner_of(room_id)
        .await?
        .ok_or(LinkError::NoOwner)?;
    if owner.node == node.id {
        return Err(LinkError::Mine);
    }
    watch.link(owner.epoch);
    let unreachable = |e: &dyn std::fmt::Display| LinkError::Unreachable(e.to_string());
    let mut request = format!("{}?room={room_id}", ws_url(&owner.url)?)
        .into_client_request()
        .map_err(|e| unreachable(&e))?;
    let headers = request.headers_mut();
    headers.insert(
        PEER_SECRET_HEADER,
        HeaderValue::from_str(&node.secret).map_err(|e| unreachable(&e))?,
    );
    headers.insert(
        PEER_CLIENT_HEADER,
        HeaderValue::from_str(&client.to_string()).map_err(|e| unreachable(&e))?,
    );
    if let Some(cookie) = cookie {
        headers.insert(
            tungstenite::http::header::COOKIE,
            HeaderValue::from_str(cookie).map_err(|e| unreachable(&e))?,
        );
    }
    let hello = Hello {
        room: room_id.to_string(),
        ..hello.clone()
    };
    let linking = async {
        // As on the client side of every connection (api/ws.rs): small buffers, since a node
        // may relay thousands of clients and the frames are at most a few KiB.
        let config = WebSocketConfig::default()
            .read_buffer_size(READ_BUFFER_BYTES)
            .write_buffer_size(0);
        let (mut socket, _) =
            tokio_tungstenite::connect_async_with_config(request, Some(config), true)
                .await
                .map_err(|e| unreachable(&e))?;
        let text = protocol::frame("hello", None, &hello);
        socket
            .send(Message::text(text))
            .await
            .map_err(|e| unreachable(&e))?;
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(first))) => return Ok((socket, first.as_str().to_owned())),
                Some(Ok(Message::Close(frame))) => {
                    return Err(LinkError::Refused(frame.map(|f| u16::from(f.code))));
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(unreachable(&e)),
                None => return Err(LinkError::Refused(None)),
            }
        }
    };
    let (socket, first) = tokio::time::timeout(LINK_TIMEOUT, linking)
        .await
        .map_err(|_| LinkError::Unreachable(format!("no answer within {LINK_TIMEOUT:?}")))??;
    Ok(Link {
        socket,
        watch,
        first,
    })
}

/// Why a relay ended, and what the client is told.
fn client_close(code: u16, reason: &str) -> ws::Message {
    ws::Message::Close(Some(ws::CloseFrame {
        code,
        reason: reason.into(),
    }))
}

/// Relays `client` and `link` until either ends, the room moves, or this node shuts down;
/// pings the client every `heartbeat` and closes it (1001) after `silence_limit` without a word
/// from it, as a local connection is; pings the owner every [`LINK_PING`] and, after
/// [`LINK_SILENCE`] without a word from it (a frozen owner, a stalled path), closes the client
/// with 1012 saying so. A client closed here gets up to [`close::REPLY_WITHIN`] to answer
/// the close before its socket is dropped.
pub async fn pipe(
    client: WebSocket,
    link: Link,
    mut shutdown: watch::Receiver<bool>,
    heartbeat: Duration,
    silence_limit: Duration,
) {
    telemetry::relayed_connection();
    let Link {
        socket,
        mut watch,
        first,
    } = link;
    let (mut to_owner, mut from_owner) = socket.split();
    let (mut to_client, mut from_client) = client.split();
    if to_client
        .send(ws::Message::Text(first.into()))
        .await
        .is_err()
    {
        let _ = to_owner.send(Message::Close(None)).await;
        return;
    }
    let mut heard = Instant::now();
    let mut pings = tokio::time::interval_at(Instant::now() + heartbeat, heartbeat);
    let mut owner_heard = Instant::now();
    let mut link_pings = tokio::time::interval_at(Instant::now() + LINK_PING, LINK_PING);
    let (client_gets, owner_gets) = loop {
        tokio::select! {
            from = from_client.next() => {
                heard = Instant::now();
                let message = match from {
                    Some(Ok(ws::Message::Text(text))) => {
                        telemetry::forwarded_command("websocket");
                        Message::text(text.as_str())
                    }
                    Some(Ok(ws::Message::Binary(bytes))) => Message::binary(bytes),
                    Some(Ok(ws::Message::Close(frame))) => {
                        let frame = frame.map(|f| CloseFrame {
                            code: f.code.into(),
                            reason: f.reason.as_str().into(),
                        });
                        // Sends the closing handshake's answer the client waits for.
                        let _ = to_client.close().await;
                        break (None, Some(Message::Close(frame)));
                    }
                    Some(Ok(ws::Message::Ping(_) | ws::Message::Pong(_))) => continue,
                    // A violation of RFC 6455 closes with its own code, as at the owner.
                    Some(Err(e)) => match close::for_violation(&e) {
                        Some((code, reason)) => {
                            let owner = Message::Close(Some(CloseFrame { code: code.into(), reason: reason.into() }));
                            break (Some(client_close(code, reason)), Some(owner));
                        }
                        None => break (None, Some(Message::Close(None))),
                    },
                    None => break (None, Some(Message::Close(None))),
                };
                if to_owner.send(message).await.is_err() {
                    break (Some(client_close(close::RESTART, "the room's node went away; reconnect")), None);
                }
            }
            from = from_owner.next() => match from {
                Some(Ok(Message::Text(text))) => {
                    owner_heard = Instant::now();
                    if to_client.send(ws::Message::Text(text.as_str().into())).await.is_err() {
                        break (None, Some(Message::Close(None)));
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    let (code, reason) = frame.map_or((close::RESTART, String::new()), |f| {
                        (u16::from(f.code), f.reason.as_str().to_owned())
                    });
                    break (Some(client_close(code, &reason)), None);
                }
                Some(Ok(_)) => owner_heard = Instant::now(),
                Some(Err(e)) => {
                    debug!(error = %e, "the link to the room's owner broke");
                    break (Some(client_close(close::RESTART, "the room's node went away; reconnect")), None);
                }
                None => break (Some(client_close(close::RESTART, "the room's node went away; reconnect")), None),
            },
            () = watch.moved() => {
                debug!("the room moved to another node: the client reconnects there");
                break (Some(client_close(close::RESTART, "room moved; reconnect")), Some(Message::Close(None)));
            }
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    break (Some(client_close(close::RESTART, "server restarting")), Some(Message::Close(None)));
                }
            }
            _ = link_pings.tick() => {
                if owner_heard.elapsed() > LINK_SILENCE {
                    debug!("the room's owner is silent on the link");
                    break (Some(client_close(close::RESTART, "the room's node stopped answering; reconnect")), Some(Message::Close(None)));
                }
                // A stalled path blocks this send too: the silence check above ends it then.
                let sent = tokio::time::timeout(LINK_PING, to_owner.send(Message::Ping(Default::default()))).await;
                if !matches!(sent, Ok(Ok(()))) && owner_heard.elapsed() > LINK_SILENCE {
                    break (Some(client_close(close::RESTART, "the room's node stopped answering; reconnect")), None);
                }
            }
            _ = pings.tick() => {
                if heard.elapsed() >= silence_limit {
                    let silent = format!("silent for {} s", silence_limit.as_secs_f64());
                    break (Some(client_close(close::GOING_AWAY, &silent)), Some(Message::Close(None)));
                }
                if to_client.send(ws::Message::Ping(Default::default())).await.is_err() {
                    break (None, Some(Message::Close(None)));
                }
            }
        }
    };
    if let Some(message) = owner_gets {
        let _ = to_owner.send(message).await;
    }
    if let Some(message) = client_gets {
        let _ = to_client.send(message).await;
        // As a local connection does: the client's answering close, before its socket goes.
        close::await_reply(&mut from_client).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owners_websocket_url_follows_its_scheme_and_prefix() {
        assert_eq!(
            ws_url("http://10.0.0.5:8080").unwrap(),
            "ws://10.0.0.5:8080/ws"
        );
        assert_eq!(
            ws_url("http://node-a.internal/games/").unwrap(),
            "ws://node-a.internal/games/ws"
        );
        assert!(matches!(
            ws_url("https://node-a.internal"),
            Err(LinkError::Unreachable(_))
        ));
    }
}
