//! A PostgreSQL restart under a cluster (issue 24): three nodes behind a real nginx on a
//! PostgreSQL server of the test's own (`support::pg_server`: restarting the machine's shared one
//! would break every other test), six rooms playing with players and spectators on every node and
//! through nginx, and the server stopped (fast shutdown: every connection terminated) and started
//! again 2.4 s later. Every room goes on (its time from the stop to its next acknowledged move
//! is printed with `--nocapture`), nothing acknowledged is lost, every client's stream is the
//! stored log.

mod support;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use khanate::store::Store;
use support::cluster::{Cluster, Lease};
use support::pg_server::PgServer;
use support::table::{
    Table, finish, follow_all, node, proxy, run_until_acks_after, stop_following,
};
use tokio::sync::watch;

/// The default lease of `khanate serve`.
const DEFAULT_LEASE: Lease = Lease {
    ttl_ms: 3000,
    renew_ms: 1000,
};

/// How long the database is down.
const DOWN: Duration = Duration::from_millis(2400);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_room_goes_on_after_a_database_restart() {
    let pg = PgServer::start();
    let cluster = Cluster::start_on(&pg.url, 3, DEFAULT_LEASE).await;
    let games = ["ouk-chatrang", "khan", "ouk-chatrang"];
    let mut tables = Vec::new();
    let mut spectators = Vec::new();
    for r in 0..6 {
        let seats = vec![
            vec![proxy(&cluster)],
            vec![node(&cluster, r % 3), proxy(&cluster)],
        ];
        let table = Table::open(cluster.nginx.addr, games[r % 3], &seats).await;
        for entrances in [
            vec![node(&cluster, (r + 1) % 3), proxy(&cluster)],
            vec![proxy(&cluster)],
        ] {
            spectators.push(table.spectator(&entrances).await);
        }
        tables.push(table);
    }
    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);
    let back_at: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let running = run_until_acks_after(tables, &back_at, 5);
    tokio::time::sleep(Duration::from_secs(2)).await;

    tokio::task::block_in_place(|| pg.stop());
    let restarted = Instant::now();
    tokio::time::sleep(DOWN).await;
    tokio::task::block_in_place(|| pg.up());
    let back = Instant::now();
    back_at.set(back).unwrap();
    println!("database down for {:?}", back - restarted);

    let mut tables = finish(running).await;
    let mut spectators = stop_following(&stop, following).await;
    for (r, table) in tables.iter_mut().enumerate() {
        println!(
            "room {r} ({}): stop -> next acked move {:?} ({:?} after the database was back)",
            table.id,
            table.next_ack_after(restarted),
            table.next_ack_after(back)
        );
        let mut mine: Vec<_> = spectators.drain(..2).collect();
        table.check(&cluster.db.url, &mut mine).await;
        for (i, follower) in table.players.iter().chain(&mine).enumerate() {
            for reconnect in &follower.reconnects {
                println!(
                    "  room {r} client {i}: reconnected {:?} after the restart ({}, code {:?}) from {:?} through {:?}",
                    reconnect.at.saturating_duration_since(restarted),
                    if reconnect.silent { "silent" } else { "closed" },
                    reconnect.code,
                    reconnect.from,
                    reconnect.through
                );
            }
        }
    }
}

/// Issue 24's cause: a query that waited for a connection while the database was down ran up to
/// 2 s after the database was back: sqlx retries a refused connection with a backoff that doubles
/// up to a fifth of the pool's acquire timeout (then 10 s), so a room whose commit waited through
/// a restart acknowledged its next move up to 2 s after the others (and a lease renewal could
/// miss its lease). Eight queries start 100 ms apart while the database is down (so their
/// backoffs are out of step, as a busy node's are); each must run within a second of the
/// database being back. Failed before the fix (the latest ran 1.5 to 2 s after); the waits are
/// printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_waiting_through_a_database_restart_run_as_soon_as_it_is_back() {
    let pg = PgServer::start();
    let db = support::db::fresh_postgres_on(&pg.url).await;
    let store = Store::connect(&db.url).await.expect("connects");
    // Nothing idle in the pool survives the restart: each query must open a new connection.
    tokio::task::block_in_place(|| pg.stop());
    let stopped = Instant::now();
    let mut waiting = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        waiting.push(tokio::spawn(async move {
            let ran = store.unfinished_room_ids().await;
            (ran.map(|ids| ids.len()), Instant::now())
        }));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1200).saturating_sub(stopped.elapsed())).await;
    tokio::task::block_in_place(|| pg.up());
    let back = Instant::now();
    println!("database down for {:?}", back - stopped);
    let mut latest = Duration::ZERO;
    for query in waiting {
        let (ran, at) = query.await.unwrap();
        assert_eq!(ran.expect("the query ran once the database was back"), 0);
        latest = latest.max(at.saturating_duration_since(back));
    }
    println!("the last waiting query ran {latest:?} after the database was back");
    assert!(
        latest < Duration::from_secs(1),
        "ran {latest:?} after the database was back"
    );
}
