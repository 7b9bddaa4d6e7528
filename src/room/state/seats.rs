//! Seats: which seat a person asks for, taking one (a person or a computer opponent), and finding a
//! seat from its token.

use rand::seq::IteratorRandom;
use uuid::Uuid;

use super::{Refusal, RoomState};
use crate::bot::Level;
use crate::domain::RoomStatus;
use crate::protocol::{Code, Event};
use crate::rules::{Rules, Seat};

/// Which seat a person asks for when creating or joining a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatChoice {
    /// Any free seat, chosen at random.
    Random,
    /// A seat number, e.g. `1` (Black in Ouk Chatrang).
    Number(Seat),
    /// A colour name, e.g. `"black"`.
    Color(String),
}

/// Why a seat could not be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinRefusal {
    /// Every seat is taken (HTTP 409 `room_full`).
    RoomFull,
    /// The asked-for seat is taken (HTTP 409 `seat_taken`).
    SeatTaken(Seat),
    /// The asked-for seat or colour does not exist in this game (HTTP 400 `bad_request`).
    NoSuchSeat(String),
    /// The `same_player` token of the join holds no seat of this room (HTTP 403 `bad_token`).
    BadToken,
    /// A rated room's seat taken by nobody's account: every seat of a rated game belongs to a
    /// logged-in player (HTTP 401 `login_required`).
    LoginRequired,
    /// A rated room's seat taken by the account that holds another of its seats (HTTP 409
    /// `already_seated`): a rated game is played between different accounts.
    AlreadySeated(Seat),
}

/// One seat of the room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatSlot {
    /// Whether a player holds the seat.
    pub taken: bool,
    /// The player's name, if one was given.
    pub name: Option<String>,
    /// SHA-256 of the seat token; `None` while the seat is free. A bot's seat has the hash of a
    /// token nobody was given: only the room's own bot connection plays it.
    pub token_hash: Option<[u8; 32]>,
    /// The level of the computer opponent holding the seat; `None` for a person.
    pub bot: Option<Level>,
    /// The account the seat belongs to: its player resumes it by logging in, without the seat
    /// token. `None` for an anonymous seat or a bot's.
    pub user_id: Option<Uuid>,
    /// The seat whose holder took this one too (a pass-and-play table); `None` when the seat's
    /// holder took no other seat before it.
    pub same_player_as: Option<Seat>,
    /// The username of the seat's account, as shown (`seat_taken`, `seat_account`, or the store
    /// when the room is loaded); `None` for an anonymous seat or a bot's.
    pub user: Option<String>,
    /// Whether the seat's account was deleted (shown as a deleted player).
    pub deleted: bool,
}

/// Marks the `seat_taken` events of `events` as taken by a logged-in player, whose name is
/// their username (`auth::player` gives it): the event says so (`user`), so every page links it.
pub fn taken_by_account(events: &mut [Event]) {
    for event in events {
        if let Event::SeatTaken {
            name,
            user,
            bot: None,
            ..
        } = event
        {
            user.clone_from(name);
        }
    }
}

/// The name a computer opponent plays under, e.g. `Computer (level 3)`.
pub fn bot_name(level: Level) -> String {
    format!("Computer (level {level})")
}

impl RoomState {
    /// The seat of the account `user_id` (the first, should it hold several).
    pub fn seat_of_user(&self, user_id: Uuid) -> Option<Seat> {
        self.seats
            .iter()
            .position(|slot| slot.user_id == Some(user_id))
            .and_then(|i| Seat::try_from(i).ok())
    }

    /// The seat whose token hashes to `hash`.
    pub fn seat_of_token(&self, hash: &[u8; 32]) -> Option<Seat> {
        self.seats
            .iter()
            .position(|slot| slot.token_hash.as_ref() == Some(hash))
            .and_then(|i| Seat::try_from(i).ok())
    }

    /// The events of `name` taking a seat: `seat_taken`, and `game_started` when it was the last free
    /// seat.
    pub fn decide_join(
        &self,
        choice: &SeatChoice,
        name: Option<String>,
    ) -> Result<(Seat, Vec<Event>), JoinRefusal> {
        self.decide_join_as(choice, name, None, None)
    }

    /// As [`RoomState::decide_join`], by the account `user` (`None`: an anonymous player), and
    /// by the holder of seat `same_player_as` when it is `Some` (a pass-and-play table taking its
    /// other seats): the `seat_taken` says so, and that player answers for both seats (see
    /// [`RoomState::same_player`]). A rated room refuses an anonymous player
    /// ([`JoinRefusal::LoginRequired`]) and an account that holds one of its seats already
    /// ([`JoinRefusal::AlreadySeated`]).
    pub fn decide_join_as(
        &self,
        choice: &SeatChoice,
        name: Option<String>,
        same_player_as: Option<Seat>,
        user: Option<Uuid>,
    ) -> Result<(Seat, Vec<Event>), JoinRefusal> {
        let free = |seat: &Seat| !self.seats[usize::from(*seat)].taken;
        let all: Vec<Seat> = (0..self.game.players()).collect();
        if self.status != RoomStatus::Waiting || !all.iter().any(free) {
            return Err(JoinRefusal::RoomFull);
        }
        if self.rated {
            let user = user.ok_or(JoinRefusal::LoginRequired)?;
            if let Some(seat) = self.seat_of_user(user) {
                return Err(JoinRefusal::AlreadySeated(seat));
            }
        }
        let seat = match choice {
            SeatChoice::Random => all
                .iter()
                .copied()
                .filter(free)
                .choose(&mut rand::rng())
                .ok_or(JoinRefusal::RoomFull)?,
            SeatChoice::Number(n) if all.contains(n) => *n,
            SeatChoice::Number(n) => {
                return Err(JoinRefusal::NoSuchSeat(format!(
                    "seat {n} does not exist; this game has seats 0 to {}",
                    self.game.players() - 1
                )));
            }
            SeatChoice::Color(color) => all
                .iter()
                .copied()
                .find(|s| self.game.color(*s) == color)
                .ok_or_else(|| JoinRefusal::NoSuchSeat(format!("no seat plays {color:?}")))?,
        };
        if !free(&seat) {
            return Err(JoinRefusal::SeatTaken(seat));
        }
        Ok((
            seat,
            self.seat_taken_events(seat, name, None, same_player_as),
        ))
    }

    /// The events of a computer opponent at `level` taking the free `seat`: `seat_taken` with
    /// `bot`, and `game_started` when it was the last free seat. Refused (`cannot_add_bot`) unless
    /// the room is waiting and `seat` is one of its free seats.
    pub fn decide_bot_join(&self, seat: Seat, level: Level) -> Result<Vec<Event>, Refusal> {
        if self.rated {
            return Err(Refusal::new(
                Code::CannotAddBot,
                "a rated game is played by logged-in players only: no bot takes a seat",
            ));
        }
        if self.status != RoomStatus::Waiting {
            return Err(Refusal::new(
                Code::CannotAddBot,
                "a bot only takes a seat while the room waits for players",
            ));
        }
        match self.seats.get(usize::from(seat)) {
            None => Err(Refusal::new(
                Code::CannotAddBot,
                format!(
                    "seat {seat} does not exist; this game has seats 0 to {}",
                    self.seats.len() - 1
                ),
            )),
            Some(slot) if slot.taken => Err(Refusal::new(
                Code::CannotAddBot,
                format!("seat {seat} is taken"),
            )),
            Some(_) => Ok(self.seat_taken_events(seat, Some(bot_name(level)), Some(level), None)),
        }
    }

    /// Whether seats `a` and `b` are held by the same player: the same seat, or seats linked by
    /// `same_player_as` (a pass-and-play table's seats all lead to the one its creator took).
    pub fn same_player(&self, a: Seat, b: Seat) -> bool {
        self.holder(a) == self.holder(b)
    }

    /// The first seat of the player holding `seat`: `same_player_as` followed to its end (at
    /// most one step a seat, so a loop in a corrupt log cannot hang it).
    fn holder(&self, seat: Seat) -> Seat {
        let mut at = seat;
        for _ in 0..self.seats.len() {
            match self
                .seats
                .get(usize::from(at))
                .and_then(|slot| slot.same_player_as)
            {
                Some(next) => at = next,
                None => break,
            }
        }
        at
    }

    /// Applies `seat_taken` (event version `v`) for `seat`: the seat taken at version 1 is the
    /// creator's.
    pub(super) fn apply_seat_taken(
        &mut self,
        v: i64,
        seat: Seat,
        name: &Option<String>,
        bot: Option<Level>,
        same_player_as: Option<Seat>,
        user: &Option<String>,
    ) -> Result<(), String> {
        if same_player_as
            .is_some_and(|other| other == seat || usize::from(other) >= self.seats.len())
        {
            return Err(format!(
                "seat_taken of seat {seat} names seat {same_player_as:?} as its holder's"
            ));
        }
        let slot = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or_else(|| format!("seat_taken names seat {seat}, which does not exist"))?;
        slot.taken = true;
        slot.name.clone_from(name);
        slot.bot = bot;
        slot.same_player_as = same_player_as;
        slot.user.clone_from(user);
        slot.deleted = false;
        if v == 1 {
            self.creator = Some(seat);
        }
        Ok(())
    }

    /// Applies `seat_account`: the taken `seat` belongs to the account `user`, deleted or not.
    pub(super) fn apply_seat_account(
        &mut self,
        seat: Seat,
        user: &str,
        deleted: bool,
    ) -> Result<(), String> {
        let slot = self
            .seats
            .get_mut(usize::from(seat))
            .filter(|slot| slot.taken && slot.bot.is_none())
            .ok_or_else(|| format!("seat_account names seat {seat}, which no person holds"))?;
        slot.user = Some(user.to_owned());
        slot.deleted = deleted;
        Ok(())
    }

    /// `seat_taken` for `seat`, and `game_started` when it is the last free seat.
    fn seat_taken_events(
        &self,
        seat: Seat,
        name: Option<String>,
        bot: Option<Level>,
        same_player_as: Option<Seat>,
    ) -> Vec<Event> {
        let mut events = vec![Event::SeatTaken {
            seat,
            color: self.game.color(seat).to_owned(),
            name,
            bot,
            same_player_as,
            user: None,
        }];
        if self.seats.iter().filter(|slot| slot.taken).count() + 1 == self.seats.len() {
            events.push(Event::GameStarted {
                position: self.game.position(),
                to_move: self.game.to_move(),
                clock: None,
            });
        }
        events
    }
}
