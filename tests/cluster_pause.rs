//! Liveness under a frozen node (issue 24): the node owning the most rooms is stopped (SIGSTOP)
//! for 15 s while six rooms play, with players and spectators on every node and through a real
//! nginx running the shipped `docs/deploy/nginx-cluster.conf`. Every client pings and, after 3 s
//! of silence, or a handshake not answered within 1.5 s, reconnects with `last_v` and asks nginx
//! for another node (`via`; `support::stream`), as the web client does. Each room must go on
//! (the longest it went without an acknowledged move after the stop is printed with
//! `--nocapture`, never asserted: `docs/deploy/cluster.md` records it), nothing acknowledged is
//! lost, every client's stream is the stored log, and the woken node serves nothing stale: it
//! fenced itself, a move sent to it while it was frozen is never acknowledged nor stored, and
//! the log has no fork. The nodes run the default lease (3 s, renewed every second), so the
//! target is the lease TTL + 2 s = 5 s.

mod support;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::json;
use support::cluster::{Cluster, Lease};
use support::table::{
    Table, busiest, events_with_cid, finish, follow_all, node, proxy, run_until_acks_after,
    stop_following,
};
use support::ws::{Client, End};
use tokio::sync::watch;

/// The default lease of `khanate serve`.
const DEFAULT_LEASE: Lease = Lease {
    ttl_ms: 3000,
    renew_ms: 1000,
};

/// How long the busiest owner stays stopped.
const FROZEN: Duration = Duration::from_secs(15);

#[tokio::test]
async fn the_busiest_owner_frozen_15_s_under_load_stops_no_room_and_serves_nothing_stale() {
    let cluster = Cluster::start(3, DEFAULT_LEASE).await;
    let games = ["ouk-chatrang", "khan", "ouk-chatrang"];
    let mut tables = Vec::new();
    let mut spectators = Vec::new();
    for r in 0..6 {
        // White through nginx; Black on a node of its own, then nginx.
        let seats = vec![
            vec![proxy(&cluster)],
            vec![node(&cluster, r % 3), proxy(&cluster)],
        ];
        let table = Table::open(cluster.nginx.addr, games[r % 3], &seats).await;
        for entrances in [
            vec![node(&cluster, (r + 1) % 3), proxy(&cluster)],
            vec![node(&cluster, (r + 2) % 3), proxy(&cluster)],
            vec![proxy(&cluster)],
        ] {
            spectators.push(table.spectator(&entrances).await);
        }
        tables.push(table);
    }
    let mut owners = Vec::new();
    for table in &tables {
        owners.push(cluster.owner(&table.id).await.expect("an owner"));
    }
    let busiest = busiest(&owners);
    let frozen_room = owners.iter().position(|o| *o == busiest).unwrap();
    // A second connection of White, straight on the busiest node: what it sends there while the
    // node is frozen, the node reads when it wakes.
    let (mut late, _) = Client::hello(
        cluster.nodes[busiest].addr,
        &tables[frozen_room].id,
        Some(&tables[frozen_room].tokens[0]),
        None,
    )
    .await;

    let (stop, _) = watch::channel(false);
    let following = follow_all(spectators, &stop);
    let woken_at: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let running = run_until_acks_after(tables, &woken_at, 5);
    tokio::time::sleep(Duration::from_secs(2)).await;

    cluster.nodes[busiest].signal("STOP");
    let stopped = Instant::now();
    // A resignation names no version: only the fence can keep it out.
    late.send(&json!({"t": "resign", "cid": "late", "d": {}}))
        .await;
    tokio::time::sleep(FROZEN).await;
    cluster.nodes[busiest].signal("CONT");
    woken_at.set(Instant::now()).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match late.next().await {
                Ok(frame) => assert_ne!(frame["t"], "ack", "the woken node acked {frame}"),
                Err(End::Closed(code)) => return code,
            }
        }
    })
    .await
    .expect("the woken node closes its clients");
    assert!(matches!(ended, Some(1012 | 1013)), "closed with {ended:?}");

    let mut tables = finish(running).await;
    let mut spectators = stop_following(&stop, following).await;
    for (r, table) in tables.iter_mut().enumerate() {
        let (longest, from) = table.longest_without_ack_after(stopped);
        println!(
            "room {r} ({}, owner node {}{}): stop -> next acked move {:?}; longest without an ack \
             after the stop {longest:?}, from {from:?} after it",
            table.id,
            owners[r],
            if owners[r] == busiest { ", frozen" } else { "" },
            table.next_ack_after(stopped),
        );
        let mut mine: Vec<_> = spectators.drain(..3).collect();
        table.check(&cluster.db.url, &mut mine).await;
        for (i, follower) in table.players.iter().chain(&mine).enumerate() {
            for reconnect in &follower.reconnects {
                println!(
                    "  room {r} client {i}: reconnected {:?} after the stop ({}, code {:?}) from {:?} through {:?}",
                    reconnect.at.saturating_duration_since(stopped),
                    if reconnect.silent { "silent" } else { "closed" },
                    reconnect.code,
                    reconnect.from,
                    reconnect.through
                );
            }
        }
    }
    assert_eq!(
        events_with_cid(&cluster.db.url, &tables[frozen_room].id, "late").await,
        Vec::<i64>::new()
    );
    let woken = &cluster.nodes[busiest];
    assert_eq!(woken.metric("khanate_self_fences_total").await, Some(1.0));
    println!(
        "woken node: {:?} commits refused by fencing",
        woken.metric("khanate_fencing_refusals_total").await
    );
}
