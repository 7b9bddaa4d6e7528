//! A player's every game at once, for other tools: `GET /api/users/{username}/games.ndjson`
//! (one JSON record a line, each as `GET /api/users/{username}/games` lists it) and
//! `GET /api/users/{username}/games.pgn` (every Ouk Chatrang game, each exactly as
//! `GET /api/games/{room_id}/pgn` gives it, apart by a blank line). Both are streamed: the body
//! is read from the database [`EXPORT_PAGE`] games at a time, each page written out before the
//! next is read, so a player with thousands of games is never held whole in memory.

use std::net::SocketAddr;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use futures_util::stream;
use tracing::warn;

use super::AppState;
use super::error::ApiError;
use super::extract::ApiPath;
use super::games::pgn_text;
use super::profiles::{PageQuery, entry, page_query, played_query};
use crate::rules::GameKind;
use crate::store::{PlayedGame, PlayedQuery};

/// How many games the export reads from the database at a time.
pub const EXPORT_PAGE: i64 = 50;

/// What an export writes.
#[derive(Clone, Copy, Debug)]
enum Format {
    /// One JSON record a line.
    Ndjson,
    /// PGN, games apart by a blank line.
    Pgn,
}

/// `GET /api/users/{username}/games.ndjson?game=&vs=`: 200 `application/x-ndjson`, every
/// finished game of the user the viewer may see, the last finished first. Errors before the
/// first byte as `GET /api/users/{username}/games` (`limit` and `before` are refused: the export
/// is every game); a database failure later ends the body early.
pub async fn ndjson(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let asked = export_query(query.as_deref())?;
    let q = played_query(&state, peer, &headers, &name, &asked, EXPORT_PAGE).await?;
    Ok(streamed(state, q, Format::Ndjson, "application/x-ndjson"))
}

/// `GET /api/users/{username}/games.pgn?vs=`: 200 `application/x-chess-pgn`, every finished
/// Ouk Chatrang game of the user the viewer may see, the last finished first. Errors as
/// [`ndjson`]; `game` is refused too (PGN is Ouk Chatrang's).
pub async fn pgn(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let mut asked = export_query(query.as_deref())?;
    if asked.game.is_some() {
        return Err(ApiError::bad_request(
            "games.pgn is every Ouk Chatrang game: it takes no game=",
        ));
    }
    asked.game = Some(GameKind::OukChatrang);
    let q = played_query(&state, peer, &headers, &name, &asked, EXPORT_PAGE).await?;
    Ok(streamed(
        state,
        q,
        Format::Pgn,
        "application/x-chess-pgn; charset=utf-8",
    ))
}

/// The query of an export: `game=` and `vs=` only.
fn export_query(query: Option<&str>) -> Result<PageQuery, ApiError> {
    let asked = page_query(query)?;
    if asked.limit.is_some() || asked.before.is_some() {
        return Err(ApiError::bad_request(
            "an export is every game: it takes no limit= or before=",
        ));
    }
    Ok(asked)
}

fn streamed(state: AppState, q: PlayedQuery, format: Format, content_type: &str) -> Response {
    (
        [(header::CONTENT_TYPE, content_type.to_owned())],
        Body::from_stream(pages(state, q, format)),
    )
        .into_response()
}

/// The body, a page of games a chunk: the next page is read only when the last one is sent.
fn pages(
    state: AppState,
    first: PlayedQuery,
    format: Format,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
    stream::unfold(Some((first, true)), move |next| {
        let state = state.clone();
        async move {
            let (mut q, first) = next?;
            let page = match state.store.games_played(&q).await {
                Ok(page) if page.is_empty() => return None,
                Ok(page) => page,
                Err(e) => return Some((Err(ended(&e.to_string())), None)),
            };
            let more = page.len() as i64 == q.limit;
            q.before = page.last().map(|g| g.record.room_id);
            match write_page(&state, &page, format, first).await {
                Ok(chunk) => Some((Ok(Bytes::from(chunk)), more.then_some((q, false)))),
                Err(e) => Some((Err(ended(&e.message)), None)),
            }
        }
    })
}

/// A failure after the answer began: the body ends early (the client sees a broken transfer).
fn ended(why: &str) -> std::io::Error {
    warn!(error = why, "a player's export ended early");
    std::io::Error::other(why.to_owned())
}

async fn write_page(
    state: &AppState,
    page: &[PlayedGame],
    format: Format,
    first_page: bool,
) -> Result<Vec<u8>, ApiError> {
    let mut chunk = Vec::new();
    for (i, game) in page.iter().enumerate() {
        match format {
            Format::Ndjson => {
                chunk.extend(entry(game).to_string().into_bytes());
                chunk.push(b'\n');
            }
            Format::Pgn => {
                if !(first_page && i == 0) {
                    chunk.push(b'\n');
                }
                chunk.extend(pgn_text(state, &game.record).await?.into_bytes());
            }
        }
    }
    Ok(chunk)
}
