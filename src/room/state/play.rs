//! Playing the game itself: a move, a resignation, an abort before everyone has moved, and the
//! draw claimed for a repetition. The rules module says what is legal; this file turns its answer
//! into events.

use super::{PlayedMove, Refusal, RoomState, game_over, rule_code};
use crate::domain::RoomStatus;
use crate::protocol::{Code, Event, OfferKind};
use crate::rules::{EndReason, Outcome, Rules, Seat};

impl RoomState {
    /// A move `mv` (game notation) by `seat`, sent for the position of version `v`: `moved`, the
    /// seats skipped after it, and `game_over` when it ends the game (otherwise the draw offers
    /// the mover had not accepted are declined, and an open takeback offer is closed: declined,
    /// or withdrawn by its offerer's move).
    pub(super) fn decide_move(&self, seat: Seat, mv: &str, v: i64) -> Result<Vec<Event>, Refusal> {
        let seat = self.in_play(seat)?;
        if v > self.version || v < self.position_version {
            return Err(Refusal::new(
                Code::StaleVersion,
                format!(
                    "the move was sent for version {v}, but the position is that of version {}",
                    self.position_version
                ),
            ));
        }
        if self.game.to_move() != Some(seat) {
            return Err(Refusal::new(Code::NotYourTurn, "it is not your turn"));
        }
        let mut probe = self.game.clone();
        let applied = probe
            .play(mv)
            .map_err(|e| Refusal::new(rule_code(e.code), e.message))?;
        let mut events = vec![Event::Moved {
            seat,
            mv: applied.notation,
            display: applied.display,
            position: probe.position(),
            to_move: probe.to_move(),
            captured: applied.captured,
            material: probe.material(),
            check: probe.check(),
            extra: probe.extra(),
            clock: None,
        }];
        events.extend(
            applied
                .skipped
                .into_iter()
                .map(|seat| Event::Skipped { seat }),
        );
        match applied.outcome {
            // The end of the game closes every offer.
            Some(outcome) => events.push(game_over(outcome)),
            // Moving answers a draw offer one has not accepted with "no", as over the board; and a
            // takeback offer asked for the line of play that the move changes.
            None => events.extend(
                self.offers
                    .iter()
                    .filter(|o| match o.kind {
                        OfferKind::Draw => o.by != seat && !o.accepted.contains(&seat),
                        OfferKind::Takeback => true,
                        OfferKind::Rematch => false,
                    })
                    .map(|o| Event::OfferDeclined {
                        id: o.id,
                        by: Some(seat),
                    }),
            ),
        }
        Ok(events)
    }

    /// Plays the stored move `mv` of `seat` on the game and records it, with the clocks as they
    /// were before it (`clock_before`, a timed room).
    pub(super) fn apply_moved(
        &mut self,
        seat: Seat,
        mv: &str,
        clock_before: Option<Vec<u64>>,
    ) -> Result<(), String> {
        if self.game.to_move() != Some(seat) {
            return Err(format!(
                "stored move {mv} is by seat {seat}, who is not on move"
            ));
        }
        let applied = self
            .game
            .play(mv)
            .map_err(|e| format!("stored move {mv}: {e}"))?;
        self.moves.push(PlayedMove {
            notation: applied.notation,
            display: applied.display,
            seat,
            captured: applied.captured,
            position: self.game.position(),
            clock_before,
        });
        if let Some(moved) = self.moved.get_mut(usize::from(seat)) {
            *moved = true;
        }
        self.count_move_for_takebacks(seat);
        Ok(())
    }

    /// An abort by `seat`: while the room waits for players, any player seated in it cancels it;
    /// once the game is on, only while some player still in the game has not made a move
    /// (`cannot_abort`).
    pub(super) fn decide_abort(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        if self.status == RoomStatus::Waiting {
            return Ok(vec![game_over(Outcome::draw(EndReason::Aborted))]);
        }
        self.in_play(seat)?;
        if self.abort_window_closed() {
            return Err(Refusal::new(
                Code::CannotAbort,
                "every player has moved: the game can no longer be aborted (resign or offer a draw)",
            ));
        }
        Ok(vec![game_over(Outcome::draw(EndReason::Aborted))])
    }

    /// A resignation: in a two-player game the opponent wins; in a three-player game the seat
    /// leaves (open offers are withdrawn, since they were made to a table that has changed) and the
    /// others play on, unless only one is left.
    pub(super) fn decide_resign(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        self.decide_leave(self.in_play(seat)?, EndReason::Resignation)
    }

    /// A draw claimed by `seat` for a repetition, when the rules grant it (Ouk Chatrang: the seat
    /// on move, the position seen three times, O-16; never in Khan and Khan-Tsin, whose draws are
    /// automatic); `cannot_claim` otherwise.
    pub(super) fn decide_claim_repetition(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        let seat = self.in_play(seat)?;
        let mut probe = self.game.clone();
        let outcome = probe
            .claim_draw(seat, EndReason::Repetition)
            .map_err(|e| Refusal::new(Code::CannotClaim, e.message))?;
        Ok(vec![game_over(outcome)])
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{
        apply_all, decide_events, play_first_legal_move, three_player_room,
        three_player_room_after_placement,
    };
    use super::*;
    use crate::protocol::Command;

    #[test]
    fn abort_is_allowed_until_every_player_still_in_play_has_moved() {
        let mut room = three_player_room();
        for _ in 0..2 {
            assert!(decide_events(&room, 0, &Command::Abort).is_ok());
            play_first_legal_move(&mut room);
        }
        assert!(
            decide_events(&room, 1, &Command::Abort).is_ok(),
            "the third has not placed yet"
        );
        play_first_legal_move(&mut room);
        assert_eq!(
            decide_events(&room, 0, &Command::Abort).unwrap_err().code,
            Code::CannotAbort
        );
    }

    #[test]
    fn a_resignation_that_keeps_the_turn_does_not_make_the_movers_move_stale() {
        let mut room = three_player_room_after_placement();
        let mover = room.seat_on_move().unwrap();
        let seen = room.version;
        let quitter = (0..3).find(|s| *s != mover).unwrap();
        let events = decide_events(&room, quitter, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        assert_eq!(room.seat_on_move(), Some(mover));
        let mv = room.game.legal_moves()[0].clone();
        assert!(decide_events(&room, mover, &Command::Move { mv, v: seen }).is_ok());
    }
}
