//! A seat leaving a game that may go on without it (resignation, a flag, an abandonment), and the
//! claims of the others against an absent seat on move: two players end the game, three vote the
//! absent seat out. Presence itself (who is away, since when, who voted) is the room task's; it
//! hands the facts in.

use super::{Decision, Refusal, RoomState, game_over, rule_code};
use crate::protocol::{Code, Event};
use crate::rules::{EndReason, Outcome, Rules, Seat};

/// What the room task knows of an absent player, for the claims against it (presence is the
/// room task's: connections come and go without events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Absence<'a> {
    /// The seat on move that has had no connection for the grace period of a timed game; `None`:
    /// nobody may be claimed against (the default).
    pub claimable: Option<Seat>,
    /// The seats that have voted against `claimable` so far (three players), in voting order.
    pub votes: &'a [Seat],
}

impl RoomState {
    /// `seat` leaves the game for `reason` (resignation, timeout or abandonment): in a two-player
    /// game the game ends; in a three-player one the game goes on without it (`left`) unless that
    /// ends it.
    pub(super) fn decide_leave(
        &self,
        seat: Seat,
        reason: EndReason,
    ) -> Result<Vec<Event>, Refusal> {
        let mut probe = self.game.clone();
        let resigned = probe
            .resign(seat)
            .map_err(|e| Refusal::new(rule_code(e.code), e.message))?;
        if self.game.players() == 2 {
            let outcome = resigned.outcome.unwrap_or(Outcome::draw(reason));
            return Ok(vec![game_over(outcome)]);
        }
        let mut events = vec![Event::Left {
            seat,
            reason,
            position: probe.position(),
            to_move: probe.to_move(),
            clock: None,
        }];
        events.extend(
            resigned
                .skipped
                .into_iter()
                .map(|seat| Event::Skipped { seat }),
        );
        match resigned.outcome {
            // The last player left wins by the leaver's reason (`timeout` for a flag).
            Some(outcome) if outcome.reason == EndReason::Resignation => {
                events.push(game_over(Outcome { reason, ..outcome }));
            }
            Some(outcome) => events.push(game_over(outcome)),
            None => events.extend(
                self.offers
                    .iter()
                    .map(|o| Event::OfferDeclined { id: o.id, by: None }),
            ),
        }
        Ok(events)
    }

    /// `seat` leaves the game that goes on without it: the rules take it out of the turn order,
    /// and the record keeps when it left.
    pub(super) fn apply_left(&mut self, seat: Seat) -> Result<(), String> {
        self.game
            .resign(seat)
            .map_err(|e| format!("stored resignation of seat {seat}: {e}"))?;
        if let Some(left) = self.left_after.get_mut(usize::from(seat)) {
            *left = Some(self.moves.len());
        }
        self.leavers.push(seat);
        Ok(())
    }

    /// A claim against an absent seat on move (`claim_victory`, or `claim_draw {reason:
    /// "abandoned"}` when `draw`) by `seat`. Two players: the claimer wins (or the game is drawn)
    /// by `abandoned`. Three players: a vote; once every other person still in the game voted
    /// (bots never claim, and count as voting), the absent seat leaves as in a resignation, with
    /// reason `abandoned`; until then a [`Decision::Vote`]. A draw cannot be claimed against one
    /// of three players. `cannot_claim` unless `absence.claimable` is the seat on move and not
    /// the claimer.
    pub(super) fn decide_claim_abandoned(
        &self,
        seat: Seat,
        absence: Absence<'_>,
        draw: bool,
    ) -> Result<Decision, Refusal> {
        let seat = self.in_play(seat)?;
        let absent = match (self.seat_on_move(), absence.claimable) {
            (Some(on_move), Some(away)) if on_move == away && away != seat => away,
            _ => {
                return Err(Refusal::new(
                    Code::CannotClaim,
                    "the player on move is not away long enough for a claim (or the game is untimed)",
                ));
            }
        };
        if self.game.players() == 2 {
            let outcome = if draw {
                Outcome::draw(EndReason::Abandoned)
            } else {
                Outcome::win(seat, EndReason::Abandoned)
            };
            return Ok(Decision::Events {
                by: seat,
                events: vec![game_over(outcome)],
            });
        }
        if draw {
            return Err(Refusal::new(
                Code::CannotClaim,
                "in a three-player game, vote with claim_victory that the absent player leave",
            ));
        }
        let mut voters = absence.votes.to_vec();
        if !voters.contains(&seat) {
            voters.push(seat);
        }
        let all_voted = self
            .game
            .in_play()
            .iter()
            .filter(|s| **s != absent)
            .filter(|s| {
                self.seats
                    .get(usize::from(**s))
                    .is_some_and(|slot| slot.bot.is_none())
            })
            .all(|s| voters.contains(s));
        if !all_voted {
            return Ok(Decision::Vote {
                against: absent,
                voters,
            });
        }
        let events = self.decide_leave(absent, EndReason::Abandoned)?;
        Ok(Decision::Events { by: seat, events })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{
        apply_all, empty_three_player_room, three_player_room, timed_room,
    };
    use super::*;
    use crate::bot::Level;
    use crate::protocol::{ClaimReason, Command};
    use crate::room::state::SeatChoice;
    use crate::rules::GameKind;

    /// `seat`'s `claim_victory` (or, when `draw`, `claim_draw {reason: "abandoned"}`) while the
    /// room task finds `claimable` absent and `votes` cast against it.
    fn claim(
        room: &RoomState,
        seat: Seat,
        claimable: Option<Seat>,
        draw: bool,
        votes: &[Seat],
    ) -> Result<Decision, Refusal> {
        let command = if draw {
            Command::ClaimDraw {
                reason: ClaimReason::Abandoned,
            }
        } else {
            Command::ClaimVictory
        };
        room.decide(Some(seat), &command, Absence { claimable, votes })
    }

    fn events_of(decision: Decision) -> Vec<Event> {
        match decision {
            Decision::Events { events, .. } => events,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_abandonment_claim_needs_the_absent_seat_on_move_and_not_the_claimer() {
        let room = timed_room(GameKind::OukChatrang, None, 60, 0);
        assert_eq!(room.seat_on_move(), Some(0));
        for (seat, claimable) in [(1, None), (1, Some(1)), (0, Some(0))] {
            let refused = claim(&room, seat, claimable, false, &[]).unwrap_err();
            assert_eq!(refused.code, Code::CannotClaim, "{seat} {claimable:?}");
        }
        let won = claim(&room, 1, Some(0), false, &[]).unwrap();
        let events = vec![game_over(Outcome::win(1, EndReason::Abandoned))];
        assert_eq!(won, Decision::Events { by: 1, events });
        let drawn = claim(&room, 1, Some(0), true, &[]).unwrap();
        let events = vec![game_over(Outcome::draw(EndReason::Abandoned))];
        assert_eq!(drawn, Decision::Events { by: 1, events });
    }

    #[test]
    fn three_players_vote_the_absent_seat_out_as_in_a_resignation() {
        let room = three_player_room();
        let absent = room.seat_on_move().unwrap();
        let others: Vec<Seat> = (0..3).filter(|s| *s != absent).collect();
        let one = claim(&room, others[0], Some(absent), false, &[]).unwrap();
        let vote = Decision::Vote {
            against: absent,
            voters: others[..1].to_vec(),
        };
        assert_eq!(one, vote, "one vote of two");
        let again = claim(&room, others[0], Some(absent), false, &others[..1]).unwrap();
        assert_eq!(again, vote, "a second vote of the same seat counts once");
        let draw = claim(&room, others[0], Some(absent), true, &[]);
        assert_eq!(draw.unwrap_err().code, Code::CannotClaim);
        let all = events_of(claim(&room, others[1], Some(absent), false, &others[..1]).unwrap());
        let Event::Left { seat, reason, .. } = &all[0] else {
            panic!("{all:?}");
        };
        assert_eq!((*seat, *reason), (absent, EndReason::Abandoned));
    }

    #[test]
    fn a_bot_needs_no_vote_for_an_absent_person_to_leave() {
        let mut room = empty_three_player_room();
        let (_, events) = room.decide_join(&SeatChoice::Number(0), None).unwrap();
        apply_all(&mut room, &events);
        let level = Level::new(2).unwrap();
        for seat in [1, 2] {
            let events = room.decide_bot_join(seat, level).unwrap();
            apply_all(&mut room, &events);
        }
        assert_eq!(room.seats[2].bot, Some(level));
        let taken = room.decide_bot_join(2, level).unwrap_err();
        assert_eq!(taken.code, Code::CannotAddBot);
        // Seat 0, a person, is on move and away; seat 2 is taken to be a person who claims, and
        // the bot at seat 1 does not hold the vote up.
        let mut room_with_person = room.clone();
        room_with_person.seats[2].bot = None;
        assert_eq!(room.seat_on_move(), Some(0));
        let one_person = events_of(claim(&room_with_person, 2, Some(0), false, &[]).unwrap());
        assert!(
            matches!(one_person[..], [Event::Left { seat: 0, .. }, ..]),
            "the bot at seat 1 counts as voting: {one_person:?}"
        );
    }
}
