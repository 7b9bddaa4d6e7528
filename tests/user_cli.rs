//! `khanate user ...`, the operators' commands, as the real binary against the database a running
//! server uses: list, show, disable (its sessions end, logins are refused), enable, and
//! reset-password (a printed password that logs in; every session ends, every API token is
//! revoked).

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::account::{Auth, api_token, credentials, register, whoami};
use support::server::sqlite_server_with;

/// Runs `khanate user --database-url URL ARGS`: (success, stdout, stderr).
fn user(url: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["user", "--database-url", url];
    all.extend(args);
    khanate(&all)
}

/// Runs `khanate ARGS` without `DATABASE_URL`: (success, stdout, stderr).
fn khanate(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_khanate"))
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A mistyped SQLite path is refused, saying where it looked, and no empty database is made
/// there (an operator would otherwise see "no account is named ..." for every name).
#[test]
fn a_sqlite_file_that_does_not_exist_is_refused_not_created() {
    let (file, url) = support::db::fresh_sqlite_url();
    let missing = file.path().to_path_buf();
    let (ok, out, err) = user(&url, &["list"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains(&format!("no database at {}", missing.display())),
        "{err}"
    );
    assert!(!missing.exists(), "an empty database was created");
}

/// A PostgreSQL nobody listens on is named, with the cause, not just "pool timed out".
#[test]
fn an_unreachable_postgres_is_named_with_its_cause() {
    let (ok, out, err) = user("postgres://nobody@127.0.0.1:1/khanate", &["list"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains("cannot reach the database at 127.0.0.1:1: ") && err.contains("refused"),
        "{err}"
    );
}

/// A PostgreSQL port that takes the connection and never answers (a frozen server) is named
/// too, after a bounded wait, instead of holding the command for ever.
#[test]
fn a_postgres_that_never_answers_is_named_not_waited_on() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let url = format!("postgres://nobody@127.0.0.1:{port}/khanate");
    let mut child = Command::new(env!("CARGO_BIN_EXE_khanate"))
        .args(["user", "--database-url", &url, "list"])
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let given_up_after = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > given_up_after {
            child.kill().unwrap();
            panic!("khanate user list still waits on a silent database after 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "cannot reach the database at 127.0.0.1:{port}: no answer"
        )),
        "{err}"
    );
}

/// A PostgreSQL that answers and refuses (here: no such database) is named with its own words,
/// not sqlx's "error returned from database: ... at line 948" (a line of PostgreSQL's source).
#[test]
fn a_database_that_does_not_exist_is_named_in_postgres_own_words() {
    let server = support::db::postgres_server_url();
    let url = support::db::with_database(&server, "khanate_no_such_database");
    let (ok, out, err) = user(&url, &["list"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains("cannot connect to the database at ")
            && err.ends_with(": database \"khanate_no_such_database\" does not exist\n"),
        "{err}"
    );
}

/// A PostgreSQL that answers every connection "the database system is starting up" (57P03,
/// which sqlx's pool retries until its acquire timeout) is named in its own words: it answered,
/// so not "cannot reach", and without sqlx's " at line N" (a line of PostgreSQL's source).
#[test]
fn a_postgres_still_starting_up_is_named_in_its_own_words() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            // Each message a client sends first: an Int32 length that counts itself, then the
            // body (SSLRequest, answered "N": no TLS; then the StartupMessage).
            let read_message = |stream: &mut std::net::TcpStream| {
                let mut len = [0u8; 4];
                stream.read_exact(&mut len).ok()?;
                let mut body = vec![0u8; u32::from_be_bytes(len) as usize - 4];
                stream.read_exact(&mut body).ok()?;
                Some(body)
            };
            let Some(first) = read_message(&mut stream) else {
                continue;
            };
            if first[..4] == [0x04, 0xd2, 0x16, 0x2f] {
                let _ = stream.write_all(b"N");
                if read_message(&mut stream).is_none() {
                    continue;
                }
            }
            let fields: &[u8] = b"SFATAL\0VFATAL\0C57P03\0Mthe database system is starting up\0Fpostmaster.c\0L948\0\0";
            let mut error = vec![b'E'];
            error.extend_from_slice(&(fields.len() as u32 + 4).to_be_bytes());
            error.extend_from_slice(fields);
            let _ = stream.write_all(&error);
        }
    });
    let url = format!("postgres://nobody@127.0.0.1:{port}/khanate");
    let (ok, out, err) = user(&url, &["list"]);
    assert!(!ok, "{out}");
    assert!(
        err.ends_with(&format!(
            "cannot connect to the database at 127.0.0.1:{port}: the database system is starting up\n"
        )),
        "{err}"
    );
}

#[tokio::test]
async fn operators_list_show_disable_enable_and_reset_passwords() {
    let ((_file, url), server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    register(server.addr, "sok").await;

    let (ok, out, _) = user(&url, &["list"]);
    assert!(ok);
    let names: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(names, ["Dara", "sok"]);
    let (ok, after, err) = khanate(&["user", "list", "--database-url", &url]);
    assert!(ok, "--database-url after the subcommand: {err}");
    assert_eq!(after, out, "the same database either way");
    let (ok, _, err) = khanate(&["user", "show", "--database-url", &url, "sok"]);
    assert!(ok, "{err}");
    assert!(out.lines().all(|l| l.ends_with("\tactive")), "{out}");
    let (_, shown, _) = user(&url, &["show", "DARA"]);
    assert!(
        shown.contains("name: Dara\n") && shown.contains("sessions: 1\n"),
        "{shown}"
    );

    let (ok, out, _) = user(&url, &["disable", "dara"]);
    assert!(ok);
    assert_eq!(out.trim(), "Dara disabled; 1 sessions ended");
    assert_eq!(whoami(server.addr, Auth::Cookie(&cookie)).await.status, 401);
    let refused = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!(refused.code(), "account_disabled");
    let (_, listed, _) = user(&url, &["list"]);
    assert!(
        listed.lines().next().unwrap().contains("\tdisabled since "),
        "{listed}"
    );

    let (ok, out, _) = user(&url, &["enable", "Dara"]);
    assert!(ok && out.trim() == "Dara enabled", "{out}");
    let session = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!(session.status, 200);
    let session = session.session_token();
    let token = api_token(server.addr, &session, &["read"]).await;
    assert_eq!(whoami(server.addr, Auth::Bearer(&token)).await.status, 200);

    let (ok, out, _) = user(&url, &["reset-password", "Dara"]);
    assert!(ok, "{out}");
    let password = out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("new password for Dara: "))
        .expect("the new password");
    assert_eq!(
        whoami(server.addr, Auth::Cookie(&session)).await.status,
        401
    );
    let revoked = whoami(server.addr, Auth::Bearer(&token)).await;
    assert_eq!(
        (revoked.status, revoked.code()),
        (401, "not_logged_in"),
        "a reset password revokes every API token: {out}"
    );
    let old = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!(old.code(), "bad_credentials");
    let new = credentials(server.addr, "login", "dara", password).await;
    assert_eq!(new.status, 200, "{}", new.body);

    let (ok, _, err) = user(&url, &["show", "nobody"]);
    assert!(!ok);
    assert!(err.contains("no account is named \"nobody\""), "{err}");
}
