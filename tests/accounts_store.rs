//! The store's accounts (migration 0010) on both backends: users, sessions, API tokens, the
//! tombstone of a deleted account and the failed logins of the per-account limit.

#[macro_use]
mod support;

use chrono::{DateTime, Duration, TimeZone, Utc};
use khanate::store::{ApiTokenRow, SessionRow, Store, UserRow};
use uuid::Uuid;

on_both_backends!(store:
    names_are_unique_ignoring_case_and_keep_their_case,
    a_session_is_found_by_its_hash_until_it_idles_out,
    a_password_change_ends_every_other_session_and_revokes_every_token,
    disabling_ends_the_sessions_and_refuses_the_tokens,
    api_tokens_are_found_by_hash_listed_and_revoked_by_their_owner_only,
    a_deleted_account_is_a_tombstone_that_keeps_its_name,
    failed_logins_are_counted_per_name_in_a_window,
);

fn at(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0)
        .single()
        .unwrap()
        + Duration::seconds(secs)
}

fn user(name: &str) -> UserRow {
    UserRow {
        id: Uuid::new_v4(),
        name: name.to_owned(),
        password_hash: Some(format!("$argon2id$v=19$m=19456,t=2,p=1$salt${name}")),
        created_at: at(0),
        disabled_at: None,
        deleted_at: None,
    }
}

fn hash(seed: u8) -> [u8; 32] {
    [seed; 32]
}

fn session(user: &UserRow, seed: u8, last_used: DateTime<Utc>) -> SessionRow {
    SessionRow {
        id: Uuid::new_v4(),
        token_hash: hash(seed),
        user_id: user.id,
        created_at: at(0),
        last_used_at: last_used,
        user_agent: Some("test/1.0".to_owned()),
    }
}

fn token(user: &UserRow, seed: u8, scopes: &[&str]) -> ApiTokenRow {
    ApiTokenRow {
        id: Uuid::new_v4(),
        token_hash: hash(seed),
        user_id: user.id,
        description: format!("token {seed}"),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        created_at: at(i64::from(seed)),
        last_used_at: None,
    }
}

/// Gives `user` a session (hash 1, used at 10) and an API token of `scopes` (hash 2).
async fn signed_in(store: &Store, user: &UserRow, scopes: &[&str]) {
    let s = session(user, 1, at(10));
    store.insert_session(&s).await.unwrap();
    store
        .insert_api_token(&token(user, 2, scopes))
        .await
        .unwrap();
}

async fn registered(store: &Store, name: &str) -> UserRow {
    let u = user(name);
    store.create_user(&u).await.expect("a new name");
    u
}

async fn names_are_unique_ignoring_case_and_keep_their_case(store: Store) {
    let dara = registered(&store, "Dara").await;
    let again = store
        .create_user(&user("dARA"))
        .await
        .expect_err("the same name");
    assert!(again.is_unique_violation(), "{again}");
    assert_eq!(
        store.user_by_name("DARA").await.unwrap(),
        Some(dara.clone())
    );
    assert_eq!(store.user_by_id(dara.id).await.unwrap(), Some(dara.clone()));
    assert_eq!(store.user_by_name("sok").await.unwrap(), None);
    let sok = registered(&store, "sok").await;
    let names: Vec<String> = store
        .users()
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(names, ["Dara", "sok"]);
    assert!(sok.active());
}

async fn a_session_is_found_by_its_hash_until_it_idles_out(store: Store) {
    let dara = registered(&store, "Dara").await;
    let s = session(&dara, 1, at(10));
    store.insert_session(&s).await.unwrap();
    let (found, owner) = store
        .use_session(&hash(1), at(5), at(20))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(owner, dara);
    assert_eq!(
        found,
        SessionRow {
            last_used_at: at(20),
            ..s.clone()
        }
    );
    assert_eq!(
        store.use_session(&hash(2), at(5), at(20)).await.unwrap(),
        None,
        "another hash"
    );
    // Unused since 20, asked with an idle limit of 21: ended, and gone from the table.
    assert_eq!(
        store.use_session(&hash(1), at(21), at(30)).await.unwrap(),
        None
    );
    assert_eq!(store.sessions_of(dara.id).await.unwrap(), []);
    store
        .insert_session(&session(&dara, 3, at(40)))
        .await
        .unwrap();
    assert!(store.delete_session(&hash(3)).await.unwrap());
    assert!(
        !store.delete_session(&hash(3)).await.unwrap(),
        "already ended"
    );
}

async fn a_password_change_ends_every_other_session_and_revokes_every_token(store: Store) {
    let dara = registered(&store, "Dara").await;
    let sok = registered(&store, "Sok").await;
    for seed in 1..=3 {
        store
            .insert_session(&session(&dara, seed, at(i64::from(seed))))
            .await
            .unwrap();
    }
    for t in [token(&dara, 10, &["read"]), token(&sok, 11, &["read"])] {
        store.insert_api_token(&t).await.unwrap();
    }
    assert!(
        store
            .set_password(dara.id, "$argon2id$new", Some(&hash(2)))
            .await
            .unwrap()
    );
    let left: Vec<[u8; 32]> = store
        .sessions_of(dara.id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.token_hash)
        .collect();
    assert_eq!(left, [hash(2)]);
    let stored = store.user_by_id(dara.id).await.unwrap().unwrap();
    assert_eq!(stored.password_hash.as_deref(), Some("$argon2id$new"));
    assert_eq!(store.api_tokens_of(dara.id).await.unwrap(), []);
    assert!(
        store
            .use_api_token(&hash(10), at(50))
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store.api_tokens_of(sok.id).await.unwrap().len(),
        1,
        "another account's token stays"
    );
    store
        .insert_api_token(&token(&dara, 12, &["play"]))
        .await
        .unwrap();
    assert!(
        store
            .set_password(dara.id, "$argon2id$reset", None)
            .await
            .unwrap()
    );
    assert_eq!(
        store.sessions_of(dara.id).await.unwrap(),
        [],
        "an operator's reset ends all"
    );
    assert_eq!(
        store.api_tokens_of(dara.id).await.unwrap(),
        [],
        "and revokes every token"
    );
    assert!(
        !store
            .set_password(Uuid::new_v4(), "$argon2id$x", None)
            .await
            .unwrap()
    );
}

async fn disabling_ends_the_sessions_and_refuses_the_tokens(store: Store) {
    let dara = registered(&store, "Dara").await;
    signed_in(&store, &dara, &["read"]).await;
    assert!(store.set_disabled(dara.id, Some(at(11))).await.unwrap());
    assert_eq!(store.sessions_of(dara.id).await.unwrap(), []);
    assert_eq!(store.use_api_token(&hash(2), at(12)).await.unwrap(), None);
    let stored = store.user_by_id(dara.id).await.unwrap().unwrap();
    assert_eq!(stored.disabled_at, Some(at(11)));
    assert!(!stored.active());
    assert!(store.set_disabled(dara.id, None).await.unwrap());
    assert!(
        store
            .use_api_token(&hash(2), at(13))
            .await
            .unwrap()
            .is_some(),
        "enabled again"
    );
    assert!(!store.set_disabled(Uuid::new_v4(), None).await.unwrap());
}

async fn api_tokens_are_found_by_hash_listed_and_revoked_by_their_owner_only(store: Store) {
    let dara = registered(&store, "Dara").await;
    let sok = registered(&store, "Sok").await;
    let read = token(&dara, 1, &["read"]);
    let play = token(&dara, 2, &["read", "play"]);
    store.insert_api_token(&read).await.unwrap();
    store.insert_api_token(&play).await.unwrap();
    let (found, owner) = store
        .use_api_token(&hash(2), at(50))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(owner.id, dara.id);
    assert_eq!(
        found,
        ApiTokenRow {
            last_used_at: Some(at(50)),
            ..play.clone()
        }
    );
    let listed = store.api_tokens_of(dara.id).await.unwrap();
    assert_eq!(listed, [found.clone(), read.clone()], "newest first");
    assert!(
        !store.delete_api_token(sok.id, read.id).await.unwrap(),
        "not Sok's"
    );
    assert!(store.delete_api_token(dara.id, read.id).await.unwrap());
    assert_eq!(
        store.use_api_token(&hash(1), at(51)).await.unwrap(),
        None,
        "revoked"
    );
}

async fn a_deleted_account_is_a_tombstone_that_keeps_its_name(store: Store) {
    let dara = registered(&store, "Dara").await;
    signed_in(&store, &dara, &["play"]).await;
    assert!(store.delete_user(dara.id, at(20)).await.unwrap());
    assert!(
        !store.delete_user(dara.id, at(21)).await.unwrap(),
        "deleted once"
    );
    let stone = store.user_by_id(dara.id).await.unwrap().unwrap();
    assert_eq!(
        (stone.password_hash, stone.deleted_at),
        (None, Some(at(20)))
    );
    assert_eq!(stone.name, "Dara");
    assert_eq!(store.sessions_of(dara.id).await.unwrap(), []);
    assert_eq!(store.api_tokens_of(dara.id).await.unwrap(), []);
    assert!(
        store
            .create_user(&user("dara"))
            .await
            .unwrap_err()
            .is_unique_violation()
    );
    assert!(
        !store
            .set_password(dara.id, "$argon2id$back", None)
            .await
            .unwrap()
    );
}

async fn failed_logins_are_counted_per_name_in_a_window(store: Store) {
    for secs in [0, 10, 20] {
        store
            .record_login_failure("dara", at(secs), at(-900))
            .await
            .unwrap();
    }
    store
        .record_login_failure("sok", at(5), at(-900))
        .await
        .unwrap();
    assert_eq!(
        store.login_failures_since("dara", at(0)).await.unwrap(),
        (3, Some(at(0)))
    );
    assert_eq!(
        store.login_failures_since("dara", at(15)).await.unwrap(),
        (1, Some(at(20)))
    );
    // A failure at 1000 forgets those before 100.
    store
        .record_login_failure("dara", at(1000), at(100))
        .await
        .unwrap();
    assert_eq!(
        store.login_failures_since("dara", at(-1)).await.unwrap(),
        (1, Some(at(1000)))
    );
    store.clear_login_failures("dara").await.unwrap();
    assert_eq!(
        store.login_failures_since("dara", at(-1)).await.unwrap(),
        (0, None)
    );
    assert_eq!(
        store.login_failures_since("sok", at(-1)).await.unwrap(),
        (1, Some(at(5)))
    );
}
