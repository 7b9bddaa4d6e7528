//! Enumeration by timing: a wrong password for an existing account and any password for a name no
//! account has take the same work (a dummy Argon2id hash is verified), so their median times over
//! 50 tries each lie within 20 % of each other. In a file of its own, so no other test of the
//! same process competes for the cores while it measures.

mod support;

use std::time::{Duration, Instant};

use serde_json::Value;
use support::account::{credentials, register};
use support::server::{TestServer, sqlite_server_with};

/// The body of a wrong-password login, and how long it took.
async fn failed_login(server: &TestServer, name: &str) -> (Value, Duration) {
    let started = Instant::now();
    let answer = credentials(server.addr, "login", name, "wrong password").await;
    let took = started.elapsed();
    assert_eq!(answer.status, 401, "{}", answer.body);
    (answer.body, took)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[tokio::test]
async fn wrong_passwords_for_existing_and_missing_users_answer_alike_in_body_and_time() {
    let (_db, server) = sqlite_server_with(|config| {
        config.limits.login_failures_per_account = 1_000;
    })
    .await;
    register(server.addr, "Dara").await;
    let (mut existing, mut missing) = (Vec::new(), Vec::new());
    // Interleaved, so a slower moment of this shared machine weighs on both alike.
    for _ in 0..50 {
        let (body, took) = failed_login(&server, "Dara").await;
        existing.push(took);
        let (missing_body, missing_took) = failed_login(&server, "Nobody").await;
        missing.push(missing_took);
        assert_eq!(body, missing_body);
        assert_eq!(body["error"]["code"], "bad_credentials");
    }
    let (existing, missing) = (median(existing), median(missing));
    let ratio = existing.as_secs_f64() / missing.as_secs_f64();
    assert!(
        (0.8..=1.2).contains(&ratio),
        "medians: existing {existing:?}, missing {missing:?}"
    );
}
