//! A rated game's end: which ratings it changes, and the rating changes its `game_over` carries
//! and its commit writes (in the transaction that stores the end, so a crash never rates a game
//! twice or not at all). The room task reads the players' ratings between the two steps.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::state::{RoomState, TimeControl};
use crate::protocol::{Event, RatingChange};
use crate::ratings::{self, Finish, PlayerRating, RatingPool, Speed};
use crate::rules::{EndReason, Rules};
use crate::store::{RatedGame, RatedSeat};

/// The players (by seat) and the pool of the ratings a game changes, when `ended` is a rated
/// room whose game has just ended (`before`, the same room before the command that ended it):
/// every seat an account's, the game started and not aborted, ended after it could no longer be
/// aborted ([`RoomState::ended_after_abort_window`]: a no-show who ends the game loses no
/// rating), and a clock to give the speed. `None` for any other room or end (it stays unrated).
pub(super) fn rated_players(
    before: &RoomState,
    ended: &RoomState,
) -> Option<(Vec<Uuid>, RatingPool)> {
    let outcome = ended.result?;
    if !ended.rated
        || ended.started_at.is_none()
        || outcome.reason == EndReason::Aborted
        || !before.ended_after_abort_window(ended)
    {
        return None;
    }
    let users = ended
        .seats
        .iter()
        .map(|slot| slot.user_id)
        .collect::<Option<Vec<_>>>()?;
    let clock = TimeControl::parse(ended.options.get("clock")?).ok()?;
    let pool = RatingPool {
        game: ended.kind(),
        players: ended.game.players(),
        speed: Speed::of(&clock),
    };
    Some((users, pool))
}

/// The rating changes of the end of `ended` (see [`rated_players`] for `users` and `pool`) at
/// `at`, from the players' ratings `before` (by account, as [`Store::ratings_of`] gives them):
/// what `game_over.d.ratings` says, and the rows its commit writes.
///
/// [`Store::ratings_of`]: crate::store::Store::ratings_of
pub(super) fn rate(
    ended: &RoomState,
    (users, pool): (&[Uuid], RatingPool),
    before: &HashMap<Uuid, PlayerRating>,
    at: DateTime<Utc>,
) -> (Vec<RatingChange>, RatedGame) {
    let before: Vec<PlayerRating> = users
        .iter()
        .map(|user| {
            before
                .get(user)
                .copied()
                .unwrap_or_else(|| PlayerRating::new(pool))
        })
        .collect();
    let finish = Finish {
        seats: ended.game.players(),
        winner: ended.result.and_then(|outcome| outcome.winner),
        left: &ended.leavers,
    };
    let rated = ratings::rate_game(pool, &before, &finish, at);
    let changes = rated
        .iter()
        .map(|seat| {
            let (before, after, diff) = seat.shown();
            RatingChange {
                seat: seat.seat,
                before,
                after,
                diff,
            }
        })
        .collect();
    let seats = users
        .iter()
        .zip(rated)
        .map(|(&user_id, rating)| RatedSeat { user_id, rating })
        .collect();
    (changes, RatedGame { pool, at, seats })
}

/// `events` with `changes` put in their `game_over`.
pub(super) fn with_changes(events: &[Event], changes: &[RatingChange]) -> Vec<Event> {
    events
        .iter()
        .cloned()
        .map(|mut event| {
            if let Event::GameOver { ratings, .. } = &mut event {
                *ratings = Some(changes.to_vec());
            }
            event
        })
        .collect()
}
