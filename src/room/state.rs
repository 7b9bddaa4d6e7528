//! A room's state as a plain state machine, with no I/O: commands are *decided* into events, and
//! events are *applied* to the state.
//!
//! The split is what makes rooms durable: the room task decides, stores the events, and only then
//! applies them; after a restart the registry rebuilds the very same state by applying the stored
//! events in order. Applying never needs anything but the event, so the live path and the restore
//! path cannot drift apart.

use chrono::{DateTime, Utc};
use rand::seq::IteratorRandom;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::protocol::{
    ChatChannel, Code, Command, CountingInfo, Event, OfferInfo, OfferKind, RematchInfo,
    RematchSeat, ResultInfo, SeatInfo, Snapshot,
};
use crate::rules::{AnyGame, EndReason, GameKind, Outcome, RuleErrorCode, Rules, Seat};
use crate::store::{GameRecord, RoomStatus, Visibility};

/// Why a command was refused: a protocol code and a sentence. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The reject code sent to the client (`reject.d.code`).
    pub code: Code,
    /// What is wrong, for people (`reject.d.message`).
    pub message: String,
}

impl Refusal {
    /// A refusal with `code` and a sentence for people.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

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
}

/// One seat of the room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatSlot {
    /// Whether a player holds the seat.
    pub taken: bool,
    /// The player's name, if one was given.
    pub name: Option<String>,
    /// SHA-256 of the seat token; `None` while the seat is free.
    pub token_hash: Option<[u8; 32]>,
}

/// A move as played: canonical and display notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// Canonical notation (Ouk Chatrang: UCI), as stored and sent in `moved.d.move`.
    pub notation: String,
    /// For people (Ouk Chatrang: SAN), as sent in `moved.d.display`.
    pub display: String,
}

/// Everything about a room that events change. Cloned to preview a command's effect before it is
/// stored.
#[derive(Clone, Debug)]
pub struct RoomState {
    /// The room's id (a UUID).
    pub id: Uuid,
    /// The invite code (8 lowercase characters, see [`super::token`]).
    pub invite_code: String,
    /// Whether the lobby lists the room.
    pub visibility: Visibility,
    /// The `options` object of the create request, as given (e.g. `start_position`).
    pub options: Value,
    /// The start position as given, or the game's standard start; stored moves replay from it.
    pub start_position: String,
    /// When the room was created (UTC).
    pub created_at: DateTime<Utc>,
    /// One slot per seat, in seat order.
    pub seats: Vec<SeatSlot>,
    /// `waiting` until every seat is taken, then `playing`, then `finished`.
    pub status: RoomStatus,
    /// The version of the last applied event.
    pub version: i64,
    /// The version of the last event that changed the position; a move sent at an older version is
    /// stale.
    pub position_version: i64,
    /// The game in progress: the position plus the history the rules need.
    pub game: AnyGame,
    /// Every move played, in order.
    pub moves: Vec<PlayedMove>,
    /// The open offers; `game_over` clears them.
    pub offers: Vec<OfferInfo>,
    next_offer_id: u64,
    /// Per seat, the number of moves played when it last offered a draw: one offer per move.
    draw_offered_at: Vec<Option<usize>>,
    /// Per seat, the number of moves played when it left a game that went on without it.
    left_after: Vec<Option<usize>>,
    /// The outcome, once a `game_over` has been applied.
    pub result: Option<Outcome>,
    /// When `game_started` was applied.
    pub started_at: Option<DateTime<Utc>>,
    /// When `game_over` was applied.
    pub finished_at: Option<DateTime<Utc>>,
    /// The room creator's seat (the seat of the `seat_taken` at version 1): it may turn the
    /// spectators' chat on and off.
    pub creator: Option<Seat>,
    /// Whether spectators may chat (`options.spectator_chat` at creation, then
    /// `spectator_chat` events).
    pub spectator_chat: bool,
    /// Per seat, whether it has made a move (until every seat still in play has, `abort` ends the
    /// game).
    moved: Vec<bool>,
    /// Per seat, how many rematch offers it has made.
    rematch_offers: Vec<u32>,
    /// The rematch made after this game, once every seat agreed.
    pub rematch: Option<RematchInfo>,
}

/// The longest chat message, in characters after trimming.
pub const MAX_CHAT_CHARS: usize = 300;

/// How many rematch offers one seat may make in one room.
const MAX_REMATCH_OFFERS: u32 = 3;

/// A chat message's text as stored and sent: line breaks and tabs become spaces, other control
/// characters and the bidirectional overrides (which could reverse the text around the message)
/// are removed, and blanks are trimmed. Empty or longer than [`MAX_CHAT_CHARS`]: `bad_message`.
pub fn clean_chat_text(text: &str) -> Result<String, Refusal> {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c.is_whitespace() {
                ' '
            } else {
                c
            }
        })
        .filter(|c| {
            !c.is_control() && !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    let text = cleaned.trim();
    if text.is_empty() {
        return Err(Refusal::new(
            Code::BadMessage,
            "a chat message cannot be empty",
        ));
    }
    if text.chars().count() > MAX_CHAT_CHARS {
        return Err(Refusal::new(
            Code::BadMessage,
            format!("a chat message is at most {MAX_CHAT_CHARS} characters"),
        ));
    }
    Ok(text.to_owned())
}

/// Maps a rules refusal onto the protocol's reject code.
fn rule_code(code: RuleErrorCode) -> Code {
    match code {
        RuleErrorCode::BadNotation => Code::BadNotation,
        RuleErrorCode::GameOver => Code::GameOver,
        RuleErrorCode::CannotClaim => Code::CannotClaim,
        RuleErrorCode::IllegalMove
        | RuleErrorCode::BadPosition
        | RuleErrorCode::UnknownGame
        | RuleErrorCode::BadOption => Code::IllegalMove,
    }
}

impl RoomState {
    /// A new, empty room: no seat taken, version 0. `start_position` is the text `game` was read
    /// from (or its standard start): kept as given, because a restart replays the stored moves from
    /// exactly that text, and a position written back by the rules module may carry less (e.g. where
    /// a count it started began).
    pub fn new(
        id: Uuid,
        invite_code: String,
        visibility: Visibility,
        options: Value,
        game: AnyGame,
        start_position: String,
        created_at: DateTime<Utc>,
    ) -> Self {
        let seats_len = usize::from(game.players());
        let seats = vec![SeatSlot::default(); seats_len];
        RoomState {
            id,
            invite_code,
            visibility,
            start_position,
            created_at,
            seats,
            status: RoomStatus::Waiting,
            version: 0,
            position_version: 0,
            game,
            moves: Vec::new(),
            offers: Vec::new(),
            next_offer_id: 1,
            draw_offered_at: vec![None; seats_len],
            left_after: vec![None; seats_len],
            result: None,
            started_at: None,
            finished_at: None,
            creator: None,
            spectator_chat: options
                .get("spectator_chat")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            moved: vec![false; seats_len],
            rematch_offers: vec![0; seats_len],
            rematch: None,
            options,
        }
    }

    /// Which game the room plays.
    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// The seat whose token hashes to `hash`.
    pub fn seat_of_token(&self, hash: &[u8; 32]) -> Option<Seat> {
        self.seats
            .iter()
            .position(|slot| slot.token_hash.as_ref() == Some(hash))
            .and_then(|i| Seat::try_from(i).ok())
    }

    /// The seat on move while the game is being played.
    pub fn seat_on_move(&self) -> Option<Seat> {
        (self.status == RoomStatus::Playing)
            .then(|| self.game.to_move())
            .flatten()
    }

    /// The events of `name` taking a seat: `seat_taken`, and `game_started` when it was the last free
    /// seat.
    pub fn decide_join(
        &self,
        choice: &SeatChoice,
        name: Option<String>,
    ) -> Result<(Seat, Vec<Event>), JoinRefusal> {
        let free = |seat: &Seat| !self.seats[usize::from(*seat)].taken;
        let all: Vec<Seat> = (0..self.game.players()).collect();
        if self.status != RoomStatus::Waiting || !all.iter().any(free) {
            return Err(JoinRefusal::RoomFull);
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
        let mut events = vec![Event::SeatTaken {
            seat,
            color: self.game.color(seat).to_owned(),
            name,
        }];
        if self.seats.iter().filter(|slot| slot.taken).count() + 1 == self.seats.len() {
            events.push(Event::GameStarted {
                position: self.game.position(),
                to_move: self.game.to_move(),
            });
        }
        Ok((seat, events))
    }

    /// Whether a connection of `seat` (`None`: a spectator) may write to `channel` now.
    pub fn may_write_chat(&self, seat: Option<Seat>, channel: ChatChannel) -> Result<(), Refusal> {
        match (seat, channel) {
            (Some(_), ChatChannel::Players) => Ok(()),
            (Some(_), ChatChannel::Spectators) => Err(Refusal::new(
                Code::BadMessage,
                "players write to the \"players\" channel",
            )),
            (None, ChatChannel::Players) => Err(Refusal::new(
                Code::NotAPlayer,
                "spectators write to the \"spectators\" channel",
            )),
            (None, ChatChannel::Spectators) if !self.spectator_chat => Err(Refusal::new(
                Code::ChatDisabled,
                "the room's creator has turned spectator chat off",
            )),
            (None, ChatChannel::Spectators) => Ok(()),
        }
    }

    /// Whether a connection of `seat` (`None`: a spectator) reads `channel`: the players' chat is
    /// read by everyone in the room, the spectators' chat by spectators only (players never see
    /// what spectators say, so spectators cannot help them).
    pub fn may_read_chat(seat: Option<Seat>, channel: ChatChannel) -> bool {
        match channel {
            ChatChannel::Players => true,
            ChatChannel::Spectators => seat.is_none(),
        }
    }

    /// The events a player's command makes, or why it is refused.
    pub fn decide(&self, seat: Seat, command: &Command) -> Result<Vec<Event>, Refusal> {
        // What a room allows in every status: chat settings, and what comes after a game.
        match command {
            Command::Chat { .. } => {
                return Err(Refusal::new(Code::BadMessage, "chat is not a game command"));
            }
            Command::SetSpectatorChat { enabled } => {
                return self.decide_spectator_chat(seat, *enabled);
            }
            Command::OfferRematch => return self.decide_offer_rematch(seat),
            Command::Accept { offer } if self.is_rematch_offer(*offer) => {
                return self.decide_accept_rematch(seat, *offer);
            }
            Command::Decline { offer } if self.is_rematch_offer(*offer) => {
                return Ok(vec![Event::OfferDeclined { id: *offer }]);
            }
            Command::Accept { offer } | Command::Decline { offer }
                if self.status == RoomStatus::Finished =>
            {
                return Err(Refusal::new(
                    Code::NoSuchOffer,
                    format!("there is no open offer {offer}: the game is over"),
                ));
            }
            Command::Abort if self.status == RoomStatus::Waiting => {
                // The creator of a room nobody has joined yet cancels it.
                return Ok(vec![game_over(Outcome::draw(EndReason::Aborted))]);
            }
            _ => {}
        }
        match self.status {
            RoomStatus::Waiting => {
                return Err(Refusal::new(
                    Code::NotYourTurn,
                    "the game has not started: a seat is still free",
                ));
            }
            RoomStatus::Finished => return Err(Refusal::new(Code::GameOver, "the game is over")),
            RoomStatus::Playing => {}
        }
        if !self.game.in_play().contains(&seat) {
            // A player who left a game that goes on has no say in it any more (offers included).
            return Err(Refusal::new(Code::NotAPlayer, "you have left this game"));
        }
        match command {
            Command::Move { mv, v } => self.decide_move(seat, mv, *v),
            Command::Resign => self.decide_resign(seat),
            Command::OfferDraw => self.decide_offer_draw(seat),
            Command::Abort => self.decide_abort(),
            Command::OfferRematch | Command::Chat { .. } | Command::SetSpectatorChat { .. } => {
                Ok(Vec::new())
            }
            Command::Accept { offer } => self.decide_accept(seat, *offer),
            Command::Decline { offer } => match self.offers.iter().find(|o| o.id == *offer) {
                Some(o) => Ok(vec![Event::OfferDeclined { id: o.id }]),
                None => Err(Refusal::new(
                    Code::NoSuchOffer,
                    format!("there is no open offer {offer}"),
                )),
            },
            Command::ClaimDraw { reason } => {
                if reason != EndReason::Repetition.as_str() {
                    return Err(Refusal::new(
                        Code::CannotClaim,
                        format!("a draw can be claimed for \"repetition\" only, not {reason:?}"),
                    ));
                }
                let mut probe = self.game.clone();
                let outcome = probe
                    .claim_draw(seat, EndReason::Repetition)
                    .map_err(|e| Refusal::new(Code::CannotClaim, e.message))?;
                Ok(vec![game_over(outcome)])
            }
        }
    }

    fn is_rematch_offer(&self, id: u64) -> bool {
        self.offers
            .iter()
            .any(|o| o.id == id && o.kind == OfferKind::Rematch)
    }

    /// An abort: only while some player still in the game has not made a move.
    fn decide_abort(&self) -> Result<Vec<Event>, Refusal> {
        let everyone_moved = self
            .game
            .in_play()
            .into_iter()
            .all(|s| self.moved.get(usize::from(s)).copied().unwrap_or(true));
        if everyone_moved {
            return Err(Refusal::new(
                Code::CannotAbort,
                "every player has moved: the game can no longer be aborted (resign or offer a draw)",
            ));
        }
        Ok(vec![game_over(Outcome::draw(EndReason::Aborted))])
    }

    fn decide_spectator_chat(&self, seat: Seat, enabled: bool) -> Result<Vec<Event>, Refusal> {
        if self.creator != Some(seat) {
            return Err(Refusal::new(
                Code::NotTheCreator,
                "only the room's creator may turn spectator chat on or off",
            ));
        }
        if self.spectator_chat == enabled {
            return Ok(Vec::new());
        }
        Ok(vec![Event::SpectatorChat { enabled }])
    }

    /// A rematch offer after the game; offering when another seat's offer is open accepts it.
    fn decide_offer_rematch(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
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
        })])
    }

    /// `seat` accepts rematch offer `id`: once every seat but the offerer's has accepted (every
    /// seat, also one that left a three-player game: all of them sit in the new room), the
    /// rematch is made: a new room with the same game, each player one seat on.
    fn decide_accept_rematch(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
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
        if offer.accepted.contains(&seat) {
            return Ok(Vec::new());
        }
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
            invite_code: super::token::new_invite_code(),
            seats,
        })])
    }

    fn decide_move(&self, seat: Seat, mv: &str, v: i64) -> Result<Vec<Event>, Refusal> {
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
            counting: probe.counting().map(CountingInfo::from),
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
            // Moving answers a draw offer one has not accepted with "no", as over the board.
            None => events.extend(
                self.offers
                    .iter()
                    .filter(|o| {
                        o.kind == OfferKind::Draw && o.by != seat && !o.accepted.contains(&seat)
                    })
                    .map(|o| Event::OfferDeclined { id: o.id }),
            ),
        }
        Ok(events)
    }

    /// A resignation: in a two-player game the opponent wins; in a three-player game the seat
    /// leaves (open offers are withdrawn, since they were made to a table that has changed) and the
    /// others play on, unless only one is left.
    fn decide_resign(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        let mut probe = self.game.clone();
        let resigned = probe
            .resign(seat)
            .map_err(|e| Refusal::new(rule_code(e.code), e.message))?;
        if self.game.players() == 2 {
            let outcome = resigned
                .outcome
                .unwrap_or(Outcome::draw(EndReason::Resignation));
            return Ok(vec![game_over(outcome)]);
        }
        let mut events = vec![Event::Left {
            seat,
            reason: EndReason::Resignation,
            position: probe.position(),
            to_move: probe.to_move(),
        }];
        events.extend(
            resigned
                .skipped
                .into_iter()
                .map(|seat| Event::Skipped { seat }),
        );
        match resigned.outcome {
            Some(outcome) => events.push(game_over(outcome)),
            None => events.extend(
                self.offers
                    .iter()
                    .map(|o| Event::OfferDeclined { id: o.id }),
            ),
        }
        Ok(events)
    }

    /// `seat` accepts offer `id`: the game is drawn once every other player still in the game has
    /// accepted.
    fn decide_accept(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
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
        if offer.accepted.contains(&seat) {
            return Ok(Vec::new());
        }
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

    fn decide_offer_draw(&self, seat: Seat) -> Result<Vec<Event>, Refusal> {
        let draw_offers = || self.offers.iter().filter(|o| o.kind == OfferKind::Draw);
        if let Some(theirs) = draw_offers().find(|o| o.by != seat) {
            // Offering a draw to someone who offered one is agreeing.
            self.decide_accept(seat, theirs.id)
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
            })])
        }
    }

    /// Applies one event made at version `v` and time `at`. An error means the event does not fit
    /// this state (a corrupt or foreign event log): the state may then be partly changed and must be
    /// dropped.
    pub fn apply(&mut self, v: i64, event: &Event, at: DateTime<Utc>) -> Result<(), String> {
        if v != self.version + 1 {
            return Err(format!(
                "event version {v} does not follow {}",
                self.version
            ));
        }
        match event {
            Event::SeatTaken { seat, name, .. } => {
                let slot = self
                    .seats
                    .get_mut(usize::from(*seat))
                    .ok_or_else(|| format!("seat_taken names seat {seat}, which does not exist"))?;
                slot.taken = true;
                slot.name = name.clone();
                if v == 1 {
                    self.creator = Some(*seat);
                }
            }
            Event::GameStarted { .. } => {
                self.status = RoomStatus::Playing;
                self.started_at = Some(at);
                self.position_version = v;
            }
            Event::Moved { seat, mv, .. } => {
                if self.game.to_move() != Some(*seat) {
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
                });
                if let Some(moved) = self.moved.get_mut(usize::from(*seat)) {
                    *moved = true;
                }
                self.position_version = v;
            }
            Event::Offer(offer) => {
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
            }
            Event::OfferDeclined { id } => self.offers.retain(|o| o.id != *id),
            Event::OfferAccepted { id, by } => {
                let offer = self
                    .offers
                    .iter_mut()
                    .find(|o| o.id == *id)
                    .ok_or_else(|| format!("offer_accepted names offer {id}, which is not open"))?;
                offer.accepted.push(*by);
            }
            // The rules skipped the seat already when they played the move before.
            Event::Skipped { .. } => {}
            Event::Left { seat, .. } => {
                let on_move = self.game.to_move();
                self.game
                    .resign(*seat)
                    .map_err(|e| format!("stored resignation of seat {seat}: {e}"))?;
                if let Some(left) = self.left_after.get_mut(usize::from(*seat)) {
                    *left = Some(self.moves.len());
                }
                // Only when the turn passed does a move sent before this come too late.
                if self.game.to_move() != on_move {
                    self.position_version = v;
                }
            }
            Event::GameOver { result } => {
                self.result = Some(Outcome::from(*result));
                self.status = RoomStatus::Finished;
                self.offers.clear();
                self.finished_at = Some(at);
                self.position_version = v;
            }
            Event::Rematch(info) => {
                if self.status != RoomStatus::Finished {
                    return Err("a rematch before the game is over".into());
                }
                self.rematch = Some(info.clone());
                self.offers.clear();
            }
            Event::SpectatorChat { enabled } => self.spectator_chat = *enabled,
        }
        self.version = v;
        Ok(())
    }

    /// The seats as the wire shows them; `connected[i]` says whether seat i has a live connection.
    pub fn seat_infos(&self, connected: &[bool]) -> Vec<SeatInfo> {
        let in_play = self.game.in_play();
        self.seats
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let seat = Seat::try_from(i).unwrap_or(Seat::MAX);
                SeatInfo {
                    seat,
                    color: self.game.color(seat).to_owned(),
                    name: slot.name.clone(),
                    taken: slot.taken,
                    connected: connected.get(i).copied().unwrap_or(false),
                    left: !in_play.contains(&seat),
                }
            })
            .collect()
    }

    /// The whole state for one recipient; `legal` (the fields `legal_moves` and maybe
    /// `legal_moves_complete` for the seat on move) only goes in when `viewer` is that seat.
    pub fn snapshot(
        &self,
        connected: &[bool],
        viewer: Option<Seat>,
        legal: Option<&Value>,
    ) -> Snapshot {
        let on_move = self.seat_on_move();
        Snapshot {
            room_id: self.id,
            game: self.kind().as_str().to_owned(),
            status: self.status.as_str().to_owned(),
            seats: self.seat_infos(connected),
            start_position: self.start_position.clone(),
            position: self.game.position(),
            to_move: on_move,
            moves: self.moves.iter().map(|m| m.notation.clone()).collect(),
            display_moves: self.moves.iter().map(|m| m.display.clone()).collect(),
            legal_moves: legal
                .filter(|_| viewer.is_some() && viewer == on_move)
                .map(|fields| fields["legal_moves"].clone()),
            legal_moves_complete: legal
                .filter(|_| viewer.is_some() && viewer == on_move)
                .and_then(|fields| fields.get("legal_moves_complete"))
                .and_then(Value::as_bool),
            counting: self.game.counting().map(CountingInfo::from),
            offers: self.offers.clone(),
            result: self.result.map(ResultInfo::from),
            spectator_chat: self.spectator_chat,
            rematch: self.rematch.clone(),
            chat: Vec::new(),
        }
    }

    /// `[{"seat", "color", "name"}]` for the game record.
    /// `[{"seat", "color", "name", "left_after"}]` for the game record: `left_after` is the number
    /// of moves played when the seat left a game that went on without it (`null` otherwise), so the
    /// record replays.
    fn players(&self) -> Value {
        Value::Array(
            self.seat_infos(&[])
                .into_iter()
                .map(|s| {
                    let left_after = self.left_after.get(usize::from(s.seat)).copied().flatten();
                    json!({"seat": s.seat, "color": s.color, "name": s.name, "left_after": left_after})
                })
                .collect(),
        )
    }

    /// The finished game, once a `game_over` has been applied.
    pub fn game_record(&self) -> Option<GameRecord> {
        let outcome = self.result?;
        Some(GameRecord {
            room_id: self.id,
            game: self.kind(),
            players: self.players(),
            winner: outcome.winner,
            reason: outcome.reason.as_str().to_owned(),
            start_position: self.start_position.clone(),
            final_position: self.game.position(),
            moves: self.moves.iter().map(|m| m.notation.clone()).collect(),
            display_moves: self.moves.iter().map(|m| m.display.clone()).collect(),
            counting: self
                .game
                .counting()
                .and_then(|c| serde_json::to_value(CountingInfo::from(c)).ok()),
            started_at: self.started_at,
            finished_at: self.finished_at.unwrap_or(self.created_at),
        })
    }
}

fn game_over(outcome: Outcome) -> Event {
    Event::GameOver {
        result: ResultInfo::from(outcome),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;
    use crate::rules::GameOptions;

    /// A three-player Khan-Tsin room with every seat taken, before any move.
    fn three_player_room() -> RoomState {
        let setup = GameOptions {
            players: Some(3),
            ..GameOptions::default()
        };
        let game = AnyGame::new(GameKind::KhanTsin, &setup).unwrap();
        let start = game.position();
        let mut room = RoomState::new(
            Uuid::nil(),
            "abcdefgh".into(),
            Visibility::Private,
            json!({}),
            game,
            start,
            Utc::now(),
        );
        for seat in 0..3 {
            let (_, events) = room.decide_join(&SeatChoice::Number(seat), None).unwrap();
            apply_all(&mut room, &events);
        }
        room
    }

    /// A three-player Khan-Tsin room with every seat taken and the 36 placements made.
    fn three_player_room_after_placement() -> RoomState {
        let mut room = three_player_room();
        for _ in 0..36 {
            let seat = room.seat_on_move().unwrap();
            let mv = room.game.legal_moves()[0].clone();
            let events = room
                .decide(
                    seat,
                    &Command::Move {
                        mv,
                        v: room.version,
                    },
                )
                .unwrap();
            apply_all(&mut room, &events);
        }
        room
    }

    fn apply_all(room: &mut RoomState, events: &[Event]) {
        for event in events {
            room.apply(room.version + 1, event, Utc::now()).unwrap();
        }
    }

    #[test]
    fn chat_text_is_trimmed_cleaned_and_limited_in_characters() {
        assert_eq!(
            clean_chat_text(" a\u{7}b\r\nc\u{202e}d ").unwrap(),
            "ab  cd"
        );
        assert_eq!(clean_chat_text(" \t\n").unwrap_err().code, Code::BadMessage);
        assert!(clean_chat_text(&"ក".repeat(MAX_CHAT_CHARS)).is_ok());
        assert_eq!(
            clean_chat_text(&"x".repeat(MAX_CHAT_CHARS + 1))
                .unwrap_err()
                .code,
            Code::BadMessage
        );
    }

    #[test]
    fn abort_is_allowed_until_every_player_still_in_play_has_moved() {
        let mut room = three_player_room();
        for _ in 0..2 {
            assert!(room.decide(0, &Command::Abort).is_ok());
            let seat = room.seat_on_move().unwrap();
            let mv = room.game.legal_moves()[0].clone();
            let events = room
                .decide(
                    seat,
                    &Command::Move {
                        mv,
                        v: room.version,
                    },
                )
                .unwrap();
            apply_all(&mut room, &events);
        }
        assert!(
            room.decide(1, &Command::Abort).is_ok(),
            "the third has not placed yet"
        );
        let seat = room.seat_on_move().unwrap();
        let mv = room.game.legal_moves()[0].clone();
        let events = room
            .decide(
                seat,
                &Command::Move {
                    mv,
                    v: room.version,
                },
            )
            .unwrap();
        apply_all(&mut room, &events);
        assert_eq!(
            room.decide(0, &Command::Abort).unwrap_err().code,
            Code::CannotAbort
        );
    }

    #[test]
    fn a_resignation_that_keeps_the_turn_does_not_make_the_movers_move_stale() {
        let mut room = three_player_room_after_placement();
        let mover = room.seat_on_move().unwrap();
        let seen = room.version;
        let quitter = (0..3).find(|s| *s != mover).unwrap();
        let events = room.decide(quitter, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        assert_eq!(room.seat_on_move(), Some(mover));
        let mv = room.game.legal_moves()[0].clone();
        assert!(room.decide(mover, &Command::Move { mv, v: seen }).is_ok());
    }

    #[test]
    fn a_player_who_left_has_no_say_in_offers() {
        let mut room = three_player_room_after_placement();
        let events = room.decide(1, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        for command in [
            Command::OfferDraw,
            Command::Decline { offer: 1 },
            Command::Accept { offer: 1 },
            Command::Resign,
        ] {
            assert_eq!(
                room.decide(1, &command).unwrap_err().code,
                Code::NotAPlayer,
                "{command:?}"
            );
        }
        let events = room.decide(0, &Command::OfferDraw).unwrap();
        apply_all(&mut room, &events);
        // Blue alone accepting is enough: Green has left.
        let events = room.decide(2, &Command::Accept { offer: 1 }).unwrap();
        assert_eq!(events, vec![game_over(Outcome::draw(EndReason::Agreement))]);
    }

    #[test]
    fn the_record_of_a_game_that_went_on_says_who_left_and_when() {
        let mut room = three_player_room_after_placement();
        let events = room.decide(1, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        let events = room.decide(0, &Command::Resign).unwrap();
        apply_all(&mut room, &events);
        let record = room.game_record().unwrap();
        assert_eq!(
            (record.winner, record.reason.as_str()),
            (Some(2), "resignation")
        );
        assert_eq!(record.players[1]["left_after"], 36);
        assert_eq!(record.players[0]["left_after"], 36);
        assert_eq!(record.players[2]["left_after"], serde_json::Value::Null);
    }
}
