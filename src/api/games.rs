//! Finished games over REST: the recent public ones (`GET /api/games`), one game as JSON with
//! its replayable history and final clocks (`GET /api/games/{room_id}`), as PGN and as a text
//! record. The finished-game page `/g/{room_id}` reads the JSON.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tracing::warn;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use super::extract::ApiPath;
use super::history;
use super::{pgn, record};
use crate::domain::GameRecord;
use crate::room::state::ClockSettings;

/// How many games `GET /api/games` lists when not told: a home page's worth.
const DEFAULT_RECENT: i64 = 10;

/// The most `GET /api/games?limit=` may ask for.
const MAX_RECENT: i64 = 50;

/// `GET /api/games?limit=N`: the latest finished games of public rooms (aborted ones left out),
/// newest first; `limit` 1 to 50, 10 by default; anything else is 400 `bad_request`.
pub async fn recent(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let limit = recent_limit(query.as_deref())?;
    let games: Vec<Value> = state
        .store
        .finished_public_games(limit)
        .await?
        .into_iter()
        .map(|g| {
            json!({
                "room_id": g.room_id,
                "game": g.game,
                "players": g.players,
                "result": {"winner": g.winner, "reason": g.reason},
                "moves": g.moves.len(),
                "finished_at": g.finished_at,
            })
        })
        .collect();
    Ok(Json(json!({ "games": games })).into_response())
}

/// The `limit` of a `GET /api/games` query string (other parameters are refused, so a typo is
/// not silently ignored).
fn recent_limit(query: Option<&str>) -> Result<i64, ApiError> {
    let mut limit = DEFAULT_RECENT;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let bad = || {
            ApiError::bad_request(format!(
                "the query takes only limit=1..{MAX_RECENT}, not {pair:?}"
            ))
        };
        let (key, value) = pair.split_once('=').ok_or_else(bad)?;
        limit = match (key, value.parse::<i64>()) {
            ("limit", Ok(n)) if (1..=MAX_RECENT).contains(&n) => n,
            _ => return Err(bad()),
        };
    }
    Ok(limit)
}

/// The record's `history`: its moves replayed through the rules (see [`history`]). A record the
/// rules do not replay is a stored game this server did not make: its history is then left
/// empty, and the rest of the record still answers.
fn history_of(record: &GameRecord) -> Vec<Value> {
    let left_after: Vec<_> = record
        .players
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let seat = u8::try_from(p["seat"].as_u64()?).ok()?;
            Some((seat, usize::try_from(p["left_after"].as_u64()?).ok()?))
        })
        .collect();
    match history::replay(
        record.game,
        &record.start_position,
        &record.moves,
        &left_after,
    ) {
        Ok(plies) => plies.iter().map(history::Ply::to_json).collect(),
        Err(e) => {
            warn!(room_id = %record.room_id, error = %e, "a finished game does not replay");
            Vec::new()
        }
    }
}

/// The finished game of the room `room_id`, or 404.
async fn finished_game(state: &AppState, room_id: &str) -> Result<GameRecord, ApiError> {
    let not_found = || ApiError::not_found(format!("no finished game {room_id:?}"));
    let id = Uuid::try_parse(room_id).map_err(|_| not_found())?;
    state.store.game_record(id).await?.ok_or_else(not_found)
}

/// `GET /api/games/{room_id}`: a finished game.
pub async fn game_record(
    State(state): State<AppState>,
    ApiPath(room_id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let record = finished_game(&state, &room_id).await?;
    Ok(Json(record_json(&state, record).await?).into_response())
}

/// A finished game as `GET /api/games/{room_id}` answers it (also each game of an account's
/// export).
pub async fn record_json(state: &AppState, record: GameRecord) -> Result<Value, ApiError> {
    // The players' channel, all of it, with what was said after the game too.
    let chat: Vec<Value> = state
        .store
        .chat(record.room_id, "players", None)
        .await?
        .into_iter()
        .map(|row| {
            json!({
                "channel": row.channel,
                "seat": row.seat,
                "name": row.name,
                "text": row.text,
                "at": row.created_at,
            })
        })
        .collect();
    let history = history_of(&record);
    let clock = state.store.final_clock(record.room_id).await?;
    let ratings = state.store.rating_changes(record.room_id).await?;
    // The game's own state after each move that had some, each with its ply (Ouk Chatrang: every
    // count as it ran).
    let extra_history: Vec<Value> = state
        .store
        .extra_history(record.room_id)
        .await?
        .into_iter()
        .map(|row| {
            let mut entry = Map::from_iter([("ply".to_owned(), Value::from(row.ply))]);
            entry.extend(row.extra.into_map());
            Value::Object(entry)
        })
        .collect();
    let mut body = json!({
        "room_id": record.room_id,
        "game": record.game,
        "players": record.players,
        "result": {"winner": record.winner, "reason": record.reason},
        "moves": record.moves,
        "display_moves": record.display_moves,
        "start_position": record.start_position,
        "final_position": record.final_position,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "history": history,
        "chat": chat,
    });
    if let Value::Object(map) = &mut body {
        map.extend(record.extra.into_map());
        map.insert("extra_history".into(), extra_history.into());
        if let Some(clock) = clock {
            map.insert("clock".into(), clock);
        }
        if !ratings.is_empty() {
            map.insert("ratings".into(), super::ratings::changes_json(&ratings));
        }
    }
    Ok(body)
}

/// The clock settings of a room's final clock (see [`Store::final_clock`](crate::store::Store::final_clock)).
fn clock_settings(clock: &Value) -> Option<ClockSettings> {
    let seconds = |key: &str| u32::try_from(clock.get(key)?.as_u64()?).ok();
    Some(ClockSettings {
        initial_s: seconds("initial_s")?,
        increment_s: seconds("increment_s")?,
    })
}

/// `GET /api/games/{room_id}/pgn`: an Ouk Chatrang game as PGN (`[Variant "Cambodian"]`), with
/// its `[TimeControl]`, timed each move's `[%clk]`, and rated the players' ratings
/// (`[WhiteElo]`, `[BlackElo]`, `[WhiteRatingDiff]`, `[BlackRatingDiff]`).
pub async fn game_pgn(
    State(state): State<AppState>,
    ApiPath(room_id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let record = finished_game(&state, &room_id).await?;
    let text = pgn_text(&state, &record).await?;
    Ok((
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        text,
    )
        .into_response())
}

/// An Ouk Chatrang game's PGN, with its clocks (400 `bad_request` for another game).
pub async fn pgn_text(state: &AppState, record: &GameRecord) -> Result<String, ApiError> {
    let final_clock = state.store.final_clock(record.room_id).await?;
    let settings = final_clock.as_ref().and_then(clock_settings);
    let move_clocks: Vec<Option<i64>> = match settings {
        Some(_) => state
            .store
            .moves(record.room_id)
            .await?
            .into_iter()
            .map(|row| row.clock_ms)
            .collect(),
        None => Vec::new(),
    };
    let clocks = pgn::Clocks {
        settings: settings.as_ref(),
        moves: &move_clocks,
    };
    let ratings: Vec<pgn::Rating> = state
        .store
        .rating_changes(record.room_id)
        .await?
        .iter()
        .map(|c| pgn::Rating {
            seat: c.seat,
            before: c.before.round() as i64,
            diff: c.diff,
        })
        .collect();
    pgn::write(record, clocks, &ratings).map_err(ApiError::bad_request)
}

/// `GET /api/games/{room_id}/record`: a finished game of any kind as plain text in its own
/// notation (see `record`).
pub async fn game_text(
    State(state): State<AppState>,
    ApiPath(room_id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let record = finished_game(&state, &room_id).await?;
    let moves = state.store.moves(record.room_id).await?;
    let text = record::write(&record, &moves);
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_games_limit_is_one_to_fifty() {
        assert_eq!(recent_limit(None).ok(), Some(DEFAULT_RECENT));
        assert_eq!(recent_limit(Some("limit=3")).ok(), Some(3));
        assert_eq!(recent_limit(Some("limit=50")).ok(), Some(50));
        for bad in ["limit=0", "limit=51", "limit=x", "limit", "page=2"] {
            assert!(recent_limit(Some(bad)).is_err(), "{bad}");
        }
    }
}
