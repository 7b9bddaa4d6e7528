//! The site channel: `GET /ws/site`, a WebSocket for a logged-in page, not tied to a room, that
//! carries the user's challenges, the games that begin for them and "your turn" (frames in
//! docs/protocol.md, "Site channel"; how events cross nodes in [`crate::site`]).
//!
//! It is authenticated by the session cookie (a browser) or an API token with `read`
//! (`Authorization: Bearer`), and Origin-checked like the room socket. The first frame is a
//! `welcome` with the user's open challenges read from the table, after the page was registered
//! for events: whatever happens from then on reaches it, and what happened before is in the
//! table. The server pings every heartbeat (so a proxy's read timeout never cuts an idle page)
//! and closes a page silent for the silence limit (1001); a page that fell behind or missed
//! events is closed with 1013 and reconnects. Clients send nothing but `{"t": "ping"}`
//! (answered `pong`); anything else is ignored.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use tracing::{Instrument, debug, info_span};

use super::{ApiError, AppState, auth, proxy};
use crate::accounts::tokens::Scope;
use crate::protocol::{self, MAX_CLIENT_FRAME_BYTES, close};
use crate::site::{ChallengeView, PageFrame, SiteFrame};
use crate::store::UserRow;
use crate::telemetry;

/// How long the server waits for the client's answering close.
const CLOSE_REPLY_WITHIN: Duration = Duration::from_secs(2);

/// `GET /ws/site`: upgrades a logged-in page. Refused with 400 `bad_request` when not an
/// upgrade, 403 `forbidden_origin` for another site's page, 401 `not_logged_in` without a
/// session or a valid token, 403 `missing_scope` for a token without `read`, 429
/// `rate_limited` when the address holds its most WebSockets.
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
    if !proxy::origin_allowed(&state.config, peer.ip(), &headers) {
        return auth::forbidden_origin().into_response();
    }
    let caller = match auth::require(&state, peer, &headers, &Method::GET, Scope::Read).await {
        Ok(caller) => caller,
        Err(e) => return e.into_response(),
    };
    let client = state.client_ip(peer.ip(), &headers);
    let Some(slot) = state.limiters.open_socket(client) else {
        return ApiError::too_many_sockets(state.config.limits.connections_per_ip).into_response();
    };
    ws.max_message_size(MAX_CLIENT_FRAME_BYTES)
        .max_frame_size(MAX_CLIENT_FRAME_BYTES)
        .write_buffer_size(0)
        .on_upgrade(move |socket| {
            let span = info_span!("site", client = %client, user = %caller.user.id);
            async move {
                let _slot = slot;
                telemetry::connection(1.0);
                page(state, socket, caller.user).await;
                telemetry::connection(-1.0);
            }
            .instrument(span)
        })
}

/// One page, from its welcome to its close.
async fn page(state: AppState, mut socket: WebSocket, user: UserRow) {
    let _open = state.connection_open.clone();
    // Registered before the table is read: nothing made from now on can be missed.
    let mut page = state.site.open_page(user.id);
    let now = state.config.clock.now_utc();
    let challenges = match state.store.open_challenges_of(user.id, now).await {
        Ok(rows) => rows.iter().map(ChallengeView::of).collect(),
        Err(e) => {
            tracing::warn!(error = %e, "could not read a page's challenges");
            return close_with(socket, close::TRY_AGAIN, "database unavailable").await;
        }
    };
    let welcome = SiteFrame::Welcome {
        user: user.name.clone(),
        challenges,
    };
    if socket
        .send(Message::Text(welcome.to_json().into()))
        .await
        .is_err()
    {
        return;
    }
    let (code, reason) = serve(&state, &mut socket, &mut page.frames).await;
    debug!(code, reason, "site page closed");
    close_with(socket, code, reason).await;
}

/// Relays the page's events and answers its pings until it must close: the close code and
/// reason (the client left: none is sent, but one is returned all the same).
async fn serve(
    state: &AppState,
    socket: &mut WebSocket,
    frames: &mut tokio::sync::mpsc::Receiver<PageFrame>,
) -> (u16, &'static str) {
    let mut stopping = std::pin::pin!(super::stopping(state.shutdown.clone()));
    let silence_limit = state.config.silence_limit();
    let mut pings = tokio::time::interval(state.config.heartbeat());
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            frame = frames.recv() => match frame {
                Some(PageFrame::Text(text)) => {
                    if socket.send(Message::Text(Utf8Bytes::from(&*text))).await.is_err() {
                        return (close::GOING_AWAY, "gone");
                    }
                }
                Some(PageFrame::Resync) | None => {
                    return (close::TRY_AGAIN, "resync: reconnect");
                }
            },
            _ = pings.tick() => {
                if heard.elapsed() >= silence_limit {
                    return (close::GOING_AWAY, "silent past the limit");
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return (close::GOING_AWAY, "gone");
                }
            }
            message = socket.recv() => match message {
                Some(Ok(Message::Text(text))) => {
                    heard = tokio::time::Instant::now();
                    if is_ping(&text) {
                        let pong = protocol::frame("pong", None, &serde_json::json!({}));
                        if socket.send(Message::Text(pong.into())).await.is_err() {
                            return (close::GOING_AWAY, "gone");
                        }
                    }
                }
                Some(Ok(_)) => heard = tokio::time::Instant::now(),
                Some(Err(_)) | None => return (close::GOING_AWAY, "gone"),
            },
            () = &mut stopping => return (close::RESTART, "server restarting"),
        }
    }
}

/// Whether a client frame is `{"t": "ping"}`.
fn is_ping(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|frame| frame["t"] == "ping")
}

/// Sends a close frame and waits (a little) for the client's answer, so that a frame it still
/// sends does not reset the connection before it reads the close.
async fn close_with(mut socket: WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from(reason),
    };
    if socket.send(Message::Close(Some(frame))).await.is_err() {
        return;
    }
    let deadline = tokio::time::Instant::now() + CLOSE_REPLY_WITHIN;
    while let Ok(Some(Ok(_))) = tokio::time::timeout_at(deadline, socket.recv()).await {}
}
