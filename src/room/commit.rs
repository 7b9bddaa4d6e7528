//! Staging a command's effect: the events applied to the room's state, and the rows that record
//! them, written by the store in one transaction before anything is acknowledged.
//!
//! Staging changes the state in place (copying a room's whole history per command cost more than
//! anything else a move does). The room must not go on from a state whose commit failed or whose
//! staging erred: it reloads from the database instead, which holds exactly what was stored.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use serde_json::Value;

use super::state::RoomState;
use crate::bot::Level;
use crate::protocol::{Event, RematchInfo};
use crate::rules::{AnyGame, GameOptions, Rules, Seat};
use crate::store::{
    Commit, CreatedRoom, EventRow, ExtraRow, MoveRow, RoomRow, RoomStatus, SeatRow,
};

/// Who made a command's events: the seat, and the command's cid when it came over a socket (a
/// join has none).
#[derive(Clone, Copy)]
pub(super) struct Author<'a> {
    pub seat: Seat,
    pub cid: Option<&'a str>,
}

/// `events` numbered from the version after `version`.
fn numbered(version: i64, events: &[Event]) -> impl Iterator<Item = (i64, &Event)> {
    (version + 1..).zip(events)
}

/// The room's own row for a room that has just been created.
pub(super) fn room_row(state: &RoomState) -> RoomRow {
    RoomRow {
        id: state.id,
        invite_code: state.invite_code.clone(),
        game: state.kind(),
        seats: state.game.players(),
        visibility: state.visibility,
        status: RoomStatus::Waiting,
        version: state.version,
        start_position: state.start_position.clone(),
        options: state.options.clone(),
        created_at: state.created_at,
    }
}

/// A seat taken by the events being staged, and the hash of its new token.
#[derive(Clone, Copy)]
pub(super) struct NewSeat {
    pub seat: Seat,
    pub token_hash: [u8; 32],
    /// The account taking the seat, if its player is logged in.
    pub user_id: Option<Uuid>,
}

/// Applies `events` to `state` and returns the rows they add. `author` is `None` for events the
/// room makes itself (a waiting room expiring); `new_seat` is the seat the events take and its
/// token hash (a join: the author's own seat; `add_bot`: the bot's). Errors when an event does not
/// apply, which for decided events is a bug; `state` is then half changed and must be dropped.
pub(super) fn stage(
    state: &mut RoomState,
    events: &[Event],
    author: Option<Author<'_>>,
    new_seat: Option<NewSeat>,
    at: DateTime<Utc>,
) -> Result<Commit, String> {
    let expected_version = state.version;
    // What is read off the state before the events: the move's ply, the rematch's seats, and
    // whether the game was still on.
    let (mv, extra) =
        match numbered(expected_version, events).find(|(_, e)| matches!(e, Event::Moved { .. })) {
            Some((v, event)) => move_rows(state, v, event, at),
            None => (None, None),
        };
    let new_room = events
        .iter()
        .find_map(|e| match e {
            Event::Rematch(info) => Some(info),
            _ => None,
        })
        .map(|info| rematch_room(state, info, at).map(Box::new))
        .transpose()?;
    let taken_back_to = events.iter().find_map(|e| match e {
        Event::TakenBack { plies, .. } => {
            let keep = state.moves.len().saturating_sub(*plies as usize);
            Some(i32::try_from(keep).unwrap_or(i32::MAX))
        }
        _ => None,
    });
    let game_was_on = state.result.is_none();
    for (v, event) in numbered(expected_version, events) {
        state.apply(v, event, at)?;
    }
    let seats = match new_seat {
        Some(NewSeat {
            seat,
            token_hash,
            user_id,
        }) => {
            let slot = state
                .seats
                .get_mut(usize::from(seat))
                .ok_or_else(|| format!("seat {seat} does not exist"))?;
            slot.token_hash = Some(token_hash);
            slot.user_id = user_id;
            vec![SeatRow {
                seat,
                name: slot.name.clone(),
                token_hash,
                bot: slot.bot.map(Level::get),
                user_id,
                joined_at: at,
            }]
        }
        None => Vec::new(),
    };
    let rows = numbered(expected_version, events)
        .map(|(v, event)| EventRow {
            v,
            kind: event.kind().to_owned(),
            seat: author.map(|a| a.seat),
            cid: author.and_then(|a| a.cid).map(str::to_owned),
            data: event.data(),
            created_at: at,
        })
        .collect();
    let game = if game_was_on {
        state.game_record()
    } else {
        None
    };
    Ok(Commit {
        room_id: state.id,
        expected_version,
        status: state.status,
        events: rows,
        seats,
        mv,
        extra,
        taken_back_to,
        game,
        new_room,
        epoch: None,
        flag_at: state.flag_at(),
        ratings: None,
    })
}

/// The rows of a rematch's new room: the same game from the same start position with the same
/// options, every seat taken by the player `info` moves there (with their name, and the token
/// hash of their seat here, so the token they hold opens the new seat too), and the game started.
/// The seat of this room's creator is taken first, so that player is the new room's creator.
fn rematch_room(
    before: &RoomState,
    info: &RematchInfo,
    at: DateTime<Utc>,
) -> Result<CreatedRoom, String> {
    let setup = GameOptions {
        start_position: Some(before.start_position.clone()),
        ..GameOptions::default()
    };
    let game = AnyGame::new(before.kind(), &setup)
        .map_err(|e| format!("the rematch's start position: {e}"))?;
    let mut options = before.options.clone();
    if let Value::Object(map) = &mut options
        && (!before.spectator_chat || map.contains_key("spectator_chat"))
    {
        map.insert("spectator_chat".into(), Value::Bool(before.spectator_chat));
    }
    let mut fresh = RoomState::new(
        info.room_id,
        info.invite_code.clone(),
        before.visibility,
        options,
        game,
        before.start_position.clone(),
        at,
    );
    let mut order: Vec<_> = info.seats.iter().collect();
    order.sort_by_key(|s| (Some(s.seat) != before.creator, s.new_seat));
    let mut events = Vec::new();
    let mut seats = Vec::new();
    for moved in order {
        let slot = before
            .seats
            .get(usize::from(moved.seat))
            .ok_or_else(|| format!("the rematch names seat {}", moved.seat))?;
        let token_hash = slot
            .token_hash
            .ok_or_else(|| format!("seat {} has no token to carry over", moved.seat))?;
        // A pass-and-play table stays one: the link moves with the seats.
        let same_player_as = slot.same_player_as.and_then(|old| {
            info.seats
                .iter()
                .find(|s| s.seat == old)
                .map(|s| s.new_seat)
        });
        events.push(Event::SeatTaken {
            seat: moved.new_seat,
            color: fresh.game.color(moved.new_seat).to_owned(),
            name: slot.name.clone(),
            bot: slot.bot,
            same_player_as,
            user: slot.user.clone(),
        });
        seats.push(SeatRow {
            seat: moved.new_seat,
            name: slot.name.clone(),
            token_hash,
            bot: slot.bot.map(Level::get),
            user_id: slot.user_id,
            joined_at: at,
        });
    }
    events.push(Event::GameStarted {
        position: fresh.game.position(),
        to_move: fresh.game.to_move(),
        clock: None,
    });
    fresh.stamp_clocks(&mut events, 0, 0, at);
    let room = room_row(&fresh);
    for (v, event) in numbered(0, &events) {
        fresh.apply(v, event, at)?;
    }
    if fresh.status != RoomStatus::Playing {
        return Err("the rematch room did not start".into());
    }
    let rows = numbered(0, &events)
        .map(|(v, event)| EventRow {
            v,
            kind: event.kind().to_owned(),
            seat: match event {
                Event::SeatTaken { seat, .. } => Some(*seat),
                _ => None,
            },
            cid: None,
            data: event.data(),
            created_at: at,
        })
        .collect();
    Ok(CreatedRoom {
        room,
        commit: Commit {
            room_id: fresh.id,
            expected_version: 0,
            status: fresh.status,
            events: rows,
            seats,
            mv: None,
            extra: None,
            taken_back_to: None,
            game: None,
            new_room: None,
            epoch: None,
            flag_at: fresh.flag_at(),
            ratings: None,
        },
    })
}

/// The move row, and the game's own state when it has some, of a `moved` event at version `v`.
fn move_rows(
    before: &RoomState,
    v: i64,
    event: &Event,
    at: DateTime<Utc>,
) -> (Option<MoveRow>, Option<ExtraRow>) {
    let Event::Moved {
        seat,
        mv,
        display,
        position,
        extra,
        clock,
        ..
    } = event
    else {
        return (None, None);
    };
    let ply = i32::try_from(before.moves.len() + 1).unwrap_or(i32::MAX);
    let move_row = MoveRow {
        ply,
        v,
        seat: *seat,
        notation: mv.clone(),
        display: display.clone(),
        position: position.clone(),
        created_at: at,
        clock_ms: clock
            .as_ref()
            .and_then(|clock| clock.remaining_ms.get(usize::from(*seat)))
            .and_then(|ms| i64::try_from(*ms).ok()),
    };
    let extra_row = (!extra.is_empty()).then(|| ExtraRow {
        ply,
        extra: extra.clone(),
    });
    (Some(move_row), extra_row)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Command;
    use crate::room::state::Decision;
    use crate::room::state::testing::two_player_room;
    use crate::rules::GameKind;

    /// `seat`'s command decided and staged on `room`; the new room of a rematch, if it made one.
    fn run(room: &mut RoomState, seat: Seat, command: &Command) -> Option<CreatedRoom> {
        let decision = room
            .decide(Some(seat), command, Default::default())
            .unwrap();
        let Decision::Events { events, .. } = decision else {
            panic!("{decision:?}");
        };
        let commit = stage(room, &events, None, None, Utc::now()).unwrap();
        commit.new_room.map(|room| *room)
    }

    #[test]
    fn a_rematch_keeps_a_pass_and_play_table_one_player() {
        // Black's seat taken by White's player (a join with `same_player`), each with its token.
        let mut room = two_player_room(GameKind::Khan, None, json!({}));
        for (seat, slot) in room.seats.iter_mut().enumerate() {
            slot.token_hash = Some([u8::try_from(seat).unwrap() + 1; 32]);
        }
        room.seats[1].same_player_as = Some(0);
        assert!(room.same_player(0, 1));
        run(&mut room, 0, &Command::Resign);
        run(&mut room, 0, &Command::OfferRematch);
        let rematch = run(&mut room, 1, &Command::Accept { offer: 1 }).expect("a new room");
        // Each seat one on: the creator's seat 0 is seat 1 there, and seat 0 is held by its player.
        let taken: Vec<Value> = rematch
            .commit
            .events
            .iter()
            .filter(|e| e.kind == "seat_taken")
            .map(|e| e.data.clone())
            .collect();
        assert_eq!(
            (taken[0]["seat"].clone(), taken[0].get("same_player_as")),
            (json!(1), None)
        );
        assert_eq!(
            (&taken[1]["seat"], &taken[1]["same_player_as"]),
            (&json!(0), &json!(1))
        );
    }
}
