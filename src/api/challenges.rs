//! Challenges: one logged-in player offers another a game (a profile's "Challenge {name}").
//!
//! - `POST /api/challenges` `{"to", "game", "seats"?, "clock"?, "rated"?, "color"?}`: made, the
//!   challenged user's pages are told at once (the site channel), on whichever node they are;
//! - `GET /api/challenges`: the open ones, `{"incoming", "outgoing"}`;
//! - `GET /api/challenges/{id}`: one of the caller's, whatever became of it (a page that missed
//!   its `game_start` while reconnecting finds the room there);
//! - `POST /api/challenges/{id}/accept`: the challenged player's; makes the room (the same
//!   steps as a creation and its join, in the transaction that closes the challenge, so two
//!   accepts never make two rooms) and answers as a join does; the challenger's pages get a
//!   `game_start` and open the room by their account's seat;
//! - `POST /api/challenges/{id}/decline` (the challenged player's) and `.../cancel` (its
//!   maker's).
//!
//! A challenge expires [`CHALLENGE_TTL`] after it was made, on the server's clock; a player has
//! at most [`MAX_OPEN_CHALLENGES`] open at once, and makes at most `--challenges-per-minute` (per
//! account and per address).

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use rand::Rng;
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::auth::{self, Caller, Reader};
use super::error::ApiError;
use super::extract::{ApiPath, JsonBytes};
use super::{AppState, proxy};
use crate::accounts::tokens::Scope;
use crate::room::registry::{CreateError, SeatedPlayer, SeatedRoom};
use crate::room::state::TimeControl;
use crate::room::token::new_seat_token;
use crate::rules::{GameKind, GameOptions, Seat};
use crate::site::{ChallengeView, GameStart, SiteFrame, color_of};
use crate::store::{ChallengeRow, ChallengeSide, ChallengeStatus, StoreError};

/// How long a challenge stays open.
pub const CHALLENGE_TTL: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

/// How many open challenges one player may have made at once.
pub const MAX_OPEN_CHALLENGES: usize = 10;

/// How long a closed or expired challenge is kept (so a late answer is told what became of it).
const KEPT: chrono::TimeDelta = chrono::TimeDelta::days(1);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChallengeBody {
    to: String,
    game: String,
    seats: Option<u8>,
    clock: Option<Value>,
    rated: Option<bool>,
    color: Option<String>,
}

/// The caller, logged in with `play` (401 `not_logged_in`, 403 `missing_scope`).
async fn player(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
) -> Result<Caller, ApiError> {
    auth::require(state, peer, headers, &Method::POST, Scope::Play).await
}

/// The challenger's seat `color` names in `game`: `None` for `random` (or none given).
fn challenger_seat(game: GameKind, color: Option<&str>) -> Result<Option<Seat>, ApiError> {
    match color {
        None | Some("random") => Ok(None),
        Some(color) => (0..2)
            .find(|&seat| color_of(game, 2, seat) == color)
            .map(Some)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "color is \"random\", {:?} or {:?}",
                    color_of(game, 2, 0),
                    color_of(game, 2, 1)
                ))
            }),
    }
}

/// `POST /api/challenges`: 201 with the challenge (`{id, from, to, game, seats, clock, rated,
/// color, created_at, expires_at}`). Errors: 400 `unknown_game`, `bad_clock`, `bad_request`
/// (not a two-player game, a colour the game does not have), `cannot_challenge_yourself`,
/// `rated_needs_clock` (a rated challenge without a clock);
/// 401/403 as any logged-in request; 404 `not_found` (no such active account); 409
/// `too_many_challenges` ([`MAX_OPEN_CHALLENGES`] open already); 429 `rate_limited`.
pub async fn create(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    let caller = player(&state, peer, &headers).await?;
    let client = state.client_ip(peer.ip(), &headers);
    state
        .limiters
        .challenges
        .allow(client, Some(caller.user.id))
        .map_err(|retry| {
            let most = state.config.limits.challenges_per_minute;
            ApiError::rate_limited(format!("at most {most} challenges a minute"), retry)
        })?;
    let body: ChallengeBody = body.parse(None)?;
    let game: GameKind = body.game.parse().map_err(|e: crate::rules::RuleError| {
        ApiError::new(StatusCode::BAD_REQUEST, "unknown_game", e.message)
    })?;
    if body.seats.unwrap_or(2) != 2 {
        return Err(ApiError::bad_request(
            "a challenge is for a two-player game (seats 2)",
        ));
    }
    let clock = match body.clock {
        None | Some(Value::Null) => None,
        Some(clock) => {
            Some(json!(TimeControl::parse(&clock).map_err(|e| {
                ApiError::new(StatusCode::BAD_REQUEST, "bad_clock", e)
            })?))
        }
    };
    let seat = challenger_seat(game, body.color.as_deref())?;
    let rated = body.rated.unwrap_or(false);
    if rated && clock.is_none() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "rated_needs_clock",
            "a rated game has a clock: {\"initial_s\", \"increment_s\"} or {\"days_per_move\"}",
        ));
    }
    let target = state
        .store
        .user_by_name(&body.to)
        .await?
        .filter(crate::store::UserRow::active)
        .ok_or_else(|| ApiError::not_found(format!("no player {:?}", body.to)))?;
    if target.id == caller.user.id {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "cannot_challenge_yourself",
            "a challenge is for another player",
        ));
    }
    let now = state.config.clock.now_utc();
    let open = state.store.open_challenges_of(caller.user.id, now).await?;
    let made = open
        .iter()
        .filter(|c| c.challenger == caller.user.id)
        .count();
    if made >= MAX_OPEN_CHALLENGES {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "too_many_challenges",
            format!("at most {MAX_OPEN_CHALLENGES} open challenges at once; cancel one first"),
        ));
    }
    let row = ChallengeRow {
        id: Uuid::new_v4(),
        challenger: caller.user.id,
        challenger_name: caller.user.name.clone(),
        challenged: target.id,
        challenged_name: target.name.clone(),
        game,
        seats: 2,
        clock,
        rated,
        challenger_seat: seat,
        status: ChallengeStatus::Open,
        room_id: None,
        invite_code: None,
        created_at: now,
        expires_at: now + CHALLENGE_TTL,
    };
    state.store.insert_challenge(&row).await?;
    if let Err(e) = state.store.forget_challenges(now - KEPT).await {
        tracing::warn!(error = %e, "could not forget old challenges");
    }
    let view = ChallengeView::of(&row);
    for user in [row.challenged, row.challenger] {
        state.site.tell(user, &SiteFrame::Challenge(view.clone()));
    }
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `GET /api/challenges`: the caller's open challenges, `{"incoming": [...], "outgoing":
/// [...]}`, the oldest first (a session, or a token with `read`).
pub async fn list(
    State(state): State<AppState>,
    Reader(caller): Reader,
) -> Result<Json<Value>, ApiError> {
    let now = state.config.clock.now_utc();
    let open = state.store.open_challenges_of(caller.user.id, now).await?;
    let (outgoing, incoming): (Vec<_>, Vec<_>) =
        open.iter().partition(|c| c.challenger == caller.user.id);
    let views =
        |rows: Vec<&ChallengeRow>| rows.into_iter().map(ChallengeView::of).collect::<Vec<_>>();
    Ok(Json(json!({
        "incoming": views(incoming),
        "outgoing": views(outgoing),
    })))
}

/// `GET /api/challenges/{id}`: one of the caller's challenges (made or received) as
/// `POST /api/challenges` answers it, with `status` (`open`, `expired`, `accepted`, `declined`,
/// `cancelled`) and, once accepted, the room's `room_id` and `invite_code` (a session, or a
/// token with `read`). Errors: 404 `not_found` (no such challenge of the caller's, or one
/// forgotten a day after it closed).
pub async fn show(
    State(state): State<AppState>,
    Reader(caller): Reader,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let row = challenge_of(&state, &id, caller.user.id).await?;
    let now = state.config.clock.now_utc();
    let status = match row.status {
        ChallengeStatus::Open if !row.open_at(now) => "expired",
        status => status.as_str(),
    };
    let mut answer = json!(ChallengeView::of(&row));
    answer["status"] = json!(status);
    if let (Some(room_id), Some(invite_code)) = (row.room_id, &row.invite_code) {
        answer["room_id"] = json!(room_id);
        answer["invite_code"] = json!(invite_code);
    }
    Ok(Json(answer))
}

/// The challenge `id` as `user` may see it (one of its two players), or 404 `not_found`.
async fn challenge_of(state: &AppState, id: &str, user: Uuid) -> Result<ChallengeRow, ApiError> {
    let missing = || ApiError::not_found(format!("no challenge {id:?}"));
    let id = Uuid::try_parse(id).map_err(|_| missing())?;
    state
        .store
        .challenge(id)
        .await?
        .filter(|c| c.challenger == user || c.challenged == user)
        .ok_or_else(missing)
}

/// 409 for a challenge that is no longer open: `challenge_expired`, or `challenge_closed` with
/// what became of it.
fn closed(row: &ChallengeRow) -> ApiError {
    if row.status == ChallengeStatus::Open {
        return ApiError::new(
            StatusCode::CONFLICT,
            "challenge_expired",
            "this challenge has expired",
        );
    }
    ApiError::new(
        StatusCode::CONFLICT,
        "challenge_closed",
        format!("this challenge was {}", row.status.as_str()),
    )
}

/// The options of a challenge's room, as a create request keeps them: its `clock`, and `rated`
/// for a rated one (the room is then made as `"rated": true` makes one).
fn challenge_options(row: &ChallengeRow) -> Value {
    let mut options = serde_json::Map::new();
    if let Some(clock) = &row.clock {
        options.insert("clock".into(), clock.clone());
    }
    if row.rated {
        options.insert("rated".into(), Value::Bool(true));
    }
    Value::Object(options)
}

/// `POST /api/challenges/{id}/accept`: 200 `{room_id, invite_code, invite_url, seat, color,
/// seat_token}`, as a join. Errors: 404 `not_found` (no such challenge to the caller); 409
/// `challenge_expired`, `challenge_closed`; 503 `unavailable`.
pub async fn accept(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let caller = player(&state, peer, &headers).await?;
    let row = challenge_of(&state, &id, caller.user.id).await?;
    if row.challenged != caller.user.id {
        return Err(ApiError::not_found(format!("no challenge {id:?} to you")));
    }
    let now = state.config.clock.now_utc();
    if !row.open_at(now) {
        return Err(closed(&row));
    }
    let challenger_seat = row
        .challenger_seat
        .unwrap_or_else(|| rand::rng().random_range(0..2));
    let (seat_token, token_hash) = new_seat_token();
    let mut players = vec![
        SeatedPlayer {
            seat: challenger_seat,
            name: Some(row.challenger_name.clone()),
            user: Some(row.challenger),
            // The challenger plays by their account's seat; nobody needs this token.
            token_hash: new_seat_token().1,
        },
        SeatedPlayer {
            seat: 1 - challenger_seat,
            name: Some(caller.user.name.clone()),
            user: Some(caller.user.id),
            token_hash,
        },
    ];
    players.sort_by_key(|p| p.seat);
    let request = SeatedRoom {
        kind: row.game,
        setup: GameOptions {
            players: Some(row.seats),
            ..GameOptions::default()
        },
        options: challenge_options(&row),
        players,
    };
    let prepared = state
        .registry
        .prepare_seated(&request)
        .map_err(|e| match e {
            CreateError::Store(e) => ApiError::from(e),
            other => {
                tracing::error!(error = %other, "a stored challenge makes no room");
                ApiError::unavailable()
            }
        })?;
    let node = state.registry.node();
    let lease = match node {
        Some(node) => Some(node.serving_lease().ok_or_else(ApiError::unavailable)?),
        None => None,
    };
    let accepted = state
        .store
        .accept_challenge(
            (row.id, caller.user.id, now),
            &prepared.room,
            &prepared.commit,
            node.map(|node| node.id()),
        )
        .await;
    let claim = match accepted {
        Ok(Some(claim)) => claim,
        Ok(None) => {
            let now_row = challenge_of(&state, &id, caller.user.id).await?;
            return Err(closed(&now_row));
        }
        Err(StoreError::OwnedElsewhere { .. }) => return Err(ApiError::unavailable()),
        Err(e) => return Err(e.into()),
    };
    let ownership = match (node, lease, claim) {
        (Some(node), Some(lease), Some(claim)) => Some(node.owned(lease, claim)),
        _ => None,
    };
    let (room_id, invite_code) = (prepared.room_id(), prepared.room.invite_code.clone());
    let seat = 1 - challenger_seat;
    let color = prepared.color(seat);
    let challenger_color = prepared.color(challenger_seat);
    state.registry.start_prepared(prepared, ownership);
    let gone = SiteFrame::ChallengeGone {
        id: row.id,
        reason: "accepted",
    };
    for (user, seat, color) in [
        (row.challenger, challenger_seat, challenger_color),
        (row.challenged, seat, color.clone()),
    ] {
        state.site.tell(user, &gone);
        let start = GameStart {
            room_id,
            invite_code: invite_code.clone(),
            game: row.game,
            seat,
            color,
            via: "challenge",
            challenge_id: Some(row.id),
        };
        state.site.tell(user, &SiteFrame::GameStart(start));
    }
    let invite_url = format!(
        "{}/r/{invite_code}",
        proxy::base_url(&state.config, peer.ip(), &headers)
    );
    Ok(Json(json!({
        "room_id": room_id,
        "invite_code": invite_code,
        "invite_url": invite_url,
        "seat": seat,
        "color": color,
        "seat_token": seat_token,
    }))
    .into_response())
}

/// `POST /api/challenges/{id}/decline`: 204. Errors: 404 `not_found` (no such challenge to the
/// caller); 409 `challenge_expired`, `challenge_closed`.
pub async fn decline(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    close(state, peer, headers, id, ChallengeSide::Challenged).await
}

/// `POST /api/challenges/{id}/cancel`: 204. Errors: 404 `not_found` (no such challenge by the
/// caller); 409 `challenge_expired`, `challenge_closed`.
pub async fn cancel(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    close(state, peer, headers, id, ChallengeSide::Challenger).await
}

async fn close(
    state: AppState,
    peer: SocketAddr,
    headers: HeaderMap,
    id: String,
    side: ChallengeSide,
) -> Result<Response, ApiError> {
    let caller = player(&state, peer, &headers).await?;
    let row = challenge_of(&state, &id, caller.user.id).await?;
    let (own, reason) = match side {
        ChallengeSide::Challenged => (row.challenged, "declined"),
        ChallengeSide::Challenger => (row.challenger, "cancelled"),
    };
    if own != caller.user.id {
        return Err(ApiError::not_found(format!(
            "no challenge {id:?} of yours to {reason}"
        )));
    }
    let now = state.config.clock.now_utc();
    if !state
        .store
        .close_challenge(row.id, caller.user.id, side, now)
        .await?
    {
        let now_row = challenge_of(&state, &id, caller.user.id).await?;
        return Err(closed(&now_row));
    }
    let gone = SiteFrame::ChallengeGone { id: row.id, reason };
    for user in [row.challenger, row.challenged] {
        state.site.tell(user, &gone);
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}
