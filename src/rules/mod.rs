//! The shared rules module: every rule of every game Khanate hosts, and nothing else.
//!
//! It is pure, synchronous and deterministic: no I/O, no async, no clock, no randomness. The server
//! holds an [`AnyGame`] and asks it what is legal; it never knows a rule itself. Each game implements
//! the [`Rules`] trait over its own text notations (see `docs/rules/*.md`):
//!
//! - Ouk Chatrang: positions are Fairy-Stockfish `cambodian` FEN, moves are UCI ([`ouk_chatrang`]).
//! - Khan: positions are the Khan position text, moves are square paths such as `e2-e3` or
//!   `f3-h5-f7` ([`khan`]); legal moves go to clients as a tree (`docs/protocol.md`).
//! - Khan-Tsin: positions are the rules file's position text, moves are placements (`p12`, `K12`),
//!   stack moves (`17:2-`) and `pass` ([`khan_tsin`]).
//!
//! Moves cross this boundary as strings in the game's notation; parsing never panics and every
//! rejection is a [`RuleError`] whose [`RuleErrorCode`] is stable on the wire.

mod extra;
mod facts;
pub mod khan;
pub mod khan_tsin;
pub mod ouk_chatrang;

pub use extra::{Extra, KEYS as EXTRA_KEYS};
pub use facts::{Material, SeatMaterial, seat_key};

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Which game a room plays. On the wire: `"ouk-chatrang"`, `"khan"`, `"khan-tsin"`
/// (PROTOCOL.md, "Games, seats, colours").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    /// Cambodian chess, `docs/rules/ouk-chatrang.md`.
    OukChatrang,
    /// J. P. Neto's game of Soldiers and Khans, `docs/rules/khan.md` (K-1..K-17).
    Khan,
    /// Cosmoludo's stacking race for 2 or 3 players, the Khan-Tsin rules file (T-1..T-15).
    KhanTsin,
}

impl GameKind {
    /// Every game, in the order menus list them.
    pub const ALL: [GameKind; 3] = [GameKind::OukChatrang, GameKind::Khan, GameKind::KhanTsin];

    /// The game id used on the wire, in the database and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::OukChatrang => "ouk-chatrang",
            GameKind::Khan => "khan",
            GameKind::KhanTsin => "khan-tsin",
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameKind {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| {
                RuleError::new(
                    RuleErrorCode::UnknownGame,
                    format!("unknown game {s:?}; expected one of: ouk-chatrang, khan, khan-tsin"),
                )
            })
    }
}

/// A seat: a player's place in turn order, numbered from 0. In Ouk Chatrang and Khan seat 0 plays
/// White and seat 1 Black.
pub type Seat = u8;

/// Why a game ended; the reason words of PROTOCOL.md. The rules module produces the rule-based
/// ones (checkmate, stalemate, repetition, insufficient material, counting, ...) and, through
/// [`Rules::resign`], resignation; the room adds agreement, timeout, abandoned and aborted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// `checkmate`: the side to move is mated and loses (Ouk Chatrang O-15; also while counting, O-22).
    Checkmate,
    /// `stalemate`: the side to move has no legal move and is not in check; a draw (Ouk Chatrang O-15).
    Stalemate,
    /// `goal_row`: a Soldier reached its goal row and its side wins (Khan K-14).
    GoalRow,
    /// `no_soldiers`: a side lost its last Soldier and loses (Khan K-15).
    NoSoldiers,
    /// `khan_tsin`: the mover made a 9-stack topped by a face-up Khan-pawn and wins (Khan-Tsin T-13).
    KhanTsin,
    /// `resignation`: a seat sent `resign`; the opponent wins (three players: the seat leaves, and
    /// the last player left wins), as [`Rules::resign`] says.
    Resignation,
    /// `agreement`: a draw offer was accepted by every other player still in the game (or met by a
    /// counter-offer); a draw. Made by the room.
    Agreement,
    /// `repetition`: threefold repetition. Ouk Chatrang: a draw the player to move claims (O-16);
    /// Khan: automatic, a loss for the player who repeated (K-17); Khan-Tsin: an automatic draw
    /// (T-15).
    Repetition,
    /// `insufficient_material`: neither side can ever mate; drawn automatically (Ouk Chatrang O-17).
    InsufficientMaterial,
    /// `counting`: the count reached its limit without mate; a draw (Ouk Chatrang O-20).
    Counting,
    /// `no_moves`: the player on move has no legal move; a draw (Khan K-16).
    NoMoves,
    /// `all_skipped`: no player has a legal move; a draw (Khan-Tsin T-14).
    AllSkipped,
    /// `timeout`: the running clock of a timed room ran out. Two players: the opponent wins, or the
    /// game is drawn when the opponent could not win (Ouk Chatrang: no mating material, O-17);
    /// three players: the seat leaves and the game goes on (the last player left wins). Made by
    /// the room.
    Timeout,
    /// `abandoned`: the player on move stayed away past the grace period of a timed game and the
    /// others claimed: two players, a win for the claimer (`claim_victory`) or a draw
    /// (`claim_draw {reason: "abandoned"}`); three players, once every other person voted, the
    /// seat leaves (the last player left wins). Made by the room.
    Abandoned,
    /// `aborted`: no result (a draw with no winner): `abort` before every player still in the game
    /// had moved, or a waiting room its creator cancelled or that expired. Made by the room.
    Aborted,
}

impl EndReason {
    /// The reason word as written on the wire and in the database, e.g. `"insufficient_material"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::GoalRow => "goal_row",
            EndReason::NoSoldiers => "no_soldiers",
            EndReason::KhanTsin => "khan_tsin",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Repetition => "repetition",
            EndReason::InsufficientMaterial => "insufficient_material",
            EndReason::Counting => "counting",
            EndReason::NoMoves => "no_moves",
            EndReason::AllSkipped => "all_skipped",
            EndReason::Timeout => "timeout",
            EndReason::Abandoned => "abandoned",
            EndReason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a game ended: the winning seat (`None` for a draw) and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning seat; `None` for a draw.
    pub winner: Option<Seat>,
    /// Why the game ended (`game_over.d.result.reason` on the wire).
    pub reason: EndReason,
}

impl Outcome {
    /// A win for `seat`.
    pub fn win(seat: Seat, reason: EndReason) -> Self {
        Outcome {
            winner: Some(seat),
            reason,
        }
    }

    /// A draw.
    pub fn draw(reason: EndReason) -> Self {
        Outcome {
            winner: None,
            reason,
        }
    }
}

/// The stable, machine-readable kind of a [`RuleError`]. The room maps these onto the reject codes
/// of PROTOCOL.md (`bad_notation`, `illegal_move`, `game_over`, `cannot_claim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleErrorCode {
    /// The text is not a move in the game's notation at all (e.g. `"e9e4"`, `"hello"`).
    BadNotation,
    /// A position text (FEN, ...) that cannot be read or describes an impossible position.
    BadPosition,
    /// Well-formed, but not a legal move in this position.
    IllegalMove,
    /// The game has already ended.
    GameOver,
    /// A draw claim that the position does not allow.
    CannotClaim,
    /// A game id that is not one of `GameKind::ALL`.
    UnknownGame,
    /// A set-up option the game does not have, or a value it cannot use (e.g. 3 players of Ouk
    /// Chatrang, a Khan-Tsin layout without twelve squares of each type).
    BadOption,
}

impl RuleErrorCode {
    /// The code as written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleErrorCode::BadNotation => "bad_notation",
            RuleErrorCode::BadPosition => "bad_position",
            RuleErrorCode::IllegalMove => "illegal_move",
            RuleErrorCode::GameOver => "game_over",
            RuleErrorCode::CannotClaim => "cannot_claim",
            RuleErrorCode::UnknownGame => "unknown_game",
            RuleErrorCode::BadOption => "bad_option",
        }
    }
}

/// Why the rules refused something: a stable code and a sentence for people that says what is wrong
/// (e.g. `illegal_move: e3e5: a pawn moves one square forward`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct RuleError {
    /// The stable kind; the room maps it onto a reject code, the REST API onto an error code.
    pub code: RuleErrorCode,
    /// What is wrong, for people, citing the rule where there is one.
    pub message: String,
}

impl RuleError {
    /// A rule error with `code` and a sentence for people.
    pub fn new(code: RuleErrorCode, message: impl Into<String>) -> Self {
        RuleError {
            code,
            message: message.into(),
        }
    }
}

/// What [`Rules::play`] reports about a move it accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The move in the game's canonical notation (Ouk Chatrang: UCI, e.g. `g5g6m`), whatever
    /// spelling the client sent.
    pub notation: String,
    /// The move for people (Ouk Chatrang: SAN as Fairy-Stockfish writes it, e.g. `dxe3=M`).
    pub display: String,
    /// Seats whose turn was skipped after this move because they had no legal move, in turn order
    /// (Khan-Tsin T-12); empty in the other games.
    pub skipped: Vec<Seat>,
    /// The squares whose enemy piece this move captured, in the game's square names, from the
    /// first square upwards (Khan: custodian captures, K-13, and the piece a push took, K-11; Ouk
    /// Chatrang: the square captured on); empty when it captured nothing, and always in Khan-Tsin,
    /// which has no captures.
    pub captured: Vec<String>,
    /// Set when this move ended the game (checkmate, counting, ...).
    pub outcome: Option<Outcome>,
}

/// What [`Rules::resign`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resigned {
    /// Seats skipped because the turn passed on and they had no legal move (Khan-Tsin T-12).
    pub skipped: Vec<Seat>,
    /// Set when the resignation ended the game: in a two-player game the opponent wins; in a
    /// three-player game only when one player is left.
    pub outcome: Option<Outcome>,
}

/// How a new game is set up, from a room's options. Each game reads what concerns it and
/// [`AnyGame::new`] refuses options a game does not have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameOptions {
    /// A start position in the game's position text (analysis rooms); the standard start otherwise.
    pub start_position: Option<String>,
    /// Khan-Tsin: 2 or 3 players.
    pub players: Option<u8>,
    /// Khan-Tsin: the track layout, 36 digits in {1, 2, 3}, twelve of each (T-3).
    pub layout: Option<String>,
    /// Khan-Tsin: the colours played, e.g. `["white", "green"]` (T-4); seats take them lightest
    /// first, whatever order they are given in (T-7).
    pub colors: Option<Vec<String>>,
}

/// The interface every game implements. A value is a whole game in progress: the position plus the
/// history the rules need (repetition, counting), so the same value answers every question the room
/// asks.
pub trait Rules {
    /// The current position in the game's canonical position text (Ouk Chatrang: FEN).
    fn position(&self) -> String;

    /// How many seats (players) the game has.
    fn players(&self) -> u8;

    /// The colour name of `seat` on the wire (`"white"`, `"black"`, `"green"`, `"blue"`).
    fn color(&self, seat: Seat) -> &'static str;

    /// The seat whose turn it is, or `None` once the game has ended.
    fn to_move(&self) -> Option<Seat>;

    /// The seats still taking part, in turn order: every seat, except in a three-player game where
    /// some have left (Khan-Tsin: resigned; their pieces stay and their turns are skipped).
    fn in_play(&self) -> Vec<Seat>;

    /// Every legal move in canonical notation, sorted; empty once the game has ended.
    fn legal_moves(&self) -> Vec<String>;

    /// The legal moves as sent to the seat on move (`legal_moves` in PROTOCOL.md): by default the
    /// sorted list of [`Rules::legal_moves`]; a game whose list would be long may send a more
    /// compact shape, documented in `docs/protocol.md`.
    fn legal_moves_json(&self) -> serde_json::Value {
        serde_json::Value::from(self.legal_moves())
    }

    /// The game's own state after the last move, carried by the server without reading it (see
    /// [`Extra`]; Ouk Chatrang: `counting` while a count runs). Default: none.
    fn extra(&self) -> Extra {
        Extra::default()
    }

    /// Each seat's material now (see [`Material`]): Khan its pieces on the board, Ouk Chatrang the
    /// enemy pieces it captured. Default: `None`, a game without material to show (Khan-Tsin).
    fn material(&self) -> Option<Material> {
        None
    }

    /// The seat whose King is in check now, also when it is mated (Ouk Chatrang); `None` when
    /// none is, and always in games without check (the default).
    fn check(&self) -> Option<Seat> {
        None
    }

    /// Whether [`Rules::legal_moves`] lists every legal move. Only a Khan position with more than
    /// `khan::MAX_LISTED` move strings lists fewer (its longest jump chains; they stay playable).
    fn legal_moves_complete(&self) -> bool {
        true
    }

    /// Plays `mv` (any accepted spelling of a legal move) for the side to move.
    ///
    /// Errors: `GameOver` when the game has ended, `BadNotation` when `mv` cannot be read,
    /// `IllegalMove` when it is not legal here. On error nothing changes.
    fn play(&mut self, mv: &str) -> Result<Applied, RuleError>;

    /// How the game ended by the rules, if it has.
    fn outcome(&self) -> Option<Outcome>;

    /// `seat` resigns (it need not be on move). Errors: `GameOver`, or `IllegalMove` when `seat` is
    /// not in play. On error nothing changes.
    fn resign(&mut self, seat: Seat) -> Result<Resigned, RuleError>;

    /// `by` claims a draw for `reason` (Ouk Chatrang: `Repetition`, O-16). On success the game is
    /// over with the returned outcome. Errors: `GameOver`, or `CannotClaim` when the rules do not
    /// allow the claim now or not by this seat. On error nothing changes.
    fn claim_draw(&mut self, by: Seat, reason: EndReason) -> Result<Outcome, RuleError>;

    /// Whether `seat` could still win if its opponent ran out of time: when it could not, a flag
    /// is a draw (Ouk Chatrang: `seat` has no mating material by O-17). Time enters the rules only
    /// as this question; the clock itself is the room's. Default: it could.
    fn can_win_on_time(&self, seat: Seat) -> bool {
        let _ = seat;
        true
    }
}

/// The resignation of one of two players: the other wins. Errors when the game is over or `seat`
/// is not a seat.
pub fn resign_two_player(outcome: &mut Option<Outcome>, seat: Seat) -> Result<Resigned, RuleError> {
    if outcome.is_some() {
        return Err(RuleError::new(RuleErrorCode::GameOver, "the game is over"));
    }
    let winner = match seat {
        0 => 1,
        1 => 0,
        _ => {
            return Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("there is no seat {seat}"),
            ));
        }
    };
    let resigned = Outcome::win(winner, EndReason::Resignation);
    *outcome = Some(resigned);
    Ok(Resigned {
        skipped: Vec::new(),
        outcome: Some(resigned),
    })
}

/// A game of any kind: what the server holds (no trait objects needed).
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Cambodian chess (docs/rules/ouk-chatrang.md).
    OukChatrang(ouk_chatrang::Game),
    /// Khan (docs/rules/khan.md, K-1..K-17).
    Khan(khan::Game),
    /// Khan-Tsin (the Khan-Tsin rules file, T-1..T-15).
    KhanTsin(khan_tsin::Game),
}

/// Refuses the options `kind` does not have.
fn only_options(kind: GameKind, options: &GameOptions, allowed: &[&str]) -> Result<(), RuleError> {
    let given = [
        ("start_position", options.start_position.is_some()),
        ("players", options.players.is_some()),
        ("layout", options.layout.is_some()),
        ("colors", options.colors.is_some()),
    ];
    match given
        .iter()
        .find(|(name, set)| *set && !allowed.contains(name))
    {
        Some((name, _)) => Err(RuleError::new(
            RuleErrorCode::BadOption,
            format!("{kind} has no option {name}"),
        )),
        None => Ok(()),
    }
}

impl AnyGame {
    /// A new game of `kind` set up by `options`. Errors: `BadOption` when an option is not the
    /// game's or its value cannot be used, `BadPosition` when a start position cannot be read
    /// (each says which and why).
    pub fn new(kind: GameKind, options: &GameOptions) -> Result<Self, RuleError> {
        match kind {
            GameKind::OukChatrang => {
                only_options(kind, options, &["start_position", "players"])?;
                if options.players.is_some_and(|n| n != 2) {
                    return Err(RuleError::new(
                        RuleErrorCode::BadOption,
                        "ouk-chatrang is played by 2 players",
                    ));
                }
                Ok(AnyGame::OukChatrang(match &options.start_position {
                    Some(fen) => ouk_chatrang::Game::from_fen(fen)?,
                    None => ouk_chatrang::Game::new(),
                }))
            }
            GameKind::Khan => {
                only_options(kind, options, &["start_position", "players"])?;
                if options.players.is_some_and(|n| n != 2) {
                    return Err(RuleError::new(
                        RuleErrorCode::BadOption,
                        "khan is played by 2 players",
                    ));
                }
                Ok(AnyGame::Khan(match &options.start_position {
                    Some(text) => khan::Game::from_text(text)?,
                    None => khan::Game::new(),
                }))
            }
            GameKind::KhanTsin => {
                only_options(
                    kind,
                    options,
                    &["start_position", "players", "layout", "colors"],
                )?;
                Ok(AnyGame::KhanTsin(khan_tsin::Game::from_options(options)?))
            }
        }
    }

    /// Which game this is.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyGame::OukChatrang(_) => GameKind::OukChatrang,
            AnyGame::Khan(_) => GameKind::Khan,
            AnyGame::KhanTsin(_) => GameKind::KhanTsin,
        }
    }

    /// The Ouk Chatrang counting state while a count runs (O-24); `None` otherwise and for other
    /// games.
    pub fn counting(&self) -> Option<ouk_chatrang::Counting> {
        match self {
            AnyGame::OukChatrang(game) => game.counting(),
            AnyGame::Khan(_) => None,
            AnyGame::KhanTsin(_) => None,
        }
    }

    fn rules(&self) -> &dyn Rules {
        match self {
            AnyGame::OukChatrang(game) => game,
            AnyGame::Khan(game) => game,
            AnyGame::KhanTsin(game) => game,
        }
    }

    fn rules_mut(&mut self) -> &mut dyn Rules {
        match self {
            AnyGame::OukChatrang(game) => game,
            AnyGame::Khan(game) => game,
            AnyGame::KhanTsin(game) => game,
        }
    }
}

impl Rules for AnyGame {
    fn position(&self) -> String {
        self.rules().position()
    }

    fn players(&self) -> u8 {
        self.rules().players()
    }

    fn color(&self, seat: Seat) -> &'static str {
        self.rules().color(seat)
    }

    fn to_move(&self) -> Option<Seat> {
        self.rules().to_move()
    }

    fn in_play(&self) -> Vec<Seat> {
        self.rules().in_play()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.rules().legal_moves()
    }

    fn legal_moves_json(&self) -> serde_json::Value {
        self.rules().legal_moves_json()
    }

    fn legal_moves_complete(&self) -> bool {
        self.rules().legal_moves_complete()
    }

    fn extra(&self) -> Extra {
        self.rules().extra()
    }

    fn material(&self) -> Option<Material> {
        self.rules().material()
    }

    fn check(&self) -> Option<Seat> {
        self.rules().check()
    }

    fn play(&mut self, mv: &str) -> Result<Applied, RuleError> {
        self.rules_mut().play(mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.rules().outcome()
    }

    fn resign(&mut self, seat: Seat) -> Result<Resigned, RuleError> {
        self.rules_mut().resign(seat)
    }

    fn claim_draw(&mut self, by: Seat, reason: EndReason) -> Result<Outcome, RuleError> {
        self.rules_mut().claim_draw(by, reason)
    }

    fn can_win_on_time(&self, seat: Seat) -> bool {
        self.rules().can_win_on_time(seat)
    }
}
