//! Who a request comes from: the account of its session cookie or of its API token
//! (`Authorization: Bearer khn_...`), if any.
//!
//! A request that changes something (any method but `GET` and `HEAD`) and is authenticated by
//! the cookie must pass the Origin check the WebSocket has (`proxy::origin_allowed`), so a page
//! of another site cannot make a logged-in browser act (CSRF); `SameSite=Lax` and the JSON
//! `Content-Type` the API requires stop most such requests already. A bearer token is never sent
//! by a browser on its own, so token requests need no such check.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap, Method, StatusCode};

use super::AppState;
use super::error::ApiError;
use super::proxy;
use crate::accounts::tokens::{Scope, bearer};
use crate::store::UserRow;
use uuid::Uuid;

/// How a request proved who it is.
#[derive(Clone, Debug, PartialEq)]
pub enum Credential {
    /// A session cookie; the session's token hash.
    Session([u8; 32]),
    /// A personal API token with these scopes.
    Token(Vec<Scope>),
}

/// The account a request comes from.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The (active) account.
    pub user: UserRow,
    /// Its session or token.
    pub credential: Credential,
}

impl Caller {
    /// Whether the caller may do what `scope` allows: a session may do everything.
    pub fn may(&self, scope: Scope) -> bool {
        match &self.credential {
            Credential::Session(_) => true,
            Credential::Token(scopes) => scopes.contains(&scope),
        }
    }
}

/// 401 `not_logged_in`.
pub fn not_logged_in(message: &str) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "not_logged_in", message)
}

/// 403 `forbidden_origin`: a cookie request, or a register or login (which set the cookie),
/// from a page of another origin.
pub fn forbidden_origin() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "forbidden_origin",
        "requests from this origin may not use or set the session cookie (--allowed-origins)",
    )
}

/// The caller of a request, or `None` when it carries neither a session cookie nor a token.
/// Errors: 401 `not_logged_in` for a token that is not valid (a forged, revoked or altered one,
/// or one of a disabled account); 403 `forbidden_origin` for a state-changing cookie request
/// from another origin; 503 when the database does not answer. A cookie naming no live session
/// counts as none (it is stale, not an attack: the browser keeps it after a logout elsewhere).
pub async fn caller(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    method: &Method,
) -> Result<Option<Caller>, ApiError> {
    if let Some(token) = bearer(headers) {
        let Some((row, user)) = state.accounts.api_token(token).await? else {
            return Err(not_logged_in("this API token is not valid"));
        };
        let scopes = row.scopes.iter().filter_map(|s| s.parse().ok()).collect();
        return Ok(Some(Caller {
            user,
            credential: Credential::Token(scopes),
        }));
    }
    let Some(token) = state.accounts.cookie().token_in(headers) else {
        return Ok(None);
    };
    let changes = !matches!(*method, Method::GET | Method::HEAD);
    if changes && !proxy::origin_allowed(&state.config, peer.ip(), headers) {
        return Err(forbidden_origin());
    }
    Ok(state
        .accounts
        .session(&token)
        .await?
        .map(|(session, user)| Caller {
            user,
            credential: Credential::Session(session.token_hash),
        }))
}

/// The caller, who must be logged in and allowed `scope`: 401 `not_logged_in` when the request
/// has no credential, 403 `missing_scope` for a token without `scope`.
pub async fn require(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    method: &Method,
    scope: Scope,
) -> Result<Caller, ApiError> {
    let caller = caller(state, peer, headers, method)
        .await?
        .ok_or_else(|| not_logged_in("log in first"))?;
    if !caller.may(scope) {
        return Err(missing_scope(scope));
    }
    Ok(caller)
}

/// The caller's session, for what only a logged-in browser may do (change the password, manage
/// tokens and sessions, delete the account): 401 `not_logged_in` without one, 403
/// `session_required` for an API token.
pub async fn require_session(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    method: &Method,
) -> Result<(UserRow, [u8; 32]), ApiError> {
    let caller = caller(state, peer, headers, method)
        .await?
        .ok_or_else(|| not_logged_in("log in first"))?;
    match caller.credential {
        Credential::Session(hash) => Ok((caller.user, hash)),
        Credential::Token(_) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "session_required",
            "this needs a logged-in browser, not an API token",
        )),
    }
}

/// The account a reading request is seen by (what it may list): its session, or an API token
/// with `read`; `None` without a credential. Errors as [`caller`], and 403 `missing_scope` for a
/// token without `read`.
pub async fn viewer(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    method: &Method,
) -> Result<Option<UserRow>, ApiError> {
    match caller(state, peer, headers, method).await? {
        Some(caller) if !caller.may(Scope::Read) => Err(missing_scope(Scope::Read)),
        caller => Ok(caller.map(|caller| caller.user)),
    }
}

/// Who takes a seat in a create or join: a logged-in caller (a session, or a token with `play`)
/// as its account, under its username; or an anonymous player under `name` (already cleaned),
/// which may not be any account's username ignoring case (400 `bad_name`: nobody plays under
/// someone else's name). Errors also as [`caller`], and 403 `missing_scope` for a token without
/// `play`.
pub async fn player(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    method: &Method,
    name: Option<String>,
) -> Result<(Option<String>, Option<Uuid>), ApiError> {
    if let Some(caller) = caller(state, peer, headers, method).await? {
        if !caller.may(Scope::Play) {
            return Err(missing_scope(Scope::Play));
        }
        return Ok((Some(caller.user.name), Some(caller.user.id)));
    }
    if let Some(name) = &name
        && state.store.user_by_name(name).await?.is_some()
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_name",
            format!("{name:?} is an account's username; log in to play under it"),
        ));
    }
    Ok((name, None))
}

/// 403 `missing_scope`.
fn missing_scope(scope: Scope) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "missing_scope",
        format!("this API token lacks the scope {scope}"),
    )
}

/// The peer address of a request (its extensions), as the server's accept loop recorded it.
pub fn peer_of(extensions: &Extensions) -> Result<SocketAddr, ApiError> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| *peer)
        .ok_or_else(|| ApiError::bad_request("no peer address"))
}

/// Extracts the caller's session (see [`require_session`]): what only a logged-in browser may do.
pub struct SessionUser {
    /// The account.
    pub user: UserRow,
    /// Its session's token hash.
    pub session: [u8; 32],
}

impl FromRequestParts<AppState> for SessionUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = peer_of(&parts.extensions)?;
        let (user, session) = require_session(state, peer, &parts.headers, &parts.method).await?;
        Ok(SessionUser { user, session })
    }
}

/// Extracts a caller allowed to read (see [`require`] with [`Scope::Read`]).
pub struct Reader(pub Caller);

impl FromRequestParts<AppState> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = peer_of(&parts.extensions)?;
        require(state, peer, &parts.headers, &parts.method, Scope::Read)
            .await
            .map(Reader)
    }
}
