//! The web client: the files under `web/`, embedded in the binary (a debug build reads them from
//! the disk instead, so an edit shows on reload). Pages get `<base href>` set to where the server
//! is reached, so every relative URL in them works under a path prefix.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

use super::AppState;
use super::error::ApiError;
use super::extract::ApiPath;
use super::lookup::{self, Lookup};
use crate::config::Config;
use crate::rules::GameKind;
use crate::store::StoreError;

#[derive(RustEmbed)]
#[folder = "web/"]
struct Assets;

/// What each page file holds in place of the real base, replaced when it is served.
const BASE_PLACEHOLDER: &str = "<base href=\"/\">";

/// No file is taken for another type than it is served as.
const NOSNIFF: [(header::HeaderName, &str); 1] = [(header::X_CONTENT_TYPE_OPTIONS, "nosniff")];

/// No other site may frame a page: a framed room page could be clicked into resigning (both
/// headers, for old browsers and new).
const NO_FRAMING: [(header::HeaderName, &str); 2] = [
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::CONTENT_SECURITY_POLICY, "frame-ancestors 'none'"),
];

/// `GET /login`: register or log in.
pub async fn login(State(state): State<AppState>) -> Response {
    page(&state.config, "login.html", StatusCode::OK)
}

/// `GET /account`: the logged-in account's page (it sends a browser that is not to `/login`).
pub async fn account(State(state): State<AppState>) -> Response {
    page(&state.config, "account.html", StatusCode::OK)
}

/// `GET /`: the home page.
pub async fn home(State(state): State<AppState>) -> Response {
    page(&state.config, "index.html", StatusCode::OK)
}

/// `GET /r/{invite_code}`: the room page; with 404 when there is no such room (the page itself
/// then says so, in the reader's language), 503 when the store cannot tell; a look-up like the
/// API's, within the client's budgets (429 `rate_limited` beyond them).
pub async fn room(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(code): ApiPath<String>,
) -> Response {
    let client = state.client_ip(peer.ip(), &headers);
    let status = match lookup::find_room(&state, client, &code).await {
        Ok(Lookup::Found(_)) => StatusCode::OK,
        Ok(Lookup::Missing) => StatusCode::NOT_FOUND,
        Ok(Lookup::Limited(retry)) => {
            return ApiError::rate_limited(lookup::limited_message(retry), retry).into_response();
        }
        // Another node runs the room: the page's requests and socket are relayed there.
        Err(StoreError::OwnedElsewhere { .. }) => StatusCode::OK,
        Err(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    page(&state.config, "room.html", status)
}

/// `GET /g/{room_id}`: the page of a finished game; with 404 when there is none (the page itself
/// then says so), 503 when the store cannot tell.
pub async fn game(State(state): State<AppState>, ApiPath(room_id): ApiPath<String>) -> Response {
    let status = match uuid::Uuid::try_parse(&room_id) {
        Err(_) => StatusCode::NOT_FOUND,
        Ok(id) => match state.store.game_record(id).await {
            Ok(Some(_)) => StatusCode::OK,
            Ok(None) => StatusCode::NOT_FOUND,
            Err(_) => StatusCode::SERVICE_UNAVAILABLE,
        },
    };
    page(&state.config, "game.html", status)
}

/// `GET /leaderboard/{game}`: a game's leaderboards (its speeds), 404 (with the page) for a game
/// key that has none (see [`board_game`](super::ratings::board_game)).
pub async fn leaderboard(
    State(state): State<AppState>,
    ApiPath(game): ApiPath<String>,
) -> Response {
    let status = match super::ratings::board_game(&game) {
        Some(_) => StatusCode::OK,
        None => StatusCode::NOT_FOUND,
    };
    page(&state.config, "leaderboard.html", status)
}

/// `GET /@/{username}`: a player's page (docs/protocol.md "Players"); with 404 when no account
/// has that name (the page itself then says so), 503 when the store cannot tell.
pub async fn profile(State(state): State<AppState>, ApiPath(name): ApiPath<String>) -> Response {
    let status = match state.store.user_by_name(&name).await {
        Ok(Some(_)) => StatusCode::OK,
        Ok(None) => StatusCode::NOT_FOUND,
        Err(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    page(&state.config, "profile.html", status)
}

/// `GET /rules/{game}`: the rules page, 404 for a game this server does not host.
pub async fn rules(State(state): State<AppState>, ApiPath(game): ApiPath<String>) -> Response {
    let status = match game.parse::<GameKind>() {
        Ok(_) => StatusCode::OK,
        Err(_) => StatusCode::NOT_FOUND,
    };
    page(&state.config, "rules.html", status)
}

/// `GET /assets/{*path}`: any other file of the client, revalidated by its hash on each use so a
/// new server version never leaves a browser with stale scripts.
pub async fn asset(ApiPath(path): ApiPath<String>, headers: HeaderMap) -> Response {
    // Only the client's own files, by their exact names: a debug build reads from the disk, where
    // `Assets::get` follows encoded `..` and absolute paths out of `web/`.
    let file = Assets::iter()
        .any(|name| name == path)
        .then(|| Assets::get(&path))
        .flatten();
    let Some(file) = file else {
        return (NOSNIFF, ApiError::not_found("no such file")).into_response();
    };
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag));
    let cache = [
        (header::ETAG, etag),
        (header::CACHE_CONTROL, "no-cache".to_owned()),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, NOSNIFF, cache).into_response();
    }
    let content_type = [(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(&path)),
    )];
    (NOSNIFF, cache, content_type, file.data.into_owned()).into_response()
}

/// A page with its base set; pages are never cached since they carry the configured base.
fn page(config: &Config, name: &str, status: StatusCode) -> Response {
    let file = Assets::get(name).expect("the web client's pages are embedded");
    let html = String::from_utf8_lossy(&file.data).replacen(
        BASE_PLACEHOLDER,
        &format!("<base href=\"{}/\">", html_attribute(&base_path(config))),
        1,
    );
    let headers = [
        (
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        ),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (status, NOSNIFF, NO_FRAMING, headers, html).into_response()
}

/// The path the browser sees the server under, without a trailing slash: the path of the public
/// URL when one is set (it also covers a proxy that strips its prefix), else the path prefix.
fn base_path(config: &Config) -> String {
    let path = match &config.public_url {
        Some(url) => url
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|slash| &rest[slash..]))
            .unwrap_or(""),
        None => config.path_prefix.as_str(),
    };
    path.trim_end_matches('/').to_owned()
}

fn html_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_follows_the_public_url_or_the_prefix() {
        let mut config = Config::for_tests("sqlite::memory:");
        assert_eq!(base_path(&config), "");
        config.path_prefix = "/games/".into();
        assert_eq!(base_path(&config), "/games");
        config.public_url = Some("https://example.org/play/".into());
        assert_eq!(base_path(&config), "/play");
        config.public_url = Some("https://example.org".into());
        assert_eq!(base_path(&config), "");
    }

    #[test]
    fn every_page_has_the_base_to_replace() {
        for name in [
            "index.html",
            "room.html",
            "rules.html",
            "game.html",
            "login.html",
            "account.html",
            "profile.html",
        ] {
            let file = Assets::get(name).unwrap();
            assert!(
                String::from_utf8_lossy(&file.data).contains(BASE_PLACEHOLDER),
                "{name}"
            );
        }
    }
}
