//! A player's finished games in the store, for the profile (`GET /api/users/{username}` and its
//! game lists): the games an account held a seat in, as a viewer may see them (a private room's
//! game only by one of its own players), a page at a time, newest first, and the wins, draws and
//! losses per game. Aborted games are not games played: both leave them out.

use serde_json::Value;
use uuid::Uuid;

use super::dialect::{Dialect, Param, Statement};
use super::postgres::Pg;
use super::queries::{Cols, record_from_row};
use super::sqlite::Lite;
use super::{GameRecord, Store, StoreError, Visibility, codec};
use crate::rules::{GameKind, Seat};

/// Which games of an account a page lists.
#[derive(Clone, Debug)]
pub struct PlayedQuery {
    /// The account whose games.
    pub user_id: Uuid,
    /// Who looks: private rooms' games are listed only when this account held a seat there too;
    /// `None` (nobody logged in) sees the public ones only.
    pub viewer: Option<Uuid>,
    /// Only games of this kind.
    pub game: Option<GameKind>,
    /// Only games in which this other account held a seat.
    pub vs: Option<Uuid>,
    /// Only games listed after this room's (a finished game's room id) in the newest-first
    /// order: the cursor of the next page.
    pub before: Option<Uuid>,
    /// At most this many (negative counts as 0).
    pub limit: i64,
}

/// One game an account played.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedGame {
    /// The finished game.
    pub record: GameRecord,
    /// The account's seat (the lowest, should it have held several).
    pub seat: Seat,
    /// The room's visibility.
    pub visibility: Visibility,
    /// The room's clock settings (`{"initial_s", "increment_s"}` or `{"days_per_move"}`), `None`
    /// untimed.
    pub clock: Option<Value>,
}

/// An account's results in one game, as a viewer may see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameTally {
    /// The game.
    pub game: GameKind,
    /// Games the account's seat won.
    pub wins: i64,
    /// Games nobody won.
    pub draws: i64,
    /// Games another seat won.
    pub losses: i64,
}

impl Store {
    /// The finished games of `q.user_id` that `q.viewer` may see and the filters keep, the last
    /// finished first (then by room id, descending), at most `q.limit`.
    pub async fn games_played(&self, q: &PlayedQuery) -> Result<Vec<PlayedGame>, StoreError> {
        match self {
            Store::Postgres(s) => played::<Pg>(&mut *s.conn().await?, q).await,
            Store::Sqlite(s) => played::<Lite>(&mut *s.conn().await?, q).await,
        }
    }

    /// The seats of `user_id` as (room, seat token hash), for "My games": every seat of a room
    /// not finished, and those of the `finished` most recently changed finished rooms.
    pub async fn account_seats(
        &self,
        user_id: Uuid,
        finished: i64,
    ) -> Result<Vec<(Uuid, [u8; 32])>, StoreError> {
        match self {
            Store::Postgres(s) => seats::<Pg>(&mut *s.conn().await?, user_id, finished).await,
            Store::Sqlite(s) => seats::<Lite>(&mut *s.conn().await?, user_id, finished).await,
        }
    }

    /// The wins, draws and losses of `user_id` in each game it finished one of that `viewer`
    /// may see, by game name; with `vs`, only the games in which that other account held a seat
    /// too (head to head).
    pub async fn tallies(
        &self,
        user_id: Uuid,
        viewer: Option<Uuid>,
        vs: Option<Uuid>,
    ) -> Result<Vec<GameTally>, StoreError> {
        match self {
            Store::Postgres(s) => tally::<Pg>(&mut *s.conn().await?, user_id, viewer, vs).await,
            Store::Sqlite(s) => tally::<Lite>(&mut *s.conn().await?, user_id, viewer, vs).await,
        }
    }
}

/// The account's seat in each room (`$1`), and which of those games the viewer (`$2`) may see.
macro_rules! played_from {
    () => {
        "FROM games g JOIN rooms r ON r.id = g.room_id \
         JOIN (SELECT room_id, MIN(seat) AS seat FROM seats WHERE user_id = $1 GROUP BY room_id) s \
           ON s.room_id = g.room_id \
         WHERE g.reason <> 'aborted' \
           AND (r.visibility = 'public' \
                OR EXISTS (SELECT 1 FROM seats v WHERE v.room_id = g.room_id AND v.user_id = $2))"
    };
}

/// Only the games in which the account `$n` held a seat too (head to head); none when `$n` is
/// null.
macro_rules! against {
    ($n:literal) => {
        concat!(
            " AND ($",
            $n,
            " IS NULL OR EXISTS (SELECT 1 FROM seats o WHERE o.room_id = g.room_id \
               AND o.user_id = $",
            $n,
            " AND o.user_id <> $1))"
        )
    };
}

async fn played<D: Dialect>(
    conn: &mut D::Conn,
    q: &PlayedQuery,
) -> Result<Vec<PlayedGame>, StoreError> {
    let sql = concat!(
        "SELECT g.room_id, g.game, g.players, g.winner, g.reason, g.start_position, \
                g.final_position, g.moves, g.display_moves, g.extra, g.started_at, \
                g.finished_at, s.seat, r.visibility, r.options ",
        played_from!(),
        " AND ($3 IS NULL OR g.game = $3)",
        against!("4"),
        " AND ($5 IS NULL OR (g.finished_at, g.room_id) < \
                             (SELECT b.finished_at, b.room_id FROM games b WHERE b.room_id = $5)) \
          ORDER BY g.finished_at DESC, g.room_id DESC \
          LIMIT $6"
    );
    let params = vec![
        Param::Uuid(q.user_id),
        Param::NullableUuid(q.viewer),
        Param::Text(q.game.map(GameKind::as_str)),
        Param::NullableUuid(q.vs),
        Param::NullableUuid(q.before),
        Param::Big(q.limit.max(0)),
    ];
    let rows = D::fetch_all(conn, Statement::new(sql, params)).await?;
    let mut games = rows
        .iter()
        .map(|row| {
            let cols = Cols::<D>(row);
            Ok(PlayedGame {
                record: record_from_row::<D>(row)?,
                seat: codec::small("seat", cols.int("seat")?)?,
                visibility: codec::visibility("visibility", &cols.text("visibility")?)?,
                clock: cols.json("options")?.get("clock").cloned(),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    for game in &mut games {
        super::seat_accounts::mark_record::<D>(conn, &mut game.record).await?;
    }
    Ok(games)
}

async fn seats<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
    finished: i64,
) -> Result<Vec<(Uuid, [u8; 32])>, StoreError> {
    let on = "SELECT s.room_id, s.token_hash FROM seats s JOIN rooms r ON r.id = s.room_id \
              WHERE s.user_id = $1 AND r.status <> 'finished'";
    let over = "SELECT s.room_id, s.token_hash FROM seats s JOIN rooms r ON r.id = s.room_id \
                WHERE s.user_id = $1 AND r.status = 'finished' \
                ORDER BY r.updated_at DESC, r.id DESC LIMIT $2";
    let mut rows = D::fetch_all(conn, Statement::new(on, [Param::Uuid(user_id)])).await?;
    let params = [Param::Uuid(user_id), Param::Big(finished.max(0))];
    rows.extend(D::fetch_all(conn, Statement::new(over, params)).await?);
    rows.iter()
        .map(|row| {
            let hash = super::dialect::required("token_hash", D::bytes(row, "token_hash")?)?;
            Ok((
                Cols::<D>(row).uuid("room_id")?,
                codec::token_hash("token_hash", hash)?,
            ))
        })
        .collect()
}

async fn tally<D: Dialect>(
    conn: &mut D::Conn,
    user_id: Uuid,
    viewer: Option<Uuid>,
    vs: Option<Uuid>,
) -> Result<Vec<GameTally>, StoreError> {
    let sql = concat!(
        "SELECT g.game, \
                SUM(CASE WHEN g.winner = s.seat THEN 1 ELSE 0 END) AS wins, \
                SUM(CASE WHEN g.winner IS NULL THEN 1 ELSE 0 END) AS draws, \
                SUM(CASE WHEN g.winner <> s.seat THEN 1 ELSE 0 END) AS losses ",
        played_from!(),
        against!("3"),
        " GROUP BY g.game ORDER BY g.game"
    );
    let params = vec![
        Param::Uuid(user_id),
        Param::NullableUuid(viewer),
        Param::NullableUuid(vs),
    ];
    D::fetch_all(conn, Statement::new(sql, params))
        .await?
        .iter()
        .map(|row| {
            let cols = Cols::<D>(row);
            Ok(GameTally {
                game: codec::game("game", &cols.text("game")?)?,
                wins: cols.int("wins")?,
                draws: cols.int("draws")?,
                losses: cols.int("losses")?,
            })
        })
        .collect()
}
