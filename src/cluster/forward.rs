//! A room's REST request (its summary, a join) on a node that does not own the room: sent on to
//! the owner's `--advertise-url` with the cluster secret and the client's address, and the
//! owner's answer given back as it is, so that a join is decided, stored and answered by the one
//! node that runs the room.

use std::net::IpAddr;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::route::Attempt;
use super::{Node, PEER_CLIENT_HEADER, PEER_SECRET_HEADER};
use crate::store::postgres::Owner;
use crate::telemetry;

/// How long connecting to another node may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long another node may take to answer a forwarded request: an owner answers in
/// milliseconds, and one that is frozen must not hold the request past the lease TTL (3 s by
/// default), after which another node can serve the room.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);

/// The error code an owner answers a peer's request with when the room is no longer its own
/// (503): nothing was done there, so the request may be sent again to the new owner.
pub const ROOM_MOVING: &str = "room_moving";

/// Sends `method path` (the path under the node's base URL, e.g. `/api/rooms/{id}/join`) with
/// `body` (JSON, if any) for the client at `client` to `owner`, with the client's own `Cookie`
/// and `Authorization` from `credentials` (so the owner checks the client's session or API token
/// against the shared database itself; no node vouches for a user), and returns its answer:
/// status, `Content-Type`, `Retry-After` and body. Errors: [`Attempt::Retry`] when nothing can have
/// happened at the owner (the connection failed, or it answered 503 [`ROOM_MOVING`]), or when
/// the request is idempotent (`GET`, `PUT`); [`Attempt::Unknown`] when a request that is not (a join)
/// may have reached the owner and its answer was lost: sending it again could take a second seat.
pub async fn forward(
    node: &Node,
    owner: &Owner,
    method: Method,
    path: &str,
    body: Option<Bytes>,
    client: IpAddr,
    credentials: &HeaderMap,
) -> Result<Response, Attempt> {
    let idempotent = method.is_idempotent();
    let lost = |e: reqwest::Error| {
        if idempotent || e.is_connect() {
            Attempt::Retry(e.to_string())
        } else {
            Attempt::Unknown(e.to_string())
        }
    };
    let url = format!("{}{path}", owner.url.trim_end_matches('/'));
    let mut request = node
        .http
        .request(method, url)
        .header(PEER_SECRET_HEADER, &node.secret)
        .header(PEER_CLIENT_HEADER, client.to_string());
    for name in [header::COOKIE, header::AUTHORIZATION] {
        for value in credentials.get_all(&name) {
            request = request.header(name.as_str(), value.as_bytes());
        }
    }
    if let Some(body) = body {
        request = request
            .header(header::CONTENT_TYPE, "application/json")
            .body(body);
    }
    let answer = request.send().await.map_err(lost)?;
    telemetry::forwarded_command("rest");
    let status = StatusCode::from_u16(answer.status().as_u16())
        .map_err(|e| Attempt::Retry(e.to_string()))?;
    let kept = |name: header::HeaderName| {
        answer
            .headers()
            .get(name.as_str())
            .and_then(|v| HeaderValue::from_bytes(v.as_bytes()).ok())
    };
    let content_type = kept(header::CONTENT_TYPE);
    let retry_after = kept(header::RETRY_AFTER);
    let bytes = answer.bytes().await.map_err(lost)?;
    if status == StatusCode::SERVICE_UNAVAILABLE && moving(&bytes) {
        return Err(Attempt::Retry("the room moved on from that node".into()));
    }
    let mut response = (status, bytes).into_response();
    for (name, value) in [
        (header::CONTENT_TYPE, content_type),
        (header::RETRY_AFTER, retry_after),
    ] {
        if let Some(value) = value {
            response.headers_mut().insert(name, value);
        }
    }
    Ok(response)
}

/// Whether an error answer's body says [`ROOM_MOVING`].
fn moving(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .is_ok_and(|answer| answer["error"]["code"] == ROOM_MOVING)
}
