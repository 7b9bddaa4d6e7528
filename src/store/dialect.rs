//! What really differs between the backends, and nothing else: how a value is bound to a
//! statement, how a column is read back, and how a statement is run on a connection.
//!
//! The shared queries (`queries`) describe a statement as SQL text plus a list of [`Param`]s, and
//! read rows through the getters of [`Dialect`]; each backend implements [`Dialect`] once, with one
//! `match` over [`Param`] for binding and one small function per column kind for reading. The SQL
//! text is the same for both: both use `$1`-style placeholders (sqlx's SQLite driver accepts them)
//! and standard SQL.

use std::future::Future;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::StoreError;

/// One value bound to a statement, in the store's own types; each backend encodes it for its
/// column types (PostgreSQL: `uuid`, `jsonb`, `timestamptz`, `smallint`; SQLite: text and
/// `INTEGER`). `None` binds SQL `NULL`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Param<'a> {
    /// A `smallint` column (seats, seat numbers, bot levels): 0 ..= 255 in practice.
    Small(Option<i16>),
    /// An `int` column (plies, counts).
    Int(i32),
    /// A `bigint` column (versions, sequence numbers, limits).
    Big(i64),
    /// A nullable `bigint` column (a move's clock).
    NullableBig(Option<i64>),
    /// A text column.
    Text(Option<&'a str>),
    /// A byte-string column (token hashes).
    Bytes(&'a [u8]),
    /// An id column.
    Uuid(Uuid),
    /// A nullable id column (a seat's account).
    NullableUuid(Option<Uuid>),
    /// A JSON column.
    Json(Option<&'a Value>),
    /// A JSON column holding an object (a game's own state).
    Object(&'a Map<String, Value>),
    /// A JSON column holding an array of strings (a game's move lists).
    StringList(&'a [String]),
    /// A timestamp column; the backends keep whole microseconds.
    Time(Option<DateTime<Utc>>),
    /// A true/false column (PostgreSQL `boolean`; SQLite `INTEGER` 0 or 1).
    Bool(bool),
    /// A floating-point column (ratings: PostgreSQL `double precision`, SQLite `REAL`).
    Float(Option<f64>),
}

/// A statement ready to run: SQL text with `$1`-style placeholders and their values, in order.
#[derive(Debug)]
pub(super) struct Statement<'a> {
    /// The SQL text, the same for every backend.
    pub sql: &'static str,
    /// The value of `$1`, `$2`, ...
    pub params: Vec<Param<'a>>,
}

impl<'a> Statement<'a> {
    /// `sql` with the values of its placeholders.
    pub fn new(sql: &'static str, params: impl Into<Vec<Param<'a>>>) -> Self {
        Statement {
            sql,
            params: params.into(),
        }
    }
}

/// A backend, as the shared queries see it: a connection to run [`Statement`]s on and rows to read
/// columns from.
///
/// The getters return `Ok(None)` for SQL `NULL` and [`StoreError::Corrupt`] naming the column for
/// a value of the wrong type; they never panic.
pub(super) trait Dialect {
    /// A connection (also what a transaction dereferences to).
    type Conn: Send;
    /// A row a query returns.
    type Row: Send + Sync;

    /// Runs `s`; returns how many rows it changed.
    fn execute<'c>(
        conn: &'c mut Self::Conn,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 'c;

    /// Runs `s`; returns every row.
    fn fetch_all<'c>(
        conn: &'c mut Self::Conn,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Vec<Self::Row>, StoreError>> + Send + 'c;

    /// Runs `s`; returns its first row, if any.
    fn fetch_optional<'c>(
        conn: &'c mut Self::Conn,
        s: Statement<'c>,
    ) -> impl Future<Output = Result<Option<Self::Row>, StoreError>> + Send + 'c;

    /// An integer column of any width.
    fn int(row: &Self::Row, column: &'static str) -> Result<Option<i64>, StoreError>;
    /// A text column.
    fn text(row: &Self::Row, column: &'static str) -> Result<Option<String>, StoreError>;
    /// A byte-string column.
    fn bytes(row: &Self::Row, column: &'static str) -> Result<Option<Vec<u8>>, StoreError>;
    /// An id column.
    fn uuid(row: &Self::Row, column: &'static str) -> Result<Option<Uuid>, StoreError>;
    /// A JSON column.
    fn json(row: &Self::Row, column: &'static str) -> Result<Option<Value>, StoreError>;
    /// A floating-point column.
    fn float(row: &Self::Row, column: &'static str) -> Result<Option<f64>, StoreError>;
    /// A timestamp column.
    fn time(row: &Self::Row, column: &'static str) -> Result<Option<DateTime<Utc>>, StoreError>;
}

/// A value that must be there: `NULL` in a `NOT NULL` column is a corrupt row.
pub(super) fn required<T>(column: &'static str, value: Option<T>) -> Result<T, StoreError> {
    value.ok_or_else(|| StoreError::Corrupt(format!("column {column}: unexpected NULL")))
}
