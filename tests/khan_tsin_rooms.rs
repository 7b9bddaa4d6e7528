//! Khan-Tsin through the real server on PostgreSQL: a whole 3-player game with three WebSocket
//! clients and a spectator (placement, moves, at least one skip, a win), the same with two players
//! and the neutral colour, a player who disconnects mid-game and comes back, and a resignation in a
//! 3-player game that the other two finish.

mod support;

use khanate::rules::{AnyGame, GameKind, GameOptions, Rules};
use serde_json::{Value, json};
use support::server::{TestServer, get, post};
use support::ws::Client;
use uuid::Uuid;

/// A small deterministic generator, so the games the tests play are the same on every run.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn setup(players: u8) -> GameOptions {
    GameOptions {
        players: Some(players),
        ..GameOptions::default()
    }
}

/// A complete game found with the rules module: random moves from `seed`, except that a winning
/// move is always taken. Returns the moves and how many skips happened, or `None` when the game
/// did not end in a win within `limit` moves.
fn random_game(players: u8, seed: u64, limit: usize) -> Option<(Vec<String>, usize)> {
    let mut rng = Xorshift(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(players)).ok()?;
    let mut moves = Vec::new();
    let mut skips = 0;
    while game.outcome().is_none() && moves.len() < limit {
        let legal = game.legal_moves();
        let winning = legal.iter().find(|mv| {
            let mut probe = game.clone();
            probe
                .play(mv)
                .ok()
                .and_then(|a| a.outcome)
                .is_some_and(|o| o.winner.is_some())
        });
        let mv = winning
            .cloned()
            .unwrap_or_else(|| legal[rng.below(legal.len())].clone());
        skips += game.play(&mv).ok()?.skipped.len();
        moves.push(mv);
    }
    let won = game
        .outcome()
        .is_some_and(|o| o.winner.is_some() && o.reason.as_str() == "khan_tsin");
    won.then_some((moves, skips))
}

/// The first seeded game that ends in a win with at least `min_skips` skips.
fn game_with_skips_and_a_win(players: u8, min_skips: usize) -> Vec<String> {
    (0..2000)
        .find_map(|seed| random_game(players, seed, 600).filter(|(_, skips)| *skips >= min_skips))
        .map(|(moves, _)| moves)
        .expect("some seed gives a game with a skip and a win")
}

/// A Khan-Tsin room of `players` seats, every seat taken in seat order and connected, and a
/// spectator. Returns (room id, invite code, seat tokens, clients, spectator).
async fn khan_tsin_room(
    server: &TestServer,
    players: u8,
) -> (String, String, Vec<String>, Vec<Client>, Client) {
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan-tsin", "seats": players, "seat": 0, "name": "p0"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap().to_owned();
    let mut tokens = vec![created["seat_token"].as_str().unwrap().to_owned()];
    for seat in 1..players {
        let (status, joined) = post(
            server.addr,
            &format!("/api/rooms/{code}/join"),
            &json!({"seat": seat, "name": format!("p{seat}")}),
        )
        .await;
        assert_eq!(status, 200, "{joined}");
        tokens.push(joined["seat_token"].as_str().unwrap().to_owned());
    }
    let mut clients = Vec::new();
    for token in &tokens {
        clients.push(Client::hello(server.addr, &code, Some(token), None).await.0);
    }
    let (spectator, _) = Client::hello(server.addr, &code, None, None).await;
    (
        created["room_id"].as_str().unwrap().to_owned(),
        code,
        tokens,
        clients,
        spectator,
    )
}

/// Every frame with a version that `client` received, in order, until version `last`.
async fn versioned_until(client: &mut Client, last: i64) -> Vec<Value> {
    let mut seen = events_until(client, last).await;
    for frame in &mut seen {
        if let Value::Object(d) = &mut frame["d"] {
            d.remove("legal_moves");
        }
    }
    seen
}

/// Every event `client` received, as sent (legal moves included), until version `last`.
async fn events_until(client: &mut Client, last: i64) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let frame = client.recv().await;
        if let Some(v) = frame["v"].as_i64() {
            if frame["t"] != "snapshot" {
                seen.push(frame);
            }
            if v == last {
                return seen;
            }
        }
    }
}

/// What the events of a move look like: `moved` with its move and position, then a `skipped` per
/// skipped seat.
fn expected_events(applied: &khanate::rules::Applied, position: &str) -> Vec<Value> {
    let mut events = vec![json!({"t": "moved", "move": applied.notation, "position": position})];
    events.extend(
        applied
            .skipped
            .iter()
            .map(|seat| json!({"t": "skipped", "seat": seat})),
    );
    events
}

/// The same shape as [`expected_events`] for frames received.
fn received_shape(frame: &Value) -> Option<Value> {
    match frame["t"].as_str()? {
        "moved" => Some(
            json!({"t": "moved", "move": frame["d"]["move"], "position": frame["d"]["position"]}),
        ),
        "skipped" => Some(json!({"t": "skipped", "seat": frame["d"]["seat"]})),
        _ => None,
    }
}

/// Plays `moves` through the server, each by the seat on move per the rules module, checking each
/// ack. Returns the last version and the `moved`/`skipped` events every client must have seen.
async fn play_through(
    clients: &mut [Client],
    game: &mut AnyGame,
    moves: &[String],
    mut v: i64,
) -> (i64, Vec<Value>) {
    let mut expected = Vec::new();
    for mv in moves {
        let seat = usize::from(game.to_move().expect("on move"));
        let applied = game.play(mv).unwrap();
        let made = 1 + applied.skipped.len() as i64 + i64::from(applied.outcome.is_some());
        let cid = format!("c{v}");
        clients[seat].send_move(&cid, mv, v).await;
        let ack = clients[seat].answer(&cid).await;
        assert_eq!(ack["d"], json!({"cid": cid, "v": v + made}), "{mv}");
        expected.extend(expected_events(&applied, &game.position()));
        v += made;
    }
    (v, expected)
}

#[tokio::test]
async fn a_three_player_game_is_placed_played_skipped_and_won_through_the_server() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let moves = game_with_skips_and_a_win(3, 1);
    let (room_id, _, _, mut clients, mut spectator) = khan_tsin_room(&server, 3).await;
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(3)).unwrap();
    let snapshot = spectator.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["position"], game.position());
    assert_eq!(
        snapshot["d"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["color"].clone())
            .collect::<Vec<_>>(),
        vec![json!("white"), json!("green"), json!("blue")]
    );
    let (last, expected) = play_through(&mut clients, &mut game, &moves, 4).await;
    let outcome = game.outcome().expect("won");

    // The spectator saw every move and skip as the rules module made them, ending with the win...
    let reference = versioned_until(&mut spectator, last).await;
    assert_eq!(
        reference
            .iter()
            .filter_map(received_shape)
            .collect::<Vec<_>>(),
        expected
    );
    assert!(
        expected.iter().any(|e| e["t"] == "skipped"),
        "at least one skip"
    );
    assert_eq!(
        reference.last().unwrap()["d"]["result"],
        json!({"winner": outcome.winner, "reason": "khan_tsin"})
    );
    // ...and every player saw exactly the same events in the same order.
    for (seat, client) in clients.iter_mut().enumerate() {
        assert_eq!(
            versioned_until(client, last).await,
            reference,
            "seat {seat}"
        );
    }
    let record = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(record.moves, moves, "the full placement and move list");
    assert_eq!(record.reason, "khan_tsin");
    server.shutdown().await;
}

#[tokio::test]
async fn a_two_player_game_fills_the_neutral_colour_and_is_won() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let moves = game_with_skips_and_a_win(2, 0);
    let (room_id, _, _, mut clients, mut spectator) = khan_tsin_room(&server, 2).await;
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(2)).unwrap();
    let (last, expected) = play_through(&mut clients, &mut game, &moves, 3).await;
    let seen = versioned_until(&mut spectator, last).await;
    assert_eq!(
        seen.iter().filter_map(received_shape).collect::<Vec<_>>(),
        expected
    );
    // After the 24th placement the 12 neutral (blue) pawns are on the board.
    let after_placement = seen
        .iter()
        .filter(|f| f["t"] == "moved")
        .nth(23)
        .expect("24 placements");
    let stacks = after_placement["d"]["position"]
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        stacks.matches('b').count(),
        12,
        "twelve neutral pawns: {stacks}"
    );
    assert_eq!(
        stacks.matches('B').count(),
        0,
        "the neutral Khan-pawn lies face down (T-6): {stacks}"
    );
    assert_eq!(stacks.matches('-').count(), 0, "every square holds a pawn");
    let record = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(
        (record.reason.as_str(), record.moves.len()),
        ("khan_tsin", moves.len())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_player_who_drops_out_misses_nothing_and_the_others_play_on() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let moves = game_with_skips_and_a_win(3, 0);
    let (_, code, tokens, clients, _spectator) = khan_tsin_room(&server, 3).await;
    let mut clients: Vec<Option<Client>> = clients.into_iter().map(Some).collect();
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(3)).unwrap();
    let mut v = 4;
    // Blue (seat 2) leaves right after its 5th move and comes back when its turn comes again.
    let mut blue_moves = 0;
    let mut blue_last_v = None;
    for mv in moves.iter().take(60) {
        let seat = usize::from(game.to_move().unwrap());
        if clients[seat].is_none() {
            let (mut back, welcome) =
                Client::hello(server.addr, &code, Some(&tokens[seat]), blue_last_v).await;
            assert_eq!(welcome["d"]["version"], v);
            let missed = events_until(&mut back, v).await;
            let last_position = missed
                .iter()
                .rev()
                .find(|f| f["t"] == "moved")
                .expect("moves were missed");
            assert_eq!(
                last_position["d"]["legal_moves"],
                json!(game.legal_moves()),
                "it resumes knowing its moves"
            );
            assert_eq!(
                missed.first().unwrap()["v"],
                blue_last_v.unwrap() + 1,
                "from the first missed event"
            );
            assert_eq!(
                missed.len() as i64,
                v - blue_last_v.unwrap(),
                "every missed event, in order"
            );
            clients[seat] = Some(back);
        }
        let applied = game.play(mv).unwrap();
        let made = 1 + applied.skipped.len() as i64 + i64::from(applied.outcome.is_some());
        let client = clients[seat].as_mut().unwrap();
        let cid = format!("c{v}");
        client.send_move(&cid, mv, v).await;
        assert_eq!(client.answer(&cid).await["d"]["v"], v + made);
        v += made;
        if seat == 2 {
            blue_moves += 1;
            if blue_moves == 5 {
                clients[2].take().unwrap().close().await;
                blue_last_v = Some(v);
            }
        }
    }
    assert!(blue_moves > 5, "blue came back and played on");
    server.shutdown().await;
}

#[tokio::test]
async fn after_a_resignation_the_other_two_finish_the_game() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, _, _, mut clients, mut spectator) = khan_tsin_room(&server, 3).await;
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(3)).unwrap();
    let mut rng = Xorshift(7);
    let mut random_moves = |game: &mut AnyGame, count: usize| -> Vec<String> {
        let mut probe = game.clone();
        let mut moves = Vec::new();
        while moves.len() < count && probe.outcome().is_none() {
            let legal = probe.legal_moves();
            let mv = legal[rng.below(legal.len())].clone();
            probe.play(&mv).unwrap();
            moves.push(mv);
        }
        moves
    };
    // The 36 placements and moves until Green is on move; then Green resigns: its pawns stay, its
    // turns are skipped, and the turn passes on.
    let placements = random_moves(&mut game, 36);
    let (mut v, _) = play_through(&mut clients, &mut game, &placements, 4).await;
    while game.to_move() != Some(1) {
        let next = random_moves(&mut game, 1);
        v = play_through(&mut clients, &mut game, &next, v).await.0;
    }
    clients[1].command("resign", "r", json!({})).await;
    let ack = clients[1].answer("r").await;
    let resigned = game.resign(1).unwrap();
    assert_eq!(ack["d"]["v"], v + 1 + resigned.skipped.len() as i64);
    let left = spectator.event("left", v + 1).await;
    assert_eq!(
        left["d"],
        json!({"seat": 1, "reason": "resignation", "position": game.position(), "to_move": game.to_move()})
    );
    let next = usize::from(game.to_move().expect("the game goes on"));
    let left_to_next = clients[next].event("left", v + 1).await;
    assert_eq!(
        left_to_next["d"]["legal_moves"],
        json!(game.legal_moves()),
        "the seat now on move is told its moves"
    );
    let other = 2 - next;
    assert!(
        clients[other].event("left", v + 1).await["d"]
            .get("legal_moves")
            .is_none()
    );
    v = ack["d"]["v"].as_i64().unwrap();
    // Green has no say any more.
    clients[1].command("offer_draw", "o1", json!({})).await;
    assert_eq!(clients[1].answer("o1").await["d"]["code"], "not_a_player");
    clients[0].command("offer_draw", "o0", json!({})).await;
    assert_eq!(clients[0].answer("o0").await["d"]["v"], v + 1);
    v += 1;
    clients[1]
        .command("decline", "d1", json!({"offer": 1}))
        .await;
    assert_eq!(
        clients[1].answer("d1").await["d"]["code"],
        "not_a_player",
        "a player who left cannot veto a draw"
    );
    clients[0]
        .command("decline", "w0", json!({"offer": 1}))
        .await;
    assert_eq!(clients[0].answer("w0").await["d"]["v"], v + 1);
    v += 1;
    assert_eq!(game.in_play(), vec![0, 2]);
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(summary["seats"][1]["left"], true);
    assert_eq!(summary["seats"][0]["left"], false);
    // White and Blue play on; then White resigns too, and Blue, the last one in, wins.
    let more = random_moves(&mut game, 20);
    play_through(&mut clients, &mut game, &more, v).await;
    if game.outcome().is_none() {
        clients[0].command("resign", "r0", json!({})).await;
        let ack = clients[0].answer("r0").await;
        let over = spectator
            .event("game_over", ack["d"]["v"].as_i64().unwrap())
            .await;
        assert_eq!(
            over["d"]["result"],
            json!({"winner": 2, "reason": "resignation"})
        );
    }
    let record = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert!(record.finished_at >= record.started_at.unwrap());
    server.shutdown().await;
}

#[tokio::test]
async fn a_draw_needs_every_remaining_player_to_accept() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let (room_id, _, _, mut clients, mut spectator) = khan_tsin_room(&server, 3).await;
    clients[0].command("offer_draw", "o", json!({})).await;
    assert_eq!(clients[0].answer("o").await["d"]["v"], 5);
    let offer = spectator.event("offer", 5).await;
    assert_eq!(
        offer["d"],
        json!({"id": 1, "kind": "draw", "by": 0, "accepted": []})
    );
    clients[1]
        .command("accept", "a1", json!({"offer": 1}))
        .await;
    assert_eq!(clients[1].answer("a1").await["d"]["v"], 6);
    assert_eq!(
        spectator.event("offer_accepted", 6).await["d"],
        json!({"id": 1, "by": 1})
    );
    // Accepting twice changes nothing; the offerer cannot accept its own offer.
    clients[1]
        .command("accept", "a1b", json!({"offer": 1}))
        .await;
    assert_eq!(clients[1].answer("a1b").await["d"]["v"], 6);
    clients[0]
        .command("accept", "a0", json!({"offer": 1}))
        .await;
    assert_eq!(clients[0].answer("a0").await["d"]["code"], "no_such_offer");
    let (mut late, _) = Client::hello(server.addr, &room_id, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(
        snapshot["d"]["offers"],
        json!([{"id": 1, "kind": "draw", "by": 0, "accepted": [1]}])
    );
    clients[2]
        .command("accept", "a2", json!({"offer": 1}))
        .await;
    assert_eq!(clients[2].answer("a2").await["d"]["v"], 7);
    let over = spectator.event("game_over", 7).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": null, "reason": "agreement"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn colours_layout_and_seats_are_chosen_at_creation() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let layout = "123".repeat(12);
    let (status, created) = post(
        server.addr,
        "/api/rooms",
        &json!({"game": "khan-tsin", "seats": 2, "seat": "blue", "options": {"colors": ["blue", "green"], "layout": layout}}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    // Turn order is lightest first: green is seat 0, blue seat 1; white is neutral.
    assert_eq!(
        (created["seat"].as_u64(), created["color"].as_str()),
        (Some(1), Some("blue"))
    );
    let code = created["invite_code"].as_str().unwrap();
    let (status, joined) = post(
        server.addr,
        &format!("/api/rooms/{code}/join"),
        &json!({"seat": "green"}),
    )
    .await;
    assert_eq!((status, joined["seat"].as_u64()), (200, Some(0)));
    let (mut spectator, _) = Client::hello(server.addr, code, None, None).await;
    let snapshot = spectator.next_of("snapshot").await;
    let position = snapshot["d"]["position"].as_str().unwrap();
    assert!(position.ends_with(&format!(" {layout} gb g")), "{position}");
    for (body, code) in [
        (json!({"game": "khan-tsin", "seats": 4}), "bad_request"),
        (
            json!({"game": "khan-tsin", "options": {"layout": "231"}}),
            "bad_request",
        ),
        (
            json!({"game": "khan-tsin", "options": {"colors": ["white", "white"]}}),
            "bad_request",
        ),
        (
            json!({"game": "khan-tsin", "options": {"colors": ["red", "green"]}}),
            "bad_request",
        ),
        (
            json!({"game": "khan-tsin", "seats": 3, "options": {"colors": ["white", "green"]}}),
            "bad_request",
        ),
        (
            json!({"game": "khan-tsin", "options": {"start_position": "nonsense"}}),
            "bad_position",
        ),
        (json!({"game": "khan", "seats": 3}), "bad_request"),
        (
            json!({"game": "khan", "options": {"start_position": "10/10 w"}}),
            "bad_position",
        ),
    ] {
        let (status, answer) = post(server.addr, "/api/rooms", &body).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some(code)),
            "{body}: {answer}"
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_three_player_room_survives_a_restart() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let moves = game_with_skips_and_a_win(3, 0);
    let (room_id, code, tokens, mut clients, _) = khan_tsin_room(&server, 3).await;
    let mut game = AnyGame::new(GameKind::KhanTsin, &setup(3)).unwrap();
    let (v, _) = play_through(&mut clients, &mut game, &moves[..40], 4).await;
    drop(clients);
    server.shutdown().await;

    let server = TestServer::start(&db.url).await;
    let mut clients = Vec::new();
    for token in &tokens {
        let (client, welcome) = Client::hello(server.addr, &code, Some(token), Some(v)).await;
        assert_eq!(welcome["d"]["version"], v, "versions continue");
        clients.push(client);
    }
    let (last, _) = play_through(&mut clients, &mut game, &moves[40..], v).await;
    let record = server
        .store
        .game_record(Uuid::parse_str(&room_id).unwrap())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(record.moves, moves);
    let (_, summary) = get(server.addr, &format!("/api/rooms/{room_id}")).await;
    assert_eq!(
        (summary["status"].as_str(), summary["version"].as_i64()),
        (Some("finished"), Some(last))
    );
    server.shutdown().await;
}
