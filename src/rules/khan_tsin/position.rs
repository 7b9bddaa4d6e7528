//! One position: the board, the layout, the colours still playing, whose turn it is and which
//! phase the game is in. Playing a move on it, without history (T-12..T-15 are the game's).

use super::layout::Layout;
use super::notation::Move;
use super::pawn::{Color, Colors};
use super::track::Board;
use super::{moves, placement};
use crate::rules::{RuleError, RuleErrorCode};

/// The two phases of a game (T-5, T-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Players place their pawns one at a time (T-5); ends with the neutral fill (T-6).
    Placement,
    /// Players move stacks (T-8..T-11).
    Movement,
}

/// A Khan-Tsin position: everything the rules need to list and play moves, and what repetition
/// compares (T-15: all stacks and the player to move).
///
/// `playing` is the set of colours that still take turns: the colours played, less any player
/// who resigned in a three-player game. Stacks topped by another colour cannot be moved (T-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(super) board: Board,
    pub(super) layout: Layout,
    pub(super) playing: Colors,
    pub(super) to_move: Color,
    pub(super) phase: Phase,
}

/// What playing a move did, besides the new position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The position after the move, with the next colour in turn order on move (not yet skipped
    /// if it has no legal move).
    pub position: Position,
    /// The square the moved pawns landed on (stack moves only).
    pub landed: Option<u8>,
    /// Whether the move won the game (T-13).
    pub won: bool,
}

impl Position {
    /// The empty board before placement (T-5): `playing` (the colours played, two or three)
    /// take turns lightest first (T-7).
    pub fn start(playing: Colors, layout: Layout) -> Position {
        Position {
            board: Board::empty(),
            layout,
            playing,
            to_move: playing.iter().next().unwrap_or(Color::White),
            phase: Phase::Placement,
        }
    }

    /// The stacks.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The track layout (T-3).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The colours that still take turns, in turn order (T-4, T-7).
    pub fn playing(&self) -> Colors {
        self.playing
    }

    /// The colour on move.
    pub fn side_to_move(&self) -> Color {
        self.to_move
    }

    /// Placement (T-5) or movement (T-8).
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The legal moves of the colour on move, canonical (T-9: one move per destination), in
    /// generation order. Empty when that colour must skip (T-12); never contains `pass`.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.moves_of(self.to_move, &mut out);
        out
    }

    /// Appends the legal moves `color` would have if it were on move.
    pub fn moves_of(&self, color: Color, out: &mut Vec<Move>) {
        if !self.playing.contains(color) {
            return;
        }
        match self.phase {
            Phase::Placement => placement::generate(self, color, out),
            Phase::Movement => moves::generate(self, color, out),
        }
    }

    /// Whether `color` has a legal move here (T-12).
    pub fn can_move(&self, color: Color) -> bool {
        self.playing.contains(color)
            && match self.phase {
                Phase::Placement => placement::can_place(self, color),
                Phase::Movement => moves::can_move(self, color),
            }
    }

    /// Whether any colour still playing has a legal move (T-14).
    pub fn anyone_can_move(&self) -> bool {
        self.playing.iter().any(|c| self.can_move(c))
    }

    /// Checks `mv` for the colour on move and returns its canonical form (a stack move reaching
    /// the same square both ways is written with `+`, T-9). `pass` is legal only for a colour
    /// with no legal move (T-12). Errors: `IllegalMove`, saying which rule forbids it.
    pub fn check(&self, mv: Move) -> Result<Move, RuleError> {
        let illegal = |why: String| Err(RuleError::new(RuleErrorCode::IllegalMove, why));
        let color = self.to_move;
        match (mv, self.phase) {
            (Move::Pass, _) => {
                if self.can_move(color) {
                    illegal(format!(
                        "{color} has a legal move: a player skips only with none (T-12)"
                    ))
                } else {
                    Ok(Move::Pass)
                }
            }
            (Move::Place { square, khan }, Phase::Placement) => {
                placement::check(self, color, usize::from(square), khan)?;
                Ok(mv)
            }
            (Move::Place { .. }, Phase::Movement) => illegal(format!(
                "{mv}: the placement phase is over, every pawn is on the board (T-5, T-6); \
                 move a stack, e.g. 17:2-"
            )),
            (Move::Shift { from, k, direction }, Phase::Movement) => {
                moves::check(self, color, usize::from(from), usize::from(k), direction)
            }
            (Move::Shift { .. }, Phase::Placement) => illegal(format!(
                "{mv}: pawns are still being placed ({color} has placed {} of 12, T-5); place \
                 a pawn (p<square>) or the Khan-pawn (K<square>)",
                self.board.count(color)
            )),
        }
    }

    /// Plays `mv`, which must be legal here (see [`Position::check`]), and passes the turn to
    /// the next colour in turn order (T-7). The last placement also places the pawns of the
    /// colours not playing (T-6) and starts the movement phase.
    pub fn play_unchecked(&self, mv: Move) -> Played {
        let mut next = *self;
        let mut landed = None;
        let mut won = false;
        match mv {
            Move::Place { square, khan } => {
                placement::place(&mut next, usize::from(square), khan);
            }
            Move::Shift { from, k, direction } => {
                let (to, win) =
                    moves::shift(&mut next, usize::from(from), usize::from(k), direction);
                landed = to.map(|t| t as u8);
                won = win;
            }
            Move::Pass => {}
        }
        next.pass_turn();
        Played {
            position: next,
            landed,
            won,
        }
    }

    /// The turn passes to the next colour in turn order (T-7, T-12); when every colour playing
    /// has placed its 12 pawns the rest are placed and the movement phase begins (T-6).
    pub(super) fn pass_turn(&mut self) {
        if let Some(next) = self.playing.next_after(self.to_move) {
            self.to_move = next;
        }
        if self.phase == Phase::Placement {
            placement::finish_if_done(self);
        }
    }

    /// This position after `color` leaves the game (a resignation in a three-player game): its
    /// pawns stay, stacks it tops can no longer be moved (T-8), and the turn passes on if it was
    /// on move. Pawns it had not placed yet are placed like neutral ones (T-6) once the others
    /// have placed theirs.
    pub(super) fn without(&self, color: Color) -> Position {
        let mut next = *self;
        next.playing = self.playing.without(color);
        if self.to_move == color
            && let Some(after) = next.playing.next_after(color)
        {
            next.to_move = after;
        }
        if next.phase == Phase::Placement {
            placement::finish_if_done(&mut next);
        }
        next
    }
}
