//! Challenges and the site channel against a real server, on SQLite and PostgreSQL: a challenge
//! reaches the challenged player's open pages at once (and a page opened later reads it from the
//! table), its acceptance makes the room and starts the game for both, a declined, cancelled or
//! expired one (the server's manual clock moved past ten minutes) cannot be accepted, the typed
//! refusals, and "your turn" for an account whose seat a move puts on move.

#[macro_use]
mod support;

use std::time::Duration;

use khanate::clock::Clock;
use serde_json::{Value, json};
use support::account::{Auth, get_as, hello_as, post_as};
use support::backends::{Backend, server_on};
use support::pairing::{Player, player, seated, site};
use support::server::TestServer;

on_both_backends!(backend:
    an_accepted_challenge_starts_the_game_for_both_and_moves_tell_your_turn,
    declined_cancelled_and_expired_challenges_cannot_be_accepted,
    challenges_refuse_what_they_must,
);

/// `POST /api/challenges` by `from` to `to` with `extra` fields: (status, body).
async fn challenge(server: &TestServer, from: &Player, to: &str, extra: Value) -> (u16, Value) {
    let mut body =
        json!({"to": to, "game": "ouk-chatrang", "clock": {"initial_s": 300, "increment_s": 3}});
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    let answer = post_as(
        server.addr,
        "/api/challenges",
        Auth::Cookie(&from.cookie),
        &body,
    )
    .await;
    (answer.status, answer.body)
}

/// `POST /api/challenges/{id}/{action}` as `by`: (status, error code or "").
async fn act(server: &TestServer, by: &Player, id: &Value, action: &str) -> (u16, Value) {
    let path = format!("/api/challenges/{}/{action}", id.as_str().unwrap());
    let answer = post_as(server.addr, &path, Auth::Cookie(&by.cookie), &json!({})).await;
    (answer.status, answer.body)
}

fn code(answer: &(u16, Value)) -> (u16, &str) {
    (answer.0, answer.1["error"]["code"].as_str().unwrap_or(""))
}

async fn an_accepted_challenge_starts_the_game_for_both_and_moves_tell_your_turn(backend: Backend) {
    let clock = Clock::manual();
    let (server, _db) = server_on(backend, |config| config.clock = clock.clone()).await;
    let dara = player(&server.store, "Dara").await;
    let sok = player(&server.store, "Sok").await;
    let (mut dara_page, welcome) = site(server.addr, &dara.cookie).await;
    assert_eq!(welcome["d"], json!({"user": "Dara", "challenges": []}));
    let (mut sok_page, _) = site(server.addr, &sok.cookie).await;

    let (status, made) = challenge(
        &server,
        &dara,
        "sok",
        json!({"color": "white", "rated": true}),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(
        (
            &made["from"],
            &made["to"],
            &made["color"],
            &made["rated"],
            &made["seats"]
        ),
        (
            &json!("Dara"),
            &json!("Sok"),
            &json!("white"),
            &json!(true),
            &json!(2)
        )
    );
    // Both players' open pages are told at once; a page opened later reads it in its welcome.
    for page in [&mut sok_page, &mut dara_page] {
        let told = page.next_of("challenge").await;
        assert_eq!(told["d"], made, "{told}");
    }
    let (_late, late_welcome) = site(server.addr, &sok.cookie).await;
    assert_eq!(late_welcome["d"]["challenges"], json!([made.clone()]));
    let listed = get_as(server.addr, "/api/challenges", Auth::Cookie(&sok.cookie)).await;
    assert_eq!(
        listed.body,
        json!({"incoming": [made.clone()], "outgoing": []})
    );
    let listed = get_as(server.addr, "/api/challenges", Auth::Cookie(&dara.cookie)).await;
    assert_eq!(
        listed.body,
        json!({"incoming": [], "outgoing": [made.clone()]})
    );

    let (status, accepted) = act(&server, &sok, &made["id"], "accept").await;
    assert_eq!(status, 200, "{accepted}");
    assert_eq!(
        (&accepted["seat"], &accepted["color"]),
        (&json!(1), &json!("black"))
    );
    assert_eq!(accepted["seat_token"].as_str().map(str::len), Some(32));
    let room = accepted["room_id"].as_str().unwrap().to_owned();
    assert_eq!(
        seated(&server.store, &room).await,
        [Some(dara.id), Some(sok.id)]
    );
    // Dara's page learns the game began, with Dara's seat.
    let gone = dara_page.next_of("challenge_gone").await;
    assert_eq!(gone["d"], json!({"id": made["id"], "reason": "accepted"}));
    let start = dara_page.next_of("game_start").await;
    assert_eq!(
        start["d"],
        json!({"room_id": room, "invite_code": accepted["invite_code"], "game": "ouk-chatrang",
               "seat": 0, "color": "white", "via": "challenge", "challenge_id": made["id"]})
    );
    let (status, again) = act(&server, &sok, &made["id"], "accept").await;
    assert_eq!(code(&(status, again)), (409, "challenge_closed"));
    // A page that missed the game_start finds the room by the challenge, for either player.
    for who in [&dara, &sok] {
        assert_eq!(status_of(&server, who, &made).await, "accepted");
        let path = format!("/api/challenges/{}", made["id"].as_str().unwrap());
        let answer = get_as(server.addr, &path, Auth::Cookie(&who.cookie)).await;
        assert_eq!(
            (&answer.body["room_id"], &answer.body["invite_code"]),
            (&json!(room), &accepted["invite_code"]),
            "{}",
            answer.body
        );
    }

    // Dara opens the room by the account's seat (no token); Sok by the token.
    let code_ = accepted["invite_code"].clone();
    let (mut white, welcome) =
        hello_as(server.addr, Some(&dara.cookie), json!({"room": code_})).await;
    assert_eq!(welcome["d"]["seat"], 0, "{welcome}");
    let (_black, welcome) = hello_as(
        server.addr,
        None,
        json!({"room": code_, "token": accepted["seat_token"]}),
    )
    .await;
    assert_eq!(welcome["d"]["seat"], 1, "{welcome}");
    let summary = get_as(server.addr, &format!("/api/rooms/{room}"), Auth::None).await;
    assert_eq!(
        (&summary.body["status"], &summary.body["rated"]),
        (&json!("playing"), &json!(true))
    );

    // White moves: Sok, now on move, is told on the site channel; Dara is not.
    let v = welcome["d"]["version"].as_i64().unwrap();
    white.send_move("w1", "e3e4", v).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    let turn = sok_page.next_of("your_turn").await;
    assert_eq!(
        (
            &turn["d"]["room_id"],
            &turn["d"]["seat"],
            &turn["d"]["game"]
        ),
        (&json!(room), &json!(1), &json!("ouk-chatrang"))
    );
    let nothing = dara_page.next_within(Duration::from_millis(300)).await;
    assert!(nothing.is_none(), "{nothing:?}");
    server.shutdown().await;
}

/// The `status` of `challenge` as `GET /api/challenges/{id}` tells `who`; it has a room only
/// once accepted.
async fn status_of(server: &TestServer, who: &Player, challenge: &Value) -> String {
    let path = format!("/api/challenges/{}", challenge["id"].as_str().unwrap());
    let answer = get_as(server.addr, &path, Auth::Cookie(&who.cookie)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["id"], challenge["id"]);
    let status = answer.body["status"].as_str().unwrap().to_owned();
    assert_eq!(
        answer.body.get("invite_code").is_some(),
        status == "accepted",
        "{}",
        answer.body
    );
    status
}

async fn declined_cancelled_and_expired_challenges_cannot_be_accepted(backend: Backend) {
    let clock = Clock::manual();
    let (server, _db) = server_on(backend, |config| config.clock = clock.clone()).await;
    let dara = player(&server.store, "Dara").await;
    let sok = player(&server.store, "Sok").await;
    let (mut dara_page, _) = site(server.addr, &dara.cookie).await;
    let (mut sok_page, _) = site(server.addr, &sok.cookie).await;

    let declined = challenge(&server, &dara, "Sok", json!({})).await.1;
    assert_eq!(act(&server, &sok, &declined["id"], "decline").await.0, 204);
    // Both players' pages are told (the challenged player's other pages too).
    for page in [&mut dara_page, &mut sok_page] {
        let gone = page.next_of("challenge_gone").await;
        assert_eq!(
            gone["d"],
            json!({"id": declined["id"], "reason": "declined"})
        );
    }
    assert_eq!(
        code(&act(&server, &sok, &declined["id"], "accept").await),
        (409, "challenge_closed")
    );
    // GET /api/challenges/{id} says what became of it, to either player and nobody else.
    assert_eq!(status_of(&server, &dara, &declined).await, "declined");
    assert_eq!(status_of(&server, &sok, &declined).await, "declined");
    let nary = player(&server.store, "Nary").await;
    let path = format!("/api/challenges/{}", declined["id"].as_str().unwrap());
    let other = get_as(server.addr, &path, Auth::Cookie(&nary.cookie)).await;
    assert_eq!((other.status, other.code()), (404, "not_found"));
    let anonymous = get_as(server.addr, &path, Auth::None).await;
    assert_eq!((anonymous.status, anonymous.code()), (401, "not_logged_in"));

    let cancelled = challenge(&server, &dara, "Sok", json!({})).await.1;
    // Only its maker cancels it; only the challenged player declines or accepts it.
    assert_eq!(
        code(&act(&server, &sok, &cancelled["id"], "cancel").await),
        (404, "not_found")
    );
    assert_eq!(
        code(&act(&server, &dara, &cancelled["id"], "accept").await),
        (404, "not_found")
    );
    assert_eq!(act(&server, &dara, &cancelled["id"], "cancel").await.0, 204);
    let gone = sok_page.next_of("challenge_gone").await;
    assert_eq!(
        gone["d"],
        json!({"id": cancelled["id"], "reason": "cancelled"})
    );
    assert_eq!(
        code(&act(&server, &sok, &cancelled["id"], "accept").await),
        (409, "challenge_closed")
    );
    assert_eq!(status_of(&server, &sok, &cancelled).await, "cancelled");

    let expiring = challenge(&server, &dara, "Sok", json!({})).await.1;
    clock.advance(Duration::from_secs(9 * 60 + 59));
    let listed = get_as(server.addr, "/api/challenges", Auth::Cookie(&sok.cookie)).await;
    assert_eq!(
        listed.body["incoming"].as_array().map(Vec::len),
        Some(1),
        "still open"
    );
    assert_eq!(status_of(&server, &dara, &expiring).await, "open");
    clock.advance(Duration::from_secs(1));
    assert_eq!(status_of(&server, &dara, &expiring).await, "expired");
    assert_eq!(
        code(&act(&server, &sok, &expiring["id"], "accept").await),
        (409, "challenge_expired")
    );
    assert_eq!(
        code(&act(&server, &sok, &expiring["id"], "decline").await),
        (409, "challenge_expired")
    );
    let listed = get_as(server.addr, "/api/challenges", Auth::Cookie(&sok.cookie)).await;
    assert_eq!(listed.body, json!({"incoming": [], "outgoing": []}));
    let (_page, welcome) = site(server.addr, &sok.cookie).await;
    assert_eq!(welcome["d"]["challenges"], json!([]));
    server.shutdown().await;
}

async fn challenges_refuse_what_they_must(backend: Backend) {
    let clock = Clock::manual();
    let (server, _db) = server_on(backend, |config| config.clock = clock.clone()).await;
    let dara = player(&server.store, "Dara").await;
    let sok = player(&server.store, "Sok").await;
    let nary = player(&server.store, "Nary").await;

    let anonymous = post_as(
        server.addr,
        "/api/challenges",
        Auth::None,
        &json!({"to": "Sok", "game": "khan"}),
    )
    .await;
    assert_eq!((anonymous.status, anonymous.code()), (401, "not_logged_in"));
    for (extra, expected) in [
        (json!({"to": "dara"}), (400, "cannot_challenge_yourself")),
        (json!({"to": "nobody"}), (404, "not_found")),
        (json!({"game": "chess"}), (400, "unknown_game")),
        (
            json!({"game": "khan-tsin", "seats": 3}),
            (400, "bad_request"),
        ),
        (json!({"color": "purple"}), (400, "bad_request")),
        (
            json!({"clock": {"initial_s": 0, "increment_s": 0}}),
            (400, "bad_clock"),
        ),
        (
            json!({"clock": null, "rated": true}),
            (400, "rated_needs_clock"),
        ),
    ] {
        let answer = challenge(&server, &dara, "Sok", extra.clone()).await;
        assert_eq!(code(&answer), expected, "{extra}: {}", answer.1);
    }
    // An untimed casual challenge is fine.
    let untimed = challenge(&server, &dara, "Nary", json!({"clock": null})).await;
    assert_eq!((untimed.0, &untimed.1["clock"]), (201, &Value::Null));
    // Somebody else's challenge is nobody's business.
    assert_eq!(
        code(&act(&server, &sok, &untimed.1["id"], "accept").await),
        (404, "not_found")
    );
    assert_eq!(
        code(&act(&server, &sok, &untimed.1["id"], "decline").await),
        (404, "not_found")
    );
    let mut made = 1;
    while made < 10 {
        assert_eq!(challenge(&server, &dara, "Sok", json!({})).await.0, 201);
        made += 1;
    }
    let eleventh = challenge(&server, &dara, "Nary", json!({})).await;
    assert_eq!(code(&eleventh), (409, "too_many_challenges"));
    // Others may still challenge Dara.
    assert_eq!(challenge(&server, &nary, "Dara", json!({})).await.0, 201);
    server.shutdown().await;
}
