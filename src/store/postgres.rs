//! The PostgreSQL backend of [`Store`](super::Store): a `PgPool` and the SQL for
//! `migrations/postgres`.
//!
//! Types: `uuid` ids, `smallint` seats, `bigint` versions, `jsonb` for JSON (move lists included),
//! `bytea` token hashes, `timestamptz` times (microseconds). A commit's optimistic version check is
//! its first statement, an `UPDATE ... WHERE version = $expected`, which takes the room's row lock:
//! a concurrent writer of the same room waits, then finds the version moved and gets a conflict.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow};
use uuid::Uuid;

use super::codec::{self, get};
use super::group_commit::GroupCommit;
use super::{
    ChatRow, Commit, CountingRow, EventRow, GameRecord, LobbyRoom, MoveRow, RoomRef, RoomRow,
    SeatRow, StoreError, StoredRoom, now, truncate_to_micros,
};

/// Connections the pool opens at most.
const MAX_CONNECTIONS: u32 = 10;
/// How long a query waits for a free connection before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// A PostgreSQL-backed store. Cheap to clone (the pool and the commit queue are shared).
#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
    group: GroupCommit,
}

impl PgStore {
    /// Connects to `url` (`postgres://...`) and applies `migrations/postgres`.
    pub async fn connect(url: &str) -> Result<PgStore, StoreError> {
        let options = PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let group = GroupCommit::start(pool.clone());
        Ok(PgStore { pool, group })
    }

    /// See [`Store::ping`](super::Store::ping).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// See [`Store::close`](super::Store::close).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// See [`Store::create_room`](super::Store::create_room).
    pub async fn create_room(&self, room: &RoomRow, commit: &Commit) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        insert_room(&mut tx, room, commit.expected_version).await?;
        apply(&mut tx, commit).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`Store::commit`](super::Store::commit). Written together with other rooms' commits
    /// (see [`GroupCommit`]).
    pub async fn commit(&self, c: &Commit) -> Result<(), StoreError> {
        self.group.commit(c).await
    }

    /// See [`Store::load_room`](super::Store::load_room).
    pub async fn load_room(&self, r: RoomRef<'_>) -> Result<Option<StoredRoom>, StoreError> {
        // One snapshot for the three reads, so the events match the room's version.
        let mut tx = self
            .pool
            .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await?;
        let row = match r {
            RoomRef::Id(id) => {
                sqlx::query(
                    "SELECT id, invite_code, game, seats, visibility, status, version, \
                            start_position, options, created_at \
                     FROM rooms WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
            }
            RoomRef::InviteCode(code) => {
                sqlx::query(
                    "SELECT id, invite_code, game, seats, visibility, status, version, \
                            start_position, options, created_at \
                     FROM rooms WHERE invite_code = $1",
                )
                .bind(code)
                .fetch_optional(&mut *tx)
                .await?
            }
        };
        let Some(row) = row else {
            return Ok(None);
        };
        let room = room_from_row(&row)?;
        let seats = sqlx::query(
            "SELECT seat, name, token_hash, bot_level, joined_at FROM seats \
             WHERE room_id = $1 ORDER BY seat",
        )
        .bind(room.id)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(seat_from_row)
        .collect::<Result<Vec<_>, _>>()?;
        let events = sqlx::query(
            "SELECT v, kind, seat, cid, data, created_at FROM room_events \
             WHERE room_id = $1 ORDER BY v",
        )
        .bind(room.id)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(event_from_row)
        .collect::<Result<Vec<_>, _>>()?;
        tx.commit().await?;
        Ok(Some(StoredRoom {
            room,
            seats,
            events,
        }))
    }

    /// See [`Store::unfinished_room_ids`](super::Store::unfinished_room_ids).
    pub async fn unfinished_room_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        sqlx::query("SELECT id FROM rooms WHERE status <> 'finished' ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|row| get(row, "id"))
            .collect()
    }

    /// See [`Store::lobby`](super::Store::lobby).
    pub async fn lobby(&self, limit: i64) -> Result<Vec<LobbyRoom>, StoreError> {
        sqlx::query(
            "SELECT r.id, r.invite_code, r.game, r.seats, r.created_at, \
                    (SELECT count(*) FROM seats s WHERE s.room_id = r.id) AS taken \
             FROM rooms r \
             WHERE r.status = 'waiting' AND r.visibility = 'public' \
             ORDER BY r.created_at DESC, r.id DESC \
             LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(LobbyRoom {
                room_id: get(row, "id")?,
                invite_code: get(row, "invite_code")?,
                game: codec::game("game", get(row, "game")?)?,
                seats: codec::small("seats", get::<_, i16>(row, "seats")?.into())?,
                taken: codec::small("taken", get(row, "taken")?)?,
                created_at: get(row, "created_at")?,
            })
        })
        .collect()
    }

    /// See [`Store::game_record`](super::Store::game_record).
    pub async fn game_record(&self, room_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT room_id, game, players, winner, reason, start_position, final_position, \
                    moves, display_moves, counting, started_at, finished_at \
             FROM games WHERE room_id = $1",
        )
        .bind(room_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(GameRecord {
            room_id: get(&row, "room_id")?,
            game: codec::game("game", get(&row, "game")?)?,
            players: get(&row, "players")?,
            winner: optional_seat(&row, "winner")?,
            reason: get(&row, "reason")?,
            start_position: get(&row, "start_position")?,
            final_position: get(&row, "final_position")?,
            moves: codec::string_list("moves", get(&row, "moves")?)?,
            display_moves: codec::string_list("display_moves", get(&row, "display_moves")?)?,
            counting: get(&row, "counting")?,
            started_at: get(&row, "started_at")?,
            finished_at: get(&row, "finished_at")?,
        }))
    }

    /// See [`Store::moves`](super::Store::moves).
    pub async fn moves(&self, room_id: Uuid) -> Result<Vec<MoveRow>, StoreError> {
        sqlx::query(
            "SELECT ply, v, seat, notation, display, position, created_at \
             FROM moves WHERE room_id = $1 ORDER BY ply",
        )
        .bind(room_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(MoveRow {
                ply: get(row, "ply")?,
                v: get(row, "v")?,
                seat: codec::small("seat", get::<_, i16>(row, "seat")?.into())?,
                notation: get(row, "notation")?,
                display: get(row, "display")?,
                position: get(row, "position")?,
                created_at: get(row, "created_at")?,
            })
        })
        .collect()
    }

    /// See [`Store::insert_chat`](super::Store::insert_chat).
    pub async fn insert_chat(&self, room_id: Uuid, row: &ChatRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO chat_messages (room_id, seq, channel, seat, name, text, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(room_id)
        .bind(row.seq)
        .bind(row.channel.as_str())
        .bind(row.seat.map(i16::from))
        .bind(row.name.as_deref())
        .bind(row.text.as_str())
        .bind(truncate_to_micros(row.created_at))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// See [`Store::chat`](super::Store::chat).
    pub async fn chat(
        &self,
        room_id: Uuid,
        channel: &str,
        limit: i64,
    ) -> Result<Vec<ChatRow>, StoreError> {
        let mut rows = sqlx::query(
            "SELECT seq, channel, seat, name, text, created_at FROM chat_messages \
             WHERE room_id = $1 AND channel = $2 ORDER BY seq DESC LIMIT $3",
        )
        .bind(room_id)
        .bind(channel)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(ChatRow {
                seq: get(row, "seq")?,
                channel: get(row, "channel")?,
                seat: optional_seat(row, "seat")?,
                name: get(row, "name")?,
                text: get(row, "text")?,
                created_at: get(row, "created_at")?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        rows.reverse();
        Ok(rows)
    }

    /// See [`Store::last_chat_seq`](super::Store::last_chat_seq).
    pub async fn last_chat_seq(&self, room_id: Uuid) -> Result<i64, StoreError> {
        let seq: Option<i64> =
            sqlx::query_scalar("SELECT max(seq) FROM chat_messages WHERE room_id = $1")
                .bind(room_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(seq.unwrap_or(0))
    }

    /// See [`Store::counting_states`](super::Store::counting_states).
    pub async fn counting_states(&self, room_id: Uuid) -> Result<Vec<CountingRow>, StoreError> {
        sqlx::query(
            "SELECT ply, kind, count, limit_moves, escaping, started_ply \
             FROM counting_state WHERE room_id = $1 ORDER BY ply",
        )
        .bind(room_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(CountingRow {
                ply: get(row, "ply")?,
                kind: get(row, "kind")?,
                count: get(row, "count")?,
                limit: get(row, "limit_moves")?,
                escaping: get(row, "escaping")?,
                started_ply: get(row, "started_ply")?,
            })
        })
        .collect()
    }
}

/// Writes `c` in a transaction of its own (the path of a commit that is not batched).
pub(super) async fn commit_alone(pool: &PgPool, c: &Commit) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    apply(&mut tx, c).await?;
    tx.commit().await?;
    Ok(())
}

/// Inserts a room's own row at version `expected_version` (see
/// [`Store::create_room`](super::Store::create_room)).
async fn insert_room(
    conn: &mut PgConnection,
    room: &RoomRow,
    expected_version: i64,
) -> Result<(), StoreError> {
    let created_at = truncate_to_micros(room.created_at);
    sqlx::query(
        "INSERT INTO rooms (id, invite_code, game, seats, visibility, status, version, \
                                start_position, options, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
    )
    .bind(room.id)
    .bind(room.invite_code.as_str())
    .bind(room.game.as_str())
    .bind(i16::from(room.seats))
    .bind(room.visibility.as_str())
    .bind(room.status.as_str())
    .bind(expected_version)
    .bind(room.start_position.as_str())
    .bind(&room.options)
    .bind(created_at)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes `c` inside the caller's transaction (see [`Store::commit`](super::Store::commit)), and
/// the room it creates, if any. On an error the caller drops the transaction, which rolls
/// everything back.
async fn apply(conn: &mut PgConnection, c: &Commit) -> Result<(), StoreError> {
    codec::check_commit(c)?;
    apply_one(conn, c).await?;
    if let Some(created) = &c.new_room {
        insert_room(conn, &created.room, created.commit.expected_version).await?;
        apply_one(conn, &created.commit).await?;
    }
    Ok(())
}

/// Writes one room's part of a commit.
async fn apply_one(conn: &mut PgConnection, c: &Commit) -> Result<(), StoreError> {
    let version = codec::check_commit(c)?;
    let updated = sqlx::query(
        "UPDATE rooms SET version = $1, status = $2, updated_at = $3 \
         WHERE id = $4 AND version = $5",
    )
    .bind(version)
    .bind(c.status.as_str())
    .bind(now())
    .bind(c.room_id)
    .bind(c.expected_version)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if updated == 0 {
        // Either the room moved on (conflict) or it does not exist (RowNotFound).
        let found: i64 = sqlx::query_scalar("SELECT version FROM rooms WHERE id = $1")
            .bind(c.room_id)
            .fetch_one(&mut *conn)
            .await?;
        return Err(StoreError::Conflict {
            room_id: c.room_id,
            expected: c.expected_version,
            found,
        });
    }
    for e in &c.events {
        sqlx::query(
            "INSERT INTO room_events (room_id, v, kind, seat, cid, data, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(c.room_id)
        .bind(e.v)
        .bind(e.kind.as_str())
        .bind(e.seat.map(i16::from))
        .bind(e.cid.as_deref())
        .bind(&e.data)
        .bind(truncate_to_micros(e.created_at))
        .execute(&mut *conn)
        .await?;
    }
    for s in &c.seats {
        sqlx::query(
            "INSERT INTO seats (room_id, seat, name, token_hash, bot_level, joined_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(c.room_id)
        .bind(i16::from(s.seat))
        .bind(s.name.as_deref())
        .bind(&s.token_hash[..])
        .bind(s.bot.map(i16::from))
        .bind(truncate_to_micros(s.joined_at))
        .execute(&mut *conn)
        .await?;
    }
    if let Some(m) = &c.mv {
        sqlx::query(
            "INSERT INTO moves (room_id, ply, v, seat, notation, display, position, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(c.room_id)
        .bind(m.ply)
        .bind(m.v)
        .bind(i16::from(m.seat))
        .bind(m.notation.as_str())
        .bind(m.display.as_str())
        .bind(m.position.as_str())
        .bind(truncate_to_micros(m.created_at))
        .execute(&mut *conn)
        .await?;
    }
    if let Some(k) = &c.counting {
        sqlx::query(
            "INSERT INTO counting_state (room_id, ply, kind, count, limit_moves, escaping, \
                                         started_ply) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(c.room_id)
        .bind(k.ply)
        .bind(k.kind.as_str())
        .bind(k.count)
        .bind(k.limit)
        .bind(k.escaping.as_str())
        .bind(k.started_ply)
        .execute(&mut *conn)
        .await?;
    }
    if let Some(g) = &c.game {
        sqlx::query(
            "INSERT INTO games (room_id, game, players, winner, reason, start_position, \
                                final_position, moves, display_moves, counting, started_at, \
                                finished_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(g.room_id)
        .bind(g.game.as_str())
        .bind(&g.players)
        .bind(g.winner.map(i16::from))
        .bind(g.reason.as_str())
        .bind(g.start_position.as_str())
        .bind(g.final_position.as_str())
        .bind(codec::list_json(&g.moves))
        .bind(codec::list_json(&g.display_moves))
        .bind(g.counting.as_ref())
        .bind(g.started_at.map(truncate_to_micros))
        .bind(truncate_to_micros(g.finished_at))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

fn room_from_row(row: &PgRow) -> Result<RoomRow, StoreError> {
    Ok(RoomRow {
        id: get(row, "id")?,
        invite_code: get(row, "invite_code")?,
        game: codec::game("game", get(row, "game")?)?,
        seats: codec::small("seats", get::<_, i16>(row, "seats")?.into())?,
        visibility: codec::visibility("visibility", get(row, "visibility")?)?,
        status: codec::status("status", get(row, "status")?)?,
        version: get(row, "version")?,
        start_position: get(row, "start_position")?,
        options: get::<_, Value>(row, "options")?,
        created_at: get::<_, DateTime<Utc>>(row, "created_at")?,
    })
}

fn seat_from_row(row: &PgRow) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: codec::small("seat", get::<_, i16>(row, "seat")?.into())?,
        name: get(row, "name")?,
        token_hash: codec::token_hash("token_hash", get(row, "token_hash")?)?,
        bot: get::<_, Option<i16>>(row, "bot_level")?
            .map(|level| codec::small("bot_level", level.into()))
            .transpose()?,
        joined_at: get(row, "joined_at")?,
    })
}

fn event_from_row(row: &PgRow) -> Result<EventRow, StoreError> {
    Ok(EventRow {
        v: get(row, "v")?,
        kind: get(row, "kind")?,
        seat: optional_seat(row, "seat")?,
        cid: get(row, "cid")?,
        data: get(row, "data")?,
        created_at: get(row, "created_at")?,
    })
}

fn optional_seat(row: &PgRow, column: &'static str) -> Result<Option<u8>, StoreError> {
    get::<_, Option<i16>>(row, column)?
        .map(|seat| codec::small(column, seat.into()))
        .transpose()
}
