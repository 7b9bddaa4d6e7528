//! The server under load: a `khanate serve` or echo server the tool starts as a child process, or
//! one already running on this machine.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use anyhow::{Context, bail};

/// The limits of a server under load: every client of the tool comes from 127.0.0.1 (so every
/// per-address limit is raised: rooms, WebSockets, HTTP connections at accept, look-ups and
/// failed look-ups), rooms are created by the thousand, and a room may move faster than a
/// person. A server given by `--url` needs the same (see the README).
pub const RAISED_LIMITS: [&str; 14] = [
    "--rooms-per-minute",
    "1000000",
    "--connections-per-ip",
    "1000000",
    "--http-connections-per-ip",
    "1000000",
    "--lookups-per-minute",
    "1000000",
    "--failed-lookups-per-minute",
    "1000000",
    "--connections-per-room",
    "100000",
    "--commands-per-second",
    "1000",
];

/// A server the load goes to. A child the tool started is killed when this is dropped.
pub struct Target {
    pub addr: SocketAddr,
    /// Its process, for `/proc` readings (unknown for a server given by `--url` alone).
    pub pid: Option<u32>,
    child: Option<Child>,
}

impl Target {
    /// A server already listening at `url` (`http://127.0.0.1:PORT`), with its `pid` if known.
    /// Refuses any address but this machine's loopback: the tool must never load another host.
    pub fn running(url: &str, pid: Option<u32>) -> anyhow::Result<Target> {
        let addr: SocketAddr = url
            .trim_end_matches('/')
            .strip_prefix("http://")
            .context("--url must be http://127.0.0.1:PORT")?
            .parse()
            .context("--url must be http://127.0.0.1:PORT")?;
        if !addr.ip().is_loopback() {
            bail!("the load tool only talks to 127.0.0.1 (got {addr})");
        }
        Ok(Target {
            addr,
            pid,
            child: None,
        })
    }

    /// Starts `khanate serve` from `binary` on a free loopback port over `database_url`, with the
    /// limits raised ([`RAISED_LIMITS`]), and waits for its "listening" line.
    pub fn khanate(binary: &Path, database_url: &str) -> anyhow::Result<Target> {
        let mut command = Command::new(binary);
        command.args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            database_url,
        ]);
        command.args(RAISED_LIMITS);
        Target::spawn(command, "khanate listening on http://")
    }

    /// Starts this tool's own echo server (`khanate-load echo-server`).
    pub fn echo() -> anyhow::Result<Target> {
        let mut command = Command::new(std::env::current_exe()?);
        command.arg("echo-server");
        Target::spawn(command, super::echo::LISTENING)
    }

    fn spawn(mut command: Command, prefix: &str) -> anyhow::Result<Target> {
        let mut child = command
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {command:?}"))?;
        let stdout = child.stdout.take().context("piped stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix(prefix)
            .with_context(|| format!("{command:?} printed {line:?} first"))?
            .parse()?;
        Ok(Target {
            addr,
            pid: Some(child.id()),
            child: Some(child),
        })
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
