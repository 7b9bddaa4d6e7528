//! Ratings in the store: each account's rating per pool (the `ratings` table), read for pairing
//! and for a rated game's end. Written once over [`Dialect`] as the other queries are.

use std::collections::HashMap;

use skillratings::glicko2::Glicko2Rating;
use skillratings::weng_lin::WengLinRating;
use uuid::Uuid;

use super::dialect::{Dialect, Param, Statement, required};
use super::postgres::Pg;
use super::queries::Cols;
use super::sqlite::Lite;
use super::{Store, StoreError};
use crate::ratings::{PlayerRating, RatingPool, Skill};

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
