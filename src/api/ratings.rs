//! Ratings over REST: a rated game's changes as `GET /api/games/{room_id}` gives them, and an
//! account's ratings as its profile gives them (docs/ratings.md, docs/protocol.md "Players").

use serde_json::{Map, Value, json};

use crate::ratings::{PlayerRating, RatingPool, Skill};
use crate::store::RatingChangeRow;

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
