//! The web client end to end: every `tests/browser/*.test.mjs`, run by Node's test runner
//! (`node --test`) in headless Chromium (playwright-core driving `/usr/bin/chromium`) against this
//! build's server binary.
//!
//! Needs Node.js 20 or newer with npm, and Chromium (Debian/Ubuntu: `apt-get install chromium`;
//! `.ci/run` does it). Without them this test fails saying so; it is never skipped.
//! `npm ci` runs first when `tests/browser/node_modules` is missing or older than the lockfile.
//!
//! Each test file runs in a `node --test` of its own, one after the other, with a fresh PostgreSQL
//! database (dropped afterwards) shared by the servers that file starts:
//! - `KHANATE_BIN`: the server binary cargo built for this test;
//! - `KHANATE_TEST_DATABASE_URL`: the fresh database;
//! - `KHANATE_ARTIFACTS`: `target/browser-artifacts`, where screenshots and logs go (node's output
//!   for `x.test.mjs` in `logs/x.node.log`, each server's log in `logs/<name>.server.log`).
//!
//! `KHANATE_BROWSER_TESTS=khan` runs only the files whose names contain `khan`;
//! `KHANATE_BROWSER_TESTS=accounts,profile` those containing either.
//! `tests/js/*.test.mjs` (client modules without a browser: the room-state reducer, the socket's
//! failover on a fake WebSocket) run with
//! plain `node --test`, no browser and no server, in a test of their own; and TypeScript's checker
//! reads every module of `web/js` over its JSDoc types (`tests/browser/tsconfig.json`: `allowJs`,
//! `checkJs`, `strict`, `noEmit`), in a third, and refuses a module with type errors in a fourth.
//! By hand, without this wrapper: `cargo build && cd tests/browser && npm ci && node --test`
//! (the servers then use a fresh SQLite file each).

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// How long one test inside a file may take (node's `--test-timeout`).
const TEST_TIMEOUT: Duration = Duration::from_secs(180);
/// How long one file may take before its `node` is killed: a last resort for a hung hook.
const FILE_TIMEOUT: Duration = Duration::from_secs(600);

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

/// `<target>/browser-artifacts`, next to the `debug` directory holding the binary.
fn artifacts_dir() -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_khanate"));
    let target = binary
        .parent()
        .and_then(Path::parent)
        .expect("the binary is in <target>/<profile>/");
    target.join("browser-artifacts")
}

/// Panics unless `node` is version 20 or newer.
fn check_node() {
    let output = Command::new("node")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `node` ({e}): the browser tests need Node.js 20 or newer with npm \
             (https://nodejs.org, or your system's nodejs package)"
            )
        });
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse().ok())
        .unwrap_or(0);
    assert!(
        major >= 20,
        "the browser tests need Node.js 20 or newer; `node --version` says {version:?}"
    );
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Runs `npm ci` when `node_modules` is missing or older than `package-lock.json` (npm rewrites
/// `node_modules/.package-lock.json` on every install); one test at a time (two `npm ci` in one
/// directory at once would tread on each other).
fn install_node_modules(dir: &Path) {
    static INSTALLING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let installed = modified(&dir.join("node_modules/.package-lock.json"));
    let locked = modified(&dir.join("package-lock.json")).expect("tests/browser/package-lock.json");
    if installed.is_some_and(|installed| installed >= locked) {
        return;
    }
    let output = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `npm` ({e}) to install the browser tests' packages: install npm \
                 (it comes with Node.js; Debian/Ubuntu: apt-get install npm)"
            )
        });
    assert!(
        output.status.success(),
        "`npm ci` in {} failed:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `*.test.mjs` files of `dir` whose names contain one of the comma-separated parts of
/// `KHANATE_BROWSER_TESTS` (all when unset or empty), sorted.
fn test_files(dir: &Path) -> Vec<String> {
    let filter = std::env::var("KHANATE_BROWSER_TESTS").unwrap_or_default();
    let parts: Vec<&str> = filter.split(',').map(str::trim).collect();
    let mut files: Vec<String> = fs::read_dir(dir)
        .expect("tests/browser is readable")
        .map(|entry| entry.expect("a directory entry").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".test.mjs") && parts.iter().any(|p| name.contains(p)))
        .collect();
    files.sort();
    files
}

/// How many tests of `file` the spec reporter's `output` marks passed (`✔ name (12ms)`): a file
/// without any is reported as one test named by its path, which is not counted.
fn tests_passed(output: &str, file: &str) -> usize {
    output
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix('✔'))
        .filter(|name| !name.contains(file))
        .count()
}

/// Runs `node --test file` with the database at `database_url`; its output (stdout and stderr
/// together) goes to `log`. Returns why it failed, if it did.
fn run_node(dir: &Path, file: &str, database_url: &str, log: &Path) -> Result<(), String> {
    let out =
        fs::File::create(log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
    let mut child = Command::new("node")
        .args([
            "--test",
            "--test-reporter=spec",
            &format!("--test-timeout={}", TEST_TIMEOUT.as_millis()),
            file,
        ])
        .current_dir(dir)
        .env("KHANATE_BIN", env!("CARGO_BIN_EXE_khanate"))
        .env("KHANATE_TEST_DATABASE_URL", database_url)
        .env("KHANATE_ARTIFACTS", artifacts_dir())
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("the log file"))
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node: {e}"));
    let deadline = Instant::now() + FILE_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("wait for node") {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("node {status}"))
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("node killed after {} s", FILE_TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[tokio::test]
async fn the_web_client_works_in_chromium() {
    let dir = browser_dir();
    check_node();
    install_node_modules(&dir);
    let logs = artifacts_dir().join("logs");
    fs::create_dir_all(&logs).expect("create target/browser-artifacts/logs");

    let files = test_files(&dir);
    assert!(!files.is_empty(), "no *.test.mjs in {}", dir.display());
    let mut failures = Vec::new();
    for file in files {
        let database = support::db::fresh_postgres().await;
        let log = logs.join(file.replace(".test.mjs", ".node.log"));
        let started = Instant::now();
        let outcome = {
            let (dir, file, url, log) =
                (dir.clone(), file.clone(), database.url.clone(), log.clone());
            tokio::task::spawn_blocking(move || run_node(&dir, &file, &url, &log))
                .await
                .expect("node runs")
        };
        let output = fs::read_to_string(&log).unwrap_or_default();
        println!("{output}");
        let took = started.elapsed().as_secs_f64();
        // A file that registers no test exits 0 too (node then reports the file as one test).
        let outcome = outcome.and_then(|()| match tests_passed(&output, &file) {
            0 => Err("no test ran".to_owned()),
            _ => Ok(()),
        });
        match outcome {
            Ok(()) => println!("{file}: passed in {took:.1} s"),
            Err(why) => {
                println!("{file}: FAILED in {took:.1} s ({why})");
                failures.push(format!("{file}: {why} (log: {}):\n{output}", log.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// TypeScript's checker (`tsc -p <config>`, run in `tests/browser`), its output.
fn tsc(dir: &Path, config: &Path) -> std::process::Output {
    Command::new(dir.join("node_modules/.bin/tsc"))
        .arg("-p")
        .arg(config)
        .args(["--pretty", "false"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run tests/browser/node_modules/.bin/tsc: {e}"))
}

/// Every module of `web/js` passes TypeScript's checker over its JSDoc types (`tsc -p
/// tests/browser/tsconfig.json`: `allowJs`, `checkJs`, `strict`, `noEmit`; `typescript` is a dev
/// dependency of the browser tests). Fails with the checker's errors.
#[test]
fn the_web_client_type_checks() {
    check_node();
    let dir = browser_dir();
    install_node_modules(&dir);
    let output = tsc(&dir, Path::new("tsconfig.json"));
    assert!(
        output.status.success(),
        "tsc -p tests/browser/tsconfig.json found type errors in web/js:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The check above can fail: the same configuration over `web/js` and one more module that
/// calls a `web/js` function with an argument of the wrong type (a string for a button) and
/// reads a property no `Offer` has is refused, naming both errors, while `web/js` alone passes.
#[test]
fn the_type_check_refuses_a_type_error() {
    check_node();
    let dir = browser_dir();
    install_node_modules(&dir);
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/js");
    let tmp = std::env::temp_dir().join(format!("khanate-tsc-{}", std::process::id()));
    fs::create_dir_all(&tmp).expect("a temp dir");
    let broken = tmp.join("broken.js");
    fs::write(
        &broken,
        format!(
            "import {{ showAccept }} from '{}';\n\
             /** @param {{import('{}').Offer}} offer */\n\
             export function wrong(offer) {{\n  showAccept('#accept-draw', null);\n  return offer.colour;\n}}\n",
            web.join("room/view/accept.js").display(),
            web.join("room/state.js").display(),
        ),
    )
    .expect("broken.js");
    let config = tmp.join("tsconfig.json");
    let config_text = serde_json::json!({
        "extends": dir.join("tsconfig.json"),
        "include": [web.join("**/*.js"), web.join("**/*.d.ts"), &broken],
    });
    fs::write(&config, config_text.to_string()).expect("tsconfig.json");
    let output = tsc(&dir, &config);
    fs::remove_dir_all(&tmp).expect("the temp dir removed");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "tsc passed a type error:\n{text}");
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("error TS")).collect();
    assert_eq!(errors.len(), 2, "{text}");
    assert!(errors.iter().all(|l| l.contains("broken.js")), "{text}");
    assert!(
        errors[0].contains("error TS2345"),
        "a string for a button: {text}"
    );
    assert!(
        errors[1].contains("error TS2339"),
        "no such property: {text}"
    );
}

/// `tests/js`: the client's modules that need no browser (the room-state reducer
/// web/js/room/state.js; web/js/socket.js's failover on a fake WebSocket), by `node --test`.
#[test]
fn the_client_modules_pass_their_node_tests() {
    check_node();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/js is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    let output = Command::new("node")
        .args(["--test", "--test-reporter=spec"])
        .args(&files)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run node: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{text}");
    assert!(
        output.status.success(),
        "node --test tests/js failed:\n{text}"
    );
    assert!(
        tests_passed(&text, "tests/js") > 0,
        "no test ran in tests/js:\n{text}"
    );
}
