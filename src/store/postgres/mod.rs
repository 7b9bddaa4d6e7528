//! The PostgreSQL backend of [`Store`](super::Store): a `PgPool`, the [`Dialect`] of
//! `migrations/postgres`, and group commit (`group_commit`), which only this backend has.
//!
//! Types: `uuid` ids, `smallint` seats, `bigint` versions, `jsonb` for JSON (move lists included),
//! `bytea` token hashes, `timestamptz` times (microseconds). A commit's optimistic version check is
//! its first statement, an `UPDATE ... WHERE version = $expected`, which takes the room's row lock:
//! a concurrent writer of the same room waits, then finds the version moved and gets a conflict.

mod group_commit;
mod ownership;
mod pairing;

pub(super) use self::ownership::claim;
pub use self::ownership::{Claim, HandOff, OWNER_CHANNEL, Owner, Standing};
pub use self::pairing::{PAIRING_CHANNEL, PairedRoom, PairedRow, WaitingRow};

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{
    PgArguments, PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow, Postgres,
};
use sqlx::query::Query;
use sqlx::types::Json;
use sqlx::{Column, Connection, Row, TypeInfo};
use uuid::Uuid;

use self::group_commit::GroupCommit;
use super::codec::get;
use super::dialect::{Dialect, Param, Statement};
use super::{Commit, RoomRef, RoomRow, StoreError, StoredRoom, queries};

/// Connections the pool opens at most.
const MAX_CONNECTIONS: u32 = 10;
/// How long a query waits for a free connection before failing. It also paces reconnection:
/// while the database refuses connections (a restart), sqlx retries with a backoff that doubles
/// up to a fifth of this, so at 10 s a query waiting through a 2.4 s restart ran up to 2 s after
/// the database was back (issue 24: a room acknowledged its next move seconds after the others).
/// At 2.5 s a waiting query runs within half a second of it.
const ACQUIRE_TIMEOUT: Duration = Duration::from_millis(2500);

/// Why nothing at `options` could be connected to: one direct attempt, whose error the pool's
/// timeout hides, given up after [`ACQUIRE_TIMEOUT`] (a server that takes the connection and
/// never answers would otherwise hold it for ever: sqlx's own connect has no deadline). A server
/// that answers with an error (still starting up, too many connections) is [`refused`].
async fn unreachable(options: &PgConnectOptions) -> StoreError {
    let attempt = tokio::time::timeout(ACQUIRE_TIMEOUT, PgConnection::connect_with(options));
    let cause = match attempt.await {
        Ok(Ok(_)) => "no connection within the pool's acquire timeout".to_owned(),
        Ok(Err(e @ sqlx::Error::Database(_))) => return refused(options, e),
        Ok(Err(e)) => e.to_string(),
        Err(_) => format!("no answer within {} ms", ACQUIRE_TIMEOUT.as_millis()),
    };
    StoreError::Unreachable {
        at: address(options),
        cause,
    }
}

/// The refusal `e` of a connection to `options` at connect, in the server's own words: sqlx's
/// text of a database error ends with " at line N", a line of PostgreSQL's own source, which
/// reads as a line of the operator's configuration.
fn refused(options: &PgConnectOptions, e: sqlx::Error) -> StoreError {
    let cause = match &e {
        sqlx::Error::Database(db) => db.message().to_owned(),
        _ => e.to_string(),
    };
    StoreError::Refused {
        at: address(options),
        cause,
    }
}

/// `host:port` of `options` (a socket directory for a Unix socket).
fn address(options: &PgConnectOptions) -> String {
    format!("{}:{}", options.get_host(), options.get_port())
}

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
        let pool = match PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options.clone())
            .await
        {
            Ok(pool) => pool,
            Err(sqlx::Error::PoolTimedOut) => return Err(unreachable(&options).await),
            Err(e) => return Err(refused(&options, e)),
        };
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let group = GroupCommit::start(pool.clone());
        Ok(PgStore { pool, group })
    }

    /// A connection from the pool, for one of the shared queries.
    pub(super) async fn conn(&self) -> Result<PoolConnection<Postgres>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    /// A read-committed write transaction.
    pub(super) async fn write_tx(
        &self,
    ) -> Result<sqlx::Transaction<'static, Postgres>, StoreError> {
        Ok(self.pool.begin().await?)
    }

    /// See [`Store::close`](super::Store::close).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// `NOTIFY channel, payload` (a payload under 8000 bytes), delivered to every listener of
    /// `channel` (on any node) at once.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(channel)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether the pool was closed (the server is shutting down): nothing more can be read or
    /// written through it, and a listener waiting to reconnect has nothing left to do.
    pub fn is_closed(&self) -> bool {
        self.pool.is_closed()
    }

    /// A listener of `channels` on its own connection of this store's pool settings.
    pub async fn listener(
        &self,
        channels: &[&str],
    ) -> Result<sqlx::postgres::PgListener, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen_all(channels.iter().copied()).await?;
        Ok(listener)
    }

    /// See [`Store::create_room`](super::Store::create_room).
    pub async fn create_room(&self, room: &RoomRow, commit: &Commit) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        queries::insert_room::<Pg>(&mut tx, room, commit.expected_version).await?;
        queries::apply::<Pg>(&mut tx, commit).await?;
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
        let stored = queries::load_room::<Pg>(&mut tx, r).await?;
        tx.commit().await?;
        Ok(stored)
    }
}

/// Writes `c` in a transaction of its own (the path of a commit that is not batched).
async fn commit_alone(pool: &PgPool, c: &Commit) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    queries::apply::<Pg>(&mut tx, c).await?;
    tx.commit().await?;
    Ok(())
}

/// The PostgreSQL [`Dialect`]: values bound with their native types.
pub(super) struct Pg;

/// `s` as a sqlx query, its values bound as `migrations/postgres` types them.
fn query(s: Statement<'_>) -> Query<'static, Postgres, PgArguments> {
    s.params
        .into_iter()
        .fold(sqlx::query(s.sql), |q, param| match param {
            Param::Small(v) => q.bind(v),
            Param::Int(v) => q.bind(v),
            Param::Big(v) => q.bind(v),
            Param::NullableBig(v) => q.bind(v),
            Param::Text(v) => q.bind(v),
            Param::Bytes(v) => q.bind(v),
            Param::Uuid(v) => q.bind(v),
            Param::NullableUuid(v) => q.bind(v),
            Param::Json(v) => q.bind(v),
            Param::Object(v) => q.bind(Json(v)),
            Param::StringList(v) => q.bind(Json(v)),
            Param::Time(v) => q.bind(v),
            Param::Bool(v) => q.bind(v),
            Param::Float(v) => q.bind(v),
        })
}

impl Dialect for Pg {
    type Conn = PgConnection;
    type Row = PgRow;

    fn execute<'c>(
        conn: &'c mut PgConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.execute(conn).await?.rows_affected()) }
    }

    fn fetch_all<'c>(
        conn: &'c mut PgConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Vec<PgRow>, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.fetch_all(conn).await?) }
    }

    fn fetch_optional<'c>(
        conn: &'c mut PgConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Option<PgRow>, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.fetch_optional(conn).await?) }
    }

    fn int(row: &PgRow, column: &'static str) -> Result<Option<i64>, StoreError> {
        // PostgreSQL decodes an integer only at its own width.
        let width = row
            .try_column(column)
            .map(|c| c.type_info().name().to_owned())
            .map_err(|e| StoreError::Corrupt(format!("column {column}: {e}")))?;
        match width.as_str() {
            "INT2" => Ok(get::<_, Option<i16>>(row, column)?.map(i64::from)),
            "INT4" => Ok(get::<_, Option<i32>>(row, column)?.map(i64::from)),
            _ => get(row, column),
        }
    }

    fn text(row: &PgRow, column: &'static str) -> Result<Option<String>, StoreError> {
        get(row, column)
    }

    fn bytes(row: &PgRow, column: &'static str) -> Result<Option<Vec<u8>>, StoreError> {
        get(row, column)
    }

    fn uuid(row: &PgRow, column: &'static str) -> Result<Option<Uuid>, StoreError> {
        get(row, column)
    }

    fn json(row: &PgRow, column: &'static str) -> Result<Option<Value>, StoreError> {
        get(row, column)
    }

    fn time(row: &PgRow, column: &'static str) -> Result<Option<DateTime<Utc>>, StoreError> {
        get(row, column)
    }

    fn float(row: &PgRow, column: &'static str) -> Result<Option<f64>, StoreError> {
        get(row, column)
    }
}
