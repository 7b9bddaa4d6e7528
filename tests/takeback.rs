//! Takebacks over WebSockets with the real server: in each game (Ouk Chatrang, Khan, Khan-Tsin
//! for 2 and 3 players) a takeback declined and one accepted, what every seat and a spectator are
//! sent, a retried `cid` answered once, the stored log keeping what happened while the moves
//! table, `/g/{id}`'s record and the PGN keep the line of play; the clocks back to the
//! millisecond (manual clock); the computer accepting in a practice game, move after move; Ouk Chatrang's counting
//! rows following the line on SQLite; a room killed with SIGKILL after a takeback restored to
//! the very same state; and an open offer through a SIGTERM (a rolling restart), accepted after.

mod support;

use std::time::Duration;

use khanate::clock::Clock;
use khanate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};
use khanate::store::{RoomRef, Store};
use serde_json::{Value, json};
use support::server::{
    Process, TestServer, get, get_text, post, room_with_every_seat, server_with_clock,
};
use support::ws::Client;
use uuid::Uuid;

/// A room with every seat connected and a spectator watching, and the test's own copy of the game.
struct Table {
    room_id: String,
    code: String,
    tokens: Vec<String>,
    players: Vec<Client>,
    watcher: Client,
    game: AnyGame,
    /// The room's version as the last answer gave it.
    v: i64,
    /// Every move of the line of play, in canonical notation.
    line: Vec<String>,
}

impl Table {
    /// A room of `game` (`extra` as for `room_with_every_seat`), everyone past their snapshots.
    async fn new(addr: std::net::SocketAddr, game: &str, extra: Value) -> Table {
        let (room_id, code, tokens) = room_with_every_seat(addr, game, extra).await;
        let mut players = Vec::new();
        let mut snapshot = Value::Null;
        for token in &tokens {
            let (mut client, _) = Client::hello(addr, &code, Some(token), None).await;
            snapshot = client.next_of("snapshot").await;
            players.push(client);
        }
        let (mut watcher, _) = Client::hello(addr, &code, None, None).await;
        watcher.next_of("snapshot").await;
        let setup = GameOptions {
            start_position: Some(snapshot["d"]["start_position"].as_str().unwrap().into()),
            ..GameOptions::default()
        };
        let kind: GameKind = game.parse().unwrap();
        Table {
            room_id,
            code,
            tokens,
            players,
            watcher,
            game: AnyGame::new(kind, &setup).unwrap(),
            v: snapshot["v"].as_i64().unwrap(),
            line: Vec::new(),
        }
    }

    fn room(&self) -> Uuid {
        Uuid::parse_str(&self.room_id).unwrap()
    }

    /// Every client: the players in seat order, then the spectator.
    fn everyone(&mut self) -> impl Iterator<Item = &mut Client> {
        self.players
            .iter_mut()
            .chain(std::iter::once(&mut self.watcher))
    }

    /// `seat`'s command `t` with data `d` as `cid`; its answer (the version is kept from an ack).
    async fn command(&mut self, seat: Seat, t: &str, cid: &str, d: Value) -> Value {
        let client = &mut self.players[usize::from(seat)];
        client.command(t, cid, d).await;
        let answer = client.answer(cid).await;
        if answer["t"] == "ack" {
            self.v = answer["d"]["v"].as_i64().unwrap();
        }
        answer
    }

    /// The seat on move plays its `nth` legal move; every client is sent it. Returns the seat.
    async fn play(&mut self, nth: usize) -> Seat {
        let seat = self.game.to_move().expect("a seat on move");
        let legal = self.game.legal_moves();
        let mv = legal[nth % legal.len()].clone();
        let moved_at = self.v + 1;
        let cid = format!("m{}-{}", self.line.len(), self.v);
        let answer = self
            .command(seat, "move", &cid, json!({"move": mv, "v": self.v}))
            .await;
        assert_eq!(answer["t"], "ack", "{answer}");
        let applied = self.game.play(&mv).unwrap();
        self.line.push(applied.notation);
        let position = self.game.position();
        for client in self.everyone() {
            assert_eq!(
                client.event("moved", moved_at).await["d"]["position"],
                position
            );
        }
        seat
    }

    /// What a newcomer sees: a spectator's snapshot, without the fields that change with who
    /// is connected.
    async fn snapshot(&self, addr: std::net::SocketAddr) -> Value {
        let (mut late, _) = Client::hello(addr, &self.code, None, None).await;
        let mut snapshot = late.next_of("snapshot").await;
        let d = snapshot["d"].as_object_mut().unwrap();
        d.remove("spectators");
        d.remove("seats");
        snapshot
    }
}

/// The kinds of the room's stored events after `game_started`.
async fn stored_kinds(store: &Store, room: Uuid) -> Vec<String> {
    let stored = store.load_room(RoomRef::Id(room)).await.unwrap().unwrap();
    let kinds: Vec<String> = stored.events.into_iter().map(|e| e.kind).collect();
    let started = kinds.iter().position(|k| k == "game_started").unwrap();
    kinds[started + 1..].to_vec()
}

/// In `game` (`extra`: seats), the last mover's takeback declined, then one accepted; a retried
/// accept answered once; the game finished; its log, moves table and record checked.
async fn declined_then_accepted(server: &TestServer, game: &str, extra: Value) {
    let mut t = Table::new(server.addr, game, extra).await;
    let players = t.players.len();
    let everyone_else = |by: Seat| (0..players as Seat).filter(move |s| *s != by);
    let mut last = 0;
    for _ in 0..players {
        last = t.play(0).await;
    }
    // Declined: the offer goes to everyone, the first other seat declines, nothing is taken back.
    let before = t.game.position();
    let answer = t.command(last, "offer_takeback", "tb1", json!({})).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    let offered_at = t.v;
    for client in t.everyone() {
        let offer = client.event("offer", offered_at).await;
        assert_eq!(
            offer["d"],
            json!({"id": 1, "kind": "takeback", "by": last, "accepted": [], "plies": 1})
        );
    }
    let decliner = everyone_else(last).next().unwrap();
    let answer = t
        .command(decliner, "decline", "no1", json!({"offer": 1}))
        .await;
    assert_eq!(answer["t"], "ack");
    let declined_at = t.v;
    for client in t.everyone() {
        let declined = client.event("offer_declined", declined_at).await;
        assert_eq!(declined["d"], json!({"id": 1, "by": decliner}));
    }
    let again = t.command(last, "offer_takeback", "tb2", json!({})).await;
    assert_eq!(again["d"]["code"], "rate_limited", "{again}");

    // Accepted: the next mover takes its move back, everyone else agrees.
    let before_move = t.game.clone();
    let mover = t.play(1).await;
    assert_eq!(t.line.len(), players + 1);
    assert_eq!(
        t.command(mover, "offer_takeback", "tb3", json!({})).await["t"],
        "ack"
    );
    let offered_at = t.v;
    let others: Vec<Seat> = everyone_else(mover).collect();
    for (i, seat) in others.iter().enumerate() {
        let cid = format!("yes{seat}");
        let answer = t.command(*seat, "accept", &cid, json!({"offer": 2})).await;
        assert_eq!(
            answer["d"],
            json!({"cid": cid, "v": offered_at + 1 + i as i64})
        );
    }
    let taken_back_at = t.v;
    if players == 3 {
        let accepted = t.watcher.event("offer_accepted", offered_at + 1).await;
        assert_eq!(accepted["d"], json!({"id": 2, "by": others[0]}));
    }
    t.game = before_move;
    t.line.pop();
    let position = t.game.position();
    let legal = t.game.legal_moves();
    for (i, client) in t.everyone().enumerate() {
        let frame = client.event("taken_back", taken_back_at).await;
        assert_eq!(frame["d"]["plies"], 1);
        assert_eq!(frame["d"]["position"], position);
        assert_eq!(frame["d"]["to_move"], mover);
        let own = i == usize::from(mover);
        assert_eq!(frame["d"].get("legal_moves").is_some(), own, "{frame}");
        if own && game != "khan" {
            assert_eq!(frame["d"]["legal_moves"], json!(legal));
        }
    }
    // The last accept retried: answered as before, and nothing happens twice.
    let retry = format!("yes{}", others[others.len() - 1]);
    let last_other = *others.last().unwrap();
    let answer = t
        .command(last_other, "accept", &retry, json!({"offer": 2}))
        .await;
    assert_eq!(answer["d"], json!({"cid": retry, "v": taken_back_at}));
    let (_, summary) = get(server.addr, &format!("/api/rooms/{}", t.room_id)).await;
    assert_eq!(summary["version"], taken_back_at);
    let snapshot = t.snapshot(server.addr).await;
    assert_eq!(snapshot["d"]["position"], position);
    assert_eq!(snapshot["d"]["moves"], json!(t.line));
    assert_eq!(snapshot["d"]["to_move"], mover);
    assert_eq!(snapshot["d"]["offers"], json!([]));
    assert_eq!(before, position, "the declined takeback took nothing back");

    // The line goes on with another move, then the game ends by resignation.
    t.play(2).await;
    let resigners: Vec<Seat> = (0..players as Seat - 1).collect();
    for seat in resigners {
        let answer = t
            .command(seat, "resign", &format!("r{seat}"), json!({}))
            .await;
        assert_eq!(answer["t"], "ack", "{answer}");
    }
    let mut kinds = vec!["moved"; players];
    kinds.extend(["offer", "offer_declined", "moved", "offer"]);
    kinds.extend(std::iter::repeat_n("offer_accepted", players - 2));
    kinds.extend(["taken_back", "moved"]);
    // Three players: each resignation is a `left`, the last one also ends the game.
    let lefts = if players > 2 { players - 1 } else { 0 };
    kinds.extend(std::iter::repeat_n("left", lefts));
    kinds.push("game_over");
    let stored = stored_kinds(&server.store, t.room()).await;
    let stored: Vec<&str> = stored.iter().map(String::as_str).collect();
    assert_eq!(stored, kinds, "the log keeps what happened");
    let rows = server.store.moves(t.room()).await.unwrap();
    let plies: Vec<i32> = rows.iter().map(|r| r.ply).collect();
    let notations: Vec<&str> = rows.iter().map(|r| r.notation.as_str()).collect();
    assert_eq!(plies, (1..=t.line.len() as i32).collect::<Vec<_>>());
    assert_eq!(notations, t.line, "the moves table is the line of play");
    let (status, record) = get(server.addr, &format!("/api/games/{}", t.room_id)).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(record["moves"], json!(t.line));
    assert_eq!(record["history"].as_array().unwrap().len(), t.line.len());
    let (_, text) = get_text(server.addr, &format!("/api/games/{}/record", t.room_id)).await;
    let move_lines = text.lines().filter(|l| l.starts_with(char::is_numeric));
    assert_eq!(move_lines.count(), t.line.len(), "{text}");
}

#[tokio::test]
async fn ouk_chatrang_takeback_declined_and_accepted() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    declined_then_accepted(&server, "ouk-chatrang", json!({})).await;
    server.shutdown().await;
}

#[tokio::test]
async fn khan_takeback_declined_and_accepted() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    declined_then_accepted(&server, "khan", json!({})).await;
    server.shutdown().await;
}

#[tokio::test]
async fn khan_tsin_takeback_declined_and_accepted_with_two_players() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    declined_then_accepted(&server, "khan-tsin", json!({})).await;
    server.shutdown().await;
}

#[tokio::test]
async fn khan_tsin_takeback_declined_and_accepted_with_three_players() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    declined_then_accepted(&server, "khan-tsin", json!({"seats": 3})).await;
    server.shutdown().await;
}

/// The clock of a frame without its server timestamp.
fn clock_of(frame: &Value) -> Value {
    let mut clock = frame["d"]["clock"].clone();
    clock.as_object_mut().unwrap().remove("at");
    clock
}

#[tokio::test]
async fn the_clocks_go_back_to_before_the_move_taken_back_to_the_millisecond() {
    let db = support::db::fresh_postgres().await;
    let clock = Clock::manual();
    let server = server_with_clock(&db.url, &clock).await;
    let body = json!({"clock": {"initial_s": 60, "increment_s": 2}});
    let mut t = Table::new(server.addr, "ouk-chatrang", body).await;
    let ms = |n| Duration::from_millis(n);
    // White 5 s, Black 7 s, White 3.5 s: 57 000, 55 000, then White 55 500.
    for (mv, thinking) in [("e3e4", 5_000), ("d6d5", 7_000), ("e4d5", 3_500)] {
        clock.advance(ms(thinking));
        let seat = t.game.to_move().unwrap();
        let answer = t
            .command(seat, "move", mv, json!({"move": mv, "v": t.v}))
            .await;
        assert_eq!(answer["t"], "ack", "{answer}");
        t.game.play(mv).unwrap();
    }
    let moved = t.watcher.event("moved", t.v).await;
    assert_eq!(
        clock_of(&moved),
        json!({"remaining_ms": [55_500, 55_000], "running": 1})
    );
    clock.advance(ms(1_000));
    assert_eq!(
        t.command(0, "offer_takeback", "tb", json!({})).await["t"],
        "ack"
    );
    // Black thinks 3 s over it, then accepts: nobody is charged, and the clocks are those of
    // before White's exd5 (Black's own 4 s go back too), White's running.
    clock.advance(ms(3_000));
    assert_eq!(
        t.command(1, "accept", "ok", json!({"offer": 1})).await["t"],
        "ack"
    );
    let back = t.watcher.event("taken_back", t.v).await;
    assert_eq!(
        clock_of(&back),
        json!({"remaining_ms": [57_000, 55_000], "running": 0})
    );
    // White's clock runs from the takeback: its flag comes exactly 57 s later.
    clock.advance(ms(56_999));
    let (mut late, _) = Client::hello(server.addr, &t.code, None, None).await;
    let snapshot = late.next_of("snapshot").await;
    assert_eq!(snapshot["d"]["clock"]["remaining_ms"], json!([1, 55_000]));
    clock.advance(ms(1));
    let over = t.watcher.event("game_over", t.v + 1).await;
    assert_eq!(
        over["d"]["result"],
        json!({"winner": 1, "reason": "timeout"})
    );
    assert_eq!(
        clock_of(&over),
        json!({"remaining_ms": [0, 55_000], "running": null})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_computer_accepts_a_takeback_in_a_practice_game() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let body = json!({"game": "ouk-chatrang", "seat": 0, "bots": [{"seat": 1, "level": 1}]});
    let (status, created) = post(server.addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    let token = created["seat_token"].as_str().unwrap();
    let code = created["invite_code"].as_str().unwrap();
    let (mut white, _) = Client::hello(server.addr, code, Some(token), None).await;
    let snapshot = white.next_of("snapshot").await;
    let start = snapshot["d"]["position"].clone();
    let v = snapshot["v"].as_i64().unwrap();
    white.send_move("w1", "e3e4", v).await;
    assert_eq!(white.answer("w1").await["d"]["v"], v + 1);
    let reply = white.event("moved", v + 2).await;
    assert_eq!(reply["d"]["seat"], 1, "the computer answered");
    white.command("offer_takeback", "tb", json!({})).await;
    // The offer and its acceptance in one command: both plies go.
    assert_eq!(white.answer("tb").await["d"]["v"], v + 4);
    let offer = white.event("offer", v + 3).await;
    assert_eq!(
        offer["d"],
        json!({"id": 1, "kind": "takeback", "by": 0, "accepted": [1], "plies": 2})
    );
    let back = white.event("taken_back", v + 4).await;
    assert_eq!(back["d"]["plies"], 2);
    assert_eq!(back["d"]["position"], start);
    assert_eq!(back["d"]["to_move"], 0);
    assert!(
        back["d"]["legal_moves"]
            .as_array()
            .is_some_and(|l| l.len() == 25)
    );
    // The computer plays on from there.
    white.send_move("w2", "d3d4", v + 4).await;
    assert_eq!(white.answer("w2").await["t"], "ack");
    let reply = white.event("moved", v + 6).await;
    assert_eq!(reply["d"]["seat"], 1);
    // Against the computer a takeback is an undo: asked again at once, the move before goes too
    // (no "one offer per move" there: the offer was accepted).
    white.send_move("w3", "c3c4", v + 6).await;
    assert_eq!(white.answer("w3").await["t"], "ack");
    assert_eq!(white.event("moved", v + 8).await["d"]["seat"], 1);
    white.command("offer_takeback", "tb2", json!({})).await;
    assert_eq!(white.answer("tb2").await["d"]["v"], v + 10);
    assert_eq!(white.event("taken_back", v + 10).await["d"]["plies"], 2);
    white.command("offer_takeback", "tb3", json!({})).await;
    let undo = white.answer("tb3").await;
    assert_eq!(
        (&undo["t"], &undo["d"]["v"]),
        (&json!("ack"), &json!(v + 12)),
        "{undo}"
    );
    let back = white.event("taken_back", v + 12).await;
    assert_eq!(
        (&back["d"]["plies"], &back["d"]["position"]),
        (&json!(2), &start)
    );
    server.shutdown().await;
}

#[tokio::test]
async fn ouk_chatrangs_counting_rows_follow_the_line_of_play_on_sqlite() {
    let (_file, url) = support::db::fresh_sqlite_url();
    let server = TestServer::start(&url).await;
    // White's a1a7 takes Black's last piece but the King: a piece's honour count starts (O-19).
    let body = json!({"options": {"start_position": "4k3/r7/8/8/8/8/8/R2K4 w - - 0 1"}});
    let mut t = Table::new(server.addr, "ouk-chatrang", body).await;
    let moved = |mv: &str, v: i64| json!({"move": mv, "v": v});
    t.command(0, "move", "w1", moved("a1a7", t.v)).await;
    let capture = t.watcher.event("moved", t.v).await;
    assert_eq!(capture["d"]["counting"]["kind"], "piece");
    t.command(0, "offer_takeback", "tb", json!({})).await;
    t.command(1, "accept", "ok", json!({"offer": 1})).await;
    let back = t.watcher.event("taken_back", t.v).await;
    assert_eq!(back["d"]["counting"]["kind"], "board", "{back}");
    assert_eq!(
        back["d"]["material"],
        json!({"0": {"captured": ""}, "1": {"captured": ""}})
    );
    // Another line: the Rook goes to a2, Black's Rook takes it.
    t.command(0, "move", "w2", moved("a1a2", t.v)).await;
    t.command(1, "move", "b1", moved("a7a2", t.v)).await;
    t.command(0, "resign", "r", json!({})).await;
    let (status, record) = get(server.addr, &format!("/api/games/{}", t.room_id)).await;
    assert_eq!(status, 200, "{record}");
    assert_eq!(record["moves"], json!(["a1a2", "a7a2"]));
    let plies: Vec<&Value> = record["extra_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| &row["ply"])
        .collect();
    assert_eq!(plies, [&json!(1), &json!(2)], "{record}");
    assert_eq!(record["extra_history"][0]["counting"]["kind"], "board");
    let history = server.store.extra_history(t.room()).await.unwrap();
    assert_eq!(history.len(), 2);
    server.shutdown().await;
}

#[tokio::test]
async fn a_room_killed_after_a_takeback_is_restored_to_the_same_state() {
    let db = support::db::fresh_postgres().await;
    let process = Process::start(&db.url);
    let mut t = Table::new(process.addr, "ouk-chatrang", json!({})).await;
    // The start position three times, White on move (b1d2 b8d7 d2b1 d7b8, twice).
    for _ in 0..2 {
        for mv in ["b1d2", "b8d7", "d2b1", "d7b8"] {
            let seat = t.game.to_move().unwrap();
            let cid = format!("m{}", t.v);
            let answer = t
                .command(seat, "move", &cid, json!({"move": mv, "v": t.v}))
                .await;
            assert_eq!(answer["t"], "ack");
            t.game.play(mv).unwrap();
        }
    }
    t.command(0, "offer_takeback", "tb", json!({})).await;
    let accepted = t.command(1, "accept", "ok", json!({"offer": 1})).await;
    assert_eq!(accepted["t"], "ack");
    let accepted_v = t.v;
    let claim = json!({"reason": "repetition"});
    let refused = t.command(0, "claim_draw", "c1", claim.clone()).await;
    assert_eq!(
        refused["d"]["code"], "cannot_claim",
        "seen twice since the takeback"
    );
    let before = t.snapshot(process.addr).await;
    assert_eq!(before["d"]["moves"].as_array().unwrap().len(), 6);
    process.kill();

    let process = Process::start(&db.url);
    let after = t.snapshot(process.addr).await;
    assert_eq!(after, before, "the same state after kill -9");
    let (mut black, _) = Client::hello(process.addr, &t.code, Some(&t.tokens[1]), None).await;
    black.next_of("snapshot").await;
    // The accept retried after the restart: the ack rebuilt from the stored events.
    black.command("accept", "ok", json!({"offer": 1})).await;
    assert_eq!(
        black.answer("ok").await["d"],
        json!({"cid": "ok", "v": accepted_v})
    );
    let (mut white, _) = Client::hello(process.addr, &t.code, Some(&t.tokens[0]), None).await;
    white.next_of("snapshot").await;
    white.command("claim_draw", "c2", claim.clone()).await;
    assert_eq!(white.answer("c2").await["d"]["code"], "cannot_claim");
    // The same two moves again make the third occurrence, and the claim is good.
    white.send_move("w", "d2b1", accepted_v).await;
    assert_eq!(white.answer("w").await["t"], "ack");
    black.send_move("b", "d7b8", accepted_v + 1).await;
    assert_eq!(black.answer("b").await["t"], "ack");
    white.command("claim_draw", "c3", claim).await;
    assert_eq!(white.answer("c3").await["t"], "ack");
    let store = Store::connect(&db.url).await.unwrap();
    let rows = store.moves(t.room()).await.unwrap();
    assert_eq!(rows.len(), 8);
    assert_eq!(
        rows.iter().map(|r| r.ply).collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );
    let record = store
        .game_record(t.room())
        .await
        .unwrap()
        .expect("finished");
    assert_eq!(record.reason, "repetition");
    assert_eq!(record.moves.len(), 8);
    process.kill();
}

#[tokio::test]
async fn an_open_takeback_offer_outlives_a_restart_and_is_accepted_after_it() {
    let db = support::db::fresh_postgres().await;
    let process = Process::start(&db.url);
    let mut t = Table::new(process.addr, "khan", json!({})).await;
    t.play(0).await;
    t.play(0).await;
    let offered = t.command(1, "offer_takeback", "tb", json!({})).await;
    assert_eq!(offered["t"], "ack", "{offered}");
    let before = t.snapshot(process.addr).await;
    assert_eq!(
        before["d"]["offers"],
        json!([{"id": 1, "kind": "takeback", "by": 1, "accepted": [], "plies": 1}])
    );
    // A rolling restart's SIGTERM: the node closes its sockets and stops; a new one restores the
    // room from its stored events, the offer and its limits with it.
    process.signal("TERM");
    assert!(process.wait(), "a clean exit");
    let process = Process::start(&db.url);
    assert_eq!(t.snapshot(process.addr).await, before);
    // White, whose accept the restart cut off, accepts on reconnecting: the move is taken back.
    let (mut white, _) = Client::hello(process.addr, &t.code, Some(&t.tokens[0]), None).await;
    white.next_of("snapshot").await;
    white.command("accept", "a1", json!({"offer": 1})).await;
    let accepted = white.answer("a1").await;
    assert_eq!(accepted["t"], "ack", "{accepted}");
    let back = white.event("taken_back", t.v + 1).await;
    assert_eq!(
        (&back["d"]["plies"], &back["d"]["to_move"]),
        (&json!(1), &json!(1))
    );
    process.kill();
}

#[tokio::test]
async fn a_pass_and_play_table_joined_as_one_player_undoes_without_limits() {
    let db = support::db::fresh_postgres().await;
    let server = TestServer::start(&db.url).await;
    let body = json!({"game": "ouk-chatrang", "seat": 0});
    let (status, created) = post(server.addr, "/api/rooms", &body).await;
    assert_eq!(status, 201, "{created}");
    let code = created["invite_code"].as_str().unwrap();
    let white_token = created["seat_token"].as_str().unwrap();
    let join = format!("/api/rooms/{code}/join");
    // A token of no seat of this room is refused, and takes no seat.
    let forged = json!({"seat": 1, "same_player": "00112233445566778899aabbccddeeff"});
    let (status, refused) = post(server.addr, &join, &forged).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (403, &json!("bad_token")),
        "{refused}"
    );
    let same = json!({"seat": 1, "same_player": white_token});
    let (status, joined) = post(server.addr, &join, &same).await;
    assert_eq!(status, 200, "{joined}");
    let room = Uuid::parse_str(created["room_id"].as_str().unwrap()).unwrap();
    let store = Store::connect(&db.url).await.unwrap();
    let stored = store.load_room(RoomRef::Id(room)).await.unwrap().unwrap();
    let taken: Vec<Value> = stored
        .events
        .into_iter()
        .filter(|e| e.kind == "seat_taken")
        .map(|e| e.data)
        .collect();
    assert_eq!(taken[1]["same_player_as"], 0, "{taken:?}");
    assert_eq!(taken[0].get("same_player_as"), None, "{taken:?}");

    let (mut white, _) = Client::hello(server.addr, code, Some(white_token), None).await;
    let snapshot = white.next_of("snapshot").await;
    let token = joined["seat_token"].as_str().unwrap();
    let (mut black, _) = Client::hello(server.addr, code, Some(token), None).await;
    black.next_of("snapshot").await;
    let mut v = snapshot["v"].as_i64().unwrap();
    let mut game = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
    let mut positions = vec![game.position()];
    for (i, mv) in ["e3e4", "d6d5", "b1d2", "b8d7"].into_iter().enumerate() {
        let client = if i % 2 == 0 { &mut white } else { &mut black };
        client.send_move(&format!("m{i}"), mv, v).await;
        v = client.answer(&format!("m{i}")).await["d"]["v"]
            .as_i64()
            .unwrap();
        game.play(mv).unwrap();
        positions.push(game.position());
    }
    // Declined, then asked again at once, twice, each accepted: an undo, without limits.
    white.command("offer_takeback", "t1", json!({})).await;
    assert_eq!(white.answer("t1").await["t"], "ack");
    black.command("decline", "d1", json!({"offer": 1})).await;
    assert_eq!(black.answer("d1").await["t"], "ack");
    for (offer, back_to) in [(2, 2), (3, 0)] {
        let cid = format!("t{offer}");
        white.command("offer_takeback", &cid, json!({})).await;
        let offered = white.answer(&cid).await;
        assert_eq!(offered["t"], "ack", "{offered}");
        let cid = format!("a{offer}");
        black.command("accept", &cid, json!({"offer": offer})).await;
        let v = black.answer(&cid).await["d"]["v"].as_i64().unwrap();
        let back = white.event("taken_back", v).await;
        assert_eq!(back["d"]["position"], positions[back_to], "{back}");
    }
    server.shutdown().await;
}
