//! The server's configuration: one struct, read from flags with environment fallbacks.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use ipnet::IpNet;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Milliseconds between the server's heartbeat probes by default (see [`Config::heartbeat_ms`]).
pub const DEFAULT_HEARTBEAT_MS: u64 = 2_000;

/// Seconds a quick-pairing request is held by default (see [`Config::pairing_hold_s`]).
pub const DEFAULT_PAIRING_HOLD_S: u64 = 60;

/// Milliseconds of silence after which the server closes a connection by default (see
/// [`Config::silence_limit_ms`]): four heartbeats.
pub const DEFAULT_SILENCE_LIMIT_MS: u64 = 8_000;

/// [`Config::for_tests`]' silence limit: a minute.
pub const TESTS_SILENCE_LIMIT_MS: u64 = 60_000;

/// Everything `khanate serve` can be told.
#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Address and port to listen on (`127.0.0.1:0` picks a free port).
    #[arg(long, env = "KHANATE_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Where rooms and games are stored: `postgres://user@host/db` for PostgreSQL, or
    /// `sqlite://FILE` (created if missing) for the embedded store.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://khanate.db")]
    pub database_url: String,

    /// The address people reach this server at, used in the links it generates (invite URLs),
    /// with any path it is served under (e.g. `https://example.org/games`). Default: built from
    /// the request (`X-Forwarded-Proto` / `X-Forwarded-Host` from a trusted proxy, else `http://`
    /// and the `Host` header) and `--path-prefix`. Its origin is also the default allowed `Origin`
    /// of WebSocket upgrades.
    #[arg(long, env = "KHANATE_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Serve every route under this path (e.g. `/games`), for a proxy that passes the path through
    /// unchanged. Empty: at the root (a proxy that strips the prefix).
    #[arg(long, env = "KHANATE_PATH_PREFIX", default_value = "")]
    pub path_prefix: String,

    /// Reverse proxies whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` are
    /// believed: comma-separated addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8`). The client's
    /// address is then the rightmost `X-Forwarded-For` entry that is not one of them; from any other
    /// peer the headers are ignored.
    #[arg(long, env = "KHANATE_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_net)]
    pub trusted_proxies: Vec<IpNet>,

    /// Origins allowed to open WebSockets (comma-separated, e.g. `https://example.org`), against
    /// cross-site WebSocket hijacking. Default: the public URL's origin, or without one the
    /// request's own host. Upgrades without an `Origin` header (non-browser clients) are allowed.
    #[arg(long, env = "KHANATE_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Host names (`name` or `name:port`, comma-separated) this server may be reached by through
    /// a trusted proxy without `--public-url`: a proxy's `X-Forwarded-Host` (and `Host`) naming
    /// another name is not believed for links or the `Origin` check (DNS rebinding). Default:
    /// the hosts of `--public-url` and `--allowed-origins`; with neither, whatever a trusted
    /// proxy forwards (the shipped nginx files refuse unknown hosts themselves).
    #[arg(long, env = "KHANATE_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,

    /// Milliseconds between the heartbeat probes: WebSocket pings whose pongs measure each
    /// connection's round trip (docs/protocol.md "Heartbeat"; a move's lag compensation,
    /// "Clocks"). The first goes out 100 ms after the hello and the next five every 300 ms (a
    /// good estimate within the first two seconds). They also keep proxies with idle timeouts
    /// from closing a quiet WebSocket (keep it well under them: the shipped nginx configs'
    /// `proxy_read_timeout` is 8 s).
    #[arg(long, env = "KHANATE_HEARTBEAT_MS", default_value_t = DEFAULT_HEARTBEAT_MS)]
    pub heartbeat_ms: u64,

    /// Milliseconds without any frame from a client (its `ping`s, its pongs, anything) after which
    /// the server closes the connection (1001): its seat shows disconnected and its grace period
    /// starts.
    #[arg(long, env = "KHANATE_SILENCE_LIMIT_MS", default_value_t = DEFAULT_SILENCE_LIMIT_MS)]
    pub silence_limit_ms: u64,

    /// Limits against abuse.
    #[command(flatten)]
    pub limits: Limits,

    /// Several nodes on one PostgreSQL database (see `docs/deploy/cluster.md`).
    #[command(flatten)]
    pub cluster: ClusterConfig,

    /// The quick-pairing pools, comma-separated, each `GAME[:PLAYERS]@CLOCK` with the clock as
    /// `MIN+INC` (minutes, increment seconds) or `Nd` (days a move): e.g. `khan@3+2,
    /// khan-tsin:3@5+3,ouk-chatrang@1d`. Each has a casual and a rated side.
    #[arg(long, env = "KHANATE_PAIRING_POOLS", default_value = crate::pairing::DEFAULT_POOLS,
          value_parser = crate::pairing::Pools::parse)]
    pub pairing_pools: crate::pairing::Pools,

    /// Seconds a quick-pairing request is held waiting for opponents before it is answered 204.
    #[arg(long, env = "KHANATE_PAIRING_HOLD_S", default_value_t = DEFAULT_PAIRING_HOLD_S)]
    pub pairing_hold_s: u64,

    /// Log line format.
    #[arg(long, env = "KHANATE_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// The time source of rooms (game clocks, expiry, idling): the system's, or a manual one a
    /// test advances (not a command-line option).
    #[arg(skip)]
    pub clock: crate::clock::Clock,
}

/// The shortest cluster secret accepted, in bytes: 32 (256 bits from `openssl rand -hex 32`, or
/// a passphrase long enough not to be guessed through the wrong-secret log).
pub const MIN_SECRET_BYTES: usize = 32;

/// Several nodes on one PostgreSQL database. A node is in cluster mode when both
/// `advertise_url` and `secret` are set (PostgreSQL only); with neither it runs alone, exactly
/// as without these options; anything else is refused at start-up ([`ClusterConfig::mode`]).
#[derive(Clone, clap::Args)]
pub struct ClusterConfig {
    /// The address other nodes reach this node at (e.g. `http://10.0.0.5:8080`).
    #[arg(long, env = "KHANATE_ADVERTISE_URL")]
    pub advertise_url: Option<String>,

    /// The secret every node of the cluster shares, to authenticate calls between nodes: at
    /// least 32 bytes (e.g. `openssl rand -hex 32`). Never logged. The database
    /// keeps a verifier of it (an HMAC), so a node given another secret refuses to start.
    #[arg(long, env = "KHANATE_CLUSTER_SECRET", hide_env_values = true)]
    pub cluster_secret: Option<String>,

    /// A second listener for the other nodes only (e.g. `10.0.0.5:9080` on the private network;
    /// `--advertise-url` then names it). When set, calls between nodes are believed only there:
    /// the cluster secret and a peer's client address sent to `--bind` are ignored (and counted as
    /// wrong-secret attempts). Unset: peers call `--bind`, and the proxy in front must strip
    /// the peer headers (the shipped nginx files do).
    #[arg(long, env = "KHANATE_INTERNAL_BIND")]
    pub internal_bind: Option<SocketAddr>,

    /// Milliseconds a node's lease lasts after each renewal (on the database clock); a room whose
    /// owner's lease expired may be taken over by another node.
    #[arg(long, env = "KHANATE_LEASE_TTL_MS", default_value_t = 3000)]
    pub lease_ttl_ms: u64,

    /// Milliseconds between renewals of the lease; must be under half the TTL.
    #[arg(long, env = "KHANATE_LEASE_RENEW_MS", default_value_t = 1000)]
    pub lease_renew_ms: u64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            advertise_url: None,
            cluster_secret: None,
            internal_bind: None,
            lease_ttl_ms: 3000,
            lease_renew_ms: 1000,
        }
    }
}

/// A node's cluster settings, once checked ([`ClusterConfig::mode`]).
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterMode {
    /// See [`ClusterConfig::advertise_url`].
    pub advertise_url: String,
    /// See [`ClusterConfig::cluster_secret`].
    pub secret: String,
    /// See [`ClusterConfig::internal_bind`].
    pub internal_bind: Option<SocketAddr>,
    /// The lease's time to live.
    pub lease_ttl: Duration,
    /// The time between renewals.
    pub lease_renew: Duration,
}

/// `"***"` for a secret that is set, so that no log or panic message shows it.
fn masked(secret: Option<&str>) -> &'static str {
    if secret.is_some() { "***" } else { "(none)" }
}

// By hand: a derived `Debug` would print the secret.
impl fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("advertise_url", &self.advertise_url)
            .field("cluster_secret", &masked(self.cluster_secret.as_deref()))
            .field("internal_bind", &self.internal_bind)
            .field("lease_ttl_ms", &self.lease_ttl_ms)
            .field("lease_renew_ms", &self.lease_renew_ms)
            .finish()
    }
}

impl fmt::Debug for ClusterMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterMode")
            .field("advertise_url", &self.advertise_url)
            .field("secret", &"***")
            .field("internal_bind", &self.internal_bind)
            .field("lease_ttl", &self.lease_ttl)
            .field("lease_renew", &self.lease_renew)
            .finish()
    }
}

impl ClusterConfig {
    /// `Ok(None)`: a node on its own. `Ok(Some(_))`: a cluster node. Errors (a message for the
    /// operator): only one of the advertise URL and the secret is set, cluster options on a
    /// database other than PostgreSQL, a secret under [`MIN_SECRET_BYTES`] bytes, or a renewal
    /// interval not under half the TTL.
    pub fn mode(&self, database_url: &str) -> Result<Option<ClusterMode>, String> {
        let postgres =
            database_url.starts_with("postgres://") || database_url.starts_with("postgresql://");
        let (advertise_url, secret) = match (&self.advertise_url, &self.cluster_secret) {
            (None, None) => return Ok(None),
            (Some(url), Some(secret)) if !url.is_empty() && !secret.is_empty() => (url, secret),
            _ => {
                return Err(
                    "cluster mode needs both --advertise-url (KHANATE_ADVERTISE_URL) and \
                            --cluster-secret (KHANATE_CLUSTER_SECRET), non-empty; set both, or \
                            neither to run a single node"
                        .into(),
                );
            }
        };
        if !postgres {
            return Err(
                "cluster options need a postgres:// database; SQLite is for a single \
                        node: drop --advertise-url and --cluster-secret, or use PostgreSQL"
                    .into(),
            );
        }
        if !advertise_url.starts_with("http://") {
            return Err(format!(
                "--advertise-url ({advertise_url}) must be an http:// URL (the nodes call each \
                 other over plain HTTP and WebSockets, on a private network)"
            ));
        }
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "--cluster-secret (KHANATE_CLUSTER_SECRET) is {} bytes long: it needs at least \
                 {MIN_SECRET_BYTES} (a guessable secret lets anyone act as a node); make one \
                 with `openssl rand -hex 32` and give every node the same",
                secret.len()
            ));
        }
        if self.lease_renew_ms == 0 || self.lease_renew_ms.saturating_mul(2) >= self.lease_ttl_ms {
            return Err(format!(
                "--lease-renew-ms ({}) must be above 0 and under half of --lease-ttl-ms ({})",
                self.lease_renew_ms, self.lease_ttl_ms
            ));
        }
        Ok(Some(ClusterMode {
            advertise_url: advertise_url.clone(),
            secret: secret.clone(),
            internal_bind: self.internal_bind,
            lease_ttl: Duration::from_millis(self.lease_ttl_ms),
            lease_renew: Duration::from_millis(self.lease_renew_ms),
        }))
    }
}

/// Limits against abuse and for memory, each configurable.
#[derive(Clone, Debug, clap::Args)]
pub struct Limits {
    /// Commands (moves, offers, ...) one seat, on all its connections together, may send per
    /// second on average (a spectator: all spectators of its client address); a burst of twice as
    /// many is allowed. Beyond: `reject` `rate_limited`. Reconnecting does not reset it.
    #[arg(long, env = "KHANATE_COMMANDS_PER_SECOND", default_value_t = Limits::default().commands_per_second)]
    pub commands_per_second: u32,

    /// Rooms one client address may create per minute. Beyond: HTTP 429 `rate_limited`.
    #[arg(long, env = "KHANATE_ROOMS_PER_MINUTE", default_value_t = Limits::default().rooms_per_minute)]
    pub rooms_per_minute: u32,

    /// WebSockets one client address may hold open. Beyond: HTTP 429 `rate_limited`.
    #[arg(long, env = "KHANATE_CONNECTIONS_PER_IP", default_value_t = Limits::default().connections_per_ip)]
    pub connections_per_ip: usize,

    /// HTTP connections (WebSockets included) one client address may hold open at once. Beyond:
    /// the connection is answered 429 `rate_limited` and closed. Connections from a trusted proxy
    /// are not counted here (they carry many clients; the proxy limits them).
    #[arg(long, env = "KHANATE_HTTP_CONNECTIONS_PER_IP", default_value_t = Limits::default().http_connections_per_ip)]
    pub http_connections_per_ip: usize,

    /// HTTP connections (WebSockets included) the server holds at once. 0: the file-descriptor
    /// limit (`RLIMIT_NOFILE`, raised to its hard limit at start-up) minus a reserve of 128 for the
    /// database, files and refusals. Beyond: the connection is answered 503 `unavailable` and
    /// closed, so the server goes on accepting and refusing instead of failing to accept.
    #[arg(long, env = "KHANATE_MAX_CONNECTIONS", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,

    /// Seconds a connection may take to send a request's line and headers, counted from when the
    /// server is ready to read it: also how long a kept-alive connection may sit idle between
    /// requests. Then it is closed.
    #[arg(long, env = "KHANATE_HEADER_TIMEOUT_S", default_value_t = Limits::default().header_timeout_s)]
    pub header_timeout_s: u64,

    /// Seconds a request may take once its headers are in: reading its body and answering it.
    /// Beyond: 408 `timeout`. (A WebSocket, once upgraded, is kept by its pings instead.)
    #[arg(long, env = "KHANATE_REQUEST_TIMEOUT_S", default_value_t = Limits::default().request_timeout_s)]
    pub request_timeout_s: u64,

    /// Room look-ups by id or invite code (`GET /api/rooms/{code}`, the room page, joins and
    /// hellos) one client address may make per minute, hits and misses alike (a burst of as
    /// many). Beyond: 429 `rate_limited` with `Retry-After` (a hello: `error` `rate_limited`).
    #[arg(long, env = "KHANATE_LOOKUPS_PER_MINUTE", default_value_t = Limits::default().lookups_per_minute)]
    pub lookups_per_minute: u32,

    /// Room look-ups naming no room one client address may make per minute (a burst of as many),
    /// against invite-code guessing. Beyond, every look-up from that address is refused, hits
    /// included, until the allowance has come back: 429 `rate_limited` with `Retry-After`.
    #[arg(long, env = "KHANATE_FAILED_LOOKUPS_PER_MINUTE", default_value_t = Limits::default().failed_lookups_per_minute)]
    pub failed_lookups_per_minute: u32,

    /// WebSockets one room may hold (players and spectators). Beyond: `error` `room_crowded`.
    #[arg(long, env = "KHANATE_CONNECTIONS_PER_ROOM", default_value_t = Limits::default().connections_per_room)]
    pub connections_per_room: usize,

    /// Seconds a room with nobody connected stays in memory after its last request (it stays in
    /// the database and is loaded again when someone comes back); a finished room at most 5 s.
    #[arg(long, env = "KHANATE_ROOM_IDLE_S", default_value_t = Limits::default().room_idle_s)]
    pub room_idle_s: u64,

    /// Seconds a room waits for its players; then it expires (ends as `aborted`) and leaves the
    /// lobby.
    #[arg(long, env = "KHANATE_WAITING_ROOM_TTL_S", default_value_t = Limits::default().waiting_room_ttl_s)]
    pub waiting_room_ttl_s: u64,

    /// Base grace period, in seconds, of a player on move in a timed game who has no connection:
    /// once it is over, the others may claim the win or a draw (`abandoned`). The grace period of
    /// a room is max(base, min(initial time / 10, 120 s)); untimed rooms are never claimable.
    #[arg(long, env = "KHANATE_ABANDON_GRACE_S", default_value_t = Limits::default().abandon_grace_s)]
    pub abandon_grace_s: u64,

    /// Seconds a waiting room whose creator's last connection left (and nobody else joined) waits
    /// for the creator to come back; then it expires (ends as `aborted`).
    #[arg(long, env = "KHANATE_ABANDONED_WAITING_ROOM_S", default_value_t = Limits::default().abandoned_waiting_room_s)]
    pub abandoned_waiting_room_s: u64,

    /// Bot searches that may run at once, each on its own thread; the others queue, and while
    /// they wait every search gets a share of its level's time budget. Default: half the cores
    /// (at least one), so rooms and sockets keep the rest.
    #[arg(long, env = "KHANATE_BOT_THREADS", default_value_t = Limits::default().bot_threads)]
    pub bot_threads: usize,

    /// Login and registration attempts one client address may make per minute (a burst of as
    /// many). Beyond: 429 `rate_limited` with `retry_after`.
    #[arg(long, env = "KHANATE_LOGINS_PER_MINUTE", default_value_t = Limits::default().logins_per_minute)]
    pub logins_per_minute: u32,

    /// Failed logins of one account (by the name tried) in 15 minutes; the next attempt is 429
    /// `rate_limited` until the oldest leaves the window. Counted in the database, so every node
    /// of a cluster counts the same ones.
    #[arg(long, env = "KHANATE_LOGIN_FAILURES_PER_ACCOUNT", default_value_t = Limits::default().login_failures_per_account)]
    pub login_failures_per_account: u32,

    /// Argon2id password hashes (19 MiB each) that may run at once on the blocking pool; the
    /// others wait. Default: the number of cores.
    #[arg(long, env = "KHANATE_PASSWORD_HASHES", default_value_t = Limits::default().password_hashes)]
    pub password_hashes: usize,

    /// Quick-pairing requests one client address may make per minute, and one account (a burst
    /// of as many). Beyond: 429 `rate_limited` with `retry_after`.
    #[arg(long, env = "KHANATE_PAIRINGS_PER_MINUTE", default_value_t = Limits::default().pairings_per_minute)]
    pub pairings_per_minute: u32,

    /// Challenges one client address may make per minute, and one account (a burst of as
    /// many). Beyond: 429 `rate_limited` with `retry_after`.
    #[arg(long, env = "KHANATE_CHALLENGES_PER_MINUTE", default_value_t = Limits::default().challenges_per_minute)]
    pub challenges_per_minute: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            commands_per_second: 10,
            rooms_per_minute: 10,
            connections_per_ip: 50,
            http_connections_per_ip: 128,
            lookups_per_minute: 300,
            failed_lookups_per_minute: 10,
            max_connections: 0,
            header_timeout_s: 10,
            request_timeout_s: 30,
            connections_per_room: 200,
            room_idle_s: 600,
            waiting_room_ttl_s: 24 * 3600,
            abandon_grace_s: 30,
            abandoned_waiting_room_s: 600,
            bot_threads: std::thread::available_parallelism()
                .map_or(1, |cores| (cores.get() / 2).max(1)),
            logins_per_minute: 20,
            login_failures_per_account: 10,
            password_hashes: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
            pairings_per_minute: 30,
            challenges_per_minute: 10,
        }
    }
}

impl Limits {
    /// [`Limits::header_timeout_s`] as a duration (at least a second).
    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout_s.max(1))
    }

    /// [`Limits::request_timeout_s`] as a duration (at least a second).
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_s.max(1))
    }

    /// [`Limits::room_idle_s`] as a duration.
    pub fn room_idle(&self) -> Duration {
        Duration::from_secs(self.room_idle_s)
    }

    /// [`Limits::abandon_grace_s`] as a duration.
    pub fn abandon_grace(&self) -> Duration {
        Duration::from_secs(self.abandon_grace_s)
    }

    /// [`Limits::abandoned_waiting_room_s`] as a duration.
    pub fn abandoned_waiting_room(&self) -> Duration {
        Duration::from_secs(self.abandoned_waiting_room_s)
    }

    /// [`Limits::waiting_room_ttl_s`] as a duration.
    pub fn waiting_room_ttl(&self) -> Duration {
        Duration::from_secs(self.waiting_room_ttl_s)
    }
}

/// Reads a trusted proxy: a CIDR range, or a single address (a /32 or /128).
fn parse_net(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is neither an IP address nor a CIDR range"))
}

impl Config {
    /// A configuration for tests and embedding: an ephemeral port on loopback, the given store,
    /// and the defaults, except rate and connection limits high enough not to get in a test's way
    /// (every test client shares one address); tests of the limits set their own.
    pub fn for_tests(database_url: impl Into<String>) -> Self {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: database_url.into(),
            public_url: None,
            path_prefix: String::new(),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            heartbeat_ms: DEFAULT_HEARTBEAT_MS,
            // Test clients answer pings only while they wait for a frame, and many tests hold a
            // socket they do not read for a while: a minute of silence, as the tests' own
            // default. The tests of the silence limit set the real one.
            silence_limit_ms: TESTS_SILENCE_LIMIT_MS,
            limits: Limits {
                commands_per_second: 10_000,
                rooms_per_minute: 10_000,
                connections_per_ip: 10_000,
                http_connections_per_ip: 10_000,
                lookups_per_minute: 100_000,
                failed_lookups_per_minute: 10_000,
                logins_per_minute: 10_000,
                pairings_per_minute: 10_000,
                challenges_per_minute: 10_000,
                ..Limits::default()
            },
            cluster: ClusterConfig::default(),
            pairing_pools: crate::pairing::Pools::default(),
            pairing_hold_s: DEFAULT_PAIRING_HOLD_S,
            log_format: LogFormat::Text,
            clock: crate::clock::Clock::system(),
        }
    }

    /// A warning for the operator when the server, listening on `listening` (the address bound,
    /// so port 0 shows as the port the system chose), listens beyond loopback without a public
    /// URL or allowed origins: browsers then reach it by name, and WebSockets from pages whose
    /// host is a name are refused (DNS rebinding, see `--public-url`).
    pub fn origin_warning(&self, listening: SocketAddr) -> Option<String> {
        let exposed = !listening.ip().is_loopback();
        (exposed && self.public_url.is_none() && self.allowed_origins.is_empty()).then(|| {
            format!(
                "listening on {listening} without --public-url or --allowed-origins: browsers \
                 may open WebSockets only from pages reached by an IP address or localhost (or \
                 through a --trusted-proxies proxy); set --public-url to the address people use"
            )
        })
    }

    /// [`Config::heartbeat_ms`] as a duration (at least 100 ms).
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.heartbeat_ms.max(100))
    }

    /// [`Config::pairing_hold_s`] as a duration (at least a second).
    pub fn pairing_hold(&self) -> Duration {
        Duration::from_secs(self.pairing_hold_s.max(1))
    }

    /// [`Config::silence_limit_ms`] as a duration.
    pub fn silence_limit(&self) -> Duration {
        Duration::from_millis(self.silence_limit_ms)
    }
}

/// The database URL with any password (in the user info, or a `password=` query parameter)
/// replaced by `***`, for logs.
pub fn mask_url(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut masked = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((userinfo, host)) => match userinfo.split_once(':') {
                Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
                None => base.to_owned(),
            },
            None => base.to_owned(),
        },
        None => base.to_owned(),
    };
    if let Some(query) = query {
        let params: Vec<String> = query
            .split('&')
            .map(|param| match param.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => param.to_owned(),
            })
            .collect();
        masked.push('?');
        masked.push_str(&params.join("&"));
    }
    masked
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let proxies: Vec<String> = self
            .trusted_proxies
            .iter()
            .map(ToString::to_string)
            .collect();
        write!(
            f,
            "bind={} database_url={} public_url={} path_prefix={:?} trusted_proxies=[{}] allowed_origins=[{}] \
             allowed_hosts=[{}] heartbeat_ms={} silence_limit_ms={} limits={:?} advertise_url={} cluster_secret={} lease_ttl_ms={} \
             lease_renew_ms={} pairing_pools={} pairing_hold_s={} log_format={:?}",
            self.bind,
            mask_url(&self.database_url),
            self.public_url.as_deref().unwrap_or("(from the request)"),
            self.path_prefix,
            proxies.join(","),
            self.allowed_origins.join(","),
            self.allowed_hosts.join(","),
            self.heartbeat_ms,
            self.silence_limit_ms,
            self.limits,
            self.cluster.advertise_url.as_deref().unwrap_or("(none)"),
            masked(self.cluster.cluster_secret.as_deref()),
            self.cluster.lease_ttl_ms,
            self.cluster.lease_renew_ms,
            self.pairing_pools,
            self.pairing_hold_s,
            self.log_format
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{ClusterConfig, Config, mask_url};

    #[test]
    fn a_bind_beyond_loopback_without_a_public_url_is_warned_about() {
        let mut config = Config::for_tests("sqlite::memory:");
        let loopback = "127.0.0.1:8080".parse().unwrap();
        assert_eq!(config.origin_warning(loopback), None, "loopback");
        // Asked for port 0, bound to the port the system chose: the warning names that one.
        config.bind = "0.0.0.0:0".parse().unwrap();
        let exposed = "0.0.0.0:41234".parse().unwrap();
        let warning = config.origin_warning(exposed).expect("a warning");
        assert!(warning.contains("--public-url"), "{warning}");
        assert!(
            warning.starts_with("listening on 0.0.0.0:41234 "),
            "{warning}"
        );
        config.public_url = Some("https://games.example.org".into());
        assert_eq!(config.origin_warning(exposed), None);
        config.public_url = None;
        config.allowed_origins = vec!["https://games.example.org".into()];
        assert_eq!(config.origin_warning(exposed), None);
        config.allowed_origins.clear();
        let ipv6_loopback = "[::1]:8080".parse().unwrap();
        assert_eq!(config.origin_warning(ipv6_loopback), None, "IPv6 loopback");
    }

    #[test]
    fn cluster_mode_needs_both_options_and_postgres() {
        let pg = "postgres://p@h/db";
        let both = ClusterConfig {
            advertise_url: Some("http://10.0.0.5:8080".into()),
            cluster_secret: Some("s3cret-of-thirty-two-bytes-or-more".into()),
            ..ClusterConfig::default()
        };
        assert_eq!(ClusterConfig::default().mode(pg), Ok(None));
        assert_eq!(ClusterConfig::default().mode("sqlite://k.db"), Ok(None));
        assert!(both.mode(pg).unwrap().is_some());
        assert!(
            both.mode("sqlite://k.db")
                .unwrap_err()
                .contains("postgres://")
        );
        let url_only = ClusterConfig {
            cluster_secret: None,
            ..both.clone()
        };
        assert!(url_only.mode(pg).unwrap_err().contains("both"));
        let slow = ClusterConfig {
            lease_renew_ms: 1500,
            ..both
        };
        assert!(slow.mode(pg).unwrap_err().contains("half"));
        let short = ClusterConfig {
            advertise_url: Some("http://10.0.0.5:8080".into()),
            cluster_secret: Some("a".repeat(super::MIN_SECRET_BYTES - 1)),
            ..ClusterConfig::default()
        };
        let refused = short.mode(pg).unwrap_err();
        assert!(
            refused.contains("31 bytes long: it needs at least 32"),
            "{refused}"
        );
        assert!(!refused.contains(&"a".repeat(31)), "{refused}");
    }

    #[test]
    fn the_cluster_secret_is_masked_in_the_logged_config() {
        let mut config = Config::for_tests("postgres://p@h/db");
        config.cluster.cluster_secret = Some("s3cret-value".into());
        let logged = config.to_string();
        assert!(!logged.contains("s3cret-value"), "{logged}");
        assert!(logged.contains("cluster_secret=***"), "{logged}");
        let debugged = format!("{config:?}");
        assert!(!debugged.contains("s3cret-value"), "{debugged}");
    }

    #[test]
    fn passwords_are_masked_in_database_urls() {
        assert_eq!(
            mask_url("postgres://app:s3cret@db:5432/khanate"),
            "postgres://app:***@db:5432/khanate"
        );
        assert_eq!(
            mask_url("postgres://postgres@127.0.0.1/postgres"),
            "postgres://postgres@127.0.0.1/postgres"
        );
        assert_eq!(mask_url("sqlite://khanate.db"), "sqlite://khanate.db");
        assert_eq!(
            mask_url("postgres://app@db/khanate?sslmode=require&password=s3cret"),
            "postgres://app@db/khanate?sslmode=require&password=***"
        );
    }
}
