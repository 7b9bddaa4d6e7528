//! Stacks and the circular track (T-1, T-8, T-9): what stands on each square, and where a stack
//! leaving a square lands.
//!
//! A stack holds at most 9 pawns: the colour cap (T-10, at most 3 of each of 3 colours) holds in
//! every position this module accepts or makes, so a fixed array suffices and boards copy cheaply.

use std::fmt;

use super::layout::SQUARES;
use super::pawn::{Color, Pawn};

/// The tallest possible stack: 3 pawns of each colour (T-10, T-13).
pub const MAX_HEIGHT: usize = 9;

/// The most pawns of one colour a stack may hold (T-10).
pub const COLOR_CAP: u8 = 3;

/// The pawns on one square, bottom to top (T-8). Empty on an empty square.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stack {
    len: u8,
    /// Slots at `len` and above always hold a plain white pawn (`Pawn::default()`), so equal
    /// stacks compare equal.
    pawns: [Pawn; MAX_HEIGHT],
}

impl Stack {
    /// The empty stack (an empty square).
    pub const EMPTY: Stack = Stack {
        len: 0,
        pawns: [Pawn::plain(Color::White); MAX_HEIGHT],
    };

    /// A stack of `pawns`, bottom first; `None` when there are more than [`MAX_HEIGHT`].
    pub fn from_pawns(pawns: &[Pawn]) -> Option<Stack> {
        if pawns.len() > MAX_HEIGHT {
            return None;
        }
        let mut stack = Stack::EMPTY;
        stack.pawns[..pawns.len()].copy_from_slice(pawns);
        stack.len = pawns.len() as u8;
        Some(stack)
    }

    /// How many pawns the stack holds.
    pub fn height(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the square is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pawns, bottom first.
    pub fn pawns(&self) -> &[Pawn] {
        &self.pawns[..self.height()]
    }

    /// The top pawn, which decides who may move the stack (T-8).
    pub fn top(&self) -> Option<Pawn> {
        self.pawns().last().copied()
    }

    /// How many pawns of each colour (white, green, blue) the stack holds, Khan-pawns included
    /// (T-10).
    pub fn counts(&self) -> [u8; 3] {
        let mut counts = [0; 3];
        for pawn in self.pawns() {
            counts[pawn.color().index()] += 1;
        }
        counts
    }

    /// The top `k` pawns as a stack of their own, in order (T-8); the whole stack when `k` is
    /// larger than it.
    pub fn top_part(&self, k: usize) -> Stack {
        let k = k.min(self.height());
        let mut part = Stack::EMPTY;
        part.pawns[..k].copy_from_slice(&self.pawns[self.height() - k..self.height()]);
        part.len = k as u8;
        part
    }

    /// Removes the top `k` pawns (all of them when `k` is larger than the stack).
    pub(crate) fn remove_top(&mut self, k: usize) {
        let keep = self.height().saturating_sub(k);
        for slot in &mut self.pawns[keep..] {
            *slot = Pawn::default();
        }
        self.len = keep as u8;
    }

    /// Puts `moved` on top, keeping its order (T-8). Pawns that would exceed [`MAX_HEIGHT`] are
    /// dropped, which the colour cap (T-10), checked before every move, never lets happen.
    pub(crate) fn put(&mut self, moved: &Stack) {
        for &pawn in moved.pawns() {
            if self.height() < MAX_HEIGHT {
                self.pawns[self.height()] = pawn;
                self.len += 1;
            }
        }
    }
}

/// A direction round the circle (T-9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Clockwise: increasing square index, written `+`.
    Clockwise,
    /// Counter-clockwise: decreasing square index, written `-`.
    CounterClockwise,
}

impl Direction {
    /// Both directions, `+` first.
    pub const BOTH: [Direction; 2] = [Direction::Clockwise, Direction::CounterClockwise];

    /// `+` or `-`.
    pub fn symbol(self) -> char {
        match self {
            Direction::Clockwise => '+',
            Direction::CounterClockwise => '-',
        }
    }

    /// The square `steps` squares from `from` this way round, wrapping (35 + 1 is 0).
    fn step(self, from: usize, steps: usize) -> usize {
        match self {
            Direction::Clockwise => (from + steps) % SQUARES,
            Direction::CounterClockwise => (from + SQUARES - steps % SQUARES) % SQUARES,
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// The 36 stacks of the track, square 0 to 35 (T-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    stacks: [Stack; SQUARES],
}

impl Board {
    /// A board with every square empty (before placement, T-5).
    pub fn empty() -> Board {
        Board {
            stacks: [Stack::EMPTY; SQUARES],
        }
    }

    /// The stack on `square` (indices wrap round the circle).
    pub fn stack(&self, square: usize) -> &Stack {
        &self.stacks[square % SQUARES]
    }

    pub(crate) fn stack_mut(&mut self, square: usize) -> &mut Stack {
        &mut self.stacks[square % SQUARES]
    }

    /// The 36 stacks, square 0 first.
    pub fn stacks(&self) -> &[Stack; SQUARES] {
        &self.stacks
    }

    /// How many pawns of `color` stand on the board (in the placement phase: how many that
    /// colour has placed, T-5).
    pub fn count(&self, color: Color) -> usize {
        self.stacks
            .iter()
            .map(|s| usize::from(s.counts()[color.index()]))
            .sum()
    }

    /// Whether `color`'s face-up Khan-pawn is on the board.
    pub fn has_khan(&self, color: Color) -> bool {
        self.stacks
            .iter()
            .any(|s| s.pawns().contains(&Pawn::khan(color)))
    }

    /// How many pawns stand on the board.
    pub fn pawn_count(&self) -> usize {
        self.stacks.iter().map(Stack::height).sum()
    }

    /// Where a stack leaving `from` lands going `direction` (T-9): walking round the circle,
    /// counting only occupied squares and never `from` itself, the `distance`-th one. With fewer
    /// than `distance` other stacks (only in partial positions) the count goes on round the
    /// circle past `from`, which it still never counts. `None` when no other square is occupied.
    pub fn landing(&self, from: usize, distance: usize, direction: Direction) -> Option<usize> {
        let from = from % SQUARES;
        let mut others = [0usize; SQUARES];
        let mut found = 0;
        for steps in 1..SQUARES {
            let square = direction.step(from, steps);
            if !self.stacks[square].is_empty() {
                others[found] = square;
                found += 1;
                if found == distance {
                    return Some(square);
                }
            }
        }
        match found {
            0 => None,
            _ => Some(others[(distance.max(1) - 1) % found]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(stacks: &[(usize, &str)]) -> Board {
        let mut board = Board::empty();
        for &(square, letters) in stacks {
            let pawns: Vec<Pawn> = letters.chars().filter_map(Pawn::from_letter).collect();
            *board.stack_mut(square) = Stack::from_pawns(&pawns).unwrap();
        }
        board
    }

    #[test]
    fn t9_counts_only_occupied_squares_and_never_the_start() {
        let b = board(&[
            (0, "w"),
            (4, "gb"),
            (10, "b"),
            (17, "wgW"),
            (29, "bB"),
            (33, "g"),
        ]);
        assert_eq!(b.landing(0, 3, Direction::Clockwise), Some(17));
        assert_eq!(b.landing(0, 3, Direction::CounterClockwise), Some(17));
        assert_eq!(b.landing(33, 2, Direction::Clockwise), Some(4));
        assert_eq!(b.landing(17, 1, Direction::CounterClockwise), Some(10));
        assert_eq!(b.landing(17, 1, Direction::Clockwise), Some(29));
    }

    #[test]
    fn t9_few_stacks_wrap_past_the_start_and_a_lone_stack_goes_nowhere() {
        let b = board(&[(3, "w"), (20, "g")]);
        for direction in Direction::BOTH {
            for distance in 1..=3 {
                assert_eq!(b.landing(3, distance, direction), Some(20));
            }
        }
        let alone = board(&[(3, "w")]);
        assert_eq!(alone.landing(3, 2, Direction::Clockwise), None);
    }

    #[test]
    fn t8_top_part_keeps_order_and_remove_top_clears_slots() {
        let mut b = board(&[(5, "wgbW")]);
        let top = b.stack(5).top_part(2);
        assert_eq!(
            top.pawns(),
            &[Pawn::plain(Color::Blue), Pawn::khan(Color::White)]
        );
        b.stack_mut(5).remove_top(2);
        assert_eq!(
            *b.stack(5),
            Stack::from_pawns(&[Pawn::plain(Color::White), Pawn::plain(Color::Green)]).unwrap()
        );
        b.stack_mut(5).put(&top);
        assert_eq!(b.stack(5).counts(), [2, 1, 1]);
        assert_eq!(b.stack(5).top(), Some(Pawn::khan(Color::White)));
    }
}
