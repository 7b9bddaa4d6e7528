//! The SQLite backend of [`Store`](super::Store): a `SqlitePool` and the SQL for
//! `migrations/sqlite`.
//!
//! A file database runs in WAL mode with `synchronous=FULL`, so a committed transaction is on disk
//! before `commit` returns (acks depend on it), with foreign keys on and a 5 s busy timeout.
//! `sqlite::memory:` gets one connection that never expires, so the pool is one database.
//!
//! Types: UUIDs as hyphenated lowercase text, integers as `INTEGER`, JSON as text, token hashes as
//! `BLOB`, timestamps as fixed-width RFC 3339 UTC text with microseconds (see `codec`). Tables are
//! `STRICT`. Writes start with `BEGIN IMMEDIATE`, taking the write lock up front, so a writer waits
//! (up to the busy timeout) instead of failing half-way.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteRow, SqliteSynchronous,
};
use uuid::Uuid;

use super::codec::{self, get};
use super::{
    ChatRow, Commit, CountingRow, EventRow, GameRecord, LobbyRoom, MoveRow, RoomRef, RoomRow,
    SeatRow, StoreError, StoredRoom, now,
};

/// How long a statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections a file database's pool opens at most (WAL: many readers, one writer at a time).
const MAX_FILE_CONNECTIONS: u32 = 4;

/// A SQLite-backed store. Cheap to clone (the pool is shared).
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if missing) the database of `url` (`sqlite:...`) and applies
    /// `migrations/sqlite`.
    pub async fn connect(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        let pool = if is_memory_url(url) {
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await?
        } else {
            let options = options
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full);
            SqlitePoolOptions::new()
                .max_connections(MAX_FILE_CONNECTIONS)
                .connect_with(options)
                .await?
        };
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        Ok(SqliteStore { pool })
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
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        insert_room(&mut tx, room, commit.expected_version).await?;
        apply(&mut tx, commit).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`Store::commit`](super::Store::commit).
    pub async fn commit(&self, c: &Commit) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        apply(&mut tx, c).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`Store::load_room`](super::Store::load_room).
    pub async fn load_room(&self, r: RoomRef<'_>) -> Result<Option<StoredRoom>, StoreError> {
        // A read transaction: the three reads see one snapshot.
        let mut tx = self.pool.begin().await?;
        let row = match r {
            RoomRef::Id(id) => {
                sqlx::query(
                    "SELECT id, invite_code, game, seats, visibility, status, version, \
                            start_position, options, created_at \
                     FROM rooms WHERE id = ?1",
                )
                .bind(codec::uuid_text(id))
                .fetch_optional(&mut *tx)
                .await?
            }
            RoomRef::InviteCode(code) => {
                sqlx::query(
                    "SELECT id, invite_code, game, seats, visibility, status, version, \
                            start_position, options, created_at \
                     FROM rooms WHERE invite_code = ?1",
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
        let id = codec::uuid_text(room.id);
        let seats = sqlx::query(
            "SELECT seat, name, token_hash, bot_level, joined_at FROM seats \
             WHERE room_id = ?1 ORDER BY seat",
        )
        .bind(id.as_str())
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(seat_from_row)
        .collect::<Result<Vec<_>, _>>()?;
        let events = sqlx::query(
            "SELECT v, kind, seat, cid, data, created_at FROM room_events \
             WHERE room_id = ?1 ORDER BY v",
        )
        .bind(id.as_str())
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
            .map(|row| codec::uuid_from_text("id", get(row, "id")?))
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
             LIMIT ?1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(LobbyRoom {
                room_id: codec::uuid_from_text("id", get(row, "id")?)?,
                invite_code: get(row, "invite_code")?,
                game: codec::game("game", get(row, "game")?)?,
                seats: codec::small("seats", get(row, "seats")?)?,
                taken: codec::small("taken", get(row, "taken")?)?,
                created_at: codec::time_from_text("created_at", get(row, "created_at")?)?,
            })
        })
        .collect()
    }

    /// See [`Store::game_record`](super::Store::game_record).
    pub async fn game_record(&self, room_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT room_id, game, players, winner, reason, start_position, final_position, \
                    moves, display_moves, counting, started_at, finished_at \
             FROM games WHERE room_id = ?1",
        )
        .bind(codec::uuid_text(room_id))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let json = |column: &'static str| -> Result<_, StoreError> {
            codec::json_from_text(column, get(&row, column)?)
        };
        Ok(Some(GameRecord {
            room_id: codec::uuid_from_text("room_id", get(&row, "room_id")?)?,
            game: codec::game("game", get(&row, "game")?)?,
            players: json("players")?,
            winner: optional_seat(&row, "winner")?,
            reason: get(&row, "reason")?,
            start_position: get(&row, "start_position")?,
            final_position: get(&row, "final_position")?,
            moves: codec::string_list("moves", json("moves")?)?,
            display_moves: codec::string_list("display_moves", json("display_moves")?)?,
            counting: get::<_, Option<&str>>(&row, "counting")?
                .map(|text| codec::json_from_text("counting", text))
                .transpose()?,
            started_at: get::<_, Option<&str>>(&row, "started_at")?
                .map(|text| codec::time_from_text("started_at", text))
                .transpose()?,
            finished_at: codec::time_from_text("finished_at", get(&row, "finished_at")?)?,
        }))
    }

    /// See [`Store::moves`](super::Store::moves).
    pub async fn moves(&self, room_id: Uuid) -> Result<Vec<MoveRow>, StoreError> {
        sqlx::query(
            "SELECT ply, v, seat, notation, display, position, created_at \
             FROM moves WHERE room_id = ?1 ORDER BY ply",
        )
        .bind(codec::uuid_text(room_id))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            Ok(MoveRow {
                ply: get(row, "ply")?,
                v: get(row, "v")?,
                seat: codec::small("seat", get(row, "seat")?)?,
                notation: get(row, "notation")?,
                display: get(row, "display")?,
                position: get(row, "position")?,
                created_at: codec::time_from_text("created_at", get(row, "created_at")?)?,
            })
        })
        .collect()
    }

    /// See [`Store::insert_chat`](super::Store::insert_chat).
    pub async fn insert_chat(&self, room_id: Uuid, row: &ChatRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO chat_messages (room_id, seq, channel, seat, name, text, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .bind(codec::uuid_text(room_id))
        .bind(row.seq)
        .bind(row.channel.as_str())
        .bind(row.seat.map(i64::from))
        .bind(row.name.as_deref())
        .bind(row.text.as_str())
        .bind(codec::time_text(row.created_at))
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
             WHERE room_id = ?1 AND channel = ?2 ORDER BY seq DESC LIMIT ?3",
        )
        .bind(codec::uuid_text(room_id))
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
                created_at: codec::time_from_text("created_at", get(row, "created_at")?)?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
        rows.reverse();
        Ok(rows)
    }

    /// See [`Store::last_chat_seq`](super::Store::last_chat_seq).
    pub async fn last_chat_seq(&self, room_id: Uuid) -> Result<i64, StoreError> {
        let seq: Option<i64> =
            sqlx::query_scalar("SELECT max(seq) FROM chat_messages WHERE room_id = ?1")
                .bind(codec::uuid_text(room_id))
                .fetch_one(&self.pool)
                .await?;
        Ok(seq.unwrap_or(0))
    }

    /// See [`Store::counting_states`](super::Store::counting_states).
    pub async fn counting_states(&self, room_id: Uuid) -> Result<Vec<CountingRow>, StoreError> {
        sqlx::query(
            "SELECT ply, kind, count, limit_moves, escaping, started_ply \
             FROM counting_state WHERE room_id = ?1 ORDER BY ply",
        )
        .bind(codec::uuid_text(room_id))
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

/// Whether `url` names an in-memory database (`sqlite::memory:` or `?mode=memory`).
fn is_memory_url(url: &str) -> bool {
    let rest = url.strip_prefix("sqlite:").unwrap_or(url);
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (database, params) = rest.split_once('?').unwrap_or((rest, ""));
    database == ":memory:" || params.split('&').any(|param| param == "mode=memory")
}

/// Inserts a room's own row at version `expected_version` (see
/// [`Store::create_room`](super::Store::create_room)).
async fn insert_room(
    conn: &mut SqliteConnection,
    room: &RoomRow,
    expected_version: i64,
) -> Result<(), StoreError> {
    let created_at = codec::time_text(room.created_at);
    sqlx::query(
        "INSERT INTO rooms (id, invite_code, game, seats, visibility, status, version, \
                                start_position, options, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
    )
    .bind(codec::uuid_text(room.id))
    .bind(room.invite_code.as_str())
    .bind(room.game.as_str())
    .bind(i64::from(room.seats))
    .bind(room.visibility.as_str())
    .bind(room.status.as_str())
    .bind(expected_version)
    .bind(room.start_position.as_str())
    .bind(codec::json_text(&room.options))
    .bind(created_at)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes `c` inside the caller's transaction (see [`Store::commit`](super::Store::commit)), and
/// the room it creates, if any. On an error the caller drops the transaction, which rolls
/// everything back.
async fn apply(conn: &mut SqliteConnection, c: &Commit) -> Result<(), StoreError> {
    codec::check_commit(c)?;
    apply_one(conn, c).await?;
    if let Some(created) = &c.new_room {
        insert_room(conn, &created.room, created.commit.expected_version).await?;
        apply_one(conn, &created.commit).await?;
    }
    Ok(())
}

/// Writes one room's part of a commit.
async fn apply_one(conn: &mut SqliteConnection, c: &Commit) -> Result<(), StoreError> {
    let version = codec::check_commit(c)?;
    let room_id = codec::uuid_text(c.room_id);
    let updated = sqlx::query(
        "UPDATE rooms SET version = ?1, status = ?2, updated_at = ?3 \
         WHERE id = ?4 AND version = ?5",
    )
    .bind(version)
    .bind(c.status.as_str())
    .bind(codec::time_text(now()))
    .bind(room_id.as_str())
    .bind(c.expected_version)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if updated == 0 {
        // Either the room moved on (conflict) or it does not exist (RowNotFound).
        let found: i64 = sqlx::query_scalar("SELECT version FROM rooms WHERE id = ?1")
            .bind(room_id.as_str())
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
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .bind(room_id.as_str())
        .bind(e.v)
        .bind(e.kind.as_str())
        .bind(e.seat.map(i64::from))
        .bind(e.cid.as_deref())
        .bind(codec::json_text(&e.data))
        .bind(codec::time_text(e.created_at))
        .execute(&mut *conn)
        .await?;
    }
    for s in &c.seats {
        sqlx::query(
            "INSERT INTO seats (room_id, seat, name, token_hash, bot_level, joined_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(room_id.as_str())
        .bind(i64::from(s.seat))
        .bind(s.name.as_deref())
        .bind(&s.token_hash[..])
        .bind(s.bot.map(i64::from))
        .bind(codec::time_text(s.joined_at))
        .execute(&mut *conn)
        .await?;
    }
    if let Some(m) = &c.mv {
        sqlx::query(
            "INSERT INTO moves (room_id, ply, v, seat, notation, display, position, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .bind(room_id.as_str())
        .bind(m.ply)
        .bind(m.v)
        .bind(i64::from(m.seat))
        .bind(m.notation.as_str())
        .bind(m.display.as_str())
        .bind(m.position.as_str())
        .bind(codec::time_text(m.created_at))
        .execute(&mut *conn)
        .await?;
    }
    if let Some(k) = &c.counting {
        sqlx::query(
            "INSERT INTO counting_state (room_id, ply, kind, count, limit_moves, escaping, \
                                         started_ply) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .bind(room_id.as_str())
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
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )
        .bind(codec::uuid_text(g.room_id))
        .bind(g.game.as_str())
        .bind(codec::json_text(&g.players))
        .bind(g.winner.map(i64::from))
        .bind(g.reason.as_str())
        .bind(g.start_position.as_str())
        .bind(g.final_position.as_str())
        .bind(codec::json_text(&codec::list_json(&g.moves)))
        .bind(codec::json_text(&codec::list_json(&g.display_moves)))
        .bind(g.counting.as_ref().map(codec::json_text))
        .bind(g.started_at.map(codec::time_text))
        .bind(codec::time_text(g.finished_at))
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

fn room_from_row(row: &SqliteRow) -> Result<RoomRow, StoreError> {
    Ok(RoomRow {
        id: codec::uuid_from_text("id", get(row, "id")?)?,
        invite_code: get(row, "invite_code")?,
        game: codec::game("game", get(row, "game")?)?,
        seats: codec::small("seats", get(row, "seats")?)?,
        visibility: codec::visibility("visibility", get(row, "visibility")?)?,
        status: codec::status("status", get(row, "status")?)?,
        version: get(row, "version")?,
        start_position: get(row, "start_position")?,
        options: codec::json_from_text("options", get(row, "options")?)?,
        created_at: codec::time_from_text("created_at", get(row, "created_at")?)?,
    })
}

fn seat_from_row(row: &SqliteRow) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: codec::small("seat", get(row, "seat")?)?,
        name: get(row, "name")?,
        token_hash: codec::token_hash("token_hash", get(row, "token_hash")?)?,
        bot: get::<_, Option<i64>>(row, "bot_level")?
            .map(|level| codec::small("bot_level", level))
            .transpose()?,
        joined_at: codec::time_from_text("joined_at", get(row, "joined_at")?)?,
    })
}

fn event_from_row(row: &SqliteRow) -> Result<EventRow, StoreError> {
    Ok(EventRow {
        v: get(row, "v")?,
        kind: get(row, "kind")?,
        seat: optional_seat(row, "seat")?,
        cid: get(row, "cid")?,
        data: codec::json_from_text("data", get(row, "data")?)?,
        created_at: codec::time_from_text("created_at", get(row, "created_at")?)?,
    })
}

fn optional_seat(row: &SqliteRow, column: &'static str) -> Result<Option<u8>, StoreError> {
    get::<_, Option<i64>>(row, column)?
        .map(|seat| codec::small(column, seat))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::is_memory_url;

    #[test]
    fn memory_urls_are_recognised() {
        assert!(is_memory_url("sqlite::memory:"));
        assert!(is_memory_url("sqlite://:memory:"));
        assert!(is_memory_url("sqlite://shared?mode=memory&cache=shared"));
        assert!(!is_memory_url("sqlite:///tmp/khanate.db"));
        assert!(!is_memory_url("sqlite://khanate.db?mode=rwc"));
    }
}
