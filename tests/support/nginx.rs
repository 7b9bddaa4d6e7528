//! A real nginx as a child process, running a shipped configuration from `docs/deploy/` with the
//! few changes a test needs (see [`derive`]), for `tests/nginx.rs` and `tests/cluster_proxy.rs`.
//!
//! nginx must be installed (Debian/Ubuntu: `apt-get install nginx`; `.ci/run` does it). Without it
//! these tests fail saying so; they are never skipped. Each nginx runs in the foreground (master
//! and one worker) with every path in a directory of its own, removed when it stops.

#![allow(dead_code)]

use std::fs;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;
use uuid::Uuid;

/// Where nginx listens.
pub const NGINX_IP: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
/// Where nginx connects to Khanate from (`proxy_bind`): the only proxy Khanate trusts.
pub const PROXY_IP: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// The nginx binary: `nginx` on `PATH`, else Debian's `/usr/sbin/nginx` (not on a non-root
/// `PATH`). Panics, saying how to install it, when there is none.
fn nginx_binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("nginx"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain([PathBuf::from("/usr/sbin/nginx")])
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "nginx is not installed (looked on PATH and at /usr/sbin/nginx): the proxy tests \
                 run the shipped configurations of docs/deploy/ in a real nginx. Install it \
                 (Debian/Ubuntu: `apt-get install nginx`; `.ci/run` does) and run them again."
            )
        })
}

/// One change [`derive`] makes to a shipped file: the (trimmed, non-comment) lines that are
/// exactly `line` — or, with `prefix`, start with it — become `to` (nothing: dropped), and there
/// must be `at_least..=at_most` of them.
pub struct Change {
    pub line: String,
    pub prefix: bool,
    pub to: Vec<String>,
    pub at_least: usize,
    pub at_most: usize,
}

impl Change {
    /// The one line exactly `line` becomes `to`.
    pub fn once(line: &str, to: &[String]) -> Change {
        Change {
            line: line.to_owned(),
            prefix: false,
            to: to.to_vec(),
            at_least: 1,
            at_most: 1,
        }
    }

    /// Every line starting with `prefix` (at least `at_least` of them) is dropped.
    pub fn drop_all(prefix: &str, at_least: usize) -> Change {
        Change {
            line: prefix.to_owned(),
            prefix: true,
            to: Vec::new(),
            at_least,
            at_most: usize::MAX,
        }
    }
}

/// The changes every shipped file needs to run in a test: plain HTTP on `addr` instead of 443 with
/// TLS (every `ssl_*` directive dropped: they name certificate files that do not exist here), the
/// redirect on `redirect_addr` instead of 80, the same for the default server's
/// `... default_server;` lines, the `listen [::]:...` lines dropped, and
/// `server_name games.example.org;` → `server_name games.example.org 127.0.0.2;` (tests' clients
/// name nginx by its address, which the default server would refuse).
pub fn plain_http(addr: SocketAddr, redirect_addr: SocketAddr) -> Vec<Change> {
    vec![
        Change::once("listen 443 ssl;", &[format!("listen {addr};")]),
        Change::once("listen [::]:443 ssl;", &[]),
        Change::once(
            "listen 443 ssl default_server;",
            &[format!("listen {addr} default_server;")],
        ),
        Change::once("listen [::]:443 ssl default_server;", &[]),
        Change::drop_all("ssl_", 2),
        Change::once("listen 80;", &[format!("listen {redirect_addr};")]),
        Change::once("listen [::]:80;", &[]),
        Change::once(
            "listen 80 default_server;",
            &[format!("listen {redirect_addr} default_server;")],
        ),
        Change::once("listen [::]:80 default_server;", &[]),
        Change {
            line: "server_name games.example.org;".to_owned(),
            prefix: false,
            to: vec![format!("server_name games.example.org {};", addr.ip())],
            at_least: 2,
            at_most: 2,
        },
    ]
}

/// The shipped file `shipped` (its text; `name` for messages) with exactly `changes` applied, line
/// by line, each marked by a comment naming `by` (the test file). Every other line is kept as
/// shipped. Each change must apply as often as expected, so an edit of the shipped file that the
/// test would silently stop exercising fails here instead. Comment lines are never matched.
pub fn derive(name: &str, shipped: &str, changes: &[Change], by: &str) -> String {
    let mut applied = vec![0usize; changes.len()];
    let mut out = String::new();
    for line in shipped.lines() {
        let code = line.trim();
        let indent = &line[..line.len() - line.trim_start().len()];
        let found = changes.iter().position(|c| {
            !code.starts_with('#')
                && if c.prefix {
                    code.starts_with(&c.line)
                } else {
                    code == c.line
                }
        });
        let Some(i) = found else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        applied[i] += 1;
        out.push_str(&format!("{indent}# {by}: was `{code}`\n"));
        for new in &changes[i].to {
            out.push_str(&format!("{indent}{new}\n"));
        }
    }
    for (c, n) in changes.iter().zip(applied) {
        assert!(
            (c.at_least..=c.at_most).contains(&n),
            "{name}: {n} line(s) `{}{}` outside comments, expected {}{}; {by} derives its \
             configuration from them: update it along with the shipped file",
            c.line,
            if c.prefix { "…" } else { "" },
            c.at_least,
            if c.at_most > c.at_least {
                " or more"
            } else {
                ""
            },
        );
    }
    out
}

/// The main configuration around the derived file: what a distribution's `/etc/nginx/nginx.conf`
/// provides, with every path in the test's own directory.
///
/// When the tests run as root the master process switches its worker to `user` (by default
/// `nobody`, which may not be able to write to the test directory, and Debian's `www-data` is not
/// everywhere), so the worker is told to stay `root`: it only serves loopback for a few seconds.
/// As another user nginx cannot switch users at all and the directive is left out.
fn main_config(dir: &Path) -> String {
    let as_root = fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let d = dir.display();
    format!(
        "# Written by tests/support/nginx.rs around khanate.conf (a shipped file with the test's changes).\n\
         {user}worker_processes 1;\n\
         pid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\n\
         events {{\n    worker_connections 1024;\n}}\n\
         http {{\n\
         \x20   access_log {d}/access.log;\n\
         \x20   client_body_temp_path {d}/client_body;\n\
         \x20   proxy_temp_path {d}/proxy;\n\
         \x20   fastcgi_temp_path {d}/fastcgi;\n\
         \x20   uwsgi_temp_path {d}/uwsgi;\n\
         \x20   scgi_temp_path {d}/scgi;\n\
         \x20   include {d}/khanate.conf;\n\
         }}\n",
        user = if as_root { "user root;\n" } else { "" },
    )
}

/// Two distinct free ports on `ip` (the kernel's choice, released for nginx to take).
fn free_ports(ip: Ipv4Addr) -> (SocketAddr, SocketAddr) {
    let bind = || {
        std::net::TcpListener::bind((ip, 0)).unwrap_or_else(|e| {
            panic!("cannot listen on {ip}: {e} (the tests use several loopback addresses)")
        })
    };
    let (a, b) = (bind(), bind());
    (a.local_addr().unwrap(), b.local_addr().unwrap())
}

/// A running nginx, stopped (and its directory removed) on drop.
pub struct Nginx {
    /// The shipped HTTPS server block, listening in plain HTTP.
    pub addr: SocketAddr,
    /// The shipped HTTP→HTTPS redirect block.
    pub redirect_addr: SocketAddr,
    /// The shipped file it runs (for messages).
    shipped: &'static str,
    binary: PathBuf,
    dir: PathBuf,
    child: Child,
}

impl Nginx {
    /// Starts nginx with `derive(shipped text, addr, redirect_addr)` as its configuration, made
    /// from the file at `shipped`, and waits until it accepts connections. Tries other ports when
    /// one was taken in the meantime.
    pub async fn start(
        shipped: &'static str,
        derive: impl Fn(&str, SocketAddr, SocketAddr) -> String,
    ) -> Nginx {
        let binary = nginx_binary();
        let text =
            fs::read_to_string(shipped).unwrap_or_else(|e| panic!("cannot read {shipped}: {e}"));
        let mut failures = Vec::new();
        for _attempt in 0..5 {
            let (addr, redirect_addr) = free_ports(NGINX_IP);
            let derived = derive(&text, addr, redirect_addr);
            let dir =
                std::env::temp_dir().join(format!("khanate-nginx-{}", Uuid::new_v4().simple()));
            fs::create_dir_all(&dir).expect("creates the nginx directory");
            fs::write(dir.join("khanate.conf"), derived).expect("writes khanate.conf");
            fs::write(dir.join("nginx.conf"), main_config(&dir)).expect("writes nginx.conf");
            let stderr = fs::File::create(dir.join("stderr.log")).expect("creates stderr.log");
            let child = Command::new(&binary)
                .args(Nginx::args(&dir))
                .args(["-g", "daemon off;"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
            let mut nginx = Nginx {
                addr,
                redirect_addr,
                shipped,
                binary: binary.clone(),
                dir,
                child,
            };
            match nginx.wait_until_listening().await {
                Ok(()) => return nginx,
                Err(logs) => {
                    drop(nginx);
                    if !logs.contains("Address already in use") {
                        panic!("nginx did not start:\n{logs}");
                    }
                    failures.push(logs);
                }
            }
        }
        panic!("nginx did not start, ports taken each time:\n{failures:#?}");
    }

    fn args(dir: &Path) -> Vec<String> {
        let d = dir.display();
        vec![
            "-p".into(),
            format!("{d}/"),
            "-c".into(),
            format!("{d}/nginx.conf"),
            "-e".into(),
            format!("{d}/error.log"),
        ]
    }

    /// Both server blocks accept connections; or nginx's logs when it exited or took too long.
    async fn wait_until_listening(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("nginx exited ({status})\n{}", self.logs()));
            }
            if TcpStream::connect(self.addr).await.is_ok()
                && TcpStream::connect(self.redirect_addr).await.is_ok()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "nginx not listening on {} after 10 s\n{}",
                    self.addr,
                    self.logs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Its standard error, error log and the configuration it ran, for failure messages.
    pub fn logs(&self) -> String {
        let read = |name: &str| fs::read_to_string(self.dir.join(name)).unwrap_or_default();
        format!(
            "--- stderr\n{}--- error.log\n{}--- khanate.conf (derived from {})\n{}",
            read("stderr.log"),
            read("error.log"),
            self.shipped,
            read("khanate.conf")
        )
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // A fast shutdown through the master, which takes its worker with it (a worker outlives a
        // master killed with SIGKILL); SIGKILL only if that did not work within 5 s.
        let _ = Command::new(&self.binary)
            .args(Nginx::args(&self.dir))
            .args(["-s", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("nginx's logs ({}):\n{}", self.dir.display(), self.logs());
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A stand-in upstream that records what reaches it: the head (request line and headers) of each
/// request, answering every one `200` `{}` and closing. For tests of what a proxy passes on.
pub struct Capture {
    pub addr: SocketAddr,
    heads: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Capture {
    /// Listens on 127.0.0.1 (a free port) until dropped.
    pub async fn start() -> Capture {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let addr = listener.local_addr().unwrap();
        let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = heads.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut tcp, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tcp.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    seen.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&head).into_owned());
                    let _ = tcp
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                              content-length: 2\r\nconnection: close\r\n\r\n{}",
                        )
                        .await;
                });
            }
        });
        Capture { addr, heads, task }
    }

    /// The heads received so far, in order.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Sends, through the nginx at `nginx` with `Host: host`, a GET, a POST and a WebSocket upgrade,
/// each carrying every header of `extra`: whether nginx answered each (a refused host gets no
/// answer at all).
pub async fn send_with_headers(nginx: SocketAddr, host: &str, extra: &[(&str, &str)]) -> Vec<bool> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut answered = Vec::new();
    for (method, path, upgrade) in [
        (reqwest::Method::GET, "/api/whoami", false),
        (reqwest::Method::POST, "/api/rooms/ABCDEF/join", false),
        (reqwest::Method::GET, "/ws?room=ABCDEF", true),
    ] {
        let mut request = client
            .request(method, format!("http://{nginx}{path}"))
            .header("host", host);
        if upgrade {
            request = request
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .header("sec-websocket-version", "13")
                .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==");
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        answered.push(request.send().await.is_ok());
    }
    answered
}

/// Through `nginx` (in front of `capture` alone): a client's peer headers, in any case, never
/// reach the upstream while the request itself does, with nginx's `X-Forwarded-For`; a request
/// naming a host other than the shipped `games.example.org` gets no answer and reaches nothing.
pub async fn assert_peer_headers_never_pass(nginx: &Nginx, capture: &Capture) {
    let forged = [
        ("X-Khanate-Cluster-Secret", "a guess at the cluster secret"),
        ("x-khanate-client", "9.9.9.9"),
        ("X-KHANATE-CLIENT", "8.8.8.8"),
        ("x-khanate-node", "00000000-0000-0000-0000-000000000001"),
    ];
    let answered = send_with_headers(nginx.addr, "games.example.org", &forged).await;
    assert_eq!(answered, [true; 3], "{}", nginx.logs());
    let heads = capture.heads();
    assert_eq!(heads.len(), 3, "{heads:#?}");
    for head in &heads {
        let head = head.to_ascii_lowercase();
        assert!(
            !head.contains("x-khanate-"),
            "a peer header passed:\n{head}"
        );
        assert!(
            !head.contains("9.9.9.9") && !head.contains("8.8.8.8"),
            "{head}"
        );
        assert!(head.contains("\r\nx-forwarded-for: "), "{head}");
    }
    let answered = send_with_headers(nginx.addr, "evil.example", &forged).await;
    assert_eq!(answered, [false; 3], "an unknown host is refused");
    assert_eq!(capture.heads().len(), 3, "nothing reached the upstream");
}
