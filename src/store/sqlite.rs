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

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::pool::PoolConnection;
use sqlx::query::Query;
use sqlx::sqlite::{
    Sqlite, SqliteArguments, SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool,
    SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::types::Json;
use uuid::Uuid;

use super::codec::{self, get};
use super::dialect::{Dialect, Param, Statement};
use super::{Commit, RoomRef, RoomRow, StoreError, StoredRoom, queries};

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

    /// A connection from the pool, for one of the shared queries.
    pub(super) async fn conn(&self) -> Result<PoolConnection<Sqlite>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    /// A write transaction (`BEGIN IMMEDIATE`: the write lock taken up front).
    pub(super) async fn write_tx(&self) -> Result<sqlx::Transaction<'static, Sqlite>, StoreError> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// See [`Store::close`](super::Store::close).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// See [`Store::create_room`](super::Store::create_room).
    pub async fn create_room(&self, room: &RoomRow, commit: &Commit) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        queries::insert_room::<Lite>(&mut tx, room, commit.expected_version).await?;
        queries::apply::<Lite>(&mut tx, commit).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`Store::commit`](super::Store::commit).
    pub async fn commit(&self, c: &Commit) -> Result<(), StoreError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        queries::apply::<Lite>(&mut tx, c).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`Store::load_room`](super::Store::load_room).
    pub async fn load_room(&self, r: RoomRef<'_>) -> Result<Option<StoredRoom>, StoreError> {
        // A read transaction: the three reads see one snapshot.
        let mut tx = self.pool.begin().await?;
        let stored = queries::load_room::<Lite>(&mut tx, r).await?;
        tx.commit().await?;
        Ok(stored)
    }
}

/// The file a `sqlite:` `url` names, when it names a file that does not exist (`None` for an
/// in-memory database, a URL that names no file (`sqlite:`, SQLite's private temporary
/// database), a file that exists, or a URL sqlx cannot read).
pub fn absent_file(url: &str) -> Option<std::path::PathBuf> {
    if is_memory_url(url) {
        return None;
    }
    let options = SqliteConnectOptions::from_str(url).ok()?;
    let file = options.get_filename();
    (!file.as_os_str().is_empty() && !file.exists()).then(|| file.to_path_buf())
}

/// Whether `url` names an in-memory database (`sqlite::memory:` or `?mode=memory`).
fn is_memory_url(url: &str) -> bool {
    let rest = url.strip_prefix("sqlite:").unwrap_or(url);
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (database, params) = rest.split_once('?').unwrap_or((rest, ""));
    database == ":memory:" || params.split('&').any(|param| param == "mode=memory")
}

/// The SQLite [`Dialect`]: uuids, JSON and timestamps as text (see `codec`), integers as
/// `INTEGER`.
pub(super) struct Lite;

/// `s` as a sqlx query, its values bound as `migrations/sqlite` types them.
fn query(s: Statement<'_>) -> Query<'static, Sqlite, SqliteArguments> {
    s.params
        .into_iter()
        .fold(sqlx::query(s.sql), |q, param| match param {
            Param::Small(v) => q.bind(v.map(i64::from)),
            Param::Int(v) => q.bind(i64::from(v)),
            Param::Big(v) => q.bind(v),
            Param::NullableBig(v) => q.bind(v),
            Param::Text(v) => q.bind(v),
            Param::Bytes(v) => q.bind(v),
            Param::Uuid(v) => q.bind(codec::uuid_text(v)),
            Param::NullableUuid(v) => q.bind(v.map(codec::uuid_text)),
            Param::Json(v) => q.bind(v.map(codec::json_text)),
            Param::Object(v) => q.bind(Json(v)),
            Param::StringList(v) => q.bind(codec::json_text(&codec::list_json(v))),
            Param::Time(v) => q.bind(v.map(codec::time_text)),
            Param::Bool(v) => q.bind(i64::from(v)),
            Param::Float(v) => q.bind(v),
        })
}

impl Dialect for Lite {
    type Conn = SqliteConnection;
    type Row = SqliteRow;

    fn execute<'c>(
        conn: &'c mut SqliteConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.execute(conn).await?.rows_affected()) }
    }

    fn fetch_all<'c>(
        conn: &'c mut SqliteConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Vec<SqliteRow>, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.fetch_all(conn).await?) }
    }

    fn fetch_optional<'c>(
        conn: &'c mut SqliteConnection,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Option<SqliteRow>, StoreError>> + Send + 'c {
        let q = query(s);
        async move { Ok(q.fetch_optional(conn).await?) }
    }

    fn int(row: &SqliteRow, column: &'static str) -> Result<Option<i64>, StoreError> {
        get(row, column)
    }

    fn text(row: &SqliteRow, column: &'static str) -> Result<Option<String>, StoreError> {
        get(row, column)
    }

    fn bytes(row: &SqliteRow, column: &'static str) -> Result<Option<Vec<u8>>, StoreError> {
        get(row, column)
    }

    fn uuid(row: &SqliteRow, column: &'static str) -> Result<Option<Uuid>, StoreError> {
        get::<_, Option<&str>>(row, column)?
            .map(|text| codec::uuid_from_text(column, text))
            .transpose()
    }

    fn json(row: &SqliteRow, column: &'static str) -> Result<Option<Value>, StoreError> {
        get::<_, Option<&str>>(row, column)?
            .map(|text| codec::json_from_text(column, text))
            .transpose()
    }

    fn time(row: &SqliteRow, column: &'static str) -> Result<Option<DateTime<Utc>>, StoreError> {
        get::<_, Option<&str>>(row, column)?
            .map(|text| codec::time_from_text(column, text))
            .transpose()
    }

    fn float(row: &SqliteRow, column: &'static str) -> Result<Option<f64>, StoreError> {
        get(row, column)
    }
}

#[cfg(test)]
mod tests {
    use super::{absent_file, is_memory_url};

    #[test]
    fn memory_urls_are_recognised() {
        assert!(is_memory_url("sqlite::memory:"));
        assert!(is_memory_url("sqlite://:memory:"));
        assert!(is_memory_url("sqlite://shared?mode=memory&cache=shared"));
        assert!(!is_memory_url("sqlite:///tmp/khanate.db"));
        assert!(!is_memory_url("sqlite://khanate.db?mode=rwc"));
    }

    #[test]
    fn only_a_named_file_that_does_not_exist_is_absent() {
        let dir = std::env::temp_dir().join(format!("khanate-absent-{}", std::process::id()));
        let missing = dir.join("missing.db");
        assert_eq!(
            absent_file(&format!("sqlite://{}", missing.display())),
            Some(missing)
        );
        let here = std::env::current_exe().unwrap();
        assert_eq!(absent_file(&format!("sqlite://{}", here.display())), None);
        assert_eq!(absent_file("sqlite::memory:"), None);
        assert_eq!(absent_file("sqlite:"), None);
    }
}
