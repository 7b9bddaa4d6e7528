//! Prometheus metrics: every metric the server keeps, by name, in one place, and the exporter behind
//! `GET /metrics`.
//!
//! The `metrics` facade is process-wide by design (its recorder is global), so the exporter is
//! installed once per process and shared by every server the process starts (tests start several).

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// Histogram buckets for latencies, in seconds (0.5 ms to 2.5 s).
const LATENCY_BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the Prometheus recorder (once per process) and returns what renders it; `None` when
/// another recorder was installed first (the metrics then go there).
pub fn install() -> Option<PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets(&LATENCY_BUCKETS)
                .ok()?
                .install_recorder()
                .ok()
        })
        .clone()
}

/// A WebSocket opened (`+1`) or closed (`-1`): `khanate_connections_open`.
pub fn connection(delta: f64) {
    gauge!("khanate_connections_open").increment(delta);
}

/// A connection refused at accept: `khanate_connections_refused_total{why}`, `server_full`
/// (the server-wide cap) or `per_address` (the cap per client address).
pub fn connection_refused(why: &'static str) {
    counter!("khanate_connections_refused_total", "why" => why).increment(1);
}

/// A room look-up by id or invite code that named no room (`not_found`), or that was refused
/// because its address was over its look-up budget (`rate_limited`):
/// `khanate_failed_lookups_total{result}`.
pub fn failed_lookup(result: &'static str) {
    counter!("khanate_failed_lookups_total", "result" => result).increment(1);
}

/// A room task entered (`+1`) or left (`-1`) a status: `khanate_rooms_live{game, status}`.
pub fn room(game: &'static str, status: &'static str, delta: f64) {
    gauge!("khanate_rooms_live", "game" => game, "status" => status).increment(delta);
}

/// A command answered: `khanate_commands_total{type, result}` (`ack` or `reject`), and for a
/// reject `khanate_rejects_total{code}`.
pub fn command(kind: &'static str, reject: Option<&'static str>) {
    counter!("khanate_commands_total", "type" => kind, "result" => if reject.is_some() { "reject" } else { "ack" })
        .increment(1);
    if let Some(code) = reject {
        counter!("khanate_rejects_total", "code" => code).increment(1);
    }
}

/// A reject given outside a room (bad frames, rate limits): `khanate_rejects_total{code}`.
pub fn reject(code: &'static str) {
    counter!("khanate_rejects_total", "code" => code).increment(1);
}

/// A move's way through the room, from the frame's arrival: `khanate_move_seconds{stage}`,
/// `committed` then `broadcast`.
pub fn move_stage(stage: &'static str, since_received: Duration) {
    histogram!("khanate_move_seconds", "stage" => stage).record(since_received.as_secs_f64());
}

/// One database commit: `khanate_db_write_seconds`.
pub fn db_write(took: Duration) {
    histogram!("khanate_db_write_seconds").record(took.as_secs_f64());
}

/// A connection caught up: `khanate_resyncs_total{kind}`, `replay` (missed events) or `snapshot`.
pub fn resync(kind: &'static str) {
    counter!("khanate_resyncs_total", "kind" => kind).increment(1);
}

/// A room task left memory: `khanate_evictions_total{why}`: `idle`, `reload`, `fenced` (this node
/// self-fenced), `shutdown` (it is leaving the cluster) or `moved` (another node claimed the
/// finished room it served unclaimed).
pub fn eviction(why: &'static str) {
    counter!("khanate_evictions_total", "why" => why).increment(1);
}

/// A connection dropped because its outbound queue was full: `khanate_slow_drops_total`.
pub fn slow_drop() {
    counter!("khanate_slow_drops_total").increment(1);
}

/// A bot's search: `khanate_bot_search_seconds{level}` (the time on a search thread) and
/// `khanate_bot_wait_seconds` (the time queued for one).
pub fn bot_search(level: u8, waited: Duration, searched: Duration) {
    const LEVELS: [&str; 5] = ["1", "2", "3", "4", "5"];
    let level = LEVELS
        .get(usize::from(level.saturating_sub(1)))
        .copied()
        .unwrap_or("5");
    histogram!("khanate_bot_wait_seconds").record(waited.as_secs_f64());
    histogram!("khanate_bot_search_seconds", "level" => level).record(searched.as_secs_f64());
}

/// Cluster mode: every cluster metric at zero, so that each has a series to watch (an alert on
/// `increase(khanate_self_fences_total[5m])`, say) before its first event.
pub fn cluster_joined() {
    gauge!("khanate_rooms_owned").increment(0.0);
    gauge!("khanate_relayed_sockets").increment(0.0);
    gauge!("khanate_peer_sockets").increment(0.0);
    for name in [
        "khanate_takeovers_total",
        "khanate_fencing_refusals_total",
        "khanate_self_fences_total",
        "khanate_relayed_connections_total",
        "khanate_listener_gaps_total",
        "khanate_moves_repaired_total",
        "khanate_handoffs_total",
    ] {
        counter!(name).increment(0);
    }
    for via in ["websocket", "rest"] {
        counter!("khanate_forwarded_commands_total", "via" => via).increment(0);
    }
    for why in ["wrong_secret", "public_listener", "no_secret"] {
        counter!("khanate_peer_auth_failures_total", "why" => why).increment(0);
    }
}

/// A request's peer headers refused (`why`: `wrong_secret`, `public_listener`, `no_secret`,
/// `not_a_cluster`; see `api::check_peer`).
pub fn peer_auth_failure(why: &'static str) {
    counter!("khanate_peer_auth_failures_total", "why" => why).increment(1);
}

/// Rooms whose task runs on this node under a claim (cluster mode), finished ones still in
/// memory included.
pub fn room_owned(delta: f64) {
    gauge!("khanate_rooms_owned").increment(delta);
}

/// A room claimed from a node whose lease had expired.
pub fn takeover() {
    counter!("khanate_takeovers_total").increment(1);
}

/// A commit refused because another node claimed its room since (the room task stops).
pub fn fencing_refusal() {
    counter!("khanate_fencing_refusals_total").increment(1);
}

/// This node stopped serving its rooms because its lease was not renewed in time.
pub fn self_fence() {
    counter!("khanate_self_fences_total").increment(1);
}

/// A client's WebSocket relayed to the node that owns its room (cluster mode).
pub fn relayed_connection() {
    counter!("khanate_relayed_connections_total").increment(1);
}

/// A client frame (a command) forwarded over a relay, or a REST request forwarded, to the
/// room's owner (`via`: `websocket` or `rest`).
pub fn forwarded_command(via: &'static str) {
    counter!("khanate_forwarded_commands_total", "via" => via).increment(1);
}

/// The time from a claim on the database to its notification reaching this node.
pub fn owner_notification_lag(lag: Duration) {
    histogram!("khanate_owner_notification_lag_seconds").record(lag.as_secs_f64());
}

/// The owner listener lost its connection: notifications may have been missed, so every relay
/// of this node is checked against the rooms table.
pub fn listener_gap() {
    counter!("khanate_listener_gaps_total").increment(1);
}

/// A relay found, by reading the rooms table rather than a notification, that its room moved.
pub fn move_repaired() {
    counter!("khanate_moves_repaired_total").increment(1);
}

/// A client socket this node relays to the room's owner on another node, counted in
/// `khanate_relayed_sockets` (gauge) while it lives. The relayed share of a cluster's client
/// sockets is the sum of this over the nodes, over the sum of `khanate_connections_open` less
/// `khanate_peer_sockets`.
pub struct Relaying(());

impl Relaying {
    /// Counts one more relayed socket, until dropped.
    pub fn start() -> Relaying {
        gauge!("khanate_relayed_sockets").increment(1.0);
        Relaying(())
    }
}

impl Drop for Relaying {
    fn drop(&mut self) {
        gauge!("khanate_relayed_sockets").decrement(1.0);
    }
}

/// Another node's relayed socket opened (`+1`) or closed (`-1`) here:
/// `khanate_peer_sockets` (also counted in `khanate_connections_open`).
pub fn peer_socket(delta: f64) {
    gauge!("khanate_peer_sockets").increment(delta);
}

/// A room handed off to the node its clients come through: `khanate_handoffs_total`.
pub fn handoff() {
    counter!("khanate_handoffs_total").increment(1);
}
