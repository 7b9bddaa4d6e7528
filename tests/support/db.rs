//! A fresh database per test, for both backends.
//!
//! - [`fresh_postgres_url`] creates a new, uniquely named database (`khanate_test_<uuid>`) on the
//!   PostgreSQL server named by the `DATABASE_URL` environment variable and returns its URL. Without a
//!   PostgreSQL `DATABASE_URL` it panics: PostgreSQL tests are never skipped silently. `scripts/test`
//!   sets `DATABASE_URL`, starting a throwaway cluster when none is given.
//! - [`fresh_sqlite_url`] names a new SQLite file under the system temp dir; the returned guard
//!   deletes it (and its `-wal` / `-shm` companions) when dropped.

use std::path::{Path, PathBuf};

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
            redact(&url)
        ),
        Err(_) => panic!("DATABASE_URL is not set; PostgreSQL tests need it: {HOW_TO_RUN}"),
    }
}

/// Creates a new empty database `khanate_test_<uuid simple>` on the `DATABASE_URL` server and
/// returns its URL (the server URL with the database name replaced). Migrations are not applied
/// (`Store::connect` does that).
///
/// Panics when `DATABASE_URL` is unusable (see [`postgres_server_url`]) or the database cannot be
/// created.
pub async fn fresh_postgres_url() -> String {
    let server = postgres_server_url();
    let name = format!("khanate_test_{}", Uuid::new_v4().simple());
    let mut conn = PgConnection::connect(&server).await.unwrap_or_else(|e| {
        panic!(
            "cannot connect to DATABASE_URL={:?}: {e}; {HOW_TO_RUN}",
            redact(&server)
        )
    });
    sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("cannot create test database {name}: {e}"));
    let _ = conn.close().await;
    with_database(&server, &name)
}

/// Drops a database made by [`fresh_postgres_url`], disconnecting whoever still uses it. Best
/// effort: errors are ignored (a left-over `khanate_test_*` database is harmless). Does nothing for
/// a URL whose database is not a `khanate_test_` one.
pub async fn drop_postgres_database(url: &str) {
    let Some(name) = database_name(url).filter(|name| {
        name.starts_with("khanate_test_")
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    }) else {
        return;
    };
    let Ok(mut conn) = PgConnection::connect(&postgres_server_url()).await else {
        return;
    };
    let _ = sqlx::query(AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&mut conn)
    .await;
    let _ = conn.close().await;
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

/// The database name in a postgres URL's path.
pub fn database_name(url: &str) -> Option<&str> {
    let base = url.split('?').next()?;
    let authority_start = base.find("://")? + 3;
    let path_start = authority_start + base[authority_start..].find('/')?;
    Some(&base[path_start + 1..]).filter(|name| !name.is_empty())
}

/// `url` with any password replaced by `***`, for messages.
fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let authority_end = url[scheme_end..]
        .find(['/', '?'])
        .map_or(url.len(), |i| scheme_end + i);
    match url[scheme_end..authority_end].rfind('@') {
        Some(at) => {
            let userinfo = &url[scheme_end..scheme_end + at];
            match userinfo.split_once(':') {
                Some((user, _password)) => format!(
                    "{}{user}:***{}",
                    &url[..scheme_end],
                    &url[scheme_end + at..]
                ),
                None => url.to_owned(),
            }
        }
        None => url.to_owned(),
    }
}
