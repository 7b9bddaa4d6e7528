//! Computer opponents through the real server: a bot is an ordinary seat that receives the room's
//! events and sends moves through the same path as people (PostgreSQL, and SQLite for the
//! embedded default and restarts).

mod support;

use std::time::Duration;

use khanate::rules::{AnyGame, GameKind, GameOptions, Rules};
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection, Row};
use support::server::{TestServer, get, post};
use support::ws::Client;

/// Creates a room of `game` with `extra` create fields; returns the create answer.
async fn create(server: &TestServer, game: &str, extra: Value) -> Value {
    let mut body = json!({"game": game, "name": "Dara"});
    if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
        body.extend(extra);
    }
    let (status, created) = post(server.addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// The next `moved` event, skipping every other frame.
async fn next_move(client: &mut Client) -> Value {
    loop {
        let frame = client.recv().await;
        if frame["t"] == "moved" || frame["t"] == "game_over" {
            return frame;
        }
    }
}

#[tokio::test]
async fn a_bot_created_with_the_room_answers_every_move_and_its_seat_is_stored() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(
        &server,
        "ouk-chatrang",
        json!({"seat": 0, "bots": [{"seat": 1, "level": 2}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap();
    let (status, summary) = get(server.addr, &format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200);
    assert_eq!(summary["status"], "playing", "{summary}");
    assert_eq!(summary["seats"][1]["bot"], 2);
    assert_eq!(summary["seats"][1]["name"], "Computer (level 2)");
    assert!(summary["seats"][0].get("bot").is_none(), "{summary}");

    let token = created["seat_token"].as_str().unwrap();
    let (mut white, _) = Client::hello(server.addr, room, Some(token), None).await;
    let snapshot = white.next_of("snapshot").await;
    let mut v = snapshot["v"].as_i64().unwrap();
    let mut game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
    for (i, mv) in ["e3e4", "d3d4", "a3a4"].into_iter().enumerate() {
        let cid = format!("w{i}");
        white.send_move(&cid, mv, v).await;
        let ack = white.answer(&cid).await;
        assert_eq!(ack["t"], "ack", "{ack}");
        game.play(mv).unwrap();
        let reply = next_move(&mut white).await;
        // Skip the echo of our own move.
        let reply = if reply["d"]["seat"] == 0 {
            next_move(&mut white).await
        } else {
            reply
        };
        assert_eq!(reply["t"], "moved", "{reply}");
        assert_eq!(reply["d"]["seat"], 1);
        let bot_move = reply["d"]["move"].as_str().unwrap();
        game.play(bot_move).expect("the bot's move is legal");
        assert_eq!(reply["d"]["position"], game.position());
        v = reply["v"].as_i64().unwrap();
    }

    let mut conn = PgConnection::connect(&db.url).await.unwrap();
    let seats: Vec<(i16, Option<i16>)> =
        sqlx::query("SELECT seat, bot_level FROM seats WHERE room_id = $1::uuid ORDER BY seat")
            .bind(room)
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .iter()
            .map(|row| (row.get("seat"), row.get("bot_level")))
            .collect();
    assert_eq!(seats, vec![(0, None), (1, Some(2))]);
    let bot_moves: i64 =
        sqlx::query_scalar("SELECT count(*) FROM moves WHERE room_id = $1::uuid AND seat = 1")
            .bind(room)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(bot_moves, 3);
    let data: Value = sqlx::query_scalar(
        "SELECT data FROM room_events WHERE room_id = $1::uuid AND kind = 'seat_taken' AND seat = 1",
    )
    .bind(room)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(data["bot"], 2);
    server.shutdown().await;
}

#[tokio::test]
async fn a_bot_moves_first_when_it_has_white() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(
        &server,
        "khan",
        json!({"seat": 1, "bots": [{"seat": 0, "level": 3}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut black, _) = Client::hello(server.addr, room, Some(token), None).await;
    let first = next_move(&mut black).await;
    assert_eq!(first["d"]["seat"], 0, "{first}");
    let mut game = AnyGame::new(GameKind::Khan, &GameOptions::default()).unwrap();
    game.play(first["d"]["move"].as_str().unwrap())
        .expect("the bot's opening move is legal");
    server.shutdown().await;
}

#[tokio::test]
async fn one_person_plays_three_player_khan_tsin_against_two_bots_to_the_end() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(
        &server,
        "khan-tsin",
        json!({"seats": 3, "seat": 0,
               "bots": [{"seat": 1, "level": 2}, {"seat": 2, "level": 1}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut me, _) = Client::hello(server.addr, room, Some(token), None).await;
    let snapshot = me.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["status"], "playing");
    let mut legal = snapshot["d"]["legal_moves"].clone();
    let mut v = snapshot["v"].as_i64().unwrap();
    let mut moved_by = [0_u32; 3];
    let mut cid = 0;
    // The person plays its first legal move whenever it is on move, until the game ends.
    loop {
        if let Some(mv) = legal.as_array().and_then(|moves| moves.first()) {
            cid += 1;
            me.send_move(&format!("c{cid}"), mv.as_str().unwrap(), v)
                .await;
            legal = Value::Null;
        }
        let frame = me.recv().await;
        match frame["t"].as_str().unwrap() {
            "moved" => {
                moved_by[frame["d"]["seat"].as_u64().unwrap() as usize] += 1;
                v = frame["v"].as_i64().unwrap();
                legal = frame["d"]["legal_moves"].clone();
            }
            "skipped" | "left" => v = frame["v"].as_i64().unwrap(),
            "reject" => panic!("{frame}"),
            "game_over" => break,
            _ => {}
        }
    }
    assert!(
        moved_by.iter().all(|n| *n >= 12),
        "every seat placed its pawns: {moved_by:?}"
    );
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room}")).await;
    assert_eq!(summary["status"], "finished");
    server.shutdown().await;
}

#[tokio::test]
async fn add_bot_fills_a_free_seat_and_refuses_a_taken_one() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(&server, "khan-tsin", json!({"seats": 3, "seat": 0})).await;
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut me, _) = Client::hello(server.addr, room, Some(token), None).await;
    me.command("add_bot", "b1", json!({"seat": 2, "level": 4}))
        .await;
    assert_eq!(me.answer("b1").await["t"], "ack");
    let taken = me.event("seat_taken", 2).await;
    assert_eq!(
        taken["d"],
        json!({"seat": 2, "color": "blue", "name": "Computer (level 4)", "bot": 4})
    );

    me.command("add_bot", "b2", json!({"seat": 2, "level": 1}))
        .await;
    let reject = me.answer("b2").await;
    assert_eq!(reject["d"]["code"], "cannot_add_bot", "{reject}");
    assert_eq!(reject["d"]["v"], 2);
    me.command("add_bot", "b3", json!({"seat": 1, "level": 6}))
        .await;
    let reject = me.next_of("reject").await;
    assert_eq!(reject["d"]["code"], "bad_message", "{reject}");
    let spectator_room = room.to_owned();
    let (mut spectator, _) = Client::hello(server.addr, &spectator_room, None, None).await;
    spectator
        .command("add_bot", "s1", json!({"seat": 1, "level": 1}))
        .await;
    assert_eq!(spectator.answer("s1").await["d"]["code"], "not_a_player");

    me.command("add_bot", "b4", json!({"seat": 1, "level": 1}))
        .await;
    assert_eq!(me.answer("b4").await["d"]["v"], 4);
    let started = me.event("game_started", 4).await;
    assert_eq!(started["d"]["to_move"], 0);
    me.command("add_bot", "b5", json!({"seat": 1, "level": 1}))
        .await;
    assert_eq!(me.answer("b5").await["d"]["code"], "cannot_add_bot");
    server.shutdown().await;
}

#[tokio::test]
async fn bots_that_cannot_take_their_seats_are_a_bad_request() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    for (body, needle) in [
        (
            json!({"game": "khan", "seat": 1, "bots": [{"seat": 1, "level": 2}]}),
            "creator",
        ),
        (
            json!({"game": "khan", "bots": [{"seat": 0, "level": 2}, {"seat": 1, "level": 2}]}),
            "every seat",
        ),
        (
            json!({"game": "khan", "seat": 0, "bots": [{"seat": 5, "level": 2}]}),
            "does not exist",
        ),
        (
            json!({"game": "khan", "seat": 0, "bots": [{"seat": 1, "level": 0}]}),
            "1 to 5",
        ),
        (
            json!({"game": "khan-tsin", "seats": 3, "seat": 0,
                   "bots": [{"seat": 1, "level": 2}, {"seat": 1, "level": 3}]}),
            "seat 1 is given to two bots",
        ),
    ] {
        let (status, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(status, 400, "{body} -> {answer}");
        assert_eq!(answer["error"]["code"], "bad_request");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{body}: {message}");
    }
    let (_, lobby) = get(server.addr, "/api/rooms").await;
    assert_eq!(lobby["rooms"].as_array().map(Vec::len), Some(0), "{lobby}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_bot_game_goes_on_after_a_restart_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    let created = create(
        &server,
        "ouk-chatrang",
        json!({"seat": 0, "bots": [{"seat": 1, "level": 1}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap().to_owned();
    let token = created["seat_token"].as_str().unwrap().to_owned();
    {
        let (mut white, _) = Client::hello(server.addr, &room, Some(&token), None).await;
        white.send_move("w0", "e3e4", 3).await;
        assert_eq!(white.answer("w0").await["t"], "ack");
        let reply = white.event("moved", 5).await;
        assert_eq!(reply["d"]["seat"], 1);
    }
    server.shutdown().await;

    let server = TestServer::start(&url).await;
    let (mut white, _) = Client::hello(server.addr, &room, Some(&token), None).await;
    let snapshot = white.next_of("snapshot").await;
    assert_eq!(snapshot["v"], 5);
    assert_eq!(snapshot["d"]["seats"][1]["bot"], 1);
    white.send_move("w1", "d3d4", 5).await;
    assert_eq!(white.answer("w1").await["t"], "ack");
    let reply = white.event("moved", 7).await;
    assert_eq!(reply["d"]["seat"], 1, "the restored room's bot answers");
    server.shutdown().await;
}

#[tokio::test]
async fn a_bot_declines_a_draw_and_accepts_a_rematch_which_keeps_it() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(
        &server,
        "ouk-chatrang",
        json!({"seat": 0, "bots": [{"seat": 1, "level": 1}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut white, _) = Client::hello(server.addr, room, Some(token), None).await;
    white.command("offer_draw", "d1", json!({})).await;
    assert_eq!(white.answer("d1").await["d"]["v"], 4);
    let declined = white.event("offer_declined", 5).await;
    assert_eq!(declined["d"]["id"], 1);
    white.command("resign", "r1", json!({})).await;
    assert_eq!(white.answer("r1").await["t"], "ack");
    white.command("offer_rematch", "m1", json!({})).await;
    assert_eq!(white.answer("m1").await["t"], "ack");
    let rematch = white.next_of("rematch").await;
    let new_room = rematch["d"]["room_id"].as_str().unwrap();
    // Colours rotate: the bot has White in the new room and opens it.
    let (mut black, _) = Client::hello(server.addr, new_room, Some(token), None).await;
    let first = tokio::time::timeout(Duration::from_secs(20), next_move(&mut black))
        .await
        .expect("the bot opens the rematch");
    assert_eq!(first["d"]["seat"], 0, "{first}");
    let (_, summary) = get(server.addr, &format!("/api/rooms/{new_room}")).await;
    assert_eq!(summary["seats"][0]["bot"], 1, "{summary}");
    server.shutdown().await;
}

/// Plays `plies` moves in a new room of two people (Ouk Chatrang, each side's first legal move)
/// and returns each move's time from send to `ack`.
async fn ack_times_in_a_room_of_people(server: &TestServer, plies: usize) -> Vec<Duration> {
    let (_, code, white, black) = support::server::two_player_room(server.addr, json!({})).await;
    let (mut white, _) = Client::hello(server.addr, &code, Some(&white), None).await;
    let (mut black, _) = Client::hello(server.addr, &code, Some(&black), None).await;
    let mut game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
    let mut v = 3;
    let mut times = Vec::with_capacity(plies);
    for ply in 0..plies {
        let Some(mv) = game.legal_moves().into_iter().next() else {
            break;
        };
        let client = if ply % 2 == 0 { &mut white } else { &mut black };
        let cid = format!("p{ply}");
        let sent = std::time::Instant::now();
        client.send_move(&cid, &mv, v).await;
        let ack = client.answer(&cid).await;
        times.push(sent.elapsed());
        assert_eq!(ack["t"], "ack", "{ack}");
        v = ack["d"]["v"].as_i64().unwrap();
        game.play(&mv).unwrap();
        // People do not move back to back: the measurement spans many bot searches.
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    times
}

/// A person's side of a room against a bot: plays a legal move (chosen by `seed`) whenever it
/// is on move and counts the bot's moves, until the task is stopped.
async fn keep_a_bot_busy(
    server_addr: std::net::SocketAddr,
    seed: usize,
    bot_moves: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let body = json!({"game": "ouk-chatrang", "seat": 0, "bots": [{"seat": 1, "level": 5}]});
    let (status, created) = post(server_addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut me, _) = Client::hello(server_addr, room, Some(token), None).await;
    let snapshot = me.next_of("snapshot").await;
    let mut legal = snapshot["d"]["legal_moves"].clone();
    let mut v = snapshot["v"].as_i64().unwrap();
    let mut cid = 0;
    loop {
        if let Some(moves) = legal.as_array().filter(|moves| !moves.is_empty()) {
            cid += 1;
            let mv = moves[(seed + cid) % moves.len()]
                .as_str()
                .unwrap()
                .to_owned();
            me.send_move(&format!("c{cid}"), &mv, v).await;
            legal = Value::Null;
        }
        let frame = me.recv().await;
        match frame["t"].as_str().unwrap() {
            "moved" => {
                if frame["d"]["seat"] == 1 {
                    bot_moves.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                v = frame["v"].as_i64().unwrap();
                legal = frame["d"]["legal_moves"].clone();
            }
            "game_over" => return,
            _ => {}
        }
    }
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let rank = ((times.len() as f64 * p).ceil() as usize).clamp(1, times.len());
    times[rank - 1]
}

/// Bots thinking at level 5 in many rooms, with one search thread so that their queue is long,
/// leave a room of people as responsive as before: searches run on the bot pool, never on the
/// tasks that run rooms and sockets. Asserts that every move of the people is acknowledged, that
/// the bots kept moving meanwhile, and that 95% of the people's acknowledgements with the bots
/// thinking came within one level-5 search budget (500 ms). That bound is no benchmark (a debug
/// build acknowledges in about 10 to 40 ms), but it tells the rooms apart: when a search runs on
/// the runtime that serves the room (this test's runtime has one thread), the people's moves wait
/// for whole searches, and their p95 was 4.7 s. Reports the times with and without the bots
/// (`-- --nocapture`; docs/bots.md has release-build figures).
#[tokio::test]
async fn level_5_bots_thinking_in_many_rooms_leave_a_room_of_people_responsive() {
    const BOT_ROOMS: usize = 12;
    const PLIES: usize = 80;
    let db = support::db::fresh_postgres().await;
    let mut config = khanate::config::Config::for_tests(&db.url);
    config.limits.bot_threads = 1;
    let server = TestServer::start_with(config).await;
    let mut quiet = ack_times_in_a_room_of_people(&server, PLIES).await;

    let bot_moves = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let busy_rooms: Vec<_> = (0..BOT_ROOMS)
        .map(|seed| tokio::spawn(keep_a_bot_busy(server.addr, seed, bot_moves.clone())))
        .collect();
    // Every bot room has its first search queued or running before the measurement starts.
    while bot_moves.load(std::sync::atomic::Ordering::Relaxed) < BOT_ROOMS {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = bot_moves.load(std::sync::atomic::Ordering::Relaxed);
    let started = std::time::Instant::now();
    let mut busy = ack_times_in_a_room_of_people(&server, PLIES).await;
    let took = started.elapsed();
    let during = bot_moves.load(std::sync::atomic::Ordering::Relaxed) - before;
    for room in busy_rooms {
        room.abort();
    }
    assert_eq!(
        (quiet.len(), busy.len()),
        (PLIES, PLIES),
        "every move is acknowledged"
    );
    assert!(during > 0, "the bots kept moving while the people played");
    let budget = khanate::bot::Level::MAX.budget();
    let busy_p95 = percentile(&mut busy, 0.95);
    assert!(
        busy_p95 < budget,
        "with the bots thinking, 95% of the people's moves are acknowledged within one search \
         budget ({budget:?}), not after whole searches: p95 {busy_p95:?}"
    );
    println!(
        "ack ms without bots: p50 {:.2} p95 {:.2} max {:.2}; with {BOT_ROOMS} rooms of level-5 bots \
         on 1 search thread: p50 {:.2} p95 {:.2} max {:.2}; {during} bot moves in {:.1} s",
        percentile(&mut quiet, 0.5).as_secs_f64() * 1e3,
        percentile(&mut quiet, 0.95).as_secs_f64() * 1e3,
        percentile(&mut quiet, 1.0).as_secs_f64() * 1e3,
        percentile(&mut busy, 0.5).as_secs_f64() * 1e3,
        percentile(&mut busy, 0.95).as_secs_f64() * 1e3,
        percentile(&mut busy, 1.0).as_secs_f64() * 1e3,
        took.as_secs_f64(),
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_timed_game_against_a_bot_starts_its_clock_at_creation_and_the_bot_moves_in_time() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let created = create(
        &server,
        "ouk-chatrang",
        json!({"seat": 1, "clock": {"initial_s": 60, "increment_s": 0},
               "bots": [{"seat": 0, "level": 5}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap();
    let token = created["seat_token"].as_str().unwrap();
    let (mut black, _) = Client::hello(server.addr, room, Some(token), Some(0)).await;
    let started = black.event("game_started", 3).await;
    assert_eq!(started["d"]["clock"]["running"], 0, "{started}");
    assert_eq!(started["d"]["clock"]["remaining_ms"], json!([60000, 60000]));
    let first = black.event("moved", 4).await;
    assert_eq!(first["d"]["seat"], 0);
    let left = first["d"]["clock"]["remaining_ms"][0].as_u64().unwrap();
    // A 60 s game: the bot takes at most a twentieth of its time (3 s), not its level's 0.5 s
    // budget ignoring the clock; here its budget is the smaller.
    assert!((59_000..60_000).contains(&left), "{first}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_khan_tsin_bot_plays_on_after_a_player_left_and_the_server_restarted() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    let created = create(
        &server,
        "khan-tsin",
        json!({"seats": 3, "seat": 0, "bots": [{"seat": 2, "level": 1}]}),
    )
    .await;
    let room = created["room_id"].as_str().unwrap().to_owned();
    let first = created["seat_token"].as_str().unwrap().to_owned();
    let code = created["invite_code"].as_str().unwrap();
    let (status, joined) = post(
        server.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"seat": 1}),
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let second = joined["seat_token"].as_str().unwrap().to_owned();
    {
        let (mut leaver, _) = Client::hello(server.addr, &room, Some(&first), None).await;
        leaver.command("resign", "r", json!({})).await;
        assert_eq!(leaver.answer("r").await["t"], "ack");
    }
    server.shutdown().await;

    // The restored room's bot is seat 2 of three, although the position text lists two colours.
    let server = TestServer::start(&url).await;
    let (mut me, _) = Client::hello(server.addr, &room, Some(&second), None).await;
    let snapshot = me.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["to_move"], 1, "{snapshot}");
    let mv = snapshot["d"]["legal_moves"][0].as_str().unwrap().to_owned();
    let v = snapshot["v"].as_i64().unwrap();
    me.send_move("m", &mv, v).await;
    assert_eq!(me.answer("m").await["t"], "ack");
    let reply = me.event("moved", v + 2).await;
    assert_eq!(reply["d"]["seat"], 2, "{reply}");
    server.shutdown().await;
}
