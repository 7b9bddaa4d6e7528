//! Readings from the PostgreSQL database the server writes to: rows written during a run, and
//! how long one durable commit takes on this machine (part of the light-load latency budget).

use std::time::{Duration, Instant};

use serde::Serialize;
use sqlx::{Connection, PgConnection};

/// Row counts at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rows {
    /// `tup_inserted` of `pg_stat_database` for this database: rows inserted into any table.
    inserted: i64,
    moves: i64,
    events: i64,
}

/// Rows written between two readings.
#[derive(Clone, Debug, Serialize)]
pub struct RowsWritten {
    /// Rows of every table, from PostgreSQL's statistics (which lag by up to a second).
    pub all_tables: i64,
    /// Rows added to `moves` and `room_events`, counted exactly.
    pub moves: i64,
    pub room_events: i64,
}

pub struct Database {
    conn: PgConnection,
}

impl Database {
    pub async fn connect(url: &str) -> anyhow::Result<Database> {
        Ok(Database {
            conn: PgConnection::connect(url).await?,
        })
    }

    pub async fn rows(&mut self) -> anyhow::Result<Rows> {
        let inserted: i64 = sqlx::query_scalar(
            "SELECT tup_inserted FROM pg_stat_database WHERE datname = current_database()",
        )
        .fetch_one(&mut self.conn)
        .await?;
        // One statement, so both counts are of the same moment.
        let (moves, events): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM moves), (SELECT count(*) FROM room_events)",
        )
        .fetch_one(&mut self.conn)
        .await?;
        Ok(Rows {
            inserted,
            moves,
            events,
        })
    }

    /// The median time of `n` transactions that each insert one row into a table of their own
    /// and commit (durably, with the server's `synchronous_commit`), in milliseconds.
    pub async fn commit_ms(&mut self, n: usize) -> anyhow::Result<f64> {
        sqlx::query("CREATE TABLE IF NOT EXISTS khanate_load_probe (n bigint)")
            .execute(&mut self.conn)
            .await?;
        let mut times: Vec<Duration> = Vec::with_capacity(n);
        for i in 0..n {
            let start = Instant::now();
            let mut tx = self.conn.begin().await?;
            sqlx::query("INSERT INTO khanate_load_probe VALUES ($1)")
                .bind(i as i64)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            times.push(start.elapsed());
        }
        sqlx::query("DROP TABLE khanate_load_probe")
            .execute(&mut self.conn)
            .await?;
        times.sort_unstable();
        Ok(super::stats::round(times[n / 2].as_secs_f64() * 1000.0, 3))
    }
}

impl Rows {
    pub fn until(&self, end: &Rows) -> RowsWritten {
        RowsWritten {
            all_tables: end.inserted - self.inserted,
            moves: end.moves - self.moves,
            room_events: end.events - self.events,
        }
    }
}
