//! Telling a live room that its seats' accounts changed in the store: an attach gave an
//! anonymous seat to an account (`POST /api/account/attach`), or an account was deleted. The
//! room then lets the account's player resume the seat by logging in and announces the account
//! (`seat_account`), so every page shows the username, or a deleted player, at once.
//!
//! A room another node of the cluster runs is told through its owner, as a join is
//! ([`rest::forwarded`]): `PUT /api/rooms/{room_id}/accounts`, which only a peer may call and
//! which makes the owner read the accounts from the store itself, so sending it twice does no
//! harm. A room no node runs is told nothing: it reads its accounts from the store when it loads.

use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tracing::warn;
use uuid::Uuid;

use super::error::ApiError;
use super::extract::ApiPath;
use super::{AppState, rest};
use crate::cluster::forward::ROOM_MOVING;
use crate::room::RoomHandle;
use crate::store::StoreError;

/// Reads `room`'s accounts from the store and tells the room; `false` when its task stopped
/// (it reads them when it loads again).
async fn tell_task(state: &AppState, room: &RoomHandle) -> Result<bool, ApiError> {
    let accounts = state.store.seat_accounts(room.id).await?;
    Ok(room.accounts_changed(accounts).await)
}

/// Tells the room `room_id`, wherever it runs now, what the store says of its seats' accounts
/// (see the module's doc). Never fails the request that changed them: the store already holds
/// the change, and a room that could not be told reads it when it next loads (logged).
pub async fn tell_room(state: &AppState, room_id: Uuid) {
    if let Err(e) = try_tell(state, room_id).await {
        warn!(%room_id, error = %e.message, "a live room was not told of its seats' accounts");
    }
}

async fn try_tell(state: &AppState, room_id: Uuid) -> Result<(), ApiError> {
    if let Some(room) = state.registry.running(room_id) {
        tell_task(state, &room).await?;
        return Ok(());
    }
    let Some(node) = &state.node else {
        return Ok(());
    };
    match node.owner_of(room_id).await? {
        Some(owner) if owner.node != node.id() => {}
        // Nobody runs it (or this node did and no longer does): it loads from the store.
        _ => return Ok(()),
    }
    let request = (Method::PUT, format!("/api/rooms/{room_id}/accounts"), None);
    let local = |room: RoomHandle| async move {
        tell_task(state, &room).await?;
        Ok(StatusCode::NO_CONTENT.into_response())
    };
    let client = std::net::IpAddr::from([127, 0, 0, 1]);
    let answer =
        rest::forwarded(state, room_id, (client, &HeaderMap::new()), request, local).await?;
    if answer.status().is_success() {
        Ok(())
    } else {
        Err(ApiError::new(
            answer.status(),
            "unavailable",
            format!("the room's node answered {}", answer.status()),
        ))
    }
}

/// `PUT /api/rooms/{room_id}/accounts`, from another node only (the cluster secret; anyone else
/// gets 404 `not_found`, as for a path that does not exist): this node, the room's owner, reads
/// the room's accounts from the store and tells its task. 204; 404 when there is no such room;
/// 503 `room_moving` when another node runs it now (nothing was done: the sender tries that
/// one).
pub async fn accounts_changed(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiPath(room_id): ApiPath<Uuid>,
) -> Result<Response, ApiError> {
    if !state.from_peer(&headers) {
        return Err(ApiError::not_found("no such endpoint"));
    }
    match state.registry.find(&room_id.to_string()).await {
        Ok(Some(room)) => {
            tell_task(&state, &room).await?;
            Ok(StatusCode::NO_CONTENT.into_response())
        }
        Ok(None) => Err(ApiError::not_found(format!("no room {room_id}"))),
        Err(StoreError::OwnedElsewhere { .. }) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ROOM_MOVING,
            "the room is another node's now; nothing was done here",
        )),
        Err(e) => Err(e.into()),
    }
}
