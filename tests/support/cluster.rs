//! Several Khanate nodes on one fresh PostgreSQL database, each a real `khanate serve` process on a
//! port chosen beforehand (its `--advertise-url` must name it), behind a real nginx running the
//! shipped `docs/deploy/nginx-cluster.conf`:
//!
//! ```text
//! client ──> nginx 127.0.0.2:<port> ──(proxy_bind 127.0.0.3)──> node i 127.0.0.1:<port i>
//! client ─────────────────────────────────────────────────────> node i (directly, where a test says)
//! ```
//!
//! Every node trusts only 127.0.0.3, the proxy, and shares one cluster secret.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use sqlx::{Connection, PgConnection};
use uuid::Uuid;

use super::db::PgDatabase;
use super::nginx::{Change, Nginx, PROXY_IP};
use super::server::{Process, free_port, get_text};

/// The file under test.
pub const SHIPPED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/docs/deploy/nginx-cluster.conf"
);

/// The secret every test node shares.
pub const SECRET: &str = "cluster-test-secret-of-32-bytes-or-more";

/// The nodes' lease: how long it lasts after a renewal, and how often it is renewed.
#[derive(Clone, Copy, Debug)]
pub struct Lease {
    pub ttl_ms: u64,
    pub renew_ms: u64,
}

/// Short leases, so that a takeover is quick: what the cluster tests use.
pub const SHORT_LEASE: Lease = Lease {
    ttl_ms: 1500,
    renew_ms: 300,
};

/// One node: its address, fixed for its whole life (restarts included), and its process while it
/// runs.
pub struct Node {
    pub addr: SocketAddr,
    database_url: String,
    lease: Lease,
    process: Option<Process>,
}

impl Node {
    /// Starts a node on `addr` over `database_url`.
    fn start(database_url: &str, addr: SocketAddr, lease: Lease) -> Node {
        let mut node = Node {
            addr,
            database_url: database_url.to_owned(),
            lease,
            process: None,
        };
        node.restart();
        node
    }

    /// Starts the node's process again (a fresh node id) on the same address.
    pub fn restart(&mut self) {
        assert!(self.process.is_none(), "node {} still runs", self.addr);
        let mut args = node_args(self.addr, &self.url(), self.lease);
        args.extend(["--trusted-proxies".to_owned(), PROXY_IP.to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.process = Some(Process::start_with(&self.database_url, &args, &[]));
    }

    /// Its advertised URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn process(&self) -> &Process {
        self.process
            .as_ref()
            .unwrap_or_else(|| panic!("node {} is not running", self.addr))
    }

    pub fn pid(&self) -> u32 {
        self.process().pid()
    }

    /// Sends `signal` (`"STOP"`, `"CONT"`, ...).
    pub fn signal(&self, signal: &str) {
        self.process().signal(signal);
    }

    /// SIGKILL, as a crash.
    pub fn kill(&mut self) {
        self.process.take().expect("a running node").kill();
    }

    /// SIGTERM and waits for the exit; whether it was clean.
    pub fn terminate(&mut self) -> bool {
        let process = self.process.take().expect("a running node");
        process.signal("TERM");
        process.wait()
    }

    /// `GET /metrics`: the value of the sample named exactly `name` (with its labels, if any).
    pub async fn metric(&self, name: &str) -> Option<f64> {
        let (status, text) = get_text(self.addr, "/metrics").await;
        assert_eq!(status, 200, "{text}");
        text.lines()
            .filter_map(|line| line.rsplit_once(' '))
            .find(|(sample, _)| *sample == name)
            .and_then(|(_, value)| value.parse().ok())
    }
}

/// The flags of a node listening on `bind`, advertising `advertise_url`, with the tests' secret
/// and `lease`.
pub fn node_args(bind: SocketAddr, advertise_url: &str, lease: Lease) -> Vec<String> {
    [
        "--bind",
        &bind.to_string(),
        "--advertise-url",
        advertise_url,
        "--cluster-secret",
        SECRET,
        "--lease-ttl-ms",
        &lease.ttl_ms.to_string(),
        "--lease-renew-ms",
        &lease.renew_ms.to_string(),
    ]
    .map(str::to_owned)
    .to_vec()
}

/// `khanate serve` with `args` and `env`, which must refuse to start (exit with an error before
/// it says it listens); returns its stderr.
pub fn refused(args: &[&str], env: &[(&str, &str)]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_khanate"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        .args(args)
        .env_remove("KHANATE_ADVERTISE_URL")
        .env_remove("KHANATE_CLUSTER_SECRET")
        .envs(env.iter().copied())
        .output()
        .expect("the khanate binary runs");
    assert!(!output.status.success(), "started: {output:?}");
    assert!(output.stdout.is_empty(), "it listened: {output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh database, `n` nodes on it and nginx in front of them.
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub nginx: Nginx,
    pub db: PgDatabase,
}

impl Cluster {
    /// Starts `n` nodes (at most 3: the shipped upstream lists three) with `lease`, then nginx.
    pub async fn start(n: usize, lease: Lease) -> Cluster {
        Cluster::start_on(&super::db::postgres_server_url(), n, lease).await
    }

    /// [`Cluster::start`] on a fresh database of the PostgreSQL server at `server`.
    pub async fn start_on(server: &str, n: usize, lease: Lease) -> Cluster {
        let db = super::db::fresh_postgres_on(server).await;
        // Applies the migrations once, before the nodes race to.
        khanate::store::Store::connect(&db.url)
            .await
            .expect("migrations apply");
        let nodes: Vec<Node> = (0..n)
            .map(|_| {
                let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
                Node::start(&db.url, addr, lease)
            })
            .collect();
        let upstreams: Vec<SocketAddr> = nodes.iter().map(|node| node.addr).collect();
        let nginx = Nginx::start(SHIPPED, |shipped, addr, redirect_addr| {
            derive_config(shipped, addr, redirect_addr, &upstreams)
        })
        .await;
        Cluster { nodes, nginx, db }
    }

    /// The index of the node that owns `room_id` now (by its advertised URL), if one does.
    pub async fn owner(&self, room_id: &str) -> Option<usize> {
        let mut conn = PgConnection::connect(&self.db.url).await.expect("connects");
        let url: Option<String> = sqlx::query_scalar(
            "SELECT n.advertise_url FROM rooms r JOIN nodes n ON n.id = r.owner_node \
             WHERE r.id = $1 AND n.lease_expires_at > now()",
        )
        .bind(Uuid::parse_str(room_id).expect("a room id"))
        .fetch_optional(&mut conn)
        .await
        .expect("reads the owner");
        let _ = conn.close().await;
        url.and_then(|url| self.nodes.iter().position(|node| node.url() == url))
    }

    /// Waits (at most `within`) until `room_id` is owned by a node other than `not`: its index.
    pub async fn new_owner(&self, room_id: &str, not: usize, within: Duration) -> usize {
        let deadline = Instant::now() + within;
        loop {
            match self.owner(room_id).await {
                Some(owner) if owner != not => return owner,
                _ => {}
            }
            assert!(
                Instant::now() < deadline,
                "room {room_id} not taken over within {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// `docs/deploy/nginx-cluster.conf` made runnable by a test, with exactly these changes:
///
/// - plain HTTP on `addr` and `redirect_addr` ([`super::nginx::plain_http`]);
/// - the upstream's `server 127.0.0.1:8081 ...;` lines: the first `nodes.len()` get the nodes'
///   addresses (the rest of each line as shipped), the others are dropped;
/// - each `proxy_pass http://khanate_nodes;` (`location /` and quick pairing's) followed by
///   `proxy_bind 127.0.0.3;`.
///
/// Every other line runs as shipped (see [`super::nginx::derive`]).
pub fn derive_config(
    shipped: &str,
    addr: SocketAddr,
    redirect_addr: SocketAddr,
    nodes: &[SocketAddr],
) -> String {
    let servers: Vec<&str> = shipped
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with("server 127.0.0.1:"))
        .collect();
    assert_eq!(
        servers.len(),
        3,
        "{SHIPPED}: the upstream lists three nodes"
    );
    assert!(nodes.len() <= servers.len(), "at most three nodes");
    let mut changes = super::nginx::plain_http(addr, redirect_addr);
    // `location /` and its nested `location = /api/pairing`.
    changes.push(Change {
        line: "proxy_pass http://khanate_nodes;".to_owned(),
        prefix: false,
        to: vec![
            "proxy_pass http://khanate_nodes;".to_owned(),
            format!("proxy_bind {PROXY_IP};"),
        ],
        at_least: 2,
        at_most: 2,
    });
    for (i, line) in servers.iter().enumerate() {
        let to = nodes.get(i).map(|node| {
            let (_, rest) = line
                .trim_start_matches("server ")
                .split_once(' ')
                .unwrap_or((line, ""));
            format!("server {node} {rest}")
        });
        changes.push(Change::once(line, &Vec::from_iter(to)));
    }
    super::nginx::derive(SHIPPED, shipped, &changes, "tests/support/cluster.rs")
}
