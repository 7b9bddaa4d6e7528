//! A fresh database per test, for both backends.
//!
//! - [`fresh_postgres`] creates a new, uniquely named database (`khanate_test_<uuid>`) on the
//!   PostgreSQL server named by the `DATABASE_URL` environment variable; the returned guard drops it
//!   when the test ends (passed or failed), so tests leave nothing behind on a shared server. Without
//!   a PostgreSQL `DATABASE_URL` it panics: PostgreSQL tests are never skipped silently.
//!   `scripts/test` sets `DATABASE_URL`, starting a throwaway cluster when none is given.
//! - [`fresh_sqlite_url`] names a new SQLite file under the system temp dir; the returned guard
//!   deletes it (and its `-wal` / `-shm` companions) when dropped.

use std::path::{Path, PathBuf};

use khanate::config::mask_url;
use sqlx::{AssertSqlSafe, Connection, PgConnection};
use uuid::Uuid;

/// How to get a PostgreSQL server for the tests, for panic messages.
const HOW_TO_RUN: &str = "run the tests with `scripts/test` (it starts a throwaway PostgreSQL cluster \
     when DATABASE_URL is unset), or set DATABASE_URL=postgres://USER@HOST:PORT/DB to a server where \
     USER may CREATE DATABASE";

/// The `DATABASE_URL` of the PostgreSQL server the tests create their databases on.
///
/// Panics, saying how to run the tests, when it is unset or not a `postgres://` URL.
pub fn postgres_server_url() -> String {
    match std::env::var("DATABASE_URL") {
        Ok(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => url,
        Ok(url) => panic!(
            "DATABASE_URL={:?} is not a postgres:// URL; PostgreSQL tests need one: {HOW_TO_RUN}",
            mask_url(&url)
        ),
        Err(_) => panic!("DATABASE_URL is not set; PostgreSQL tests need it: {HOW_TO_RUN}"),
    }
}

/// A test database on the PostgreSQL server, dropped (disconnecting whoever still uses it) when
/// the guard is dropped.
#[derive(Debug)]
pub struct PgDatabase {
    /// The database's URL: the `DATABASE_URL` server with the database name replaced.
    pub url: String,
    name: String,
    /// The server's URL, to drop the database from.
    server: String,
}

/// Creates a new empty database `khanate_test_<uuid simple>` on the `DATABASE_URL` server.
/// Migrations are not applied (`Store::connect` does that).
///
/// Panics when `DATABASE_URL` is unusable (see [`postgres_server_url`]) or the database cannot be
/// created.
pub async fn fresh_postgres() -> PgDatabase {
    fresh_postgres_on(&postgres_server_url()).await
}

/// [`fresh_postgres`] on the server at `server` (a `postgres://` URL).
pub async fn fresh_postgres_on(server: &str) -> PgDatabase {
    let server = server.to_owned();
    let name = format!("khanate_test_{}", Uuid::new_v4().simple());
    let mut conn = PgConnection::connect(&server).await.unwrap_or_else(|e| {
        panic!(
            "cannot connect to DATABASE_URL={:?}: {e}; {HOW_TO_RUN}",
            mask_url(&server)
        )
    });
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    let _ = conn.close().await;
    PgDatabase {
        url: with_database(&server, &name),
        name,
        server,
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        // Drop runs inside the test's runtime, which cannot be blocked on: use a runtime of its own
        // on a thread of its own. Best effort: a left-over database is harmless.
        let (name, server) = (self.name.clone(), self.server.clone());
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let mut conn = PgConnection::connect(&server).await.ok()?;
                let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                sqlx::query(AssertSqlSafe(sql))
                    .execute(&mut conn)
                    .await
                    .ok()?;
                conn.close().await.ok()
            })
        });
        let _ = dropped.join();
    }
}

/// A SQLite database file that is deleted, with its `-wal`, `-shm` and `-journal` files, on drop.
#[derive(Debug)]
pub struct SqliteFile {
    path: PathBuf,
}

impl SqliteFile {
    /// Where the database file is (it exists once a store has connected).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SqliteFile {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = self.path.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A `sqlite://` URL naming a new file `khanate_test_<uuid>.db` in the system temp dir (not yet
/// created: `Store::connect` creates it), and the guard that deletes it. Keep the guard alive as
/// long as the database is used.
pub fn fresh_sqlite_url() -> (SqliteFile, String) {
    let path = std::env::temp_dir().join(format!("khanate_test_{}.db", Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", path.display());
    (SqliteFile { path }, url)
}

/// `url` with its path (the database name) replaced by `/name`, keeping any `?query`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let authority_end = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{name}", &base[..authority_end]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}
