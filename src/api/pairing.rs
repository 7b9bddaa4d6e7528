//! Quick pairing over REST: `POST /api/pairing` joins a pool and is answered once paired (the
//! request is held up to `--pairing-hold-s`, 204 when nobody came); `GET /api/pairing/pools`
//! lists the pools.
//!
//! A client that goes away while its request is held leaves the pool: axum drops the handler's
//! future when the connection closes, and the queue's guard in that future takes the entry out
//! (see [`crate::pairing`]).

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::ApiError;
use super::extract::JsonBytes;
use super::{AppState, auth, names, proxy};
use crate::pairing::{DEFAULT_RATING, Entry, PairingError};
use crate::room::state::TimeControl;
use crate::rules::GameKind;
use crate::store::LastGame;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairingBody {
    game: String,
    seats: Option<u8>,
    clock: Value,
    rated: Option<bool>,
    name: Option<String>,
}

/// 401 `login_required`: what needs an account (a rated pool).
pub fn login_required(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "login_required", message)
}

/// `POST /api/pairing` `{"game", "seats"?, "clock", "rated"?, "name"?}`: held until paired, then
/// 200 `{room_id, invite_code, invite_url, seat, color, seat_token}`; 204 when nobody came within
/// the hold. Errors: 400 `unknown_game`, `bad_clock`, `no_such_pool`, `bad_name`; 401
/// `login_required` (a rated pool, anonymously); 409 `already_waiting` (the account waits in a
/// pool already); 429 `rate_limited`; 503 `unavailable` (the database failed, or the server is
/// shutting down: the player is no longer waiting).
pub async fn join(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    if *state.shutdown.borrow() {
        return Err(ApiError::shutting_down());
    }
    let body: PairingBody = body.parse(None)?;
    let name = names::clean_name(body.name)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_name", e.to_string()))?;
    let (name, user) = auth::player(&state, peer, &headers, &Method::POST, name).await?;
    let rated = body.rated.unwrap_or(false);
    if rated && user.is_none() {
        return Err(login_required(
            "rated pools are for logged-in players; log in first",
        ));
    }
    let client = state.client_ip(peer.ip(), &headers);
    state
        .limiters
        .pairings
        .allow(client, user)
        .map_err(|retry| {
            ApiError::rate_limited(
                format!(
                    "at most {} pairing requests a minute",
                    state.config.limits.pairings_per_minute
                ),
                retry,
            )
        })?;
    let game: GameKind = body.game.parse().map_err(|e: crate::rules::RuleError| {
        ApiError::new(StatusCode::BAD_REQUEST, "unknown_game", e.message)
    })?;
    let clock = TimeControl::parse(&body.clock)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_clock", e))?;
    let players = body.seats.unwrap_or(2);
    let pool = state
        .pairing
        .pools()
        .find(game, players, &clock)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "no_such_pool",
                format!(
                    "this server has no pool of {game} for {players} players at that clock; \
                     GET /api/pairing/pools lists its pools"
                ),
            )
        })?;
    let (rating, last) = match user {
        Some(user) => {
            let ratings = state.store.ratings_of(&[user], pool.rating_pool()).await?;
            let rating = ratings
                .get(&user)
                .map_or(f64::from(DEFAULT_RATING), |r| r.rating);
            (
                rating.round() as i32,
                state.store.last_game(user, game).await?,
            )
        }
        None => (DEFAULT_RATING, LastGame::default()),
    };
    let entry = Entry {
        pool,
        rated,
        user,
        name,
        rating,
        last,
    };
    let waited = tokio::select! {
        waited = state.pairing.wait(entry) => waited,
        () = super::stopping(state.shutdown.clone()) => return Err(ApiError::shutting_down()),
    };
    match waited {
        Ok(Some(seated)) => {
            let invite_url = format!(
                "{}/r/{}",
                proxy::base_url(&state.config, peer.ip(), &headers),
                seated.invite_code
            );
            Ok(Json(json!({
                "room_id": seated.room_id,
                "invite_code": seated.invite_code,
                "invite_url": invite_url,
                "seat": seated.seat,
                "color": seated.color,
                "seat_token": seated.seat_token,
            }))
            .into_response())
        }
        Ok(None) => Ok(StatusCode::NO_CONTENT.into_response()),
        Err(PairingError::AlreadyWaiting) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "already_waiting",
            "this account is already waiting in a pool (one at a time)",
        )),
        Err(PairingError::Unavailable(why)) => {
            tracing::warn!(%why, "a pairing failed");
            Err(ApiError::unavailable())
        }
    }
}

/// `GET /api/pairing/pools`: `{"hold_s", "pools": [{"id", "game", "seats", "clock", "waiting":
/// {"casual", "rated"}}]}`, `waiting` counting the players waiting now on every node.
pub async fn pools(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    let counts = state.pairing.waiting_counts().await?;
    let waiting =
        |pool: &crate::pairing::Pool, rated| counts.get(&pool.key(rated)).copied().unwrap_or(0);
    let pools: Vec<Value> = state
        .pairing
        .pools()
        .all()
        .iter()
        .map(|pool| {
            json!({
                "id": pool.to_string(),
                "game": pool.game,
                "seats": pool.players,
                "clock": pool.clock_json(),
                "waiting": {"casual": waiting(pool, false), "rated": waiting(pool, true)},
            })
        })
        .collect();
    Ok(Json(
        json!({ "hold_s": state.pairing.hold().as_secs(), "pools": pools }),
    ))
}
