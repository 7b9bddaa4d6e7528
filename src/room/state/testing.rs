//! Rooms in the shapes the state machine's tests start from.

use chrono::Utc;
use serde_json::json;
use uuid::Uuid;

use super::{Absence, Decision, Refusal, RoomState, SeatChoice};
use crate::domain::Visibility;
use crate::protocol::{Command, Event};
use crate::rules::{AnyGame, GameKind, GameOptions, Rules, Seat};

/// A three-player Khan-Tsin room with no seat taken.
pub(super) fn empty_three_player_room() -> RoomState {
    let setup = GameOptions {
        players: Some(3),
        ..GameOptions::default()
    };
    let game = AnyGame::new(GameKind::KhanTsin, &setup).unwrap();
    let start = game.position();
    RoomState::new(
        Uuid::nil(),
        "abcdefgh".into(),
        Visibility::Private,
        json!({}),
        game,
        start,
        Utc::now(),
    )
}

/// A three-player Khan-Tsin room with every seat taken, before any move.
pub(super) fn three_player_room() -> RoomState {
    let mut room = empty_three_player_room();
    for seat in 0..3 {
        let (_, events) = room.decide_join(&SeatChoice::Number(seat), None).unwrap();
        apply_all(&mut room, &events);
    }
    room
}

/// The events `seat`'s command makes when nobody is absent, or why it is refused; panics on a
/// decision that is not events.
pub(super) fn decide_events(
    room: &RoomState,
    seat: Seat,
    command: &Command,
) -> Result<Vec<Event>, Refusal> {
    match room.decide(Some(seat), command, Absence::default())? {
        Decision::Events { events, .. } => Ok(events),
        other => panic!("{other:?}"),
    }
}

/// The seat on move plays the first of its legal moves.
pub(super) fn play_first_legal_move(room: &mut RoomState) {
    let seat = room.seat_on_move().unwrap();
    let mv = room.game.legal_moves()[0].clone();
    let events = decide_events(
        room,
        seat,
        &Command::Move {
            mv,
            v: room.version,
        },
    )
    .unwrap();
    apply_all(room, &events);
}

/// A three-player Khan-Tsin room with every seat taken and the 36 placements made.
pub(super) fn three_player_room_after_placement() -> RoomState {
    let mut room = three_player_room();
    for _ in 0..36 {
        play_first_legal_move(&mut room);
    }
    room
}

pub(super) fn apply_all(room: &mut RoomState, events: &[Event]) {
    for event in events {
        room.apply(room.version + 1, event, Utc::now()).unwrap();
    }
}

/// A timed two-player room of `kind` from `start` (or the standard start) with `initial_s` and
/// `increment_s` on its clocks, both seats taken.
pub(super) fn timed_room(
    kind: GameKind,
    start: Option<&str>,
    initial_s: u32,
    increment_s: u32,
) -> RoomState {
    let clock = json!({"clock": {"initial_s": initial_s, "increment_s": increment_s}});
    two_player_room(kind, start, clock)
}

/// A two-player room of `kind` from `start` (or the standard start) with `options` (a `clock`
/// makes it timed), both seats taken.
pub(in crate::room) fn two_player_room(
    kind: GameKind,
    start: Option<&str>,
    options: serde_json::Value,
) -> RoomState {
    let setup = GameOptions {
        start_position: start.map(str::to_owned),
        ..GameOptions::default()
    };
    let game = AnyGame::new(kind, &setup).unwrap();
    let position = game.position();
    let mut room = RoomState::new(
        Uuid::nil(),
        "abcdefgh".into(),
        Visibility::Private,
        options,
        game,
        position,
        Utc::now(),
    );
    for seat in 0..2 {
        let (_, mut events) = room.decide_join(&SeatChoice::Number(seat), None).unwrap();
        room.stamp_clocks(&mut events, 0, 0, Utc::now());
        apply_all(&mut room, &events);
    }
    room
}
