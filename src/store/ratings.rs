//! Ratings in the store: each account's rating per pool (the `ratings` table), read for pairing
//! and for a rated game's end. Written once over [`Dialect`] as the other queries are.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use skillratings::glicko2::Glicko2Rating;
use skillratings::weng_lin::WengLinRating;
use uuid::Uuid;

use super::dialect::{Dialect, Param, Statement, required};
use super::postgres::Pg;
use super::queries::Cols;
use super::sqlite::Lite;
use super::{RatedGame, Store, StoreError, codec, truncate_to_micros};
use crate::ratings::{PROVISIONAL_DEVIATION, PlayerRating, RatingPool, Skill, WENG_LIN_SCALE};
use crate::rules::Seat;

impl Store {
    /// The rating in `pool` of each account of `users`, by account: its stored rating, or for an
    /// account with no rated game in the pool (or no account of that id) the default
    /// ([`PlayerRating::new`]: 1500, deviation 350, provisional, 0 games). Every id of `users`
    /// is a key of the answer. The values are as stored at the account's last rated game: the
    /// deviation's growth with inactivity is applied when its next rated game is rated.
    ///
    /// One primary-key look-up per account, on one connection. Errors: the database failed
    /// ([`StoreError::Database`]) or a row does not read ([`StoreError::Corrupt`]).
    pub async fn ratings_of(
        &self,
        users: &[Uuid],
        pool: RatingPool,
    ) -> Result<HashMap<Uuid, PlayerRating>, StoreError> {
        match self {
            Store::Postgres(s) => ratings_in::<Pg>(&mut *s.conn().await?, users, pool).await,
            Store::Sqlite(s) => ratings_in::<Lite>(&mut *s.conn().await?, users, pool).await,
        }
    }

    /// Every rating of the account `user_id`, one per pool it played a rated game in, by game,
    /// player count and speed.
    pub async fn ratings_of_user(
        &self,
        user_id: Uuid,
    ) -> Result<Vec<(RatingPool, PlayerRating)>, StoreError> {
        match self {
            Store::Postgres(s) => user_ratings::<Pg>(&mut *s.conn().await?, user_id).await,
            Store::Sqlite(s) => user_ratings::<Lite>(&mut *s.conn().await?, user_id).await,
        }
    }

    /// Every rating change of the account `user_id`, by pool (game, player count, speed) and
    /// then by time: its rating history, one point a rated game.
    pub async fn rating_history(&self, user_id: Uuid) -> Result<Vec<RatingChangeRow>, StoreError> {
        match self {
            Store::Postgres(s) => history_of::<Pg>(&mut *s.conn().await?, user_id).await,
            Store::Sqlite(s) => history_of::<Lite>(&mut *s.conn().await?, user_id).await,
        }
    }

    /// The top `limit` (negative counts as 0) players of `pool` by rating, highest first (then
    /// by name): accounts neither deleted nor disabled, whose rating is not provisional and whose
    /// last rated game in the pool ended at `active_since` or later.
    pub async fn leaderboard(
        &self,
        pool: RatingPool,
        active_since: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Leader>, StoreError> {
        let limit = limit.max(0);
        match self {
            Store::Postgres(s) => {
                leaders::<Pg>(&mut *s.conn().await?, pool, active_since, limit).await
            }
            Store::Sqlite(s) => {
                leaders::<Lite>(&mut *s.conn().await?, pool, active_since, limit).await
            }
        }
    }

    /// The rating changes of the rated game of `room_id`, by seat (empty for a game that is not
    /// rated, or no game).
    pub async fn rating_changes(&self, room_id: Uuid) -> Result<Vec<RatingChangeRow>, StoreError> {
        match self {
            Store::Postgres(s) => changes_of::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => changes_of::<Lite>(&mut *s.conn().await?, room_id).await,
        }
    }
}

/// See [`Store::ratings_of`]; also read inside the transaction that stores a rated game's end.
pub(super) async fn ratings_in<D: Dialect>(
    conn: &mut D::Conn,
    users: &[Uuid],
    pool: RatingPool,
) -> Result<HashMap<Uuid, PlayerRating>, StoreError> {
    let sql = "SELECT rating, rd, volatility, mu, sigma, games, rated_at FROM ratings \
               WHERE user_id = $1 AND game = $2 AND players = $3 AND speed = $4";
    let mut ratings = HashMap::with_capacity(users.len());
    for &user in users {
        let params = [
            Param::Uuid(user),
            Param::Text(Some(pool.game.as_str())),
            Param::Small(Some(i16::from(pool.players))),
            Param::Text(Some(pool.speed.as_str())),
        ];
        let rating = match D::fetch_optional(conn, Statement::new(sql, params)).await? {
            Some(row) => rating_from_row::<D>(&row, pool)?,
            None => PlayerRating::new(pool),
        };
        ratings.insert(user, rating);
    }
    Ok(ratings)
}

/// Writes a rated game's rating changes inside the transaction that stores its end (see
/// [`RatedGame`]): each player's new rating, checked against the number of games it was read
/// with ([`StoreError::RatingChanged`] when another game moved it since), and each seat's change.
/// The game's record must be written before (the changes refer to it).
pub(super) async fn write_rated<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
    rated: &RatedGame,
) -> Result<(), StoreError> {
    let pool = rated.pool;
    let at = Param::Time(Some(truncate_to_micros(rated.at)));
    for seat in &rated.seats {
        let (before, after) = (&seat.rating.before, &seat.rating.after);
        let (rd, volatility, mu, sigma) = match after.skill {
            Skill::Glicko2(g) => (Some(g.deviation), Some(g.volatility), None, None),
            Skill::WengLin(w) => (None, None, Some(w.rating), Some(w.uncertainty)),
        };
        let games = i32::try_from(after.games)
            .map_err(|_| StoreError::Corrupt(format!("{} rated games", after.games)))?;
        let mut params = vec![
            Param::Uuid(seat.user_id),
            Param::Text(Some(pool.game.as_str())),
            Param::Small(Some(i16::from(pool.players))),
            Param::Text(Some(pool.speed.as_str())),
            Param::Float(Some(after.rating)),
            Param::Float(rd),
            Param::Float(volatility),
            Param::Float(mu),
            Param::Float(sigma),
            Param::Int(games),
            at,
        ];
        let written = if before.games == 0 {
            let sql = "INSERT INTO ratings (user_id, game, players, speed, rating, rd, \
                                            volatility, mu, sigma, games, rated_at) \
                       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
            match D::execute(conn, Statement::new(sql, params)).await {
                Err(e) if e.is_unique_violation() => 0,
                other => other?,
            }
        } else {
            params.push(Param::Big(before.games));
            let sql = "UPDATE ratings SET rating = $5, rd = $6, volatility = $7, mu = $8, \
                                          sigma = $9, games = $10, rated_at = $11 \
                       WHERE user_id = $1 AND game = $2 AND players = $3 AND speed = $4 \
                         AND games = $12";
            D::execute(conn, Statement::new(sql, params)).await?
        };
        if written != 1 {
            return Err(StoreError::RatingChanged {
                user_id: seat.user_id,
            });
        }
        let (_, _, diff) = seat.rating.shown();
        let sql = "INSERT INTO rating_changes (room_id, seat, user_id, game, players, speed, \
                                               rating_before, rating_after, diff, rated_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
        let params = [
            Param::Uuid(room_id),
            Param::Small(Some(i16::from(seat.rating.seat))),
            Param::Uuid(seat.user_id),
            Param::Text(Some(pool.game.as_str())),
            Param::Small(Some(i16::from(pool.players))),
            Param::Text(Some(pool.speed.as_str())),
            Param::Float(Some(before.rating)),
            Param::Float(Some(after.rating)),
            Param::Big(diff),
            at,
        ];
        D::execute(conn, Statement::new(sql, params)).await?;
    }
    Ok(())
}

/// See [`Store::ratings_of_user`].
async fn user_ratings<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
) -> Result<Vec<(RatingPool, PlayerRating)>, StoreError> {
    let sql = "SELECT game, players, speed, rating, rd, volatility, mu, sigma, games, rated_at \
               FROM ratings WHERE user_id = $1 ORDER BY game, players, speed";
    let mut ratings = D::fetch_all(conn, Statement::new(sql, [Param::Uuid(user_id)]))
        .await?
        .iter()
        .map(|row| {
            let pool = pool_from_row::<D>(row)?;
            Ok((pool, rating_from_row::<D>(row, pool)?))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    ratings.sort_by_key(|(pool, _)| (pool.game.as_str(), pool.players, pool.speed));
    Ok(ratings)
}

/// One seat's rating change in a rated game (the `rating_changes` table).
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChangeRow {
    /// The seat.
    pub seat: Seat,
    /// Its account.
    pub user_id: Uuid,
    /// The pool the game was rated in.
    pub pool: RatingPool,
    /// The display rating before the game (unrounded).
    pub before: f64,
    /// After it (unrounded).
    pub after: f64,
    /// The change as shown: the rounded `after` minus the rounded `before`.
    pub diff: i64,
    /// When the game ended.
    pub rated_at: DateTime<Utc>,
}

/// See [`Store::rating_changes`].
async fn changes_of<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Vec<RatingChangeRow>, StoreError> {
    let sql = "SELECT seat, user_id, game, players, speed, rating_before, rating_after, diff, \
                      rated_at \
               FROM rating_changes WHERE room_id = $1 ORDER BY seat";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(change_from_row::<D>)
        .collect()
}

fn change_from_row<D: Dialect>(row: &D::Row) -> Result<RatingChangeRow, StoreError> {
    let cols = Cols::<D>(row);
    Ok(RatingChangeRow {
        seat: codec::small("seat", cols.int("seat")?)?,
        user_id: cols.uuid("user_id")?,
        pool: pool_from_row::<D>(row)?,
        before: required("rating_before", D::float(row, "rating_before")?)?,
        after: required("rating_after", D::float(row, "rating_after")?)?,
        diff: cols.int("diff")?,
        rated_at: cols.time("rated_at")?,
    })
}

/// See [`Store::rating_history`].
async fn history_of<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
) -> Result<Vec<RatingChangeRow>, StoreError> {
    let sql = "SELECT seat, user_id, game, players, speed, rating_before, rating_after, diff, \
                      rated_at \
               FROM rating_changes WHERE user_id = $1 \
               ORDER BY game, players, speed, rated_at, room_id";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(user_id)]))
        .await?
        .iter()
        .map(change_from_row::<D>)
        .collect()
}

/// A player on a leaderboard ([`Store::leaderboard`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Leader {
    /// The account's name.
    pub name: String,
    /// Its rating in the pool.
    pub rating: PlayerRating,
}

/// See [`Store::leaderboard`]; `limit` is not negative.
async fn leaders<D: Dialect>(
    conn: &mut D::Conn,
    pool: RatingPool,
    active_since: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Leader>, StoreError> {
    // Not provisional: a display deviation of at most 110 (Weng-Lin's is 42σ).
    let sql = "SELECT u.name, r.rating, r.rd, r.volatility, r.mu, r.sigma, r.games, r.rated_at \
               FROM ratings r JOIN users u ON u.id = r.user_id \
               WHERE r.game = $1 AND r.players = $2 AND r.speed = $3 AND r.rated_at >= $4 \
                 AND u.deleted_at IS NULL AND u.disabled_at IS NULL \
                 AND (r.rd <= $5 OR r.sigma <= $6) \
               ORDER BY r.rating DESC, u.name_key \
               LIMIT $7";
    let params = vec![
        Param::Text(Some(pool.game.as_str())),
        Param::Small(Some(i16::from(pool.players))),
        Param::Text(Some(pool.speed.as_str())),
        Param::Time(Some(truncate_to_micros(active_since))),
        Param::Float(Some(PROVISIONAL_DEVIATION)),
        Param::Float(Some(PROVISIONAL_DEVIATION / WENG_LIN_SCALE)),
        Param::Big(limit),
    ];
    D::fetch_all(conn, Statement::new(sql, params))
        .await?
        .iter()
        .map(|row| {
            Ok(Leader {
                name: Cols::<D>(row).text("name")?,
                rating: rating_from_row::<D>(row, pool)?,
            })
        })
        .collect()
}

/// The pool a row names (`game`, `players`, `speed`).
fn pool_from_row<D: Dialect>(row: &D::Row) -> Result<RatingPool, StoreError> {
    let cols = Cols::<D>(row);
    let speed = cols.text("speed")?;
    Ok(RatingPool {
        game: codec::game("game", &cols.text("game")?)?,
        players: codec::small("players", cols.int("players")?)?,
        speed: speed
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("column speed: {e}")))?,
    })
}

/// A `ratings` row of `pool` (its `rd, volatility` or `mu, sigma`, `games`, `rated_at`).
pub(super) fn rating_from_row<D: Dialect>(
    row: &D::Row,
    pool: RatingPool,
) -> Result<PlayerRating, StoreError> {
    let float = |column: &'static str| required(column, D::float(row, column)?);
    let skill = if pool.is_multiplayer() {
        Skill::WengLin(WengLinRating {
            rating: float("mu")?,
            uncertainty: float("sigma")?,
        })
    } else {
        Skill::Glicko2(Glicko2Rating {
            rating: float("rating")?,
            deviation: float("rd")?,
            volatility: float("volatility")?,
        })
    };
    let cols = Cols::<D>(row);
    Ok(PlayerRating::from_skill(
        skill,
        cols.int("games")?,
        Some(cols.time("rated_at")?),
    ))
}
