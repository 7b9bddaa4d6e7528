//! Abandonment over WebSockets on PostgreSQL, with a manual clock the test moves (no sleeps): a
//! claim against the absent player on move is refused before its grace period and wins (or draws)
//! by `abandoned` after it; a player who comes back starts the grace period afresh; untimed rooms
//! are never claimable; in Khan-Tsin the others vote the absent player out; and a waiting room
//! whose creator left expires unless the creator comes back.

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use serde_json::{Value, json};
use support::server::{TestServer, get, post, room_with_every_seat, server_with_clock};
use support::ws::Client;

/// Connects `token` (a spectator when `None`), past its snapshot.
async fn connect(server: &TestServer, code: &str, token: Option<&str>) -> Client {
    let (mut client, _) = Client::hello(server.addr, code, token, None).await;
    client.next_of("snapshot").await;
    client
}

/// The next `presence` of `seat` with `connected`, skipping others.
async fn presence(client: &mut Client, seat: u64, connected: bool) -> Value {
    loop {
        let frame = client.next_of("presence").await;
        if frame["d"]["seat"] == seat && frame["d"]["connected"] == connected {
            return frame;
        }
    }
}

/// Sends `t` with `d` and returns the answer.
async fn claim(client: &mut Client, t: &str, cid: &str, d: Value) -> Value {
    client.command(t, cid, d).await;
    client.answer(cid).await
}

fn s(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[tokio::test]
async fn the_opponent_of_an_absent_player_wins_by_abandoned_only_after_the_grace_period() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    // 10 minutes each: grace = max(30 s, min(600 s / 10, 120 s)) = 60 s.
    let (room_id, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 600, "increment_s": 0}}),
    )
    .await;
    let white = connect(&server, &code, Some(&tokens[0])).await;
    let mut black = connect(&server, &code, Some(&tokens[1])).await;

    // While White (on move) is connected, nothing can be claimed.
    let refused = claim(&mut black, "claim_victory", "c0", json!({})).await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");

    white.close().await;
    let gone = presence(&mut black, 0, false).await;
    let at = gone["d"]["claimable_at"]
        .as_str()
        .unwrap_or_else(|| panic!("no claimable_at in {gone}"));
    let at = chrono::DateTime::parse_from_rfc3339(at).unwrap();
    // The room reads its time from the manual clock, which has not moved since White left: the
    // grace (60 s for 600 s a player) counts from exactly then.
    let expected = clock.now_utc() + chrono::Duration::seconds(60);
    let off = at.signed_duration_since(expected).num_milliseconds().abs();
    assert!(off <= 1, "claimable_at {at} is {off} ms off {expected}");

    clock.advance(Duration::from_millis(59_999));
    let refused = claim(&mut black, "claim_victory", "c1", json!({})).await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");
    clock.advance(Duration::from_millis(1));
    let ack = claim(&mut black, "claim_victory", "c2", json!({})).await;
    assert_eq!(ack["t"], "ack", "{ack}");
    let over = black.event("game_over", 4).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 1, "reason": "abandoned"})
    );
    let (status, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(
        record["result"],
        json!({"winner": 1, "reason": "abandoned"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_draw_is_claimed_by_abandoned_and_a_returning_player_starts_the_grace_afresh() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    // 1 minute each: the base grace of 30 s.
    let (room_id, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 60, "increment_s": 0}}),
    )
    .await;
    let white = connect(&server, &code, Some(&tokens[0])).await;
    let mut black = connect(&server, &code, Some(&tokens[1])).await;

    white.close().await;
    presence(&mut black, 0, false).await;
    clock.advance(s(20));
    // White comes back, then leaves again: its grace counts from the second departure.
    let white = connect(&server, &code, Some(&tokens[0])).await;
    let back = presence(&mut black, 0, true).await;
    assert!(back["d"].get("claimable_at").is_none(), "{back}");
    white.close().await;
    presence(&mut black, 0, false).await;
    clock.advance(s(20));
    let refused = claim(
        &mut black,
        "claim_draw",
        "d1",
        json!({"reason": "abandoned"}),
    )
    .await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");
    clock.advance(s(10));
    let ack = claim(
        &mut black,
        "claim_draw",
        "d2",
        json!({"reason": "abandoned"}),
    )
    .await;
    assert_eq!(ack["t"], "ack", "{ack}");
    let over = black.event("game_over", 4).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "abandoned"})
    );
    let (_, record) = get(server.addr, &format!("/api/games/{room_id}")).await;
    assert_eq!(
        record["result"],
        json!({"winner": null, "reason": "abandoned"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn only_the_player_on_move_can_be_claimed_against_and_never_in_an_untimed_room() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;

    // Timed: Black (not on move) leaves; White cannot claim, even long after.
    let (_, code, tokens) = room_with_every_seat(
        server.addr,
        "ouk-chatrang",
        json!({"clock": {"initial_s": 300, "increment_s": 0}}),
    )
    .await;
    let mut white = connect(&server, &code, Some(&tokens[0])).await;
    let black = connect(&server, &code, Some(&tokens[1])).await;
    black.close().await;
    presence(&mut white, 1, false).await;
    clock.advance(s(200));
    let refused = claim(&mut white, "claim_victory", "t1", json!({})).await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");

    // Untimed: White (on move) is away for an hour; still nothing to claim.
    let (_, code, tokens) = room_with_every_seat(server.addr, "ouk-chatrang", json!({})).await;
    let white = connect(&server, &code, Some(&tokens[0])).await;
    let mut black = connect(&server, &code, Some(&tokens[1])).await;
    white.close().await;
    let gone = presence(&mut black, 0, false).await;
    assert!(gone["d"].get("claimable_at").is_none(), "{gone}");
    clock.advance(s(3600));
    let refused = claim(&mut black, "claim_victory", "u1", json!({})).await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");
    let refused = claim(
        &mut black,
        "claim_draw",
        "u2",
        json!({"reason": "abandoned"}),
    )
    .await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");
    server.shutdown().await;
}

#[tokio::test]
async fn in_khan_tsin_the_two_others_vote_the_absent_player_out() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let (_, code, tokens) = room_with_every_seat(
        server.addr,
        "khan-tsin",
        json!({"seats": 3, "clock": {"initial_s": 600, "increment_s": 0}}),
    )
    .await;
    let seat0 = connect(&server, &code, Some(&tokens[0])).await;
    let mut seat1 = connect(&server, &code, Some(&tokens[1])).await;
    let mut seat2 = connect(&server, &code, Some(&tokens[2])).await;
    seat0.close().await;
    presence(&mut seat1, 0, false).await;
    clock.advance(s(60));

    // One vote is not enough: acknowledged at the current version, no event.
    let vote = claim(&mut seat1, "claim_victory", "v1", json!({})).await;
    assert_eq!(vote["t"], "ack", "{vote}");
    assert_eq!(vote["d"]["v"], 4, "{vote}");
    let refused = claim(
        &mut seat2,
        "claim_draw",
        "v2",
        json!({"reason": "abandoned"}),
    )
    .await;
    assert_eq!(refused["d"]["code"], "cannot_claim", "{refused}");
    let vote = claim(&mut seat2, "claim_victory", "v3", json!({})).await;
    assert_eq!(vote["t"], "ack", "{vote}");
    for client in [&mut seat1, &mut seat2] {
        let left = client.event("left", 5).await;
        assert_eq!(left["d"]["seat"], 0);
        assert_eq!(left["d"]["reason"], "abandoned");
        assert_eq!(left["d"]["to_move"], 1);
    }
    let (mut watcher, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = watcher.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["status"], "playing");
    assert_eq!(snapshot["d"]["seats"][0]["left"], true);
    server.shutdown().await;
}

#[tokio::test]
async fn a_waiting_room_whose_creator_left_expires_unless_the_creator_returns() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "ouk-chatrang", "seat": 0}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let token = created["seat_token"].as_str().unwrap().to_owned();
    let mut watcher = connect(&server, &code, None).await;

    let creator = connect(&server, &code, Some(&token)).await;
    presence(&mut watcher, 0, true).await;
    creator.close().await;
    presence(&mut watcher, 0, false).await;
    clock.advance(s(599));
    // The creator comes back in time: the countdown stops, and starts afresh when it leaves.
    let creator = connect(&server, &code, Some(&token)).await;
    presence(&mut watcher, 0, true).await;
    creator.close().await;
    presence(&mut watcher, 0, false).await;
    clock.advance(s(599));
    let (mut late, _) = Client::hello(server.addr, &code, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["status"], "waiting", "{snapshot}");

    clock.advance(s(1));
    let over = watcher.next_of("game_over").await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "aborted"})
    );
    server.shutdown().await;
}
