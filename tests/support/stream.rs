//! A protocol client that survives its node: it records every versioned event it is sent and,
//! when its socket closes (a node killed, terminated or fenced, a relay closed) or falls silent
//! (a node frozen: it pings every second and gives up 3 s after the last frame it heard, as
//! docs/protocol.md "Heartbeat" says a client does), reconnects with `last_v` through the next
//! of its entrances, as the web client does; after a silence, or a WebSocket handshake not
//! answered within [`OPEN_TIMEOUT`], it asks the proxy for another node with the next `via` (as
//! the web client does, docs/deploy/cluster.md "The proxy"). For the cluster tests, which compare
//! what each client saw with the stored log.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::ws::{Client, End};

/// How long a (re)connection may take: through the lease's expiry and a takeover.
const RECONNECT_DEADLINE: Duration = Duration::from_secs(20);
/// How long a WebSocket handshake may take: a live node upgrades at once, a frozen one (whose
/// kernel accepts TCP but which never answers) never does, and nginx would wait its read timeout
/// (8 s as shipped) before sending the upgrade on to another node. The web client's
/// `OPEN_WITHIN_MS` (web/js/socket.js).
const OPEN_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long the hello's welcome may take: through a dead owner's lease and a takeover.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often a client pings (docs/protocol.md "Heartbeat": about every second).
const PING_EVERY: Duration = Duration::from_secs(1);
/// How long after the last frame heard a client gives its connection up and reconnects
/// (docs/protocol.md "Heartbeat": about 3 s).
pub const SILENCE: Duration = Duration::from_secs(3);
/// Pause between two connection attempts.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// Where a client connects: a node's own port, or the proxy with the room in the URL.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entrance {
    Node(SocketAddr),
    Proxy(SocketAddr),
}

impl Entrance {
    /// The socket URL; through the proxy with `via` (from 1) after a node fell silent or never
    /// answered, which the shipped nginx-cluster.conf hashes with the room.
    fn url(self, room: &str, via: u32) -> String {
        match self {
            Entrance::Node(addr) => format!("ws://{addr}/ws"),
            Entrance::Proxy(addr) if via == 0 => format!("ws://{addr}/ws?room={room}"),
            Entrance::Proxy(addr) => format!("ws://{addr}/ws?room={room}&via={via}"),
        }
    }
}

/// One versioned event as a client received it: `v`, `t` and `d` without the mover's own
/// `legal_moves` (which only the seat on move gets, so they are not in the log).
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub v: i64,
    pub t: String,
    pub d: Value,
}

impl Seen {
    /// The public part of a versioned frame.
    pub fn of(frame: &Value) -> Option<Seen> {
        let v = frame["v"].as_i64()?;
        let mut d = frame["d"].clone();
        if let Value::Object(map) = &mut d {
            map.remove("legal_moves");
            map.remove("legal_moves_complete");
        }
        Some(Seen {
            v,
            t: frame["t"].as_str()?.to_owned(),
            d,
        })
    }
}

/// A reconnection: when the socket ended, with which close code (none when it just ended, or fell
/// silent), whether it fell silent, and where the client got back in.
#[derive(Clone, Debug)]
pub struct Reconnect {
    pub at: Instant,
    pub code: Option<u16>,
    pub silent: bool,
    /// Where the connection that ended came in, and where the next one did.
    pub from: Entrance,
    pub through: Entrance,
}

/// A player (with a seat token) or a spectator of one room.
pub struct Follower {
    room: String,
    token: Option<String>,
    entrances: Vec<Entrance>,
    /// The entrance of the current connection.
    at: usize,
    /// How many times a path fell silent or never answered a handshake: the proxy's `via`.
    via: u32,
    client: Client,
    /// The snapshot's version at the first hello: the events after it are all in `events`.
    pub start_v: i64,
    /// The newest version received.
    pub v: i64,
    /// Every event after `start_v`, in the order received (a hole or a duplicate panics).
    pub events: Vec<Seen>,
    pub reconnects: Vec<Reconnect>,
    /// Snapshots received after the first one: a reconnect that was not replayed its events.
    pub resyncs: usize,
    /// Answers (`ack`, `reject`) by cid, the first one kept.
    answers: HashMap<String, Value>,
    /// When this client last pinged on the current connection, and since when a ping of its
    /// has been unanswered (no frame since it was sent). Pings go out only while the client
    /// reads, so a client the test leaves unread for a while is not "silent".
    pinged: Instant,
    unanswered: Option<Instant>,
}

impl Follower {
    /// Joins `room` (its id) as the seat of `token` (a spectator without), through the first of
    /// `entrances` that serves it.
    pub async fn join(room: &str, token: Option<&str>, entrances: &[Entrance]) -> Follower {
        assert!(!entrances.is_empty(), "a follower needs an entrance");
        let mut via = 0;
        let (client, at, snapshot) = connect(room, token, entrances, 0, None, &mut via, None).await;
        let mut follower = Follower {
            room: room.to_owned(),
            token: token.map(str::to_owned),
            entrances: entrances.to_vec(),
            at,
            via,
            client,
            start_v: 0,
            v: 0,
            events: Vec::new(),
            reconnects: Vec::new(),
            resyncs: 0,
            answers: HashMap::new(),
            pinged: Instant::now(),
            unanswered: None,
        };
        let snapshot = snapshot.expect("a first hello gets a snapshot");
        follower.start_v = snapshot["v"].as_i64().expect("a versioned snapshot");
        follower.v = follower.start_v;
        follower
    }

    /// Where the current connection came in.
    pub fn entrance(&self) -> Entrance {
        self.entrances[self.at]
    }

    /// Reads one frame and records it; on a close, or after [`SILENCE`] without a frame since a
    /// ping (it pings every [`PING_EVERY`] while it reads), reconnects with `last_v` and returns
    /// `None`.
    async fn read(&mut self) -> Option<Value> {
        loop {
            if self
                .unanswered
                .is_some_and(|since| since.elapsed() >= SILENCE)
            {
                self.reconnect(None, true).await;
                return None;
            }
            if self.pinged.elapsed() >= PING_EVERY {
                // Into a frozen path too: the kernel takes it, and the silence tells.
                self.client.try_send(&json!({"t": "ping"})).await;
                self.pinged = Instant::now();
                self.unanswered.get_or_insert(self.pinged);
            }
            let silence_left = self
                .unanswered
                .map_or(SILENCE, |since| SILENCE.saturating_sub(since.elapsed()));
            let wait = PING_EVERY
                .saturating_sub(self.pinged.elapsed())
                .min(silence_left)
                .max(Duration::from_millis(10));
            match self.client.next_within(wait).await {
                Some(Ok(frame)) => {
                    self.unanswered = None;
                    self.record(&frame);
                    return Some(frame);
                }
                Some(Err(End::Closed(code))) => {
                    self.reconnect(code, false).await;
                    return None;
                }
                None => {}
            }
        }
    }

    fn record(&mut self, frame: &Value) {
        if frame["t"] == "snapshot" {
            self.resyncs += 1;
            self.v = frame["v"].as_i64().unwrap_or(self.v);
        } else if frame["t"] == "ack" || frame["t"] == "reject" {
            let cid = frame["d"]["cid"].as_str().unwrap_or_default().to_owned();
            self.answers.entry(cid).or_insert_with(|| frame.clone());
        } else if let Some(seen) = Seen::of(frame) {
            // Said at once (the full comparison with the log comes later): a hole or a
            // duplicate would otherwise show only as a wait for a version that never comes.
            assert_eq!(
                seen.v,
                self.v + 1,
                "room {}: after v{} came {frame} (through {:?})",
                self.room,
                self.v,
                self.entrance()
            );
            self.v = seen.v;
            self.events.push(seen);
        }
    }

    async fn reconnect(&mut self, code: Option<u16>, silent: bool) {
        let at = Instant::now();
        let from = self.entrance();
        let next = (self.at + 1) % self.entrances.len();
        if silent {
            self.via += 1;
        }
        let (client, entrance, snapshot) = connect(
            &self.room,
            self.token.as_deref(),
            &self.entrances,
            next,
            Some(self.v),
            &mut self.via,
            silent.then_some(self.at),
        )
        .await;
        self.client = client;
        self.at = entrance;
        self.pinged = Instant::now();
        self.unanswered = None;
        if let Some(snapshot) = snapshot {
            self.record(&snapshot);
        }
        self.reconnects.push(Reconnect {
            at,
            code,
            silent,
            from,
            through: self.entrances[entrance],
        });
    }

    /// Reads (reconnecting as needed) until it has seen version `v`.
    pub async fn until_version(&mut self, v: i64) {
        while self.v < v {
            self.read().await;
        }
    }

    /// Sends `command` (with its `cid`) and returns its first answer (`ack` or `reject`) other than
    /// `unavailable`. When the connection ends first, or the answer is `unavailable`, it sends the
    /// very same frame again (reconnecting first if need be), as a client that does not know
    /// whether its command was committed must.
    pub async fn request(&mut self, command: &Value) -> Value {
        let cid = command["cid"]
            .as_str()
            .expect("a command with a cid")
            .to_owned();
        // A send into a broken connection is no error: the read sees it closed and resends.
        self.client.try_send(command).await;
        loop {
            if let Some(answer) = self.answers.remove(&cid) {
                if answer["d"]["code"] != "unavailable" {
                    return answer;
                }
                // docs/protocol.md: not stored (or not known to be): retry the same cid.
                tokio::time::sleep(RETRY_PAUSE).await;
                self.client.try_send(command).await;
                continue;
            }
            if self.read().await.is_none() {
                self.client.try_send(command).await;
            }
        }
    }

    /// [`Follower::request`] of a move at the newest version seen.
    pub async fn play(&mut self, cid: &str, mv: &str) -> Value {
        let frame = json!({"t": "move", "cid": cid, "d": {"move": mv, "v": self.v}});
        self.request(&frame).await
    }

    /// Sends `command` and does not wait for its answer (a later [`Follower::request`] of the same
    /// frame gets it).
    pub async fn send_only(&mut self, command: &Value) {
        self.client.try_send(command).await;
    }

    /// Reads whatever arrives (reconnecting as needed) until `stop` says so, for a client that
    /// only listens while others play.
    pub async fn follow(&mut self, mut stop: tokio::sync::watch::Receiver<bool>) {
        while !*stop.borrow() {
            tokio::select! {
                _ = stop.changed() => {}
                _ = self.read() => {}
            }
        }
    }
}

/// Says hello through `entrances`, starting at `first` and going round them until one serves the
/// room: the client, the index of its entrance and the snapshot if one came before the first
/// event. `via` goes up at each handshake not answered in time; a node's own entrance that fell
/// silent (`silent`) or did not answer is not tried again while another is left. Panics after
/// [`RECONNECT_DEADLINE`], or on a refusal that retrying cannot cure.
async fn connect(
    room: &str,
    token: Option<&str>,
    entrances: &[Entrance],
    first: usize,
    last_v: Option<i64>,
    via: &mut u32,
    silent: Option<usize>,
) -> (Client, usize, Option<Value>) {
    let deadline = Instant::now() + RECONNECT_DEADLINE;
    let mut failures = Vec::new();
    let mut shunned = Vec::new();
    let shun = |at: usize, shunned: &mut Vec<usize>| {
        if matches!(entrances[at], Entrance::Node(_)) && !shunned.contains(&at) {
            shunned.push(at);
        }
    };
    if let Some(at) = silent {
        shun(at, &mut shunned);
    }
    for attempt in 0.. {
        let at = (first + attempt) % entrances.len();
        if shunned.contains(&at) && shunned.len() < entrances.len() {
            continue;
        }
        match hello(room, token, entrances[at], last_v, *via).await {
            Ok((client, snapshot)) => return (client, at, snapshot),
            Err(Failure::Unopened(why)) => {
                *via += 1;
                shun(at, &mut shunned);
                failures.push(why);
            }
            Err(Failure::Other(why)) => failures.push(why),
        }
        assert!(
            Instant::now() < deadline,
            "room {room} not served within {RECONNECT_DEADLINE:?}: {failures:#?}"
        );
        tokio::time::sleep(RETRY_PAUSE).await;
    }
    unreachable!()
}

/// Why a hello did not get in.
enum Failure {
    /// The WebSocket handshake was not answered within [`OPEN_TIMEOUT`].
    Unopened(String),
    Other(String),
}

impl From<String> for Failure {
    fn from(why: String) -> Failure {
        Failure::Other(why)
    }
}

/// One hello through `entrance` (`via`: see [`Entrance::url`]): the client and the snapshot if
/// one led, or why not.
async fn hello(
    room: &str,
    token: Option<&str>,
    entrance: Entrance,
    last_v: Option<i64>,
    via: u32,
) -> Result<(Client, Option<Value>), Failure> {
    let url = entrance.url(room, via);
    let mut client = tokio::time::timeout(OPEN_TIMEOUT, Client::connect(&url))
        .await
        .map_err(|_| Failure::Unopened(format!("{url}: no handshake within {OPEN_TIMEOUT:?}")))??;
    let mut d = json!({"protocol": 1, "room": room});
    if let Some(token) = token {
        d["token"] = json!(token);
    }
    if let Some(last_v) = last_v {
        d["last_v"] = json!(last_v);
    }
    client.send(&json!({"t": "hello", "d": d})).await;
    // A hello through a node that froze meanwhile is never answered: given up like a handshake.
    let welcome = match client.next_within(HANDSHAKE_TIMEOUT).await {
        None => return Err(format!("{url}: no welcome within {HANDSHAKE_TIMEOUT:?}").into()),
        Some(Ok(frame)) if frame["t"] == "welcome" => frame,
        Some(Ok(frame)) => panic!("{url}: a hello answered {frame}"),
        Some(Err(End::Closed(Some(code @ (1012 | 1013))))) => {
            return Err(format!("{url}: closed {code} (try again)").into());
        }
        Some(Err(End::Closed(None))) => {
            return Err(format!("{url}: ended before the welcome").into());
        }
        Some(Err(End::Closed(code))) => {
            panic!("{url}: a hello for {room} was closed with {code:?}")
        }
    };
    assert!(welcome["d"]["room_id"].is_string(), "{welcome}");
    if last_v.is_some() {
        return Ok((client, None));
    }
    match client.next_within(HANDSHAKE_TIMEOUT).await {
        None => Err(format!("{url}: no snapshot within {HANDSHAKE_TIMEOUT:?}").into()),
        Some(Ok(frame)) if frame["t"] == "snapshot" => Ok((client, Some(frame))),
        Some(Ok(frame)) => panic!("{url}: after the welcome came {frame}"),
        Some(Err(End::Closed(code))) => {
            Err(format!("{url}: closed {code:?} after the welcome").into())
        }
    }
}
