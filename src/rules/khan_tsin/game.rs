//! A game in progress: the position plus what the rules need beyond it — the seats, the
//! positions seen (T-15) and how the game ended (T-13, T-14, T-15, resignation) — behind the
//! [`Rules`] trait the server uses.
//!
//! Skips (T-12) are played by the game itself: after every action, while the next player in
//! turn order has no legal move, that player is skipped, and the skipped seats are reported in
//! order. So after any [`Rules::play`] the seat on move has a legal move, or the game is over.
//! Only a position read from text can put a player with no legal move on move: its one legal
//! move is then `pass`.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

use super::layout::Layout;
use super::notation::Move;
use super::pawn::{Color, Colors};
use super::position::{Played, Position};
use crate::rules::{
    Applied, EndReason, GameOptions, Outcome, Resigned, RuleError, RuleErrorCode, Rules, Seat,
    resign_two_player,
};

/// A deterministic hasher (SipHash with fixed keys): no randomness enters the module.
type Seen = HashMap<Position, u8, BuildHasherDefault<DefaultHasher>>;

/// A game of Khan-Tsin for 2 or 3 players. Implements [`Rules`]: moves and positions in the
/// notation of the rules file (see [`Move`] and [`Position`]).
///
/// Seats are numbered in turn order: seat `i` plays the `i`-th colour played, lightest first
/// (T-4, T-7). After each action the game checks, in this order: a win (T-13), no player able
/// to move (T-14, a draw at once), the third occurrence of a position (T-15, a draw); positions
/// are counted after each placement, move and skip.
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// The colour of each seat, lightest first; fixed for the whole game.
    seats: Vec<Color>,
    /// How often each position has occurred at a turn boundary, the start included (T-15).
    seen: Seen,
    outcome: Option<Outcome>,
}

fn bad_option(why: String) -> RuleError {
    RuleError::new(RuleErrorCode::BadOption, why)
}

impl Game {
    /// A two-player game (white and green; blue neutral) on the default layout, before the
    /// first placement (T-3, T-4, T-5).
    pub fn new() -> Game {
        Game::start(Colors::of(&[Color::White, Color::Green]), Layout::default())
    }

    /// A game of the colours `playing` (two or three, taking turns lightest first, T-4, T-7)
    /// on `layout`, before the first placement. Errors: `BadOption` unless 2 or 3 colours.
    pub fn with_colors(playing: Colors, layout: Layout) -> Result<Game, RuleError> {
        match playing.len() {
            2 | 3 => Ok(Game::start(playing, layout)),
            n => Err(bad_option(format!(
                "Khan-Tsin is played by 2 or 3 players (T-4), not {n}"
            ))),
        }
    }

    fn start(playing: Colors, layout: Layout) -> Game {
        Game::from_position(Position::start(playing, layout))
    }

    /// A game set up from a room's options (T-3, T-4):
    ///
    /// - `start_position`: position text (see [`Position`]); it says the players, colours and
    ///   layout, so giving any of those too is a `BadOption`.
    /// - `players`: 2 (default) or 3.
    /// - `colors`: the colours played, distinct, among `white`, `green`, `blue`, as many as
    ///   players; whatever order they are given in, they take turns lightest first (T-7), so
    ///   seat 0 is the lightest. Default: white and green for 2 players (blue neutral), all three
    ///   for 3. Without `players`, their number says how many play.
    /// - `layout`: 36 digits in {1, 2, 3}, twelve of each; default `231` x 12.
    ///
    /// Errors: `BadOption` for an unusable option (saying which and why), `BadPosition` for a
    /// start position that cannot be read.
    pub fn from_options(options: &GameOptions) -> Result<Game, RuleError> {
        if let Some(text) = &options.start_position {
            let extra = [
                ("colors", options.colors.is_some()),
                ("layout", options.layout.is_some()),
            ];
            if let Some((name, _)) = extra.iter().find(|(_, given)| *given) {
                return Err(bad_option(format!(
                    "a Khan-Tsin start position already gives the colours and layout; \
                     drop the option {name}"
                )));
            }
            let game = Game::from_text(text)?;
            if let Some(n) = options.players.filter(|n| *n != game.players()) {
                return Err(bad_option(format!(
                    "the start position is a {}-player game, not a {n}-player one",
                    game.players()
                )));
            }
            return Ok(game);
        }
        if let Some(n) = options.players.filter(|n| !matches!(n, 2 | 3)) {
            return Err(bad_option(format!(
                "Khan-Tsin is played by 2 or 3 players (T-4), not {n}"
            )));
        }
        let playing = match &options.colors {
            None => match options.players {
                Some(3) => Colors::of(&Color::ALL),
                _ => Colors::of(&[Color::White, Color::Green]),
            },
            Some(names) => {
                let mut playing = Colors::NONE;
                for name in names {
                    let Some(color) = Color::from_name(name) else {
                        return Err(bad_option(format!(
                            "{name:?} is not a Khan-Tsin colour: white, green or blue (T-2)"
                        )));
                    };
                    if playing.contains(color) {
                        return Err(bad_option(format!(
                            "{color} is given twice; each player has their own colour (T-4)"
                        )));
                    }
                    playing = playing.with(color);
                }
                let players = options.players.map_or(playing.len(), usize::from);
                if playing.len() != players {
                    return Err(bad_option(format!(
                        "{} colours for {players} players; give one colour per player (T-4)",
                        playing.len()
                    )));
                }
                playing
            }
        };
        let layout = match &options.layout {
            None => Layout::default(),
            Some(text) => Layout::parse(text).map_err(bad_option)?,
        };
        Game::with_colors(playing, layout)
    }

    /// A game from position text (see [`Position`]'s `FromStr`). Its seats are the colours of
    /// field 3, in that order. A position where no player can move is a game already drawn
    /// (T-14); one whose player on move cannot move has the single legal move `pass` (T-12).
    ///
    /// Errors: `BadPosition` saying what is wrong.
    pub fn from_text(text: &str) -> Result<Game, RuleError> {
        Ok(Game::from_position(text.parse()?))
    }

    fn from_position(position: Position) -> Game {
        let mut seen = Seen::default();
        seen.insert(position, 1);
        let outcome = if position.anyone_can_move() {
            None
        } else {
            Some(Outcome::draw(EndReason::AllSkipped))
        };
        Game {
            position,
            seats: position.playing().iter().collect(),
            seen,
            outcome,
        }
    }

    /// The current position.
    pub fn current(&self) -> &Position {
        &self.position
    }

    /// The seat playing `color`, if it is played.
    pub fn seat_of(&self, color: Color) -> Option<Seat> {
        self.seats
            .iter()
            .position(|&c| c == color)
            .and_then(|i| Seat::try_from(i).ok())
    }

    /// How often the current position (stacks and player to move) has occurred at a turn
    /// boundary, this time included (T-15).
    pub fn repetitions(&self) -> u8 {
        self.seen.get(&self.position).copied().unwrap_or(0)
    }

    fn seat(&self, color: Color) -> Seat {
        self.seat_of(color).unwrap_or_default()
    }

    fn game_over() -> RuleError {
        RuleError::new(RuleErrorCode::GameOver, "the game is over")
    }

    /// A turn boundary: counts the current position (T-15) and returns how often it has occurred.
    fn record(&mut self) -> u8 {
        let count = self.seen.entry(self.position).or_insert(0);
        *count = count.saturating_add(1);
        *count
    }

    /// After an action that did not win: ends the game when no player can move (T-14), else
    /// counts the position (T-15) and skips players with no legal move (T-12), counting each
    /// position after a skip, until one can move.
    fn settle(&mut self, skipped: &mut Vec<Seat>) {
        if !self.position.anyone_can_move() {
            self.outcome = Some(Outcome::draw(EndReason::AllSkipped));
            return;
        }
        loop {
            if self.record() >= 3 {
                self.outcome = Some(Outcome::draw(EndReason::Repetition));
                return;
            }
            let color = self.position.side_to_move();
            if self.position.can_move(color) {
                return;
            }
            skipped.push(self.seat(color));
            self.position = self.position.play_unchecked(Move::Pass).position;
        }
    }

    fn display(mv: Move, played: &Played) -> String {
        match (mv, played.landed) {
            (Move::Shift { .. }, Some(to)) => format!("{mv} to {to}"),
            _ => mv.to_string(),
        }
    }
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Rules for Game {
    /// The position text (see [`Position`]).
    fn position(&self) -> String {
        self.position.to_string()
    }

    fn players(&self) -> u8 {
        self.seats.len() as u8
    }

    /// `"white"`, `"green"` or `"blue"`; `""` for a seat the game does not have.
    fn color(&self, seat: Seat) -> &'static str {
        self.seats.get(usize::from(seat)).map_or("", |c| c.as_str())
    }

    fn to_move(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None => Some(self.seat(self.position.side_to_move())),
        }
    }

    /// Every seat, less those that resigned from a three-player game.
    fn in_play(&self) -> Vec<Seat> {
        let playing = self.position.playing();
        self.seats
            .iter()
            .filter(|&&c| playing.contains(c))
            .map(|&c| self.seat(c))
            .collect()
    }

    /// The legal moves in canonical notation (a move reaching the same square both ways is
    /// written with `+`, T-9), sorted as strings; `["pass"]` when the player on move has none
    /// (T-12, only in a position read from text); empty once the game is over.
    fn legal_moves(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut moves: Vec<String> = self
            .position
            .legal_moves()
            .iter()
            .map(Move::to_string)
            .collect();
        if moves.is_empty() {
            moves.push(Move::Pass.to_string());
        }
        moves.sort_unstable();
        moves
    }

    /// Plays a placement (`p12`, `K12`), a stack move (`17:2-`; when both directions reach the
    /// same square `-` is accepted and `notation` gives `+`), or `pass` when the player on move
    /// has no legal move. Then skips every following player with no legal move (T-12), listed
    /// in `skipped`; `outcome` is set by a win (T-13), no player able to move (T-14) or a third
    /// repetition (T-15). `display` adds the landing square to a stack move (`17:2- to 10`).
    fn play(&mut self, mv: &str) -> Result<Applied, RuleError> {
        if self.outcome.is_some() {
            return Err(Game::game_over());
        }
        let parsed: Move = mv.parse()?;
        let canonical = self.position.check(parsed)?;
        let mover = self.position.side_to_move();
        let mut skipped = Vec::new();
        if canonical == Move::Pass {
            skipped.push(self.seat(mover));
        }
        let played = self.position.play_unchecked(canonical);
        self.position = played.position;
        if played.won {
            self.record();
            self.outcome = Some(Outcome::win(self.seat(mover), EndReason::KhanTsin));
        } else {
            self.settle(&mut skipped);
        }
        Ok(Applied {
            notation: canonical.to_string(),
            display: Game::display(canonical, &played),
            skipped,
            captured: Vec::new(),
            outcome: self.outcome,
        })
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Two players: the opponent wins (`resignation`). Three players: the seat leaves the game;
    /// its pawns stay, stacks it tops can no longer be moved (T-8), its turns are gone; pawns it
    /// had not placed are placed like neutral ones (T-6) once the others have placed theirs. If
    /// it was on move the turn passes on, skipping players with no legal move (T-12, reported in
    /// `skipped`); the game may then end by T-14 or T-15. When one player is left, they win
    /// (`resignation`).
    fn resign(&mut self, seat: Seat) -> Result<Resigned, RuleError> {
        if self.outcome.is_some() {
            return Err(Game::game_over());
        }
        if self.seats.len() == 2 {
            return resign_two_player(&mut self.outcome, seat);
        }
        let Some(&color) = self.seats.get(usize::from(seat)) else {
            return Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("there is no seat {seat}"),
            ));
        };
        if !self.position.playing().contains(color) {
            return Err(RuleError::new(
                RuleErrorCode::IllegalMove,
                format!("seat {seat} ({color}) has already left the game"),
            ));
        }
        self.position = self.position.without(color);
        let left = self.in_play();
        let mut skipped = Vec::new();
        if let [winner] = left[..] {
            self.outcome = Some(Outcome::win(winner, EndReason::Resignation));
        } else {
            self.settle(&mut skipped);
        }
        Ok(Resigned {
            skipped,
            outcome: self.outcome,
        })
    }

    /// Always refused: Khan-Tsin's draws (T-14, T-15) are automatic.
    fn claim_draw(&mut self, _by: Seat, reason: EndReason) -> Result<Outcome, RuleError> {
        if self.outcome.is_some() {
            return Err(Game::game_over());
        }
        Err(RuleError::new(
            RuleErrorCode::CannotClaim,
            format!(
                "Khan-Tsin has no draw claims ({reason} asked): its draws, no player able to \
                 move (T-14) and a third repetition (T-15), are automatic"
            ),
        ))
    }
}
