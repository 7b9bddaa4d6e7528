//! Takebacks: a player asks to take back its own last move, the others accept or decline it as
//! any offer, and an accepted takeback replays the game from its start without the moves taken
//! back. The rules have no undo (they are pure and only go forward); replaying is the room's job,
//! and replaying is also how the repetitions and Ouk Chatrang's counting are recomputed: they are
//! the rules' own history.
//!
//! What a takeback takes back: the offerer's last move and every move played after it. In a
//! two-player game that is one ply when the opponent is on move and two (the opponent's reply
//! too) when the offerer is; in three-player Khan-Tsin up to three. A skipped turn (T-12) is no
//! move: replaying skips it again, or not, as the position then says. Who must accept: every other
//! player still in the game (a player who left has no say; the room accepts at once for its bots,
//! so a practice game's takeback is taken back as soon as it is offered). When it cannot be
//! offered: a game that is over or not started, a seat with no move to take back, a last move more
//! than a round back (one ply per player: a seat skipped for a while), a player's leaving after it
//! (a resignation or a flag stands), and while another offer is open (one offer at a time, so a
//! takeback never sits under a draw offer's accept button). Limits, counted in the offerer's own
//! moves (the state has no clock, and a restart must rebuild them): one takeback offer per own
//! move, and after its k-th declined takeback offer a seat waits k more of its own moves. They
//! keep an offer from being put to another person again and again: when only bots and the
//! offerer's own other seats (a pass-and-play table, whose seats were joined as `same_player`)
//! must answer, there are none, and a takeback is an undo, move after move. A move by anyone
//! closes an open takeback offer (by the offerer: withdrawn; by another: declined). An accept is
//! for the ply its offer was made at.

use super::{Refusal, RoomState};
use crate::protocol::{Code, Event, OfferInfo, OfferKind};
use crate::rules::{AnyGame, GameOptions, Rules, Seat};

/// One seat's takeback offers so far: what the limits on offering are counted from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct TakebackLimits {
    /// The moves the seat has played, taken-back ones included (the cooldown's clock).
    moves_played: u64,
    /// `moves_played` when the seat last offered a takeback (one offer per own move).
    offered_at: Option<u64>,
    /// The room's ply (moves in the line of play) when the seat last offered a takeback: its
    /// open offer stands for that ply only.
    offered_at_ply: usize,
    /// How many of the seat's takeback offers another seat declined (a move counts).
    declined: u64,
    /// The seat may offer again once `moves_played` reaches this.
    cooldown_until: u64,
}

impl RoomState {
    /// A takeback offer by `seat` of its last move and the moves after it (see the module's
    /// documentation for when it is refused); offering again while its own offer is open changes
    /// nothing. The room accepts at once for its bots: when every other player still in the game
    /// is a bot, the offer is followed by `taken_back` in the same command.
    pub(super) fn decide_offer_takeback(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        let seat = self.in_play(seat)?;
        if self.rated {
            return Err(Refusal::new(
                Code::RatedGame,
                "moves are not taken back in rated games",
            ));
        }
        if self
            .offers
            .iter()
            .any(|o| o.kind == OfferKind::Takeback && o.by == seat)
        {
            return Ok(Vec::new());
        }
        if let Some(open) = self.offers.first() {
            return Err(Refusal::new(
                Code::CannotOffer,
                format!(
                    "offer {} is open: it must be answered before a takeback is offered",
                    open.id
                ),
            ));
        }
        let plies = self.takeback_plies(seat)?;
        let limits = self.takeback_limits.get(usize::from(seat));
        let limits = limits.cloned().unwrap_or_default();
        let asks_another = !self.answered_by_offerer(seat);
        if asks_another && limits.offered_at == Some(limits.moves_played) {
            return Err(Refusal::new(
                Code::RateLimited,
                "one takeback offer per move: make a move before offering again",
            ));
        }
        if asks_another && limits.moves_played < limits.cooldown_until {
            let wait = limits.cooldown_until - limits.moves_played;
            return Err(Refusal::new(
                Code::RateLimited,
                format!("your takeback offer was declined: make {wait} more move(s) first"),
            ));
        }
        let bots: Vec<Seat> = self
            .others_in_play(seat)
            .filter(|s| self.is_bot(*s))
            .collect();
        let offer = OfferInfo {
            id: self.next_offer_id,
            kind: OfferKind::Takeback,
            by: seat,
            accepted: bots,
            plies: Some(plies),
        };
        let everyone = self
            .others_in_play(seat)
            .all(|s| offer.accepted.contains(&s));
        let mut events = vec![Event::Offer(offer)];
        if everyone {
            events.push(self.taken_back(plies)?);
        }
        Ok(events)
    }

    /// `seat` (still in the game) accepts takeback offer `id`: once every other player still in
    /// the game has, the moves are taken back.
    pub(super) fn decide_accept_takeback(
        &self,
        seat: Seat,
        id: u64,
    ) -> Result<Vec<Event>, Refusal> {
        let Some(offer) = self.offer_to_accept(seat, id)? else {
            return Ok(Vec::new());
        };
        let everyone = self
            .others_in_play(offer.by)
            .all(|s| s == seat || offer.accepted.contains(&s));
        if !everyone {
            return Ok(vec![Event::OfferAccepted { id, by: seat }]);
        }
        let plies = self.standing_plies(offer)?;
        Ok(vec![self.taken_back(plies)?])
    }

    /// The plies open takeback `offer` takes back, when it still stands for the room's current
    /// ply: the line of play must not have changed since it was made (a move closes the offer as
    /// it is played, but the accept names an offer of a line of play, and is checked against it).
    /// `no_such_offer` otherwise: nothing changes.
    fn standing_plies(&self, offer: &OfferInfo) -> Result<u32, Refusal> {
        let at = self
            .takeback_limits
            .get(usize::from(offer.by))
            .map(|limits| limits.offered_at_ply);
        let now = self.moves.len();
        let plies = self.takeback_plies(offer.by)?;
        if at != Some(now) || offer.plies != Some(plies) {
            return Err(Refusal::new(
                Code::NoSuchOffer,
                format!(
                    "takeback offer {} was made at ply {}, the game is at ply {now}: it no longer stands",
                    offer.id,
                    at.unwrap_or_default()
                ),
            ));
        }
        Ok(plies)
    }

    /// How many plies a takeback by `seat` takes back: its last move and the moves after it.
    fn takeback_plies(&self, seat: Seat) -> Result<u32, Refusal> {
        let cannot = |message: &str| Err(Refusal::new(Code::CannotOffer, message));
        let Some(last) = self.moves.iter().rposition(|m| m.seat == seat) else {
            return cannot("you have made no move to take back");
        };
        let plies = self.moves.len() - last;
        if plies > usize::from(self.game.players()) {
            return cannot(
                "your last move is more than a round back: it can no longer be taken back",
            );
        }
        if self.left_after.iter().flatten().any(|&left| left > last) {
            return cannot("a player left the game after your last move: it stands");
        }
        u32::try_from(plies).or_else(|_| cannot("too many plies"))
    }

    /// Whether only bots and `seat`'s own player must answer a takeback offer of `seat` (a
    /// practice game, a pass-and-play table): then it is an undo, which no limit holds.
    fn answered_by_offerer(&self, seat: Seat) -> bool {
        self.others_in_play(seat)
            .all(|other| self.is_bot(other) || self.same_player(other, seat))
    }

    /// The other seats still in the game than `seat`.
    fn others_in_play(&self, seat: Seat) -> impl Iterator<Item = Seat> {
        self.game.in_play().into_iter().filter(move |s| *s != seat)
    }

    fn is_bot(&self, seat: Seat) -> bool {
        self.seats
            .get(usize::from(seat))
            .is_some_and(|slot| slot.bot.is_some())
    }

    /// The `taken_back` of the last `plies` moves (its clock is stamped by
    /// [`RoomState::stamp_clocks`]).
    fn taken_back(&self, plies: u32) -> Result<Event, Refusal> {
        let keep = self.moves.len().saturating_sub(plies as usize);
        let game = self.replay(keep).map_err(|e| {
            Refusal::new(Code::CannotOffer, format!("the game does not replay: {e}"))
        })?;
        Ok(Event::TakenBack {
            plies,
            position: game.position(),
            to_move: game.to_move(),
            material: game.material(),
            check: game.check(),
            extra: game.extra(),
            clock: None,
        })
    }

    /// The game from its start position with the first `keep` moves played again, and the
    /// departures of players where they happened. Errors: a move or a departure the rules refuse
    /// (a state that is not the rules' own).
    fn replay(&self, keep: usize) -> Result<AnyGame, String> {
        let setup = GameOptions {
            start_position: Some(self.start_position.clone()),
            ..GameOptions::default()
        };
        let mut game = AnyGame::new(self.kind(), &setup).map_err(|e| e.to_string())?;
        for played in 0..=keep {
            for (seat, _) in self
                .left_after
                .iter()
                .enumerate()
                .filter(|(_, left)| **left == Some(played))
            {
                let seat = Seat::try_from(seat).map_err(|e| e.to_string())?;
                game.resign(seat).map_err(|e| e.to_string())?;
            }
            if let Some(mv) = self.moves.get(played).filter(|_| played < keep) {
                game.play(&mv.notation).map_err(|e| e.to_string())?;
            }
        }
        Ok(game)
    }

    /// Takes back the last `plies` moves: the game replayed without them must give `position`
    /// (the event's), or the log is not this room's. Every open offer closes (only the takeback
    /// offer can be open), and a draw offer counted against a position no longer played is
    /// forgotten.
    pub(super) fn apply_taken_back(&mut self, plies: u32, position: &str) -> Result<(), String> {
        let keep = self
            .moves
            .len()
            .checked_sub(plies as usize)
            .filter(|_| plies > 0)
            .ok_or_else(|| format!("taken_back of {plies} plies after {}", self.moves.len()))?;
        let game = self.replay(keep)?;
        if game.position() != position {
            return Err(format!(
                "taken_back gives {position}, the replay {}",
                game.position()
            ));
        }
        self.game = game;
        self.moves.truncate(keep);
        self.offers.clear();
        for at in &mut self.draw_offered_at {
            if at.is_some_and(|at| at > keep) {
                *at = None;
            }
        }
        Ok(())
    }

    /// Counts a move of `seat` towards its takeback limits.
    pub(super) fn count_move_for_takebacks(&mut self, seat: Seat) {
        if let Some(limits) = self.takeback_limits.get_mut(usize::from(seat)) {
            limits.moves_played += 1;
        }
    }

    /// Counts a takeback offer of `seat` towards its limits.
    pub(super) fn count_takeback_offer(&mut self, seat: Seat) {
        let ply = self.moves.len();
        if let Some(limits) = self.takeback_limits.get_mut(usize::from(seat)) {
            limits.offered_at = Some(limits.moves_played);
            limits.offered_at_ply = ply;
        }
    }

    /// `offer` was closed by seat `by`: a takeback offer declined by another seat starts the
    /// offerer's cooldown (its k-th decline: k more of its own moves). A seat that had accepted it
    /// and then moved (in three-player Khan-Tsin, while another still had to answer) declined
    /// nothing: its move closes the offer, as any move does, and counts against no one.
    pub(super) fn count_takeback_decline(&mut self, offer: &OfferInfo, by: Option<Seat>) {
        let declined_by_another =
            by.is_some_and(|by| by != offer.by && !offer.accepted.contains(&by));
        if offer.kind != OfferKind::Takeback || !declined_by_another {
            return;
        }
        if let Some(limits) = self.takeback_limits.get_mut(usize::from(offer.by)) {
            limits.declined += 1;
            limits.cooldown_until = limits.moves_played + limits.declined;
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::super::testing::{
        apply_all, decide_events, three_player_room, three_player_room_after_placement, timed_room,
        two_player_room,
    };
    use super::*;
    use crate::bot::Level;
    use crate::domain::RoomStatus;
    use crate::protocol::{ClaimReason, Command};
    use crate::rules::GameKind;

    const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";

    /// The seat on move plays `moves` (space-separated), each at the room's version.
    fn play(room: &mut RoomState, moves: &str) {
        for mv in moves.split_whitespace() {
            let seat = room.seat_on_move().unwrap();
            let command = Command::Move {
                mv: mv.into(),
                v: room.version,
            };
            let events = decide_events(room, seat, &command).unwrap();
            apply_all(room, &events);
        }
    }

    /// `seat`'s command, applied; its events.
    fn command(room: &mut RoomState, seat: Seat, command: &Command) -> Vec<Event> {
        let events = decide_events(room, seat, command).unwrap();
        apply_all(room, &events);
        events
    }

    fn refused(room: &RoomState, seat: Seat, command: &Command) -> Code {
        decide_events(room, seat, command).unwrap_err().code
    }

    fn ouk_chatrang() -> RoomState {
        two_player_room(GameKind::OukChatrang, None, json!({}))
    }

    fn offer(id: u64, by: Seat, plies: u32, accepted: Vec<Seat>) -> Event {
        Event::Offer(OfferInfo {
            id,
            kind: OfferKind::Takeback,
            by,
            accepted,
            plies: Some(plies),
        })
    }

    /// The game of `kind` from `start` with `moves` played, as a room that never played anything
    /// else holds it.
    fn fresh(kind: GameKind, start: Option<&str>, moves: &str) -> RoomState {
        let mut room = two_player_room(kind, start, json!({}));
        play(&mut room, moves);
        room
    }

    #[test]
    fn a_takeback_of_the_last_move_replays_the_game_without_it() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4 d6d5 e4d5");
        let events = command(&mut room, 0, &Command::OfferTakeback);
        assert_eq!(events, [offer(1, 0, 1, vec![])]);
        let version = room.version;
        let events = command(&mut room, 1, &Command::Accept { offer: 1 });
        let after_two = fresh(GameKind::OukChatrang, None, "e3e4 d6d5");
        assert_eq!(
            events,
            [Event::TakenBack {
                plies: 1,
                position: "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w DEde - 0 2".into(),
                to_move: Some(0),
                material: after_two.game.material(),
                check: None,
                extra: Default::default(),
                clock: None,
            }]
        );
        assert_eq!(room.position_version, version + 1, "a position change");
        assert!(room.offers.is_empty());
        let notation: Vec<_> = room.moves.iter().map(|m| m.notation.as_str()).collect();
        assert_eq!(notation, ["e3e4", "d6d5"]);
        // The whole game (repetition keys, captures, counting) is the one of a room that never
        // played the move.
        assert_eq!(format!("{:?}", room.game), format!("{:?}", after_two.game));
        assert_eq!(room.history(), after_two.history());
        // The line goes on from there.
        play(&mut room, "b1d2");
        assert_eq!(room.moves.len(), 3);
    }

    #[test]
    fn the_offerer_on_move_takes_back_the_reply_too() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4 d6d5");
        assert_eq!(
            command(&mut room, 0, &Command::OfferTakeback),
            [offer(1, 0, 2, vec![])]
        );
        let events = command(&mut room, 1, &Command::Accept { offer: 1 });
        assert!(matches!(events[..], [Event::TakenBack { plies: 2, .. }]));
        assert_eq!(room.game.position(), START);
        assert_eq!(room.seat_on_move(), Some(0));
        assert!(room.moves.is_empty());
    }

    #[test]
    fn one_offer_is_open_at_a_time() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4");
        command(&mut room, 0, &Command::OfferDraw);
        assert_eq!(
            refused(&room, 0, &Command::OfferTakeback),
            Code::CannotOffer
        );
        command(&mut room, 1, &Command::Decline { offer: 1 });
        command(&mut room, 0, &Command::OfferTakeback);
        assert_eq!(refused(&room, 1, &Command::OfferDraw), Code::CannotOffer);
        assert_eq!(refused(&room, 0, &Command::OfferDraw), Code::CannotOffer);
        // Offering again while one's own offer is open changes nothing.
        assert_eq!(decide_events(&room, 0, &Command::OfferTakeback), Ok(vec![]));
        assert_eq!(
            refused(&room, 0, &Command::Accept { offer: 2 }),
            Code::NoSuchOffer,
            "not one's own"
        );
    }

    #[test]
    fn a_move_or_a_decline_closes_the_offer_and_declines_grow_the_cooldown() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4");
        command(&mut room, 0, &Command::OfferTakeback);
        // Black moves instead of answering: declined by Black.
        let command_move = Command::Move {
            mv: "b8d7".into(),
            v: room.version,
        };
        let events = command(&mut room, 1, &command_move);
        assert_eq!(events[1], Event::OfferDeclined { id: 1, by: Some(1) });
        assert!(room.offers.is_empty());
        // One offer per move, and one declined offer: one more move of White's first.
        assert_eq!(
            refused(&room, 0, &Command::OfferTakeback),
            Code::RateLimited
        );
        play(&mut room, "b1d2 d7b8");
        command(&mut room, 0, &Command::OfferTakeback);
        command(&mut room, 1, &Command::Decline { offer: 2 });
        // The second decline: two more moves of White's.
        play(&mut room, "d2b1 b8d7");
        let waiting = decide_events(&room, 0, &Command::OfferTakeback).unwrap_err();
        assert_eq!(
            (waiting.code, waiting.message.as_str()),
            (
                Code::RateLimited,
                "your takeback offer was declined: make 1 more move(s) first"
            )
        );
        play(&mut room, "b1d2 d7b8");
        command(&mut room, 0, &Command::OfferTakeback);
        // Withdrawing one's own offer is no decline, but the offer of this move is made.
        command(&mut room, 0, &Command::Decline { offer: 3 });
        assert_eq!(
            refused(&room, 0, &Command::OfferTakeback),
            Code::RateLimited
        );
        play(&mut room, "d2b1 b8d7");
        assert!(decide_events(&room, 0, &Command::OfferTakeback).is_ok());
    }

    #[test]
    fn an_accept_after_the_line_of_play_changed_is_refused_and_changes_nothing() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4 d6d5");
        command(&mut room, 1, &Command::OfferTakeback);
        // A move arrives between the offer and the accept, and the offer is still open (a log
        // written before a move closed it): the offer was for the line before that move.
        let v = room.version + 1;
        let moved = decide_events(
            &room,
            0,
            &Command::Move {
                mv: "e4d5".into(),
                v: room.version,
            },
        )
        .unwrap()
        .remove(0);
        room.apply(v, &moved, Utc::now()).unwrap();
        assert_eq!(room.offers.len(), 1);
        let before = room.clone();
        let refusal = decide_events(&room, 0, &Command::Accept { offer: 1 }).unwrap_err();
        assert_eq!(
            (refusal.code, refusal.message.as_str()),
            (
                Code::NoSuchOffer,
                "takeback offer 1 was made at ply 2, the game is at ply 3: it no longer stands"
            )
        );
        assert_eq!(format!("{room:?}"), format!("{before:?}"));
    }

    #[test]
    fn an_accept_names_the_offer_it_saw_and_no_other() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4 d6d5");
        // White's takeback offer is replaced by a draw offer as Black clicks accept on it.
        command(&mut room, 0, &Command::OfferTakeback);
        command(&mut room, 0, &Command::Decline { offer: 1 });
        command(&mut room, 0, &Command::OfferDraw);
        assert_eq!(
            refused(&room, 1, &Command::Accept { offer: 1 }),
            Code::NoSuchOffer
        );
        assert_eq!(room.offers[0].kind, OfferKind::Draw);
        // And the other way round; a second offer of a kind before the next move is refused.
        command(&mut room, 0, &Command::Decline { offer: 2 });
        assert_eq!(refused(&room, 0, &Command::OfferDraw), Code::RateLimited);
        assert_eq!(
            refused(&room, 0, &Command::OfferTakeback),
            Code::RateLimited
        );
        assert_eq!(
            refused(&room, 1, &Command::Accept { offer: 2 }),
            Code::NoSuchOffer
        );
        assert!(room.offers.is_empty());
        assert_eq!(room.moves.len(), 2);
    }

    #[test]
    fn takebacks_need_a_move_of_ones_own_and_a_game_in_play() {
        let mut room = ouk_chatrang();
        assert_eq!(
            refused(&room, 0, &Command::OfferTakeback),
            Code::CannotOffer
        );
        play(&mut room, "e3e4");
        assert_eq!(
            refused(&room, 1, &Command::OfferTakeback),
            Code::CannotOffer
        );
        let spectator = room.decide(None, &Command::OfferTakeback, Default::default());
        assert_eq!(spectator.unwrap_err().code, Code::NotAPlayer);
        command(&mut room, 1, &Command::Resign);
        assert_eq!(room.status, RoomStatus::Finished);
        assert_eq!(refused(&room, 0, &Command::OfferTakeback), Code::GameOver);
        let mut waiting = two_player_room(GameKind::Khan, None, json!({}));
        waiting.status = RoomStatus::Waiting;
        assert_eq!(
            refused(&waiting, 0, &Command::OfferTakeback),
            Code::NotYourTurn
        );
    }

    #[test]
    fn a_repetition_before_the_takeback_is_none_after_it() {
        let mut room = ouk_chatrang();
        let claim = Command::ClaimDraw {
            reason: ClaimReason::Repetition,
        };
        // The start position a third time, White on move: White may claim.
        play(&mut room, "b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8");
        assert!(decide_events(&room, 0, &claim).is_ok());
        command(&mut room, 1, &Command::OfferTakeback);
        command(&mut room, 0, &Command::Accept { offer: 1 });
        // Black on move in a position seen twice: no claim; and White's next move is no longer
        // answered by the repetition.
        assert_eq!(refused(&room, 1, &claim), Code::CannotClaim);
        let seven = "b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1";
        assert_eq!(
            format!("{:?}", room.game),
            format!("{:?}", fresh(GameKind::OukChatrang, None, seven).game)
        );
        play(&mut room, "d7b8");
        assert!(
            decide_events(&room, 0, &claim).is_ok(),
            "the third time again"
        );
    }

    #[test]
    fn the_count_a_capture_started_is_gone_with_the_capture() {
        let start = "4k3/r7/8/8/8/8/8/R2K4 w - - 0 1";
        let mut room = two_player_room(GameKind::OukChatrang, Some(start), json!({}));
        let before = room.game.extra();
        play(&mut room, "a1a7");
        // Black's bare King now escapes the piece's honour count (O-19).
        let counting = room.game.extra();
        assert_ne!(counting, before);
        assert_eq!(
            serde_json::to_value(&counting).unwrap()["counting"]["kind"],
            "piece"
        );
        command(&mut room, 0, &Command::OfferTakeback);
        let events = command(&mut room, 1, &Command::Accept { offer: 1 });
        let Event::TakenBack {
            extra, material, ..
        } = &events[0]
        else {
            panic!("{events:?}");
        };
        assert_eq!(extra, &before, "the count of before the capture");
        assert_eq!(
            serde_json::to_value(material).unwrap(),
            json!({"0": {"captured": ""}, "1": {"captured": ""}})
        );
        let never_played = fresh(GameKind::OukChatrang, Some(start), "");
        assert_eq!(room.game.position(), never_played.game.position());
        assert_eq!(room.game.extra(), before);
    }

    #[test]
    fn the_clocks_go_back_to_before_the_first_move_taken_back() {
        let mut room = timed_room(GameKind::Khan, None, 60, 2);
        let timed = |room: &mut RoomState, seat: Seat, command: Command, elapsed_ms: u64| {
            let mut events = decide_events(room, seat, &command).unwrap();
            room.stamp_clocks(&mut events, elapsed_ms, 0, Utc::now());
            apply_all(room, &events);
            events
        };
        let first = room.game.legal_moves()[0].clone();
        timed(&mut room, 0, Command::Move { mv: first, v: 3 }, 5_000);
        let reply = room.game.legal_moves()[0].clone();
        timed(&mut room, 1, Command::Move { mv: reply, v: 4 }, 7_000);
        let clock = |room: &RoomState| {
            let clocks = room.clock.as_ref().unwrap();
            (clocks.remaining_ms.clone(), clocks.running)
        };
        assert_eq!(clock(&room), (vec![57_000, 55_000], Some(0)));
        timed(&mut room, 0, Command::OfferTakeback, 3_000);
        // Black thinks 4 s more before accepting: nobody is charged, both clocks go back to
        // before White's first move (the increments go too).
        let events = timed(&mut room, 1, Command::Accept { offer: 1 }, 4_000);
        let Event::TakenBack {
            clock: Some(info), ..
        } = &events[0]
        else {
            panic!("{events:?}");
        };
        assert_eq!(
            (info.remaining_ms.clone(), info.running),
            (vec![60_000, 60_000], Some(0))
        );
        assert_eq!(clock(&room), (vec![60_000, 60_000], Some(0)));
        assert_eq!(room.clock_deadline(100), Some(60_100));
    }

    #[test]
    fn three_players_must_all_accept_and_a_takeback_passes_over_a_skipped_turn() {
        // White to move; after White's 20:1+ Green is stuck (T-12) and Blue is on move.
        let start = "-/-/-/-/-/W/-/-/-/-/g/-/-/-/-/B/-/-/-/-/w/-/-/-/-/b/-/-/-/-/-/-/-/-/-/- \
                     111111112212222122221223313333333333 wgb w m";
        let mut room = three_player_room();
        room.start_position = start.into();
        room.game = AnyGame::new(
            GameKind::KhanTsin,
            &GameOptions {
                start_position: Some(start.into()),
                ..GameOptions::default()
            },
        )
        .unwrap();
        let v = room.version;
        let events = command(
            &mut room,
            0,
            &Command::Move {
                mv: "20:1+".into(),
                v,
            },
        );
        assert_eq!(events[1], Event::Skipped { seat: 1 });
        assert_eq!(room.seat_on_move(), Some(2));
        play(&mut room, "15:1+");
        // White's move and Blue's reply, across Green's skipped turn.
        assert_eq!(room.seat_on_move(), Some(0));
        command(&mut room, 0, &Command::OfferTakeback);
        assert_eq!(room.offers[0].plies, Some(2));
        let events = command(&mut room, 2, &Command::Accept { offer: 1 });
        assert_eq!(events, [Event::OfferAccepted { id: 1, by: 2 }]);
        let events = command(&mut room, 1, &Command::Accept { offer: 1 });
        assert!(matches!(
            events[..],
            [Event::TakenBack {
                plies: 2,
                to_move: Some(0),
                ..
            }]
        ));
        assert_eq!(room.game.position(), start);
        // Green, skipped, has no move of its own to take back.
        assert_eq!(
            refused(&room, 1, &Command::OfferTakeback),
            Code::CannotOffer
        );
    }

    #[test]
    fn a_move_by_a_player_who_accepted_closes_the_offer_but_declines_nothing() {
        let mut room = three_player_room_after_placement();
        let last = room.moves.last().unwrap().seat;
        command(&mut room, last, &Command::OfferTakeback);
        let on_move = room.seat_on_move().unwrap();
        let events = command(&mut room, on_move, &Command::Accept { offer: 1 });
        assert_eq!(events, [Event::OfferAccepted { id: 1, by: on_move }]);
        let mv = room.game.legal_moves()[0].clone();
        let v = room.version;
        let events = command(&mut room, on_move, &Command::Move { mv, v });
        assert!(events.contains(&Event::OfferDeclined {
            id: 1,
            by: Some(on_move)
        }));
        assert!(room.offers.is_empty());
        assert_eq!(
            room.takeback_limits[usize::from(last)].declined,
            0,
            "no cooldown for the offerer"
        );
    }

    #[test]
    fn a_players_leaving_stands_and_who_left_has_no_say() {
        let mut room = three_player_room_after_placement();
        let last = room.moves.last().unwrap().seat;
        let on_move = room.seat_on_move().unwrap();
        let quitter = (0..3).find(|s| *s != last && *s != on_move).unwrap();
        command(&mut room, quitter, &Command::Resign);
        let after_leave = decide_events(&room, last, &Command::OfferTakeback).unwrap_err();
        assert_eq!(
            (after_leave.code, after_leave.message.as_str()),
            (
                Code::CannotOffer,
                "a player left the game after your last move: it stands"
            )
        );
        // The move after the leave may be taken back: only the one still playing accepts.
        let mv = room.game.legal_moves()[0].clone();
        let mover = room.seat_on_move().unwrap();
        let position = room.game.position();
        let v = room.version;
        command(&mut room, mover, &Command::Move { mv, v });
        command(&mut room, mover, &Command::OfferTakeback);
        let other = (0..3).find(|s| *s != mover && *s != quitter).unwrap();
        assert_eq!(
            refused(&room, quitter, &Command::Accept { offer: 1 }),
            Code::NotAPlayer
        );
        let events = command(&mut room, other, &Command::Accept { offer: 1 });
        assert!(matches!(events[..], [Event::TakenBack { plies: 1, .. }]));
        assert_eq!(room.game.position(), position);
        assert_eq!(room.seat_on_move(), Some(mover));
        assert!(!room.game.in_play().contains(&quitter), "still gone");
    }

    #[test]
    fn the_room_accepts_for_its_bots_as_the_offer_is_made() {
        let mut room = two_player_room(GameKind::Khan, None, json!({}));
        room.seats[1].bot = Some(Level::new(1).unwrap());
        let mv = room.game.legal_moves()[0].clone();
        let v = room.version;
        command(&mut room, 0, &Command::Move { mv, v });
        let events = command(&mut room, 0, &Command::OfferTakeback);
        assert_eq!(events[0], offer(1, 0, 1, vec![1]));
        assert!(matches!(events[1], Event::TakenBack { plies: 1, .. }));
        assert!(room.moves.is_empty());
        assert_eq!(
            room.game.position(),
            fresh(GameKind::Khan, None, "").game.position()
        );
    }

    #[test]
    fn against_the_computer_or_at_one_table_a_takeback_is_an_undo_move_after_move() {
        let mut room = two_player_room(GameKind::OukChatrang, None, json!({}));
        room.seats[1].bot = Some(Level::new(1).unwrap());
        play(&mut room, "e3e4 d6d5 b1d2 b8d7 d2b1");
        // Each offer is accepted as it is made; the next one takes back the move before.
        for left in [4, 2, 0] {
            let events = command(&mut room, 0, &Command::OfferTakeback);
            assert!(matches!(events[1], Event::TakenBack { .. }), "{events:?}");
            assert_eq!(room.moves.len(), left);
        }
        // A pass-and-play table (Black's seat joined by White's player): its page answers for
        // the other seat, declines included, and no limit holds either way.
        let mut table = ouk_chatrang();
        table.seats[1].same_player_as = Some(0);
        play(&mut table, "e3e4 d6d5 b1d2 b8d7");
        command(&mut table, 0, &Command::OfferTakeback);
        command(&mut table, 1, &Command::Decline { offer: 1 });
        for (id, left) in [(2, 2), (3, 0)] {
            command(&mut table, 0, &Command::OfferTakeback);
            command(&mut table, 1, &Command::Accept { offer: id });
            assert_eq!(table.moves.len(), left);
        }
        // Two people: an offer accepted still counts, so the next one waits for a move.
        let mut people = ouk_chatrang();
        play(&mut people, "e3e4 d6d5 b1d2 b8d7");
        command(&mut people, 0, &Command::OfferTakeback);
        command(&mut people, 1, &Command::Accept { offer: 1 });
        let waiting = decide_events(&people, 0, &Command::OfferTakeback).unwrap_err();
        assert_eq!(
            waiting.message,
            "one takeback offer per move: make a move before offering again"
        );
    }

    #[test]
    fn a_takeback_replays_after_a_restart_to_the_same_state() {
        let mut room = ouk_chatrang();
        play(&mut room, "e3e4 d6d5");
        let mut log = Vec::new();
        for (seat, command) in [
            (0, Command::OfferTakeback),
            (1, Command::Decline { offer: 1 }),
        ] {
            log.extend(self::command(&mut room, seat, &command));
        }
        play(&mut room, "e4d5 e8c7");
        log.extend(command(&mut room, 1, &Command::OfferTakeback));
        log.extend(command(&mut room, 0, &Command::Accept { offer: 2 }));
        // Rebuilt from its events, as the registry restores a room.
        let mut restored = ouk_chatrang();
        play(&mut restored, "e3e4 d6d5");
        let replayed = restored.clone();
        for event in &log {
            let v = restored.version + 1;
            restored.apply(v, event, Utc::now()).unwrap();
            if matches!(event, Event::OfferDeclined { .. }) {
                play(&mut restored, "e4d5 e8c7");
            }
        }
        assert_eq!(restored.version, room.version);
        assert_eq!(format!("{:?}", restored.game), format!("{:?}", room.game));
        assert_eq!(restored.moves, room.moves);
        assert_eq!(restored.takeback_limits, room.takeback_limits);
        assert_ne!(restored.takeback_limits, replayed.takeback_limits);
        // A taken_back that does not replay to its position is refused.
        let mut wrong = room.clone();
        let bad = Event::TakenBack {
            plies: 1,
            position: START.into(),
            to_move: Some(1),
            material: None,
            check: None,
            extra: Default::default(),
            clock: None,
        };
        let v = wrong.version + 1;
        assert!(wrong.apply(v, &bad, Utc::now()).is_err());
    }
}
