//! HTTP and WebSocket: the routes, their shared state, and the health endpoints.
//!
//! Arrows point one way: handlers talk to rooms through the registry, and read finished games
//! straight from the store; they never decide a rule.

mod account;
mod auth;
mod challenges;
mod error;
mod extract;
mod games;
mod history;
mod limits;
mod lookup;
mod my_games;
mod names;
mod pairing;
mod pgn;
mod profile_exports;
mod profiles;
mod proxy;
mod ratings;
mod record;
mod rest;
mod seat_accounts;
mod site;
mod web;
mod ws;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::error_handling::HandleErrorLayer;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{delete, get, post, put};
use axum::{BoxError, Router};
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::sync::{mpsc, watch};
use tower::ServiceBuilder;

use crate::accounts::Accounts;
use crate::cluster::{Node, PEER_CLIENT_HEADER, PEER_HEADERS, PEER_SECRET_HEADER};
use crate::config::Config;
use crate::room::registry::Registry;
use crate::store::Store;
use crate::telemetry;

pub use error::{ApiError, retry_after_secs};
pub use limits::{AddressCounter, AddressSlot, Limiters, Sender};
pub use proxy::trusted as is_trusted_proxy;

/// Largest REST request body, in bytes.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Finds, creates and restores rooms: the way to every room task.
    pub registry: Arc<Registry>,
    /// Cluster mode: this node, which relays clients of rooms other nodes own.
    pub node: Option<Arc<Node>>,
    /// The database, read directly for the lobby, finished games, PGN and `/readyz`.
    pub store: Store,
    /// The server's configuration (bind address, public URL for invite links, ...).
    pub config: Arc<Config>,
    /// Becomes `true` when the server begins shutting down; connections then close with 1012.
    pub shutdown: watch::Receiver<bool>,
    /// Held by every WebSocket task while it runs, so shutdown can wait for them (never sent on).
    pub connection_open: mpsc::Sender<()>,
    /// Rate and connection limits.
    pub limiters: Arc<Limiters>,
    /// Users, sessions and API tokens.
    pub accounts: Arc<Accounts>,
    /// The pages of logged-in users on this node, and how their events reach them.
    pub site: crate::site::Site,
    /// Quick pairing: the pools and their queue.
    pub pairing: Arc<crate::pairing::Pairing>,
    /// Renders the Prometheus metrics (`None` when another recorder owns the process's metrics).
    pub metrics: Option<PrometheusHandle>,
    /// Whether this state serves the internal listener (`--internal-bind`), the only one where
    /// peer calls are believed when there is one.
    pub internal: bool,
}

impl AppState {
    /// Whether the request comes from another node of this cluster (it carries the secret; a
    /// request whose peer headers were not to be believed lost them in `check_peer`).
    pub fn from_peer(&self, headers: &HeaderMap) -> bool {
        self.node.as_ref().is_some_and(|node| node.is_peer(headers))
    }

    /// The request's client: the address another node of the cluster names for it, or else
    /// as `proxy::client_ip` says.
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let named = || headers.get(PEER_CLIENT_HEADER)?.to_str().ok()?.parse().ok();
        if self.from_peer(headers)
            && let Some(client) = named()
        {
            return client;
        }
        proxy::client_ip(peer, headers, &self.config.trusted_proxies)
    }
}

/// Drops the peer headers ([`PEER_HEADERS`]) of a request that must not be believed as a peer's
/// (a wrong secret, or any secret on the public listener of a node with `--internal-bind`, or
/// a peer's client address without a secret), logging and counting each attempt
/// (`khanate_peer_auth_failures_total`), so that no handler ever reads them.
async fn check_peer(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    if PEER_HEADERS.iter().any(|name| headers.contains_key(*name)) {
        let why = match &state.node {
            _ if !headers.contains_key(PEER_SECRET_HEADER) => Some("no_secret"),
            None => Some("not_a_cluster"),
            Some(_) if state.config.cluster.internal_bind.is_some() && !state.internal => {
                Some("public_listener")
            }
            Some(node) if !node.is_peer(headers) => Some("wrong_secret"),
            Some(_) => None,
        };
        if let Some(why) = why {
            tracing::warn!(peer = %peer.ip(), why, path = %request.uri().path(), "peer headers refused");
            telemetry::peer_auth_failure(why);
            for name in PEER_HEADERS {
                request.headers_mut().remove(name);
            }
        }
    }
    next.run(request).await
}

/// The whole HTTP surface, under the configured path prefix; a request that takes over
/// `--request-timeout-s` (its body included) is answered 408 `timeout`, but for a quick-pairing
/// request, which is held for up to `--pairing-hold-s` more.
pub fn router(state: AppState) -> Router {
    routes(state.clone()).layer(axum::middleware::from_fn_with_state(state, check_peer))
}

/// `router`'s routes answered 408 `timeout` past `timeout`.
fn time_limited(router: Router<AppState>, timeout: std::time::Duration) -> Router<AppState> {
    router.layer(
        ServiceBuilder::new()
            .layer(HandleErrorLayer::new(move |_: BoxError| async move {
                ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "timeout",
                    format!("the request took over {} s", timeout.as_secs()),
                )
            }))
            .timeout(timeout),
    )
}

/// Every route, under the configured path prefix.
fn routes(state: AppState) -> Router {
    let prefix = state.config.path_prefix.trim_end_matches('/').to_owned();
    let timeout = state.config.limits.request_timeout();
    let held = Router::new().route("/api/pairing", post(pairing::join));
    let routes = Router::new()
        .merge(time_limited(answered_routes(), timeout))
        .merge(time_limited(held, state.pairing.hold() + timeout))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state.clone());
    if prefix.is_empty() {
        routes
    } else {
        // A nested "/" answers only the bare prefix; the pages' base is the prefix with a slash.
        let home = time_limited(
            Router::new().route(&format!("{prefix}/"), get(web::home)),
            timeout,
        );
        home.with_state(state)
            .nest(&prefix, routes)
            .fallback(not_found)
            .method_not_allowed_fallback(method_not_allowed)
    }
}

/// Every route but the held ones.
fn answered_routes() -> Router<AppState> {
    Router::new()
        .route("/api/rooms", post(rest::create_room).get(rest::lobby))
        .route("/api/rooms/{reference}", get(rest::room_summary))
        .route("/api/rooms/{reference}/join", post(rest::join_room))
        .route("/api/pairing/pools", get(pairing::pools))
        .route(
            "/api/challenges",
            post(challenges::create).get(challenges::list),
        )
        .route("/api/challenges/{id}", get(challenges::show))
        .route("/api/challenges/{id}/accept", post(challenges::accept))
        .route("/api/challenges/{id}/decline", post(challenges::decline))
        .route("/api/challenges/{id}/cancel", post(challenges::cancel))
        .route(
            "/api/rooms/{room_id}/accounts",
            put(seat_accounts::accounts_changed),
        )
        .route("/api/my-games", post(my_games::my_games))
        .route("/api/games", get(games::recent))
        .route("/api/games/{room_id}", get(games::game_record))
        .route("/api/games/{room_id}/pgn", get(games::game_pgn))
        .route("/api/games/{room_id}/record", get(games::game_text))
        .route("/api/users/{username}", get(profiles::profile))
        .route("/api/users/{username}/games", get(profiles::games))
        .route(
            "/api/users/{username}/rating-history",
            get(ratings::history),
        )
        .route("/api/leaderboard/{game}", get(ratings::leaderboard))
        .route(
            "/api/users/{username}/vs/{other}",
            get(profiles::head_to_head),
        )
        .route(
            "/api/users/{username}/games.ndjson",
            get(profile_exports::ndjson),
        )
        .route("/api/users/{username}/games.pgn", get(profile_exports::pgn))
        .route("/api/account", get(account::me).delete(account::delete))
        .route("/api/account/register", post(account::register))
        .route("/api/account/login", post(account::login))
        .route("/api/account/logout", post(account::logout))
        .route(
            "/api/account/logout-everywhere",
            post(account::logout_everywhere),
        )
        .route("/api/account/password", post(account::change_password))
        .route("/api/account/attach", post(account::attach))
        .route("/api/session", get(account::session))
        .route("/api/account/export", get(account::export))
        .route("/api/account/sessions", get(account::sessions))
        .route("/api/account/sessions/{id}", delete(account::end_session))
        .route(
            "/api/account/tokens",
            post(account::create_token).get(account::tokens),
        )
        .route("/api/account/tokens/{id}", delete(account::revoke_token))
        .route("/ws", get(ws::upgrade))
        .route("/ws/site", get(site::upgrade))
        .route("/", get(web::home))
        .route("/r/{invite_code}", get(web::room))
        .route("/login", get(web::login))
        .route("/account", get(web::account))
        .route("/g/{room_id}", get(web::game))
        .route("/leaderboard/{game}", get(web::leaderboard))
        .route("/@/{username}", get(web::profile))
        .route("/rules/{game}", get(web::rules))
        .route("/assets/{*path}", get(web::asset))
        .route("/api/whoami", get(rest::whoami))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// Resolves once the server begins shutting down.
async fn stopping(mut shutdown: watch::Receiver<bool>) {
    // An error: the sender is gone, which is a shutdown too.
    let _ = shutdown.wait_for(|stopping| *stopping).await;
}

/// `GET /healthz`: the process is up.
async fn healthz() -> &'static str {
    "ok"
}

/// `GET /readyz`: 200 when the store answers and the server is not shutting down, else 503.
async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if *state.shutdown.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down");
    }
    match state.store.ping().await {
        Ok(()) => (StatusCode::OK, "ready"),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "database unreachable"),
    }
}

/// `GET /metrics`: Prometheus text (see `telemetry` for the metrics).
async fn metrics(State(state): State<AppState>) -> Result<String, ApiError> {
    let handle = state
        .metrics
        .as_ref()
        .ok_or_else(|| ApiError::not_found("metrics are recorded elsewhere in this process"))?;
    Ok(handle.render())
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such endpoint")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this path does not take this method",
    )
}
