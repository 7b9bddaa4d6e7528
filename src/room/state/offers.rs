//! Draw and rematch offers: making one, accepting (everyone still concerned must), declining, and
//! the rate limits that keep offers from flooding the table. Accepting and declining a takeback
//! offer go through here too (takeback.rs says what it does).

use uuid::Uuid;

use super::{Refusal, RoomState, game_over};
use crate::domain::RoomStatus;
use crate::protocol::{Code, Event, OfferInfo, OfferKind, RematchInfo, RematchSeat};
use crate::room::token::new_invite_code;
use crate::rules::{EndReason, Outcome, Rules, Seat};

/// How many rematch offers one seat may make in one room.
const MAX_REMATCH_OFFERS: u32 = 3;

impl RoomState {
    /// `seat` accepts offer `id`: a rematch offer after the game, or a draw or takeback offer
    /// while the game is on (`no_such_offer` once it is over).
    pub(super) fn decide_accept(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
        if self.is_rematch_offer(id) {
            return self.decide_accept_rematch(seat, id);
        }
        self.check_offer_game(id)?;
        let seat = self.in_play(seat)?;
        let takeback = self
            .offers
            .iter()
            .any(|o| o.id == id && o.kind == OfferKind::Takeback);
        if takeback {
            self.decide_accept_takeback(seat, id)
        } else {
            self.decide_accept_draw(seat, id)
        }
    }

    /// `seat` declines open offer `id` (a rematch offer, or while the game is on a draw offer):
    /// the offer is closed.
    pub(super) fn decide_decline(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
        if !self.is_rematch_offer(id) {
            self.check_offer_game(id)?;
            self.in_play(seat)?;
        }
        match self.offers.iter().find(|o| o.id == id) {
            Some(o) => Ok(vec![Event::OfferDeclined {
                id: o.id,
                by: Some(seat),
            }]),
            None => Err(Refusal::new(
                Code::NoSuchOffer,
                format!("there is no open offer {id}"),
            )),
        }
    }

    /// No draw offer is open after the game: `no_such_offer` then, whatever `id`.
    fn check_offer_game(&self, id: u64) -> Result<(), Refusal> {
        if self.status == RoomStatus::Finished {
            return Err(Refusal::new(
                Code::NoSuchOffer,
                format!("there is no open offer {id}: the game is over"),
            ));
        }
        Ok(())
    }

    fn is_rematch_offer(&self, id: u64) -> bool {
        self.offers
            .iter()
            .any(|o| o.id == id && o.kind == OfferKind::Rematch)
    }

    /// A rematch offer after the game; offering when another seat's offer is open accepts it.
    pub(super) fn decide_offer_rematch(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        if self.status != RoomStatus::Finished {
            return Err(Refusal::new(
                Code::CannotOffer,
                "a rematch can be offered once the game is over",
            ));
        }
        if self.started_at.is_none() {
            return Err(Refusal::new(
                Code::CannotOffer,
                "this game never started: there is nothing to play again",
            ));
        }
        if let Some(rematch) = &self.rematch {
            return Err(Refusal::new(
                Code::CannotOffer,
                format!("the rematch has been made: room {}", rematch.invite_code),
            ));
        }
        let rematch_offers = || self.offers.iter().filter(|o| o.kind == OfferKind::Rematch);
        if let Some(theirs) = rematch_offers().find(|o| o.by != seat) {
            return self.decide_accept_rematch(seat, theirs.id);
        }
        if rematch_offers().any(|o| o.by == seat) {
            return Ok(Vec::new());
        }
        if self
            .rematch_offers
            .get(usize::from(seat))
            .copied()
            .unwrap_or(0)
            >= MAX_REMATCH_OFFERS
        {
            return Err(Refusal::new(
                Code::RateLimited,
                format!("at most {MAX_REMATCH_OFFERS} rematch offers per player"),
            ));
        }
        Ok(vec![Event::Offer(OfferInfo {
            id: self.next_offer_id,
            kind: OfferKind::Rematch,
            by: seat,
            accepted: Vec::new(),
            plies: None,
        })])
    }

    /// `seat` accepts rematch offer `id`: once every seat but the offerer's has accepted (every
    /// seat, also one that left a three-player game: all of them sit in the new room), the
    /// rematch is made: a new room with the same game, each player one seat on.
    fn decide_accept_rematch(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
        let Some(offer) = self.offer_to_accept(seat, id)? else {
            return Ok(Vec::new());
        };
        let players = self.game.players();
        let everyone = (0..players)
            .filter(|s| *s != offer.by)
            .all(|s| s == seat || offer.accepted.contains(&s));
        if !everyone {
            return Ok(vec![Event::OfferAccepted { id, by: seat }]);
        }
        let seats = (0..players)
            .map(|s| {
                let new_seat = (s + 1) % players;
                RematchSeat {
                    seat: s,
                    new_seat,
                    new_color: self.game.color(new_seat).to_owned(),
                }
            })
            .collect();
        Ok(vec![Event::Rematch(RematchInfo {
            room_id: Uuid::new_v4(),
            invite_code: new_invite_code(),
            seats,
        })])
    }

    /// Open offer `id` for `seat` to accept: `None` when `seat` has already accepted it (nothing to
    /// do), `no_such_offer` when it is not open or is `seat`'s own.
    pub(super) fn offer_to_accept(
        &self,
        seat: Seat,
        id: u64,
    ) -> Result<Option<&OfferInfo>, Refusal> {
        let Some(offer) = self.offers.iter().find(|o| o.id == id) else {
            return Err(Refusal::new(
                Code::NoSuchOffer,
                format!("there is no open offer {id}"),
            ));
        };
        if offer.by == seat {
            return Err(Refusal::new(
                Code::NoSuchOffer,
                "you cannot accept your own offer",
            ));
        }
        Ok((!offer.accepted.contains(&seat)).then_some(offer))
    }

    /// `seat` accepts draw offer `id`: the game is drawn once every other player still in the game
    /// has accepted.
    fn decide_accept_draw(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
        let Some(offer) = self.offer_to_accept(seat, id)? else {
            return Ok(Vec::new());
        };
        let everyone = self
            .game
            .in_play()
            .into_iter()
            .filter(|s| *s != offer.by)
            .all(|s| s == seat || offer.accepted.contains(&s));
        Ok(vec![if everyone {
            game_over(Outcome::draw(EndReason::Agreement))
        } else {
            Event::OfferAccepted { id, by: seat }
        }])
    }

    /// Opens `offer`, and counts it against its seat's limits.
    pub(super) fn apply_offer(&mut self, offer: &OfferInfo) {
        self.offers.push(offer.clone());
        self.next_offer_id = self.next_offer_id.max(offer.id.saturating_add(1));
        if offer.kind == OfferKind::Draw
            && let Some(at) = self.draw_offered_at.get_mut(usize::from(offer.by))
        {
            *at = Some(self.moves.len());
        }
        if offer.kind == OfferKind::Rematch
            && let Some(count) = self.rematch_offers.get_mut(usize::from(offer.by))
        {
            *count += 1;
        }
        if offer.kind == OfferKind::Takeback {
            self.count_takeback_offer(offer.by);
        }
    }

    /// A draw offer by `seat`, one per move; offering when another seat's offer is open accepts it.
    /// Not while a takeback offer is open (`cannot_offer`: one kind of offer at a time).
    pub(super) fn decide_offer_draw(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        let seat = self.in_play(seat)?;
        if let Some(takeback) = self.offers.iter().find(|o| o.kind == OfferKind::Takeback) {
            return Err(Refusal::new(
                Code::CannotOffer,
                format!(
                    "takeback offer {} is open: it must be answered before a draw is offered",
                    takeback.id
                ),
            ));
        }
        let draw_offers = || self.offers.iter().filter(|o| o.kind == OfferKind::Draw);
        if let Some(theirs) = draw_offers().find(|o| o.by != seat) {
            // Offering a draw to someone who offered one is agreeing.
            self.decide_accept_draw(seat, theirs.id)
        } else if draw_offers().any(|o| o.by == seat) {
            Ok(Vec::new())
        } else if self
            .draw_offered_at
            .get(usize::from(seat))
            .copied()
            .flatten()
            == Some(self.moves.len())
        {
            // Without this, offering and withdrawing in a loop would flood the opponent.
            Err(Refusal::new(
                Code::RateLimited,
                "one draw offer per move: wait for a move before offering again",
            ))
        } else {
            Ok(vec![Event::Offer(OfferInfo {
                id: self.next_offer_id,
                kind: OfferKind::Draw,
                by: seat,
                accepted: Vec::new(),
                plies: None,
            })])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{apply_all, decide_events, three_player_room_after_placement};
    use super::*;
    use crate::protocol::Command;

    #[test]
    fn a_player_who_left_has_no_say_in_offers() {
        let mut room = three_player_room_after_placement();
        let events = decide_events(&room, 1, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        for command in [
            Command::OfferDraw,
            Command::Decline { offer: 1 },
            Command::Accept { offer: 1 },
            Command::Resign,
        ] {
            assert_eq!(
                decide_events(&room, 1, &command).unwrap_err().code,
                Code::NotAPlayer,
                "{command:?}"
            );
        }
        let events = decide_events(&room, 0, &Command::OfferDraw).unwrap();
        apply_all(&mut room, &events);
        // Blue alone accepting is enough: Green has left.
        let events = decide_events(&room, 2, &Command::Accept { offer: 1 }).unwrap();
        assert_eq!(events, vec![game_over(Outcome::draw(EndReason::Agreement))]);
    }
}
