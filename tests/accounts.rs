//! Accounts over HTTP against a real server, as an attacker would try them: the exact cookie,
//! what the database holds (an Argon2id hash, no plaintext secret), forged and altered cookies
//! and tokens, CSRF, token scopes, enumeration by answer and by timing, the per-account limit,
//! and the life of a session (logout, logout everywhere, password change, idle expiry, disable,
//! delete).

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use reqwest::Method;
use serde_json::{Value, json};
use support::account::{
    Answer, Auth, api_token, credentials, delete_as, get_as, post_as, register, send, whoami,
};
use support::server::{TestServer, sqlite_server_with};

fn origin(server: &TestServer) -> String {
    format!("http://{}", server.addr)
}

async fn post_with(
    server: &TestServer,
    path: &str,
    auth: Auth<'_>,
    origin: Option<&str>,
) -> Answer {
    send(server.addr, Method::POST, path, auth, origin, None).await
}

/// Every byte of the SQLite database (its file and its write-ahead log).
fn database_bytes(url: &str) -> Vec<u8> {
    let path = url.trim_start_matches("sqlite://");
    let mut bytes = std::fs::read(path).expect("the database file");
    if let Ok(wal) = std::fs::read(format!("{path}-wal")) {
        bytes.extend(wal);
    }
    bytes
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[tokio::test]
async fn register_sets_the_exact_cookie_and_the_database_keeps_only_hashes() {
    let ((_file, url), server) = sqlite_server_with(|_| {}).await;
    let answer = credentials(server.addr, "register", "Dara", "correct horse").await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.body["name"], "Dara");
    let token = answer.session_token();
    assert_eq!(token.len(), 64);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        answer.set_cookie(),
        format!("khanate_session={token}; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax")
    );
    let me = whoami(server.addr, Auth::Cookie(&token)).await;
    assert_eq!((me.status, &me.body["name"]), (200, &json!("Dara")));
    let api = api_token(server.addr, &token, &["read"]).await;
    assert!(api.starts_with("khn_") && api.len() == 68, "{api}");

    let user = server.store.user_by_name("dara").await.unwrap().unwrap();
    let hash = user.password_hash.unwrap();
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );
    server.shutdown().await;
    let bytes = database_bytes(&url);
    assert!(
        contains(&bytes, "$argon2id$"),
        "the hash is where this test looks"
    );
    for secret in [&token, &api, &"correct horse".to_owned()] {
        assert!(!contains(&bytes, secret), "{secret} is in the database");
    }
}

#[tokio::test]
async fn on_an_https_public_url_the_cookie_is_host_prefixed_and_secure() {
    let (_db, server) = sqlite_server_with(|config| {
        config.public_url = Some("https://games.example.org".into());
    })
    .await;
    let answer = credentials(server.addr, "register", "Dara", "correct horse").await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let token = answer.session_token();
    assert_eq!(
        answer.set_cookie(),
        format!(
            "__Host-khanate_session={token}; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax; \
             Secure"
        )
    );
    let plain = whoami(server.addr, Auth::Cookie(&token)).await;
    assert_eq!(
        plain.status, 401,
        "the plain cookie name is not this server's"
    );
    let response = reqwest::Client::new()
        .get(format!("http://{}/api/account", server.addr))
        .header("cookie", format!("__Host-khanate_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn forged_and_altered_cookies_and_tokens_are_refused() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    let token = api_token(server.addr, &cookie, &["read"]).await;
    assert_eq!(whoami(server.addr, Auth::Bearer(&token)).await.status, 200);
    let altered = |secret: &str| {
        let mut bytes = secret.as_bytes().to_vec();
        let last = bytes.len() - 1;
        bytes[last] = if bytes[last] == b'0' { b'1' } else { b'0' };
        String::from_utf8(bytes).unwrap()
    };
    let forged = "0".repeat(64);
    for (auth, what) in [
        (Auth::Cookie(&altered(&cookie)), "an altered cookie"),
        (Auth::Cookie(&forged), "a forged cookie"),
        (Auth::Cookie(""), "an empty cookie"),
        (Auth::None, "no credential"),
    ] {
        let answer = whoami(server.addr, auth).await;
        assert_eq!(
            (answer.status, answer.code()),
            (401, "not_logged_in"),
            "{what}"
        );
    }
    for bad in [altered(&token), format!("khn_{forged}"), cookie.clone()] {
        let answer = whoami(server.addr, Auth::Bearer(&bad)).await;
        assert_eq!(
            (answer.status, answer.code()),
            (401, "not_logged_in"),
            "{bad}"
        );
    }
    assert_eq!(whoami(server.addr, Auth::Cookie(&cookie)).await.status, 200);
}

#[tokio::test]
async fn a_cookie_request_from_a_foreign_origin_changes_nothing() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    let own = origin(&server);
    let foreign = Some("https://evil.example");
    for path in ["/api/account/logout", "/api/account/logout-everywhere"] {
        let answer = post_with(&server, path, Auth::Cookie(&cookie), foreign).await;
        assert_eq!(
            (answer.status, answer.code()),
            (403, "forbidden_origin"),
            "{path}"
        );
    }
    let body = json!({"description": "stolen", "scopes": ["play"]});
    let stolen = send(
        server.addr,
        Method::POST,
        "/api/account/tokens",
        Auth::Cookie(&cookie),
        foreign,
        Some(&body),
    )
    .await;
    assert_eq!(stolen.status, 403);
    let listed = get_as(server.addr, "/api/account/tokens", Auth::Cookie(&cookie)).await;
    assert_eq!(listed.body, json!({"tokens": []}));
    // A foreign page may not log a browser in either (login CSRF).
    let body = json!({"name": "Dara", "password": "Dara-secret-pw"});
    let login = send(
        server.addr,
        Method::POST,
        "/api/account/login",
        Auth::None,
        foreign,
        Some(&body),
    )
    .await;
    assert_eq!(login.code(), "forbidden_origin");
    assert_eq!(
        whoami(server.addr, Auth::Cookie(&cookie)).await.status,
        200,
        "still logged in"
    );
    let answer = post_with(
        &server,
        "/api/account/logout",
        Auth::Cookie(&cookie),
        Some(&own),
    )
    .await;
    assert_eq!(answer.status, 204, "{}", answer.body);
    assert_eq!(
        answer.set_cookie(),
        "khanate_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
    );
    assert_eq!(whoami(server.addr, Auth::Cookie(&cookie)).await.status, 401);
}

#[tokio::test]
async fn a_token_does_only_what_its_scopes_allow_and_never_manages_the_account() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    let read = api_token(server.addr, &cookie, &["read"]).await;
    let play = api_token(server.addr, &cookie, &["play"]).await;
    assert_eq!(whoami(server.addr, Auth::Bearer(&read)).await.status, 200);
    let answer = whoami(server.addr, Auth::Bearer(&play)).await;
    assert_eq!((answer.status, answer.code()), (403, "missing_scope"));
    let body = json!({"description": "more", "scopes": ["read", "play"]});
    let more = post_as(
        server.addr,
        "/api/account/tokens",
        Auth::Bearer(&read),
        &body,
    )
    .await;
    assert_eq!((more.status, more.code()), (403, "session_required"));
    let out = post_with(
        &server,
        "/api/account/logout-everywhere",
        Auth::Bearer(&read),
        None,
    )
    .await;
    assert_eq!(out.code(), "session_required");

    let listed = get_as(server.addr, "/api/account/tokens", Auth::Cookie(&cookie)).await;
    let tokens = listed.body["tokens"].as_array().unwrap().clone();
    assert_eq!(tokens.len(), 2);
    assert!(
        !listed.body.to_string().contains(&read[4..]),
        "tokens are shown once"
    );
    let read_id = tokens
        .iter()
        .find(|t| t["scopes"] == json!(["read"]))
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/account/tokens/{read_id}");
    let revoked = delete_as(server.addr, &path, Auth::Cookie(&cookie), None).await;
    assert_eq!(revoked.status, 204);
    assert_eq!(
        whoami(server.addr, Auth::Bearer(&read)).await.status,
        401,
        "revoked"
    );
    let again = delete_as(server.addr, &path, Auth::Cookie(&cookie), None).await;
    assert_eq!(again.code(), "not_found");
    for scopes in [json!([]), json!(["admin"]), json!(["read", "read"])] {
        let body = json!({"description": "x", "scopes": scopes});
        let bad = post_as(
            server.addr,
            "/api/account/tokens",
            Auth::Cookie(&cookie),
            &body,
        )
        .await;
        assert_eq!(bad.code(), "bad_request", "{scopes}");
    }
}

#[tokio::test]
async fn registering_refuses_bad_names_taken_names_and_bad_passwords() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    register(server.addr, "Dara").await;
    for (name, password, status, code) in [
        ("dARA", "another pw 1", 409, "name_taken"),
        ("d", "another pw 1", 400, "bad_name"),
        ("Dara Sok", "another pw 1", 400, "bad_name"),
        ("Admin", "another pw 1", 400, "bad_name"),
        ("Sok", "short", 400, "bad_password"),
        ("Sok", "sok", 400, "bad_password"),
        ("Sokheng1", "SOKHENG1", 400, "bad_password"),
        ("Sok", "password123", 400, "bad_password"),
    ] {
        let answer = credentials(server.addr, "register", name, password).await;
        assert_eq!(
            (answer.status, answer.code()),
            (status, code),
            "{name} {password}"
        );
        assert!(answer.headers.get("set-cookie").is_none());
    }
    assert_eq!(server.store.users().await.unwrap().len(), 1);
}

/// A wrong-password login's body.
async fn failed_login(server: &TestServer, name: &str) -> Value {
    let answer = credentials(server.addr, "login", name, "wrong password").await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    answer.body
}

#[tokio::test]
async fn the_eleventh_failed_login_in_fifteen_minutes_is_rate_limited_for_any_name() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    register(server.addr, "Dara").await;
    for name in ["Dara", "Nobody"] {
        for _ in 0..10 {
            failed_login(&server, name).await;
        }
        let answer = credentials(server.addr, "login", name, "wrong password").await;
        assert_eq!(
            (answer.status, answer.code()),
            (429, "rate_limited"),
            "{name}"
        );
        let retry = answer.body["error"]["retry_after"].as_u64().unwrap();
        assert!((800..=900).contains(&retry), "{retry}");
        assert_eq!(
            answer.headers["retry-after"].to_str().unwrap(),
            retry.to_string()
        );
    }
    let right = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!(
        right.code(),
        "rate_limited",
        "even the right password waits"
    );
}

#[tokio::test]
async fn logout_everywhere_and_a_password_change_end_the_other_sessions_and_every_token() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let first = register(server.addr, "Dara").await;
    let login = || credentials(server.addr, "login", "DARA", "Dara-secret-pw");
    let second = login().await.session_token();
    let third = login().await.session_token();
    let token = api_token(server.addr, &first, &["read"]).await;
    assert_eq!(whoami(server.addr, Auth::Bearer(&token)).await.status, 200);
    let body = json!({"old": "Dara-secret-pw", "new": "a new secret"});
    let changed = post_as(
        server.addr,
        "/api/account/password",
        Auth::Cookie(&second),
        &body,
    )
    .await;
    assert_eq!(changed.status, 204, "{}", changed.body);
    assert_eq!(whoami(server.addr, Auth::Cookie(&first)).await.status, 401);
    assert_eq!(whoami(server.addr, Auth::Cookie(&third)).await.status, 401);
    assert_eq!(whoami(server.addr, Auth::Cookie(&second)).await.status, 200);
    let revoked = whoami(server.addr, Auth::Bearer(&token)).await;
    assert_eq!(
        (revoked.status, revoked.code()),
        (401, "not_logged_in"),
        "a password change revokes every API token"
    );
    let rows = server.store.user_by_name("dara").await.unwrap().unwrap();
    assert!(
        server
            .store
            .api_tokens_of(rows.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(login().await.code(), "bad_credentials", "the old password");
    let wrong = post_as(
        server.addr,
        "/api/account/password",
        Auth::Cookie(&second),
        &body,
    )
    .await;
    assert_eq!(
        wrong.code(),
        "bad_credentials",
        "the old password is checked"
    );

    let fourth = credentials(server.addr, "login", "dara", "a new secret")
        .await
        .session_token();
    let sessions = get_as(server.addr, "/api/account/sessions", Auth::Cookie(&fourth)).await;
    let list = sessions.body["sessions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list.iter().filter(|s| s["current"] == true).count(), 1);
    let kept = api_token(server.addr, &fourth, &["read"]).await;
    let out = post_with(
        &server,
        "/api/account/logout-everywhere",
        Auth::Cookie(&fourth),
        None,
    )
    .await;
    assert_eq!(out.status, 204);
    for token in [&second, &fourth] {
        assert_eq!(whoami(server.addr, Auth::Cookie(token)).await.status, 401);
    }
    assert_eq!(
        whoami(server.addr, Auth::Bearer(&kept)).await.status,
        200,
        "logging out everywhere ends sessions only, as docs/protocol.md says"
    );
}

#[tokio::test]
async fn a_session_unused_for_thirty_days_has_ended() {
    let clock = Clock::manual();
    let server_clock = clock.clone();
    let (_db, server) = sqlite_server_with(move |config| config.clock = server_clock).await;
    let used = register(server.addr, "Dara").await;
    let idle = credentials(server.addr, "login", "dara", "Dara-secret-pw")
        .await
        .session_token();
    clock.advance(Duration::from_secs(29 * 24 * 3600));
    assert_eq!(whoami(server.addr, Auth::Cookie(&used)).await.status, 200);
    clock.advance(Duration::from_secs(24 * 3600 + 1));
    assert_eq!(
        whoami(server.addr, Auth::Cookie(&idle)).await.status,
        401,
        "30 days unused"
    );
    assert_eq!(
        whoami(server.addr, Auth::Cookie(&used)).await.status,
        200,
        "used a day ago"
    );
}

#[tokio::test]
async fn a_disabled_account_cannot_log_in_and_its_sessions_end() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    let user = server.store.user_by_name("dara").await.unwrap().unwrap();
    let now = khanate::store::now();
    assert!(server.store.set_disabled(user.id, Some(now)).await.unwrap());
    assert_eq!(whoami(server.addr, Auth::Cookie(&cookie)).await.status, 401);
    let login = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!((login.status, login.code()), (403, "account_disabled"));
    let wrong = credentials(server.addr, "login", "dara", "not the password").await;
    assert_eq!(
        wrong.code(),
        "bad_credentials",
        "only the right password learns it"
    );
}

#[tokio::test]
async fn a_deleted_account_asks_the_password_and_leaves_a_name_nobody_can_take() {
    let (_db, server) = sqlite_server_with(|_| {}).await;
    let cookie = register(server.addr, "Dara").await;
    let token = api_token(server.addr, &cookie, &["read"]).await;
    let wrong = json!({"password": "not it"});
    let refused = delete_as(
        server.addr,
        "/api/account",
        Auth::Cookie(&cookie),
        Some(&wrong),
    )
    .await;
    assert_eq!(refused.code(), "bad_credentials");
    let right = json!({"password": "Dara-secret-pw"});
    let deleted = delete_as(
        server.addr,
        "/api/account",
        Auth::Cookie(&cookie),
        Some(&right),
    )
    .await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    assert_eq!(whoami(server.addr, Auth::Cookie(&cookie)).await.status, 401);
    assert_eq!(whoami(server.addr, Auth::Bearer(&token)).await.status, 401);
    let login = credentials(server.addr, "login", "dara", "Dara-secret-pw").await;
    assert_eq!(login.code(), "bad_credentials");
    let again = credentials(server.addr, "register", "dara", "Dara-secret-pw").await;
    assert_eq!(again.code(), "name_taken");
    let stone = server.store.user_by_name("dara").await.unwrap().unwrap();
    assert!(stone.deleted_at.is_some() && stone.password_hash.is_none());
}
