//! A seat leaving a game that may go on without it (resignation, a flag, an abandonment), and the
//! claims of the others against an absent seat on move: two players end the game, three vote the
//! absent seat out. Presence itself (who is away, since when, who voted) is the room task's; it
//! hands the facts in.

use super::{Refusal, RoomState, game_over, rule_code};
use crate::protocol::{Code, Event};
use crate::rules::{EndReason, Outcome, Rules, Seat};

impl RoomState {
    /// `seat` leaves the game for `reason` (resignation or timeout): in a two-player game the game
    /// ends; in a three-player one the game goes on without it (`left`) unless that ends it.
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
                    .map(|o| Event::OfferDeclined { id: o.id }),
            ),
        }
        Ok(events)
    }

    /// A claim against an absent seat on move (`claim_victory`, or `claim_draw {reason:
    /// "abandoned"}` when `draw`) by `seat`. `claimable` is the seat the room task found on move
    /// and away for its grace period in a timed game (`None`: nobody). `voters` are the seats that
    /// voted against it so far, `seat` included. Two players: the claimer wins (or the game is
    /// drawn) by `abandoned`. Three players: a vote; once every other player still in the game
    /// voted, the absent seat leaves as in a resignation, with reason `abandoned` (`Ok` with no
    /// events while votes are missing). A draw cannot be claimed against one of three players.
    pub fn decide_claim_abandoned(
        &self,
        seat: Seat,
        claimable: Option<Seat>,
        draw: bool,
        voters: &[Seat],
    ) -> Result<Vec<Event>, Refusal> {
        self.check_in_play()?;
        let in_play = self.game.in_play();
        if !in_play.contains(&seat) {
            return Err(Refusal::new(Code::NotAPlayer, "you have left this game"));
        }
        let absent = match (self.seat_on_move(), claimable) {
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
            return Ok(vec![game_over(outcome)]);
        }
        if draw {
            return Err(Refusal::new(
                Code::CannotClaim,
                "in a three-player game, vote with claim_victory that the absent player leave",
            ));
        }
        // Bots never claim; they count as voting for the game to go on without the absent seat.
        let all_voted = in_play
            .iter()
            .filter(|s| **s != absent)
            .filter(|s| {
                self.seats
                    .get(usize::from(**s))
                    .is_some_and(|slot| slot.bot.is_none())
            })
            .all(|s| voters.contains(s));
        if !all_voted {
            return Ok(Vec::new());
        }
        self.decide_leave(absent, EndReason::Abandoned)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{
        apply_all, empty_three_player_room, three_player_room, timed_room,
    };
    use super::*;
    use crate::bot::Level;
    use crate::room::state::SeatChoice;
    use crate::rules::GameKind;

    #[test]
    fn an_abandonment_claim_needs_the_absent_seat_on_move_and_not_the_claimer() {
        let room = timed_room(GameKind::OukChatrang, None, 60, 0);
        assert_eq!(room.seat_on_move(), Some(0));
        for (seat, claimable) in [(1, None), (1, Some(1)), (0, Some(0))] {
            let refused = room
                .decide_claim_abandoned(seat, claimable, false, &[seat])
                .unwrap_err();
            assert_eq!(refused.code, Code::CannotClaim, "{seat} {claimable:?}");
        }
        let won = room
            .decide_claim_abandoned(1, Some(0), false, &[1])
            .unwrap();
        assert_eq!(won, vec![game_over(Outcome::win(1, EndReason::Abandoned))]);
        let drawn = room.decide_claim_abandoned(1, Some(0), true, &[1]).unwrap();
        assert_eq!(drawn, vec![game_over(Outcome::draw(EndReason::Abandoned))]);
    }

    #[test]
    fn three_players_vote_the_absent_seat_out_as_in_a_resignation() {
        let room = three_player_room();
        let absent = room.seat_on_move().unwrap();
        let others: Vec<Seat> = (0..3).filter(|s| *s != absent).collect();
        let one = room
            .decide_claim_abandoned(others[0], Some(absent), false, &others[..1])
            .unwrap();
        assert!(one.is_empty(), "one vote of two: {one:?}");
        let draw = room.decide_claim_abandoned(others[0], Some(absent), true, &others[..1]);
        assert_eq!(draw.unwrap_err().code, Code::CannotClaim);
        let all = room
            .decide_claim_abandoned(others[1], Some(absent), false, &others)
            .unwrap();
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
        let one_person = room_with_person
            .decide_claim_abandoned(2, Some(0), false, &[2])
            .unwrap();
        assert!(
            matches!(one_person[..], [Event::Left { seat: 0, .. }, ..]),
            "the bot at seat 1 counts as voting: {one_person:?}"
        );
    }
}
