//! Challenges in the store (migration `0014_pairing`): one account's offer of a game to another,
//! open until accepted, declined, cancelled, or past its expiry. The table is the truth; the site
//! channel's notices only hint at it, so a page that connects late reads the open challenges here.
//!
//! Accepting is one transaction: the challenge turns `accepted` only if it is still open and
//! unexpired, and the room made for both players is written with it (claimed by the accepting
//! node in cluster mode), so two accepts can never make two rooms.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::accounts::{in_tx, on_conn};
use super::dialect::{Dialect, Param, Statement};
use super::postgres::{Claim, Pg};
use super::queries::{self, Cols};
use super::sqlite::Lite;
use super::{Commit, RoomRow, Store, StoreError, codec, truncate_to_micros};
use crate::rules::{GameKind, Seat};

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeStatus {
    /// Waiting for the challenged player (expired once past `expires_at`).
    Open,
    /// Accepted: its room was made.
    Accepted,
    /// Declined by the challenged player.
    Declined,
    /// Withdrawn by its maker.
    Cancelled,
}

impl ChallengeStatus {
    /// The stored word: `open`, `accepted`, `declined`, `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Cancelled => "cancelled",
        }
    }

    fn parse(word: &str) -> Result<Self, StoreError> {
        [
            ChallengeStatus::Open,
            ChallengeStatus::Accepted,
            ChallengeStatus::Declined,
            ChallengeStatus::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == word)
        .ok_or_else(|| StoreError::Corrupt(format!("challenge status {word:?}")))
    }
}

/// A challenge's row, with its players' names (read from `users`; ignored when inserting).
#[derive(Clone, Debug, PartialEq)]
pub struct ChallengeRow {
    /// Its id.
    pub id: Uuid,
    /// Who made it.
    pub challenger: Uuid,
    /// The challenger's username.
    pub challenger_name: String,
    /// Who is challenged.
    pub challenged: Uuid,
    /// The challenged player's username.
    pub challenged_name: String,
    /// The game.
    pub game: GameKind,
    /// Its number of players (2).
    pub seats: u8,
    /// The time control (`clock` of a create request); `None`: untimed.
    pub clock: Option<Value>,
    /// Whether the game is rated.
    pub rated: bool,
    /// The challenger's seat; `None`: drawn when accepted.
    pub challenger_seat: Option<Seat>,
    /// Where it stands.
    pub status: ChallengeStatus,
    /// The room made when it was accepted.
    pub room_id: Option<Uuid>,
    /// That room's invite code (read from `rooms`; ignored when inserting).
    pub invite_code: Option<String>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it expires, unless accepted, declined or cancelled before.
    pub expires_at: DateTime<Utc>,
}

impl ChallengeRow {
    /// Whether it is open and not expired at `now`.
    pub fn open_at(&self, now: DateTime<Utc>) -> bool {
        self.status == ChallengeStatus::Open && self.expires_at > now
    }
}

/// Which side of a challenge closes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeSide {
    /// The challenged player, declining.
    Challenged,
    /// Its maker, cancelling.
    Challenger,
}

/// A `SELECT` of challenges with their players' names and their room's invite code, ending
/// with `$tail` (a literal).
macro_rules! select {
    ($tail:literal) => {
        concat!(
            "SELECT c.id, c.challenger, a.name AS challenger_name, c.challenged, ",
            "b.name AS challenged_name, c.game, c.seats, c.clock, c.mode, c.challenger_seat, ",
            "c.status, c.room_id, r.invite_code, c.created_at, c.expires_at FROM challenges c ",
            "JOIN users a ON a.id = c.challenger JOIN users b ON b.id = c.challenged ",
            "LEFT JOIN rooms r ON r.id = c.room_id ",
            $tail
        )
    };
}

impl Store {
    /// Stores a new challenge (`status` open). Errors: either account does not exist.
    pub async fn insert_challenge(&self, row: &ChallengeRow) -> Result<(), StoreError> {
        on_conn!(self, insert(row))
    }

    /// The challenge `id`, whatever its status.
    pub async fn challenge(&self, id: Uuid) -> Result<Option<ChallengeRow>, StoreError> {
        on_conn!(self, by_id(id))
    }

    /// The challenges made by or to `user` that are open at `now`, the oldest first.
    pub async fn open_challenges_of(
        &self,
        user: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Vec<ChallengeRow>, StoreError> {
        on_conn!(self, open_of(user, now))
    }

    /// Closes the open, unexpired challenge `id` as `side` (the challenged player declines, its
    /// maker cancels) at `now`; `false` when `user` is not that side of an open challenge `id`.
    pub async fn close_challenge(
        &self,
        id: Uuid,
        user: Uuid,
        side: ChallengeSide,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_conn!(self, close(id, user, side, now))
    }

    /// Accepts the challenge `id` for `challenged` at `now` and stores its room (`room` and its
    /// first `commit`) in the same transaction, claimed by `node` in cluster mode. `Ok(None)`,
    /// nothing written: the challenge is not an open, unexpired one of `challenged`. `Ok(Some(
    /// claim))`: accepted (`claim` in cluster mode). Errors: [`StoreError::OwnedElsewhere`] when
    /// `node`'s lease is not alive (nothing written); those of
    /// [`Store::create_room`](super::Store::create_room).
    pub async fn accept_challenge(
        &self,
        (id, challenged, now): (Uuid, Uuid, DateTime<Utc>),
        room: &RoomRow,
        commit: &Commit,
        node: Option<Uuid>,
    ) -> Result<Option<Option<Claim>>, StoreError> {
        match self {
            Store::Postgres(s) => {
                let mut tx = s.write_tx().await?;
                if !accepted::<Pg>(&mut tx, id, challenged, now, room.id).await? {
                    return Ok(None);
                }
                queries::insert_room::<Pg>(&mut tx, room, commit.expected_version).await?;
                queries::apply::<Pg>(&mut tx, commit).await?;
                let claim = match node {
                    Some(node) => Some(
                        super::postgres::claim(&mut tx, node, room.id, None)
                            .await?
                            .ok_or(StoreError::OwnedElsewhere { room_id: room.id })?,
                    ),
                    None => None,
                };
                tx.commit().await?;
                Ok(Some(claim))
            }
            Store::Sqlite(s) => {
                let mut tx = s.write_tx().await?;
                if !accepted::<Lite>(&mut tx, id, challenged, now, room.id).await? {
                    return Ok(None);
                }
                queries::insert_room::<Lite>(&mut tx, room, commit.expected_version).await?;
                queries::apply::<Lite>(&mut tx, commit).await?;
                tx.commit().await?;
                Ok(Some(None))
            }
        }
    }

    /// Deletes the challenges decided or expired before `before` (they are kept a while so
    /// that a late answer is told what became of one); returns how many.
    pub async fn forget_challenges(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        in_tx!(self, forget(before))
    }
}

async fn insert<D: Dialect>(conn: &mut D::Conn, c: &ChallengeRow) -> Result<(), StoreError> {
    let sql = "INSERT INTO challenges (id, challenger, challenged, game, seats, clock, mode, \
                                       challenger_seat, status, room_id, created_at, expires_at) \
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
    let params = vec![
        Param::Uuid(c.id),
        Param::Uuid(c.challenger),
        Param::Uuid(c.challenged),
        Param::Text(Some(c.game.as_str())),
        Param::Small(Some(c.seats.into())),
        Param::Json(c.clock.as_ref()),
        Param::Text(Some(if c.rated { "rated" } else { "casual" })),
        Param::Small(c.challenger_seat.map(i16::from)),
        Param::Text(Some(c.status.as_str())),
        Param::NullableUuid(c.room_id),
        Param::Time(Some(truncate_to_micros(c.created_at))),
        Param::Time(Some(truncate_to_micros(c.expires_at))),
    ];
    D::execute(conn, Statement::new(sql, params))
        .await
        .map(|_| ())
}

async fn by_id<D: Dialect>(
    conn: &mut D::Conn,
    id: Uuid,
) -> Result<Option<ChallengeRow>, StoreError> {
    const SQL: &str = select!("WHERE c.id = $1");
    D::fetch_optional(conn, Statement::new(SQL, [Param::Uuid(id)]))
        .await?
        .map(|row| from_row::<D>(&row))
        .transpose()
}

async fn open_of<D: Dialect>(
    conn: &mut D::Conn,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<ChallengeRow>, StoreError> {
    const SQL: &str = select!(
        "WHERE (c.challenger = $1 OR c.challenged = $1) AND c.status = 'open' \
         AND c.expires_at > $2 ORDER BY c.created_at, c.id"
    );
    let params = [Param::Uuid(user), Param::Time(Some(now))];
    D::fetch_all(conn, Statement::new(SQL, params))
        .await?
        .iter()
        .map(from_row::<D>)
        .collect()
}

async fn close<D: Dialect>(
    conn: &mut D::Conn,
    id: Uuid,
    user: Uuid,
    side: ChallengeSide,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let (sql, status) = match side {
        ChallengeSide::Challenged => (
            "UPDATE challenges SET status = $1, decided_at = $2 \
             WHERE id = $3 AND challenged = $4 AND status = 'open' AND expires_at > $2",
            ChallengeStatus::Declined,
        ),
        ChallengeSide::Challenger => (
            "UPDATE challenges SET status = $1, decided_at = $2 \
             WHERE id = $3 AND challenger = $4 AND status = 'open' AND expires_at > $2",
            ChallengeStatus::Cancelled,
        ),
    };
    let params = vec![
        Param::Text(Some(status.as_str())),
        Param::Time(Some(truncate_to_micros(now))),
        Param::Uuid(id),
        Param::Uuid(user),
    ];
    Ok(D::execute(conn, Statement::new(sql, params)).await? > 0)
}

async fn accepted<D: Dialect>(
    conn: &mut D::Conn,
    id: Uuid,
    challenged: Uuid,
    now: DateTime<Utc>,
    room_id: Uuid,
) -> Result<bool, StoreError> {
    let sql = "UPDATE challenges SET status = 'accepted', room_id = $1, decided_at = $2 \
               WHERE id = $3 AND challenged = $4 AND status = 'open' AND expires_at > $2";
    let params = vec![
        Param::Uuid(room_id),
        Param::Time(Some(truncate_to_micros(now))),
        Param::Uuid(id),
        Param::Uuid(challenged),
    ];
    Ok(D::execute(conn, Statement::new(sql, params)).await? > 0)
}

async fn forget<D: Dialect>(conn: &mut D::Conn, before: DateTime<Utc>) -> Result<u64, StoreError> {
    let sql = "DELETE FROM challenges WHERE (status = 'open' AND expires_at < $1) \
               OR (status <> 'open' AND decided_at < $1)";
    D::execute(conn, Statement::new(sql, [Param::Time(Some(before))])).await
}

fn from_row<D: Dialect>(row: &D::Row) -> Result<ChallengeRow, StoreError> {
    let cols = Cols::<D>(row);
    let game = cols.text("game")?;
    Ok(ChallengeRow {
        id: cols.uuid("id")?,
        challenger: cols.uuid("challenger")?,
        challenger_name: cols.text("challenger_name")?,
        challenged: cols.uuid("challenged")?,
        challenged_name: cols.text("challenged_name")?,
        game: game
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("challenge game {game:?}")))?,
        seats: codec::small("seats", cols.int("seats")?)?,
        clock: D::json(row, "clock")?,
        rated: cols.text("mode")? == "rated",
        challenger_seat: cols.optional_seat("challenger_seat")?,
        status: ChallengeStatus::parse(&cols.text("status")?)?,
        room_id: D::uuid(row, "room_id")?,
        invite_code: D::text(row, "invite_code")?,
        created_at: cols.time("created_at")?,
        expires_at: cols.time("expires_at")?,
    })
}
