//! Quick pairing (`POST /api/pairing`) against a real server on SQLite (pools in the process)
//! and on PostgreSQL (the shared queue): many players paired once each, three-player pools,
//! a client that goes away leaving its pool, 204 after the hold, seats alternating with the
//! last games, no rematch twice in a row while another player waits, and the typed errors.

#[macro_use]
mod support;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use support::backends::{Backend, server_on};
use support::pairing::{Player, body_for, pair, pair_within, player, players, seated, waiting};
use support::server::TestServer;

on_both_backends!(backend:
    forty_players_in_one_pool_are_each_paired_once,
    three_player_pools_seat_three_different_players,
    a_client_that_goes_away_leaves_its_pool,
    nobody_coming_is_answered_204_after_the_hold,
    seats_alternate_with_the_players_last_games,
    refusals_are_typed_and_anonymous_players_pair_casually,
);

/// The answers of `players` asking for `pool` all at once (each within 10 s).
async fn all_ask(addr: std::net::SocketAddr, players: &[Player], pool: &str) -> Vec<Value> {
    let body = body_for(pool, false);
    let answers = join_all(
        players
            .iter()
            .map(|p| pair_within(addr, Some(&p.cookie), &body, Duration::from_secs(10))),
    )
    .await;
    answers
        .into_iter()
        .zip(players)
        .map(|(answer, p)| {
            let (status, body) = answer.unwrap_or_else(|| panic!("{} not paired in 10 s", p.name));
            assert_eq!(status, 200, "{}: {body}", p.name);
            body
        })
        .collect()
}

/// Checks that `answers` (of `players`, in order) seat every player once, `size` to a room, in
/// seats 0.. with tokens all different, and that the store seats each room's players by
/// account where the answers said: returns the rooms' players.
async fn check_rooms(
    server: &TestServer,
    players: &[Player],
    answers: &[Value],
    size: usize,
) -> Vec<Vec<uuid::Uuid>> {
    let tokens: HashSet<&str> = answers
        .iter()
        .map(|a| a["seat_token"].as_str().expect("a seat token"))
        .collect();
    assert_eq!(tokens.len(), players.len(), "one token each");
    let mut rooms: HashMap<&str, Vec<(u64, uuid::Uuid)>> = HashMap::new();
    for (answer, p) in answers.iter().zip(players) {
        let room = answer["room_id"].as_str().expect("a room");
        rooms
            .entry(room)
            .or_default()
            .push((answer["seat"].as_u64().expect("a seat"), p.id));
        assert_eq!(answer["invite_code"].as_str().map(str::len), Some(8));
    }
    assert_eq!(rooms.len(), players.len() / size, "{rooms:?}");
    let mut all = Vec::new();
    for (room, mut members) in rooms {
        members.sort();
        let seats: Vec<u64> = members.iter().map(|m| m.0).collect();
        assert_eq!(seats, (0..size as u64).collect::<Vec<_>>(), "room {room}");
        let by_seat: Vec<Option<uuid::Uuid>> = members.iter().map(|m| Some(m.1)).collect();
        assert_eq!(seated(&server.store, room).await, by_seat, "room {room}");
        all.push(members.iter().map(|m| m.1).collect());
    }
    all
}

/// The rating of the forty players' `i`th: twenty pairs 320 points apart, each pair's two
/// players 0 to 150 apart, so that some pairs meet at once (±100) and the others once their
/// windows have widened to ±150 (2 s); any other player is at least 170 away from a pair.
fn forty_ratings(i: usize) -> f64 {
    let (pair, second) = (i / 2, i % 2 == 1);
    let gap = [0.0, 30.0, 60.0, 90.0, 100.0, 120.0, 150.0][pair % 7];
    1000.0 + 320.0 * pair as f64 + if second { gap } else { 0.0 }
}

async fn forty_players_in_one_pool_are_each_paired_once(backend: Backend) {
    let (server, _db) = server_on(backend, |_| {}).await;
    let players = players(&server.store, "forty", 40).await;
    for (i, p) in players.iter().enumerate() {
        let rating = forty_ratings(i);
        support::pairing::set_rating(&server.database_url, p.id, "khan", "blitz", rating).await;
    }
    // One player of each pair first: twenty players 320 apart, none within another's window
    // in the first 10 s. Then their partners.
    let started = std::time::Instant::now();
    let body = body_for("khan@3+2", true);
    let ask = |p: &Player| {
        let (addr, cookie, body) = (server.addr, p.cookie.clone(), body.clone());
        let name = p.name.clone();
        tokio::spawn(async move {
            let answer = pair_within(addr, Some(&cookie), &body, Duration::from_secs(10))
                .await
                .unwrap_or_else(|| panic!("{name} not paired in 10 s"));
            (answer, started.elapsed())
        })
    };
    let firsts: Vec<_> = players.iter().step_by(2).map(ask).collect();
    support::server::eventually(|| async {
        (waiting(server.addr, "khan@3+2", "rated").await == 20).then_some(())
    })
    .await;
    let seconds: Vec<_> = players.iter().skip(1).step_by(2).map(ask).collect();
    let mut bodies = Vec::new();
    let mut waited = HashMap::new();
    let asks = firsts.into_iter().zip(seconds).flat_map(|(a, b)| [a, b]);
    for (ask, p) in asks.zip(&players) {
        let ((status, body), elapsed) = ask.await.unwrap();
        assert_eq!(status, 200, "{}: {body}", p.name);
        waited.insert(p.id, elapsed);
        bodies.push(body);
    }
    let rooms = check_rooms(&server, &players, &bodies, 2).await;
    let everyone: HashSet<uuid::Uuid> = rooms.iter().flatten().copied().collect();
    assert_eq!(everyone.len(), 40, "nobody in two rooms");
    let rating = |id: &uuid::Uuid| forty_ratings(players.iter().position(|p| p.id == *id).unwrap());
    for room in &rooms {
        let diff = (rating(&room[0]) - rating(&room[1])).abs();
        // The window when they were answered is at least the one they were paired in.
        let longest = waited[&room[0]].max(waited[&room[1]]);
        let window = khanate::pairing::policy::window(longest.as_millis() as i64);
        assert!(
            diff <= f64::from(window),
            "{diff} apart, paired within ±{window}"
        );
        assert!(
            diff <= 150.0,
            "{diff}: each meets the other player of its pair"
        );
    }
    assert_eq!(waiting(server.addr, "khan@3+2", "rated").await, 0);
    // The rooms are rated games in play, at 3+2.
    let (status, summary) = support::server::get(
        server.addr,
        &format!("/api/rooms/{}", bodies[0]["invite_code"].as_str().unwrap()),
    )
    .await;
    assert_eq!(
        (status, &summary["status"], &summary["rated"]),
        (200, &json!("playing"), &json!(true)),
        "{summary}"
    );
    server.shutdown().await;
}

async fn three_player_pools_seat_three_different_players(backend: Backend) {
    let (server, _db) = server_on(backend, |_| {}).await;
    let players = players(&server.store, "trio", 6).await;
    let answers = all_ask(server.addr, &players, "khan-tsin:3@5+3").await;
    let rooms = check_rooms(&server, &players, &answers, 3).await;
    for room in &rooms {
        assert_eq!(room.iter().collect::<HashSet<_>>().len(), 3, "{rooms:?}");
    }
    server.shutdown().await;
}

async fn a_client_that_goes_away_leaves_its_pool(backend: Backend) {
    let (server, _db) = server_on(backend, |config| config.pairing_hold_s = 30).await;
    let [gone, second, third] =
        <[Player; 3]>::try_from(players(&server.store, "away", 3).await).unwrap();
    let body = body_for("ouk-chatrang@5+3", false);
    // The client gives up after a second: its connection closes while the request is held.
    let given_up = pair_within(
        server.addr,
        Some(&gone.cookie),
        &body,
        Duration::from_secs(1),
    )
    .await;
    assert!(given_up.is_none(), "{given_up:?}");
    support::server::eventually(|| async {
        (waiting(server.addr, "ouk-chatrang@5+3", "casual").await == 0).then_some(())
    })
    .await;
    // The next two players meet each other, not the one who left.
    let (a, b) = tokio::join!(
        pair(server.addr, Some(&second.cookie), &body),
        pair(server.addr, Some(&third.cookie), &body)
    );
    assert_eq!((a.0, b.0), (200, 200), "{a:?} {b:?}");
    assert_eq!(a.1["room_id"], b.1["room_id"]);
    let room = a.1["room_id"].as_str().unwrap();
    let seated: HashSet<_> = seated(&server.store, room).await.into_iter().collect();
    assert_eq!(seated, HashSet::from([Some(second.id), Some(third.id)]));
    server.shutdown().await;
}

async fn nobody_coming_is_answered_204_after_the_hold(backend: Backend) {
    let (server, _db) = server_on(backend, |config| config.pairing_hold_s = 1).await;
    let alone = player(&server.store, "alone").await;
    let started = std::time::Instant::now();
    let (status, body) = pair(
        server.addr,
        Some(&alone.cookie),
        &body_for("khan@1d", false),
    )
    .await;
    assert_eq!((status, body), (204, Value::Null));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "held for the hold"
    );
    support::server::eventually(|| async {
        (waiting(server.addr, "khan@1d", "casual").await == 0).then_some(())
    })
    .await;
    server.shutdown().await;
}

async fn seats_alternate_with_the_players_last_games(backend: Backend) {
    let (server, _db) = server_on(backend, |_| {}).await;
    let [dara, sok] =
        <[Player; 2]>::try_from(players(&server.store, "alternate", 2).await).unwrap();
    let body = body_for("khan-tsin@10+5", false);
    let mut dara_seats = Vec::new();
    for _ in 0..3 {
        // Alone together, they meet again: nobody else waits.
        let (a, b) = tokio::join!(
            pair(server.addr, Some(&dara.cookie), &body),
            pair(server.addr, Some(&sok.cookie), &body)
        );
        assert_eq!((a.0, b.0), (200, 200), "{a:?} {b:?}");
        assert_eq!(a.1["room_id"], b.1["room_id"]);
        assert_ne!(a.1["seat"], b.1["seat"]);
        dara_seats.push(a.1["seat"].as_u64().unwrap());
    }
    assert_ne!(dara_seats[0], dara_seats[1], "{dara_seats:?}");
    assert_ne!(dara_seats[1], dara_seats[2], "{dara_seats:?}");
    server.shutdown().await;
}

async fn refusals_are_typed_and_anonymous_players_pair_casually(backend: Backend) {
    let (server, _db) = server_on(backend, |config| config.pairing_hold_s = 20).await;
    let addr = server.addr;
    let code = |answer: &(u16, Value)| {
        (
            answer.0,
            answer.1["error"]["code"].as_str().unwrap_or("").to_owned(),
        )
    };
    let rated = pair(addr, None, &body_for("khan@3+2", true)).await;
    assert_eq!(code(&rated), (401, "login_required".into()), "{rated:?}");
    let mut odd = body_for("khan@3+2", false);
    odd["clock"] = json!({"initial_s": 240, "increment_s": 2});
    assert_eq!(
        code(&pair(addr, None, &odd).await),
        (400, "no_such_pool".into())
    );
    odd["clock"] = json!({"initial_s": 0, "increment_s": 2});
    assert_eq!(
        code(&pair(addr, None, &odd).await),
        (400, "bad_clock".into())
    );
    let mut three = body_for("khan@3+2", false);
    three["seats"] = json!(3);
    assert_eq!(
        code(&pair(addr, None, &three).await),
        (400, "no_such_pool".into())
    );
    let mut chess = body_for("khan@3+2", false);
    chess["game"] = json!("chess");
    assert_eq!(
        code(&pair(addr, None, &chess).await),
        (400, "unknown_game".into())
    );

    // An account waits in one pool at a time.
    let dara = player(&server.store, "Twice").await;
    let first = tokio::spawn({
        let cookie = dara.cookie.clone();
        async move { pair(addr, Some(&cookie), &body_for("khan@5+3", false)).await }
    });
    support::server::eventually(|| async {
        (waiting(addr, "khan@5+3", "casual").await == 1).then_some(())
    })
    .await;
    let again = pair(addr, Some(&dara.cookie), &body_for("khan@10+5", false)).await;
    assert_eq!(code(&again), (409, "already_waiting".into()), "{again:?}");
    first.abort();

    // Two anonymous players meet in a casual pool, under the names they give.
    let mut body = body_for("ouk-chatrang@15+10", false);
    body["name"] = json!("Nary");
    let mut other = body.clone();
    other["name"] = json!("Vuthy");
    let (a, b) = tokio::join!(pair(addr, None, &body), pair(addr, None, &other));
    assert_eq!((a.0, b.0), (200, 200), "{a:?} {b:?}");
    assert_eq!(a.1["room_id"], b.1["room_id"]);
    let room = a.1["room_id"].as_str().unwrap();
    assert_eq!(seated(&server.store, room).await, [None, None]);
    // Each token opens its own seat: a hello with it is welcomed to that seat.
    for answer in [&a.1, &b.1] {
        let (_socket, welcome) = support::account::hello_as(
            addr,
            None,
            json!({"room": answer["room_id"], "token": answer["seat_token"]}),
        )
        .await;
        assert_eq!(welcome["d"]["seat"], answer["seat"], "{welcome}");
    }
    server.shutdown().await;
}

/// PostgreSQL: two players whose last game was against each other are not paired again while
/// another player waits for either of them. The test holds the pool's pairing lock (the
/// advisory lock every round takes) while all four come, so that one round sees them all.
#[tokio::test]
async fn the_last_two_opponents_meet_others_while_others_wait() {
    let (server, db) = server_on(Backend::Postgres, |_| {}).await;
    let url = &db.downcast_ref::<support::db::PgDatabase>().unwrap().url;
    let [dara, sok, nary, vuthy] =
        <[Player; 4]>::try_from(players(&server.store, "rematch", 4).await).unwrap();
    let body = body_for("khan@15+10", false);
    let (a, b) = tokio::join!(
        pair(server.addr, Some(&dara.cookie), &body),
        pair(server.addr, Some(&sok.cookie), &body)
    );
    assert_eq!(a.1["room_id"], b.1["room_id"], "{a:?} {b:?}");

    let mut lock = PgConnection::connect(url).await.unwrap();
    sqlx::query("SELECT pg_advisory_lock(hashtext('khanate pairing khan@15+10/casual'))")
        .execute(&mut lock)
        .await
        .unwrap();
    // In this order, so that Dara, served first, could have met Sok.
    let mut asks = Vec::new();
    for (n, p) in (1..).zip([&dara, &sok, &nary, &vuthy]) {
        let (addr, cookie, body) = (server.addr, p.cookie.clone(), body.clone());
        asks.push(tokio::spawn(async move {
            pair(addr, Some(&cookie), &body).await
        }));
        support::server::eventually(|| async {
            (waiting(server.addr, "khan@15+10", "casual").await == n).then_some(())
        })
        .await;
    }
    sqlx::query("SELECT pg_advisory_unlock_all()")
        .execute(&mut lock)
        .await
        .unwrap();
    let mut answers = Vec::new();
    for ask in asks {
        let (status, answer) = ask.await.unwrap();
        assert_eq!(status, 200, "{answer}");
        answers.push(answer);
    }
    assert_ne!(
        answers[0]["room_id"], answers[1]["room_id"],
        "Dara and Sok played last: each meets one of the others"
    );
    let rooms: HashSet<&Value> = answers.iter().map(|a| &a["room_id"]).collect();
    assert_eq!(rooms.len(), 2);
    server.shutdown().await;
}
