//! What pairing reads of a player's past, on both backends: their last game of a kind, whose
//! opponents they should not meet twice in a row and whose seat they should not have again.

use uuid::Uuid;

use super::accounts::on_conn;
use super::dialect::{Dialect, Param, Statement};
use super::postgres::Pg;
use super::queries::Cols;
use super::sqlite::Lite;
use super::{Store, StoreError};
use crate::rules::{GameKind, Seat};

/// A player's last game of a kind that began (a room past `waiting`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastGame {
    /// The player's seat in it.
    pub seat: Option<Seat>,
    /// The accounts of the other players.
    pub opponents: Vec<Uuid>,
}

impl Store {
    /// The last game of `game` the account `user` played or plays (the latest created room of
    /// that game past `waiting` where it holds a seat); the default when there is none.
    pub async fn last_game(&self, user: Uuid, game: GameKind) -> Result<LastGame, StoreError> {
        on_conn!(self, last_game_of(user, game))
    }
}

async fn last_game_of<D: Dialect>(
    conn: &mut D::Conn,
    user: Uuid,
    game: GameKind,
) -> Result<LastGame, StoreError> {
    let sql = "SELECT s.room_id, s.seat FROM seats s JOIN rooms r ON r.id = s.room_id \
               WHERE s.user_id = $1 AND r.game = $2 AND r.status <> 'waiting' \
               ORDER BY r.created_at DESC, r.id DESC LIMIT 1";
    let params = [Param::Uuid(user), Param::Text(Some(game.as_str()))];
    let Some(row) = D::fetch_optional(conn, Statement::new(sql, params)).await? else {
        return Ok(LastGame::default());
    };
    let cols = Cols::<D>(&row);
    let (room, seat) = (cols.uuid("room_id")?, cols.optional_seat("seat")?);
    let sql = "SELECT user_id FROM seats \
               WHERE room_id = $1 AND user_id IS NOT NULL AND user_id <> $2 ORDER BY seat";
    let params = [Param::Uuid(room), Param::Uuid(user)];
    let opponents = D::fetch_all(conn, Statement::new(sql, params))
        .await?
        .iter()
        .map(|row| Cols::<D>(row).uuid("user_id"))
        .collect::<Result<_, _>>()?;
    Ok(LastGame { seat, opponents })
}
