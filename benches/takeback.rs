//! What a takeback costs the room: the rules have no undo, so accepting one replays the game from
//! its start without the moves taken back (once to decide the `taken_back`, once to apply it).
//! Measured after random games of each kind, for the longest line each reaches (up to 200 plies):
//! the time from the accept to the state applied. Run: `cargo bench --bench takeback`.
//!
//! `cargo test --all-targets` runs this binary too, without `--bench`: it then plays short
//! lines only and checks that each takeback gives back the position before the move.

use std::time::Instant;

// Only the move picker and the summary are used here.
#[allow(dead_code)]
mod common;

use chrono::Utc;
use common::{Xorshift, summary};
use khanate::domain::Visibility;
use khanate::protocol::{Command, Event};
use khanate::room::state::{Absence, Decision, RoomState, SeatChoice};
use khanate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};
use serde_json::json;
use uuid::Uuid;

/// Decides `seat`'s command and applies its events; panics on a refusal (a bug here).
fn run(room: &mut RoomState, seat: Seat, command: &Command) -> Vec<Event> {
    let events = match room.decide(Some(seat), command, Absence::default()) {
        Ok(Decision::Events { events, .. }) => events,
        other => panic!("{command:?}: {other:?}"),
    };
    for event in &events {
        room.apply(room.version + 1, event, Utc::now())
            .unwrap_or_else(|e| panic!("{event:?}: {e}"));
    }
    events
}

/// A room of `kind` for `players` with every seat taken, and `plies` random moves played (fewer
/// when the game ends first; the last move before an end is left unplayed).
fn played(kind: GameKind, players: u8, plies: usize, rng: &mut Xorshift) -> RoomState {
    let setup = GameOptions {
        players: (kind == GameKind::KhanTsin).then_some(players),
        ..GameOptions::default()
    };
    let game = AnyGame::new(kind, &setup).expect("a standard game");
    let start = game.position();
    let mut room = RoomState::new(
        Uuid::nil(),
        "benchmrk".into(),
        Visibility::Private,
        json!({}),
        game,
        start,
        Utc::now(),
    );
    for seat in 0..players {
        let (_, events) = room.decide_join(&SeatChoice::Number(seat), None).unwrap();
        for event in &events {
            room.apply(room.version + 1, event, Utc::now()).unwrap();
        }
    }
    for _ in 0..plies {
        let Some(seat) = room.seat_on_move() else {
            break;
        };
        let moves = room.game.legal_moves();
        let mv = moves[rng.below(moves.len())].clone();
        let mut probe = room.game.clone();
        if probe.play(&mv).map(|a| a.outcome.is_some()).unwrap_or(true) {
            break;
        }
        let v = room.version;
        run(&mut room, seat, &Command::Move { mv, v });
    }
    room
}

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let (plies, games) = if benchmarking { (200, 20) } else { (12, 2) };
    let mut rng = Xorshift(0x7a6b_3c9d_1e2f_4a5b);
    println!("{:<18} {:>6}  accept to applied, µs", "game", "plies");
    for (name, kind, players) in [
        ("ouk-chatrang", GameKind::OukChatrang, 2),
        ("khan", GameKind::Khan, 2),
        ("khan-tsin 2", GameKind::KhanTsin, 2),
        ("khan-tsin 3", GameKind::KhanTsin, 3),
    ] {
        let mut samples = Vec::new();
        let mut lengths = Vec::new();
        for _ in 0..games {
            let mut room = played(kind, players, plies, &mut rng);
            let Some(last) = room.moves.last().map(|m| m.seat) else {
                continue;
            };
            let keep = room.moves.len() - 1;
            let before = match keep.checked_sub(1) {
                Some(i) => room.moves[i].position.clone(),
                None => room.start_position.clone(),
            };
            lengths.push(room.moves.len());
            run(&mut room, last, &Command::OfferTakeback);
            let started = Instant::now();
            for seat in (0..players).filter(|s| *s != last) {
                run(&mut room, seat, &Command::Accept { offer: 1 });
            }
            samples.push(started.elapsed());
            assert_eq!(room.moves.len(), keep, "{name}: one ply taken back");
            assert_eq!(room.game.position(), before, "{name}: the position before");
        }
        let mean = lengths.iter().sum::<usize>() / lengths.len().max(1);
        println!("{name:<18} {mean:>6}  {}", summary(samples));
    }
}
