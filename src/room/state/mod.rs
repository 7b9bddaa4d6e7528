//! A room's state as a plain state machine, with no I/O: commands are *decided* into events, and
//! events are *applied* to the state.
//!
//! The split is what makes rooms durable: the room task decides, stores the events, and only then
//! applies them; after a restart the registry rebuilds the very same state by applying the stored
//! events in order. Applying never needs anything but the event, so the live path and the restore
//! path cannot drift apart.
//!
//! This file holds the state itself, [`RoomState::decide`] (the one place that says which command
//! goes where) and [`RoomState::apply`]; each concern's rules live beside it: `seats.rs` (taking a
//! seat, bots, tokens), `play.rs` (moves, resignation, abort, the repetition claim), `offers.rs`
//! (draw and rematch offers), `takeback.rs` (takeback offers and replaying the game without the
//! moves taken back), `clocks.rs` (time control, flags), `lag.rs` (lag compensation),
//! `correspondence.rs` (games of days per move),
//! `abandonment.rs` (leaving a game, claims and votes against an absent seat), `chat.rs` (who may
//! write where, and the text) and `views.rs` (what a client or the game record is shown).

mod abandonment;
mod chat;
mod clocks;
mod correspondence;
mod lag;
mod offers;
mod play;
mod seats;
mod takeback;
#[cfg(test)]
pub(super) mod testing;
mod views;

pub use abandonment::Absence;
pub use chat::{MAX_CHAT_CHARS, clean_chat_text};
pub use clocks::Clocks;
pub use correspondence::Correspondence;
// Time controls live on the floor both rooms and ratings stand on; re-exported at their old path.
pub use crate::domain::{ClockSettings, CorrespondenceSettings, DAYS_PER_MOVE, TimeControl};
pub use lag::{LagEstimate, LagQuota, MAX_LAG_SAMPLE_MS};
pub use seats::{JoinRefusal, SeatChoice, SeatSlot, bot_name, taken_by_account};
pub use views::LegalMoves;

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::domain::{RoomStatus, Visibility};
use crate::protocol::{
    ChatChannel, ClaimReason, Code, Command, Event, OfferInfo, RatingChange, RematchInfo,
    ResultInfo,
};
use crate::rules::{AnyGame, GameKind, Outcome, RuleErrorCode, Rules, Seat};

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

/// What the room task does with a command [`RoomState::decide`] did not refuse.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Store these events, then apply and publish them, and acknowledge with the version of the
    /// last. None: nothing changes, and the command is acknowledged at the room's version.
    Events {
        /// The seat whose command it was (spectators make no events).
        by: Seat,
        /// The events, in order.
        events: Vec<Event>,
    },
    /// A vote of three players against the absent seat `against` that is not yet decisive: the
    /// room task remembers `voters` (the voter included) in place of the votes it had, makes no
    /// event and acknowledges at the room's version.
    Vote {
        /// The absent seat on move the vote is against.
        against: Seat,
        /// Every seat that has voted against it so far, in voting order.
        voters: Vec<Seat>,
    },
    /// A chat message for the room task to store and send to whoever reads `channel`; chat makes
    /// no event.
    Chat {
        /// The channel written to, which the writer may write to.
        channel: ChatChannel,
        /// The text as stored and sent (see [`clean_chat_text`]).
        text: String,
    },
}

/// A move as played: canonical and display notation, who played it, what it captured and where
/// it led (the snapshot's `history`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// Canonical notation (Ouk Chatrang: UCI), as stored and sent in `moved.d.move`.
    pub notation: String,
    /// For people (Ouk Chatrang: SAN), as sent in `moved.d.display`.
    pub display: String,
    /// The seat that played it.
    pub seat: Seat,
    /// The squares it captured on (`moved.d.captured`).
    pub captured: Vec<String>,
    /// The position after it (`moved.d.position`).
    pub position: String,
    /// A timed room: each seat's remaining milliseconds as of the last clock event before the
    /// move, the mover's clock running (what a takeback of it restores); `None` untimed.
    pub clock_before: Option<Vec<u64>>,
}

/// Everything about a room that events change. [`RoomState::decide`] only reads it;
/// [`RoomState::apply`] is the one way it changes (the room task applies a command's events as it
/// stages their commit, and reloads the room from the database when the commit fails).
#[derive(Clone, Debug)]
pub struct RoomState {
    /// The room's id (a UUID).
    pub id: Uuid,
    /// The invite code (8 lowercase characters, see [`super::token`]).
    pub invite_code: String,
    /// Whether the lobby lists the room.
    pub visibility: Visibility,
    /// The `options` object of the create request, as given (e.g. `start_position`), with the
    /// request's `clock` and `rated` kept in it.
    pub options: Value,
    /// Whether the game is rated ([`crate::domain::is_rated`] of `options`): every seat is a
    /// logged-in player's, no bot plays, and its end changes the players' ratings.
    pub rated: bool,
    /// The start position as given, or the game's standard start; stored moves replay from it.
    pub start_position: String,
    /// When the room was created (UTC).
    pub created_at: DateTime<Utc>,
    /// One slot per seat, in seat order.
    pub seats: Vec<SeatSlot>,
    /// `waiting` until every seat is taken, then `playing`, then `finished` (also straight from
    /// `waiting`, when the room is cancelled or expires).
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
    /// The open offers; `game_over` and `rematch` clear them.
    pub offers: Vec<OfferInfo>,
    next_offer_id: u64,
    /// Per seat, the number of moves played when it last offered a draw: one offer per move.
    draw_offered_at: Vec<Option<usize>>,
    /// Per seat, the number of moves played when it left a game that went on without it.
    left_after: Vec<Option<usize>>,
    /// The seats that left a game that went on without them, in the order they left.
    pub leavers: Vec<Seat>,
    /// The outcome, once a `game_over` has been applied.
    pub result: Option<Outcome>,
    /// A rated game's rating changes, once its `game_over` has been applied.
    pub ratings: Option<Vec<RatingChange>>,
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
    /// Per seat, its takeback offers so far (what the limits on offering count).
    takeback_limits: Vec<takeback::TakebackLimits>,
    /// The rematch made after this game, once every seat agreed.
    pub rematch: Option<RematchInfo>,
    /// The clocks of a timed room (`options.clock`); `None` for an untimed one.
    pub clock: Option<Clocks>,
    /// A correspondence room's days per move and when its clocks were last set
    /// (`options.clock.days_per_move`); `None` for any other room.
    pub correspondence: Option<Correspondence>,
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
        let (clock, correspondence) = correspondence::time_control(&options, seats_len);
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
            leavers: Vec::new(),
            result: None,
            ratings: None,
            started_at: None,
            finished_at: None,
            creator: None,
            spectator_chat: options
                .get("spectator_chat")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            moved: vec![false; seats_len],
            rematch_offers: vec![0; seats_len],
            takeback_limits: vec![takeback::TakebackLimits::default(); seats_len],
            rematch: None,
            clock,
            correspondence,
            rated: crate::domain::is_rated(&options),
            options,
        }
    }

    /// Which game the room plays.
    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// The seat on move while the game is being played.
    pub fn seat_on_move(&self) -> Option<Seat> {
        (self.status == RoomStatus::Playing)
            .then(|| self.game.to_move())
            .flatten()
    }

    /// Whether the game can no longer be aborted: every seat that has not left a game going on
    /// without it (in three-player Khan-Tsin, every seat still in play) has made a move.
    pub fn abort_window_closed(&self) -> bool {
        self.ended_after_abort_window(self)
    }

    /// Whether `ended`, this state with the events of the command that ended the game applied,
    /// ended after the abort window had closed: every seat has moved by the end or had left
    /// before that command. A game that ends while it could still be aborted (a player who never
    /// moved, then resigned, ran out of time or was claimed against, ending it, even as the
    /// second no-show of three) is not rated, as on lichess; a three-player game whose no-show
    /// left after the other two had moved is played out and rated, the no-show among the
    /// leavers. The leavers are this state's: the ending command's own `left` does not count.
    pub fn ended_after_abort_window(&self, ended: &RoomState) -> bool {
        ended.moved.iter().enumerate().all(|(seat, &moved)| {
            moved || self.leavers.iter().any(|&left| usize::from(left) == seat)
        })
    }

    /// What a command of `by` (`None`: a spectator's connection) decides, or why it is refused.
    /// `absence` is what the room task knows of an absent seat on move, for the claims against
    /// it. Spectators may only chat (`not_a_player` otherwise). A refusal changes nothing; the
    /// room task acts on a decision (see [`Decision`]).
    pub fn decide(
        &self,
        by: Option<Seat>,
        command: &Command,
        absence: Absence<'_>,
    ) -> Result<Decision, Refusal> {
        let player =
            || by.ok_or_else(|| Refusal::new(Code::NotAPlayer, "spectators cannot send commands"));
        let events = match command {
            Command::Chat { channel, text } => return self.decide_chat(by, *channel, text),
            Command::ClaimVictory => return self.decide_claim_abandoned(player()?, absence, false),
            Command::ClaimDraw {
                reason: ClaimReason::Abandoned,
            } => return self.decide_claim_abandoned(player()?, absence, true),
            Command::ClaimDraw {
                reason: ClaimReason::Repetition,
            } => self.decide_claim_repetition(player()?),
            Command::Move { mv, v } => self.decide_move(player()?, mv, *v),
            Command::Resign => self.decide_resign(player()?),
            Command::Abort => self.decide_abort(player()?),
            Command::OfferDraw => self.decide_offer_draw(player()?),
            Command::OfferRematch => self.decide_offer_rematch(player()?),
            Command::OfferTakeback => self.decide_offer_takeback(player()?),
            Command::Accept { offer } => self.decide_accept(player()?, *offer),
            Command::Decline { offer } => self.decide_decline(player()?, *offer),
            Command::SetSpectatorChat { enabled } => {
                self.decide_spectator_chat(player()?, *enabled)
            }
            Command::AddBot { seat, level } => {
                player()?;
                self.decide_bot_join(*seat, *level)
            }
        }?;
        Ok(Decision::Events {
            by: player()?,
            events,
        })
    }

    /// `seat` as the author of a game command: the game is on (`not_your_turn` before it started,
    /// a seat being still free; `game_over` after it ended) and `seat` still plays in it (a
    /// player who left a game that goes on has no say in it any more, offers included:
    /// `not_a_player`).
    fn in_play(&self, seat: Seat) -> Result<Seat, Refusal> {
        match self.status {
            RoomStatus::Waiting => Err(Refusal::new(
                Code::NotYourTurn,
                "the game has not started: a seat is still free",
            )),
            RoomStatus::Finished => Err(Refusal::new(Code::GameOver, "the game is over")),
            RoomStatus::Playing if !self.game.in_play().contains(&seat) => {
                Err(Refusal::new(Code::NotAPlayer, "you have left this game"))
            }
            RoomStatus::Playing => Ok(seat),
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
                seat,
                name,
                bot,
                same_player_as,
                user,
                ..
            } => self.apply_seat_taken(v, *seat, name, *bot, *same_player_as, user)?,
            Event::SeatAccount {
                seat,
                user,
                deleted,
            } => self.apply_seat_account(*seat, user, *deleted)?,
            Event::GameStarted { clock, .. } => {
                self.apply_clock(clock.as_ref());
                self.status = RoomStatus::Playing;
                self.started_at = Some(at);
                self.position_version = v;
            }
            Event::Moved {
                seat, mv, clock, ..
            } => {
                let clock_before = self.clock.as_ref().map(|c| c.remaining_ms.clone());
                self.apply_clock(clock.as_ref());
                self.apply_moved(*seat, mv, clock_before)?;
                self.position_version = v;
            }
            Event::Offer(offer) => self.apply_offer(offer),
            Event::OfferDeclined { id, by } => {
                if let Some(offer) = self.offers.iter().find(|o| o.id == *id).cloned() {
                    self.count_takeback_decline(&offer, *by);
                }
                self.offers.retain(|o| o.id != *id);
            }
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
                self.apply_left(*seat)?;
                // Only when the turn passed does a move sent before this come too late.
                if self.game.to_move() != on_move {
                    self.position_version = v;
                }
            }
            Event::GameOver {
                result,
                clock,
                ratings,
            } => {
                self.apply_clock(clock.as_ref());
                self.result = Some(Outcome::from(*result));
                self.ratings.clone_from(ratings);
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
            Event::TakenBack {
                plies,
                position,
                clock,
                ..
            } => {
                self.apply_clock(clock.as_ref());
                self.apply_taken_back(*plies, position)?;
                self.position_version = v;
            }
        }
        self.note_clock_set(event);
        self.version = v;
        Ok(())
    }
}

fn game_over(outcome: Outcome) -> Event {
    Event::GameOver {
        result: ResultInfo::from(outcome),
        clock: None,
        ratings: None,
    }
}
