//! `/api/account/...`: register, log in and out, the logged-in account, its password, sessions
//! and API tokens, and deleting it (docs/protocol.md, "Accounts").

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use super::AppState;
use super::auth::{self, Reader, SessionUser};
use super::error::ApiError;
use super::extract::{ApiPath, JsonBytes};
use super::games;
use super::proxy;
use super::seat_accounts;
use crate::accounts::{AccountError, Client, NewSession};
use crate::rules::GameKind;
use crate::store::{ApiTokenRow, UserRow};

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> Self {
        let message = e.to_string();
        match e {
            AccountError::BadName(_) => ApiError::new(StatusCode::BAD_REQUEST, "bad_name", message),
            AccountError::NameTaken => ApiError::new(StatusCode::CONFLICT, "name_taken", message),
            AccountError::BadPassword(_) => {
                ApiError::new(StatusCode::BAD_REQUEST, "bad_password", message)
            }
            AccountError::BadCredentials => {
                ApiError::new(StatusCode::UNAUTHORIZED, "bad_credentials", message)
            }
            AccountError::Disabled => {
                ApiError::new(StatusCode::FORBIDDEN, "account_disabled", message)
            }
            AccountError::BadRequest(message) => ApiError::bad_request(message),
            AccountError::RateLimited(wait) => ApiError::rate_limited(message, wait),
            AccountError::Store(e) => e.into(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialsBody {
    name: String,
    password: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PasswordChange {
    old: String,
    new: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PasswordBody {
    password: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenBody {
    description: String,
    scopes: Vec<String>,
}

/// The account as the API shows it to its owner.
fn account_json(user: &UserRow) -> Value {
    json!({"id": user.id, "name": user.name, "created_at": user.created_at})
}

fn token_json(t: &ApiTokenRow) -> Value {
    json!({
        "id": t.id,
        "description": t.description,
        "scopes": t.scopes,
        "created_at": t.created_at,
        "last_used_at": t.last_used_at,
    })
}

/// `status` with `body` and the cookie `set_cookie`.
fn with_cookie(status: StatusCode, body: Option<Value>, set_cookie: String) -> Response {
    let mut response = match body {
        Some(body) => (status, Json(body)).into_response(),
        None => status.into_response(),
    };
    if let Ok(value) = HeaderValue::from_str(&set_cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// 204 that also removes the session cookie.
fn logged_out(state: &AppState) -> Response {
    with_cookie(
        StatusCode::NO_CONTENT,
        None,
        state.accounts.cookie().clear(),
    )
}

fn client(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> Client {
    Client {
        ip: state.client_ip(peer.ip(), headers),
        user_agent: headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    }
}

/// Register and log in set a cookie: a page of another origin may not make a browser do
/// either (login CSRF).
fn check_origin(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> Result<(), ApiError> {
    if proxy::origin_allowed(&state.config, peer.ip(), headers) {
        Ok(())
    } else {
        Err(auth::forbidden_origin())
    }
}

fn session_answer(state: &AppState, status: StatusCode, new: NewSession) -> Response {
    let cookie = state.accounts.cookie().set(&new.token);
    with_cookie(status, Some(account_json(&new.user)), cookie)
}

/// A register or login request: its origin checked, its body read, its client noted.
pub struct CredentialsRequest {
    name: String,
    password: String,
    client: Client,
}

impl FromRequest<AppState> for CredentialsRequest {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let peer = auth::peer_of(request.extensions())?;
        let headers = request.headers().clone();
        check_origin(state, peer, &headers)?;
        let body: CredentialsBody = JsonBytes::from_request(request, state).await?.parse(None)?;
        Ok(CredentialsRequest {
            name: body.name,
            password: body.password,
            client: client(state, peer, &headers),
        })
    }
}

/// `POST /api/account/register {name, password}`: 201 with the account and the session cookie.
pub async fn register(
    State(state): State<AppState>,
    r: CredentialsRequest,
) -> Result<Response, ApiError> {
    let new = state.accounts.register(&r.name, &r.password, &r.client);
    Ok(session_answer(&state, StatusCode::CREATED, new.await?))
}

/// `POST /api/account/login {name, password}`: 200 with the account and the session cookie;
/// 401 `bad_credentials`, 429 `rate_limited`.
pub async fn login(
    State(state): State<AppState>,
    r: CredentialsRequest,
) -> Result<Response, ApiError> {
    let new = state.accounts.login(&r.name, &r.password, &r.client);
    Ok(session_answer(&state, StatusCode::OK, new.await?))
}

/// `POST /api/account/logout`: ends this browser's session; 204, the cookie removed.
pub async fn logout(
    State(state): State<AppState>,
    SessionUser { session, .. }: SessionUser,
) -> Result<Response, ApiError> {
    state.store.delete_session(&session).await?;
    Ok(logged_out(&state))
}

/// `POST /api/account/logout-everywhere`: ends every session of the account; 204.
pub async fn logout_everywhere(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
) -> Result<Response, ApiError> {
    state.store.delete_sessions_of(user.id).await?;
    Ok(logged_out(&state))
}

/// `GET /api/account`: the logged-in account (a session, or a token with `read`).
pub async fn me(Reader(caller): Reader) -> Json<Value> {
    Json(account_json(&caller.user))
}

/// `POST /api/account/password {old, new}`: 204; every other session of the account ends.
pub async fn change_password(
    State(state): State<AppState>,
    SessionUser { user, session }: SessionUser,
    body: JsonBytes,
) -> Result<StatusCode, ApiError> {
    let body: PasswordChange = body.parse(None)?;
    state
        .accounts
        .change_password(&user, &session, &body.old, &body.new)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/account {password}`: deletes the account's credentials (its games stay); 204,
/// the cookie removed.
pub async fn delete(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    let body: PasswordBody = body.parse(None)?;
    state.accounts.delete(&user, &body.password).await?;
    // Its rooms in play, and the recently finished ones a page may still show, say so now.
    let finished = i64::try_from(super::my_games::MAX_FINISHED).unwrap_or(i64::MAX);
    let mut told = std::collections::HashSet::new();
    for (room_id, _) in state.store.account_seats(user.id, finished).await? {
        if told.insert(room_id) {
            seat_accounts::tell_room(&state, room_id).await;
        }
    }
    Ok(logged_out(&state))
}

/// The account's sessions, the latest used first; with the asking one's hash, each says whether
/// it is that one (`current`).
async fn sessions_json(
    state: &AppState,
    user: &UserRow,
    asking: Option<&[u8; 32]>,
) -> Result<Vec<Value>, ApiError> {
    let rows = state.store.sessions_of(user.id).await?;
    Ok(rows
        .iter()
        .map(|s| {
            let mut entry = json!({
                "id": s.id,
                "created_at": s.created_at,
                "last_used_at": s.last_used_at,
                "user_agent": s.user_agent,
            });
            if let Some(asking) = asking {
                entry["current"] = json!(&s.token_hash == asking);
            }
            entry
        })
        .collect())
}

/// `GET /api/account/sessions`: the account's sessions, the latest used first; `current` marks
/// the one asking.
pub async fn sessions(
    State(state): State<AppState>,
    SessionUser { user, session }: SessionUser,
) -> Result<Json<Value>, ApiError> {
    let sessions = sessions_json(&state, &user, Some(&session)).await?;
    Ok(Json(json!({ "sessions": sessions })))
}

/// `DELETE /api/account/sessions/{id}`: ends one session of the account; 204, 404 `not_found`.
pub async fn end_session(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<StatusCode, ApiError> {
    if state.store.delete_session_by_id(user.id, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("no such session"))
    }
}

/// `POST /api/account/tokens {description, scopes}`: 201 with the token (shown once).
pub async fn create_token(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
    body: JsonBytes,
) -> Result<Response, ApiError> {
    let body: TokenBody = body.parse(None)?;
    let (row, token) = state
        .accounts
        .create_token(&user, &body.description, &body.scopes)
        .await?;
    let mut answer = token_json(&row);
    answer["token"] = json!(token);
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// The account's tokens as listed.
async fn tokens_json(state: &AppState, user: &UserRow) -> Result<Vec<Value>, ApiError> {
    let rows = state.store.api_tokens_of(user.id).await?;
    Ok(rows.iter().map(token_json).collect())
}

/// `GET /api/account/tokens`: the account's tokens, newest first (never the tokens themselves).
pub async fn tokens(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
) -> Result<Json<Value>, ApiError> {
    let tokens = tokens_json(&state, &user).await?;
    Ok(Json(json!({ "tokens": tokens })))
}

/// `DELETE /api/account/tokens/{id}`: revokes a token; 204, 404 `not_found`.
pub async fn revoke_token(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
    ApiPath(id): ApiPath<Uuid>,
) -> Result<StatusCode, ApiError> {
    if state.store.delete_api_token(user.id, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("no such token"))
    }
}

/// At most this many seat tokens in one attach request.
const MAX_ATTACH: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AttachBody {
    seat_tokens: Vec<String>,
}

/// `POST /api/account/attach {seat_tokens}`: gives the account the seats of anonymous games
/// the browser holds tokens of. Each token is checked: it must be a person's seat's (every room
/// a rematch carried it to counts) and belong to no other account. 200 `{"attached": [{"index",
/// "room_id"}], "refused": [{"index", "reason"}]}`, by the token's index in the request (the
/// tokens are never repeated); over 100 tokens is `bad_request`.
pub async fn attach(
    State(state): State<AppState>,
    SessionUser { user, .. }: SessionUser,
    body: JsonBytes,
) -> Result<Json<Value>, ApiError> {
    let body: AttachBody = body.parse(None)?;
    if body.seat_tokens.len() > MAX_ATTACH {
        return Err(ApiError::bad_request(format!(
            "at most {MAX_ATTACH} seat tokens at once"
        )));
    }
    let (mut attached, mut refused) = (Vec::new(), Vec::new());
    for (index, token) in body.seat_tokens.iter().enumerate() {
        let hash = crate::accounts::secrets::hash_secret(token);
        let seats = state.store.seats_of_token(&hash).await?;
        let reason = if seats.iter().all(|(_, _, bot)| *bot) {
            Some("no seat has this token")
        } else if seats
            .iter()
            .any(|(_, owner, _)| owner.is_some_and(|o| o != user.id))
        {
            Some("this seat belongs to another account")
        } else {
            None
        };
        if let Some(reason) = reason {
            refused.push(json!({"index": index, "reason": reason}));
            continue;
        }
        state.store.attach_seats(&hash, user.id).await?;
        for (room_id, _, _) in seats {
            // A live room learns it now, on whichever node runs it.
            seat_accounts::tell_room(&state, room_id).await;
            attached.push(json!({"index": index, "room_id": room_id}));
        }
    }
    Ok(Json(json!({"attached": attached, "refused": refused})))
}

/// `GET /api/account/export`: everything the server keeps about the account (the cookie, or a
/// token with `read`): the account, its sessions and tokens (never the secrets), and every
/// finished game it played, each as `GET /api/games/{room_id}` gives it, with the Ouk Chatrang
/// ones also as one PGN text (`pgn`, games apart by a blank line), the first finished first.
pub async fn export(
    State(state): State<AppState>,
    Reader(caller): Reader,
) -> Result<Json<Value>, ApiError> {
    let user = caller.user;
    let sessions = sessions_json(&state, &user, None).await?;
    let tokens = tokens_json(&state, &user).await?;
    let (mut games, mut pgn) = (Vec::new(), Vec::new());
    for room_id in state.store.finished_games_of(user.id).await? {
        let Some(record) = state.store.game_record(room_id).await? else {
            continue;
        };
        if record.game == GameKind::OukChatrang {
            pgn.push(games::pgn_text(&state, &record).await?);
        }
        games.push(games::record_json(&state, record).await?);
    }
    Ok(Json(json!({
        "account": account_json(&user),
        "sessions": sessions,
        "tokens": tokens,
        "games": games,
        "pgn": pgn.join("\n"),
    })))
}

/// `GET /api/session`: `{"account": ...}`, the account of the request's session cookie (or
/// token) as `GET /api/account` gives it, `null` when it has none: 200 either way, so a page can
/// ask whether it is logged in without an error answer.
pub async fn session(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    let caller = auth::caller(&state, peer, &headers, &axum::http::Method::GET).await?;
    Ok(Json(
        json!({"account": caller.map(|caller| account_json(&caller.user))}),
    ))
}
