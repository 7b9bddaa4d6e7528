//! The WebSocket half of the protocol: `GET /ws`.
//!
//! A connection is two tasks, as in axum's chat example: this one reads frames and forwards commands
//! to the room, and a writer drains the connection's bounded outbound queue into the socket. The
//! room holds the only strong sender of that queue; when it drops the connection (too slow, or the
//! room stopped) the queue closes and the writer closes the socket with 1013 so the client resyncs.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::response::Response;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, watch};
use tracing::{Instrument, debug, info_span};
use uuid::Uuid;

use super::limits::Sender;
use super::lookup::{self, Lookup};
use super::{ApiError, AppState, Limiters, names, proxy};
use crate::accounts::tokens::Scope;
use crate::cluster::route::{Attempt, RouteError, Routed, route};
use crate::cluster::{Node, relay};
use crate::protocol::{
    self, BadFrame, Code, Command, ErrorInfo, Hello, Incoming, MAX_CLIENT_FRAME_BYTES,
    PROTOCOL_VERSION, Reject, close,
};
use crate::room::state::LagEstimate;
use crate::room::{ConnectError, OUTBOUND_CAPACITY, Outbound, RoomHandle};
use crate::store::StoreError;
use crate::telemetry;

/// How long a new socket may take to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The chunk a connection reads its socket in (larger frames still arrive whole).
const READ_BUFFER_BYTES: usize = 4096;

/// How many bad frames a connection may send before it is closed with 1008.
const MAX_BAD_FRAMES: u32 = 10;

/// `GET /ws`: upgrades, refusing client frames over 8 KiB. Refused with 400 `bad_request` when
/// the request is not a WebSocket upgrade, 403 when the `Origin`
/// is not allowed (cross-site WebSocket hijacking), and 429 when the client's address holds its
/// maximum of open WebSockets.
pub async fn upgrade(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let ws = match ws {
        Ok(ws) => ws,
        Err(e) => return ApiError::bad_request(e.body_text()).into_response(),
    };
    // Another node relaying its client checked that client's Origin itself.
    let relayed = state.from_peer(&headers);
    // The node relaying it, named only by a peer (its secret checked).
    let via = state
        .node
        .as_ref()
        .and_then(|node| node.relaying_node(&headers));
    if !relayed && !proxy::origin_allowed(&state.config, peer.ip(), &headers) {
        let message = "WebSockets from this origin are not allowed (--allowed-origins)";
        return ApiError::new(StatusCode::FORBIDDEN, "forbidden_origin", message).into_response();
    }
    let client = state.client_ip(peer.ip(), &headers);
    let session = state.accounts.cookie().token_in(&headers);
    let Some(slot) = state.limiters.open_socket(client) else {
        return ApiError::too_many_sockets(state.config.limits.connections_per_ip).into_response();
    };
    ws.max_message_size(MAX_CLIENT_FRAME_BYTES)
        .max_frame_size(MAX_CLIENT_FRAME_BYTES)
        // tungstenite reads in 128 KiB chunks and buffers 128 KiB of writes by default: at ten
        // thousand sockets that is most of the server's memory. Client frames are at most
        // 8 KiB, and every frame is flushed as it is sent.
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(0)
        .on_upgrade(move |socket| {
            let span = info_span!("connection", client = %client, room_id = tracing::field::Empty);
            async move {
                let _slot = slot;
                telemetry::connection(1.0);
                let peer = if relayed { 1.0 } else { 0.0 };
                telemetry::peer_socket(peer);
                connection(state, socket, (client, relayed, via), session).await;
                telemetry::peer_socket(-peer);
                telemetry::connection(-1.0);
            }
            .instrument(span)
        })
}

async fn close_with(socket: &mut WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from(reason),
    };
    // The peer may be gone already; there is nobody left to tell.
    let _ = socket.send(Message::Close(Some(frame))).await;
}

async fn hello_error(mut socket: WebSocket, code: Code, close_code: u16, message: String) {
    debug!(code = code.as_str(), %message, "hello refused");
    let text = protocol::frame(
        "error",
        None,
        &ErrorInfo {
            code,
            message: message.clone(),
        },
    );
    let _ = socket.send(Message::Text(text.into())).await;
    close_with(&mut socket, close_code, code.as_str()).await;
}

/// Waits for the first frame and reads it as a hello.
async fn read_hello(socket: &mut WebSocket) -> Result<Hello, (Code, u16, String)> {
    let bad = |message: String| (Code::BadHello, close::BAD_HELLO, message);
    let deadline = tokio::time::Instant::now() + HELLO_TIMEOUT;
    let first = loop {
        match tokio::time::timeout_at(deadline, socket.recv()).await {
            Err(_) => return Err(bad("no hello within 10 s".into())),
            Ok(None) => return Err(bad("closed before hello".into())),
            // A violation of RFC 6455 in the hello closes with its own code, as after it.
            Ok(Some(Err(e))) => {
                return Err(match close::for_violation(&e) {
                    Some((code, reason)) => (Code::BadHello, code, reason.into()),
                    None => bad(format!("read error: {e}")),
                });
            }
            // Control frames may come first; tungstenite answers pings by itself.
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            Ok(Some(Ok(message))) => break message,
        }
    };
    let Message::Text(text) = first else {
        return Err(bad("the first frame must be a hello text frame".into()));
    };
    match protocol::parse_incoming(&text) {
        Ok(Incoming::Hello(mut hello)) if hello.protocol == PROTOCOL_VERSION => {
            hello.name = names::clean_name(hello.name).map_err(|e| bad(e.to_string()))?;
            Ok(hello)
        }
        Ok(Incoming::Hello(hello)) => Err(bad(format!(
            "protocol {} is not spoken here; this server speaks {PROTOCOL_VERSION}",
            hello.protocol
        ))),
        Ok(_) => Err(bad("the first frame must be a hello".into())),
        Err(BadFrame { message, .. }) => Err(bad(message)),
    }
}

/// One WebSocket, from its hello to its close. The futures of the hello phase (reading it,
/// loading the room from the database, joining it) are boxed: kept inline they would make every
/// connection's task as large as the largest of them for its whole life (about 12 KiB each).
/// `relayed`: another node of the cluster relays this client (it is never relayed again);
/// `via`: that node's id, when it named itself.
async fn connection(
    state: AppState,
    mut socket: WebSocket,
    (client, relayed, via): (IpAddr, bool, Option<Uuid>),
    session: Option<String>,
) {
    let _open = state.connection_open.clone();
    let hello = match Box::pin(read_hello(&mut socket)).await {
        Ok(hello) => hello,
        Err((code, close_code, message)) => {
            return hello_error(socket, code, close_code, message).await;
        }
    };
    let user = match account_of(&state, &hello, session.as_deref()).await {
        Ok(user) => user,
        Err(message) => {
            return hello_error(socket, Code::BadToken, close::BAD_TOKEN, message).await;
        }
    };
    if user.is_none()
        && let Some(name) = &hello.name
        && state
            .store
            .user_by_name(name)
            .await
            .ok()
            .flatten()
            .is_some()
    {
        let message = format!("{name:?} is an account's username; log in to chat under it");
        return hello_error(socket, Code::BadHello, close::BAD_HELLO, message).await;
    }
    let found = match Box::pin(lookup::find_room(&state, client, &hello.room)).await {
        Ok(Lookup::Found(room)) => Ok(room),
        Ok(Lookup::Missing) => {
            let message = format!("no room {:?}", hello.room);
            return hello_error(socket, Code::UnknownRoom, close::UNKNOWN_ROOM, message).await;
        }
        Ok(Lookup::Limited(retry)) => {
            let message = lookup::limited_message(retry);
            return hello_error(socket, Code::RateLimited, close::CROWDED, message).await;
        }
        Err(e) => Err(e),
    };
    let found = match (found, &state.node) {
        (Err(StoreError::OwnedElsewhere { room_id }), Some(node)) if !relayed => {
            let cookie = session.map(|token| format!("{}={token}", state.accounts.cookie().name()));
            let routed = Box::pin(served_elsewhere(
                &state,
                node,
                &mut socket,
                room_id,
                &hello,
                (client, cookie.as_deref()),
            ));
            match routed.await {
                Ok(served) => Ok(served),
                Err(RouteError::Store(e)) => Err(e),
                Err(RouteError::Moving | RouteError::Unknown(_)) => {
                    Err(StoreError::OwnedElsewhere { room_id })
                }
                Err(RouteError::Gone) => {
                    let message = format!("no room {:?}", hello.room);
                    return hello_error(socket, Code::UnknownRoom, close::UNKNOWN_ROOM, message)
                        .await;
                }
                Err(RouteError::Stopped) => {
                    return close_with(&mut socket, close::RESTART, "server restarting").await;
                }
            }
        }
        (found, _) => found.map(Served::Here),
    };
    let room = match found {
        Ok(Served::Here(room)) => room,
        Ok(Served::Owner(link)) => {
            let beats = Beats::of(&state.config);
            let (shutdown, silence) = (state.shutdown.clone(), beats.silence_limit);
            return relay::pipe(socket, *link, shutdown, beats.heartbeat, silence).await;
        }
        Err(StoreError::Corrupt(e)) => {
            tracing::error!(error = %e, "a room's stored rows cannot be read");
            let message = "this room's stored data cannot be read".to_owned();
            return hello_error(socket, Code::Unavailable, close::INTERNAL, message).await;
        }
        Err(StoreError::OwnedElsewhere { .. }) => {
            tracing::debug!("no node could serve the room in time");
            let reason = "no node can serve the room yet (it is moving, or its node cannot be reached); reconnect";
            return close_with(&mut socket, close::TRY_AGAIN, reason).await;
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not load a room for a hello");
            return close_with(&mut socket, close::TRY_AGAIN, "database unavailable").await;
        }
    };
    let (out_tx, out_rx) = mpsc::channel(OUTBOUND_CAPACITY);
    let own = out_tx.downgrade();
    let connected =
        match Box::pin(room.connect_via(hello.token, user, hello.last_v, hello.name, out_tx, via))
            .await
        {
            Ok(connected) => connected,
            Err(ConnectError::BadToken) => {
                let message = "this seat token does not belong to this room".to_owned();
                return hello_error(socket, Code::BadToken, close::BAD_TOKEN, message).await;
            }
            Err(ConnectError::Gone) => {
                return close_with(&mut socket, close::TRY_AGAIN, "room reloading").await;
            }
            Err(ConnectError::Crowded(max)) => {
                let message = format!("this room holds at most {max} connections");
                return hello_error(socket, Code::RoomCrowded, close::CROWDED, message).await;
            }
        };
    tracing::Span::current().record("room_id", tracing::field::display(room.id));
    debug!(room_id = %room.id, seat = ?connected.seat, "hello accepted");

    let (sink, mut stream) = socket.split();
    let heard = Heard::new();
    let mut writer = tokio::spawn(write_frames(
        sink,
        out_rx,
        state.shutdown.clone(),
        Beats::of(&state.config),
        heard.clone(),
    ));
    let sender = match connected.seat {
        Some(seat) => Sender::Seat(room.id, seat),
        None => Sender::Spectator(client),
    };
    let budget = Budget {
        limiters: &state.limiters,
        sender,
    };
    let server_closed = {
        let mut reader = std::pin::pin!(read_frames(
            &mut stream,
            &room,
            connected.conn,
            own,
            budget,
            &heard
        ));
        tokio::select! {
            _ = &mut writer => true,
            // The client is gone or misbehaved; the writer ends once the room forgets us.
            () = &mut reader => false,
        }
    };
    room.disconnect(connected.conn).await;
    if !server_closed && !writer.is_finished() {
        // The room has dropped our queue; the writer drains it, sends its close and ends.
        let _ = tokio::time::timeout(Duration::from_secs(5), &mut writer).await;
        writer.abort();
    }
    // Also when the reader ended first: a command for a room that stopped ends it while the
    // room's close frame is still on its way out.
    close::await_reply(&mut stream).await;
}

/// The account a hello comes from: its `api_token`'s (which must have the scope `play`), else
/// the upgrade's session cookie's, else none. A token that is not valid refuses the hello (the
/// message says why); a stale cookie counts as none.
async fn account_of(
    state: &AppState,
    hello: &Hello,
    session: Option<&str>,
) -> Result<Option<Uuid>, String> {
    let unavailable = |e: StoreError| {
        tracing::warn!(error = %e, "could not check a hello's account");
        "the database is unavailable; try again".to_owned()
    };
    if let Some(token) = &hello.api_token {
        let found = state.accounts.api_token(token).await.map_err(unavailable)?;
        let Some((row, user)) = found else {
            return Err("this API token is not valid".to_owned());
        };
        if !row.scopes.iter().any(|s| s == Scope::Play.as_str()) {
            return Err("this API token lacks the scope play".to_owned());
        }
        return Ok(Some(user.id));
    }
    let Some(session) = session else {
        return Ok(None);
    };
    let found = state.accounts.session(session).await.map_err(unavailable)?;
    Ok(found.map(|(_, user)| user.id))
}

/// Where a hello is served.
enum Served {
    /// By this node's room task.
    Here(RoomHandle),
    /// By the owner, over this link (boxed: a WebSocket is large).
    Owner(Box<relay::Link>),
}

/// The room `room_id`, owned by another node when it was looked up: a link to its owner, or the
/// room itself once this node has claimed it (its owner died and its lease ran out), by the
/// cluster's one routing policy ([`route`]). The link carries the client's own session `cookie`
/// (`name=token`), if it had one, for the owner to check. Ends early when the client closes its
/// socket or this node shuts down.
async fn served_elsewhere(
    state: &AppState,
    node: &Node,
    socket: &mut WebSocket,
    room_id: Uuid,
    hello: &Hello,
    (client, cookie): (IpAddr, Option<&str>),
) -> Result<Served, RouteError> {
    let attempt = || async {
        match relay::open(node, room_id, hello, client, cookie).await {
            Ok(link) => Ok(Box::new(link)),
            Err(relay::LinkError::Store(e)) => Err(Attempt::Store(e)),
            Err(e) => Err(Attempt::Retry(e.to_string())),
        }
    };
    let id = room_id.to_string();
    let here = || state.registry.find(&id);
    let routed = route(
        node.lease_ttl(),
        state.shutdown.clone(),
        client_left(socket),
        attempt,
        here,
    )
    .await?;
    Ok(match routed {
        Routed::Owner(link) => Served::Owner(link),
        Routed::Here(room) => Served::Here(room),
    })
}

/// Resolves when the client closes its socket or it breaks, while it waits for its welcome.
/// Pings are answered; a data frame before the welcome (the client did not wait) is dropped.
async fn client_left(socket: &mut WebSocket) {
    loop {
        match socket.recv().await {
            Some(Ok(Message::Close(_)) | Err(_)) | None => return,
            Some(Ok(frame)) => debug!(?frame, "a frame before the welcome: dropped"),
        }
    }
}

/// When the peer was last heard from (any frame, pongs included), shared by a connection's reader
/// and writer; and the heartbeat probe outstanding: the writer stamps each probe's payload with
/// when it was sent (ms after `since`, 8 bytes big-endian), and the pong echoing the latest
/// probe measures one round trip. A pong of an older probe, an unasked pong or one with another
/// payload (an empty one, say) measures nothing.
#[derive(Clone)]
struct Heard {
    since: tokio::time::Instant,
    millis: Arc<AtomicU64>,
    /// The stamp of the probe not yet answered, or [`NO_PROBE`].
    probe: Arc<AtomicU64>,
}

/// No probe outstanding.
const NO_PROBE: u64 = u64::MAX;

impl Heard {
    fn new() -> Self {
        Heard {
            since: tokio::time::Instant::now(),
            millis: Arc::new(AtomicU64::new(0)),
            probe: Arc::new(AtomicU64::new(NO_PROBE)),
        }
    }

    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.since.elapsed().as_millis()).unwrap_or(NO_PROBE - 1)
    }

    fn now(&self) {
        self.millis.store(self.elapsed_ms(), Ordering::Relaxed);
    }

    /// The payload of a new probe, now outstanding (an unanswered one is forgotten).
    fn probe(&self) -> [u8; 8] {
        let stamp = self.elapsed_ms();
        self.probe.store(stamp, Ordering::Relaxed);
        stamp.to_be_bytes()
    }

    /// A pong with `payload` arrived: the round trip in ms when it answers the outstanding probe.
    fn ponged(&self, payload: &[u8]) -> Option<u64> {
        let stamp = u64::from_be_bytes(payload.try_into().ok()?);
        self.probe
            .compare_exchange(stamp, NO_PROBE, Ordering::Relaxed, Ordering::Relaxed)
            .ok()?;
        Some(self.elapsed_ms().saturating_sub(stamp))
    }

    /// When the peer will have been silent for `limit`, unless it is heard from before.
    fn silent_at(&self, limit: Duration) -> tokio::time::Instant {
        self.since + Duration::from_millis(self.millis.load(Ordering::Relaxed)) + limit
    }

    fn silent_for(&self) -> Duration {
        self.since
            .elapsed()
            .saturating_sub(Duration::from_millis(self.millis.load(Ordering::Relaxed)))
    }
}

/// When a connection's writer probes its peer, and when it gives up on a silent one. The probes
/// also keep proxies with idle timeouts from closing a quiet socket: no other ping is needed.
#[derive(Clone, Copy)]
struct Beats {
    /// Between probes ([`Config::heartbeat_ms`](crate::config::Config::heartbeat_ms)).
    heartbeat: Duration,
    /// The peer is closed after this long without a frame.
    silence_limit: Duration,
}

impl Beats {
    fn of(config: &crate::config::Config) -> Self {
        Beats {
            heartbeat: config.heartbeat(),
            silence_limit: config.silence_limit(),
        }
    }
}

/// When the first heartbeat probe goes out after the hello: round trips are measured from the
/// first second of a connection.
const FIRST_PROBE: Duration = Duration::from_millis(100);

/// The first probes of a connection go out this often, to make its lag estimate good within its
/// first two seconds; the later ones every heartbeat.
const EARLY_PROBES: (u32, Duration) = (6, Duration::from_millis(300));

/// Drains the outbound queue into the socket until the queue closes, a close is queued, or the
/// server shuts down; probes the peer every heartbeat and closes it (1001) once it has been
/// silent for the silence limit (a dead peer behind a proxy would otherwise hold its socket).
async fn write_frames(
    mut sink: SplitSink<WebSocket, Message>,
    mut queue: mpsc::Receiver<Outbound>,
    mut shutdown: watch::Receiver<bool>,
    beats: Beats,
    heard: Heard,
) {
    let start = tokio::time::Instant::now();
    let mut next_probe = start + FIRST_PROBE;
    let mut probes_sent = 0;
    let close = loop {
        tokio::select! {
            () = tokio::time::sleep_until(heard.silent_at(beats.silence_limit)) => {
                // Something may have come in since the deadline was computed.
                if heard.silent_for() >= beats.silence_limit {
                    debug!("peer silent past the silence limit: closed");
                    let secs = beats.silence_limit.as_secs_f64();
                    break (close::GOING_AWAY, format!("silent for {secs} s"));
                }
            }
            () = tokio::time::sleep_until(next_probe) => {
                probes_sent += 1;
                let (early, often) = EARLY_PROBES;
                next_probe += if probes_sent < early { often } else { beats.heartbeat };
                let probe = heard.probe();
                if sink.send(Message::Ping(probe.to_vec().into())).await.is_err() {
                    return;
                }
            }
            next = queue.recv() => match next {
                Some(Outbound::Text(text)) => {
                    if sink.send(Message::Text(Utf8Bytes::from(&*text))).await.is_err() {
                        return;
                    }
                }
                Some(Outbound::Close(code, reason)) => break (code, reason),
                None => break (close::TRY_AGAIN, "resync: reconnect with last_v".to_owned()),
            },
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    break (close::RESTART, "server restarting".to_owned());
                }
            }
        }
    };
    let frame = CloseFrame {
        code: close.0,
        reason: Utf8Bytes::from(close.1),
    };
    let _ = sink.send(Message::Close(Some(frame))).await;
}

/// Reads client frames until the socket closes: commands go to the room, pings are answered here,
/// bad frames get `reject bad_message` (and, past [`MAX_BAD_FRAMES`], a 1008 close).
async fn read_frames(
    stream: &mut SplitStream<WebSocket>,
    room: &RoomHandle,
    conn: u64,
    own: mpsc::WeakSender<Outbound>,
    budget: Budget<'_>,
    heard: &Heard,
) {
    let answer = |out: Outbound| {
        if let Some(tx) = own.upgrade() {
            // A full queue means the room is about to drop this connection anyway.
            let _ = tx.try_send(out);
        }
    };
    let mut bad_frames = 0;
    // The round trip estimated from the probes' pongs, for a move's lag compensation.
    let mut lag = LagEstimate::default();
    // The estimate the others were last told (`lag` frames).
    let mut shown = None;
    while let Some(message) = stream.next().await {
        heard.now();
        let text = match message {
            Ok(Message::Text(text)) => text,
            // tungstenite queues the answering close and sends it on the next read, which then
            // ends the stream: returning here would drop the socket unanswered (1006).
            Ok(Message::Close(_)) => continue,
            Ok(Message::Pong(payload)) => {
                if let Some(rtt) = heard.ponged(&payload) {
                    lag.record(rtt);
                    let now = lag.ms().unwrap_or(rtt);
                    if shown.is_none_or(|shown: u64| shown.abs_diff(now) >= LAG_SHOWN_STEP_MS) {
                        shown = Some(now);
                        room.report_lag(conn, now).await;
                    }
                }
                continue;
            }
            Ok(Message::Ping(_)) => continue,
            Ok(Message::Binary(_)) => {
                bad_frames += 1;
                answer(reject_frame(
                    None,
                    "binary frames are not part of the protocol".into(),
                    room.version(),
                ));
                if bad_frames > MAX_BAD_FRAMES {
                    answer(Outbound::Close(close::POLICY, "too many bad frames".into()));
                    return;
                }
                continue;
            }
            Err(e) => {
                if let Some((code, reason)) = close::for_violation(&e) {
                    debug!(error = %e, code, "WebSocket protocol violation");
                    answer(Outbound::Close(code, reason.into()));
                }
                return;
            }
        };
        match protocol::parse_incoming(&text) {
            Ok(Incoming::Ping) => answer(Outbound::Text(
                protocol::frame("pong", None, &serde_json::json!({})).into(),
            )),
            Ok(Incoming::Hello(_)) => {
                answer(reject_frame(
                    None,
                    "this connection has already said hello".into(),
                    room.version(),
                ));
            }
            Ok(Incoming::Command { cid, command }) if !budget.allows(&command) => {
                telemetry::reject(Code::RateLimited.as_str());
                let message = if matches!(command, Command::Chat { .. }) {
                    "too many chat messages: at most 5 per 10 s"
                } else {
                    "too many commands: slow down"
                };
                let reject = Reject {
                    cid: Some(cid),
                    code: Code::RateLimited,
                    message: message.into(),
                    v: room.version(),
                };
                answer(Outbound::Text(
                    protocol::frame("reject", None, &reject).into(),
                ));
            }
            Ok(Incoming::Command { cid, command }) => {
                if !room.command_with_lag(conn, cid, command, lag.ms()).await {
                    return;
                }
            }
            Err(BadFrame { cid, message, .. }) => {
                bad_frames += 1;
                answer(reject_frame(cid, message, room.version()));
                if bad_frames > MAX_BAD_FRAMES {
                    answer(Outbound::Close(close::POLICY, "too many bad frames".into()));
                    return;
                }
            }
        }
    }
}

/// How far the lag estimate moves before the others are told again (`lag`), in ms.
const LAG_SHOWN_STEP_MS: u64 = 50;

/// The command and chat budgets a connection spends: its seat's or its spectator address's.
#[derive(Clone, Copy)]
struct Budget<'a> {
    limiters: &'a Limiters,
    sender: Sender,
}

impl Budget<'_> {
    /// Whether `command` is within the budgets (counted if so; a chat counts against both).
    fn allows(&self, command: &Command) -> bool {
        self.limiters.allow_command(self.sender)
            && (!matches!(command, Command::Chat { .. }) || self.limiters.allow_chat(self.sender))
    }
}

/// A `reject bad_message` frame at the room's current version `v`.
fn reject_frame(cid: Option<String>, message: String, v: i64) -> Outbound {
    telemetry::reject(Code::BadMessage.as_str());
    let reject = Reject {
        cid,
        code: Code::BadMessage,
        message,
        v,
    };
    Outbound::Text(protocol::frame("reject", None, &reject).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_is_measured_only_by_the_pong_of_the_outstanding_probe() {
        let heard = Heard::new();
        // A pong nobody asked for, or an empty one, measures nothing.
        assert_eq!(heard.ponged(&0u64.to_be_bytes()), None);
        assert_eq!(heard.ponged(&[]), None);
        let first = heard.probe();
        std::thread::sleep(Duration::from_millis(5));
        let second = heard.probe();
        // The older probe was forgotten when the next went out.
        if first != second {
            assert_eq!(heard.ponged(&first), None);
        }
        let rtt = heard.ponged(&second).expect("measured");
        assert!(rtt < 1_000, "{rtt}");
        // A second pong for the same probe measures nothing.
        assert_eq!(heard.ponged(&second), None);
    }
}
