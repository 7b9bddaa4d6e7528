//! A real Khanate server for a test: in-process on an ephemeral port, or as a child process (for
//! crash tests), over a fresh database; plus REST helpers.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use khanate::clock::Clock;
use khanate::config::Config;
use khanate::server::Running;
use khanate::store::Store;
use serde_json::{Value, json};

/// An in-process server on a fresh SQLite file, with `change` applied to the tests' configuration:
/// (the file, which is removed when dropped, and its URL), and the server.
pub async fn sqlite_server_with(
    change: impl FnOnce(&mut Config),
) -> ((crate::support::db::SqliteFile, String), TestServer) {
    let (file, url) = crate::support::db::fresh_sqlite_url();
    let mut config = Config::for_tests(&url);
    change(&mut config);
    let server = TestServer::start_with(config).await;
    ((file, url), server)
}

/// An in-process server.
pub struct TestServer {
    pub addr: SocketAddr,
    pub database_url: String,
    pub store: Store,
    running: Option<Running>,
}

impl TestServer {
    /// Starts a server on `database_url` (a fresh database from `support::db`).
    pub async fn start(database_url: &str) -> TestServer {
        TestServer::start_with(Config::for_tests(database_url)).await
    }

    /// Starts a server with `config` (its `bind` should be an ephemeral port).
    pub async fn start_with(config: Config) -> TestServer {
        let database_url = config.database_url.clone();
        let running = khanate::server::start(config).await.expect("server starts");
        TestServer {
            addr: running.addr,
            database_url,
            store: running.store.clone(),
            running: Some(running),
        }
    }

    pub fn http(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Graceful shutdown.
    pub async fn shutdown(mut self) {
        if let Some(running) = self.running.take() {
            running.shutdown().await.expect("clean shutdown");
        }
    }
}

/// A loopback port free a moment ago, for a server that must know its address before it starts
/// (a cluster node's `--advertise-url`).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// The server binary as a child process, killed (not shut down) on drop or by [`Process::kill`].
pub struct Process {
    pub addr: SocketAddr,
    child: Child,
}

impl Process {
    /// Starts `khanate serve` on an ephemeral port over `database_url` and waits for its
    /// "listening" line.
    pub fn start(database_url: &str) -> Process {
        Process::start_with(database_url, &[], &[])
    }

    /// [`Process::start`] with `extra` arguments (a limit or `--bind` among them replaces the
    /// tests'), run
    /// under `wrapper` (a command and its arguments, e.g. `prlimit --nofile=600`) when not empty.
    pub fn start_with(database_url: &str, extra: &[&str], wrapper: &[&str]) -> Process {
        // The limits of the in-process test servers: tests play much faster than people.
        let tests = Config::for_tests(database_url);
        let limits = tests.limits;
        let defaults = [
            ("--silence-limit-ms", tests.silence_limit_ms.to_string()),
            (
                "--commands-per-second",
                limits.commands_per_second.to_string(),
            ),
            ("--rooms-per-minute", limits.rooms_per_minute.to_string()),
            (
                "--connections-per-ip",
                limits.connections_per_ip.to_string(),
            ),
            (
                "--http-connections-per-ip",
                limits.http_connections_per_ip.to_string(),
            ),
            (
                "--lookups-per-minute",
                limits.lookups_per_minute.to_string(),
            ),
            (
                "--failed-lookups-per-minute",
                limits.failed_lookups_per_minute.to_string(),
            ),
        ];
        let binary = env!("CARGO_BIN_EXE_khanate");
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(binary);
                command
            }
            None => Command::new(binary),
        };
        let bind = ["--bind", "127.0.0.1:0"];
        let mut child = command
            .args(["serve", "--database-url", database_url])
            .args(bind.iter().filter(|_| !extra.contains(&"--bind")))
            .args(
                defaults
                    .iter()
                    .filter(|(flag, _)| !extra.contains(flag))
                    .flat_map(|(flag, value)| [*flag, value.as_str()]),
            )
            .args(extra)
            .env(
                "RUST_LOG",
                std::env::var("KHANATE_TEST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the khanate binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("reads the listening line");
        let addr = line
            .trim()
            .strip_prefix("khanate listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .expect("an address");
        Process { addr, child }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`"STOP"`, `"CONT"`, `"TERM"`, ...) with kill(1).
    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([format!("-{signal}"), self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -{signal}");
        if signal == "STOP" {
            self.wait_stopped();
        }
    }

    /// Waits until every thread of the process is stopped (`T` in `/proc/{pid}/task/*/stat`):
    /// kill(1) returns once the signal is sent, and a thread already running may still do some
    /// work (commit a move) before it stops.
    fn wait_stopped(&self) {
        let tasks = format!("/proc/{}/task", self.child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let stopped = std::fs::read_dir(&tasks)
                .expect("the process's threads")
                .all(|task| {
                    let stat = task
                        .ok()
                        .and_then(|task| std::fs::read_to_string(task.path().join("stat")).ok())
                        .unwrap_or_default();
                    // The state follows the command name, which is in parentheses.
                    stat.rsplit_once(") ")
                        .is_some_and(|(_, rest)| rest.starts_with('T') || rest.starts_with('t'))
                });
            if stopped {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the process never stopped"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Waits for the process to exit (after a SIGTERM) and returns whether it exited cleanly.
    pub fn wait(mut self) -> bool {
        self.child.wait().expect("reap").success()
    }

    /// SIGKILL: no graceful shutdown, no flushing, as a crash or power cut.
    pub fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("reap");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `POST /api/rooms` with `body`; returns (status, JSON).
pub async fn post(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{addr}{path}"))
        .json(body)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `GET path`; returns (status, JSON).
pub async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let response = reqwest::get(format!("http://{addr}{path}"))
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `GET path` as text.
pub async fn get_text(addr: SocketAddr, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("http://{addr}{path}"))
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// A room of Ouk Chatrang with White (seat 0) created by "white" and Black joined by "black".
/// Returns (room_id, invite_code, white token, black token).
pub async fn two_player_room(addr: SocketAddr, options: Value) -> (String, String, String, String) {
    let (status, created) = post(
        addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": "white", "name": "white", "options": options}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"]
        .as_str()
        .expect("invite code")
        .to_owned();
    let (status, joined) = post(
        addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"name": "black"}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["seat"], 1);
    assert_eq!(joined["color"], "black");
    (
        created["room_id"].as_str().expect("room id").to_owned(),
        code,
        created["seat_token"].as_str().expect("token").to_owned(),
        joined["seat_token"].as_str().expect("token").to_owned(),
    )
}

/// An in-process server over `url` whose rooms read `clock` (a manual one lets a test move time).
pub async fn server_with_clock(url: &str, clock: &Clock) -> TestServer {
    let mut config = Config::for_tests(url);
    config.clock = clock.clone();
    TestServer::start_with(config).await
}

/// A room of `game` created by seat 0 with `extra` fields of `POST /api/rooms` (`clock`,
/// `options`, `seats`) and every other seat joined: (room id, invite code, tokens in seat order).
pub async fn room_with_every_seat(
    addr: SocketAddr,
    game: &str,
    extra: Value,
) -> (String, String, Vec<String>) {
    let mut body = json!({"game": game, "seat": 0});
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    let seats = body["seats"].as_u64().unwrap_or(2);
    let (status, created) = post(addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let mut tokens = vec![created["seat_token"].as_str().unwrap().to_owned()];
    for seat in 1..seats {
        let path = format!("/api/rooms/{code}/join");
        let (status, joined) = post(addr, &path, &json!({"seat": seat})).await;
        assert_eq!(status, 200, "{joined}");
        tokens.push(joined["seat_token"].as_str().unwrap().to_owned());
    }
    let room_id = created["room_id"].as_str().unwrap().to_owned();
    (room_id, code, tokens)
}
