//! Ratings over REST: a rated game's changes as `GET /api/games/{room_id}` gives them, an
//! account's ratings as its profile gives them, its rating history, and the leaderboards
//! (docs/ratings.md, docs/protocol.md "Players" and "Leaderboards").

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use super::AppState;
use super::error::ApiError;
use super::extract::ApiPath;
use crate::ratings::{PlayerRating, RatingPool, Skill, Speed};
use crate::rules::GameKind;
use crate::store::RatingChangeRow;

/// How many players a leaderboard lists.
pub const LEADERBOARD_SIZE: i64 = 50;

/// A leaderboard lists players whose last rated game in the pool is at most this many days old.
pub const ACTIVE_DAYS: i64 = 30;

/// The game and player count of a leaderboard's game key: a game's word (two players), or
/// `khan-tsin-3`; `None` for any other.
pub fn board_game(key: &str) -> Option<(GameKind, u8)> {
    match key.strip_suffix("-3") {
        Some(game) => match game.parse() {
            Ok(GameKind::KhanTsin) => Some((GameKind::KhanTsin, 3)),
            _ => None,
        },
        None => key.parse().ok().map(|game| (game, 2)),
    }
}

/// The speeds a leaderboard query asks for: `speed=` one of the four words, or every speed
/// without it. Errors: 400 `bad_speed` for another speed, 400 `bad_request` for another
/// parameter or `speed` given twice.
fn board_speeds(query: Option<&str>) -> Result<Vec<Speed>, ApiError> {
    let mut speeds = Vec::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let word = pair.strip_prefix("speed=").ok_or_else(|| {
            ApiError::bad_request(format!("{pair:?}: the query takes speed= alone"))
        })?;
        let speed = word.parse::<Speed>().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_speed",
                format!("speed {word:?} is blitz, rapid, classical or correspondence"),
            )
        })?;
        if !speeds.is_empty() {
            return Err(ApiError::bad_request("speed is given once"));
        }
        speeds.push(speed);
    }
    Ok(if speeds.is_empty() {
        Speed::ALL.to_vec()
    } else {
        speeds
    })
}

/// `GET /api/leaderboard/{game}?speed=`: `{"game", "speeds": {"<speed>": [{"rank", "name",
/// "rating", "deviation", "games", "rated_at"}]}}`, the top [`LEADERBOARD_SIZE`] players of each
/// speed asked for (every speed without `speed=`) whose rating is not provisional and who played
/// a rated game of the pool in the last [`ACTIVE_DAYS`] days. `game` is a game's word or
/// `khan-tsin-3`; another is 400 `unknown_game`. Errors of the query: see [`board_speeds`].
pub async fn leaderboard(
    State(state): State<AppState>,
    ApiPath(game): ApiPath<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let (kind, players) = board_game(&game).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "unknown_game",
            format!("no leaderboard {game:?}: khan, ouk-chatrang, khan-tsin or khan-tsin-3"),
        )
    })?;
    let speeds = board_speeds(query.as_deref())?;
    let since = state.config.clock.now_utc() - chrono::Duration::days(ACTIVE_DAYS);
    let mut boards = Map::new();
    for speed in speeds {
        let pool = RatingPool {
            game: kind,
            players,
            speed,
        };
        let leaders = state
            .store
            .leaderboard(pool, since, LEADERBOARD_SIZE)
            .await?;
        let entries: Vec<Value> = leaders
            .iter()
            .zip(1..)
            .map(|(leader, rank)| {
                json!({
                    "rank": rank,
                    "name": leader.name,
                    "rating": leader.rating.rating.round() as i64,
                    "deviation": leader.rating.deviation.round() as i64,
                    "games": leader.rating.games,
                    "rated_at": leader.rating.rated_at,
                })
            })
            .collect();
        boards.insert(speed.as_str().to_owned(), entries.into());
    }
    Ok(Json(json!({"game": game, "speeds": boards})))
}

/// `GET /api/users/{username}/rating-history`: `{"<game>": {"<speed>": [{"at", "rating"}]}}`,
/// the rating after each rated game of the user (rounded), oldest first, keyed as the profile's
/// `ratings`; 404 `not_found` for an unknown user.
pub async fn history(
    State(state): State<AppState>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let user = state
        .store
        .user_by_name(&name)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no user {name:?}")))?;
    let mut games = Map::new();
    for change in state.store.rating_history(user.id).await? {
        let speeds = games
            .entry(change.pool.game_key())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(speeds) = speeds
            && let Value::Array(points) = speeds
                .entry(change.pool.speed.as_str())
                .or_insert_with(|| Value::Array(Vec::new()))
        {
            points.push(json!({"at": change.rated_at, "rating": change.after.round() as i64}));
        }
    }
    Ok(Json(Value::Object(games)))
}

/// `[{"seat", "before", "after", "diff"}]`: each seat's rating before and after the game, rounded
/// to whole points, and the change as shown.
pub fn changes_json(changes: &[RatingChangeRow]) -> Value {
    changes
        .iter()
        .map(|c| {
            json!({
                "seat": c.seat,
                "before": c.before.round() as i64,
                "after": c.after.round() as i64,
                "diff": c.diff,
            })
        })
        .collect()
}

/// `{"<game>": {"<speed>": {...}}}` of an account's ratings: a two-player pool's
/// `{"rating", "rd", "volatility", "games", "provisional"}` under its game, three-player
/// Khan-Tsin's `{"rating", "mu", "sigma", "games", "provisional"}` under `"khan-tsin-3"`.
/// `rating` and `rd` are rounded to whole points.
pub fn ratings_json(ratings: &[(RatingPool, PlayerRating)]) -> Value {
    let mut games = Map::new();
    for (pool, rating) in ratings {
        let entry = match rating.skill {
            Skill::Glicko2(g) => json!({
                "rating": rating.rating.round() as i64,
                "rd": g.deviation.round() as i64,
                "volatility": g.volatility,
                "games": rating.games,
                "provisional": rating.provisional,
            }),
            Skill::WengLin(w) => json!({
                "rating": rating.rating.round() as i64,
                "mu": w.rating,
                "sigma": w.uncertainty,
                "games": rating.games,
                "provisional": rating.provisional,
            }),
        };
        if let Value::Object(speeds) = games
            .entry(pool.game_key())
            .or_insert_with(|| Value::Object(Map::new()))
        {
            speeds.insert(pool.speed.as_str().to_owned(), entry);
        }
    }
    Value::Object(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaderboard_game_keys_and_speeds() {
        assert_eq!(board_game("khan"), Some((GameKind::Khan, 2)));
        assert_eq!(board_game("khan-tsin"), Some((GameKind::KhanTsin, 2)));
        assert_eq!(board_game("khan-tsin-3"), Some((GameKind::KhanTsin, 3)));
        for bad in ["khan-3", "ouk-chatrang-3", "chess", "khan-tsin-4", ""] {
            assert_eq!(board_game(bad), None, "{bad}");
        }
        assert_eq!(board_speeds(None).ok(), Some(Speed::ALL.to_vec()));
        assert_eq!(
            board_speeds(Some("speed=rapid")).ok(),
            Some(vec![Speed::Rapid])
        );
        for (bad, code) in [
            ("speed=bullet", "bad_speed"),
            ("speed=", "bad_speed"),
            ("speed=rapid&speed=rapid", "bad_request"),
            ("speed=rapid&speed=blitz", "bad_request"),
            ("page=2", "bad_request"),
            ("speed", "bad_request"),
        ] {
            assert_eq!(
                board_speeds(Some(bad)).err().map(|e| e.code),
                Some(code),
                "{bad}"
            );
        }
    }
}
