//! Every game a player played: `GET /api/users/{username}` (the profile: the name as registered,
//! member since, wins, draws and losses per game) and `GET /api/users/{username}/games` (the
//! finished games, newest first, a page at a time). A private room's game shows only to its own
//! players (the viewer's session or `read` token), a public one to everyone; the tallies count
//! only what the viewer may see, so a profile never tells of a game its list hides.

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, Method};
use serde_json::{Value, json};
use uuid::Uuid;

use super::AppState;
use super::auth;
use super::error::ApiError;
use super::extract::ApiPath;
use crate::rules::GameKind;
use crate::store::{PlayedGame, PlayedQuery, UserRow};

/// The most games one page lists, and how many when not told.
pub const MAX_PAGE: i64 = 50;

/// The account named `name` ignoring case: 404 `not_found` for none.
async fn user_named(state: &AppState, name: &str) -> Result<UserRow, ApiError> {
    state
        .store
        .user_by_name(name)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no user {name:?}")))
}

/// `GET /api/users/{username}`: 200 `{"name", "member_since", "deleted", "games": [{"game",
/// "played", "wins", "draws", "losses"}], "ratings"}` (one `games` entry per game the user
/// finished one of that the viewer may see, aborted games left out, by game name; `ratings` as
/// [`ratings_json`](super::ratings::ratings_json), every rating, whoever looks). Errors: 404 `not_found` for an unknown
/// user; as [`auth::viewer`] for the credential.
pub async fn profile(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let viewer = auth::viewer(&state, peer, &headers, &Method::GET).await?;
    let user = user_named(&state, &name).await?;
    let ratings = state.store.ratings_of_user(user.id).await?;
    let tallies = state
        .store
        .tallies(user.id, viewer.map(|v| v.id), None)
        .await?;
    let games: Vec<Value> = tallies
        .iter()
        .map(|t| {
            json!({
                "game": t.game,
                "played": t.wins + t.draws + t.losses,
                "wins": t.wins,
                "draws": t.draws,
                "losses": t.losses,
            })
        })
        .collect();
    Ok(Json(json!({
        "name": user.name,
        "member_since": user.created_at,
        "deleted": user.deleted_at.is_some(),
        "games": games,
        "ratings": super::ratings::ratings_json(&ratings),
    })))
}

/// `GET /api/users/{username}/vs/{other}`: head to head, 200 `{"user", "opponent", "games",
/// "wins", "draws", "losses"}`, both names as registered and the finished games in which both
/// held a seat that the viewer may see, counted from the first player's view as the profile
/// counts them (`losses`: another seat won, so a three-player game a third player won is a loss
/// for both). The games themselves are `GET /api/users/{username}/games?vs={other}`. Errors:
/// 404 `not_found` for an unknown name; as [`auth::viewer`] for the credential.
pub async fn head_to_head(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath((name, other)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let viewer = auth::viewer(&state, peer, &headers, &Method::GET).await?;
    let user = user_named(&state, &name).await?;
    let opponent = user_named(&state, &other).await?;
    let tallies = state
        .store
        .tallies(user.id, viewer.map(|v| v.id), Some(opponent.id))
        .await?;
    let sum = |count: fn(&crate::store::GameTally) -> i64| tallies.iter().map(count).sum::<i64>();
    let (wins, draws, losses) = (sum(|t| t.wins), sum(|t| t.draws), sum(|t| t.losses));
    Ok(Json(json!({
        "user": user.name,
        "opponent": opponent.name,
        "games": wins + draws + losses,
        "wins": wins,
        "draws": draws,
        "losses": losses,
    })))
}

/// What a `GET /api/users/{username}/games` query string asks (names, not yet accounts).
#[derive(Debug, Default, PartialEq)]
pub(super) struct PageQuery {
    pub game: Option<GameKind>,
    pub vs: Option<String>,
    pub limit: Option<i64>,
    pub before: Option<Uuid>,
}

/// Reads `game=&vs=&limit=&before=`, each at most once; anything else is 400 `bad_request`, so a
/// typo is not silently ignored. An empty value counts as absent (`?game=` from a form).
pub(super) fn page_query(query: Option<&str>) -> Result<PageQuery, ApiError> {
    let mut q = PageQuery::default();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let bad = |why: &str| ApiError::bad_request(format!("{pair:?}: {why}"));
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| bad("the query takes game=, vs=, limit= and before="))?;
        if value.is_empty() {
            continue;
        }
        let twice = match key {
            "game" => q
                .game
                .replace(value.parse().map_err(|_| bad("no such game"))?)
                .is_some(),
            "vs" => q.vs.replace(value.to_owned()).is_some(),
            "limit" => match value.parse::<i64>() {
                Ok(n) if (1..=MAX_PAGE).contains(&n) => q.limit.replace(n).is_some(),
                _ => return Err(bad(&format!("limit is 1 to {MAX_PAGE}"))),
            },
            "before" => q
                .before
                .replace(Uuid::try_parse(value).map_err(|_| bad("before is a room id"))?)
                .is_some(),
            _ => return Err(bad("the query takes game=, vs=, limit= and before=")),
        };
        if twice {
            return Err(bad("given twice"));
        }
    }
    Ok(q)
}

/// One game of a list, as the user whose list it is played it.
pub(super) fn entry(game: &PlayedGame) -> Value {
    let r = &game.record;
    let outcome = match r.winner {
        None => "draw",
        Some(winner) if winner == game.seat => "win",
        Some(_) => "loss",
    };
    json!({
        "room_id": r.room_id,
        "game": r.game,
        "visibility": game.visibility.as_str(),
        "seat": game.seat,
        "players": r.players,
        "result": {"winner": r.winner, "reason": r.reason},
        "outcome": outcome,
        "clock": game.clock,
        "moves": r.moves.len(),
        "started_at": r.started_at,
        "finished_at": r.finished_at,
    })
}

/// The store's query for what `asked` of `name`'s games, `limit` a page, as the request's
/// viewer may see them. Errors: 404 `not_found` for an unknown user or `vs`; 400 `bad_request`
/// for a `before` that is no finished game; as [`auth::viewer`].
pub(super) async fn played_query(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    name: &str,
    asked: &PageQuery,
    limit: i64,
) -> Result<PlayedQuery, ApiError> {
    let viewer = auth::viewer(state, peer, headers, &Method::GET).await?;
    let user = user_named(state, name).await?;
    let vs = match &asked.vs {
        Some(vs) => Some(user_named(state, vs).await?.id),
        None => None,
    };
    if let Some(before) = asked.before
        && state.store.game_record(before).await?.is_none()
    {
        return Err(ApiError::bad_request(format!(
            "before={before}: no finished game"
        )));
    }
    Ok(PlayedQuery {
        user_id: user.id,
        viewer: viewer.map(|v| v.id),
        game: asked.game,
        vs,
        before: asked.before,
        limit,
    })
}

/// `GET /api/users/{username}/games?game=&vs=&limit=&before=`: 200 `{"games": [...], "next":
/// room id or null}`, the user's finished games the viewer may see (aborted ones left out), the
/// last finished first: `game` keeps one game (`khan`, `ouk-chatrang`, `khan-tsin`), `vs` only
/// the games against that username, `limit` 1 to 50 (50 by default), `before` the games after
/// that room's in this order; `next` is the `before` of the next page, `null` on the last.
/// Errors: 404 `not_found` for an unknown user or `vs`; 400 `bad_request` for another
/// parameter, a bad value, or a `before` that is no finished game; as [`auth::viewer`] for the
/// credential.
pub async fn games(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ApiPath(name): ApiPath<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let asked = page_query(query.as_deref())?;
    let limit = asked.limit.unwrap_or(MAX_PAGE);
    // One game more than the page, read only to know whether another page follows.
    let q = played_query(&state, peer, &headers, &name, &asked, limit + 1).await?;
    let mut page = state.store.games_played(&q).await?;
    let more = page.len() as i64 > limit;
    page.truncate(limit as usize);
    let next = page.last().filter(|_| more).map(|last| last.record.room_id);
    Ok(Json(json!({
        "games": page.iter().map(entry).collect::<Vec<_>>(),
        "next": next,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_query_takes_four_parameters_once_each() {
        let id = "0b6f3c1e-7d2a-4c39-9a51-2f0e8d6b4a17";
        let q = page_query(Some(&format!("game=khan&vs=Sok&limit=7&before={id}"))).ok();
        let want = PageQuery {
            game: Some(GameKind::Khan),
            vs: Some("Sok".into()),
            limit: Some(7),
            before: Uuid::try_parse(id).ok(),
        };
        assert_eq!(q, Some(want));
        assert_eq!(
            page_query(Some("game=&vs=")).ok(),
            Some(PageQuery::default())
        );
        for bad in [
            "limit=0",
            "limit=51",
            "limit=x",
            "game=chess",
            "before=12",
            "page=2",
            "vs",
            "vs=a&vs=b",
        ] {
            assert!(page_query(Some(bad)).is_err(), "{bad}");
        }
    }
}
