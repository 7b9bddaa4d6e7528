//! A room's state as a plain state machine, with no I/O: commands are *decided* into events, and
//! events are *applied* to the state.
//!
//! The split is what makes rooms durable: the room task decides, stores the events, and only then
//! applies them; after a restart the registry rebuilds the very same state by applying the stored
//! events in order. Applying never needs anything but the event, so the live path and the restore
//! path cannot drift apart.

use chrono::{DateTime, Utc};
use rand::seq::IteratorRandom;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::bot::Level;
use crate::protocol::{
    ChatChannel, ClockInfo, ClockView, Code, Command, Event, OfferInfo, OfferKind, RematchInfo,
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
    /// SHA-256 of the seat token; `None` while the seat is free. A bot's seat has the hash of a
    /// token nobody was given: only the room's own bot connection plays it.
    pub token_hash: Option<[u8; 32]>,
    /// The level of the computer opponent holding the seat; `None` for a person.
    pub bot: Option<Level>,
}

/// A move as played: canonical and display notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// Canonical notation (Ouk Chatrang: UCI), as stored and sent in `moved.d.move`.
    pub notation: String,
    /// For people (Ouk Chatrang: SAN), as sent in `moved.d.display`.
    pub display: String,
}

/// A timed room's clock settings (`clock` of the create request, kept in the room's `options`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSettings {
    /// Each seat's starting time, in seconds (1..=10800).
    pub initial_s: u32,
    /// Added to a seat's time after each of its moves (Fischer), in seconds (0..=180).
    pub increment_s: u32,
}

impl ClockSettings {
    /// The longest starting time: three hours.
    pub const MAX_INITIAL_S: u32 = 10_800;
    /// The largest increment: three minutes.
    pub const MAX_INCREMENT_S: u32 = 180;

    /// Checks the bounds; the error is a sentence for people.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=Self::MAX_INITIAL_S).contains(&self.initial_s) {
            return Err(format!(
                "clock.initial_s is 1 to {} seconds",
                Self::MAX_INITIAL_S
            ));
        }
        if self.increment_s > Self::MAX_INCREMENT_S {
            return Err(format!(
                "clock.increment_s is 0 to {} seconds",
                Self::MAX_INCREMENT_S
            ));
        }
        Ok(())
    }

    fn initial_ms(&self) -> u64 {
        u64::from(self.initial_s) * 1000
    }

    fn increment_ms(&self) -> u64 {
        u64::from(self.increment_s) * 1000
    }
}

/// The most a move's lag compensation gives back, in milliseconds.
pub const MAX_LAG_COMPENSATION_MS: u64 = 500;

/// The lag compensation of a move sent over a connection whose last measured round trip was
/// `rtt_ms`: half the round trip (the time the move spent on its way to the server), at most
/// [`MAX_LAG_COMPENSATION_MS`]. The idea is lichess's lag compensation, simplified to a per-move
/// bound (lichess also keeps a per-player quota); [`RoomState::stamp_clocks`] further caps it at
/// the time the move took, so compensation never gives a seat more than it had before the move.
pub fn lag_compensation_ms(rtt_ms: u64) -> u64 {
    (rtt_ms / 2).min(MAX_LAG_COMPENSATION_MS)
}

/// A timed room's clocks as of the last event that set them (`clock` in `game_started`, `moved`,
/// `left`). The room task knows when that was; the state holds no time of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// The room's settings.
    pub settings: ClockSettings,
    /// Each seat's remaining time in milliseconds at the last clock event.
    pub remaining_ms: Vec<u64>,
    /// The seat whose clock runs, if any.
    pub running: Option<Seat>,
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
    /// The clocks of a timed room (`options.clock`); `None` for an untimed one.
    pub clock: Option<Clocks>,
}

/// The legal moves of the seat on move as the wire gives them (PROTOCOL.md "Legal moves",
/// docs/protocol.md "Legal moves in Khan"): the `legal_moves` JSON, written out once per position
/// because listing and writing them is the costliest part of a move (a Khan tree holds hundreds of
/// moves), and whether it lists every move (`legal_moves_complete`).
#[derive(Debug)]
pub struct LegalMoves {
    /// `Rules::legal_moves_json` as JSON text.
    pub json: Box<RawValue>,
    /// `Rules::legal_moves_complete`.
    pub complete: bool,
}

impl LegalMoves {
    /// The legal moves of `game`'s player on move.
    pub fn of(game: &AnyGame) -> LegalMoves {
        LegalMoves {
            json: serde_json::value::to_raw_value(&game.legal_moves_json())
                .expect("a JSON value always serializes"),
            complete: game.legal_moves_complete(),
        }
    }
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

/// The name a computer opponent plays under, e.g. `Computer (level 3)`.
pub fn bot_name(level: Level) -> String {
    format!("Computer (level {level})")
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
            clock: options
                .get("clock")
                .and_then(|c| serde_json::from_value::<ClockSettings>(c.clone()).ok())
                .map(|settings| Clocks {
                    settings,
                    remaining_ms: vec![settings.initial_ms(); seats_len],
                    running: None,
                }),
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
        Ok((seat, self.seat_taken_events(seat, name, None)))
    }

    /// The events of a computer opponent at `level` taking the free `seat`: `seat_taken` with
    /// `bot`, and `game_started` when it was the last free seat. Refused (`cannot_add_bot`) unless
    /// the room is waiting and `seat` is one of its free seats.
    pub fn decide_bot_join(&self, seat: Seat, level: Level) -> Result<Vec<Event>, Refusal> {
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
            Some(_) => Ok(self.seat_taken_events(seat, Some(bot_name(level)), Some(level))),
        }
    }

    /// `seat_taken` for `seat`, and `game_started` when it is the last free seat.
    fn seat_taken_events(
        &self,
        seat: Seat,
        name: Option<String>,
        bot: Option<Level>,
    ) -> Vec<Event> {
        let mut events = vec![Event::SeatTaken {
            seat,
            color: self.game.color(seat).to_owned(),
            name,
            bot,
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
            Command::AddBot { seat, level } => return self.decide_bot_join(*seat, *level),
            Command::Abort if self.status == RoomStatus::Waiting => {
                // The creator of a room nobody has joined yet cancels it.
                return Ok(vec![game_over(Outcome::draw(EndReason::Aborted))]);
            }
            _ => {}
        }
        self.check_in_play()?;
        if !self.game.in_play().contains(&seat) {
            // A player who left a game that goes on has no say in it any more (offers included).
            return Err(Refusal::new(Code::NotAPlayer, "you have left this game"));
        }
        match command {
            Command::Move { mv, v } => self.decide_move(seat, mv, *v),
            Command::Resign => self.decide_resign(seat),
            Command::OfferDraw => self.decide_offer_draw(seat),
            Command::Abort => self.decide_abort(),
            Command::OfferRematch
            | Command::Chat { .. }
            | Command::SetSpectatorChat { .. }
            | Command::AddBot { .. } => Ok(Vec::new()),
            Command::Accept { offer } => self.decide_accept(seat, *offer),
            Command::Decline { offer } => match self.offers.iter().find(|o| o.id == *offer) {
                Some(o) => Ok(vec![Event::OfferDeclined { id: o.id }]),
                None => Err(Refusal::new(
                    Code::NoSuchOffer,
                    format!("there is no open offer {offer}"),
                )),
            },
            Command::ClaimVictory => Err(Refusal::new(
                Code::CannotClaim,
                "the player on move is not away long enough for a claim",
            )),
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
        self.decide_leave(seat, EndReason::Resignation)
    }

    /// `seat` leaves the game for `reason` (resignation or timeout): in a two-player game the game
    /// ends; in a three-player one the game goes on without it (`left`) unless that ends it.
    fn decide_leave(&self, seat: Seat, reason: EndReason) -> Result<Vec<Event>, Refusal> {
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

    /// When the running seat's time runs out, in the room task's clock milliseconds, given that the
    /// last clock event was at `mark_ms`; `None` when no clock runs.
    pub fn clock_deadline(&self, mark_ms: u64) -> Option<u64> {
        if self.status != RoomStatus::Playing {
            return None;
        }
        let clocks = self.clock.as_ref()?;
        let seat = clocks.running?;
        let left = clocks.remaining_ms.get(usize::from(seat)).copied()?;
        Some(mark_ms.saturating_add(left))
    }

    /// The clocks `elapsed_ms` after the last clock event, as a snapshot shows them.
    pub fn clock_view(&self, elapsed_ms: u64, at: DateTime<Utc>) -> Option<ClockView> {
        let clocks = self.clock.as_ref()?;
        let running = clocks
            .running
            .filter(|_| self.status == RoomStatus::Playing);
        let mut remaining_ms = clocks.remaining_ms.clone();
        if let Some(left) = running.and_then(|s| remaining_ms.get_mut(usize::from(s))) {
            *left = left.saturating_sub(elapsed_ms);
        }
        Some(ClockView {
            initial_s: clocks.settings.initial_s,
            increment_s: clocks.settings.increment_s,
            remaining_ms,
            running,
            at,
        })
    }

    /// The events of a flag, when the running seat's time is used up `elapsed_ms` after the last
    /// clock event; `None` while it has time left (or no clock runs). Two players: the other seat
    /// wins by `timeout`, or the game is drawn (`timeout`, no winner) when the rules say that seat
    /// could not win (Ouk Chatrang: no mating material, O-17). Three players (Khan-Tsin): the seat
    /// leaves as in a resignation, with reason `timeout`, and the game goes on. The events carry
    /// their clocks.
    pub fn decide_flag(&self, elapsed_ms: u64, at: DateTime<Utc>) -> Option<Vec<Event>> {
        let clocks = self.clock.as_ref()?;
        let deadline = self.clock_deadline(0)?;
        if elapsed_ms < deadline {
            return None;
        }
        let seat = clocks.running?;
        let mut events = if self.game.players() == 2 {
            let other = 1 - seat.min(1);
            let outcome = if self.game.can_win_on_time(other) {
                Outcome::win(other, EndReason::Timeout)
            } else {
                Outcome::draw(EndReason::Timeout)
            };
            vec![game_over(outcome)]
        } else {
            // The running seat is in play, so it can always leave; should the rules still refuse,
            // the game ends drawn rather than the deadline firing again and again.
            self.decide_leave(seat, EndReason::Timeout)
                .unwrap_or_else(|_| vec![game_over(Outcome::draw(EndReason::Timeout))])
        };
        self.stamp_clocks(&mut events, elapsed_ms, 0, at);
        Some(events)
    }

    /// Fills in the `clock` of the events that carry one (`game_started`, `moved`, `left`, and
    /// `game_over` of a game that started) for a timed room, `elapsed_ms` after the last clock event. The running seat is charged the time
    /// elapsed, less `compensation_ms` for a move (lag compensation, capped at the time elapsed, so
    /// a seat never gets back more than it spent); a move then adds the increment to its mover;
    /// the seat now on move runs. Does nothing for an untimed room.
    pub fn stamp_clocks(
        &self,
        events: &mut [Event],
        elapsed_ms: u64,
        compensation_ms: u64,
        at: DateTime<Utc>,
    ) {
        let Some(clocks) = &self.clock else { return };
        let settings = clocks.settings;
        let mut remaining = clocks.remaining_ms.clone();
        let mut running = clocks.running;
        // A game that never started has no clocks to report at its end.
        let mut started = self.status != RoomStatus::Waiting;
        // The time elapsed is charged once, to the seat running before the first of the events.
        let mut charged = false;
        let mut charge = |remaining: &mut Vec<u64>, running: Option<Seat>, compensation: u64| {
            if std::mem::replace(&mut charged, true) {
                return;
            }
            let spent = elapsed_ms - compensation.min(elapsed_ms);
            if let Some(left) = running.and_then(|s| remaining.get_mut(usize::from(s))) {
                *left = left.saturating_sub(spent);
            }
        };
        for event in events {
            let slot = match event {
                Event::GameStarted { to_move, clock, .. } => {
                    charge(&mut remaining, None, 0);
                    started = true;
                    remaining = vec![settings.initial_ms(); remaining.len()];
                    running = *to_move;
                    clock
                }
                Event::Moved {
                    seat,
                    to_move,
                    clock,
                    ..
                } => {
                    charge(&mut remaining, running, compensation_ms);
                    if let Some(left) = remaining.get_mut(usize::from(*seat)) {
                        *left = left.saturating_add(settings.increment_ms());
                    }
                    running = *to_move;
                    clock
                }
                Event::Left { to_move, clock, .. } => {
                    charge(&mut remaining, running, 0);
                    running = *to_move;
                    clock
                }
                Event::GameOver { clock, .. } if started => {
                    charge(&mut remaining, running, 0);
                    running = None;
                    clock
                }
                _ => continue,
            };
            *slot = Some(ClockInfo {
                remaining_ms: remaining.clone(),
                running,
                at,
            });
        }
    }

    /// Sets the clocks from an event's `clock` (stored or live: the same path).
    fn apply_clock(&mut self, info: Option<&ClockInfo>) {
        if let (Some(clocks), Some(info)) = (&mut self.clock, info) {
            clocks.remaining_ms.clone_from(&info.remaining_ms);
            clocks.running = info.running;
        }
    }

    /// Open offer `id` for `seat` to accept: `None` when `seat` has already accepted it (nothing to
    /// do), `no_such_offer` when it is not open or is `seat`'s own.
    fn offer_to_accept(&self, seat: Seat, id: u64) -> Result<Option<&OfferInfo>, Refusal> {
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

    /// `seat` accepts offer `id`: the game is drawn once every other player still in the game has
    /// accepted.
    fn decide_accept(&self, seat: Seat, id: u64) -> Result<Vec<Event>, Refusal> {
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
            Event::SeatTaken {
                seat, name, bot, ..
            } => {
                let slot = self
                    .seats
                    .get_mut(usize::from(*seat))
                    .ok_or_else(|| format!("seat_taken names seat {seat}, which does not exist"))?;
                slot.taken = true;
                slot.name = name.clone();
                slot.bot = *bot;
                if v == 1 {
                    self.creator = Some(*seat);
                }
            }
            Event::GameStarted { clock, .. } => {
                self.apply_clock(clock.as_ref());
                self.status = RoomStatus::Playing;
                self.started_at = Some(at);
                self.position_version = v;
            }
            Event::Moved {
                seat, mv, clock, ..
            } => {
                self.apply_clock(clock.as_ref());
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
            Event::Left { seat, clock, .. } => {
                self.apply_clock(clock.as_ref());
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
            Event::GameOver { result, clock } => {
                self.apply_clock(clock.as_ref());
                self.result = Some(Outcome::from(*result));
                if let Some(clocks) = &mut self.clock {
                    clocks.running = None;
                }
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
                    bot: slot.bot,
                }
            })
            .collect()
    }

    /// A game command needs the game on: `not_your_turn` before it started (a seat is still
    /// free), `game_over` after it ended.
    fn check_in_play(&self) -> Result<(), Refusal> {
        match self.status {
            RoomStatus::Waiting => Err(Refusal::new(
                Code::NotYourTurn,
                "the game has not started: a seat is still free",
            )),
            RoomStatus::Finished => Err(Refusal::new(Code::GameOver, "the game is over")),
            RoomStatus::Playing => Ok(()),
        }
    }

    /// The whole state for one recipient; `legal` (the legal moves of the seat on move) only goes
    /// in when `viewer` is that seat.
    pub fn snapshot(
        &self,
        connected: &[bool],
        viewer: Option<Seat>,
        legal: Option<&LegalMoves>,
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
                .and_then(|legal| serde_json::from_str(legal.json.get()).ok()),
            legal_moves_complete: legal
                .filter(|legal| viewer.is_some() && viewer == on_move && !legal.complete)
                .map(|_| false),
            extra: self.game.extra(),
            offers: self.offers.clone(),
            result: self.result.map(ResultInfo::from),
            spectator_chat: self.spectator_chat,
            rematch: self.rematch.clone(),
            chat: Vec::new(),
            clock: None,
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
            extra: self.game.extra(),
            started_at: self.started_at,
            finished_at: self.finished_at.unwrap_or(self.created_at),
        })
    }
}

fn game_over(outcome: Outcome) -> Event {
    Event::GameOver {
        result: ResultInfo::from(outcome),
        clock: None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;
    use crate::rules::GameOptions;

    /// A three-player Khan-Tsin room with no seat taken.
    fn empty_three_player_room() -> RoomState {
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
    fn three_player_room() -> RoomState {
        let mut room = empty_three_player_room();
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

    /// A timed two-player room of `kind` from `start` (or the standard start), both seats taken
    /// at time `at`.
    fn timed_room(
        kind: GameKind,
        start: Option<&str>,
        initial_s: u32,
        increment_s: u32,
    ) -> RoomState {
        let setup = GameOptions {
            start_position: start.map(str::to_owned),
            ..GameOptions::default()
        };
        let game = AnyGame::new(kind, &setup).unwrap();
        let position = game.position();
        let clock = json!({"clock": {"initial_s": initial_s, "increment_s": increment_s}});
        let mut room = RoomState::new(
            Uuid::nil(),
            "abcdefgh".into(),
            Visibility::Private,
            clock,
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

    fn timed_move(room: &mut RoomState, elapsed_ms: u64, compensation_ms: u64) -> ClockInfo {
        let seat = room.seat_on_move().unwrap();
        let mv = room.game.legal_moves()[0].clone();
        let command = Command::Move {
            mv,
            v: room.version,
        };
        let mut events = room.decide(seat, &command).unwrap();
        room.stamp_clocks(&mut events, elapsed_ms, compensation_ms, Utc::now());
        apply_all(room, &events);
        match &events[0] {
            Event::Moved {
                clock: Some(clock), ..
            } => clock.clone(),
            other => panic!("{other:?}"),
        }
    }

    /// The outcome and final clocks of a single `game_over` (none runs any more).
    fn final_clock(events: &[Event]) -> (Outcome, Vec<u64>) {
        match events {
            [
                Event::GameOver {
                    result,
                    clock: Some(clock),
                },
            ] if clock.running.is_none() => (Outcome::from(*result), clock.remaining_ms.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clocks_start_with_the_game_and_a_move_adds_the_increment_after_the_time_spent() {
        let mut room = timed_room(GameKind::Khan, None, 60, 2);
        assert_eq!(room.clock_deadline(1_000), Some(61_000));
        let clock = timed_move(&mut room, 12_345, 0);
        assert_eq!(
            (clock.remaining_ms, clock.running),
            (vec![49_655, 60_000], Some(1))
        );
        let clock = timed_move(&mut room, 1_000, 0);
        assert_eq!(
            (clock.remaining_ms, clock.running),
            (vec![49_655, 61_000], Some(0))
        );
        assert_eq!(room.clock_deadline(0), Some(49_655));
        let view = room.clock_view(655, Utc::now()).unwrap();
        assert_eq!(view.remaining_ms, vec![49_000, 61_000]);
        assert_eq!((view.initial_s, view.increment_s), (60, 2));
    }

    #[test]
    fn lag_compensation_is_half_the_round_trip_at_most_500_ms_and_never_more_than_spent() {
        assert_eq!(lag_compensation_ms(0), 0);
        assert_eq!(lag_compensation_ms(240), 120);
        assert_eq!(lag_compensation_ms(5_000), MAX_LAG_COMPENSATION_MS);
        let mut room = timed_room(GameKind::Khan, None, 60, 0);
        let clock = timed_move(&mut room, 1_000, 300);
        assert_eq!(clock.remaining_ms, vec![59_300, 60_000]);
        // 200 ms spent, 300 ms of compensation: the seat keeps what it had, no more.
        let clock = timed_move(&mut room, 200, 300);
        assert_eq!(clock.remaining_ms, vec![59_300, 60_000]);
    }

    #[test]
    fn a_flag_comes_exactly_at_the_deadline_and_the_other_seat_wins() {
        let mut room = timed_room(GameKind::Khan, None, 10, 0);
        timed_move(&mut room, 4_000, 0);
        assert_eq!(room.decide_flag(9_999, Utc::now()), None);
        let events = room.decide_flag(10_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::win(0, EndReason::Timeout), vec![6_000, 0])
        );
        apply_all(&mut room, &events);
        let view = room.clock_view(0, Utc::now()).unwrap();
        assert_eq!((view.remaining_ms, view.running), (vec![6_000, 0], None));
        assert_eq!(room.clock_deadline(0), None);
    }

    #[test]
    fn a_flag_against_a_side_without_mating_material_is_a_draw() {
        // White flags; Black's lone King could never mate (O-17).
        let room = timed_room(
            GameKind::OukChatrang,
            Some("4k3/8/8/8/8/8/8/R2K4 w - - 0 1"),
            5,
            0,
        );
        let events = room.decide_flag(5_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::draw(EndReason::Timeout), vec![0, 5_000])
        );
        // Black flags instead: White has a Rook and wins.
        let room = timed_room(
            GameKind::OukChatrang,
            Some("4k3/8/8/8/8/8/8/R2K4 b - - 0 1"),
            5,
            0,
        );
        let events = room.decide_flag(5_000, Utc::now()).unwrap();
        assert_eq!(
            final_clock(&events),
            (Outcome::win(0, EndReason::Timeout), vec![5_000, 0])
        );
    }

    #[test]
    fn a_flagged_player_of_three_leaves_with_its_clock_at_zero_and_the_game_goes_on() {
        let mut room = three_player_room();
        room.clock = Some(Clocks {
            settings: ClockSettings {
                initial_s: 30,
                increment_s: 0,
            },
            remaining_ms: vec![30_000; 3],
            running: Some(0),
        });
        let events = room.decide_flag(30_000, Utc::now()).unwrap();
        let Event::Left {
            seat,
            reason,
            to_move,
            clock: Some(clock),
            ..
        } = &events[0]
        else {
            panic!("{events:?}");
        };
        assert_eq!((*seat, *reason, *to_move), (0, EndReason::Timeout, Some(1)));
        assert_eq!(clock.remaining_ms, vec![0, 30_000, 30_000]);
        apply_all(&mut room, &events);
        assert_eq!(room.status, RoomStatus::Playing);
        assert_eq!(room.game.in_play(), vec![1, 2]);
    }

    #[test]
    fn clock_settings_are_bounded() {
        let ok = |initial_s, increment_s| {
            ClockSettings {
                initial_s,
                increment_s,
            }
            .validate()
            .is_ok()
        };
        assert!(ok(1, 0) && ok(10_800, 180));
        assert!(!ok(0, 0) && !ok(10_801, 0) && !ok(60, 181));
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
