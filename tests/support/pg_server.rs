//! A PostgreSQL server of a test's own, which the test may restart: a throwaway cluster made with
//! the locally installed `initdb` and `pg_ctl` (on PATH, or the newest
//! `/usr/lib/postgresql/*/bin`), in a temp dir, on a free port, run as the `postgres` user when
//! the tests run as root (initdb refuses root), as `scripts/test` makes one. Restarting the
//! machine's shared server would break every other test running on it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A running throwaway server, stopped and deleted on drop.
pub struct PgServer {
    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    pub url: String,
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
}

/// The directory holding `initdb` and `pg_ctl`.
fn bin_dir() -> PathBuf {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .and_then(|path| std::env::split_paths(&path).find(|dir| dir.join(name).is_file()))
    };
    if let (Some(dir), Some(_)) = (on_path("initdb"), on_path("pg_ctl")) {
        return dir;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
        .collect();
    dirs.sort_by_key(|dir| {
        let version = dir.parent().and_then(Path::file_name);
        version.and_then(|v| v.to_str()?.parse::<u32>().ok())
    });
    dirs.pop()
        .expect("PostgreSQL's server binaries (initdb, pg_ctl): apt-get install postgresql")
}

/// `program args...`, as the `postgres` user when this process is root.
fn as_postgres(program: &Path, args: &[&str]) -> Command {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if root {
        let mut command = Command::new("runuser");
        command
            .args(["-u", "postgres", "--"])
            .arg(program)
            .args(args);
        command
    } else {
        let mut command = Command::new(program);
        command.args(args);
        command
    }
}

fn run(mut command: Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(output.status.success(), "{what}: {output:?}");
}

impl PgServer {
    /// initdb and start a server.
    pub fn start() -> PgServer {
        let bin = bin_dir();
        let dir =
            std::env::temp_dir().join(format!("khanate-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).expect("a temp dir");
        let _ = Command::new("chown").arg("postgres:").arg(&dir).status();
        let data = dir.join("data");
        run(
            as_postgres(
                &bin.join("initdb"),
                &[
                    "-D",
                    data.to_str().unwrap(),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--no-locale",
                    "-E",
                    "UTF8",
                    "--no-sync",
                ],
            ),
            "initdb",
        );
        let port = super::server::free_port();
        let server = PgServer {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            dir,
            bin,
            port,
        };
        server.up();
        server
    }

    fn pg_ctl(&self, args: &[&str]) -> Command {
        let data = self.dir.join("data");
        let mut all = vec!["-D", data.to_str().unwrap()];
        all.extend(args);
        as_postgres(&self.bin.join("pg_ctl"), &all)
    }

    /// Starts the server (again).
    pub fn up(&self) {
        let log = self.dir.join("postgres.log");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        run(
            self.pg_ctl(&[
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-t",
                "60",
                "-o",
                &options,
                "start",
            ]),
            "pg_ctl start",
        );
    }

    /// Stops the server (fast shutdown: every connection terminated).
    pub fn stop(&self) {
        run(self.pg_ctl(&["-m", "fast", "-w", "stop"]), "pg_ctl stop");
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["-m", "immediate", "-w", "stop"]).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
