//! The store's queries, written once for every backend.
//!
//! Why this shape: the two backends' query code was the same SQL and the same row mapping, apart
//! from how a uuid, a JSON value, a timestamp or a small integer is encoded, and `?1` versus `$1`
//! (sqlx's SQLite driver accepts `$1`, so that difference was not needed). So the queries here are
//! generic over a [`Dialect`], a trait of a dozen concrete functions (run a statement, read a
//! column of one of six kinds) that each backend implements once, and values are bound as
//! [`Param`]s that each backend encodes for its column types. Two designs were set aside:
//! code generic over `DB: sqlx::Database` needs `Encode`/`Decode`/`Type` bounds for every bound
//! type and a higher-ranked `Executor` bound, repeated on every function (Rust does not imply
//! where-clauses of a trait), which is more noise than the duplication it removes; and sqlx's `Any`
//! driver binds uuids, JSON and timestamps as text, which PostgreSQL's typed columns refuse without
//! casts, and it would hide the `PgPool` that group commit needs.
//!
//! So a new table or query is written here once, and a third backend implements [`Dialect`] (a
//! `match` over [`Param`] and six getters) plus its connecting and transactions. The price is a
//! small `Vec` of [`Param`]s per statement, nothing beside a database round trip.
//!
//! Transactions stay with the backends (`BEGIN IMMEDIATE` for SQLite writers, a repeatable-read
//! snapshot for PostgreSQL reads): these functions take the connection, or the open transaction,
//! they run on.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::codec;
use super::dialect::{Dialect, Param, Statement, required};
use super::{
    ChatAnswer, ChatRow, Commit, EventRow, ExtraRow, GameRecord, HeldSeat, LobbyRoom, MoveRow,
    RoomRef, RoomRow, SeatRow, StoreError, StoredRoom, now, truncate_to_micros,
};
use crate::rules::{Extra, Seat};

/// Runs a trivial statement (see [`Store::ping`](super::Store::ping)).
pub(super) async fn ping<D: Dialect>(conn: &mut D::Conn) -> Result<(), StoreError> {
    D::execute(conn, Statement::new("SELECT 1", [])).await?;
    Ok(())
}

/// Inserts a room's own row at version `expected_version` (see
/// [`Store::create_room`](super::Store::create_room)).
pub(super) async fn insert_room<D: Dialect>(
    conn: &mut D::Conn,
    room: &RoomRow,
    expected_version: i64,
) -> Result<(), StoreError> {
    let sql = "INSERT INTO rooms (id, invite_code, game, seats, visibility, status, version, \
                                  start_position, options, created_at, updated_at, rated) \
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)";
    let params = [
        Param::Uuid(room.id),
        Param::Text(Some(&room.invite_code)),
        Param::Text(Some(room.game.as_str())),
        Param::Small(Some(room.seats.into())),
        Param::Text(Some(room.visibility.as_str())),
        Param::Text(Some(room.status.as_str())),
        Param::Big(expected_version),
        Param::Text(Some(&room.start_position)),
        Param::Json(Some(&room.options)),
        Param::Time(Some(truncate_to_micros(room.created_at))),
        Param::Bool(crate::domain::is_rated(&room.options)),
    ];
    D::execute(conn, Statement::new(sql, params)).await?;
    Ok(())
}

/// Writes `c` inside the caller's transaction (see [`Store::commit`](super::Store::commit)), and
/// the room it creates, if any. On an error the caller drops the transaction, which rolls
/// everything back.
pub(super) async fn apply<D: Dialect>(conn: &mut D::Conn, c: &Commit) -> Result<(), StoreError> {
    codec::check_commit(c)?;
    apply_one::<D>(conn, c).await?;
    if let Some(created) = &c.new_room {
        insert_room::<D>(conn, &created.room, created.commit.expected_version).await?;
        apply_one::<D>(conn, &created.commit).await?;
    }
    Ok(())
}

/// Writes one room's part of a commit: the version check (and, in cluster mode, the epoch check)
/// first, then its rows.
async fn apply_one<D: Dialect>(conn: &mut D::Conn, c: &Commit) -> Result<(), StoreError> {
    let version = codec::check_commit(c)?;
    let mut params = vec![
        Param::Big(version),
        Param::Text(Some(c.status.as_str())),
        Param::Time(Some(now())),
        Param::Uuid(c.room_id),
        Param::Big(c.expected_version),
        Param::Time(c.flag_at.map(truncate_to_micros)),
    ];
    // A single node's statement stays as it was: only a cluster node names the epoch column.
    let sql = match c.epoch {
        None => {
            "UPDATE rooms SET version = $1, status = $2, updated_at = $3, flag_at = $6 \
             WHERE id = $4 AND version = $5"
        }
        Some(epoch) => {
            params.push(Param::Big(epoch));
            "UPDATE rooms SET version = $1, status = $2, updated_at = $3, flag_at = $6 \
             WHERE id = $4 AND version = $5 AND owner_epoch = $7"
        }
    };
    if D::execute(conn, Statement::new(sql, params)).await? == 0 {
        return Err(conflict::<D>(conn, c).await);
    }
    for statement in commit_rows(c) {
        D::execute(conn, statement).await?;
    }
    if let Some(rated) = &c.ratings {
        super::ratings::write_rated::<D>(conn, c.room_id, rated).await?;
    }
    Ok(())
}

/// The error of a commit whose version or epoch check failed: another node owns the room now
/// (fenced), the room moved on (a conflict), or it does not exist (`RowNotFound`).
async fn conflict<D: Dialect>(conn: &mut D::Conn, c: &Commit) -> StoreError {
    let room = || Param::Uuid(c.room_id);
    if let Some(epoch) = c.epoch {
        let sql = "SELECT owner_epoch FROM rooms WHERE id = $1";
        match D::fetch_optional(conn, Statement::new(sql, [room()])).await {
            Ok(Some(row)) => {
                match D::int(&row, "owner_epoch").and_then(|v| required("owner_epoch", v)) {
                    Ok(found) if found != epoch => {
                        return StoreError::Fenced {
                            room_id: c.room_id,
                            epoch,
                            found,
                        };
                    }
                    Ok(_) => {}
                    Err(e) => return e,
                }
            }
            Ok(None) => return StoreError::Database(sqlx::Error::RowNotFound),
            Err(e) => return e,
        }
    }
    let sql = "SELECT version FROM rooms WHERE id = $1";
    let found = match D::fetch_optional(conn, Statement::new(sql, [room()])).await {
        Ok(Some(row)) => D::int(&row, "version").and_then(|v| required("version", v)),
        Ok(None) => return StoreError::Database(sqlx::Error::RowNotFound),
        Err(e) => return e,
    };
    match found {
        Ok(found) => StoreError::Conflict {
            room_id: c.room_id,
            expected: c.expected_version,
            found,
        },
        Err(e) => e,
    }
}

/// The statements of a commit's rows: a takeback's deletes, then the inserts of its events, seats,
/// move, game state and game record.
fn commit_rows(c: &Commit) -> Vec<Statement<'_>> {
    let room = Param::Uuid(c.room_id);
    let mut rows = Vec::new();
    if let Some(keep) = c.taken_back_to {
        for sql in [
            "DELETE FROM moves WHERE room_id = $1 AND ply > $2",
            "DELETE FROM game_extra WHERE room_id = $1 AND ply > $2",
        ] {
            rows.push(Statement::new(sql, [room, Param::Int(keep)]));
        }
    }
    for e in &c.events {
        let sql = "INSERT INTO room_events (room_id, v, kind, seat, cid, data, created_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7)";
        let params = [
            room,
            Param::Big(e.v),
            Param::Text(Some(&e.kind)),
            Param::Small(e.seat.map(i16::from)),
            Param::Text(e.cid.as_deref()),
            Param::Json(Some(&e.data)),
            Param::Time(Some(truncate_to_micros(e.created_at))),
        ];
        rows.push(Statement::new(sql, params));
    }
    for s in &c.seats {
        let sql = "INSERT INTO seats (room_id, seat, name, token_hash, bot_level, joined_at, \
                                      user_id) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7)";
        let params = [
            room,
            Param::Small(Some(s.seat.into())),
            Param::Text(s.name.as_deref()),
            Param::Bytes(&s.token_hash),
            Param::Small(s.bot.map(i16::from)),
            Param::Time(Some(truncate_to_micros(s.joined_at))),
            Param::NullableUuid(s.user_id),
        ];
        rows.push(Statement::new(sql, params));
    }
    if let Some(m) = &c.mv {
        let sql = "INSERT INTO moves (room_id, ply, v, seat, notation, display, position, \
                                      created_at, clock_ms) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
        let params = [
            room,
            Param::Int(m.ply),
            Param::Big(m.v),
            Param::Small(Some(m.seat.into())),
            Param::Text(Some(&m.notation)),
            Param::Text(Some(&m.display)),
            Param::Text(Some(&m.position)),
            Param::Time(Some(truncate_to_micros(m.created_at))),
            Param::NullableBig(m.clock_ms),
        ];
        rows.push(Statement::new(sql, params));
    }
    if let Some(x) = &c.extra {
        let sql = "INSERT INTO game_extra (room_id, ply, extra) VALUES ($1, $2, $3)";
        let params = [room, Param::Int(x.ply), Param::Object(x.extra.as_map())];
        rows.push(Statement::new(sql, params));
    }
    if let Some(g) = &c.game {
        rows.push(game_row(g));
    }
    rows
}

/// The insert of a finished game's record.
fn game_row(g: &GameRecord) -> Statement<'_> {
    let sql = "INSERT INTO games (room_id, game, players, winner, reason, start_position, \
                                  final_position, moves, display_moves, extra, started_at, \
                                  finished_at) \
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
    let params = vec![
        Param::Uuid(g.room_id),
        Param::Text(Some(g.game.as_str())),
        Param::Json(Some(&g.players)),
        Param::Small(g.winner.map(i16::from)),
        Param::Text(Some(&g.reason)),
        Param::Text(Some(&g.start_position)),
        Param::Text(Some(&g.final_position)),
        Param::StringList(&g.moves),
        Param::StringList(&g.display_moves),
        Param::Object(g.extra.as_map()),
        Param::Time(g.started_at.map(truncate_to_micros)),
        Param::Time(Some(truncate_to_micros(g.finished_at))),
    ];
    Statement::new(sql, params)
}

/// Reads a room with its seats and events (see [`Store::load_room`](super::Store::load_room));
/// the caller runs it in one snapshot.
pub(super) async fn load_room<D: Dialect>(
    conn: &mut D::Conn,
    r: RoomRef<'_>,
) -> Result<Option<StoredRoom>, StoreError> {
    let statement = match r {
        RoomRef::Id(id) => Statement::new(
            "SELECT id, invite_code, game, seats, visibility, status, version, start_position, \
                    options, created_at \
             FROM rooms WHERE id = $1",
            [Param::Uuid(id)],
        ),
        RoomRef::InviteCode(code) => Statement::new(
            "SELECT id, invite_code, game, seats, visibility, status, version, start_position, \
                    options, created_at \
             FROM rooms WHERE invite_code = $1",
            [Param::Text(Some(code))],
        ),
    };
    let Some(row) = D::fetch_optional(conn, statement).await? else {
        return Ok(None);
    };
    let room = room_from_row::<D>(&row)?;
    let sql = "SELECT seat, name, token_hash, bot_level, joined_at, user_id FROM seats \
               WHERE room_id = $1 ORDER BY seat";
    let seats = D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room.id)]))
        .await?
        .iter()
        .map(seat_from_row::<D>)
        .collect::<Result<Vec<_>, _>>()?;
    let sql = "SELECT v, kind, seat, cid, data, created_at FROM room_events \
               WHERE room_id = $1 ORDER BY v";
    let events = D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room.id)]))
        .await?
        .iter()
        .map(event_from_row::<D>)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(StoredRoom {
        room,
        seats,
        events,
    }))
}

/// See [`Store::unfinished_room_ids`](super::Store::unfinished_room_ids).
pub(super) async fn unfinished_room_ids<D: Dialect>(
    conn: &mut D::Conn,
) -> Result<Vec<Uuid>, StoreError> {
    let sql = "SELECT id FROM rooms WHERE status <> 'finished' ORDER BY created_at, id";
    D::fetch_all(conn, Statement::new(sql, []))
        .await?
        .iter()
        .map(|row| Cols::<D>(row).uuid("id"))
        .collect()
}

/// See [`Store::due_correspondence_rooms`](super::Store::due_correspondence_rooms); `limit` is
/// not negative.
pub(super) async fn due_correspondence_rooms<D: Dialect>(
    conn: &mut D::Conn,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Uuid>, StoreError> {
    let sql = "SELECT id FROM rooms WHERE status = 'playing' AND flag_at <= $1 \
               ORDER BY flag_at, id LIMIT $2";
    let params = [
        Param::Time(Some(truncate_to_micros(now))),
        Param::Big(limit),
    ];
    D::fetch_all(conn, Statement::new(sql, params))
        .await?
        .iter()
        .map(|row| Cols::<D>(row).uuid("id"))
        .collect()
}

/// See [`Store::held_seat`](super::Store::held_seat). The turn and the result are read off the
/// room's last events that set them, so the room need not be in memory (nor on this node).
pub(super) async fn held_seat<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
    token_hash: &[u8; 32],
) -> Result<Option<HeldSeat>, StoreError> {
    let sql = "SELECT r.id, r.invite_code, r.game, r.status, r.options, r.updated_at, r.flag_at, \
                      s.seat, \
                      (SELECT e.data FROM room_events e WHERE e.room_id = r.id \
                       AND e.kind IN ('game_started', 'moved', 'left', 'taken_back') \
                       ORDER BY e.v DESC LIMIT 1) AS turn, \
                      (SELECT e.data FROM room_events e WHERE e.room_id = r.id \
                       AND e.kind = 'game_over' ORDER BY e.v DESC LIMIT 1) AS over \
               FROM seats s JOIN rooms r ON r.id = s.room_id \
               WHERE s.room_id = $1 AND s.token_hash = $2";
    let params = [Param::Uuid(room_id), Param::Bytes(token_hash)];
    let Some(row) = D::fetch_optional(conn, Statement::new(sql, params)).await? else {
        return Ok(None);
    };
    let cols = Cols::<D>(&row);
    let status = codec::status("status", &cols.text("status")?)?;
    let over = D::json(&row, "over")?;
    let to_move = match (&over, D::json(&row, "turn")?) {
        (None, Some(turn)) => turn
            .get("to_move")
            .and_then(Value::as_u64)
            .and_then(|seat| Seat::try_from(seat).ok()),
        _ => None,
    };
    let sql = "SELECT seat, name FROM seats WHERE room_id = $1 ORDER BY seat";
    let names = D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(|seat| Ok((Cols::<D>(seat).seat("seat")?, D::text(seat, "name")?)))
        .collect::<Result<_, StoreError>>()?;
    let accounts = super::seat_accounts::accounts_of::<D>(conn, room_id).await?;
    Ok(Some(HeldSeat {
        room_id: cols.uuid("id")?,
        invite_code: cols.text("invite_code")?,
        game: codec::game("game", &cols.text("game")?)?,
        status,
        seat: cols.seat("seat")?,
        names,
        accounts,
        to_move,
        result: over.and_then(|o| o.get("result").cloned()),
        clock: cols.json("options")?.get("clock").cloned(),
        flag_at: D::time(&row, "flag_at")?,
        updated_at: cols.time("updated_at")?,
    }))
}

/// See [`Store::lobby`](super::Store::lobby); `limit` is not negative.
pub(super) async fn lobby<D: Dialect>(
    conn: &mut D::Conn,
    limit: i64,
) -> Result<Vec<LobbyRoom>, StoreError> {
    let sql = "SELECT r.id, r.invite_code, r.game, r.seats, r.created_at, r.options, \
                      (SELECT count(*) FROM seats s WHERE s.room_id = r.id) AS taken, \
                      (SELECT s.name FROM seats s WHERE s.room_id = r.id \
                       ORDER BY s.joined_at, s.seat LIMIT 1) AS creator_name \
               FROM rooms r \
               WHERE r.status = 'waiting' AND r.visibility = 'public' \
               ORDER BY r.created_at DESC, r.id DESC \
               LIMIT $1";
    D::fetch_all(conn, Statement::new(sql, [Param::Big(limit)]))
        .await?
        .iter()
        .map(|row| {
            let row = Cols::<D>(row);
            Ok(LobbyRoom {
                room_id: row.uuid("id")?,
                invite_code: row.text("invite_code")?,
                game: codec::game("game", &row.text("game")?)?,
                seats: row.seat("seats")?,
                taken: row.seat("taken")?,
                created_at: row.time("created_at")?,
                creator_name: D::text(row.0, "creator_name")?,
                clock: row.json("options")?.get("clock").cloned(),
            })
        })
        .collect()
}

/// See [`Store::game_record`](super::Store::game_record).
pub(super) async fn game_record<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Option<GameRecord>, StoreError> {
    let sql = "SELECT room_id, game, players, winner, reason, start_position, final_position, \
                      moves, display_moves, extra, started_at, finished_at \
               FROM games WHERE room_id = $1";
    let Some(row) = D::fetch_optional(conn, Statement::new(sql, [Param::Uuid(room_id)])).await?
    else {
        return Ok(None);
    };
    let mut record = record_from_row::<D>(&row)?;
    super::seat_accounts::mark_record::<D>(conn, &mut record).await?;
    Ok(Some(record))
}

/// See [`Store::finished_public_games`](super::Store::finished_public_games).
pub(super) async fn finished_public_games<D: Dialect>(
    conn: &mut D::Conn,
    limit: i64,
) -> Result<Vec<GameRecord>, StoreError> {
    let sql = "SELECT g.room_id, g.game, g.players, g.winner, g.reason, g.start_position, \
                      g.final_position, g.moves, g.display_moves, g.extra, g.started_at, \
                      g.finished_at \
               FROM games g JOIN rooms r ON r.id = g.room_id \
               WHERE r.visibility = 'public' AND g.reason <> 'aborted' \
               ORDER BY g.finished_at DESC, g.room_id DESC \
               LIMIT $1";
    let rows = D::fetch_all(conn, Statement::new(sql, [Param::Big(limit)])).await?;
    let mut records = rows
        .iter()
        .map(record_from_row::<D>)
        .collect::<Result<Vec<_>, _>>()?;
    for record in &mut records {
        super::seat_accounts::mark_record::<D>(conn, record).await?;
    }
    Ok(records)
}

/// See [`Store::final_clock`](super::Store::final_clock).
pub(super) async fn final_clock<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Option<Value>, StoreError> {
    let sql = "SELECT r.options, e.data FROM rooms r \
               LEFT JOIN room_events e ON e.room_id = r.id AND e.kind = 'game_over' \
               WHERE r.id = $1";
    let Some(row) = D::fetch_optional(conn, Statement::new(sql, [Param::Uuid(room_id)])).await?
    else {
        return Ok(None);
    };
    let Some(Value::Object(mut clock)) = Cols::<D>(&row).json("options")?.get("clock").cloned()
    else {
        return Ok(None);
    };
    if let Some(Value::Object(last)) = D::json(&row, "data")?.and_then(|d| d.get("clock").cloned())
    {
        clock.extend(last);
    }
    Ok(Some(Value::Object(clock)))
}

pub(super) fn record_from_row<D: Dialect>(row: &D::Row) -> Result<GameRecord, StoreError> {
    let row = Cols::<D>(row);
    Ok(GameRecord {
        room_id: row.uuid("room_id")?,
        game: codec::game("game", &row.text("game")?)?,
        players: row.json("players")?,
        winner: row.optional_seat("winner")?,
        reason: row.text("reason")?,
        start_position: row.text("start_position")?,
        final_position: row.text("final_position")?,
        moves: codec::string_list("moves", row.json("moves")?)?,
        display_moves: codec::string_list("display_moves", row.json("display_moves")?)?,
        extra: row.extra("extra")?,
        started_at: D::time(row.0, "started_at")?,
        finished_at: row.time("finished_at")?,
    })
}

/// See [`Store::moves`](super::Store::moves).
pub(super) async fn moves<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Vec<MoveRow>, StoreError> {
    let sql = "SELECT ply, v, seat, notation, display, position, created_at, clock_ms \
               FROM moves WHERE room_id = $1 ORDER BY ply";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(|row| {
            let row = Cols::<D>(row);
            Ok(MoveRow {
                ply: row.int32("ply")?,
                v: row.int("v")?,
                seat: row.seat("seat")?,
                notation: row.text("notation")?,
                display: row.text("display")?,
                position: row.text("position")?,
                created_at: row.time("created_at")?,
                clock_ms: D::int(row.0, "clock_ms")?,
            })
        })
        .collect()
}

/// See [`Store::insert_chat`](super::Store::insert_chat).
pub(super) async fn insert_chat<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
    row: &ChatRow,
    epoch: Option<i64>,
) -> Result<bool, StoreError> {
    let mut params = vec![
        Param::Uuid(room_id),
        Param::Big(row.seq),
        Param::Text(Some(&row.channel)),
        Param::Small(row.seat.map(i16::from)),
        Param::Text(row.name.as_deref()),
        Param::Text(Some(&row.text)),
        Param::Time(Some(truncate_to_micros(row.created_at))),
    ];
    if let Some(answer) = &row.answer {
        params.extend([Param::Text(Some(&answer.cid)), Param::Big(answer.v)]);
    }
    if let Some(epoch) = epoch {
        params.push(Param::Big(epoch));
    }
    // A single node's statements name no epoch; a cluster node's store nothing once another
    // node has claimed the room (a fenced owner must not take a seq the new owner will use).
    // The epoch check locks the room row (`FOR SHARE`, PostgreSQL only, as only a cluster node
    // names an epoch): a claim, which updates that row, waits for this insert to commit, so the
    // new owner's load sees the message; or this insert waits for the claim and, reading the
    // row again, finds the new epoch and stores nothing. A plain `EXISTS` read the epoch from
    // the statement's snapshot and could commit a message after the new owner had loaded.
    // Only the cid's key is a conflict to skip; a taken seq is still an error.
    let sql = match (row.answer.is_some(), epoch.is_some()) {
        (false, false) => {
            "INSERT INTO chat_messages (room_id, seq, channel, seat, name, text, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)"
        }
        (true, false) => {
            "INSERT INTO chat_messages \
             (room_id, seq, channel, seat, name, text, created_at, cid, v) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (room_id, seat, cid) WHERE cid IS NOT NULL DO NOTHING"
        }
        (false, true) => {
            "INSERT INTO chat_messages (room_id, seq, channel, seat, name, text, created_at) \
             SELECT $1, $2, $3, $4, $5, $6, $7 \
             WHERE EXISTS (SELECT 1 FROM rooms WHERE id = $1 AND owner_epoch = $8 FOR SHARE)"
        }
        (true, true) => {
            "INSERT INTO chat_messages \
             (room_id, seq, channel, seat, name, text, created_at, cid, v) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 \
             WHERE EXISTS (SELECT 1 FROM rooms WHERE id = $1 AND owner_epoch = $10 FOR SHARE) \
             ON CONFLICT (room_id, seat, cid) WHERE cid IS NOT NULL DO NOTHING"
        }
    };
    if D::execute(conn, Statement::new(sql, params)).await? == 1 {
        return Ok(true);
    }
    if let Some(epoch) = epoch {
        let sql = "SELECT owner_epoch FROM rooms WHERE id = $1";
        if let Some(row) =
            D::fetch_optional(conn, Statement::new(sql, [Param::Uuid(room_id)])).await?
        {
            let found = D::int(&row, "owner_epoch").and_then(|v| required("owner_epoch", v))?;
            if found != epoch {
                return Err(StoreError::Fenced {
                    room_id,
                    epoch,
                    found,
                });
            }
        }
    }
    Ok(false)
}

/// See [`Store::chat`](super::Store::chat); `limit` is not negative.
pub(super) async fn chat<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
    channel: &str,
    limit: i64,
) -> Result<Vec<ChatRow>, StoreError> {
    let sql = "SELECT seq, channel, seat, name, text, created_at, cid, v FROM chat_messages \
               WHERE room_id = $1 AND channel = $2 ORDER BY seq DESC LIMIT $3";
    let params = [
        Param::Uuid(room_id),
        Param::Text(Some(channel)),
        Param::Big(limit),
    ];
    let mut rows = D::fetch_all(conn, Statement::new(sql, params))
        .await?
        .iter()
        .map(chat_from_row::<D>)
        .collect::<Result<Vec<_>, StoreError>>()?;
    rows.reverse();
    Ok(rows)
}

/// See [`Store::chat_by_cid`](super::Store::chat_by_cid).
pub(super) async fn chat_by_cid<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
    seat: Seat,
    cid: &str,
) -> Result<Option<ChatRow>, StoreError> {
    let sql = "SELECT seq, channel, seat, name, text, created_at, cid, v FROM chat_messages \
               WHERE room_id = $1 AND seat = $2 AND cid = $3";
    let params = [
        Param::Uuid(room_id),
        Param::Small(Some(i16::from(seat))),
        Param::Text(Some(cid)),
    ];
    D::fetch_optional(conn, Statement::new(sql, params))
        .await?
        .as_ref()
        .map(chat_from_row::<D>)
        .transpose()
}

/// See [`Store::chat_answers`](super::Store::chat_answers).
pub(super) async fn chat_answers<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Vec<(Seat, ChatAnswer)>, StoreError> {
    let sql = "SELECT seat, cid, v FROM chat_messages \
               WHERE room_id = $1 AND cid IS NOT NULL ORDER BY seq";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(|row| {
            let row = Cols::<D>(row);
            let answer = ChatAnswer {
                cid: row.text("cid")?,
                v: row.int("v")?,
            };
            Ok((row.seat("seat")?, answer))
        })
        .collect()
}

fn chat_from_row<D: Dialect>(row: &D::Row) -> Result<ChatRow, StoreError> {
    let row = Cols::<D>(row);
    let answer = match D::text(row.0, "cid")? {
        Some(cid) => Some(ChatAnswer {
            cid,
            v: row.int("v")?,
        }),
        None => None,
    };
    Ok(ChatRow {
        seq: row.int("seq")?,
        channel: row.text("channel")?,
        seat: row.optional_seat("seat")?,
        name: D::text(row.0, "name")?,
        text: row.text("text")?,
        created_at: row.time("created_at")?,
        answer,
    })
}

/// See [`Store::last_chat_seq`](super::Store::last_chat_seq).
pub(super) async fn last_chat_seq<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<i64, StoreError> {
    let sql = "SELECT max(seq) AS seq FROM chat_messages WHERE room_id = $1";
    let row = D::fetch_optional(conn, Statement::new(sql, [Param::Uuid(room_id)])).await?;
    Ok(match row {
        Some(row) => D::int(&row, "seq")?.unwrap_or(0),
        None => 0,
    })
}

/// See [`Store::extra_history`](super::Store::extra_history).
pub(super) async fn extra_history<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Vec<ExtraRow>, StoreError> {
    let sql = "SELECT ply, extra FROM game_extra WHERE room_id = $1 ORDER BY ply";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(|row| {
            let row = Cols::<D>(row);
            Ok(ExtraRow {
                ply: row.int32("ply")?,
                extra: row.extra("extra")?,
            })
        })
        .collect()
}

fn room_from_row<D: Dialect>(row: &D::Row) -> Result<RoomRow, StoreError> {
    let row = Cols::<D>(row);
    Ok(RoomRow {
        id: row.uuid("id")?,
        invite_code: row.text("invite_code")?,
        game: codec::game("game", &row.text("game")?)?,
        seats: row.seat("seats")?,
        visibility: codec::visibility("visibility", &row.text("visibility")?)?,
        status: codec::status("status", &row.text("status")?)?,
        version: row.int("version")?,
        start_position: row.text("start_position")?,
        options: row.json("options")?,
        created_at: row.time("created_at")?,
    })
}

fn seat_from_row<D: Dialect>(row: &D::Row) -> Result<SeatRow, StoreError> {
    let row = Cols::<D>(row);
    Ok(SeatRow {
        seat: row.seat("seat")?,
        name: D::text(row.0, "name")?,
        token_hash: codec::token_hash(
            "token_hash",
            required("token_hash", D::bytes(row.0, "token_hash")?)?,
        )?,
        bot: row.optional_seat("bot_level")?,
        user_id: D::uuid(row.0, "user_id")?,
        joined_at: row.time("joined_at")?,
    })
}

fn event_from_row<D: Dialect>(row: &D::Row) -> Result<EventRow, StoreError> {
    let row = Cols::<D>(row);
    Ok(EventRow {
        v: row.int("v")?,
        kind: row.text("kind")?,
        seat: row.optional_seat("seat")?,
        cid: D::text(row.0, "cid")?,
        data: row.json("data")?,
        created_at: row.time("created_at")?,
    })
}

/// A row's `NOT NULL` columns, read through `D` (nullable ones are read with `D`'s getters).
pub(super) struct Cols<'r, D: Dialect>(pub(super) &'r D::Row);

impl<D: Dialect> Cols<'_, D> {
    pub(super) fn int(&self, column: &'static str) -> Result<i64, StoreError> {
        required(column, D::int(self.0, column)?)
    }

    fn int32(&self, column: &'static str) -> Result<i32, StoreError> {
        let value = self.int(column)?;
        i32::try_from(value).map_err(|_| {
            StoreError::Corrupt(format!("column {column}: {value} does not fit 32 bits"))
        })
    }

    fn seat(&self, column: &'static str) -> Result<Seat, StoreError> {
        codec::small(column, self.int(column)?)
    }

    pub(super) fn optional_seat(&self, column: &'static str) -> Result<Option<Seat>, StoreError> {
        D::int(self.0, column)?
            .map(|value| codec::small(column, value))
            .transpose()
    }

    pub(super) fn text(&self, column: &'static str) -> Result<String, StoreError> {
        required(column, D::text(self.0, column)?)
    }

    pub(super) fn uuid(&self, column: &'static str) -> Result<Uuid, StoreError> {
        required(column, D::uuid(self.0, column)?)
    }

    pub(super) fn json(&self, column: &'static str) -> Result<Value, StoreError> {
        required(column, D::json(self.0, column)?)
    }

    fn extra(&self, column: &'static str) -> Result<Extra, StoreError> {
        Extra::from_value(self.json(column)?)
            .ok_or_else(|| StoreError::Corrupt(format!("column {column}: not a JSON object")))
    }

    pub(super) fn time(&self, column: &'static str) -> Result<DateTime<Utc>, StoreError> {
        required(column, D::time(self.0, column)?)
    }
}
