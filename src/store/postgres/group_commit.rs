//! Group commit for PostgreSQL: commits from many rooms written together, in one statement and
//! one durable transaction, so that the cost of a commit (the WAL flush, the round trips) is
//! shared instead of paid per move.
//!
//! Rooms hand their [`Commit`]s to a queue; a few writer tasks each take whatever is waiting (up
//! to [`MAX_BATCH`]) and write it. A commit that only moves a room on — its version and status,
//! events, a move, the game's own state: what almost every move is — goes into the batch statement:
//! one `UPDATE rooms ... FROM unnest(...)` whose version check is per room, and inserts of the
//! rows of exactly the rooms it updated. A room whose version check fails writes nothing there
//! and is retried alone, which gives it its own exact answer (a conflict, an unknown room). Every
//! other commit (a seat taken, a game record, a rematch's new room, a takeback), and every commit of a batch
//! whose statement failed, is written alone in its own transaction, as before batching. Each
//! commit's caller is answered only once its rows are durable, or with its own error.

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::postgres::PgPool;
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::store::codec;
use crate::store::{Commit, StoreError, now, truncate_to_micros};

/// Most commits one statement writes.
const MAX_BATCH: usize = 256;
/// Writer tasks: while one waits for its batch's flush, another gathers the next batch.
const WRITERS: usize = 2;

/// One commit waiting to be written, and where its result goes.
struct Job {
    commit: Commit,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The queue rooms put their commits on. Cheap to clone; the writers stop when every clone is
/// dropped.
#[derive(Clone, Debug)]
pub struct GroupCommit {
    queue: mpsc::UnboundedSender<Job>,
}

impl GroupCommit {
    /// Starts the writers over `pool` (on the current tokio runtime).
    pub fn start(pool: PgPool) -> GroupCommit {
        let (queue, jobs) = mpsc::unbounded_channel();
        let jobs = Arc::new(Mutex::new(jobs));
        for _ in 0..WRITERS {
            tokio::spawn(write_batches(pool.clone(), jobs.clone()));
        }
        GroupCommit { queue }
    }

    /// Writes `c` (see [`Store::commit`](crate::store::Store::commit) for what and its errors) and returns
    /// once it is durable or failed.
    pub async fn commit(&self, c: &Commit) -> Result<(), StoreError> {
        codec::check_commit(c)?;
        let (done, result) = oneshot::channel();
        let job = Job {
            commit: c.clone(),
            done,
        };
        self.queue.send(job).map_err(|_| closed())?;
        result.await.map_err(|_| closed())?
    }
}

fn closed() -> StoreError {
    StoreError::Database(sqlx::Error::PoolClosed)
}

/// A writer: takes every job waiting (at least one) and writes them, until the queue closes.
async fn write_batches(pool: PgPool, jobs: Arc<Mutex<mpsc::UnboundedReceiver<Job>>>) {
    loop {
        let mut batch = Vec::new();
        {
            let mut jobs = jobs.lock().await;
            if jobs.recv_many(&mut batch, MAX_BATCH).await == 0 {
                return;
            }
        }
        write(&pool, batch).await;
    }
}

/// Writes a batch: the commits that fit the batch statement together, then the others one by
/// one, in the order they came. Only a room's first commit in the batch can go in the statement,
/// so a room's commits are always written in their order (a room task waits for each of its
/// commits, so it never has two in one batch anyway).
async fn write(pool: &PgPool, batch: Vec<Job>) {
    let mut rooms = HashSet::new();
    let (together, alone): (Vec<Job>, Vec<Job>) = batch.into_iter().partition(|job| {
        let first_of_its_room = rooms.insert(job.commit.room_id);
        first_of_its_room && fits_batch(&job.commit)
    });
    let retry = if together.is_empty() {
        Vec::new()
    } else {
        match write_together(pool, &together).await {
            Ok(updated) => {
                let mut retry = Vec::new();
                for job in together {
                    if updated.contains(&job.commit.room_id) {
                        let _ = job.done.send(Ok(()));
                    } else {
                        retry.push(job);
                    }
                }
                retry
            }
            Err(e) => {
                tracing::debug!(error = %e, "batch statement failed: its commits are written alone");
                together
            }
        }
    };
    for job in retry.into_iter().chain(alone) {
        let result = super::commit_alone(pool, &job.commit).await;
        let _ = job.done.send(result);
    }
}

/// Whether `c` only moves its room on (see the module's documentation; a takeback deletes rows,
/// so it is written alone, and so is a correspondence deadline: the batch clears `flag_at`).
fn fits_batch(c: &Commit) -> bool {
    !c.events.is_empty()
        && c.seats.is_empty()
        && c.game.is_none()
        && c.ratings.is_none()
        && c.new_room.is_none()
        && c.taken_back_to.is_none()
        && c.flag_at.is_none()
}

/// The batch statement. `$1..$4`: the rooms (id, expected version, new version, status), `$5`
/// the update time; `$6..$12` the events, `$13..$20` the moves, `$21..$23` the game states,
/// each by column (`$25`: the moves' clocks); `$24` each room's owner epoch in cluster mode (NULL on a single node: not
/// checked). Rows are inserted only for the rooms whose version and epoch checks passed; a fenced
/// room is retried alone, which answers [`StoreError::Fenced`].
const BATCH_STATEMENT: &str = "\
WITH updated AS (
    UPDATE rooms SET version = c.version, status = c.status, updated_at = $5, flag_at = NULL
    FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $24::bigint[])
         AS c(room_id, expected, version, status, epoch)
    WHERE rooms.id = c.room_id AND rooms.version = c.expected
      AND (c.epoch IS NULL OR rooms.owner_epoch = c.epoch)
    RETURNING rooms.id
), events AS (
    INSERT INTO room_events (room_id, v, kind, seat, cid, data, created_at)
    SELECT * FROM unnest($6::uuid[], $7::bigint[], $8::text[], $9::smallint[], $10::text[],
                         $11::jsonb[], $12::timestamptz[])
           AS e(room_id, v, kind, seat, cid, data, created_at)
    WHERE e.room_id IN (SELECT id FROM updated)
), moves AS (
    INSERT INTO moves (room_id, ply, v, seat, notation, display, position, created_at, clock_ms)
    SELECT * FROM unnest($13::uuid[], $14::int[], $15::bigint[], $16::smallint[], $17::text[],
                         $18::text[], $19::text[], $20::timestamptz[], $25::bigint[])
           AS m(room_id, ply, v, seat, notation, display, position, created_at, clock_ms)
    WHERE m.room_id IN (SELECT id FROM updated)
), extra AS (
    INSERT INTO game_extra (room_id, ply, extra)
    SELECT * FROM unnest($21::uuid[], $22::int[], $23::jsonb[]) AS x(room_id, ply, extra)
    WHERE x.room_id IN (SELECT id FROM updated)
)
SELECT id FROM updated";

/// Runs the batch statement for `jobs` (at most one per room); returns the rooms it updated.
async fn write_together(pool: &PgPool, jobs: &[Job]) -> Result<HashSet<Uuid>, StoreError> {
    let columns = Columns::of(jobs.iter().map(|job| &job.commit));
    let updated: Vec<Uuid> = sqlx::query_scalar(BATCH_STATEMENT)
        .bind(&columns.room_ids)
        .bind(&columns.expected)
        .bind(&columns.versions)
        .bind(&columns.statuses)
        .bind(now())
        .bind(&columns.events.room_id)
        .bind(&columns.events.v)
        .bind(&columns.events.kind)
        .bind(&columns.events.seat)
        .bind(&columns.events.cid)
        .bind(&columns.events.data)
        .bind(&columns.events.created_at)
        .bind(&columns.moves.room_id)
        .bind(&columns.moves.ply)
        .bind(&columns.moves.v)
        .bind(&columns.moves.seat)
        .bind(&columns.moves.notation)
        .bind(&columns.moves.display)
        .bind(&columns.moves.position)
        .bind(&columns.moves.created_at)
        .bind(&columns.extra.room_id)
        .bind(&columns.extra.ply)
        .bind(&columns.extra.extra)
        .bind(&columns.epochs)
        .bind(&columns.moves.clock_ms)
        .fetch_all(pool)
        .await?;
    Ok(updated.into_iter().collect())
}

/// A batch's rows, column by column (PostgreSQL's `unnest` takes one array per column).
#[derive(Default)]
struct Columns {
    room_ids: Vec<Uuid>,
    expected: Vec<i64>,
    versions: Vec<i64>,
    statuses: Vec<&'static str>,
    epochs: Vec<Option<i64>>,
    events: EventColumns,
    moves: MoveColumns,
    extra: ExtraColumns,
}

#[derive(Default)]
struct EventColumns {
    room_id: Vec<Uuid>,
    v: Vec<i64>,
    kind: Vec<String>,
    seat: Vec<Option<i16>>,
    cid: Vec<Option<String>>,
    data: Vec<Value>,
    created_at: Vec<DateTime<Utc>>,
}

#[derive(Default)]
struct MoveColumns {
    room_id: Vec<Uuid>,
    ply: Vec<i32>,
    v: Vec<i64>,
    seat: Vec<i16>,
    notation: Vec<String>,
    display: Vec<String>,
    position: Vec<String>,
    created_at: Vec<DateTime<Utc>>,
    clock_ms: Vec<Option<i64>>,
}

#[derive(Default)]
struct ExtraColumns {
    room_id: Vec<Uuid>,
    ply: Vec<i32>,
    extra: Vec<Value>,
}

impl Columns {
    fn of<'c>(commits: impl Iterator<Item = &'c Commit>) -> Columns {
        let mut columns = Columns::default();
        for c in commits {
            let version = c.events.last().map_or(c.expected_version, |e| e.v);
            columns.room_ids.push(c.room_id);
            columns.expected.push(c.expected_version);
            columns.versions.push(version);
            columns.statuses.push(c.status.as_str());
            columns.epochs.push(c.epoch);
            let events = &mut columns.events;
            for e in &c.events {
                events.room_id.push(c.room_id);
                events.v.push(e.v);
                events.kind.push(e.kind.clone());
                events.seat.push(e.seat.map(i16::from));
                events.cid.push(e.cid.clone());
                events.data.push(e.data.clone());
                events.created_at.push(truncate_to_micros(e.created_at));
            }
            if let Some(m) = &c.mv {
                let moves = &mut columns.moves;
                moves.room_id.push(c.room_id);
                moves.ply.push(m.ply);
                moves.v.push(m.v);
                moves.seat.push(i16::from(m.seat));
                moves.notation.push(m.notation.clone());
                moves.display.push(m.display.clone());
                moves.position.push(m.position.clone());
                moves.created_at.push(truncate_to_micros(m.created_at));
                moves.clock_ms.push(m.clock_ms);
            }
            if let Some(x) = &c.extra {
                let extra = &mut columns.extra;
                extra.room_id.push(c.room_id);
                extra.ply.push(x.ply);
                extra.extra.push(x.extra.clone().into());
            }
        }
        columns
    }
}
