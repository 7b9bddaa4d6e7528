//! The REST half of the protocol: create a room, read its summary, join it by invite code, and
//! list the lobby (finished games are `games`).

use std::net::{IpAddr, SocketAddr};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::error::ApiError;
use super::extract::{ApiPath, JsonBytes};
use super::lookup::{self, Lookup};
use super::{AppState, auth};
use super::{names, proxy};
use crate::bot::Level;
use crate::cluster::forward::{ROOM_MOVING, forward};
use crate::cluster::route::{Attempt, RouteError, Routed, route};
use crate::room::registry::{CreateError, NewRoom};
use crate::room::state::{JoinRefusal, SeatChoice, TimeControl};
use crate::room::token::hash_token;
use crate::room::{JoinError, RoomHandle};
use crate::rules::{GameKind, GameOptions, RuleErrorCode};
use crate::store::{StoreError, Visibility};

/// How many rooms the lobby lists.
const LOBBY_SIZE: i64 = 100;

/// `seat` in a create or join body: a number, a colour, or `"random"`.
#[derive(Deserialize)]
#[serde(untagged)]
enum SeatWire {
    Number(u8),
    Text(String),
}

impl From<SeatWire> for SeatChoice {
    fn from(w: SeatWire) -> Self {
        match w {
            SeatWire::Number(n) => SeatChoice::Number(n),
            SeatWire::Text(t) if t == "random" => SeatChoice::Random,
            SeatWire::Text(t) => SeatChoice::Color(t),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    game: String,
    seats: Option<u8>,
    seat: Option<SeatWire>,
    name: Option<String>,
    options: Option<Value>,
    visibility: Option<String>,
    clock: Option<Value>,
    bots: Option<Vec<BotWire>>,
    rated: Option<bool>,
}

/// One entry of `bots` in a create body: a computer opponent takes `seat` at `level` (1 to 5).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotWire {
    seat: u8,
    level: Level,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    name: Option<String>,
    seat: Option<SeatWire>,
    /// The seat token of a seat of this room the joiner holds already: a pass-and-play table
    /// taking its other seats.
    same_player: Option<String>,
}

/// A display name checked by [`names::clean_name`]; refused: 400 `bad_name`.
fn clean_name(name: Option<String>) -> Result<Option<String>, ApiError> {
    names::clean_name(name)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_name", e.to_string()))
}

/// The game set-up of a create request: `seats` and `options` (`start_position`, `layout`,
/// `colors`). Only the shape is checked here; whether the game has and accepts each option is the
/// rules module's to say.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OptionsBody {
    start_position: Option<String>,
    layout: Option<String>,
    colors: Option<Vec<String>>,
    /// Whether spectators may chat (default true); the room keeps it, the rules never see it.
    #[allow(dead_code)]
    spectator_chat: Option<bool>,
}

/// The longest `start_position` accepted, in bytes: every game's position text is far shorter, and
/// the room repeats it in every snapshot.
const MAX_POSITION_BYTES: usize = 512;

fn game_setup(seats: Option<u8>, options: &Value) -> Result<GameOptions, ApiError> {
    if !options.is_object() {
        return Err(ApiError::bad_request("options must be a JSON object"));
    }
    let parsed: OptionsBody = serde_json::from_value(options.clone())
        .map_err(|e| ApiError::bad_request(format!("bad options: {e}")))?;
    if parsed
        .start_position
        .as_ref()
        .is_some_and(|text| text.len() > MAX_POSITION_BYTES)
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_position",
            format!("a start position is at most {MAX_POSITION_BYTES} bytes"),
        ));
    }
    Ok(GameOptions {
        start_position: parsed.start_position,
        players: seats,
        layout: parsed.layout,
        colors: parsed.colors,
    })
}

/// 401 `login_required`: a rated room's seat for a player who is not logged in.
fn login_required() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "login_required",
        "a rated game is played by logged-in players only: log in first",
    )
}

/// Checks what a rated room needs beside its players' accounts (the room checks each seat's as
/// it is taken): a logged-in creator
/// (401 `login_required`), a clock (400 `rated_needs_clock`), the game's standard start (400
/// `rated_start_position`) and no bots (400 `rated_bots`).
fn check_rated(
    user: Option<Uuid>,
    clock: Option<&TimeControl>,
    setup: &GameOptions,
    bots: usize,
) -> Result<(), ApiError> {
    if user.is_none() {
        return Err(login_required());
    }
    if clock.is_none() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "rated_needs_clock",
            "a rated game has a clock: {\"initial_s\", \"increment_s\"} or {\"days_per_move\"}",
        ));
    }
    if setup.start_position.is_some() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "rated_start_position",
            "a rated game starts from the game's standard position: no options.start_position",
        ));
    }
    if bots > 0 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "rated_bots",
            "a rated game is played by logged-in players only: no bots",
        ));
    }
    Ok(())
}

/// `{base}/r/{code}`, where base is the public URL, or what the request (through trusted proxies)
/// says people reach the server at.
fn invite_url(state: &AppState, peer: SocketAddr, headers: &HeaderMap, code: &str) -> String {
    format!(
        "{}/r/{code}",
        proxy::base_url(&state.config, peer.ip(), headers)
    )
}

fn join_error(e: JoinError) -> ApiError {
    match e {
        JoinError::Refused(JoinRefusal::RoomFull) => ApiError::new(
            StatusCode::CONFLICT,
            "room_full",
            "every seat of this room is taken",
        ),
        JoinError::Refused(JoinRefusal::SeatTaken(seat)) => ApiError::new(
            StatusCode::CONFLICT,
            "seat_taken",
            format!("seat {seat} is taken"),
        ),
        JoinError::Refused(JoinRefusal::NoSuchSeat(message)) => ApiError::bad_request(message),
        JoinError::Refused(JoinRefusal::BadToken) => ApiError::new(
            StatusCode::FORBIDDEN,
            "bad_token",
            "the same_player token holds no seat of this room",
        ),
        JoinError::Refused(JoinRefusal::LoginRequired) => login_required(),
        JoinError::Refused(JoinRefusal::AlreadySeated(seat)) => ApiError::new(
            StatusCode::CONFLICT,
            "already_seated",
            format!("this account holds seat {seat} already; a rated game needs another player"),
        ),
        JoinError::Unavailable => ApiError::unavailable(),
    }
}

/// Where a room's request is answered.
enum Found {
    /// By this node's room task.
    Here(RoomHandle),
    /// By the room's owner, another node of the cluster.
    Elsewhere(Uuid),
}

/// The room `reference` names, looked up for the request's client (see [`lookup`]): 404
/// `not_found`, or 429 `rate_limited` over the client's budgets. A room another node owns is
/// [`Found::Elsewhere`], unless the request itself comes from another node: a forwarded request
/// is never forwarded again (503 `room_moving`: nothing was done, the sender tries the room's
/// new owner).
async fn find_room(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    reference: &str,
) -> Result<Found, ApiError> {
    let client = state.client_ip(peer.ip(), headers);
    match lookup::find_room(state, client, reference).await {
        Ok(Lookup::Found(room)) => Ok(Found::Here(room)),
        Ok(Lookup::Missing) => Err(ApiError::not_found(format!("no room {reference:?}"))),
        Ok(Lookup::Limited(retry)) => Err(ApiError::rate_limited(
            lookup::limited_message(retry),
            retry,
        )),
        Err(StoreError::OwnedElsewhere { room_id }) if state.node.is_some() => {
            if state.from_peer(headers) {
                Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ROOM_MOVING,
                    "the room moved to another node while this request was on its way; \
                     nothing was done here",
                ))
            } else {
                Ok(Found::Elsewhere(room_id))
            }
        }
        Err(e) => Err(e.into()),
    }
}

/// Answers `method path` (with `body`) for a room another node owns by forwarding it there,
/// by the cluster's one routing policy ([`route`]): answered here (`local`) once this node has
/// claimed the room. 503 `unavailable` when no node served the room in time or this node is
/// shutting down; 404 when the room no longer exists; 502 `unknown_outcome` when a join may have
/// reached the owner and its answer was lost (never sent twice: it could take a second seat).
pub(super) async fn forwarded<F, Fut>(
    state: &AppState,
    room_id: Uuid,
    (client, headers): (IpAddr, &HeaderMap),
    request: (Method, String, Option<Bytes>),
    local: F,
) -> Result<Response, ApiError>
where
    F: Fn(RoomHandle) -> Fut,
    Fut: Future<Output = Result<Response, ApiError>>,
{
    let (method, path, body) = request;
    let Some(node) = &state.node else {
        return Err(ApiError::unavailable());
    };
    let attempt = || async {
        let owner = node
            .owner_of(room_id)
            .await
            .map_err(Attempt::Store)?
            .ok_or_else(|| Attempt::Retry("no live node owns the room".into()))?;
        forward(
            node,
            &owner,
            method.clone(),
            &path,
            body.clone(),
            client,
            headers,
        )
        .await
    };
    let id = room_id.to_string();
    let here = || state.registry.find(&id);
    let routed = route(
        node.lease_ttl(),
        state.shutdown.clone(),
        std::future::pending(),
        attempt,
        here,
    )
    .await;
    match routed {
        Ok(Routed::Owner(answer)) => Ok(answer),
        Ok(Routed::Here(room)) => local(room).await,
        Err(RouteError::Gone) => Err(ApiError::not_found(format!("no room {room_id}"))),
        Err(RouteError::Moving) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "no node could serve the room yet (it is moving to another node); try again",
        )),
        Err(RouteError::Stopped) => Err(ApiError::shutting_down()),
        Err(RouteError::Unknown(why)) => {
            tracing::warn!(%room_id, %why, "a forwarded request's answer was lost");
            Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                "unknown_outcome",
                "the room's node did not answer: the request may have been carried out there \
                 (a join may hold a seat whose token was lost); it was not sent again",
            ))
        }
        Err(RouteError::Store(e)) => Err(e.into()),
    }
}

/// `POST /api/rooms`: 201 `{room_id, invite_code, invite_url, seat, color, seat_token}`.
pub async fn create_room(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    if *state.shutdown.borrow() {
        return Err(ApiError::shutting_down());
    }
    let client = state.client_ip(peer.ip(), &headers);
    if let Err(retry_after) = state.limiters.allow_room(client) {
        return Err(ApiError::rate_limited(
            format!(
                "at most {} new rooms a minute from one address",
                state.config.limits.rooms_per_minute
            ),
            retry_after,
        ));
    }
    let body: CreateBody = body.parse(None)?;
    let (name, user) = auth::player(
        &state,
        peer,
        &headers,
        &Method::POST,
        clean_name(body.name)?,
    )
    .await?;
    let kind: GameKind = body.game.parse().map_err(|e: crate::rules::RuleError| {
        ApiError::new(StatusCode::BAD_REQUEST, "unknown_game", e.message)
    })?;
    let clock = match body.clock {
        None | Some(Value::Null) => None,
        Some(clock) => Some(
            TimeControl::parse(&clock)
                .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_clock", e))?,
        ),
    };
    let visibility = match body.visibility.as_deref() {
        None | Some("private") => Visibility::Private,
        Some("public") => Visibility::Public,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "visibility is \"public\" or \"private\", not {other:?}"
            )));
        }
    };
    let options = body.options.unwrap_or_else(|| json!({}));
    let setup = game_setup(body.seats, &options)?;
    let bots = body.bots.unwrap_or_default();
    let rated = body.rated.unwrap_or(false);
    if rated {
        check_rated(user, clock.as_ref(), &setup, bots.len())?;
    }
    // The room keeps its clock settings and whether it is rated with its options, so a restart
    // and a rematch find them.
    let mut options = options;
    if let (Some(clock), Value::Object(map)) = (clock, &mut options) {
        map.insert("clock".into(), json!(clock));
    }
    if let (true, Value::Object(map)) = (rated, &mut options) {
        map.insert("rated".into(), Value::Bool(true));
    }
    let request = NewRoom {
        kind,
        setup,
        options,
        visibility,
        seat: body.seat.map_or(SeatChoice::Random, SeatChoice::from),
        name,
        user,
        bots: bots.into_iter().map(|bot| (bot.seat, bot.level)).collect(),
    };
    let created = state.registry.create(request).await.map_err(|e| match e {
        CreateError::Position(e) if e.code == RuleErrorCode::BadPosition => {
            ApiError::new(StatusCode::BAD_REQUEST, "bad_position", e.message)
        }
        CreateError::Position(e) if e.code == RuleErrorCode::BadOption => {
            ApiError::bad_request(e.message)
        }
        CreateError::Position(e) => ApiError::bad_request(e.message),
        CreateError::AlreadyOver(_) => {
            ApiError::new(StatusCode::BAD_REQUEST, "bad_position", e.to_string())
        }
        CreateError::Seat(refusal) => join_error(JoinError::Refused(refusal)),
        CreateError::Bots(message) => ApiError::bad_request(message),
        CreateError::Store(e) => e.into(),
    })?;
    let joined = created.joined;
    let body = json!({
        "room_id": joined.room_id,
        "invite_code": created.room.invite_code,
        "invite_url": invite_url(&state, peer, &headers, &created.room.invite_code),
        "seat": joined.seat,
        "color": joined.color,
        "seat_token": joined.seat_token,
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/rooms/{room_id or invite_code}`: the room summary (from its owner, in a cluster).
pub async fn room_summary(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(reference): ApiPath<String>,
) -> Result<Response, ApiError> {
    let summary = |room: RoomHandle| async move {
        let summary = room.summary().await.ok_or_else(ApiError::unavailable)?;
        Ok(Json(summary).into_response())
    };
    match find_room(&state, peer, &headers, &reference).await? {
        Found::Here(room) => summary(room).await,
        Found::Elsewhere(room_id) => {
            let client = state.client_ip(peer.ip(), &headers);
            let request = (Method::GET, format!("/api/rooms/{room_id}"), None);
            forwarded(&state, room_id, (client, &headers), request, summary).await
        }
    }
}

/// `POST /api/rooms/{invite_code}/join`: 200 `{room_id, seat, color, seat_token}`; 409 `room_full`
/// (decided by the room's owner, in a cluster).
pub async fn join_room(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(reference): ApiPath<String>,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    let parsed: JoinBody = body.parse(Some(JoinBody::default()))?;
    let (name, user) = auth::player(
        &state,
        peer,
        &headers,
        &Method::POST,
        clean_name(parsed.name)?,
    )
    .await?;
    let choice = parsed.seat.map_or(SeatChoice::Random, SeatChoice::from);
    let same_player = parsed.same_player.as_deref().map(hash_token);
    let join = |room: RoomHandle| {
        let (choice, name) = (choice.clone(), name.clone());
        async move {
            let joined = room
                .join(choice, name, user, same_player)
                .await
                .map_err(join_error)?;
            Ok(Json(json!({
                "room_id": joined.room_id,
                "seat": joined.seat,
                "color": joined.color,
                "seat_token": joined.seat_token,
            }))
            .into_response())
        }
    };
    match find_room(&state, peer, &headers, &reference).await? {
        Found::Here(room) => join(room).await,
        Found::Elsewhere(room_id) => {
            let client = state.client_ip(peer.ip(), &headers);
            let path = format!("/api/rooms/{room_id}/join");
            let request = (Method::POST, path, Some(body.into_bytes()));
            forwarded(&state, room_id, (client, &headers), request, join).await
        }
    }
}

/// `GET /api/rooms`: public rooms waiting for players, newest first.
pub async fn lobby(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // A waiting room past its time expires when its task next runs; the lobby leaves it out now.
    let ttl = chrono::Duration::from_std(state.config.limits.waiting_room_ttl())
        .unwrap_or(chrono::Duration::MAX);
    let oldest = state
        .config
        .clock
        .now_utc()
        .checked_sub_signed(ttl)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
    let rooms: Vec<Value> = state
        .store
        .lobby(LOBBY_SIZE)
        .await?
        .into_iter()
        .filter(|r| r.created_at >= oldest)
        .map(|r| {
            json!({
                "room_id": r.room_id,
                "invite_code": r.invite_code,
                "invite_url": invite_url(&state, peer, &headers, &r.invite_code),
                "game": r.game,
                "seats": r.seats,
                "taken": r.taken,
                "created_at": r.created_at,
                "creator_name": r.creator_name,
                "clock": r.clock,
            })
        })
        .collect();
    Ok(Json(json!({ "rooms": rooms })).into_response())
}

/// `GET /api/whoami`: the client address the server sees for this request, `{"ip"}`, to check a
/// reverse proxy's set-up (`--trusted-proxies`).
pub async fn whoami(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Json<Value> {
    let ip = state.client_ip(peer.ip(), &headers);
    Json(json!({ "ip": ip.to_string() }))
}
