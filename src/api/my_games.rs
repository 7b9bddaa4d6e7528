//! `POST /api/my-games`: "My games" of a browser, from the seat tokens it holds (the body, never
//! the URL, carries them) and, logged in, from its account's seats: each room's state as that seat sees it, the games in
//! progress (the seat's turn first) and the recently finished ones. A token of no seat of its
//! room is left out, the same as an unknown room, so the answer says nothing about tokens the
//! client does not hold.
//!
//! Everything is read from the store (the turn and the result off the room's last events), so a
//! room need not be in memory, nor owned by this node in a cluster. A logged-in user's seats
//! (`seats.user_id`) are more [`Claim`]s for [`games_of`], beside the tokens the browser sends.

use std::collections::HashSet;

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::AppState;
use super::auth;
use super::error::ApiError;
use super::extract::JsonBytes;
use crate::room::token::hash_token;
use crate::store::{HeldSeat, RoomStatus, Store, StoreError, mark_players};

/// The most seats one request may name.
pub const MAX_SEATS: usize = 100;

/// The most finished games the answer lists, the newest first.
pub const MAX_FINISHED: usize = 20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    seats: Vec<HeldToken>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeldToken {
    room_id: Uuid,
    seat_token: String,
}

/// A seat a client shows it holds: the room, and the SHA-256 of the seat token.
pub type Claim = (Uuid, [u8; 32]);

/// The rooms of the seats in `claims` that are real (the token is that room's seat's), each
/// once: the games in progress (the seat's turn first, then the most recently changed), and
/// the [`MAX_FINISHED`] most recently finished. Errors: the store failed.
pub async fn games_of(
    store: &Store,
    claims: impl IntoIterator<Item = Claim>,
) -> Result<(Vec<HeldSeat>, Vec<HeldSeat>), StoreError> {
    let mut seen = HashSet::new();
    let mut held = Vec::new();
    for (room_id, token_hash) in claims {
        if let Some(seat) = store.held_seat(room_id, &token_hash).await?
            && seen.insert((seat.room_id, seat.seat))
        {
            held.push(seat);
        }
    }
    let (mut finished, mut on): (Vec<_>, Vec<_>) = held
        .into_iter()
        .partition(|s| s.status == RoomStatus::Finished);
    on.sort_by(|a, b| {
        your_turn(b)
            .cmp(&your_turn(a))
            .then(b.updated_at.cmp(&a.updated_at))
    });
    finished.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
    finished.truncate(MAX_FINISHED);
    Ok((on, finished))
}

fn your_turn(seat: &HeldSeat) -> bool {
    seat.to_move == Some(seat.seat)
}

/// One game of the answer (docs/protocol.md, `POST /api/my-games`).
fn entry(seat: &HeldSeat) -> Value {
    let mut players: Value = seat
        .names
        .iter()
        .map(|(s, name)| json!({"seat": s, "name": name}))
        .collect();
    mark_players(&mut players, &seat.accounts);
    json!({
        "room_id": seat.room_id,
        "invite_code": seat.invite_code,
        "game": seat.game,
        "status": seat.status.as_str(),
        "seat": seat.seat,
        "players": players,
        "to_move": seat.to_move,
        "your_turn": your_turn(seat),
        "result": seat.result,
        "clock": seat.clock,
        "deadline": seat.flag_at,
        "updated_at": seat.updated_at,
    })
}

/// `POST /api/my-games` `{"seats": [{"room_id", "seat_token"}]}` (at most [`MAX_SEATS`]):
/// 200 `{"in_progress": [...], "finished": [...]}`, with the seats of the account logged in (the
/// session cookie, or a token with `read`) too. Errors: 400 `bad_request` for a body that
/// does not fit or names too many seats; 429 `rate_limited` (with `Retry-After`) when the client
/// address is over its room look-ups, which each request counts as one of; 503 `unavailable`
/// when the store fails; as [`auth::viewer`] for the credential.
pub async fn my_games(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    let client = state.client_ip(peer.ip(), &headers);
    if let Err(retry) = state.limiters.allow_lookup(client) {
        return Err(ApiError::rate_limited(
            super::lookup::limited_message(retry),
            retry,
        ));
    }
    let body: Body = body.parse(None)?;
    if body.seats.len() > MAX_SEATS {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_SEATS} seats a request"
        )));
    }
    let mut claims: Vec<Claim> = body
        .seats
        .iter()
        .map(|held| (held.room_id, hash_token(&held.seat_token)))
        .collect();
    if let Some(user) = auth::viewer(&state, peer, &headers, &Method::POST).await? {
        let finished = i64::try_from(MAX_FINISHED).unwrap_or(i64::MAX);
        claims.extend(state.store.account_seats(user.id, finished).await?);
    }
    let (on, finished) = games_of(&state.store, claims).await?;
    let body = json!({
        "in_progress": on.iter().map(entry).collect::<Vec<_>>(),
        "finished": finished.iter().map(entry).collect::<Vec<_>>(),
    });
    Ok(Json(body).into_response())
}
